"""Split a content file into its TOML front matter and Markdown body, and read TOML files, with
errors at the line of the file the author sees (tomllib counts from the start of the TOML text)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from .errors import BuildError, read_text

FENCE = "+++"
TOML_WHERE = re.compile(r"\s*\(at (?:line (\d+), column \d+|end of document)\)$")
# What the author can do about tomllib's most common complaints.
TOML_FIXES = (
    ("Unterminated string", 'close the quote; text over several lines goes in """triple quotes"""'),
    ("Illegal character '\\n'", 'close the quote on the same line, or use """triple quotes""" for several lines'),
    ("Invalid value", 'a value is a "quoted string", a number, true or false, a date, [a, list] or {a = table}'),
    ("Unclosed array", "close the list with ]"),
    ("Unclosed inline table", "close the table with }"),
    ("Expected '=' after a key", "write key = value (keys with spaces go in quotes)"),
    ("Cannot overwrite a value", "each key may appear only once"),
    ("Cannot declare", "each [table] may appear only once"),
    ("Expected newline", "one key = value per line"),
)
TOML_SPEC = "see https://toml.io/en/v1.0.0"


def _culprit_at_end(text: str) -> int:
    """For '(at end of document)' errors: the line that opens what is never closed.

    The longest prefix of whole lines that parses ends just before it.
    """
    lines = text.split("\n")
    good = 0
    for k in range(1, len(lines) + 1):
        try:
            tomllib.loads("\n".join(lines[:k]))
            good = k
        except tomllib.TOMLDecodeError:
            pass
    return min(good + 1, len(lines))


def toml_error(err: tomllib.TOMLDecodeError, text: str, path: Path, first_line: int, what: str = "") -> BuildError:
    """A BuildError at the file's own line for an error in TOML that starts at first_line."""
    message = str(err)
    match = TOML_WHERE.search(message)
    if match and match.group(1):
        line = int(match.group(1))
    else:
        line = _culprit_at_end(text)
    problem = TOML_WHERE.sub("", message)
    fix = next((f for start, f in TOML_FIXES if problem.startswith(start)), TOML_SPEC)
    return BuildError(f"{what}not valid TOML ({problem[:1].lower()}{problem[1:]})", file=path,
                      line=line + first_line - 1, fix=fix)


def split(path: Path, text: str) -> tuple[dict, str, int]:
    """Return (front matter, body, line number where the body starts)."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != FENCE:
        raise BuildError("a content file starts with its front matter", file=path, line=1,
                         fix=f"make the first line '{FENCE}', then TOML (title = \"…\"), then '{FENCE}'")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == FENCE)
    except StopIteration:
        raise BuildError("the front matter is never closed", file=path, line=1,
                         fix=f"end it with a line holding only '{FENCE}'") from None
    toml_text = "\n".join(lines[1:end])
    try:
        meta = tomllib.loads(toml_text)
    except tomllib.TOMLDecodeError as err:
        raise toml_error(err, toml_text, path, 2, "the front matter is ") from None
    return meta, "\n".join(lines[end + 1 :]), end + 2


def load_toml(path: Path) -> dict:
    try:
        text = read_text(path)  # not UTF-8: stops at the first bad byte, naming its line
    except FileNotFoundError:
        raise BuildError("missing", file=path) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise toml_error(err, text, path, 1) from None


def key_line(path: Path, key: str) -> int | None:
    """The line of a TOML file where `key = …` is set, for errors about its value."""
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        if pattern.match(line):
            return number
    return None
