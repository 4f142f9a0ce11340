"""The numbered sources and the figures quoted from papers: kept once, shared by both languages."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from markupsafe import Markup, escape

from .errors import BuildError
from .frontmatter import load_toml


@dataclass
class Sources:
    entries: list[dict]

    @classmethod
    def load(cls, path: Path) -> "Sources":
        entries = load_toml(path).get("source", [])
        ids = [e.get("id") for e in entries]
        for i, e in enumerate(entries):
            for key in ("id", "title", "url"):
                if not e.get(key):
                    raise BuildError(f"{path}: source #{i + 1} lacks '{key}'")
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise BuildError(f"{path}: source ids used twice: {', '.join(dupes)}")
        return cls(entries)

    def number(self, source_id: str) -> int:
        for n, entry in enumerate(self.entries, start=1):
            if entry["id"] == source_id:
                return n
        raise BuildError(f"unknown source '{source_id}' (not in site/sources.toml)")

    def cite(self, *ids: str) -> Markup:
        """Numbered links into the sources list, e.g. [1, 2]."""
        numbered = sorted((self.number(i), i) for i in ids)
        links = ", ".join(f'<a href="#src-{escape(i)}">{n}</a>' for n, i in numbered)
        return Markup(f'<sup class="cite">[{links}]</sup>')


class QuotedFigures(dict):
    """Figures quoted from papers, as text for one language: paper.NAME in the content."""

    @classmethod
    def load(cls, path: Path, lang: str, sources: Sources) -> "QuotedFigures":
        table = load_toml(path)
        values = cls()
        for name, entry in table.items():
            if not isinstance(entry, dict):
                raise BuildError(f"{path}: '{name}' should be a table with value and source")
            text = entry.get(lang, entry.get("value"))
            if text is None:
                raise BuildError(f"{path}: '{name}' has neither '{lang}' nor 'value'")
            if "source" not in entry:
                raise BuildError(f"{path}: '{name}' has no source")
            sources.number(entry["source"])
            values[name] = str(text)
        return values
