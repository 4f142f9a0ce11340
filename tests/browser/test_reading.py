"""Reading the page: the text stays where the reader puts it.

The chapters off screen are skipped until they near the window (content-visibility: auto in
site.css), laid out at an estimated height until then. A reader who jumps to a chapter and then
scrolls must never see the text move by more than the scroll: each estimate gives way before its
chapter comes into view, and scroll anchoring keeps the text still while it does. The power check
turns scroll anchoring off on a page that has drawn no chapter yet, and the same measurement
then sees the text jump.
"""

from __future__ import annotations

import pytest
from helpers.benchpage import without_python

pytestmark = pytest.mark.browser

WINDOW = {"width": 1366, "height": 657}
STEP = 120  # px: one notch of a mouse wheel

# For each chapter: jump to it by its anchor (as the contents do), then scroll up and down a notch
# at a time, two frames after each move (the frame that finds a chapter near the window, and the
# frame that draws it). Returns, per chapter, how far the chapter's top moved beyond what the jump
# or the scroll asked (0 when the text stayed where the reader put it).
JUMP_AND_SCROLL = """async ({ ids, step }) => {
    const frames = () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
    const top = (el) => el.getBoundingClientRect().top;
    const out = {};
    for (const id of ids) {
        const el = document.getElementById(id);
        location.hash = '#' + id;
        const landed = top(el);
        const moved = [];
        for (let i = 0; i < 3; i++) { await frames(); moved.push(top(el) - landed); }
        for (const dy of [-step, -step, -step, -step, -step, step, step, step, step, step]) {
            const before = top(el);
            window.scrollBy(0, dy);
            await frames();
            moved.push(top(el) - before + dy);
        }
        out[id] = moved.map(Math.round);
    }
    return out;
}"""


def jumps(page, site_url: str, anchoring: bool = True) -> dict[str, list[int]]:
    """The chapters' unasked moves on a freshly loaded English page (no chapter drawn but the first)."""
    without_python(page)  # the text alone
    page.goto(f"{site_url}en/specdec/")
    if not anchoring:
        page.evaluate("() => { document.documentElement.style.overflowAnchor = 'none'; }")
    ids = page.eval_on_selector_all("section.chapter", "(all) => all.map((s) => s.id)")
    assert len(ids) >= 12, ids
    return page.evaluate(JUMP_AND_SCROLL, {"ids": ids[3:13:2], "step": STEP})


def test_after_a_jump_to_a_chapter_the_text_moves_only_as_the_reader_scrolls(new_page, site_url):
    moved = jumps(new_page(viewport=WINDOW), site_url)
    assert all(abs(d) <= 1 for ds in moved.values() for d in ds), moved


def test_without_scroll_anchoring_the_same_measurement_sees_the_text_jump(new_page, site_url):
    """Power check: the estimates are real (chapters' heights differ from 60rem), and what keeps
    the text still is the browser's anchoring, which the measurement above would miss if it could."""
    moved = jumps(new_page(viewport=WINDOW), site_url, anchoring=False)
    assert max(abs(d) for ds in moved.values() for d in ds) > 100, moved
