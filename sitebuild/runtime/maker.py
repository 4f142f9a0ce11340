"""Run make_runtime.mjs in Node and collect what it made: the trimmed stdlib and the snapshots.

The snapshots are stored gzip-compressed (libdeflate's deflate) with no name or time in the header (as `gzip -n`
writes them), so the bytes do not depend on the host and any static host can serve them; the
header carries the snapshot's own size in an extra field, which the worker reads from the first
bytes (gzip_with_size); the worker decompresses them with DecompressionStream. Each is a delta against the wasm's data
segments (site/static/js/snapshot-delta.js; make_runtime.mjs writes it).
"""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import deflate

from ..errors import BuildError
from . import imports
from .lock import write_lock

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "make_runtime.mjs"
HELPER = HERE / "in_pyodide.py"
# The deflate stream is libdeflate's (the `deflate` package), not zlib's: any gzip reader decodes
# it, DecompressionStream as fast as zlib's, and at level 10 it is 5 % smaller than zlib's level 6
# (en: 2.99 MB against 3.14 MB) in half the time; zlib's level 9 took 4.6 times as long for 1.9 %
# (measured for issue 24). Levels 11-12 take twice as long again for 0.2 % more.
DEFLATE_LEVEL = 10
NODE_TIMEOUT_S = 600


def node_binary() -> str:
    node = shutil.which("node")
    if node is None:
        raise BuildError("node: not found; Node.js makes the Pyodide snapshots at build time (install Node.js)")
    return node


def node_version() -> str:
    return subprocess.run([node_binary(), "--version"], capture_output=True, text=True, check=True).stdout.strip()


def make(work: Path, *, pyodide: Path, wheel: Path, package: str, sim: Path,
         models: dict[str, bytes], token: str, snapshots: bool = True,
         measured: dict[str, bytes] | None = None) -> dict:
    """Write python_stdlib.zip, pyodide-lock.json + the wheel, and <lang>.snapshot.gz into work.

    measured: per language, the readout table each snapshot's session opens with (none: the
    session measures as it goes). snapshots=False makes the stdlib alone (the survey still runs
    every command on each model)."""
    langs = list(models) if snapshots else []
    shutil.copyfile(wheel, work / wheel.name)
    lock = write_lock(pyodide / "pyodide-lock.json", work / wheel.name, work / "pyodide-lock.json")
    scratch = work / "scratch"
    scratch.mkdir()
    for lang, data in models.items():
        (scratch / f"{lang}.json").write_bytes(data)
    for lang, data in (measured or {}).items():
        (scratch / f"{lang}.measured.json").write_bytes(data)
    job = {
        "pyodide": f"{pyodide}/",
        "lock": str(work / "pyodide-lock.json"),
        "package": package,
        "wheel": str(work / wheel.name),
        "helper": str(HELPER),
        "imports": imports.named_imports(sim),
        "simModules": imports.package_modules(sim),
        "models": {lang: str(scratch / f"{lang}.json") for lang in models},
        "measured": {lang: str(scratch / f"{lang}.measured.json") for lang in (measured or {})},
        "stdlibOut": str(work / "python_stdlib.zip"),
        "snapshots": {lang: str(scratch / f"{lang}.snapshot") for lang in langs},
        "token": token,
        "report": str(scratch / "report.json"),
    }
    (scratch / "job.json").write_text(json.dumps(job, indent=1))
    run = subprocess.run([node_binary(), str(SCRIPT), str(scratch / "job.json")],
                         capture_output=True, text=True, timeout=NODE_TIMEOUT_S)
    report = _read_report(scratch / "report.json", run)
    # One after the other: libdeflate holds the GIL, so threads would not overlap (1.8 s each on
    # a quiet core).
    for lang in langs:
        raw = (scratch / f"{lang}.snapshot").read_bytes()
        (work / f"{lang}.snapshot.gz").write_bytes(gzip_with_size(raw))
        report["snapshots"][lang]["sha256_raw"] = _sha256(raw)
    report["lock"] = lock
    shutil.rmtree(scratch)
    (work / "report.json").write_text(json.dumps(report, indent=1, sort_keys=True))
    return report


# The gzip extra field (RFC 1952, FEXTRA) that carries the snapshot's own size in its first bytes:
# the page's worker reads it before the rest has come (sim-worker.js, snapshotSize) to hand Pyodide
# an array of that size at once; every gzip reader skips the field.
SIZE_FIELD = b"SZ"


def gzip_with_size(raw: bytes) -> bytes:
    """gzip of raw (libdeflate, DEFLATE_LEVEL; no name, mtime 0) with raw's length in the SIZE_FIELD subfield."""
    body = deflate.deflate_compress(raw, DEFLATE_LEVEL)
    extra = SIZE_FIELD + struct.pack("<HI", 4, len(raw))
    header = b"\x1f\x8b\x08\x04" + struct.pack("<I", 0) + b"\x00\xff" + struct.pack("<H", len(extra)) + extra
    return header + body + struct.pack("<II", zlib.crc32(raw), len(raw) & 0xFFFFFFFF)


def _read_report(path: Path, run: subprocess.CompletedProcess) -> dict:
    try:
        report = json.loads(path.read_text())
    except (OSError, ValueError):
        report = {"error": f"make_runtime.mjs exited with {run.returncode} and wrote no report",
                  "detail": run.stderr}
    if run.returncode != 0 or "error" in report:
        detail = (report.get("detail") or run.stderr or "").strip()[-3000:]
        raise BuildError(f"{SCRIPT.name}: {report.get('error')}\n{detail}")
    return report


def _sha256(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()
