"""Copy the static files and the pinned Pyodide runtime, and pack the sim package for it."""

from __future__ import annotations

import hashlib
import json
import shutil
import zipfile
from pathlib import Path

from .errors import BuildError

REPO = Path(__file__).resolve().parent.parent
PYODIDE_PACKAGE = REPO / "node_modules" / "pyodide"
# The runtime files loadPyodide() fetches; the rest of the npm package (types, consoles) is not served.
PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # fixed, so the same sources give the same archive bytes


def short_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:10]


def pyodide_version() -> str:
    manifest = PYODIDE_PACKAGE / "package.json"
    if not manifest.exists():
        raise BuildError(f"{PYODIDE_PACKAGE}: Pyodide is not installed; run `npm ci` first")
    return json.loads(manifest.read_text())["version"]


def copy_pyodide(out: Path) -> tuple[str, int]:
    """Copy the runtime under a versioned folder; return its path relative to the site and its bytes."""
    version = pyodide_version()
    rel = f"pyodide/v{version}/"
    target = out / rel
    target.mkdir(parents=True)
    for name in PYODIDE_FILES:
        source = PYODIDE_PACKAGE / name
        if not source.exists():
            raise BuildError(f"{source}: missing from the Pyodide npm package")
        shutil.copyfile(source, target / name)
    return rel, sum((target / name).stat().st_size for name in PYODIDE_FILES)


def pack_sim(package: Path) -> bytes:
    """A zip of the sim package, unpacked into Pyodide's file system by the worker."""
    import io

    files = sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in files:
            info = zipfile.ZipInfo(str(path.relative_to(package.parent)), ZIP_DATE)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes())
    return buffer.getvalue()


def copy_static(source: Path, out: Path) -> dict[str, str]:
    """Copy site/static to /static and return each file's cache-busting version."""
    versions = {}
    for path in sorted(source.rglob("*")):
        if path.is_file():
            rel = path.relative_to(source).as_posix()
            data = path.read_bytes()
            target = out / "static" / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            versions[rel] = short_hash(data)
    return versions
