"""Render one content section: Jinja fills in figures and citations, then Markdown makes HTML."""

from __future__ import annotations

import jinja2
from markupsafe import Markup

from .content import Section
from .errors import BuildError
from .markdown import to_html

_ENV = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=True)


def fill(section: Section, text: str, where: str, values: dict, line_offset: int = 0) -> str:
    """Substitute {{ fig.* }}, {{ paper.* }}, {{ cite(...) }} in one piece of content."""
    try:
        return _ENV.from_string(text).render(**values)
    except jinja2.TemplateSyntaxError as err:
        raise BuildError(f"{section.path}:{err.lineno + line_offset}: {err.message}") from None
    except jinja2.UndefinedError as err:
        raise BuildError(f"{section.path} ({where}): {err.message}") from None
    except BuildError as err:
        raise BuildError(f"{section.path} ({where}): {err}") from None


def inline_html(text: str) -> Markup:
    """Markdown for a one-line field (a caption, an FAQ answer) without the wrapping <p>."""
    html = to_html(text).strip()
    if html.startswith("<p>") and html.endswith("</p>") and html.count("<p>") == 1:
        html = html[3:-4]
    return Markup(html)


def render_section(section: Section, values: dict) -> dict:
    """Everything a template needs to show one section."""
    body = fill(section, section.body, "body", values, section.body_line - 1)
    out = {
        "anchor": section.anchor,
        "number": section.number,
        "is_chapter": section.is_chapter,
        "title": fill(section, section.meta["title"], "title", values),
        "part": section.meta.get("part"),
        "html": Markup(to_html(body)),
        "caption": None,
        "faq": [],
    }
    if "caption" in section.meta:
        out["caption"] = inline_html(fill(section, section.meta["caption"], "caption", values))
    for i, item in enumerate(section.meta.get("faq", [])):
        for key in ("q", "a", "chapter"):
            if key not in item:
                raise BuildError(f"{section.path}: FAQ item {i + 1} lacks '{key}'")
        out["faq"].append(
            {
                "q": fill(section, item["q"], f"FAQ {i + 1}", values),
                "a": inline_html(fill(section, item["a"], f"FAQ {i + 1}", values)),
                "chapter": item["chapter"],
            }
        )
    return out
