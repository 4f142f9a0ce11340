"""Whether the site in the output folder is exactly what the inputs would build now.

The stamp is a hash of every input's bytes: the content, templates and static files, the code,
the corpus (each book verified against its sha256 in corpus/manifest.json, so a corrupted book
fails here as it would in a full build), the locked and the installed dependency versions, and
the Pyodide version. The output folder's marker holds the stamp of the build that made it and
a manifest of every file it wrote (size and sha256): a missing, added or edited output file
means the site is not what the build made, and it is rebuilt.

This module runs on every `build.py`, so it imports nothing heavy: a build that finds nothing
changed takes a small fraction of a second.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

from .errors import BuildError
from .output import MARKER

REPO = Path(__file__).resolve().parent.parent
# The code and locks whose change can change the output (the content and templates come from Options).
CODE_PATHS = ("build.py", "corpus", "sim", "sitebuild", "package-lock.json", "requirements.lock", "pyproject.toml")
SKIPPED = ("__pycache__",)
HASH = "sha256"


def _relative_prefix(folder: str, root: Path) -> str:
    """folder's path under root, "/"-separated with a trailing "/" ("" for root itself): once per
    folder, as strings (Path.relative_to per file was a quarter of an up-to-date build's time)."""
    rel = os.path.relpath(folder, root)
    return "" if rel == "." else rel.replace(os.sep, "/") + "/"


def _file_digest(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, HASH).hexdigest()


def _input_files(roots: dict[str, Path]):
    """(label, file) for every file under each root, in a stable order."""
    for label, root in roots.items():
        if root.is_file():
            yield label, root
            continue
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED)
            prefix = _relative_prefix(folder, root)
            for file in sorted(files):
                yield f"{label}/{prefix}{file}", Path(folder, file)


def _installed_packages() -> list[str]:
    """name-version of every installed distribution, read from the dist-info folder names
    (importlib.metadata costs a tenth of a second; listing the folders costs a millisecond)."""
    found = []
    for entry in sys.path:
        if entry.endswith("site-packages") and os.path.isdir(entry):
            found += [n for n in os.listdir(entry) if n.endswith(".dist-info")]
    return sorted(found)


def corpus_hashes(corpus: Path, download: bool) -> list[str] | None:
    """Each book's verified sha256; None when a download is due (the build will fetch it).

    A book that is missing or differs from the manifest raises the build's own error.
    """
    from corpus import sources

    root = sources.DOWNLOAD_CACHE if download else corpus
    hashes = []
    for lang in sources.load_manifest()["languages"]:
        for book in sources.book_files(lang):
            try:
                sources.verified_bytes(root, book)
            except sources.CorpusError as err:
                if download:
                    return None
                raise BuildError(str(err)) from None
            hashes.append(f"{book.path}:{book.sha256}")
    return hashes


def input_stamp(opts) -> str | None:
    """The hash of every input's bytes and the build's settings (opts: pipeline.Options);
    None while a book still has to be downloaded."""
    from .assets import pyodide_version
    from .bundles import esbuild_version

    books = corpus_hashes(opts.corpus, opts.download)
    if books is None:
        return None
    roots = {name: REPO / name for name in CODE_PATHS} | {"site": opts.site, "templates": opts.templates}
    digest = hashlib.sha256()
    for label, path in _input_files(roots):
        digest.update(f"{label}\0{_file_digest(path)}\n".encode())
    extra = {
        "corpus": books,
        "installed": _installed_packages(),
        "python": sys.version,
        "pyodide": pyodide_version(),
        "base_url": opts.base_url,
        "start": opts.start,
        "bundled": opts.bundled,
        "esbuild": esbuild_version(),
    }
    digest.update(json.dumps(extra, sort_keys=True).encode())
    return digest.hexdigest()


def tree_manifest(root: Path) -> dict[str, list]:
    """{path: [size, sha256]} of every file under root but the marker.

    Sizes are compared first: a missing, added or truncated file is found without reading.
    """
    manifest = {}
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        prefix = _relative_prefix(folder, root)
        for file in sorted(files):
            path, rel = Path(folder, file), prefix + file
            if rel != MARKER:
                manifest[rel] = [path.stat().st_size, _file_digest(path)]
    return manifest


def write_marker(stage: Path, stamp: str | None) -> None:
    """Sign the staged site: what made it, from which inputs, and every file it holds."""
    files = tree_manifest(stage)
    lines = [f"  {json.dumps(rel)}: [{size}, \"{digest}\"]" for rel, (size, digest) in files.items()]
    head = {"made_by": "specdec build.py: every build replaces this folder whole; keep nothing else here",
            "stamp": stamp}
    text = json.dumps(head, indent=1)[:-2] + ',\n "files": {\n' + ",\n".join(lines) + "\n }\n}\n"
    (stage / MARKER).write_text(text, encoding="utf-8")


def _sizes(root: Path) -> dict[str, int]:
    sizes = {}
    for folder, _, files in os.walk(root):
        prefix = _relative_prefix(folder, root)
        for file in files:
            sizes[prefix + file] = os.stat(os.path.join(folder, file)).st_size
    sizes.pop(MARKER, None)
    return sizes


def up_to_date(out: Path, stamp: str | None) -> bool:
    """True if out holds the site these inputs build, byte for byte as the build wrote it."""
    if stamp is None:
        return False
    try:
        marker = json.loads((out / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if marker.get("stamp") != stamp:
        return False
    files = marker.get("files", {})
    if _sizes(out) != {rel: entry[0] for rel, entry in files.items()}:
        return False
    return all(_file_digest(out / rel) == digest for rel, (_, digest) in files.items())
