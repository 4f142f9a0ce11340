#!/usr/bin/env python3
"""Print the cold build time, the time of a build that changes nothing (in the process, and as the
whole `build.py` command, Python start-up included), a rebuild as `serve` does it after a saved
chapter, and the output's weight.

Not a test: timings on a shared 2-core machine are noisy, so read them as rough figures.
Run with the project's venv: .venv/bin/python benchmarks/build_benchmark.py
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from corpus.sources import corpus_dir  # noqa: E402
from sitebuild.pipeline import Options, build  # noqa: E402


def weight(root: Path, under: str | None = None) -> int:
    base = root / under if under else root
    return sum(p.stat().st_size for p in base.rglob("*") if p.is_file())


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "_site"
        started = time.perf_counter()
        cold = build(Options(out=out, corpus=corpus_dir(), force=True))
        cold_s = time.perf_counter() - started
        started = time.perf_counter()
        again = build(Options(out=out, corpus=corpus_dir()))
        again_s = time.perf_counter() - started
        assert again.skipped, "a build with no changed input should do nothing"
        command = [sys.executable, str(REPO / "build.py"), "--out", str(out)]
        runs = []
        for _ in range(5):
            started = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True)
            runs.append(time.perf_counter() - started)
        memo: dict = {}
        build(Options(out=out, corpus=corpus_dir(), force=True), memo)
        started = time.perf_counter()
        build(Options(out=out, corpus=corpus_dir(), force=True), memo)
        warm_s = time.perf_counter() - started
        total = weight(out)
        runtime = weight(out, "pyodide")
        ours = total - runtime
        print(f"cold build:           {cold_s:6.2f} s")
        print(f"no-change build:      {again_s:6.3f} s (the check alone)")
        print(f"  build.py command:   {statistics.median(runs):6.3f} s (median of 5, Python start-up included)")
        print(f"serve's rebuild:      {warm_s:6.2f} s (models and figures kept, as after a saved chapter)")
        print(f"output, all:          {total / 1e6:6.2f} MB")
        print(f"  Pyodide runtime:    {runtime / 1e6:6.2f} MB")
        print(f"  our own files:      {ours / 1e6:6.2f} MB")
        for part in ("models", "py", "static"):
            print(f"    {part + '/':18}{weight(out, part) / 1e3:8.1f} kB")
        pages = sum(p.stat().st_size for p in out.rglob("index.html"))
        print(f"    {'pages (5 routes)':18}{pages / 1e3:8.1f} kB")
        for line in cold.reports:
            print(line)


if __name__ == "__main__":
    main()
