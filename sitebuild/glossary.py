"""One term per idea: refuse a build whose text uses a variant its language's glossary bans.

Each language's `site/<lang>/glossary.toml` lists its fixed terms, each with the variants that
must not come back (`[[term]]` tables: use, means, banned). The check reads every line a reader
sees in that language: the content files, `strings.toml`, and that language's own fields of the
shared `sources.toml` and `quoted.toml`, and the quoted figures' `value`, which every page
shows (paper titles are names, not prose). Text in `backticks`
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
# Each language's own text besides its chapters: the interface strings and the question bank.
OWN_TOML = ("strings.toml", "questions.toml")
CODE = re.compile(r"`[^`\n]*`")


@dataclass(frozen=True)
class Term:
    use: str
    means: str
    banned: tuple[str, ...]


def _matcher(terms: list[Term]) -> tuple[re.Pattern, list]:
    """One pattern for every variant (one search per file, not one per line and variant),
    and for each of its groups the term and the variant it stands for."""
    found = [(term, variant) for term in terms for variant in term.banned]
    words = [f"(?P<v{i}>{re.escape(v)})" for i, (_, v) in enumerate(found) if v.isascii()]
    text = [f"(?P<v{i}>{re.escape(v)})" for i, (_, v) in enumerate(found) if not v.isascii()]
    if words:  # whole words, any case, a plural s allowed: one boundary test for them all
        text.append(rf"(?i:(?<![\w-])(?:{'|'.join(words)})s?(?![\w-]))")
    return re.compile("|".join(text)), found


def load_terms(path: Path) -> list[Term]:
    terms = []
    for i, entry in enumerate(load_toml(path).get("term", [])):
        missing = [key for key in ("use", "means", "banned") if key not in entry]
        if missing:
            raise BuildError(f"term {i + 1} lacks {', '.join(missing)}", file=path,
                             fix="each [[term]] has use (the term), means (what it names) and banned (a list)")
        terms.append(Term(entry["use"], entry["means"], tuple(entry["banned"])))
    return terms


def _texts(site: Path, lang: str):
    """(file, text) for every file the check reads in `lang`, line numbers kept: code spans and,
    in the shared files, the other fields' lines are blanked."""
    # A quoted figure's `value` is shown on every page, so every language's check reads it.
    own = re.compile(rf"^\s*(?:(?:supports\.)?{lang}|value)\s*=")
    own_files = [site / lang / name for name in OWN_TOML if (site / lang / name).is_file()]
    for path in [*sorted((site / lang).glob("*.md")), *own_files, *(site / n for n in SHARED)]:
        lines = path.read_text(encoding="utf-8").split("\n")
        if path.parent == site:
            lines = [line if own.match(line) else "" for line in lines]
        yield path, CODE.sub(lambda m: " " * len(m.group()), "\n".join(lines))


def check_language(site: Path, lang: str) -> None:
    """Fail on the first banned variant in `lang`'s text, naming file:line and the term to use."""
    path = site / lang / GLOSSARY
    if not path.exists():
        return
    pattern, found = _matcher(load_terms(path))
    if not found:
        return
    for file, text in _texts(site, lang):
        hit = pattern.search(text)
        if hit:
            term, variant = found[int(hit.lastgroup[1:])]
            raise BuildError(f"'{variant}' is a banned variant of '{term.use}' ({term.means})",
                             file=file, line=text.count("\n", 0, hit.start()) + 1,
                             fix=f"write '{term.use}': site/{lang}/{GLOSSARY} keeps one term per idea")


def check(site: Path, langs) -> None:
    for lang in langs:
        check_language(site, lang)
