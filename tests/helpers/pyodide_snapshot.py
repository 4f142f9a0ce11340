"""Where the memory lies inside a Pyodide memory snapshot, as the page's adapter reads it
(site/static/js/startup/pyodide-adapter.js, snapshotMemory): tests that build or inspect a snapshot ask it,
so that no test holds a copy of Pyodide's snapshot format."""

from __future__ import annotations

import json
import struct
import subprocess
import tempfile
from pathlib import Path

ADAPTER = Path(__file__).resolve().parents[2] / "site" / "static" / "js" / "startup" / "pyodide-adapter.js"

READ = """
import fs from "node:fs";
const [adapter, file] = process.argv.slice(2);
const { snapshotMemory } = await import(adapter);
const bytes = new Uint8Array(fs.readFileSync(file));
console.log(JSON.stringify({ offset: snapshotMemory(bytes).byteOffset }));
"""


def memory_offset(snapshot: bytes) -> int:
    """The offset of the memory in a (decompressed) snapshot; raises if it is not one."""
    with tempfile.TemporaryDirectory(prefix="specdec-snapshot-") as tmp:
        script, data = Path(tmp) / "read.mjs", Path(tmp) / "snapshot"
        script.write_text(READ)
        data.write_bytes(snapshot)
        run = subprocess.run(["node", str(script), ADAPTER.as_uri(), str(data)], capture_output=True, text=True, timeout=120)
        if run.returncode != 0:
            raise ValueError(f"not a Pyodide memory snapshot: {run.stderr.strip().splitlines()[-1] if run.stderr.strip() else run.returncode}")
        return json.loads(run.stdout)["offset"]


def unpack_spans(packed: bytes) -> bytes:
    """A snapshot packed as spans (site/static/js/startup/snapshot-spans.js: "SPNS", the snapshot's size,
    the count, each span's offset and length, as little-endian u32, then the spans' bytes) as the
    snapshot it holds: written here from the format's description, to check the build's packing
    and the page's unpacking."""
    if packed[:4] != b"SPNS":
        raise ValueError("not a snapshot packed as spans")
    size, count = struct.unpack_from("<II", packed, 4)
    out = bytearray(size)
    at = 12 + 8 * count
    for i in range(count):
        offset, length = struct.unpack_from("<II", packed, 12 + 8 * i)
        out[offset:offset + length] = packed[at:at + length]
        at += length
    if at != len(packed):
        raise ValueError(f"{len(packed) - at} bytes past the last span")
    return bytes(out)


def packed_whole(snapshot: bytes) -> bytes:
    """snapshot packed as one span (the format allows any spans; the build leaves out long runs of
    zeros): what a test compresses to hand the page's decoder."""
    return b"SPNS" + struct.pack("<IIII", len(snapshot), 1, 0, len(snapshot)) + snapshot
