"""Read each language's content files and refuse a build where the languages disagree.

Both languages are one source with two texts: the chapter list, the anchors, the interface
strings, and what each section cites, links and computes must match, so the pages never drift
apart the way forked translations do. Every refusal names one file and line and the one
thing that differs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from . import raw_html
from .errors import BuildError, Namespace, nearest, read_text
from .frontmatter import key_line, load_toml, split

LANGS = ("en", "zh")
FILE_NAME = re.compile(r"^(\d\d)-([a-z][a-z0-9-]*)\.md$")
FIRST_CLOSING = 20  # files numbered 20 and up are the closing sections, not chapters
CHAPTER_KEYS = {"title", "caption", "part"}
# A chapter that begins a group of chapters names it (`group = "…"`): the course cartridge's
# sections (sitebuild/course/cartridge.py) and the package's chapter list follow the groups.
GROUP_KEY = "group"
CLOSING_KEYS = {"title"}
FAQ_KEYS = ("q", "a", "chapter")

CITE_USE = re.compile(r"cite\(([^)]*)\)")
CITE_ID = re.compile(r"[\"']([^\"']+)[\"']")
# What a section refers to: how a message names one reference, the pattern finding them all, and
# the pattern finding one of them ({} is the escaped name) on a line.
REFERENCES = {
    "figures": ("fig.{}", re.compile(r"\bfig\.([A-Za-z_][A-Za-z0-9_]*)"), r"\bfig\.{}(?!\w)"),
    "quoted figures": ("paper.{}", re.compile(r"\bpaper\.([A-Za-z_][A-Za-z0-9_]*)"), r"\bpaper\.{}(?!\w)"),
    "citations": ('cite("{}")', None, r"cite\(.*[\"']{}[\"']"),
    "links": ("a link to #{}", re.compile(r"\]\(#([A-Za-z0-9_-]+)\)"), r"\]\(#{}\)"),
    "diagrams": ('diagram("{}")', re.compile(r"\bdiagram\(\s*[\"']([a-z0-9_-]+)[\"']"),
                 r"\bdiagram\(\s*[\"']{}[\"']"),
}
PARITY_FIX = "both languages compute, quote, cite, link and draw the same things in each section"


@dataclass
class Section:
    path: Path
    number: int
    anchor: str
    meta: dict
    body: str
    body_line: int
    source: str = ""
    refs: dict = field(default_factory=dict)

    @property
    def is_chapter(self) -> bool:
        return self.number < FIRST_CLOSING

    @property
    def title(self) -> str:
        return self.meta["title"]

    def key_line(self, key: str, occurrence: int = 0) -> int | None:
        """The file line of the n-th `key = …` in the front matter."""
        pattern = re.compile(rf"(^|[{{,])\s*{re.escape(key)}\s*=")
        seen = 0
        for number, line in enumerate(self.source.split("\n")[: self.body_line - 1], start=1):
            if pattern.search(line):
                if seen == occurrence:
                    return number
                seen += 1
        return None

    def line_using(self, kind: str, name: str) -> int | None:
        """The first file line where the section uses one reference (a figure, a citation...)."""
        usage = re.compile(REFERENCES[kind][2].format(re.escape(name)))
        for number, line in enumerate(self.source.split("\n"), start=1):
            if usage.search(line):
                return number
        return None


@dataclass
class LanguageContent:
    lang: str
    sections: list[Section]
    strings: Namespace
    strings_path: Path

    @property
    def chapters(self) -> list[Section]:
        return [s for s in self.sections if s.is_chapter]

    @property
    def closing(self) -> list[Section]:
        return [s for s in self.sections if not s.is_chapter]

    @property
    def with_tryit(self) -> list[Section]:
        """The sections with a Try-it: every chapter, and a closing section that declares [try]
        (with a part, like a chapter's)."""
        return [s for s in self.sections if s.is_chapter or "try" in s.meta]


def _references(text: str) -> dict:
    cites = sorted({i for args in CITE_USE.findall(text) for i in CITE_ID.findall(args)})
    refs = {kind: sorted(set(pattern.findall(text))) for kind, (_, pattern, _) in REFERENCES.items() if pattern}
    return {**refs, "citations": cites}


def _check_faq(section: Section) -> None:
    for i, item in enumerate(section.meta.get("faq", [])):
        for key in FAQ_KEYS:
            if key not in item:
                raise BuildError(f"FAQ question {i + 1} lacks '{key}'", file=section.path,
                                 line=section.key_line("q", i) or 1,
                                 fix="each [[faq]] has q (question), a (answer) and chapter (an anchor)")


def load_section(path: Path) -> Section:
    match = FILE_NAME.match(path.name)
    if not match:
        raise BuildError("content files are named NN-anchor.md", file=path,
                         fix="rename it, e.g. 01-onebyone.md (two digits, a dash, a lower-case anchor)")
    source = read_text(path)
    meta, body, body_line = split(path, source)
    number = int(match.group(1))
    required = CHAPTER_KEYS if number < FIRST_CLOSING else CLOSING_KEYS
    missing = sorted(required - meta.keys())
    if missing:
        kind = "a chapter" if number < FIRST_CLOSING else "a closing section"
        raise BuildError(f"the front matter lacks {', '.join(missing)}", file=path, line=1,
                         fix=f"{kind} needs {', '.join(sorted(required))}")
    section = Section(path, number, match.group(2), meta, body, body_line, source)
    section.refs = _references(source)
    _check_faq(section)
    raw_html.check(body, path, body_line)
    return section


def _check_faq_links(sections: list[Section]) -> None:
    anchors = {s.anchor for s in sections}
    for s in sections:
        for i, item in enumerate(s.meta.get("faq", [])):
            if item["chapter"] not in anchors:
                close = nearest(item["chapter"], anchors)
                raise BuildError(f"FAQ question {i + 1} links to chapter '{item['chapter']}', which no section has",
                                 file=s.path, line=s.key_line("chapter", i),
                                 fix=f"use a section's anchor{f' (nearest: {close})' if close else ''}")


def strings_namespace(lang: str, path: Path) -> Namespace:
    return Namespace(load_toml(path), "t", "interface string", f"site/{lang}/strings.toml",
                     "add {name} = \"…\" to every language's strings.toml")


def _check_groups(sections: list[Section]) -> None:
    """Groups cover every chapter: where any chapter begins one, the first chapter does too."""
    chapters = [s for s in sections if s.is_chapter]
    first = next((s for s in chapters if GROUP_KEY in s.meta), None)
    if first and GROUP_KEY not in chapters[0].meta:
        raise BuildError(f"chapters before {first.path.name} belong to no group", file=chapters[0].path, line=1,
                         fix=f'the first chapter begins the first group: add {GROUP_KEY} = "…" to its front matter')
    for s in sections:
        if GROUP_KEY in s.meta and (not s.is_chapter or not isinstance(s.meta[GROUP_KEY], str) or not s.meta[GROUP_KEY].strip()):
            raise BuildError(f"{GROUP_KEY} must be a chapter's group title (a string)", file=s.path,
                             line=s.key_line(GROUP_KEY), fix="a chapter that begins a group names it; closing sections have none")


def load_content(site: Path, lang: str) -> LanguageContent:
    """One language's sections and interface strings, each file checked on its own (the links
    between them are checked by load_all, once the languages' file lists are known to agree)."""
    folder = site / lang
    files = sorted(folder.glob("*.md"))
    if not files:
        raise BuildError("no content files (*.md)", file=folder, fix="a language folder holds NN-anchor.md files")
    sections = [load_section(p) for p in files]
    seen: dict[str, Path] = {}
    for s in sections:
        if s.anchor in seen:
            raise BuildError(f"anchor '{s.anchor}' is used by {seen[s.anchor].name} too", file=s.path,
                             fix="give each section its own anchor")
        seen[s.anchor] = s.path
    _check_groups(sections)
    strings_path = folder / "strings.toml"
    return LanguageContent(lang, sections, strings_namespace(lang, strings_path), strings_path)


def _first_difference(a, b):
    """The first item (in sorted order) that one collection has and the other lacks."""
    return min(set(a) ^ set(b))


def check_files(a: LanguageContent, b: LanguageContent) -> None:
    """Fail if one language lacks a content file the other has (checked first: a missing file
    would otherwise surface as whatever links to it)."""
    names_a = [s.path.name for s in a.sections]
    names_b = [s.path.name for s in b.sections]
    if names_a != names_b:
        name = _first_difference(names_a, names_b)
        has, lacks = (a, b) if name in names_a else (b, a)
        raise BuildError(f"missing, but {has.lang} has {name}", file=lacks.strings_path.parent / name,
                         fix="every language has the same content files")


def check_parity(a: LanguageContent, b: LanguageContent) -> None:
    """Fail on the first structural difference between two languages' content, naming it alone."""
    check_files(a, b)
    if set(a.strings) != set(b.strings):
        key = _first_difference(a.strings, b.strings)
        has, lacks = (a, b) if key in a.strings else (b, a)
        where = f"{has.strings_path.parent.name}/strings.toml:{key_line(has.strings_path, key)}"
        raise BuildError(f"no key {key} ({where} has it)", file=lacks.strings_path,
                         fix="every language's strings.toml has the same keys")
    for sa, sb in zip(a.sections, b.sections):
        _check_section_parity(sa, sb)


def _check_section_parity(sa: Section, sb: Section) -> None:
    if (GROUP_KEY in sa.meta) != (GROUP_KEY in sb.meta):
        has, lacks = (sa, sb) if GROUP_KEY in sa.meta else (sb, sa)
        raise BuildError(f"begins a group, but {lacks.path.parent.name}/{lacks.path.name} does not", file=has.path,
                         line=has.key_line(GROUP_KEY), fix="the same chapters begin the groups in every language")
    if sa.meta.get("part") != sb.meta.get("part"):
        raise BuildError(f"part = {sa.meta.get('part')!r}, but {sb.path.parent.name}/{sb.path.name} has "
                         f"part = {sb.meta.get('part')!r}", file=sa.path, line=sa.key_line("part"),
                         fix="a chapter shows the same bench part in every language")
    for kind, (usage, _, _) in REFERENCES.items():
        if sa.refs[kind] != sb.refs[kind]:
            name = _first_difference(sa.refs[kind], sb.refs[kind])
            has, lacks = (sa, sb) if name in sa.refs[kind] else (sb, sa)
            raise BuildError(f"uses {usage.format(name)}, which {lacks.path.parent.name}/{lacks.path.name} does not",
                             file=has.path, line=has.line_using(kind, name), fix=PARITY_FIX)
    faq_a = [q.get("chapter") for q in sa.meta.get("faq", [])]
    faq_b = [q.get("chapter") for q in sb.meta.get("faq", [])]
    if faq_a != faq_b:
        i = next((i for i, (x, y) in enumerate(zip(faq_a, faq_b)) if x != y), min(len(faq_a), len(faq_b)))
        here = faq_a[i] if i < len(faq_a) else None
        there = faq_b[i] if i < len(faq_b) else None
        raise BuildError(f"FAQ question {i + 1} links to {here!r}, but in {sb.path.parent.name}/{sb.path.name} "
                         f"it links to {there!r}", file=sa.path, line=sa.key_line("chapter", i),
                         fix="the FAQ asks the same questions, in the same order, in every language")


def check_names(contents: dict[str, LanguageContent], known: dict[str, Namespace | set]) -> None:
    """Fail on a reference to a figure, quoted figure or source that does not exist."""
    for language in contents.values():
        for section in language.sections:
            for kind, names in known.items():
                for name in section.refs[kind]:
                    if name not in names:
                        raise unknown_reference(section, kind, name, names)


def unknown_reference(section: Section, kind: str, name: str, names) -> BuildError:
    line = section.line_using(kind, name)
    if isinstance(names, Namespace):
        what, fix = names.unknown(name)
    else:
        close = nearest(name, names)
        what = f"unknown source {name!r}" + (f" (nearest known: {close})" if close else "")
        fix = "add it to site/sources.toml, or cite one listed there"
    return BuildError(what, file=section.path, line=line, fix=fix)


def load_all(site: Path) -> dict[str, LanguageContent]:
    """Every language's content: each file on its own, then that the languages have the same
    files, then the links between sections. The rest of parity is checked once the names the
    sections use are known (an unknown name is reported as such, not as a difference)."""
    contents = {lang: load_content(site, lang) for lang in LANGS}
    first, *rest = contents.values()
    for other in rest:
        check_files(first, other)
    for language in contents.values():
        _check_faq_links(language.sections)
    return contents


def check_all_parity(contents: dict[str, LanguageContent]) -> None:
    first, *rest = contents.values()
    for other in rest:
        check_parity(first, other)
