"""What the build refuses, said in one line an author can act on: file:line: what is wrong; the fix.

Every step that renders something (Markdown, MathML, Jinja, figures) runs inside `boundary()`,
which turns any exception into a BuildError naming the page, the file and the line, as MkDocs's
build_pages does. The line is in the file's own numbering, so an editor can jump to it.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def shown(path: Path | str) -> str:
    """A path as the author should see it: relative to the project when inside it."""
    path = Path(path)
    try:
        return path.resolve().relative_to(REPO).as_posix()
    except ValueError:
        return str(path)


def nearest(name: str, known, n: int = 3) -> str:
    """The known names closest to a misspelt one, for 'did you mean' hints."""
    import difflib  # here, not at the top: every build.py, an up-to-date one too, imports this module

    close = difflib.get_close_matches(name, sorted(known), n=n, cutoff=0.6)
    return ", ".join(close)


class BuildError(Exception):
    """Bad content, corpus or configuration: where (file and line), what is wrong, and the fix."""

    exit_code = 1

    def __init__(self, what: str, *, file: Path | str | None = None, line: int | None = None,
                 fix: str | None = None, page: str | None = None, column: int | None = None):
        super().__init__(what)
        self.what, self.file, self.line, self.fix, self.page = what, file, line, fix, page
        self.column = column

    def located(self, file: Path | str | None, line: int | None, page: str | None = None) -> "BuildError":
        """Fill in where the error happened, keeping what an inner step already knew."""
        if self.file is None:
            self.file = file
            self.line = self.line if self.line is not None else line
        self.page = self.page or page
        return self

    def __str__(self) -> str:
        text = self.what
        if self.fix:
            text += f"; {self.fix}"
        if self.page:
            text += f" (while building {self.page})"
        if self.file is None:
            return text
        where = shown(self.file) + (f":{self.line}" if self.line else "")
        if self.line and self.column:
            where += f":{self.column}"
        return f"{where}: {text}"


# Encodings an author's editor may have saved a file in instead of UTF-8, tried in this order to
# say which one a file looks like (GBK first: Windows saves Chinese text in it; GB18030 extends it).
LIKELY_ENCODINGS = ("gbk", "gb18030")


def read_text(path: Path | str) -> str:
    """A content file's text, which must be UTF-8; otherwise a BuildError at its first bad byte."""
    data = Path(path).read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise not_utf8(path, data, err.start) from None


def not_utf8(path: Path | str, data: bytes, bad: int) -> BuildError:
    """The error for a file whose byte `bad` is the first that UTF-8 cannot read: its line and
    column (in characters, as an editor counts them), and which encoding it looks like."""
    line_start = data.rfind(b"\n", 0, bad) + 1
    line = data.count(b"\n", 0, bad) + 1
    column = len(data[line_start:bad].decode("utf-8")) + 1
    what = f"not UTF-8 text (byte 0x{data[bad]:02x} is not UTF-8)"
    fix = "save it as UTF-8 (in the editor's Save As, choose the encoding UTF-8)"
    for encoding in LIKELY_ENCODINGS:
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        if any("\u4e00" <= ch <= "\u9fff" for ch in text[len(data[:line_start].decode("utf-8")):][:200]):
            shown_line = text.split("\n")[line - 1].strip()[:24]
            what += f"; it looks like {encoding.upper()} (read as {encoding.upper()}, line {line} reads \"{shown_line}\")"
            fix = f"save it as UTF-8 (in the editor's Save As, choose the encoding UTF-8, not {encoding.upper()})"
            break
    return BuildError(what, file=path, line=line, column=column, fix=fix)


class OutputRefused(BuildError):
    """The --out folder is not one the build may replace: exit code 2, like a usage error."""

    exit_code = 2


class UnknownName(Exception):
    """A name a template or chapter asked for that its namespace lacks (raised by Jinja)."""

    def __init__(self, name: str, namespace):
        super().__init__(name)
        self.name, self.namespace = name, namespace


class Namespace(dict):
    """A dict a template reads by attribute (fig.NAME, t.KEY) that knows what it holds and where
    its names are defined, so an unknown name is reported with its nearest neighbours."""

    def __init__(self, data: dict, prefix: str, what: str, defined_in: str, fix: str):
        super().__init__(data)
        self.prefix, self.what, self.defined_in, self.fix = prefix, what, defined_in, fix

    def unknown(self, name: str) -> tuple[str, str]:
        close = nearest(name, self)
        hint = f"nearest known: {close}" if close else f"{len(self)} names are known"
        return (f"unknown {self.what} {self.prefix}.{name} ({hint})",
                self.fix.format(name=name, defined_in=self.defined_in))


def describe(err: BaseException) -> tuple[str, str | None]:
    """(what, fix) for an exception raised inside a render step."""
    import jinja2

    if isinstance(err, UnknownName):
        if isinstance(err.namespace, Namespace):
            return err.namespace.unknown(err.name)
        return (f"'{err.name}' is not defined here",
                "check the spelling (chapters use fig.NAME, paper.NAME and cite(\"id\"); templates use t.KEY)")
    if isinstance(err, jinja2.TemplateSyntaxError):
        return (f"template syntax: {(err.message or '').rstrip('.')}",
                "see https://jinja.palletsprojects.com/templates/")
    detail = err.args[0] if isinstance(err, KeyError) and len(err.args) == 1 else err  # no repr quotes
    return f"{type(err).__name__}: {detail}", None


def _innermost_line(err: BaseException, file: Path | str | None) -> tuple[Path | str | None, int | None]:
    """The template or project file, and line, where the error was raised.

    Jinja rewrites tracebacks so that template code shows as frames of the template file
    ("<template>" for a string); the innermost such frame is the line the author wrote.
    """
    import traceback

    import jinja2

    if isinstance(err, jinja2.TemplateSyntaxError):
        return (err.filename or file), err.lineno
    frames = traceback.extract_tb(err.__traceback__)
    for frame in reversed(frames):
        if frame.filename == "<template>":
            return file, frame.lineno
        if frame.filename.endswith(".html") and Path(frame.filename).exists():
            return frame.filename, frame.lineno
        if file is not None and Path(frame.filename) == Path(file).resolve():
            return file, frame.lineno
        if file is not None and Path(file).resolve() in Path(frame.filename).parents:
            return frame.filename, frame.lineno  # a step whose code is a package: the module at fault
    if file is not None:
        return file, None
    for frame in reversed(frames):  # an error in the build's own code: its file and line
        if frame.filename.startswith(str(REPO)) and ".venv" not in frame.filename:
            return frame.filename, frame.lineno
    return None, None


@contextmanager
def boundary(page: str | None = None, file: Path | str | None = None, first_line: int = 1):
    """Run one render step; report any failure as a BuildError naming page, file and line.

    first_line is the file line where the rendered text starts (a chapter body after its front
    matter), so template line 1 becomes that file line.
    """
    try:
        yield
    except Exception as err:  # noqa: BLE001 - the point: nothing escapes without a location
        where, line = _innermost_line(err, file)
        if line is not None and where == file:
            line += first_line - 1
        if isinstance(err, BuildError):
            raise err.located(where, line, page)
        what, fix = describe(err)
        raise BuildError(what, file=where, line=line, fix=fix, page=page) from err
