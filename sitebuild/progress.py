"""What the build says while it works: one line per stage as it ends, with its time, then a summary.

    counting      0.31 s  CPU  0.30 s  en 34,203 tokens (429 kB), zh 18,758 tokens (270 kB); ...
    figures       1.92 s  CPU  1.85 s  measured on both books (kept in .cache/measurements/)
    start files  12.40 s  CPU 13.10 s  the stdlib, the sim wheel and the snapshots, made in Node alongside ...
    pages         1.05 s  CPU  1.00 s  5 routes
    swap          0.01 s  CPU  0.00 s  into _site
    built: _site in 14.61 s (CPU 17.90 s, Node's included)

A stage may run in parts (the pages are read first and written last); `part` adds to its time
without a line, `stage` adds and says it. A stage's CPU time is that of the thread that ran it
(the start files: their thread's and Node's); the summary's is this process's and its finished
children's (os.times). On a machine others share, CPU time says what the build cost where wall
time cannot, and stages that overlap (the figures and the start files) show as CPU beside wall.
"""

from __future__ import annotations

import os
import time
from contextlib import contextmanager
from typing import Callable

WIDTH = 12  # the widest stage name, "start files", and a space


def cpu_seconds() -> float:
    """CPU time of this process and of the child processes it has waited for (zero for those on Windows)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def children_cpu() -> float:
    """CPU time of the child processes this process has waited for (zero on Windows)."""
    t = os.times()
    return t.children_user + t.children_system


class Note:
    """What a stage says after its time (set while it runs)."""

    detail = ""


class Progress:
    """Times the build's stages and tells `say` (print, or nothing) one line as each ends."""

    def __init__(self, say: Callable[[str], None] | None = None):
        self.say = say or (lambda line: None)
        self.seconds: dict[str, float] = {}
        self.cpu_seconds: dict[str, float] = {}
        self._wall, self._cpu = time.perf_counter(), cpu_seconds()

    def elapsed(self) -> float:
        return time.perf_counter() - self._wall

    def cpu(self) -> float:
        return cpu_seconds() - self._cpu

    def add(self, name: str, seconds: float, cpu: float = 0.0) -> float:
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds
        self.cpu_seconds[name] = self.cpu_seconds.get(name, 0.0) + cpu
        return self.seconds[name]

    def line(self, name: str, detail: str = "") -> None:
        """Say a stage's total time so far (wall and CPU), and what it did."""
        text = f"  {name:<{WIDTH}}{self.seconds.get(name, 0.0):6.2f} s  CPU {self.cpu_seconds.get(name, 0.0):5.2f} s"
        self.say(text + (f"  {detail}" if detail else ""))

    @contextmanager
    def part(self, name: str):
        """Time one part of a stage, silently."""
        started, cpu = time.perf_counter(), time.thread_time()
        note = Note()
        try:
            yield note
        finally:
            self.add(name, time.perf_counter() - started, time.thread_time() - cpu)

    @contextmanager
    def stage(self, name: str):
        """Time a stage (or its last part) and say it when it ends well."""
        with self.part(name) as note:
            yield note
        self.line(name, note.detail)

    def summary(self, out) -> str:
        return f"built: {out} in {self.elapsed():.2f} s (CPU {self.cpu():.2f} s, Node's included)"
