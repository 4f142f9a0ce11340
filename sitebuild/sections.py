"""Render one content section: Jinja fills in figures and citations, then Markdown makes HTML.

Each piece (the body, the title, the caption, each FAQ item) renders inside the error boundary
with the file line it starts at, so any failure, in Jinja, Markdown or MathML, names its line.
"""

from __future__ import annotations

from markupsafe import Markup

from .content import Section
from .errors import boundary
from .markdown import TableName, to_html
from .templating import content_template


class Piece:
    """One field of a section, rendered in the boundary of its own file line."""

    def __init__(self, section: Section, page: str | None, key: str, occurrence: int = 0,
                 table_name: TableName = TableName()):
        self.section, self.page, self.table_name = section, page, table_name
        if key == "body":
            self.line = section.body_line
        else:
            self.line = section.key_line(key, occurrence) or 1

    def fill(self, text: str, values: dict) -> str:
        """Substitute {{ fig.* }}, {{ paper.* }}, {{ cite(...) }}."""
        with boundary(self.page, self.section.path, self.line):
            return content_template(text).render(**values)

    def markdown(self, text: str) -> Markup:
        with boundary(self.page, self.section.path, self.line):
            return Markup(to_html(text, self.line, self.table_name))

    def inline(self, text: str) -> Markup:
        """Markdown for a one-line field (a caption, an FAQ answer) without the wrapping <p>."""
        html = str(self.markdown(text)).strip()
        if html.startswith("<p>") and html.endswith("</p>") and html.count("<p>") == 1:
            html = html[3:-4]
        return Markup(html)


def table_name(strings) -> TableName:
    """How the chapters' tables' regions are named in one language (its strings.toml)."""
    return TableName(strings["table_region"], strings["table_region_join"])


def render_section(section: Section, values: dict, page: str | None = None,
                   tables: TableName = TableName()) -> dict:
    """Everything a template needs to show one section; tables: how its tables' regions are named."""
    body = Piece(section, page, "body", table_name=tables)
    title = Piece(section, page, "title")
    out = {
        "anchor": section.anchor,
        "number": section.number,
        "is_chapter": section.is_chapter,
        "title": title.fill(section.meta["title"], values),
        "part": section.meta.get("part"),
        "group": section.meta.get("group"),  # plain text: the title of the group this chapter begins
        "html": body.markdown(body.fill(section.body, values)),
        "caption": None,
        "faq": [],
    }
    if "caption" in section.meta:
        caption = Piece(section, page, "caption")
        out["caption"] = caption.inline(caption.fill(section.meta["caption"], values))
    for i, item in enumerate(section.meta.get("faq", [])):
        question, answer = Piece(section, page, "q", i), Piece(section, page, "a", i)
        out["faq"].append({
            "q": question.fill(item["q"], values),
            "a": answer.inline(answer.fill(item["a"], values)),
            "chapter": item["chapter"],
        })
    return out
