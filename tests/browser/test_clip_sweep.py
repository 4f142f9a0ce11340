"""Nothing the bench shows is cut: a sweep over windows x modes x both
languages that fails on any text a box that hides its overflow cuts (overflow hidden or clip,
text-overflow: ellipsis, a menu narrower than its chosen option, an SVG word past its drawing's
viewBox, a word the drawing shortened though the whole one fits), on texts of the bench's head and
rail drawn over each other, on any text or control of the bench another box is drawn over (the
Play row's box over the rail, say), and on a tape squeezed under one and a half of its rows while
holding more (tests/helpers/clipcheck.py says how each is measured). Dark mode at one window of every
state (DARK_AT): each text where it is in light, and none hidden by its colours in either
scheme. The course package's launcher is swept in tests/browser/test_course_package.py, in an LMS.

Cheap by design: one page per language, opened once. Each mode's state is set once through the
bench's API (or its buttons, as a reader would: "Run the race", "Fill the window") and then the
viewport is resized through every window, with one page.evaluate per state and window. Phone
windows read the bench in its sheet (opened from the bar, as a reader does); the embed is the
same page sent to the embed's address, with a chapter, swept over the same windows."""

from __future__ import annotations

import pytest
from helpers.benchpage import PYODIDE_TIMEOUT_MS, open_bench, own_live_pages, paste, reset, run, settle
from helpers.clipcheck import FRAMES, SCOPE, cut, in_dark
from helpers.owntext_fixtures import own_text

pytestmark = [pytest.mark.browser, pytest.mark.long(55)]

# Phones and tablets first, then laptops and monitors (each mode's sweep opens the phone's sheet once).
WINDOWS = [(360, 640), (390, 844), (768, 1024), (1024, 768), (1280, 800), (1366, 657), (1366, 768), (1920, 940), (2560, 1440)]
# The window where a state is read in dark too, a phone's (the bench in its sheet) or a laptop's,
# so that both layouts are read in dark with every kind of control and panel (fill the window
# and the settings opened in greedy mode show nothing the others do not). The
# scheme changes colours and nothing else (tests/sitebuild/test_colour_scheme.py: every colour a
# light-dark() pair, no rule or script reading the scheme), so every text's box is the same in
# both, which these windows confirm (the browser's own controls and scroll bars follow the scheme
# too), and the light sweep covers dark; the colours, which change, are read in both schemes.
PHONE, LAPTOP = (390, 844), (1366, 768)
DARK_AT = {"greedy": LAPTOP, "temperature": PHONE, "trees": LAPTOP, "trees settings": PHONE, "race": LAPTOP,
           "own": PHONE, "embed dialog": LAPTOP, "embed": PHONE}
BESIDE = {"width": 900, "height": 560}  # frames.css: the bench beside the text from here

# Each mode: the link it loads and the panel it opens (the race is run by its button, the own text
# counted by its own; see MODES_RUN).
MODES = {
    "greedy": ("?temperature=0&steps=12", "readouts"),
    "temperature": ("?temperature=1.3&steps=6", "tubes"),
    "trees": ("?candidates=3&steps=5", "exact"),
    "race": ("?steps=3", "race"),
    "own": ("", "own"),
}

# The dialog's Close, scrolled to its top: whole inside the dialog's visible box.
CLOSE_IN_VIEW = """() => {
    const dialog = document.querySelector('dialog[open]');
    dialog.scrollTop = 0;
    const close = dialog.querySelector('.embed-dialog__close').getBoundingClientRect(), box = dialog.getBoundingClientRect();
    return { shown: close.bottom <= box.bottom - dialog.clientTop + 0.5 && close.top >= box.top, bottom: close.bottom, edge: box.bottom };
}"""
# The race's pickers' labels (GPU, model) each on one line, never a character a line ("模型").
ONE_LINE_LABELS = """() => [...document.querySelectorAll('#b .r-pick label')].filter((l) => l.checkVisibility())
    .filter((l) => l.getBoundingClientRect().height > 2.5 * parseFloat(getComputedStyle(l).fontSize))  // one line: under 1.9 em
    .map((l) => l.textContent.trim())"""
SHEET = """(open) => {
    const bench = document.querySelector('.layout .bench');
    if (!bench) return;
    const isOpen = bench.dataset.sheet === 'open';
    if (open && !isOpen) document.querySelector('.b-strip__open').click();
    if (!open && isOpen) bench.querySelector('.b-sheet-close').click();
}"""


def beside(width: int, height: int) -> bool:
    return width >= BESIDE["width"] and height >= BESIDE["height"]


@pytest.fixture(scope="module")
def sweep_pages(shared_contexts, site_url):
    """One live page per language, the module's own: it is resized, and its sweep ends on the
    embed's address (the test of the Play button, which needs the full page, runs first)."""
    pages = own_live_pages(shared_contexts, site_url)
    yield pages
    pages.close()


def set_mode(page, lang: str, mode: str):
    query, panel = MODES[mode]
    page.evaluate(SHEET, False)
    page.set_viewport_size({"width": 1366, "height": 768})
    reset(page, query)
    run(page, [{"type": "open_panel", "panel": panel}])
    if mode == "race":
        page.click("#b .r-go")  # "Run the race"
        page.wait_for_selector('#b[data-steps="40"][data-busy="false"]', timeout=PYODIDE_TIMEOUT_MS, state="attached")
    elif mode == "own":
        paste(page, own_text(f"refrain.{lang}"))
        page.click(".b-own__count")
        page.wait_for_function("() => window.specdecBench.getState().source.source === 'text'", timeout=PYODIDE_TIMEOUT_MS)
        run(page, [{"type": "step"}, {"type": "step"}, {"type": "step"}])
    settle(page)


def sweep(page, where: str, windows=WINDOWS, sheet: bool = True) -> list[str]:
    """Every window in turn: what is cut, drawn over or squeezed, as lines naming the window; at
    the state's dark window if it has one (DARK_AT; `where` is the language and the state), a text that moves in
    dark or is hidden by its colours in either scheme."""
    found, dark = [], DARK_AT.get(where.split(" ", 1)[1])
    for width, height in windows:
        page.set_viewport_size({"width": width, "height": height})
        if sheet:
            page.evaluate(SHEET, not beside(width, height))
        page.evaluate(FRAMES)
        at = f"{where} {width}x{height}"
        found += cut(page, SCOPE, at)
        if (width, height) == dark:
            found += in_dark(page, [(page, SCOPE)], at)
    return found


def test_play_keeps_its_width_when_it_becomes_pause(sweep_pages):
    """The speed menu and the settings button stay where they are when Play turns into Pause."""
    page = sweep_pages("en")
    page.set_viewport_size({"width": 1366, "height": 768})
    reset(page, "?steps=2&speed=1e-6")
    where = """() => ['.b-play', '#b-speed', '.b-settings-toggle'].map((s) => {
        const r = document.querySelector('#b ' + s).getBoundingClientRect(); return [Math.round(r.left), Math.round(r.top), Math.round(r.width)]; })"""
    before = page.evaluate(where)
    run(page, [{"type": "speed", "value": 1e-6}, {"type": "play"}])
    assert page.locator("#b .b-play").get_attribute("aria-pressed") == "true"
    after = page.evaluate(where)
    run(page, [{"type": "pause"}, {"type": "speed", "value": 1}])
    settle(page)
    assert after == before


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_nothing_the_bench_shows_is_cut_in_any_window_or_mode(sweep_pages, site_url, lang):
    page = sweep_pages(lang)
    found = []
    for mode in MODES:
        set_mode(page, lang, mode)
        found += sweep(page, f"{lang} {mode}")
        if mode == "race":
            for width, height in WINDOWS:
                page.set_viewport_size({"width": width, "height": height})
                page.evaluate(SHEET, not beside(width, height))
                found += [f"{lang} race {width}x{height}: the label {label!r} wraps" for label in page.evaluate(ONE_LINE_LABELS)]
        if mode in ("greedy", "trees"):
            # The same state with the settings open, where they fold behind their button.
            page.evaluate(SHEET, False)
            for width, height in WINDOWS:
                page.set_viewport_size({"width": width, "height": height})
                page.evaluate(SHEET, not beside(width, height))
                page.evaluate(FRAMES)
                toggle = page.locator("#b .b-settings-toggle")
                if not toggle.is_visible():
                    continue
                toggle.click()
                found += sweep(page, f"{lang} {mode} settings", [(width, height)], sheet=False)
                toggle.click()
        if mode == "greedy":
            # Fill the window, where the bench is beside the text; then one pass played (Play → Pause).
            page.evaluate(SHEET, False)
            for width, height in [w for w in WINDOWS if beside(*w)]:
                page.set_viewport_size({"width": width, "height": height})
                page.locator("#b .b-fill").click()
                page.wait_for_function("() => document.querySelector('.bench').dataset.fill === 'on'")
                found += sweep(page, f"{lang} fill", [(width, height)], sheet=False)
                page.locator("#b .b-fill").click()
                page.wait_for_function("() => document.querySelector('.bench').dataset.fill === 'off'")
    # The embed with a chapter beside the bench or under its bar, and the "Embed this" dialog.
    page.evaluate(SHEET, False)
    page.set_viewport_size({"width": 1366, "height": 768})
    run(page, [{"type": "use_book"}])
    reset(page, "?steps=4")
    page.locator("#b .b-embed-open").click()
    for width, height in [(1366, 657), (1366, 768), (1280, 800), (1920, 940)]:
        found += sweep(page, f"{lang} embed dialog", [(width, height)], sheet=False)
        close = page.evaluate(CLOSE_IN_VIEW)  # a reader reaches Close without scrolling the dialog
        if not close["shown"]:
            found.append(f"{lang} embed dialog {width}x{height}: Close ends at {close['bottom']:.0f}, past the dialog's {close['edge']:.0f}")
    page.keyboard.press("Escape")
    # A course page's narrow frame as tall as its content (390 x 1400) too: the bar's machine grows
    # with the frame's height, and its chips and button must keep their column.
    open_bench(page, f"{site_url}embed/{lang}/specdec/?chapter=draft&gamma=7&candidates=3&steps=2")
    found += sweep(page, f"{lang} embed", WINDOWS + [(390, 1400)], sheet=False)
    assert found == [], "\n".join(found)
