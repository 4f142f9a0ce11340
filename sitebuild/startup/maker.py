"""Run make_start_files.mjs in Node and collect what it made: the trimmed stdlib and the snapshots.

The snapshots are stored as .xz files (`<lang>.snapshot.xz`, compress_snapshot), which the page's
decoding worker decodes as their bytes come in, with npm xz-decompress (site/static/js/startup/snapshot-inflate.js);
their own size is in the report (`bytes`), which the page's settings carry (the start field
snapshotSize). The bytes depend only on the snapshot, and any static host serves them as they are.
Each is a delta against the wasm's data segments (site/static/js/startup/snapshot-delta.js), packed
without its long runs of zeros (site/static/js/startup/snapshot-spans.js; make_start_files.mjs writes both).
"""

from __future__ import annotations

import json
import lzma
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..errors import BuildError
from . import imports
from .lock import write_lock

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "make_start_files.mjs"
HELPER = HERE / "in_pyodide.py"
# xz (LZMA2) rather than Zstandard or gzip: the en snapshot is 2.12 MB against
# 2.41 MB as Zstandard at level 18 (levels 19 to 22 saved 0.3% more) and 2.97 MB as the best gzip:
# 0.47 s less than Zstandard on a 5 Mbit/s link. The snapshot is wasm32's memory, words aligned on
# 4 bytes: literals and matches coded by their place in a word (lp=2, pb=2) save 1.6% against xz's
# default (lc=3, lp=0). A dictionary of 16 MiB spans the heap's live part (13-26 MB into memory):
# 8 MiB and 32 MiB both came out larger. The extreme preset saves 8 kB for 0.9 s of CPU. The
# page's decoder (xz-embedded in WebAssembly, npm xz-decompress) spends its CPU as the bytes come
# in (0.16 s in Node for the en snapshot packed without its long runs of zeros, snapshot-spans.js:
# 10.4 of its 31 MB). CRC32: a copy cut short or corrupted fails its check in the page's decoder.
# Making one costs 5 s of CPU (Zstandard: 3.3 s); a snapshot's making is cached (.cache/start-files/).
XZ_FILTERS = ({"id": lzma.FILTER_LZMA2, "preset": 9 | lzma.PRESET_EXTREME, "dict_size": 1 << 24,
               "lc": 2, "lp": 2, "pb": 2},)
# Pyodide's .wasm as an .xz stream (assets.WASM_XZ), which the page's worker decodes as it
# comes in and compiles as it is decoded (site/static/js/startup/wasm-inflate.js): 2.64 MB against 3.53 MB
# as the best gzip and 2.74 MB with brotli -q 11, the encodings a host may send the .wasm itself in.
# Code is bytes, not words: xz's default literal context (lc=3, lp=0) with pb=0 and the longest
# matches (nice_len 273) came out smallest; 8 MiB of dictionary is as good as 16 or 64 (the file
# is 9.6 MB), and the extreme preset is 1.7 kB larger here, for 0.45 s more of CPU (3.4 s).
# The page decodes it in 0.23-0.29 s of CPU (xz-embedded; 0.19 s in Node), spent as the bytes come.
WASM_XZ_FILTERS = ({"id": lzma.FILTER_LZMA2, "preset": 9, "dict_size": 1 << 23,
                    "lc": 3, "lp": 0, "pb": 0, "nice_len": 273},)
NODE_TIMEOUT_S = 600
# What a failed making says to do: the guide to a new Pyodide, and for the snapshots, the build
# that goes without them.
GUIDE = "docs/upgrading-pyodide.md says what this message means and what to change"
WITHOUT_SNAPSHOTS = ("or build with --start=wheel (`./dev build --start=wheel`): a site whose worker starts "
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
    """Write python_stdlib.zip, pyodide-lock.json + the wheel, and <lang>.snapshot.xz into work.

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
    # Side by side: lzma lets go of the GIL while it compresses (two at once on two cores).
    raws = {lang: (scratch / f"{lang}.snapshot").read_bytes() for lang in langs}
    with ThreadPoolExecutor(max_workers=max(len(langs), 1)) as pool:
        stored = dict(zip(langs, pool.map(compress_snapshot, raws.values())))
    for lang in langs:
        (work / f"{lang}.snapshot.xz").write_bytes(stored[lang])
        report["snapshots"][lang]["sha256_raw"] = _sha256(raws[lang])
    report["lock"] = lock
    shutil.rmtree(scratch)
    (work / "report.json").write_text(json.dumps(report, indent=1, sort_keys=True))
    return report


def compress_snapshot(raw: bytes) -> bytes:
    """raw (a packed snapshot) as one .xz stream (XZ_FILTERS, CRC32). The snapshot's own size is
    not in it: the report gives it to the page (`bytes`), which hands Pyodide an array of that size
    at once."""
    return lzma.compress(raw, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC32, filters=XZ_FILTERS)


def compress_wasm(raw: bytes) -> bytes:
    """Pyodide's .wasm as one .xz stream (WASM_XZ_FILTERS, CRC32); cached on its own
    (sitebuild/startup/__init__.py, wasm_stream): it depends on nothing of ours."""
    return lzma.compress(raw, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC32, filters=WASM_XZ_FILTERS)


def _read_report(path: Path, run: subprocess.CompletedProcess) -> dict:
    try:
        report = json.loads(path.read_text())
    except (OSError, ValueError):
        report = {"error": f"make_start_files.mjs exited with {run.returncode} and wrote no report",
                  "detail": run.stderr}
    if run.returncode != 0 or "error" in report:
        detail = (report.get("detail") or run.stderr or "").strip()[-3000:]
        where = {"survey": "the stdlib survey", "snapshot": "the memory snapshots"}.get(report.get("phase"), "the start files")
        fix = GUIDE + ("; " + WITHOUT_SNAPSHOTS if report.get("phase") == "snapshot" else "")
        raise BuildError(f"{SCRIPT.name} ({where}): {report.get('error')}; {fix}\n{detail}")
    return report


def _sha256(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()
