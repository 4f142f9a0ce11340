"""Locate the books, check them against the manifest, and fetch them when asked."""

from __future__ import annotations

import hashlib
import json
import os
import urllib.request
from dataclasses import dataclass
from pathlib import Path

MANIFEST = Path(__file__).with_name("manifest.json")
REPO = Path(__file__).resolve().parent.parent
# The shared folder sits beside the clone, both on developers' machines and in CI.
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"
DOWNLOAD_CACHE = REPO / ".cache" / "corpus"
CORPUS_ENV = "SPECDEC_CORPUS"


class CorpusError(Exception):
    """A book is missing, unreadable or not the text the manifest names."""


@dataclass(frozen=True)
class BookFile:
    path: str
    sha256: str
    url: str | None


def load_manifest(path: Path = MANIFEST) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def book_files(lang: str, manifest: dict | None = None) -> list[BookFile]:
    manifest = manifest or load_manifest()
    try:
        entries = manifest["languages"][lang]["files"]
    except KeyError:
        raise CorpusError(f"corpus manifest {MANIFEST}: no language {lang!r}") from None
    return [BookFile(e["path"], e["sha256"], e.get("url")) for e in entries]


def corpus_dir(option: str | os.PathLike | None = None) -> Path:
    """The folder to read: the --corpus option, then $SPECDEC_CORPUS, then ../shared/corpus."""
    chosen = option or os.environ.get(CORPUS_ENV) or DEFAULT_CORPUS
    return Path(chosen).expanduser().resolve()


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_verified(root: Path, book: BookFile) -> str:
    """Return the file's text, refusing anything whose bytes differ from the manifest."""
    path = root / book.path
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        hint = f" (set --corpus DIR or ${CORPUS_ENV}, or run with --download)"
        raise CorpusError(f"corpus file not found: {path}{hint}") from None
    actual = sha256_of(data)
    if actual != book.sha256:
        raise CorpusError(
            f"corpus file {path}: sha256 is {actual}, the manifest expects {book.sha256}"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise CorpusError(f"corpus file {path}: not UTF-8 (byte {err.start})") from None


def download(book: BookFile, cache: Path = DOWNLOAD_CACHE, opener=urllib.request.urlopen) -> Path:
    """Fetch one book into the cache, keeping it only if its sha256 matches."""
    if not book.url:
        raise CorpusError(
            f"corpus file {book.path}: no byte-identical public copy is known; "
            f"use the shared corpus (see corpus/manifest.json)"
        )
    target = cache / book.path
    if target.exists() and sha256_of(target.read_bytes()) == book.sha256:
        return target
    with opener(book.url, timeout=60) as response:
        data = response.read()
    actual = sha256_of(data)
    if actual != book.sha256:
        raise CorpusError(f"download {book.url}: sha256 is {actual}, expected {book.sha256}")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(target.suffix + ".part")
    partial.write_bytes(data)
    partial.replace(target)
    return target


def read_book(lang: str, root: Path) -> list[str]:
    """The texts of one language's files, in manifest order."""
    return [read_verified(root, book) for book in book_files(lang)]
