"""Every use of a Pyodide, Emscripten or CPython internal sits behind one adapter per side: the
page's (site/static/js/startup/pyodide-adapter.js), the build's (sitebuild/startup/pyodide_adapter.mjs)
and the Python the build runs inside Pyodide (sitebuild/startup/in_pyodide.py). Each declares the
internals it uses (INTERNALS); no other source file names one, and the page's worker patches each
global at most once, in its adapter. Pyodide's file layout (PYODIDE_FILES) is named in the two
adapters alone: the page's and the build's code ask them. Each internal of the two JavaScript
adapters, and the layout, is pinned here against the Pyodide installed in node_modules (the
place it is written there), not against the adapters' own lists."""

from __future__ import annotations

import ast
import functools
import json
import re
import subprocess
from pathlib import Path

import pytest

from sitebuild import assets
from sitebuild.startup import maker

pytestmark = pytest.mark.adapter("INTERNALS")

REPO = Path(__file__).resolve().parents[2]
PAGE_ADAPTER = "site/static/js/startup/pyodide-adapter.js"
BUILD_ADAPTER = "sitebuild/startup/pyodide_adapter.mjs"
PYTHON_SIDE = "sitebuild/startup/in_pyodide.py"
ADAPTERS = (PAGE_ADAPTER, BUILD_ADAPTER, PYTHON_SIDE)
# The adapters' own unit tests, which fake the internals they test (a dlmalloc heap, line tables).
ADAPTER_TESTS = ("tests/sitebuild/test_snapshot_memory.py", "tests/sitebuild/test_pyodide_adapter.py")
SOURCE_SUFFIXES = {".py", ".js", ".mjs", ".html", ".txt", ".toml", ".json", ".cfg", ""}
SOURCE_FOLDERS = ("site/", "sitebuild/", "templates/", "tests/", "benchmarks/", "corpus/", "sim/")
SOURCE_FILES = ("build.py", "dev", ".ci/run", "pyproject.toml", "package.json")

READ_INTERNALS = """
const [url] = process.argv.slice(2);
const { INTERNALS } = await import(url);
console.log(JSON.stringify(INTERNALS));
"""


def js_internals(rel: str, tmp_path: Path) -> dict[str, str]:
    script = tmp_path / "read.mjs"
    script.write_text(READ_INTERNALS)
    run = subprocess.run([maker.node_binary(), str(script), (REPO / rel).as_uri()], capture_output=True, text=True,
                         check=True, timeout=60)
    return json.loads(run.stdout)


def python_internals(rel: str) -> dict[str, str]:
    tree = ast.parse((REPO / rel).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["INTERNALS"]:
            return ast.literal_eval(node.value)
    raise AssertionError(f"{rel} declares no INTERNALS")


@pytest.fixture(scope="module")
def internals(tmp_path_factory) -> dict[str, dict[str, str]]:
    tmp = tmp_path_factory.mktemp("adapters")
    return {PAGE_ADAPTER: js_internals(PAGE_ADAPTER, tmp), BUILD_ADAPTER: js_internals(BUILD_ADAPTER, tmp),
            PYTHON_SIDE: python_internals(PYTHON_SIDE)}


def source_files() -> list[str]:
    """The project's files (git's list; outside a git checkout, such as ./dev check-pyodide's
    scratch copy, every file in the source folders)."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, text=True)
    if listed.returncode == 0:
        files = [f for f in listed.stdout.split("\0") if f and (REPO / f).is_file()]
    else:
        files = [p.relative_to(REPO).as_posix() for p in REPO.rglob("*")
                 if p.is_file() and "__pycache__" not in p.parts and "node_modules" not in p.parts]
    return [f for f in files if (f.startswith(SOURCE_FOLDERS) or f in SOURCE_FILES) and Path(f).suffix in SOURCE_SUFFIXES]


def pattern(name: str) -> re.Pattern:
    """The name as a whole identifier (or, for a path or a number, as it is written)."""
    start = r"(?<![\w$])" if re.match(r"[\w$]", name) else ""
    end = r"(?![\w$])" if re.search(r"[\w$]$", name) else ""
    return re.compile(start + re.escape(name) + end, re.I if name.startswith("0x") else 0)


@functools.lru_cache(maxsize=None)
def text_of(rel: str) -> str:
    """A file's text, read once for every name looked for in it (lines end in \n alone)."""
    return "\n".join((REPO / rel).read_text(encoding="utf-8", errors="replace").splitlines())


def places(name: str, files: list[str]) -> list[str]:
    """Where the name is written: "file:line" for each line of files that has it."""
    found = []
    for rel in files:
        text = text_of(rel)
        lines = sorted({text.count("\n", 0, hit.start()) + 1 for hit in pattern(name).finditer(text)})
        found += [f"{rel}:{number}" for number in lines]
    return found


def test_each_adapter_names_what_it_declares_and_explains_each(internals):
    for rel, names in internals.items():
        assert names, rel
        text = (REPO / rel).read_text(encoding="utf-8")
        for name, why in names.items():
            function = why.split(":")[0]
            assert len(pattern(name).findall(text)) >= 2, (rel, name)  # declared, and used
            assert re.search(rf"\b(function|def|class)\s+{function.split(',')[0]}\b", text), (rel, name, function)


def test_no_other_source_file_names_an_internal(internals):
    files = [f for f in source_files() if f not in ADAPTERS + ADAPTER_TESTS]
    assert any(f.endswith("sim-worker.js") for f in files) and any(f.endswith("make_start_files.mjs") for f in files)
    named = {name: places(name, files) for adapter in internals.values() for name in adapter}
    assert {name: where for name, where in named.items() if where} == {}


def test_the_check_can_fail(internals, tmp_path):
    """The power check: a file that names an internal is found."""
    stray = REPO / "sitebuild" / "startup" / "stray_for_test.py"
    try:
        stray.write_text("memory = pyodide.makeMemorySnapshot()\n")
        assert places("makeMemorySnapshot", ["sitebuild/startup/stray_for_test.py"]) == ["sitebuild/startup/stray_for_test.py:1"]
        assert places("_module", ["sitebuild/startup/stray_for_test.py"]) == []  # not inside another name
    finally:
        stray.unlink()


# An assignment to one of the globals a worker shares with Pyodide and its libraries.
GLOBAL_PATCH = re.compile(r"(?<![\w.$])((?:self|globalThis|window)\.fetch|WebAssembly\.\w+|console\.\w+)\s*=(?!=)")


def test_the_workers_globals_are_patched_at_most_once_each_and_only_in_the_page_adapter():
    scripts = sorted((REPO / "site" / "static" / "js").rglob("*.js"))
    patched = {}
    for path in scripts:
        rel = path.relative_to(REPO).as_posix()
        for found in GLOBAL_PATCH.finditer(path.read_text(encoding="utf-8")):
            patched.setdefault(found.group(1).replace("self.", "globalThis.").replace("window.", "globalThis."), []).append(rel)
    assert patched == {"globalThis.fetch": [PAGE_ADAPTER], "WebAssembly.instantiateStreaming": [PAGE_ADAPTER]}


def test_every_adapter_marker_names_a_function_of_an_adapter():
    """The `adapter` markers (./dev check-pyodide reports by them) name real functions."""
    defined = {"INTERNALS"}
    for rel in ADAPTERS:
        defined |= set(re.findall(r"^(?:export (?:async )?function|def) (\w+)", (REPO / rel).read_text(encoding="utf-8"), re.M))
    named = set()
    for path in (REPO / "tests").rglob("test_*.py"):
        for marker in re.findall(r"pytest\.mark\.adapter\(([^)]*)\)", path.read_text(encoding="utf-8")):
            named |= set(re.findall(r'"(\w+)"', marker))
    assert named and not named - defined, named - defined


# Where each internal of the adapters is written in the installed Pyodide: its file in
# node_modules/pyodide (a member of its stdlib zip after a colon) and a text that holds it there
# (as the minified file writes it; CPython's own names as its .wasm holds them).
STDLIB_IMPORTLIB = "python_stdlib.zip:importlib/_bootstrap_external.py"
INSTALLED = assets.PYODIDE_PACKAGE
PINNED = {
    "_loadSnapshot": ("pyodide.mjs", "_loadSnapshot"),
    "lockFileContents": ("pyodide.mjs", "lockFileContents"),
    "_sysExecutable": ("pyodide.mjs", "_sysExecutable"),
    "createPyodideModule": ("pyodide.mjs", ".createPyodideModule"),
    "instantiateStreaming": ("pyodide.mjs", "WebAssembly.instantiateStreaming("),
    "growMemory": ("pyodide.asm.mjs", "growMemory"),
    "HEAP8": ("pyodide.asm.mjs", "HEAP8"),
    "HEAPU8": ("pyodide.asm.mjs", "HEAPU8"),
    "HEAPU32": ("pyodide.asm.mjs", "HEAPU32"),
    "_makeSnapshot": ("pyodide.asm.mjs", "_makeSnapshot"),
    "makeMemorySnapshot": ("pyodide.asm.mjs", "makeMemorySnapshot"),
    "_module": ("pyodide.asm.mjs", "._module=Module"),
    "___heap_base": ("pyodide.asm.mjs", "___heap_base"),
    "_emscripten_get_sbrk_ptr": ("pyodide.asm.mjs", "_emscripten_get_sbrk_ptr"),
    "randomFillSync": ("pyodide.asm.mjs", "randomFillSync("),
    "0x706e7300": ("pyodide.asm.mjs", str(0x706E7300)),  # the snapshot's magic, written in decimal
    "path_importer_cache": (STDLIB_IMPORTLIB, "sys.path_importer_cache"),
    "_clear_type_cache": ("pyodide.asm.wasm", "_clear_type_cache"),
    "_code_to_hash_pyc": (STDLIB_IMPORTLIB, "def _code_to_hash_pyc("),
    "_bootstrap_external": (STDLIB_IMPORTLIB, ""),  # the module itself
    "co_linetable": ("pyodide.asm.wasm", "co_linetable"),
    "__basicsize__": ("pyodide.asm.wasm", "__basicsize__"),
    "/lib/python": ("pyodide.mjs", "/lib/python"),
}


def test_each_internal_is_where_the_installed_pyodide_has_it(internals):
    declared = {name for names in internals.values() for name in names}
    assert declared == set(PINNED), "pin each internal here: " + repr(declared ^ set(PINNED))
    assert unpinned(PINNED) == {}, f"the installed Pyodide ({assets.pyodide_version()}) no longer has these where the adapters rely on them"


def unpinned(pinned: dict[str, tuple[str, str]]) -> dict[str, str]:
    """The internals not written where `pinned` says, each with the file it is missing from."""
    return {name: where for name, (where, text) in pinned.items() if text not in text_in_package(where)}


def test_the_pin_can_fail():
    """The power check: an internal the installed Pyodide does not have is found missing."""
    assert unpinned({"HEAP9": ("pyodide.asm.mjs", "HEAP9"), "HEAP8": ("pyodide.mjs", "HEAP8")}) == {
        "HEAP9": "pyodide.asm.mjs", "HEAP8": "pyodide.mjs"}


@functools.lru_cache(maxsize=None)
def text_in_package(name: str) -> str:
    """A file of the installed Pyodide as text (a binary one byte for character), or a member of a zip in it."""
    import zipfile

    archive, _, member = name.partition(":")
    if member:
        with zipfile.ZipFile(INSTALLED / archive) as opened:
            return opened.read(member).decode("utf-8")
    return (INSTALLED / name).read_bytes().decode("latin-1")


def test_pyodides_file_layout_is_the_installed_pyodides():
    """The adapters' names of Pyodide's files are its files, named so by Pyodide itself: its loader
    fetches the .wasm and imports Emscripten's module by these names (where the worker does not hand
    it them), and Emscripten's module tells Pyodide's stack frames by its own file's name, which the
    course package's name of it keeps."""
    files = assets.pyodide_files()
    for part in ("loader", "module", "wasm"):
        assert (INSTALLED / files[part]).is_file(), part
    loader = text_in_package(files["loader"])
    assert f'"{files["wasm"]}"' in loader and f"}}{files['module']}`" in loader
    assert f'includes("{files["module"]}")' in text_in_package(files["module"])
    assert files["wasmXz"] == files["wasm"] + ".xz"
    assert all(new.startswith(old) and new.endswith(".js") for old, new in files["lms"].items()), files["lms"]
    assert set(files["lms"]) == {files["loader"], files["module"]}


# The page's and the build's code (not their tests, which check the files the site ships by name,
# nor the reader's strings): they ask the adapters for Pyodide's file names.
CODE_FOLDERS = ("site/static/", "sitebuild/", "templates/")
CODE_SUFFIXES = {".py", ".js", ".mjs", ".html"}


def test_pyodides_file_names_are_written_in_the_adapters_alone():
    files = assets.pyodide_files()
    names = [files[part] for part in ("loader", "module", "wasm")]
    code = [f for f in source_files() if f.startswith(CODE_FOLDERS) and Path(f).suffix in CODE_SUFFIXES
            and f not in (PAGE_ADAPTER, BUILD_ADAPTER)]
    assert any(f.endswith("sim-worker.js") for f in code) and any(f.endswith("assets.py") for f in code)
    named = {name: places(name, code) for name in names}
    assert {name: where for name, where in named.items() if where} == {}
