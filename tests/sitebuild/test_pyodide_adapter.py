"""Every use of a Pyodide, Emscripten or CPython internal sits behind one adapter per side (issue 42):
the page's (site/static/js/pyodide-adapter.js), the build's (sitebuild/runtime/pyodide_adapter.mjs)
and the Python the build runs inside Pyodide (sitebuild/runtime/in_pyodide.py). Each declares the
internals it uses (INTERNALS); no other source file names one, and the page's worker patches each
global at most once, in its adapter."""

from __future__ import annotations

import ast
import functools
import json
import re
import subprocess
from pathlib import Path

import pytest

from sitebuild.runtime import maker

pytestmark = pytest.mark.adapter("INTERNALS")

REPO = Path(__file__).resolve().parents[2]
PAGE_ADAPTER = "site/static/js/pyodide-adapter.js"
BUILD_ADAPTER = "sitebuild/runtime/pyodide_adapter.mjs"
PYTHON_SIDE = "sitebuild/runtime/in_pyodide.py"
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
    assert any(f.endswith("sim-worker.js") for f in files) and any(f.endswith("make_runtime.mjs") for f in files)
    named = {name: places(name, files) for adapter in internals.values() for name in adapter}
    assert {name: where for name, where in named.items() if where} == {}


def test_the_check_can_fail(internals, tmp_path):
    """The power check: a file that names an internal is found."""
    stray = REPO / "sitebuild" / "runtime" / "stray_for_test.py"
    try:
        stray.write_text("memory = pyodide.makeMemorySnapshot()\n")
        assert places("makeMemorySnapshot", ["sitebuild/runtime/stray_for_test.py"]) == ["sitebuild/runtime/stray_for_test.py:1"]
        assert places("_module", ["sitebuild/runtime/stray_for_test.py"]) == []  # not inside another name
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
