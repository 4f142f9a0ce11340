"""Run inside Pyodide (under Node) by make_runtime.mjs, never in the build's CPython.

It finds the standard-library modules the page needs and compiles them for the trimmed stdlib:
  - every module Pyodide imports while it starts and while loadPackage installs the sim wheel;
  - every module sim names in an import statement anywhere (function bodies included: the
    build lists them with sitebuild.runtime.imports), so a new import in sim is shipped, or
    fails the build, before any reader runs it;
  - every module the session's commands import lazily, by running each command once.
Pyodide's own compiler writes the .pyc files, so their magic number is the runtime's.

The survey functions import nothing themselves (sys and gc are built in), so that the list
holds what the page needs and not what this helper uses; write_pyc_zip runs after the survey.
"""

import gc
import sys

ZIP_DATE = (1980, 1, 1, 0, 0, 0)


def stdlib_zip_path() -> str:
    return f"/lib/python{sys.version_info.major}{sys.version_info.minor}.zip"


def import_named(imports: list) -> None:
    """Carry out each [module, fromlist] as `from module import *fromlist` (or `import module`)."""
    for module, fromlist in imports:
        imported = __import__(module, fromlist=fromlist or [])
        for name in fromlist or []:
            if not hasattr(imported, name):
                raise ImportError(f"cannot import name {name!r} from {module!r}")


def exercise(model_jsons: list) -> None:
    """Open a session on each model and run every command once with its defaults, so that the
    modules the commands import lazily are imported here. Errors come back as data and are
    ignored: a command that needs arguments has imported what checking them needs."""
    from sim.session import open_session

    for model_json in model_jsons:
        session = open_session(model_json)
        for command in sorted(session.handlers):
            session.handle(command, "{}")
        del session
    gc.collect()


def stdlib_files() -> list:
    """The stdlib zip's source files of every module now imported (packages bring their __init__)."""
    prefix = stdlib_zip_path() + "/"
    files = set()
    for module in list(sys.modules.values()):
        spec = getattr(module, "__spec__", None)
        origin = getattr(spec, "origin", None) or ""
        if origin.startswith(prefix):
            files.add(origin[len(prefix):])
    return sorted(files)


def write_pyc_zip(files: list, target: str) -> dict:
    """Compile `files` (paths inside the stdlib zip) to unchecked-hash .pyc in a new zip at target.

    The code keeps the .py path as its file name, as an import from source would, so tracebacks
    name the module's file. zlib inside Pyodide compresses it: the same bytes on every host."""
    import importlib.util
    import zipfile
    from importlib._bootstrap_external import _code_to_hash_pyc

    source_zip = zipfile.ZipFile(stdlib_zip_path())
    prefix = stdlib_zip_path() + "/"
    directories = sorted({"/".join(f.split("/")[:i]) + "/" for f in files for i in range(1, f.count("/") + 1)})
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as out:
        for directory in directories:
            info = zipfile.ZipInfo(directory, ZIP_DATE)
            info.external_attr = (0o40755 << 16) | 0x10
            out.writestr(info, b"")
        for name in files:
            source = source_zip.read(name)
            code = compile(source, prefix + name, "exec", dont_inherit=True)
            pyc = _code_to_hash_pyc(code, importlib.util.source_hash(source), checked=False)
            info = zipfile.ZipInfo(name[:-3] + ".pyc", ZIP_DATE)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            out.writestr(info, bytes(pyc))
    return {"modules": len(files), "python": sys.version.split()[0]}
