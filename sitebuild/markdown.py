"""The one Markdown renderer every page uses: CommonMark, tables, $math$ and ::: blocks."""

from __future__ import annotations

from functools import lru_cache

from markdown_it import MarkdownIt
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin

from .errors import BuildError
from .mathml import FIX, MathError, render_math, to_mathml

# Blocks the chapters may use, e.g. "::: note" ... ":::".
CONTAINERS = ("note", "aside", "figure")


@lru_cache(maxsize=1)
def renderer() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True, "typographer": False}).enable("table")
    # allow_digits=False keeps "$5 and $6" prose from being read as math.
    md.use(dollarmath_plugin, allow_digits=False, allow_labels=False, renderer=render_math)
    for name in CONTAINERS:
        md.use(container_plugin, name=name)
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
def to_html(text: str, first_line: int = 1) -> str:
    """HTML for Markdown text that starts at first_line of its file; a bad formula names its line."""
    md = renderer()
    tokens = md.parse(text)
    for latex, display, line in _math_with_lines(tokens):
        try:
            to_mathml(latex, display)  # cached: rendering below reuses it
        except MathError as err:
            raise BuildError(str(err), line=first_line + line, fix=FIX) from None
    return md.renderer.render(tokens, md.options, {})
