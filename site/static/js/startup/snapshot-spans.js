// The memory snapshots are stored without their long runs of zeros: two thirds of Pyodide's 31 MB
// of memory are zeros in runs of 64 kB and more (the heap's unused top, the data image once its
// delta is taken, the stacks). They cost next to nothing compressed, but the page's decoder still
// wrote every one of those bytes out (0.1 s of a visit from the cache). So the build packs a
// snapshot as the spans between those runs (packSpans, in Node: make_start_files.mjs), and the page's
// decoder writes each span where it belongs in an array of zeros as the bytes come in
// (SpanWriter, snapshot-inflate.js). Shared by the page's worker and the build.
//
// The packed form: "SPNS", the snapshot's size (u32), the number of spans (u32), each span's offset
// and length (u32 pairs), then the spans' bytes in order; every span lies within the snapshot,
// after the one before it. All numbers little-endian.

const MAGIC = [0x53, 0x50, 0x4e, 0x53]; // "SPNS"
const PAGE = 4096;
const MIN_ZERO_PAGES = 16; // a run of zeros from 64 kB on is left out

// The spans between the runs of at least MIN_ZERO_PAGES pages of zeros, as [offset, length].
function spansOf(bytes) {
  const spans = [];
  const pages = Math.ceil(bytes.length / PAGE);
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.length / 4));
  const zeroPage = (page) => {
    const end = Math.min((page + 1) * PAGE, bytes.length);
    for (let at = page * PAGE; at < end; at += 4) {
      if (at + 4 <= end ? words[at >> 2] !== 0 : bytes.subarray(at, end).some((b) => b !== 0)) return false;
    }
    return true;
  };
  let start = 0; // where the span being found begins
  for (let page = 0; page < pages;) {
    if (!zeroPage(page)) {
      page += 1;
      continue;
    }
    let end = page;
    while (end < pages && zeroPage(end)) end += 1;
    if (end - page >= MIN_ZERO_PAGES) {
      if (page * PAGE > start) spans.push([start, page * PAGE - start]);
      start = Math.min(end * PAGE, bytes.length);
    }
    page = end;
  }
  if (bytes.length > start) spans.push([start, bytes.length - start]);
  return spans;
}

// bytes (a Uint8Array), packed.
export function packSpans(bytes) {
  if (bytes.byteOffset % 4) bytes = bytes.slice(); // read by words
  const spans = spansOf(bytes);
  const head = 12 + 8 * spans.length;
  const packed = new Uint8Array(head + spans.reduce((sum, [, length]) => sum + length, 0));
  const view = new DataView(packed.buffer);
  packed.set(MAGIC);
  view.setUint32(4, bytes.length, true);
  view.setUint32(8, spans.length, true);
  let at = head;
  spans.forEach(([offset, length], i) => {
    view.setUint32(12 + 8 * i, offset, true);
    view.setUint32(16 + 8 * i, length, true);
    packed.set(bytes.subarray(offset, offset + length), at);
    at += length;
  });
  return packed;
}

// Unpacks a packed snapshot into `out` (all zeros, the snapshot's size) from its bytes in pieces,
// as they come: write(piece) for each, then end(), which returns `out`. Throws for bytes that are
// not a packed snapshot, a snapshot of another size than `out`, a span outside it or before the
// one it follows, bytes past the last span, or an end before it.
export class SpanWriter {
  constructor(out) {
    this.out = out;
    this.head = [];
    this.headLength = 0;
    this.spans = null;
    this.index = 0; // the span being written
    this.at = 0; // how much of it is written
  }

  write(piece) {
    let rest = this.spans ? piece : this.readHead(piece);
    while (rest.length) {
      if (this.index >= this.spans.length) throw new Error("the snapshot has bytes past its last span");
      const [offset, length] = this.spans[this.index];
      const n = Math.min(length - this.at, rest.length);
      this.out.set(rest.subarray(0, n), offset + this.at);
      this.at += n;
      rest = rest.subarray(n);
      if (this.at === length) {
        this.index += 1;
        this.at = 0;
      }
    }
  }

  end() {
    if (!this.spans || this.index !== this.spans.length) throw new Error("the snapshot ends before its last span");
    return this.out;
  }

  // Keeps the head's bytes until it is whole, then reads the spans from it; returns the rest of piece.
  readHead(piece) {
    this.head.push(piece);
    this.headLength += piece.length;
    if (this.headLength < 12) return piece.subarray(piece.length);
    const all = concat(this.head, this.headLength);
    if (!MAGIC.every((byte, i) => all[i] === byte)) throw new Error("the snapshot is not packed as spans");
    const view = new DataView(all.buffer, all.byteOffset, all.length);
    const total = view.getUint32(4, true);
    if (total !== this.out.length) throw new Error(`the snapshot has ${total} bytes, not the ${this.out.length} the page gives`);
    const count = view.getUint32(8, true);
    const length = 12 + 8 * count;
    if (this.headLength < length) return piece.subarray(piece.length);
    const spans = [];
    let end = 0;
    for (let i = 0; i < count; i++) {
      const offset = view.getUint32(12 + 8 * i, true);
      const size = view.getUint32(16 + 8 * i, true);
      if (offset < end || offset + size > this.out.length) throw new Error(`the snapshot's span ${i} (${offset}, ${size}) lies outside its memory`);
      spans.push([offset, size]);
      end = offset + size;
    }
    this.spans = spans.filter(([, size]) => size > 0);
    return all.subarray(length);
  }
}

// The pieces (Uint8Arrays, `length` bytes in all) as one array: the one piece itself, or a copy.
export function concat(pieces, length) {
  if (pieces.length === 1) return pieces[0];
  const all = new Uint8Array(length);
  let at = 0;
  for (const piece of pieces) {
    all.set(piece, at);
    at += piece.length;
  }
  return all;
}
