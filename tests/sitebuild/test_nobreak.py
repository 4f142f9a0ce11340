"""No line of Chinese text begins with closing punctuation after a formula or a link:
the build wraps each such pair in a no-break span (sitebuild/markdown.py), checked in the
generated pages."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from sitebuild.markdown import CLOSING, NOBREAK_LINK_CHARS, to_html


class PairFinder(HTMLParser):
    """Every closing mark that directly follows a formula or a link, and whether a no-break span
    holds the pair."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, str]] = []  # (tag, class) of the open elements
        self.last_end = None  # (tag, class, text of the link) of the element that just closed
        self.link_text = ""
        self.pairs: list[dict] = []

    def handle_starttag(self, tag, attrs):
        self.stack.append((tag, dict(attrs).get("class") or ""))
        if tag == "a":
            self.link_text = ""
        self.last_end = None

    def handle_endtag(self, tag):
        while self.stack:
            open_tag, cls = self.stack.pop()
            if open_tag == tag:
                break
        self.last_end = (tag, cls, self.link_text if tag == "a" else "")

    def handle_data(self, data):
        if any(tag == "a" for tag, _ in self.stack):
            self.link_text += data
        after = self.last_end
        self.last_end = None
        if not after or not data or data[0] not in CLOSING:
            return
        tag, cls, text = after
        if tag == "a" or (tag == "span" and "math" in cls.split()):
            held = any(t == "span" and "nobr" in c.split() for t, c in self.stack)
            self.pairs.append({"after": tag, "text": text, "mark": data[0], "held": held})


def pairs(html: str) -> list[dict]:
    finder = PairFinder()
    finder.feed(html)
    return finder.pairs


def test_a_formula_or_short_link_and_the_mark_after_it_share_a_no_break_span():
    html = to_html("当 $\\alpha$。再看[批处理那一章](#batch)，以及 $x$ 和 [a](#a)")
    found = pairs(html)
    assert [(p["after"], p["mark"], p["held"]) for p in found] == [("span", "。", True), ("a", "，", True)]
    assert html.count('<span class="nobr">') == 2 and "和 <a" in html  # nothing else wrapped


def test_text_without_such_a_pair_is_left_as_it_was():
    for text in ("plain text, a [link](#a). And $x$, then more.", "$x$ 和 [a](#a) 之后"):
        assert '<span class="nobr">' not in to_html(text)


def test_a_long_link_keeps_its_own_break_opportunities():
    long = "长" * (NOBREAK_LINK_CHARS + 1)
    found = pairs(to_html(f"见[{long}](#x)。"))
    assert found == [{"after": "a", "text": long, "mark": "。", "held": False}]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_no_line_in_the_built_page_can_begin_with_closing_punctuation_after_math_or_a_link(built_site, lang):
    html = (built_site / lang / "specdec" / "index.html").read_text(encoding="utf-8")
    found = pairs(html)
    loose = [p for p in found if not p["held"] and not (p["after"] == "a" and len(p["text"]) > NOBREAK_LINK_CHARS)]
    assert loose == [], loose[:5]
    if lang == "zh":
        assert sum(p["held"] for p in found) >= 5  # the chapters do have such pairs, and they are held
