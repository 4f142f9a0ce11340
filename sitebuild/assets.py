"""Copy the static files and Pyodide's files, of the pinned release (the start files are sitebuild.startup's)."""

from __future__ import annotations

import functools
import hashlib
import json
import shutil
import subprocess
from pathlib import Path

from .errors import BuildError

REPO = Path(__file__).resolve().parent.parent
PYODIDE_PACKAGE = REPO / "node_modules" / "pyodide"
BUILD_ADAPTER = REPO / "sitebuild" / "startup" / "pyodide_adapter.mjs"


@functools.lru_cache(maxsize=None)
def pyodide_files() -> dict:
    """Pyodide's file layout, asked of the build's adapter to Pyodide (which has it from the page's):
    {loader, module, wasm, wasmXz, lms: {name: its name in a course package}}."""
    from .startup.maker import node_binary

    run = subprocess.run([node_binary(), str(BUILD_ADAPTER)], capture_output=True, text=True, cwd=REPO)
    if run.returncode != 0:
        raise BuildError(f"{BUILD_ADAPTER.relative_to(REPO)} did not say Pyodide's file layout: {run.stderr.strip()[-500:]}")
    return json.loads(run.stdout)


# The names below are read from the adapter when first asked for (module attributes, PEP 562):
# - PYODIDE_FILES: the files the worker starts from in the package, copied as they are (its
#   python_stdlib.zip and pyodide-lock.json are replaced by our trimmed, precompiled stdlib and our
#   lock, sitebuild.startup; the rest of the npm package, types and consoles, is not served);
# - WASM_XZ: the .xz stream of the .wasm (made by sitebuild.startup), which the worker reads unless
#   the host sends the site's files compressed with brotli at its best quality over a fast link
#   (site/static/js/startup/sim-boot.js): there it fetches the .wasm itself (WASM_PLAIN);
# - PYODIDE_SITE_FILES: the files in the site's Pyodide folder, by the names the worker's loading
#   message counts.
LAYOUT = {
    "PYODIDE_FILES": lambda files: (files["loader"], files["module"], files["wasm"]),
    "WASM_XZ": lambda files: files["wasmXz"],
    "WASM_PLAIN": lambda files: files["wasm"],
    "PYODIDE_SITE_FILES": lambda files: (files["loader"], files["module"], files["wasm"], files["wasmXz"]),
}


def __getattr__(name: str):
    if name not in LAYOUT:  # __path__ and the like, which the import system asks for
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return LAYOUT[name](pyodide_files())


# JavaScript from npm packages (pinned in package.json) that the page's scripts import, copied
# under static/js/startup/vendor/ with the package's license on top: xz-decompress decodes the snapshots
# and the .wasm (site/static/js/startup/snapshot-inflate.js, wasm-inflate.js). Each is the package's file
# and, for a CommonJS (UMD) file, the names it exports as an ES module (the page imports modules
# only): it is given a `module` object to fill, as Node would, and its exports are exported by name.
VENDORED_JS = {
    "startup/vendor/xz-decompress.js": ("xz-decompress", "dist/package/xz-decompress.min.js", ("XzReadableStream",)),
}
# What a CommonJS file gets around it. Its `require` answers every name with an empty object:
# xz-decompress asks for Node's "stream/web" and uses it only where there is no global
# ReadableStream, which every browser it runs in (and Node 18 on) has.
COMMONJS_HEAD = ("const module = { exports: {} };\nconst exports = module.exports;\n"
                 "const require = () => ({});\n")


def brotli_size(data: bytes) -> int:
    """The bytes a host that compresses ahead sends for `data`: brotli at its best quality (-q 11,
    the library's defaults otherwise, as the brotli command's), the hosts' most compact encoding."""
    import brotli  # PyPI's Brotli, Google's own library (the command's)

    return len(brotli.compress(data, quality=11))


def short_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:10]


def pyodide_version() -> str:
    manifest = PYODIDE_PACKAGE / "package.json"
    if not manifest.exists():
        raise BuildError(f"{PYODIDE_PACKAGE}: Pyodide is not installed; run `npm ci` first")
    return json.loads(manifest.read_text())["version"]


def copy_pyodide(out: Path) -> str:
    """Copy Pyodide's files (PYODIDE_FILES) under a versioned folder; return its path relative to the site."""
    version = pyodide_version()
    rel = f"pyodide/v{version}/"
    target = out / rel
    target.mkdir(parents=True, exist_ok=True)
    for name in LAYOUT["PYODIDE_FILES"](pyodide_files()):
        source = PYODIDE_PACKAGE / name
        if not source.exists():
            raise BuildError(f"{source}: missing from the Pyodide npm package")
        shutil.copyfile(source, target / name)
    return rel


def vendored_js(rel: str) -> bytes:
    """The npm file behind VENDORED_JS[rel], under a comment with its package, version and license
    (its LICENSE file; a package that ships none: the license its package.json names, and the
    file's own comment, which names those of what it holds), as an ES module."""
    package, file, commonjs_exports = VENDORED_JS[rel]
    folder = REPO / "node_modules" / package
    try:
        manifest = json.loads((folder / "package.json").read_text())
        code = (folder / file).read_text(encoding="utf-8")
    except FileNotFoundError as missing:
        raise BuildError(f"{missing.filename}: missing; the page imports {package} from npm (run `npm ci`)") from None
    license_file = folder / "LICENSE"
    notice = (license_file.read_text(encoding="utf-8").strip() if license_file.exists() else
              f"License: {manifest['license']} (its package.json; the package has no LICENSE file: the "
              "comment at the top of its code names the licenses of what it holds).")
    if commonjs_exports:
        code = f"{COMMONJS_HEAD}{code}\nexport const {{ {', '.join(commonjs_exports)} }} = module.exports;\n"
    return f"/* {package} {manifest['version']}, from npm ({package}/{file}).\n\n{notice.replace('*/', '* /')}\n*/\n{code}".encode()


def copy_static(source: Path, out: Path, leave_out: tuple[str, ...] = ()) -> dict[str, str]:
    """Copy site/static to /static and return each file's cache-busting version.
    leave_out: folders of sources the build makes other files from (the style sheets', the scripts'
    when they are bundled: sitebuild/bundles.py). The vendored scripts are written either way."""
    files = {path.relative_to(source).as_posix(): path for path in sorted(source.rglob("*")) if path.is_file()}
    contents = {rel: path.read_bytes() for rel, path in files.items()
                if not any(rel.startswith(folder + "/") for folder in leave_out)}
    contents |= {f"js/{rel}": vendored_js(rel) for rel in VENDORED_JS}
    for rel, data in contents.items():
        target = out / "static" / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return {rel: short_hash(data) for rel, data in contents.items()}
