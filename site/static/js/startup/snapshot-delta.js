// The memory snapshots are stored as a delta against the wasm's data segments (what instantiating
// Pyodide's .wasm writes into memory; 3.2 MB of every snapshot, nearly all of it unchanged), so
// that those bytes are not sent twice: the .wasm already carries them. The build XORs the data
// image out of each snapshot (sitebuild/startup/make_start_files.mjs) and the worker XORs it back in
// (sim-worker.js) from the bytes of the .wasm it downloads anyway. XOR is its own inverse: one
// function does both. Shared by the page's worker and the build (in Node). Where the memory lies
// inside a snapshot is Pyodide's business: pyodide-adapter.js, snapshotMemory.
import { snapshotMemory } from "./pyodide-adapter.js";

// What the wasm's active data segments write into memory at instantiation, from address 0 to the
// end of the highest one. Reads the sections' headers and the data section only.
export function dataImage(wasm) {
  let at = 8;
  const uleb = () => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = wasm[at++];
      value += (byte & 0x7f) * 2 ** shift;
      if (!(byte & 0x80)) return value;
    }
  };
  const sleb = () => {
    let value = 0;
    let shift = 0;
    let byte;
    do {
      byte = wasm[at++];
      value |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    return shift < 32 && byte & 0x40 ? value | (~0 << shift) : value;
  };
  if (wasm.length < 8 || wasm[0] !== 0 || wasm[1] !== 0x61 || wasm[2] !== 0x73 || wasm[3] !== 0x6d) {
    throw new Error("Pyodide's .wasm is not WebAssembly");
  }
  const segments = [];
  while (at < wasm.length) {
    const id = wasm[at++];
    const size = uleb();
    const next = at + size;
    if (id === 11) { // the data section
      for (let count = uleb(); count > 0; count--) {
        const flags = uleb();
        let offset = null;
        if (flags !== 1) { // active: a memory index (flags 2), then `i32.const offset; end`
          if (flags === 2) uleb();
          if (wasm[at++] !== 0x41) throw new Error("a data segment's offset is not an i32.const");
          offset = sleb();
          if (wasm[at++] !== 0x0b) throw new Error("a data segment's offset is not a constant");
        }
        const length = uleb();
        if (offset !== null) segments.push([offset, wasm.subarray(at, at + length)]);
        at += length;
      }
    }
    at = next;
  }
  let end = 0;
  for (const [offset, bytes] of segments) end = Math.max(end, offset + bytes.length);
  const image = new Uint8Array(end);
  for (const [offset, bytes] of segments) image.set(bytes, offset);
  return image;
}

// XOR the data image into the snapshot's memory, in place: a snapshot becomes its delta and a
// delta its snapshot.
export function xorDataImage(snapshot, image) {
  const memory = snapshotMemory(snapshot);
  if (image.length > memory.length) throw new Error("the snapshot is shorter than Pyodide's data");
  for (let i = 0; i < image.length; i++) memory[i] ^= image[i];
  return snapshot;
}
