"""Remember the bench's build-time measurements between builds, keyed by everything they read.

A measurement (thousands of speculative steps) is a pure function of the language's model,
the code (the sim package and measured.py) and the measurement's own parameters. Its result
is stored under a hash of all three: a prose edit rebuilds without measuring again, and any
change to the models, the code or the parameters misses the cache. A damaged entry is measured
again, and a folder that cannot be written only costs the time. Processes that ask for the same
measurement at once (a build beside the test processes that read the same figures) make it
once: the first holds a lock on it while it measures, the others wait and read what it stored.
"""

from __future__ import annotations

import hashlib
import json
import os
import weakref
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[2]
CACHE_DIR = REPO / ".cache" / "measurements"
CODE = (REPO / "sim", Path(__file__).with_name("measured.py"))


def code_digest() -> str:
    """Every module of sim, subpackages included (sim/bench holds the readouts), and measured.py."""
    digest = hashlib.sha256()
    for root in CODE:
        for path in sorted(root.rglob("*.py")) if root.is_dir() else [root]:
            digest.update(path.relative_to(root.parent).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


# A language's digest, made once per language object (a build asks for it once per measurement,
# and writing out its counts takes about 10 ms); its models are not changed once loaded.
_LANGUAGE_DIGESTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def language_digest(language) -> str:
    """The counts the models are made of (the target's levels include the bigram's)."""
    if (known := _LANGUAGE_DIGESTS.get(language)) is not None:
        return known
    target = language.target
    digest = hashlib.sha256(repr((language.lang, language.vocab, target.base.counts)).encode())
    for level in target.levels:
        digest.update(repr((level.columns, level.types, level.total, level.next, level.count)).encode())
    _LANGUAGE_DIGESTS[language] = digest.hexdigest()
    return _LANGUAGE_DIGESTS[language]


def cached(kind: str, language, params: dict, measure: Callable[[], dict]) -> dict:
    """measure() once per (kind, model, sim code, params); later builds read the stored JSON."""
    key = hashlib.sha256(
        json.dumps([kind, params, code_digest(), language_digest(language)], sort_keys=True).encode()
    ).hexdigest()
    path = CACHE_DIR / f"{kind}-{language.lang}-{key[:20]}.json"
    stored = _stored(path, key)
    if stored is not None:
        return stored["result"]
    with _measuring(CACHE_DIR / f"{kind}-{language.lang}.lock"):
        stored = _stored(path, key)  # another process may have measured it while this one waited
        if stored is not None:
            return stored["result"]
        result = measure()
        try:
            CACHE_DIR.mkdir(parents=True, exist_ok=True)  # (where there is no flock, _measuring made none)
            for stale in CACHE_DIR.glob(f"{kind}-{language.lang}-*.json"):
                stale.unlink(missing_ok=True)  # an older model or code: never read again
            partial = path.with_suffix(f".{os.getpid()}.tmp")
            partial.write_text(json.dumps({"key": key, "result": result}), encoding="utf-8")
            os.replace(partial, path)
        except OSError:
            pass
    return result


def _stored(path: Path, key: str) -> dict | None:
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        if stored.get("key") == key and "result" in stored:
            return stored
    except (OSError, ValueError, AttributeError):
        pass
    return None


@contextmanager
def _measuring(lock_path: Path):
    """An exclusive lock on lock_path (flock, released when the file closes, so also when the
    process dies) for the time of one measurement; none where the folder cannot be written or
    the system has no flock (the measurement is then only made twice)."""
    try:
        import fcntl

        lock_path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(lock_path, "a")
    except (ImportError, OSError):
        yield
        return
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
