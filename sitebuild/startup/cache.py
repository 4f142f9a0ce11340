"""A folder cache for build products that take seconds to make, keyed by the hash of their inputs.

Making the snapshots and the trimmed stdlib runs Pyodide four times; a chapter or template edit
changes none of their inputs, so the build copies them from here instead. An entry is written
to a temporary folder and renamed into place, so a crashed or concurrent build never leaves a
half-written one; the oldest entries beyond KEEP are removed.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

KEEP = 6


def digest(parts: Iterable[tuple[str, bytes]]) -> str:
    """sha256 over named byte strings (each name and each value's own hash), in the order given."""
    total = hashlib.sha256()
    for name, data in parts:
        total.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    return total.hexdigest()


def _folder(root: Path, kind: str, key: str) -> Path:
    return root / f"{kind}-{key[:24]}"


def found(root: Path, kind: str, key: str) -> Path | None:
    """The folder of `kind` for `key` if an earlier build made it (whole), else None."""
    final = _folder(root, kind, key)
    return final if (final / ".complete").exists() else None


def cached(root: Path, kind: str, key: str, make: Callable[[Path], None]) -> Path:
    """The folder of `kind` for `key`, made by make(folder) unless an earlier build made it."""
    if final := found(root, kind, key):
        os.utime(final)  # recently used: pruned last
        return final
    final = _folder(root, kind, key)
    root.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{kind}-", dir=root))
    try:
        make(work)
        (work / ".complete").write_text(key)
        if final.exists():  # a half-written entry from an older build (no .complete)
            shutil.rmtree(final)
        work.rename(final)
    except OSError:
        if not (final / ".complete").exists():
            raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    _prune(root, kind)
    return final


def _prune(root: Path, kind: str) -> None:
    entries = sorted(root.glob(f"{kind}-*"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in entries[KEEP:]:
        shutil.rmtree(old, ignore_errors=True)
