"""The one Markdown renderer every page uses: CommonMark, tables, $math$ and ::: blocks."""

from __future__ import annotations

from functools import lru_cache

from markdown_it import MarkdownIt
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin

from .mathml import render_math

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


def to_html(text: str) -> str:
    return renderer().render(text)
