"""The interface strings the page's JavaScript reads, declared where they are read and checked here.

The convention: the JS reads an interface string only through a function named `text` whose
first argument is a string literal, `text("b_ready", {python})`. The build scans every file under
site/static/js/ for such calls and fails, naming the file and line, when a key is missing from a
language's strings.toml, or when `text(...)` is called with something the build cannot read (a
variable, a sum): such a key could not be checked, so the page might throw for a reader.

The one other way a script reads a string is `declaredText(key)`, for keys a table of the build
declares and hands the page in its data (the start contract's words for its stages and failures,
sitebuild/startup/contract.py): those keys are checked here too, naming the file that declares them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .errors import BuildError, read_text

# A call of text(...) that is not a method (.text()), not its definition (function text(...),
# text(...) { ... }), and not part of a longer name (context(...)).
CALL = re.compile(r"(?<![\w$.])text\s*\(")
LITERAL = re.compile(r"""\s*(?:"([^"\\\n]*)"|'([^'\\\n]*)'|`([^`\\$]*)`)\s*[,)]""")
DEFINITION = re.compile(r"\bfunction\s*\*?\s*$")
FIX = 'call text() with the key itself, text("key", {…}); for a choice of keys, name each: {a: text("k_a")}'


@dataclass(frozen=True)
class KeyUse:
    key: str | None  # None: text() called with something other than a string literal
    path: Path
    line: int


# Comments, and strings (inside which neither a comment nor a call can start).
COMMENT_OR_STRING = re.compile(
    r"""//[^\n]*|/\*.*?(?:\*/|$)|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`""", re.S
)


def mask(source: str) -> str:
    """The source with comments and the insides of strings blanked (same length, same lines), so
    that only code is searched for calls; the keys are then read from the original source."""
    def blank(match: re.Match) -> str:
        text = match.group()
        if text.startswith("/"):
            return re.sub(r"[^\n]", " ", text)
        return text[0] + re.sub(r"[^\n]", " ", text[1:-1]) + text[-1]

    return COMMENT_OR_STRING.sub(blank, source)


def _closing_paren(source: str, start: int) -> int:
    """Index just past the parenthesis that closes the one before `start`."""
    depth = 1
    i = start
    while i < len(source) and depth:
        depth += {"(": 1, ")": -1}.get(source[i], 0)
        i += 1
    return i


def scan_source(source: str, path: Path) -> list[KeyUse]:
    code = mask(source)
    uses = []
    for match in CALL.finditer(code):
        if DEFINITION.search(code[: match.start()]):
            continue
        after = _closing_paren(code, match.end())
        if re.match(r"\s*\{", code[after:]):  # a method definition: text(key, values) { ... }
            continue
        line = code.count("\n", 0, match.start()) + 1
        literal = LITERAL.match(source, match.end())
        key = next((g for g in literal.groups() if g is not None), None) if literal else None
        uses.append(KeyUse(key, path, line))
    return uses


def scan(js_root: Path) -> list[KeyUse]:
    """Every text("key") call in the page's scripts, in file order."""
    uses = []
    for path in sorted(js_root.rglob("*.js")):
        uses += scan_source(read_text(path), path)
    return uses


def check(js_root: Path, strings: dict[str, tuple[dict, Path]],
          declared: dict[Path, list[str]] | None = None) -> list[KeyUse]:
    """Fail unless every key the scripts read is in every language's strings (lang -> (keys, file)),
    and every key a table of the build declares for the page (declared: its file -> its keys)."""
    uses = scan(js_root)
    for path, keys in (declared or {}).items():
        for key in keys:
            for lang, (known, strings_path) in strings.items():
                if key not in known:
                    raise BuildError(f"{path.name} names interface string {key!r}, which {lang} lacks", file=path,
                                     fix=f"add {key} = \"…\" to every language's strings.toml "
                                         f"(missing from {strings_path.parent.name}/{strings_path.name})")
    for use in uses:
        if use.key is None:
            raise BuildError("text() is called without a string literal, so the build cannot check the key",
                             file=use.path, line=use.line, fix=FIX)
        for lang, (keys, strings_path) in strings.items():
            if use.key not in keys:
                raise BuildError(f"the script reads interface string {use.key!r}, which {lang} lacks",
                                 file=use.path, line=use.line,
                                 fix=f"add {use.key} = \"…\" to every language's strings.toml "
                                     f"(missing from {strings_path.parent.name}/{strings_path.name})")
    return uses
