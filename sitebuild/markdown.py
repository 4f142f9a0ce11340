"""The one Markdown renderer every page uses: CommonMark, tables, $math$ and ::: blocks."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from html import escape

from markdown_it import MarkdownIt
from markupsafe import Markup
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin

from .errors import BuildError
from .mathml import FIX, MathError, render_math, to_mathml

# Blocks the chapters may use, e.g. "::: note" ... ":::".
CONTAINERS = ("note", "aside", "figure")

# Closing punctuation that must never begin a line (Chinese typesetting): after an inline formula
# or a link the browser may break before it, so the build keeps the pair on one line.
CLOSING = "。，、；：！？）》」』】〉"
NOBREAK_OPEN = '<span class="nobr">'
# A longer link keeps its own break opportunities: only links this short are held whole.
NOBREAK_LINK_CHARS = 12


# What a reader must never see: a formula or an emphasis Markdown did not render. Markdown inside a
# raw HTML block (<details>) is not parsed, and `**` that CJK punctuation touches on the inside
# cannot close (CommonMark's flanking rules), so both reach the page as typed.
UNRENDERED = (
    (re.compile(r"\$(?=[^\s\d$])[^$\n]*?(?<=\S)\$"), "a formula ($…$) that is not rendered",
     "inside raw HTML (<details>) write the symbol itself (α), not $\\alpha$"),
    (re.compile(r"\*\*"), "** that is not rendered as emphasis",
     "inside raw HTML use <strong>; next to CJK punctuation put the mark outside: **标题**。 not **标题。**"),
)


@dataclass(frozen=True)
class TableName:
    """How a table's scrolling region is named in one language: its column headings, joined and
    worded by the language's strings.toml (table_region, table_region_join; render.py reads them).
    The default, for a caller without a language, is the headings alone."""

    words: str = "{columns}"
    join: str = "; "


# A table wider than a phone's column scrolls sideways inside this region (site.css), which the
# keyboard reaches (WCAG 2.1.1): Tab focuses it, the arrow keys scroll it. Every table gets it, not
# only those that overflow: whether one does depends on the reader's window and font, which the
# build cannot know, and a tab stop on a table that fits costs a keypress, while a table that
# scrolls out of the keyboard's reach hides its columns. The name tells a screen reader what the
# region holds: the table's column headings (Markdown tables have no caption).
TABLE_REGION = '<div class="table-scroll" role="region" tabindex="0" aria-label="{name}">\n'


def text_of(html: str) -> str:
    """What a heading cell's HTML reads as, in plain text (a formula's MathML: its symbols)."""
    return Markup(html).striptags()


def _table_open(self, tokens, idx, options, env):
    headings = []
    for token in tokens[idx:]:
        if token.type == "thead_close":
            break
        if token.type == "inline":
            headings.append(text_of(self.renderInline(token.children or [], options, env)))
    name: TableName = env.get("table_name") or TableName()
    label = name.words.format(columns=name.join.join(h for h in headings if h))
    return TABLE_REGION.format(name=escape(label, quote=True)) + self.renderToken(tokens, idx, options, env)


def _table_close(self, tokens, idx, options, env):
    return self.renderToken(tokens, idx, options, env) + "</div>\n"


def check_rendered(tokens, first_line: int) -> None:
    """Refuse text that would reach the page with its Markdown unrendered (UNRENDERED)."""
    for token in tokens:
        texts = [token.content] if token.type == "html_block" else []
        if token.type == "inline":
            texts = [c.content for c in token.children or [] if c.type == "text"]
        for text in texts:
            for pattern, what, fix in UNRENDERED:
                hit = pattern.search(text)
                if hit:
                    line = first_line + (token.map[0] if token.map else 0)
                    if token.type == "html_block":
                        line += text.count("\n", 0, hit.start())
                    raise BuildError(f"{what}: “{hit.group()[:40]}”", line=line, fix=fix)


@lru_cache(maxsize=1)
def renderer() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True, "typographer": False}).enable("table")
    # allow_digits=False keeps "$5 and $6" prose from being read as math.
    md.use(dollarmath_plugin, allow_digits=False, allow_labels=False, renderer=render_math)
    for name in CONTAINERS:
        md.use(container_plugin, name=name)
    md.add_render_rule("table_open", _table_open)
    md.add_render_rule("table_close", _table_close)
    return md


def _math_with_lines(tokens) -> list[tuple[str, str, int]]:
    """(latex, display, line within the text) of every formula, in reading order."""
    found = []
    for token in tokens:
        if token.type == "math_block" and token.map:
            found.append((token.content, "block", token.map[0]))
        elif token.type == "inline" and token.map:
            searched = 0
            for child in token.children or []:
                if child.type.startswith("math_inline"):
                    at = token.content.find(child.content, searched)
                    searched = max(at, searched)
                    found.append((child.content, "inline", token.map[0] + token.content.count("\n", 0, searched)))
    return found


@lru_cache(maxsize=1024)
def to_html(text: str, first_line: int = 1, table_name: TableName = TableName()) -> str:
    """HTML for Markdown text that starts at first_line of its file; a bad formula names its line.
    table_name: how each table's scrolling region is named in the text's language."""
    md = renderer()
    tokens = md.parse(text)
    for latex, display, line in _math_with_lines(tokens):
        try:
            to_mathml(latex, display)  # cached: rendering below reuses it
        except MathError as err:
            raise BuildError(str(err), line=first_line + line, fix=FIX) from None
    check_rendered(tokens, first_line)
    for token in tokens:
        if token.type == "inline" and token.children:
            token.children = keep_closing_punctuation(token.children)
    return md.renderer.render(tokens, md.options, {"table_name": table_name})


def _html(content: str):
    from markdown_it.token import Token

    token = Token("html_inline", "", 0)
    token.content = content
    return token


def keep_closing_punctuation(children: list) -> list:
    """Inline tokens with every formula or short link that a closing mark follows wrapped, with the
    mark, in a no-break span, so no line can begin with the mark."""
    out: list = []
    for i, child in enumerate(children):
        following = children[i + 1] if i + 1 < len(children) else None
        if not (following is not None and following.type == "text" and following.content[:1] in CLOSING):
            out.append(child)
            continue
        if child.type.startswith("math_inline"):
            start = len(out)
        elif child.type == "link_close":
            start = _link_open(out)
            if start is None or len("".join(t.content for t in out[start:])) > NOBREAK_LINK_CHARS:
                out.append(child)
                continue
        else:
            out.append(child)
            continue
        marks = len(following.content) - len(following.content.lstrip(CLOSING))
        out.insert(start, _html(NOBREAK_OPEN))
        out.append(child)
        out.append(_html(following.content[:marks] + "</span>"))
        following.content = following.content[marks:]
    return [t for t in out if not (t.type == "text" and t.content == "")]


def _link_open(tokens: list):
    """Where the link that the next token closes opens (links do not nest)."""
    for at in range(len(tokens) - 1, -1, -1):
        if tokens[at].type == "link_open":
            return at
    return None
