"""Locate the books, check them against the manifest, and fetch them when asked."""

from __future__ import annotations

import hashlib
import json
import os
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


def _downloadable(manifest: dict | None = None) -> list[str]:
    """The books with a byte-identical public copy, which --download can fetch."""
    manifest = manifest or load_manifest()
    return [f["path"] for lang in manifest["languages"].values() for f in lang["files"] if f.get("url")]


def verified_bytes(root: Path, book: BookFile) -> bytes:
    """The file's bytes, refusing anything whose bytes differ from the manifest."""
    path = root / book.path
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        fetchable = ", ".join(_downloadable()) or "none"
        raise CorpusError(
            f"{path}: corpus file not found; give the folder holding en/ and zh/ with --corpus DIR "
            f"or ${CORPUS_ENV} (the default is ../shared/corpus beside the project). --download can "
            f"fetch only the English book ({fetchable}): the Chinese texts have no public "
            f"byte-identical copy"
        ) from None
    actual = sha256_of(data)
    if actual != book.sha256:
        raise CorpusError(
            f"{path}: sha256 is {actual}, the manifest expects {book.sha256}; the file is damaged or "
            f"a different edition: restore it from the shared corpus"
        )
    return data


def read_verified(root: Path, book: BookFile) -> str:
    """Return the file's text, refusing anything whose bytes differ from the manifest."""
    data = verified_bytes(root, book)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise CorpusError(f"{root / book.path}: not UTF-8 (byte {err.start})") from None


def _fetch(url: str, opener) -> bytes:
    """The bytes at url, or CorpusError naming the URL and why it could not be fetched."""
    import socket
    import urllib.error

    try:
        with opener(url, timeout=60) as response:
            return response.read()
    except urllib.error.HTTPError as err:
        raise CorpusError(f"download {url}: the server answered {err.code} {err.reason}") from None
    except (urllib.error.URLError, socket.timeout, OSError) as err:
        reason = getattr(err, "reason", err)
        raise CorpusError(
            f"download {url}: network unreachable ({reason}); without a network, give the shared "
            f"corpus with --corpus DIR"
        ) from None


def download(book: BookFile, cache: Path = DOWNLOAD_CACHE, opener=None) -> Path:
    """Fetch one book into the cache, keeping it only if its sha256 matches."""
    if not book.url:
        raise CorpusError(
            f"{book.path}: cannot be downloaded, only the English book can (the Chinese texts were "
            f"corrected by hand and have no public byte-identical copy); give the shared corpus with "
            f"--corpus DIR instead of --download"
        )
    target = cache / book.path
    if target.exists() and sha256_of(target.read_bytes()) == book.sha256:
        return target
    if opener is None:
        import urllib.request

        opener = urllib.request.urlopen
    data = _fetch(book.url, opener)
    actual = sha256_of(data)
    if actual != book.sha256:
        raise CorpusError(f"download {book.url}: sha256 is {actual}, the manifest expects {book.sha256}; "
                          f"the address no longer serves the same bytes")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(target.suffix + ".part")
    partial.write_bytes(data)
    partial.replace(target)
    return target


def book_root(book: BookFile, corpus: Path, download: bool) -> Path:
    """Where to read a book: the download cache for one --download can fetch, else the corpus."""
    return DOWNLOAD_CACHE if download and book.url else corpus


def read_book(lang: str, root: Path) -> list[str]:
    """The texts of one language's files, in manifest order."""
    return [read_verified(root, book) for book in book_files(lang)]
