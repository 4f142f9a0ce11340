"""The numbered sources and the figures quoted from papers: kept once, shared by both languages."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from markupsafe import Markup, escape

from .errors import BuildError, Namespace, nearest
from .frontmatter import load_toml

SOURCE_KEYS = ("id", "title", "url")


def _table_line(path: Path, header: str, occurrence: int = 0) -> int | None:
    """The line of the n-th `[header]` or `[[header]]` in a TOML file."""
    pattern = re.compile(rf"^\s*\[\[?\s*{re.escape(header)}\s*\]\]?\s*$")
    seen = 0
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        if pattern.match(line):
            if seen == occurrence:
                return number
            seen += 1
    return None


@dataclass
class Sources:
    entries: list[dict]
    path: Path

    @classmethod
    def load(cls, path: Path) -> "Sources":
        entries = load_toml(path).get("source", [])
        seen: set[str] = set()
        for i, e in enumerate(entries):
            for key in SOURCE_KEYS:
                if not e.get(key):
                    raise BuildError(f"source #{i + 1} lacks '{key}'", file=path, line=_table_line(path, "source", i),
                                     fix="each [[source]] has id, title and url")
            if e["id"] in seen:
                raise BuildError(f"source id '{e['id']}' is used twice", file=path,
                                 line=_table_line(path, "source", i), fix="give each source its own id")
            seen.add(e["id"])
        return cls(entries, path)

    @property
    def ids(self) -> set[str]:
        return {e["id"] for e in self.entries}

    def number(self, source_id: str) -> int:
        for n, entry in enumerate(self.entries, start=1):
            if entry["id"] == source_id:
                return n
        close = nearest(source_id, self.ids)
        raise BuildError(f"unknown source {source_id!r}" + (f" (nearest known: {close})" if close else ""),
                         fix="cite an id listed in site/sources.toml, or add the source there")

    def cite(self, *ids: str) -> Markup:
        """Numbered links into the sources list, e.g. [1, 2]."""
        numbered = sorted((self.number(i), i) for i in ids)
        links = ", ".join(f'<a href="#src-{escape(i)}">{n}</a>' for n, i in numbered)
        return Markup(f'<sup class="cite">[{links}]</sup>')


def quoted_figures(path: Path, lang: str, sources: Sources) -> Namespace:
    """Figures quoted from papers, as text for one language: paper.NAME in the content."""
    table = load_toml(path)
    values = {}
    for name, entry in table.items():
        line = _table_line(path, name)
        if not isinstance(entry, dict):
            raise BuildError(f"'{name}' should be a table", file=path, line=line,
                             fix=f"write [{name}] with value (or en and zh) and source")
        text = entry.get(lang, entry.get("value"))
        if text is None:
            raise BuildError(f"'{name}' has neither '{lang}' nor 'value'", file=path, line=line,
                             fix="give value, or one text per language")
        if "source" not in entry:
            raise BuildError(f"'{name}' has no source", file=path, line=line,
                             fix="add source = \"an id in site/sources.toml\"")
        try:
            sources.number(entry["source"])
        except BuildError as err:
            raise err.located(path, line) from None
        values[name] = str(text)
    return Namespace(values, "paper", "quoted figure", "site/quoted.toml",
                     "add [{name}] with its value and source to {defined_in}")
