"""One bench, three frames (issues 8 and 19): beside the text it fits the window with nothing
scrolling inside; on a phone a bar at the top shows the machine drawn small, this pass of its
tape and the part in view from chapter 01 on, a Try it's effect shows there, and one tap opens
the whole bench, with no word under 12 px and nothing cut off. (The embed: test_embed.py; every
frame of the matrix: test_viewport_matrix.py.)"""

from __future__ import annotations

import pytest
from helpers.benchpage import PHONE, open_bench, reset, run, settle, to_chapter

pytestmark = pytest.mark.browser

MIN_PX = 12

# Every visible word of the bench (and of the strip), with the size it renders at: SVG lettering
# scaled by its drawing, HTML text at its computed size.
RENDERED_SIZES = """(selector) => {
    const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility === 'visible';
    const out = [];
    for (const root of document.querySelectorAll(selector)) {
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const el = node.parentElement;
            if (!node.textContent.trim() || !shown(el) || el.closest('.visually-hidden, title, desc, option')) continue;
            let px = parseFloat(getComputedStyle(el).fontSize);
            const svg = el.closest('svg');
            if (svg) px *= svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
            out.push({ text: node.textContent.trim().slice(0, 30), px: Math.round(px * 10) / 10 });
        }
    }
    return out;
}"""


@pytest.fixture(scope="module")
def phone(live_pages):
    """A phone per language (360 x 740, touch), the bench live (the session's: conftest.LivePages)."""
    return live_pages.for_module("phone")


def panels(page) -> list[str]:
    """The bench's panels, as its tabs list them (a new panel is checked with the others)."""
    names = page.eval_on_selector_all("#b .b-tab", "(tabs) => tabs.map((t) => t.dataset.panel)")
    assert {"bridge", "exact", "tubes", "readouts", "curve"} <= set(names), names
    return names


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_on_a_phone_chapter_01_has_the_machine_on_screen(phone, lang):
    page = phone(lang)
    to_chapter(page, "onebyone")
    strip = page.locator(".b-strip")
    bar = strip.bounding_box()
    assert bar["y"] == 0 and bar["height"] <= 0.4 * PHONE["height"]  # 60% of the screen for the text
    heading = page.locator("#onebyone h2").bounding_box()
    assert bar["height"] <= heading["y"] <= bar["height"] + 60  # chapter 01's heading just under the bar
    machine = page.locator("#b svg.b-machine").bounding_box()  # the bench's own machine, drawn small
    assert machine["y"] >= 0 and machine["y"] + machine["height"] <= bar["height"] and machine["height"] >= 180, machine
    assert page.locator(".b-strip__part").inner_text() == page.locator("#b-part-drum-label").text_content()
    assert "b-focus" in page.locator("#b .b-part[data-part-name=drum]").get_attribute("class")  # lit on it
    assert page.locator("#b .b-machine-panel").evaluate("p => p.inert")  # a picture here: parts are pressed on the bench
    tape = strip.locator(".b-strip__tape").bounding_box()
    assert tape["y"] >= 0 and tape["y"] + tape["height"] <= bar["height"]  # on screen, beside the machine
    # The strip's tape is the machine's: this pass's slots, marked the same way.
    machine = page.evaluate("""() => [...document.querySelectorAll('#b .b-slot:not(.b-slot--empty)')]
        .map((g) => g.querySelector('.b-slot-mark').textContent)""")
    chips = page.evaluate("() => [...document.querySelectorAll('.b-strip .b-chip__mark')].map((m) => m.textContent)")
    assert chips == machine and len(chips) == 5
    assert page.locator(".b-strip__readout").inner_text()[0].isdigit() or lang == "zh"
    # Nothing in the strip is cut off, and no word in it is under 12 px.
    cut = page.evaluate("""() => [...document.querySelectorAll('.b-strip, .b-strip *')]
        .filter((e) => e.scrollWidth > e.clientWidth + 1 || getComputedStyle(e).textOverflow === 'ellipsis')
        .map((e) => e.className)""")
    assert not cut, cut
    small = [t for t in page.evaluate(RENDERED_SIZES, ".b-strip") if t["px"] < MIN_PX]
    assert not small, small


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_on_a_phone_a_try_it_shows_on_the_machine_in_the_bar(phone, lang):
    """Chapter 09's Try it raises the batch: the machine drawn small fills its drawers and stacks
    its cabinets, and the sheet stays closed."""
    page = phone(lang)
    to_chapter(page, "idle")
    drawers = "() => document.querySelectorAll('#b .b-drawer.b-in-use').length"
    assert page.evaluate(drawers) == 1
    page.locator("#idle .try__button").tap()
    page.wait_for_function(f"() => ({drawers})() === 16 && window.specdecBench.getState().bench.settings.batch > 16")
    settle(page)
    assert page.locator(".bench").get_attribute("data-sheet") == "closed"
    machine = page.locator("#b svg.b-machine").bounding_box()
    assert machine["y"] >= 0 and machine["y"] + machine["height"] <= 0.4 * PHONE["height"]
    assert page.locator("#b .b-cabinet-stack:not(.b-off)").count() >= 1
    run(page, [{"type": "load", "query": []}])  # the defaults again; the chapter keeps its part


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_on_a_phone_one_tap_from_chapter_09_shows_the_whole_machine(phone, lang):
    page = phone(lang)
    to_chapter(page, "idle")
    page.wait_for_function("() => document.getElementById('b').dataset.focus === 'mill'")
    scrolled = page.evaluate("() => scrollY")
    page.locator(".b-strip__open").tap()
    page.wait_for_function("() => document.querySelector('.bench').dataset.sheet === 'open'")
    machine = page.locator("#b svg.b-machine").bounding_box()
    assert machine["y"] >= 0 and machine["y"] + machine["height"] <= PHONE["height"], machine
    assert machine["width"] >= 340  # drawn at its own size or larger: 12-unit words at 12 px or more
    assert page.evaluate("() => document.activeElement.id") == "b-title"
    assert "b-focus" in page.locator("#b .b-part[data-part-name=mill]").get_attribute("class")  # the chapter's part
    assert page.locator(".layout .article").evaluate("a => a.inert")  # focus stays in the sheet
    # Every word of the open bench, in each panel, renders at 12 px or more.
    small = []
    for panel in panels(page):
        run(page, [{"type": "open_panel", "panel": panel}])
        small += [(panel, t) for t in page.evaluate(RENDERED_SIZES, "#b") if t["px"] < MIN_PX]
    assert not small, small[:10]
    page.keyboard.press("Escape")
    page.wait_for_function("() => document.querySelector('.bench').dataset.sheet === 'closed'")
    assert page.evaluate("() => document.activeElement.classList.contains('b-strip__open')")
    assert page.evaluate("() => scrollY") == scrolled  # the reader is where they were
    run(page, [{"type": "open_panel", "panel": "readouts"}])


@pytest.mark.parametrize("lang,height", [("en", 900), ("zh", 900), ("en", 800)])
def test_beside_the_text_the_bench_fits_the_window_with_every_panel(shared_bench, lang, height):
    """One live page per language (Python starts once for both English windows), resized and put
    back in the state a fresh visit opens in, at the top of the text."""
    page = shared_bench(lang)
    page.set_viewport_size({"width": 1280, "height": height})
    reset(page)
    page.evaluate("() => window.scrollTo(0, 0)")
    for scroll in ("top", "exact"):
        if scroll != "top":
            page.evaluate("(id) => document.getElementById(id).scrollIntoView()", scroll)
            settle(page)
        for panel in panels(page):
            run(page, [{"type": "open_panel", "panel": panel}])
            box = page.evaluate("""() => {
                const bench = document.querySelector('.bench');
                const r = (s) => document.querySelector(s).getBoundingClientRect();
                return { inner: bench.scrollHeight - bench.clientHeight,
                         machine: r('#b svg.b-machine'), tape: r('#b .b-tape'), controls: r('#b form.b-controls'),
                         deck: r('#b .b-deck'), window: innerHeight };
            }""")
            where = f"{lang} {height}px {scroll} {panel}"
            # Every panel fits: the bench, a scroller only as a last resort (a reader opening the race's
            # rows), has nothing to scroll in any panel as it opens.
            assert box["inner"] <= 0, where
            for name in ("machine", "tape", "controls", "deck"):
                assert box[name]["top"] >= 0 and box[name]["bottom"] <= box["window"] + 0.5, (where, name, box[name])
            if height >= 900 and panel not in ("tubes", "race", "own"):  # the tallest panels take some of its height
                assert box["machine"]["width"] >= 340, (where, box["machine"])  # its own size or larger


def test_on_a_phone_without_javascript_the_strip_still_opens_the_bench(new_page, site_url):
    page = new_page(viewport=PHONE, java_script_enabled=False)
    page.goto(f"{site_url}zh/specdec/")
    small = page.locator("#b svg.b-machine").bounding_box()  # the machine drawn small in the bar
    assert small["y"] >= 0 and small["y"] + small["height"] <= page.locator(".b-strip").bounding_box()["height"]
    page.locator(".b-strip__open").click()  # a link to the bench's title: :target opens the sheet
    machine = page.locator("#b svg.b-machine").bounding_box()
    assert page.locator("#b svg.b-machine").is_visible() and machine["y"] >= 0 and machine["width"] >= 340
    assert page.locator("#b noscript").count() == 1


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_embed_on_a_phone_keeps_every_word_at_12_px(new_page, site_url, lang):
    """A course page read on a phone gives the frame the phone's width: the machine keeps its own
    size, nothing is wider than the frame, and every word of the bench renders at 12 px or more."""
    page = new_page(viewport=PHONE, is_mobile=True, has_touch=True, reduced_motion="reduce")
    open_bench(page, f"{site_url}embed/{lang}/specdec/")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    assert page.locator("#b svg.b-machine").bounding_box()["width"] >= 340
    small = [t for t in page.evaluate(RENDERED_SIZES, "#b") if t["px"] < MIN_PX]
    assert not small, small[:10]


def test_on_a_phone_embed_this_opens_from_the_sheet(phone):
    """The bench's sheet makes the page behind it inert, but not the dialog it opens; its settings
    fold behind their button."""
    page = phone("en")
    page.locator(".b-strip__open").tap()
    page.wait_for_function("() => document.querySelector('.bench').dataset.sheet === 'open'")
    # In the sheet the settings fold behind their button, which opens them in place.
    gamma = page.locator("#b input[name=gamma]")
    assert gamma.is_hidden()
    page.locator("#b .b-settings-toggle").tap()
    assert gamma.is_visible() and page.locator("#b .b-settings-toggle").get_attribute("aria-expanded") == "true"
    page.locator("#b .b-settings-toggle").tap()
    assert gamma.is_hidden()
    page.locator("#b .b-embed-open").tap()
    page.wait_for_function("() => document.getElementById('embed-dialog').open")
    assert page.evaluate("() => document.getElementById('embed-dialog').contains(document.activeElement)")
    assert page.locator("#embed-code").input_value().startswith("<iframe src=")
    box = page.locator("#embed-chapter").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]  # nothing cut off
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.getElementById('embed-dialog').open")
    assert page.evaluate("() => document.activeElement.classList.contains('b-embed-open')")
    page.keyboard.press("Escape")
    page.wait_for_function("() => document.querySelector('.bench').dataset.sheet === 'closed'")
