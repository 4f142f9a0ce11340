"""The embed showing a chapter lays itself out for the frame it is given (frames.css,
thresholds in sitebuild/frames.py), in a plain course page on another origin whose frame has a
height of its own (as Moodle's URL resource and the course package's launcher give it):

- 700, 800 and 950 px wide: the chapter beside the bench; the chapter's heading, the machine at
  its own size or larger and the Play row all inside the frame, nothing in it scrolling but its
  document (the bench, taller than the frame, is no scroll area of its own), and nothing wider. The host's "show this chapter" (the launcher's Next chapter) and the link at a
  chapter's end both bring the new chapter's heading into view, wherever the reader had scrolled.
- a phone's 390 px: the chapter first, under the bar with the machine drawn small; the bar opens
  the bench over the chapter, and Escape closes it.

The course package's launcher at the LMS player's sizes: tests/browser/test_course_package.py.
"""

from __future__ import annotations

import pytest
from helpers.benchpage import PYODIDE_TIMEOUT_MS, KeptPages
from helpers.course_host import course_page, course_site

pytestmark = pytest.mark.browser

BESIDE = [(700, 600), (800, 600), (950, 600)]
PHONE = (390, 700)
CHAPTER, NEXT, LATER = "batch", "draft", "verify"

# What the reader of the frame sees, in the frame's own coordinates.
SEEN = """() => {
    const box = (el) => { if (!el) return null; const r = el.getBoundingClientRect();
        return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width }; };
    const shown = document.querySelector('.embed__text section.b-shown');
    return {
        width: innerWidth, height: innerHeight, scrollWidth: document.documentElement.scrollWidth,
        chapter: shown && shown.id, heading: box(shown && shown.querySelector('h2')),
        text: box(document.querySelector('.embed__text')), bench: box(document.getElementById('bench')),
        machine: box(document.querySelector('#b svg.b-machine')), play: box(document.querySelector('#b .b-play')),
        strip: box(document.querySelector('.b-strip')), stripShown: getComputedStyle(document.querySelector('.b-strip')).display !== 'none',
        benchShown: getComputedStyle(document.getElementById('bench')).visibility === 'visible',
        sheet: document.getElementById('bench').dataset.sheet,
        scrollers: [...document.querySelectorAll('body *')].filter((el) => /auto|scroll/.test(getComputedStyle(el).overflowY)
            && el.scrollHeight > el.clientHeight + 1).map((el) => el.id || el.className),
    };
}"""


@pytest.fixture(scope="module")
def course():
    with course_site() as server:
        yield server


@pytest.fixture(scope="module")
def framed(shared_contexts, site_url, course):
    """A course page per language holding the embed at chapter 02 in a frame of its own size (no
    host script: the frame keeps the size the page gives it), the bench live."""
    def open_page(lang):
        frame = (f'<iframe id="lesson" src="{site_url}embed/{lang}/specdec/?chapter={CHAPTER}" title="bench" '
                 f'style="border:0;display:block;width:{BESIDE[0][0]}px;height:{BESIDE[0][1]}px"></iframe>')
        course.pages[f"/frames-{lang}.html"] = course_page([frame], width=1000)
        page = shared_contexts.page(viewport={"width": 1100, "height": 900}, reduced_motion="reduce")
        page.goto(f"{course.url}/frames-{lang}.html")
        page.frame_locator("#lesson").locator("#b[data-mode=live][data-busy=false]").wait_for(
            state="attached", timeout=PYODIDE_TIMEOUT_MS)
        return page

    pages = KeptPages(open_page)
    yield pages
    pages.close()


def frame_of(page):
    return page.locator("#lesson").element_handle().content_frame()


def resize(page, width: int, height: int) -> dict:
    """Give the frame a size; once the embed has laid itself out for it, what its reader sees."""
    page.eval_on_selector("#lesson", "(f, [w, h]) => { f.style.width = w + 'px'; f.style.height = h + 'px'; }", [width, height])
    frame = frame_of(page)
    frame.wait_for_function("([w, h]) => innerWidth === w && innerHeight === h", arg=[width, height])
    frame.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    return frame.evaluate(SEEN)


def show(page, anchor: str) -> dict:
    """The host asks for a chapter, as the launcher's Next chapter and chapter list do."""
    page.eval_on_selector("#lesson", "(f, chapter) => f.contentWindow.postMessage({type: 'specdec:show', chapter}, '*')", anchor)
    frame = frame_of(page)
    frame.wait_for_selector(f"section#{anchor}.b-shown", state="attached")
    frame.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    return frame.evaluate(SEEN)


def in_view(seen: dict, below: float = 0) -> bool:
    return below <= seen["heading"]["top"] and seen["heading"]["bottom"] <= seen["height"]


def assert_beside(seen: dict, where: str):
    assert not seen["stripShown"] and seen["benchShown"], where
    assert in_view(seen) and seen["heading"]["top"] < 150, (where, seen["heading"])  # at the top of the frame
    assert seen["text"]["right"] <= seen["bench"]["left"], (where, seen["text"], seen["bench"])  # beside
    assert seen["machine"]["width"] >= 340 and seen["machine"]["right"] <= seen["width"], (where, seen["machine"])
    assert seen["play"]["bottom"] <= seen["height"], (where, seen["play"])
    assert seen["scrollers"] == [], (where, seen["scrollers"])  # one scroll area: the frame's document
    assert seen["scrollWidth"] <= seen["width"], (where, seen["scrollWidth"])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_from_700_px_the_chapter_stays_beside_a_bench_that_fits(framed, lang):
    page = framed(lang)
    for width, height in BESIDE:
        where = f"{lang} {width}x{height}"
        assert_beside(resize(page, width, height), where)
        show(page, CHAPTER)
        # Read to the chapter's end, then the next chapter as the launcher asks for it: its heading
        # comes into view at the top, beside the bench.
        frame_of(page).evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)")
        end = frame_of(page).evaluate(SEEN)
        assert end["bench"]["bottom"] <= end["height"], (where, end["bench"])  # its one scroll reaches the bench's end
        seen = show(page, LATER)
        assert seen["chapter"] == LATER
        assert_beside(seen, f"{where}, shown by the host")
    # The link at a chapter's end opens the next one (on the full page, which the hosted embed
    # links: the package's copy shows it in place, test_course_package.py).
    link = frame_of(page).locator(f"section#{LATER} .chapter__next a")
    assert link.get_attribute("target") == "_blank" and link.get_attribute("href").endswith("#rule")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_phone_frame_puts_the_chapter_first_under_the_machines_bar(framed, lang):
    page = framed(lang)
    seen = resize(page, *PHONE)
    show(page, NEXT)
    frame_of(page).evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)")
    seen = show(page, CHAPTER)
    assert seen["stripShown"] and seen["strip"]["top"] == 0 and not seen["benchShown"], seen
    assert in_view(seen, below=seen["strip"]["bottom"]), (seen["heading"], seen["strip"])  # under the bar
    assert seen["machine"]["bottom"] <= seen["strip"]["bottom"] and seen["machine"]["width"] > 0  # drawn small in it
    assert seen["scrollWidth"] <= seen["width"]
    frame = frame_of(page)
    frame.locator(".b-strip__open").click()
    frame.wait_for_function("() => document.getElementById('bench').dataset.sheet === 'open'")
    opened = frame.evaluate(SEEN)
    assert opened["benchShown"] and opened["machine"]["width"] >= 340 and not opened["stripShown"]
    frame.locator("#b-title").press("Escape")
    frame.wait_for_function("() => document.getElementById('bench').dataset.sheet === 'closed'")
    back = resize(page, *BESIDE[0])  # wide again: beside, and the sheet's state gone with the bar
    assert_beside(back, f"{lang} back to {BESIDE[0]}")
