"""Read each language's content files and refuse a build where the languages disagree.

Both languages are one source with two texts: the chapter list, the anchors, the interface
strings, and what each section cites, links and computes must match, so the pages never drift
apart the way forked translations do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .errors import BuildError
from .frontmatter import load_toml, split

LANGS = ("en", "zh")
FILE_NAME = re.compile(r"^(\d\d)-([a-z][a-z0-9-]*)\.md$")
FIRST_CLOSING = 20  # files numbered 20 and up are the closing sections, not chapters
CHAPTER_KEYS = {"title", "caption", "part"}
CLOSING_KEYS = {"title"}

FIGURE_USE = re.compile(r"\bfig\.([A-Za-z_][A-Za-z0-9_]*)")
PAPER_USE = re.compile(r"\bpaper\.([A-Za-z_][A-Za-z0-9_]*)")
CITE_USE = re.compile(r"cite\(([^)]*)\)")
CITE_ID = re.compile(r"[\"']([^\"']+)[\"']")
LINK_USE = re.compile(r"\]\(#([A-Za-z0-9_-]+)\)")
DIAGRAM_USE = re.compile(r"\bdiagram\(\s*[\"']([a-z0-9_-]+)[\"']")


@dataclass
class Section:
    path: Path
    number: int
    anchor: str
    meta: dict
    body: str
    body_line: int
    refs: dict = field(default_factory=dict)

    @property
    def is_chapter(self) -> bool:
        return self.number < FIRST_CLOSING

    @property
    def title(self) -> str:
        return self.meta["title"]


@dataclass
class LanguageContent:
    lang: str
    sections: list[Section]
    strings: dict

    @property
    def chapters(self) -> list[Section]:
        return [s for s in self.sections if s.is_chapter]

    @property
    def closing(self) -> list[Section]:
        return [s for s in self.sections if not s.is_chapter]


def _references(text: str) -> dict:
    cites = sorted({i for args in CITE_USE.findall(text) for i in CITE_ID.findall(args)})
    return {
        "figures": sorted(set(FIGURE_USE.findall(text))),
        "quoted figures": sorted(set(PAPER_USE.findall(text))),
        "citations": cites,
        "links": sorted(set(LINK_USE.findall(text))),
        "diagrams": sorted(set(DIAGRAM_USE.findall(text))),
    }


def load_section(path: Path) -> Section:
    match = FILE_NAME.match(path.name)
    if not match:
        raise BuildError(f"{path}: content files are named NN-anchor.md (e.g. 01-onebyone.md)")
    meta, body, body_line = split(path, path.read_text(encoding="utf-8"))
    number = int(match.group(1))
    required = CHAPTER_KEYS if number < FIRST_CLOSING else CLOSING_KEYS
    missing = sorted(required - meta.keys())
    if missing:
        raise BuildError(f"{path}: front matter lacks {', '.join(missing)}")
    section = Section(path, number, match.group(2), meta, body, body_line)
    section.refs = _references(body + "\n" + str(meta))
    return section


def load_language(site: Path, lang: str) -> LanguageContent:
    folder = site / lang
    files = sorted(folder.glob("*.md"))
    if not files:
        raise BuildError(f"{folder}: no content files (*.md)")
    sections = [load_section(p) for p in files]
    seen: dict[str, Path] = {}
    for s in sections:
        if s.anchor in seen:
            raise BuildError(f"{s.path}: anchor '{s.anchor}' is used by {seen[s.anchor]} too")
        seen[s.anchor] = s.path
    strings = load_toml(folder / "strings.toml")
    return LanguageContent(lang, sections, strings)


def _differ(what: str, where: str, a: LanguageContent, a_val, b: LanguageContent, b_val) -> BuildError:
    return BuildError(
        f"the languages differ in {what} ({where}): {a.lang} has {a_val}, {b.lang} has {b_val}"
    )


def check_parity(a: LanguageContent, b: LanguageContent) -> None:
    """Fail on the first structural difference between two languages' content."""
    names_a = [p.path.name for p in a.sections]
    names_b = [p.path.name for p in b.sections]
    if names_a != names_b:
        only_a = sorted(set(names_a) - set(names_b))
        only_b = sorted(set(names_b) - set(names_a))
        raise _differ("content files", f"site/{a.lang}, site/{b.lang}", a, only_a, b, only_b)
    keys_a, keys_b = set(a.strings), set(b.strings)
    if keys_a != keys_b:
        raise _differ(
            "interface strings", "strings.toml", a, sorted(keys_a - keys_b), b, sorted(keys_b - keys_a)
        )
    for sa, sb in zip(a.sections, b.sections):
        if sa.meta.get("part") != sb.meta.get("part"):
            raise _differ("bench part", sa.path.name, a, sa.meta.get("part"), b, sb.meta.get("part"))
        for kind in sa.refs:
            if sa.refs[kind] != sb.refs[kind]:
                raise _differ(kind, sa.path.name, a, sa.refs[kind], b, sb.refs[kind])
        faq_a = [q.get("chapter") for q in sa.meta.get("faq", [])]
        faq_b = [q.get("chapter") for q in sb.meta.get("faq", [])]
        if faq_a != faq_b:
            raise _differ("FAQ chapters", sa.path.name, a, faq_a, b, faq_b)


def load_all(site: Path) -> dict[str, LanguageContent]:
    content = {lang: load_language(site, lang) for lang in LANGS}
    first, *rest = content.values()
    for other in rest:
        check_parity(first, other)
    return content
