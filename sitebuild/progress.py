"""What the build says while it works: one line per stage as it ends, with its time, then a summary.

    counting        0.31 s  en 34,203 tokens (429 kB), zh 18,758 tokens (270 kB); the first readouts measured
    figures         1.92 s  measured on both books (kept in .cache/measurements/)
    runtime files  12.40 s  Pyodide's start files and snapshots, made in Node alongside the figures and pages
    pages           1.05 s  5 routes
    swap            0.01 s  into _site
    built: _site in 14.61 s (CPU 17.90 s, Node's included)

A stage may run in parts (the pages are read first and written last); `part` adds to its time
without a line, `stage` adds and says it. CPU time is this process's and its finished children's
(os.times), so on a machine others share it says what the build cost where wall time cannot.
"""

from __future__ import annotations

import os
import time
from contextlib import contextmanager
from typing import Callable

WIDTH = 14  # the widest stage name, "runtime files", and a space


def cpu_seconds() -> float:
    """CPU time of this process and of the child processes it has waited for (zero for those on Windows)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


class Note:
    """What a stage says after its time (set while it runs)."""

    detail = ""


class Progress:
    """Times the build's stages and tells `say` (print, or nothing) one line as each ends."""

    def __init__(self, say: Callable[[str], None] | None = None):
        self.say = say or (lambda line: None)
        self.seconds: dict[str, float] = {}
        self._wall, self._cpu = time.perf_counter(), cpu_seconds()

    def elapsed(self) -> float:
        return time.perf_counter() - self._wall

    def cpu(self) -> float:
        return cpu_seconds() - self._cpu

    def add(self, name: str, seconds: float) -> float:
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds
        return self.seconds[name]

    def line(self, name: str, detail: str = "") -> None:
        """Say a stage's total time so far, and what it did."""
        text = f"  {name:<{WIDTH}}{self.seconds.get(name, 0.0):6.2f} s"
        self.say(text + (f"  {detail}" if detail else ""))

    @contextmanager
    def part(self, name: str):
        """Time one part of a stage, silently."""
        started = time.perf_counter()
        note = Note()
        try:
            yield note
        finally:
            self.add(name, time.perf_counter() - started)

    @contextmanager
    def stage(self, name: str):
        """Time a stage (or its last part) and say it when it ends well."""
        with self.part(name) as note:
            yield note
        self.line(name, note.detail)

    def summary(self, out) -> str:
        return f"built: {out} in {self.elapsed():.2f} s (CPU {self.cpu():.2f} s, Node's included)"
