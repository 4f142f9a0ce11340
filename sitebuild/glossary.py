"""One term per idea: refuse a build whose text uses a variant its language's glossary bans.

Each language's `site/<lang>/glossary.toml` lists its fixed terms, each with the variants that
must not come back (`[[term]]` tables: use, means, banned). The check reads every line a reader
sees in that language: the content files, `strings.toml`, and that language's own fields of the
shared `sources.toml` and `quoted.toml` (paper titles are names, not prose). Text in `backticks`
is code and is skipped. A variant written in ASCII is matched as a whole word in any case, with
or without a plural s; any other is matched as written (Chinese has no word breaks).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .errors import BuildError
from .frontmatter import load_toml

GLOSSARY = "glossary.toml"
SHARED = ("sources.toml", "quoted.toml")
CODE = re.compile(r"`[^`\n]*`")


@dataclass(frozen=True)
class Term:
    use: str
    means: str
    banned: tuple[str, ...]


def _pattern(variant: str) -> re.Pattern:
    if variant.isascii():
        return re.compile(rf"(?<![\w-]){re.escape(variant)}s?(?![\w-])", re.I)
    return re.compile(re.escape(variant))


def load_terms(path: Path) -> list[Term]:
    terms = []
    for i, entry in enumerate(load_toml(path).get("term", [])):
        missing = [key for key in ("use", "means", "banned") if key not in entry]
        if missing:
            raise BuildError(f"term {i + 1} lacks {', '.join(missing)}", file=path,
                             fix="each [[term]] has use (the term), means (what it names) and banned (a list)")
        terms.append(Term(entry["use"], entry["means"], tuple(entry["banned"])))
    return terms


def _lines(site: Path, lang: str):
    """(file, line number, text) for every line of `lang` the check reads."""
    own = re.compile(rf"^\s*(?:supports\.)?{lang}\s*=")
    for path in [*sorted((site / lang).glob("*.md")), site / lang / "strings.toml"]:
        for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
            yield path, number, line
    for name in SHARED:
        path = site / name
        for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
            if own.match(line):
                yield path, number, line


def check_language(site: Path, lang: str) -> None:
    """Fail on the first banned variant in `lang`'s text, naming file:line and the term to use."""
    path = site / lang / GLOSSARY
    if not path.exists():
        return
    checks = [(term, variant, _pattern(variant)) for term in load_terms(path) for variant in term.banned]
    for file, number, line in _lines(site, lang):
        text = CODE.sub(" ", line)
        for term, variant, pattern in checks:
            if pattern.search(text):
                raise BuildError(f"'{variant}' is a banned variant of '{term.use}' ({term.means})",
                                 file=file, line=number,
                                 fix=f"write '{term.use}': site/{lang}/{GLOSSARY} keeps one term per idea")


def check(site: Path, langs) -> None:
    for lang in langs:
        check_language(site, lang)
