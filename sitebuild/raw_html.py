"""Refuse raw HTML in a chapter's Markdown that would run: the page's Content-Security-Policy
blocks inline scripts, so a <script>, an on...= handler or a javascript: address would be
copied into the page and silently do nothing. Raw HTML that does not run (a <kbd>, a <details>)
may stay. Code spans and fenced code are text, not HTML: markdown-it tells them apart, so a
chapter may show a <script> tag as an example.
"""

from __future__ import annotations

import re

from .errors import BuildError
from .markdown import renderer

TAG = re.compile(r"<[A-Za-z/][^>]*>?")  # a tag (a <!-- comment --> does not run)
RUNS = (
    (re.compile(r"<script\b", re.I), "a raw <script>"),
    (re.compile(r"\s(on[a-z]+)\s*=", re.I), "an {0}= handler in raw HTML"),
    (re.compile(r"=\s*[\"']?\s*javascript:", re.I), "a javascript: address in raw HTML"),
)
FIX = ("the page's Content-Security-Policy blocks it, so it would silently do nothing: put behaviour in "
       "site/static/js/ (raw HTML that does not run may stay)")


def _html_pieces(tokens):
    """(raw HTML, its first line within the text) of every html_block and html_inline token."""
    for token in tokens:
        if token.type == "html_block" and token.map:
            yield token.content, token.map[0]
        elif token.type == "inline" and token.map:
            searched = 0
            for child in token.children or []:
                if child.type == "html_inline":
                    at = token.content.find(child.content, searched)
                    searched = max(at, searched)
                    yield child.content, token.map[0] + token.content.count("\n", 0, searched)


def check(text: str, path, first_line: int) -> None:
    """BuildError at the file line of the first raw HTML in `text` (Markdown that starts at
    first_line of path) that would run."""
    for html, line in _html_pieces(renderer().parse(text)):
        for tag in TAG.finditer(html):
            for pattern, what in RUNS:
                found = pattern.search(tag.group(0))
                if found:
                    at = line + html.count("\n", 0, tag.start() + found.start())
                    raise BuildError(what.format(*found.groups()), file=path, line=first_line + at, fix=FIX)
