"""Where the memory lies inside a Pyodide memory snapshot, as the page's adapter reads it
(site/static/js/pyodide-adapter.js, snapshotMemory): tests that build or inspect a snapshot ask it,
so that no test holds a copy of Pyodide's snapshot format."""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

ADAPTER = Path(__file__).resolve().parents[2] / "site" / "static" / "js" / "pyodide-adapter.js"

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
