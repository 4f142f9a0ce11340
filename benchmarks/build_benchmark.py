#!/usr/bin/env python3
"""Time the build as a newcomer meets it, on a fresh copy of the project (empty .cache/):

- the cold build, as `build.py` prints it stage by stage, each stage in wall and CPU time, and the
  whole command's (Node's included), with the load average at its start and end (others' share);
- a build that changes nothing (the whole `build.py` command, Python start-up included);
- a chapter edit through `build.py serve`: from the save to the server's "built:" line;
- the output's weight.

The copy holds the project's files as they are now (committed or not, .gitignore'd ones left out),
with this project's .venv and node_modules linked in, so no set-up is timed.

Not a test: the machine may be shared, so wall times are noisy; CPU time says what the build
costs, and the figures of one run compare as ratios.
Run with the project's venv: .venv/bin/python benchmarks/build_benchmark.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from corpus.sources import CORPUS_ENV, corpus_dir  # noqa: E402

CHAPTER = Path("site/en/01-onebyone.md")
SERVE_TIMEOUT_S = 600


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def fresh_copy(target: Path) -> Path:
    """The project's files (tracked, and new ones not ignored) in target, sharing .venv and node_modules."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                            check=True, capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    for shared in (".venv", "node_modules"):
        (target / shared).symlink_to(REPO / shared)
    return target


def timed_run(command: list[str], cwd: Path) -> tuple[float, float, str]:
    """(wall s, CPU s of it and its children, stdout) of one command."""
    cpu, started = children_cpu(), time.perf_counter()
    done = subprocess.run(command, cwd=cwd, check=True, capture_output=True, text=True)
    return time.perf_counter() - started, children_cpu() - cpu, done.stdout


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def chapter_edit_through_serve(clone: Path, python: str, out: Path) -> list[float]:
    """Seconds from saving a chapter to serve's "built:" line, for three saves."""
    server = subprocess.Popen([python, "build.py", "serve", "--out", str(out), "--port", str(free_port())],
                              cwd=clone, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    times = []
    try:
        deadline = time.monotonic() + SERVE_TIMEOUT_S

        def until(prefix: str) -> str:
            while time.monotonic() < deadline:
                line = server.stdout.readline()
                if not line:
                    raise SystemExit("serve stopped")
                if line.startswith(prefix):
                    return line
            raise SystemExit(f"serve said no {prefix!r} in time")

        until("serving ")
        chapter = clone / CHAPTER
        original = chapter.read_text(encoding="utf-8")
        for i in range(3):
            time.sleep(0.3)
            saved = time.perf_counter()
            chapter.write_text(original + f"\nOne more sentence, number {i}.\n", encoding="utf-8")
            until("built: ")
            times.append(time.perf_counter() - saved)
    finally:
        server.terminate()
        server.wait(timeout=30)
    return times


def weight(root: Path, under: str | None = None) -> int:
    base = root / under if under else root
    return sum(p.stat().st_size for p in base.rglob("*") if p.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", type=Path, help="make the copy here and keep it (default: a temporary folder)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        clone = fresh_copy(args.keep or Path(tmp) / "specdec")
        python = str(REPO / ".venv" / "bin" / "python")
        os.environ[CORPUS_ENV] = str(corpus_dir())  # the copy's default, ../shared/corpus, is elsewhere
        out = clone / "_site"
        env_note = f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the start"
        wall, cpu, said = timed_run([python, "build.py", "--out", str(out)], clone)
        print(f"cold build (fresh copy, empty .cache/; {env_note}):")
        print("".join(f"    {line}\n" for line in said.splitlines()), end="")
        print(f"  wall {wall:6.2f} s, CPU {cpu:6.2f} s (CPU / wall {cpu / wall:.2f}; "
              f"load average {os.getloadavg()[0]:.1f} at the end)")

        runs = [timed_run([python, "build.py", "--out", str(out)], clone) for _ in range(5)]
        said = runs[-1][2].strip()
        print(f"no-change build.py:   {statistics.median(r[0] for r in runs):6.3f} s wall, "
              f"{statistics.median(r[1] for r in runs):6.3f} s CPU (median of 5, Python start-up included); "
              f"it says: {said}")

        edits = chapter_edit_through_serve(clone, python, out)
        print(f"chapter edit, serve:  {statistics.median(edits):6.2f} s from save to 'built:' "
              f"(median of {len(edits)}: {', '.join(f'{t:.2f}' for t in edits)})")

        total, pyodide = weight(out), weight(out, "pyodide")
        print(f"output, all:          {total / 1e6:6.2f} MB")
        print(f"  Pyodide's files:    {pyodide / 1e6:6.2f} MB")
        print(f"  our own files:      {(total - pyodide) / 1e6:6.2f} MB")
        for part in ("models", "py", "static"):
            print(f"    {part + '/':18}{weight(out, part) / 1e3:8.1f} kB")
        pages = sum(p.stat().st_size for p in out.rglob("index.html"))
        print(f"    {'pages (5 routes)':18}{pages / 1e3:8.1f} kB")


if __name__ == "__main__":
    main()
