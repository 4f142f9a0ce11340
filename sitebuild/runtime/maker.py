"""Run make_runtime.mjs in Node and collect what it made: the trimmed stdlib and the snapshots.

The snapshots are stored as one Zstandard frame each (`<lang>.snapshot.zst`, compress_snapshot): the
frame's header carries the snapshot's own size, which the worker reads from the first bytes, and
the worker decodes them with zstddec (site/static/js/snapshot-inflate.js). The bytes depend only on
the snapshot, and any static host serves them as they are. Each is a delta against the wasm's data
segments (site/static/js/snapshot-delta.js; make_runtime.mjs writes it).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import zstandard

from ..errors import BuildError
from . import imports
from .lock import write_lock

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "make_runtime.mjs"
HELPER = HERE / "in_pyodide.py"
# Zstandard rather than gzip (issue 24): at level 18 the en snapshot is 2.40 MB against gzip's
# 2.97 MB (libdeflate at level 10, the best gzip here), 0.9 s less on a 5 Mbit/s link. The price
# was in the page with fzstd (JavaScript): 0.41-0.48 s to decode in a fresh page of Chromium
# against DecompressionStream's 0.29-0.31 s for the gzip; zstddec (zstd's decoder in WebAssembly)
# takes about half of DecompressionStream's time (benchmarks/browser_perf.py --network times the start-up).
# Level 18 costs 6 s of CPU per snapshot (gzip 1.8 s); 19 saves 8 kB more for 0.9 s, 17 loses 90 kB
# for 1.8 s less (measured on the en snapshot). A snapshot's making is cached (.cache/runtime/).
ZSTD_LEVEL = 18
NODE_TIMEOUT_S = 600
# What a failed making says to do: the guide to a new Pyodide, and for the snapshots, the build
# that goes without them.
GUIDE = "docs/upgrading-pyodide.md says what this message means and what to change"
WITHOUT_SNAPSHOTS = ("or build with --runtime=wheel (`./dev build --runtime=wheel`): a site whose worker starts "
                     "Python from the sim wheel, without the snapshots (slower to go live, the same bench)")


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
    """Write python_stdlib.zip, pyodide-lock.json + the wheel, and <lang>.snapshot.zst into work.

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
    # Side by side: zstandard lets go of the GIL while it compresses (two at once on two cores).
    raws = {lang: (scratch / f"{lang}.snapshot").read_bytes() for lang in langs}
    with ThreadPoolExecutor(max_workers=max(len(langs), 1)) as pool:
        stored = dict(zip(langs, pool.map(compress_snapshot, raws.values())))
    for lang in langs:
        (work / f"{lang}.snapshot.zst").write_bytes(stored[lang])
        report["snapshots"][lang]["sha256_raw"] = _sha256(raws[lang])
    report["lock"] = lock
    shutil.rmtree(scratch)
    (work / "report.json").write_text(json.dumps(report, indent=1, sort_keys=True))
    return report


def compress_snapshot(raw: bytes) -> bytes:
    """One Zstandard frame of raw (ZSTD_LEVEL) with raw's size in its header (the worker reads it
    from the first bytes, to hand Pyodide an array of that size at once) and no checksum (the
    snapshot's token and Pyodide's restore check what it holds). Its window spans the whole
    snapshot, so the frame is a single segment (a decoder writes it straight into its output),
    for 120 bytes more."""
    window_log = min(max(len(raw) - 1, 1 << 10).bit_length(), 27)
    params = zstandard.ZstdCompressionParameters.from_level(
        ZSTD_LEVEL, source_size=len(raw), window_log=window_log, write_content_size=True, write_checksum=False)
    return zstandard.ZstdCompressor(compression_params=params).compress(raw)


def _read_report(path: Path, run: subprocess.CompletedProcess) -> dict:
    try:
        report = json.loads(path.read_text())
    except (OSError, ValueError):
        report = {"error": f"make_runtime.mjs exited with {run.returncode} and wrote no report",
                  "detail": run.stderr}
    if run.returncode != 0 or "error" in report:
        detail = (report.get("detail") or run.stderr or "").strip()[-3000:]
        where = {"survey": "the runtime survey", "snapshot": "the memory snapshots"}.get(report.get("phase"), "the runtime files")
        fix = GUIDE + ("; " + WITHOUT_SNAPSHOTS if report.get("phase") == "snapshot" else "")
        raise BuildError(f"{SCRIPT.name} ({where}): {report.get('error')}; {fix}\n{detail}")
    return report


def _sha256(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()
