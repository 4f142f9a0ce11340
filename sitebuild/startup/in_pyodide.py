"""Run inside Pyodide (under Node) by make_start_files.mjs, never in the build's CPython.

It finds the standard-library modules the page needs and compiles them for the trimmed stdlib:
  - every module Pyodide imports while it starts and while loadPackage installs the sim wheel;
  - every module sim names in an import statement anywhere (function bodies included: the
    build lists them with sitebuild.startup.imports), so a new import in sim is shipped, or
    fails the build, before any reader runs it;
  - every module the session's commands import while they run, by using each as the page
    does (exercise).
Pyodide's own compiler writes the .pyc files, so their magic number is Pyodide's Python's.

The survey functions import nothing themselves (sys and gc are built in), so that the list
holds what the page needs and not what this helper uses; write_pyc_zip runs after the survey.

This is the build's Python side of its adapter to Pyodide (sitebuild/startup/pyodide_adapter.mjs is
the JavaScript side): the CPython and Pyodide internals it relies on are listed in INTERNALS, and
docs/upgrading-pyodide.md says which test fails if one changes.
"""

import gc
import sys

# Every internal used here, by the name that appears in the code, with the function that uses it.
# tests/sitebuild/test_pyodide_adapter.py reads this list and fails if any other source file names one.
INTERNALS = {
    "_code_to_hash_pyc": "write_pyc_zip: importlib's private writer of hash-based .pyc (PEP 552)",
    "_bootstrap_external": "write_pyc_zip: importlib's private module that holds it",
    "co_linetable": "without_columns: CPython's line table format (InternalDocs/locations.md, 3.11 on)",
    "__basicsize__": "refill_stdin_buffer: the reader's own size, to find its buffer's (CPython's BufferedReader)",
    "/lib/python": "stdlib_zip_path: where Pyodide's file system keeps the stdlib zip (/lib/pythonXY.zip)",
}

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
    """Use the first model's session as the page does (docs/bench-protocol.md), so that every
    module the commands import while they run (the standard library's own late imports
    included) is imported here:
      - every command with no arguments (those that need some fail, after their checks ran);
      - links: an accepted value of every parameter, given twice; a bad one of each; every
        number past its range (every kind of message);
      - every action from the default state, and through `set` every value of every choice
        and both ends of every range;
      - the readouts of every rule, and of greedy mode (its own way of measuring).
    What a command imports depends on the code it runs, not on the book, so the other models
    only open their session and answer the first picture (the spec, the view, the default
    readouts): the survey's measurements in Pyodide were a fifth of the build's CPU.
    A call that should work and does not fails the build: the survey is behind the protocol."""
    import json  # sim.session imports it: nothing is added to the list by this line

    from sim.session import open_session

    for index, model_json in enumerate(model_jsons):
        session = open_session(model_json)

        def call(command, args, must_work=True):
            reply = json.loads(session.handle(command, json.dumps(args)))
            if must_work and not reply["ok"]:
                raise RuntimeError(f"the stdlib survey's {command} {json.dumps(args)} failed: {reply['error']}")
            return reply.get("result")

        spec = call("spec", {})
        if index == 0:
            _use_every_command(call, spec)
        call("view", {"state": spec["default_state"]})
        call("readouts", {})
        del session
    gc.collect()


def _use_every_command(call, spec: dict) -> None:
    """Every command, link, action and setting of exercise's list, and the readouts of every rule."""
    import json
    from sim.bench.protocol import COMMANDS

    for command in sorted(name for name, c in COMMANDS.items() if c.owner == "bench"):
        call(command, {}, must_work=False)
    good = [[p["name"], str(_values(p)[-1]).lower()] for p in spec["parameters"]]
    first = [[p["name"], str(_values(p)[0]).lower()] for p in spec["parameters"]]  # quick to replay
    call("link", {"query": good + good + [["other", "1"]]})
    call("link", {"query": [[p["name"], "x\x00" * 30] for p in spec["parameters"]]})
    call("link", {"query": [[p["name"], str(p["max"] + 1)] for p in spec["parameters"] if "max" in p]})
    state = spec["default_state"]
    for action in ({"type": "step", "count": 3}, {"type": "round", "count": 2}, {"type": "new_sentence"},
                   {"type": "clear_tubes"}, {"type": "view"}, {"type": "load", "query": first}):
        state = call("act", {"state": state, "action": action, "measure": False})["state"]
    # The heads' table, which the page fetches when heads is chosen: an empty one (no guess ever) for the survey.
    gamma = _named(spec, "gamma")["max"]
    call("use_heads", {"heads": json.dumps({"heads": gamma, "top": _named(spec, "candidates")["max"], "rows": [[]] * gamma})})
    for p in spec["parameters"]:
        if p["role"] == "setting":
            for value in _values(p):
                call("act", {"state": state, "action": {"type": "set", "name": p["name"], "value": value},
                             "measure": False})
    for settings in [{"rule": rule} for rule in _values(_named(spec, "rule"))] + [{"greedy": True}]:
        call("readouts", settings)


def _values(parameter: dict) -> list:
    """Every value of a choice, both ends of a range."""
    return parameter["values"] if "values" in parameter else [parameter["min"], parameter["max"]]


def _named(spec: dict, name: str) -> dict:
    return next(p for p in spec["parameters"] if p["name"] == name)


def import_stdlib(files: list) -> None:
    """Import every module of `files` (paths inside the zip: the survey's list of what the
    session imports), so that a snapshot holds all of it: the page then restores it without the
    zip (sim-worker.js does not download it), and no import of the session's can reach for the
    zip later. A module that does not import fails the build."""
    names = []
    for name in files:
        module = name[:-3].replace("/", ".")
        names.append(module[: -len(".__init__")] if module.endswith(".__init__") else module)
    for module in names:
        __import__(module)
    missing = [module for module in names if module not in sys.modules]
    if missing:
        raise ImportError(f"stdlib modules not imported in the snapshot: {missing}")


def refill_stdin_buffer() -> None:
    """Give sys.stdin's reader a buffer of zeroes, of the same size. Python allocated it (128 kB)
    as it started, from memory that had just held the stdlib zip's bytes, and never wrote to it
    (the page reads no stdin): those bytes were 0.13 MB of every snapshot's gzip. Re-initialising
    the reader frees its buffer; a bytearray of that size takes the chunk back and zeroes it, and
    the reader's new buffer is that chunk again (or another that free_memory.mjs zeroes)."""
    reader = sys.stdin.buffer
    size = reader.__sizeof__() - type(reader).__basicsize__  # what __sizeof__ adds: the buffer
    reader.__init__(reader.raw, 1)
    zeroes = bytearray(size)
    del zeroes
    reader.__init__(reader.raw, size)


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
    name the module's file. Docstrings are left out (without_docstrings), and so are the columns
    of the line tables (without_columns). zlib inside Pyodide
    compresses it: the same bytes on every host."""
    import ast
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
            tree = without_docstrings(ast.parse(source, prefix + name))
            code = without_columns(compile(tree, prefix + name, "exec", dont_inherit=True))
            pyc = _code_to_hash_pyc(code, importlib.util.source_hash(source), checked=False)
            info = zipfile.ZipInfo(name[:-3] + ".pyc", ZIP_DATE)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            out.writestr(info, bytes(pyc))
    return {"modules": len(files), "python": sys.version.split()[0]}


def without_docstrings(tree):
    """The module's tree without the docstrings of the module, its classes and its functions, as
    `python -OO` compiles them but keeping its asserts: every imported module's docstrings are
    otherwise in the snapshot's memory (0.9 MB of text). A body left empty gets `pass`.

    Only statements can hold a def or a class, so the walk follows statement lists and never
    enters an expression: the same result as visiting every node (ast.walk), in a tenth of the
    visits (it was a quarter of the stdlib's compile time in Pyodide)."""
    defs = docstring_holders()
    pending = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, defs):
            drop_docstring(node)
        for name in STATEMENT_LISTS:
            pending.extend(getattr(node, name, ()))
    return tree


def docstring_holders() -> tuple:
    """The nodes whose body may open with a docstring: module, class, function."""
    import ast

    return (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def drop_docstring(node) -> None:
    """The docstring of a docstring holder's body taken out of it (a body left empty gets `pass`)."""
    import ast

    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        first = body.pop(0)
        if not body:
            body.append(ast.copy_location(ast.Pass(), first))


# The fields that hold statements (or handlers and match cases, which hold statements).
STATEMENT_LISTS = ("body", "orelse", "finalbody", "handlers", "cases")


def without_columns(code):
    """The code (and the code in its constants) with line tables that give lines but no columns.

    Every stdlib module is imported in the snapshots, and their line tables were 0.55 MB of
    memory that gzip left at 0.35 MB: the columns (which only place a traceback's ^^^ marks)
    are most of each entry and compress badly. Each entry keeps its length and its line and
    becomes the "no columns" form of the table's format (CPython's InternalDocs/locations.md,
    3.11 on); the build fails if any code's lines (co_lines) come out different."""
    consts = tuple(without_columns(c) if isinstance(c, type(code)) else c for c in code.co_consts)
    stripped = code.replace(co_linetable=_lines_only(code.co_linetable), co_consts=consts)
    if list(stripped.co_lines()) != list(code.co_lines()):
        raise ValueError(f"the line table of {code.co_qualname} ({code.co_filename}) lost its lines")
    return stripped


NO_LOCATION, LONG_FORM, NO_COLUMNS, ONE_LINE = 15, 14, 13, 10  # entry kinds (codes 0-9: short form)


def _lines_only(table: bytes) -> bytes:
    out = bytearray()
    at = 0
    while at < len(table):
        head = table[at]
        at += 1
        kind = (head >> 3) & 15
        if kind == NO_LOCATION:
            out.append(head)
            continue
        if kind in (LONG_FORM, NO_COLUMNS):
            delta, at = _varint(table, at)
            delta = -(delta >> 1) if delta & 1 else delta >> 1
            if kind == LONG_FORM:  # the end line, the column and the end column
                for _ in range(3):
                    _, at = _varint(table, at)
        elif kind >= ONE_LINE:
            delta, at = kind - ONE_LINE, at + 2
        else:
            delta, at = 0, at + 1
        out.append(0x80 | (NO_COLUMNS << 3) | (head & 7))  # the same count of code units
        value = (-delta << 1) | 1 if delta < 0 else delta << 1
        while value >= 64:
            out.append(64 | (value & 63))
            value >>= 6
        out.append(value)
    return bytes(out)


def _varint(table: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = table[at]
        at += 1
        value |= (byte & 63) << shift
        shift += 6
        if not byte & 64:
            return value, at
