"""The bench as the page's hero on every real screen: one parametrised test over a
matrix of windows and both languages, in light (and in dark for two of the windows: DARK_FRAMES).

In every frame the machine's drawing is on screen at chapter 01 and after scrolling to chapter
09, its smallest lettering renders at 12 px or more (font size times the drawing's screen scale),
the document never scrolls sideways, and, beside the text, nothing inside the bench scrolls. At
1920 x 940 the machine takes at least 40% of the window's width. Then every tab is opened in turn
in the same page (on a phone, in the bench's sheet): every drawing's lettering is 12 px or more
and, beside the text, the open panel ends inside the window, nothing scrolls, and no text or
control of the bench has another box drawn over it (tests/helpers/clipcheck.py's COVERED; read in
light, as the scheme moves no box). The frames show the default state; a link with a state (three
greedy passes) is read beside the text at 1366 x 657 and 1920 x 940 with its readouts open, with
all of clipcheck.CLIPPED; and a box laid over Play, or over a word of the machine, shows that
COVERED finds a cover (and not the same box made clear).

Cheap by design: one live page per language and kind of device (desktop, or phone with touch),
resized from frame to frame and switched between colour schemes, so Python starts four times."""

from __future__ import annotations

import pytest
from helpers.benchpage import KeptPages, open_bench, reset, run, to_chapter
from helpers.clipcheck import COVERED, FRAMES as DRAWN, SCOPE, cut

pytestmark = pytest.mark.browser

MIN_PX = 12
PHONES = [(360, 740), (390, 844)]
OTHERS = [(820, 1180), (1024, 768), (1280, 800), (1280, 900), (1366, 657), (1440, 790), (1536, 730), (1920, 940)]
FRAMES = [(w, h, True) for w, h in PHONES] + [(w, h, False) for w, h in OTHERS]
BESIDE_THE_TEXT = {"width": 900, "height": 560}  # frames.css: the bench beside the text from here

# The controls of the bench's link row (the link to the bench's state, the embed button).
TAP_TARGETS = ("#b .b-share a", "#b .b-share button")

# The machine drawing the reader sees (the bench's machine, or on a phone the compact one), its
# box, the smallest size its lettering renders at, and what scrolls where it should not.
MEASURE = """() => {
    const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility === 'visible';
    const svg = [...document.querySelectorAll('svg.b-machine')].find((s) => shown(s) && s.getBoundingClientRect().width > 0);
    const out = { sw: document.documentElement.scrollWidth, iw: innerWidth, ih: innerHeight, machine: null, smallest: null, labels: 0, name: null };
    if (svg) {
        const r = svg.getBoundingClientRect();
        out.machine = { top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width, height: r.height };
        const scale = r.width / svg.viewBox.baseVal.width;
        for (const t of svg.querySelectorAll('text')) {
            if (!t.textContent.trim() || !shown(t)) continue;
            const px = parseFloat(getComputedStyle(t).fontSize) * scale;
            out.labels += 1;
            out.smallest = out.smallest === null ? px : Math.min(out.smallest, px);
        }
    }
    // The machine drawn small (phones) carries no lettering: the bar names its part in one line.
    const name = document.querySelector('.b-strip__part');
    if (name && shown(name)) {
        const bar = document.querySelector('.b-strip').getBoundingClientRect();
        const lines = name.getBoundingClientRect().height / parseFloat(getComputedStyle(name).lineHeight);
        out.name = { px: parseFloat(getComputedStyle(name).fontSize), lines, text: name.textContent, barBottom: bar.bottom };
    }
    const scrolls = (e) => {
        const s = getComputedStyle(e);
        return (['auto', 'scroll'].includes(s.overflowY) && e.scrollHeight > e.clientHeight + 1)
            || (['auto', 'scroll'].includes(s.overflowX) && e.scrollWidth > e.clientWidth + 1);
    };
    out.scrolling = [...document.querySelectorAll('.layout .bench, .layout .bench *')].filter(scrolls)
        .map((e) => e.className || e.tagName);
    // The bench's link row: each control a tap target of 24 x 24 px or more (WCAG 2.5.8). The link
    // is small print between other controls, with too little room around it to be smaller
    // (Lighthouse's axe-core: target-size).
    out.smallTargets = [...document.querySelectorAll(TAP_TARGETS)].filter(shown).map((e) => [e, e.getBoundingClientRect()])
        .filter(([, r]) => r.width > 0 && (r.width < 23.95 || r.height < 23.95))
        .map(([e, r]) => `${e.className || e.textContent.trim()}: ${r.width.toFixed(1)} x ${r.height.toFixed(1)}`);
    return out;
}""".replace("TAP_TARGETS", repr(", ".join(TAP_TARGETS)))


# Each tab opened in turn through the bench's API: the smallest lettering of every drawing shown
# in the bench (font size times the drawing's scale on screen, padding and letterboxing included),
# where the open panel ends, what scrolls inside the bench, and, given the bench's scope
# (clipcheck.SCOPE: beside the text, in light), every text or control of it another box is drawn
# over (clipcheck.COVERED: the rail squeezed under the Play row's box, say).
EVERY_TAB = """async (scope) => {
    const covered = COVERED;
    const b = document.getElementById('b');
    const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility === 'visible';
    const scrolls = (e) => {
        const s = getComputedStyle(e);
        return (['auto', 'scroll'].includes(s.overflowY) && e.scrollHeight > e.clientHeight + 1)
            || (['auto', 'scroll'].includes(s.overflowX) && e.scrollWidth > e.clientWidth + 1);
    };
    const out = [];
    for (const panel of [...b.querySelectorAll('[role=tabpanel]')].map((p) => p.dataset.panel)) {
        await window.specdecBench.dispatch({ type: 'open_panel', panel, quiet: true });
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        // A control a box with hidden overflow cuts (the link row under the tape): what a
        // reader can tab to but not see or click. (The skip link parked off screen is not one.)
        const cut = [...b.querySelectorAll('a[href], button, select, input, summary, textarea')].filter((c) => {
            if (!c.checkVisibility() || c.getBoundingClientRect().right < 0) return false;
            const r = c.getBoundingClientRect();
            for (let a = c.parentElement; a && a !== b.parentElement; a = a.parentElement) {
                const s = getComputedStyle(a);
                if (![s.overflowX, s.overflowY].some((o) => o === 'hidden' || o === 'clip')) continue;
                const box = a.getBoundingClientRect();
                if (r.bottom > box.bottom + 0.5 || r.top < box.top - 0.5 || r.right > box.right + 0.5 || r.left < box.left - 0.5) return true;
            }
            return false;
        }).map((c) => c.className || c.textContent.trim().slice(0, 30));
        const got = { panel, cut, covered: scope ? covered(scope) : [], smallest: null, where: null,
                      bottom: b.querySelector(`#b-panel-${panel}`).getBoundingClientRect().bottom,
                      scrolling: [...document.querySelectorAll('.layout .bench, .layout .bench *')]
                          .filter((e) => e.checkVisibility() && scrolls(e)).map((e) => e.className || e.tagName) };
        for (const svg of b.querySelectorAll('svg')) {
            if (!shown(svg) || !svg.getScreenCTM()) continue;
            const scale = Math.hypot(svg.getScreenCTM().a, svg.getScreenCTM().b);
            for (const t of svg.querySelectorAll('text')) {
                if (!t.textContent.trim() || !shown(t)) continue;
                const px = parseFloat(getComputedStyle(t).fontSize) * scale;
                if (got.smallest === null || px < got.smallest) { got.smallest = px; got.where = `${svg.getAttribute('class')}: ${t.textContent}`; }
            }
        }
        out.push(got);
    }
    await window.specdecBench.dispatch({ type: 'open_panel', panel: 'readouts', quiet: true });
    return out;
}""".replace("COVERED", COVERED)


@pytest.fixture(scope="module")
def matrix_pages(shared_contexts, site_url):
    """One live page per (language, phone or not), resized by each test. The module's own, not the
    session's (conftest.LivePages): a page keeps the heights its chapters had when last drawn
    (content-visibility), at whatever width that was, and a page drawn at other widths by earlier
    modules lands a jump to a chapter elsewhere than a first visit does."""
    def open_page(key):
        lang, phone = key.split(":")
        options = {"is_mobile": True, "has_touch": True} if phone == "phone" else {}
        page = shared_contexts.page(reduced_motion="reduce", **options)
        open_bench(page, f"{site_url}{lang}/specdec/")
        return page

    pages = KeptPages(open_page)
    yield pages
    pages.close()


# Every frame in light; in dark a phone and the shortest laptop window. The scheme changes colours
# and nothing else (every colour is a light-dark() variable; no rule or script reads the scheme:
# tests/sitebuild/test_colour_scheme.py), so what is measured here, sizes and places, is the same
# in both; the dark frames show it (and test_themes.py checks the dark colours with axe-core).
DARK_FRAMES = [(360, 740, True), (1366, 657, False)]
CASES = [(w, h, phone, lang, scheme) for scheme, frames in (("light", FRAMES), ("dark", DARK_FRAMES))
         for w, h, phone in frames for lang in ("en", "zh")]


@pytest.mark.parametrize("width,height,phone,lang,scheme", CASES, ids=[f"{w}x{h}-{lang}-{s}" for w, h, _, lang, s in CASES])
def test_the_machine_is_on_screen_and_legible_in_every_frame(matrix_pages, lang, scheme, width, height, phone):
    page = matrix_pages(f"{lang}:{'phone' if phone else 'desk'}")
    page.set_viewport_size({"width": width, "height": height})
    page.emulate_media(color_scheme=scheme)
    beside = width >= BESIDE_THE_TEXT["width"] and height >= BESIDE_THE_TEXT["height"]
    for chapter in ("onebyone", "idle"):
        to_chapter(page, chapter)
        if chapter == "idle":
            page.wait_for_function("() => document.getElementById('b').dataset.focus === 'mill'")
        got = page.evaluate(MEASURE)
        where = f"{lang} {scheme} {width}x{height} at {chapter}"
        m = got["machine"]
        assert m is not None, f"{where}: no machine drawing on screen"
        assert m["top"] >= -0.5 and m["bottom"] <= got["ih"] + 0.5 and m["left"] >= -0.5 and m["right"] <= got["iw"] + 0.5, (where, m)
        assert got["sw"] <= got["iw"], (where, got["sw"], got["iw"])
        assert got["smallTargets"] == [], (where, got["smallTargets"])
        if beside:
            assert got["labels"] > 0 and got["smallest"] >= MIN_PX - 0.05, (where, got["smallest"])  # lettered, 12 px up
            assert got["scrolling"] == [], (where, got["scrolling"])
        else:
            # The machine drawn small at the top: 180 px tall or more, no lettering under 12 px
            # (here none), its part named in one line of 12 px or more, 60% of the screen for text.
            assert m["height"] >= 180 and m["top"] >= -0.5, (where, m)
            assert got["smallest"] is None or got["smallest"] >= MIN_PX - 0.05, (where, got["smallest"])
            name = got["name"]
            assert name and name["px"] >= MIN_PX and name["lines"] < 1.5 and name["text"].strip(), (where, name)
            assert name["barBottom"] <= 0.4 * got["ih"] and m["bottom"] <= name["barBottom"], (where, name, m)
            if chapter == "idle":
                mill = page.evaluate("() => document.getElementById('b-part-mill-label').textContent")
                assert name["text"] == mill, (where, name)  # chapter 09's part
        if (width, height) == (1920, 940):
            assert m["width"] >= 0.4 * width, (where, m["width"])
    if not beside:  # the tabs are in the bench's sheet
        page.locator(".b-strip__open").click()
        page.wait_for_function("() => document.querySelector('.bench').dataset.sheet === 'open'")
    tabs = page.evaluate(EVERY_TAB, SCOPE if beside and scheme == "light" else None)
    if not beside:
        page.locator("#b .b-sheet-close").click()
        page.wait_for_function("() => document.querySelector('.bench').dataset.sheet === 'closed'")
    where = f"{lang} {scheme} {width}x{height}"
    for tab in tabs:
        assert tab["smallest"] is not None and tab["smallest"] >= MIN_PX - 0.05, (where, tab)
        if beside:
            assert tab["bottom"] <= height + 0.5 and tab["scrolling"] == [] and tab["cut"] == [], (where, tab["panel"], tab["bottom"], tab["scrolling"], tab["cut"])
    covered = [f"{where} {tab['panel']}: {line}" for tab in tabs for line in tab["covered"]]
    assert covered == [], "\n".join(covered)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_focus_mode_fills_the_window_and_escape_returns_to_the_same_place(matrix_pages, lang):
    page = matrix_pages(f"{lang}:desk")
    page.set_viewport_size({"width": 1366, "height": 657})
    page.emulate_media(color_scheme="light")
    to_chapter(page, "idle")
    scrolled = page.evaluate("() => scrollY")
    before = page.locator("#b svg.b-machine").bounding_box()["width"]
    page.locator("#b .b-fill").click()
    page.wait_for_function("() => document.querySelector('.bench').dataset.fill === 'on'")
    box = page.evaluate("() => document.querySelector('.bench').getBoundingClientRect().toJSON()")
    assert (box["left"], box["top"], box["width"], box["height"]) == (0, 0, 1366, 657), box  # the whole window
    after = page.locator("#b svg.b-machine").bounding_box()
    assert after["width"] >= 1.5 * before and after["y"] + after["height"] <= 657, (before, after)
    assert page.locator(".layout .article").evaluate("a => a.inert")  # the text behind is out of reach
    assert page.locator("#b .b-fill").get_attribute("aria-pressed") == "true"
    assert page.evaluate(MEASURE)["scrolling"] == []
    page.keyboard.press("Escape")
    page.wait_for_function("() => document.querySelector('.bench').dataset.fill === 'off'")
    assert page.evaluate("() => scrollY") == scrolled  # the same place in the text
    assert page.evaluate("() => document.activeElement.classList.contains('b-fill')")  # and focus
    assert not page.locator(".layout .article").evaluate("a => a.inert")


@pytest.mark.parametrize("height", [657, 768])
def test_on_a_short_window_the_settings_open_over_the_machine_and_fold_back(matrix_pages, height):
    """Open, the settings cover the machine and the tape, never the open panel (the readouts they
    change stay in view while γ moves) nor their own button."""
    page = matrix_pages("en:desk")
    page.set_viewport_size({"width": 1366, "height": height})
    page.emulate_media(color_scheme="dark")
    to_chapter(page, "onebyone")
    gamma = page.locator("#b input[name=gamma]")
    assert gamma.is_hidden()  # folded behind one button
    toggle = page.locator("#b .b-settings-toggle")
    toggle.click()
    assert toggle.get_attribute("aria-expanded") == "true"
    box = page.locator("#b .b-settings").bounding_box()
    assert gamma.is_visible() and box["y"] >= 0 and box["y"] + box["height"] <= height, box
    button = toggle.bounding_box()
    assert box["y"] + box["height"] <= button["y"], (box, button)  # above their button
    panel = page.locator("#b .b-tabpanel:not([hidden])").bounding_box()
    assert box["y"] + box["height"] <= panel["y"], (box, panel)  # the open panel in view
    alpha = page.locator("#b .b-readouts dd").first.bounding_box()
    assert alpha["y"] + alpha["height"] <= height, alpha
    gamma.focus()
    page.keyboard.press("Escape")
    assert gamma.is_hidden() and page.evaluate("() => document.activeElement.classList.contains('b-settings-toggle')")
    page.set_viewport_size({"width": 1366, "height": 900})
    assert gamma.is_visible() and toggle.is_hidden()  # a taller window shows them all the time


SMALLEST_TEXT = """() => {
    // Every element of the article that holds text of its own (a citation's number, a formula's
    // exponent), with its computed size: the lettering floor holds in the text as in the bench.
    const small = [];
    for (const e of document.querySelectorAll('.article *')) {
        const own = [...e.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
        if (!own || !e.getClientRects().length) continue;
        const px = parseFloat(getComputedStyle(e).fontSize);
        if (px < 12 - 0.05) small.push(`${e.tagName.toLowerCase()}.${e.className} ${e.textContent.trim().slice(0, 12)}: ${px}px`);
    }
    return small;
}"""


@pytest.mark.parametrize("key", ["en:desk", "zh:phone"])
def test_no_word_of_the_text_is_under_12_px(matrix_pages, key):
    """Citations, formulas' scripts and notes included. The text's sizes are in rem and em, not in
    the viewport, so one desk and one phone page suffice (the phone's smaller root is the worst)."""
    page = matrix_pages(key)
    assert page.evaluate(SMALLEST_TEXT) == []


TAPE = """() => {
    const tape = document.querySelector('#b .b-tape'), box = tape.getBoundingClientRect();
    const shown = [...tape.children].filter((li) => !li.classList.contains('b-tape-cut'));
    const rect = (li) => li.getBoundingClientRect();
    return { fits: tape.hasAttribute('data-fits'), top: box.top + tape.clientTop, bottom: box.bottom - tape.clientTop,
             first: rect(tape.firstElementChild).top, last: rect(tape.lastElementChild).bottom,
             shown: shown.map((li) => [Math.round(rect(li).top), rect(li).left]) };
}"""


def test_beside_the_text_the_tape_starts_at_the_top_and_keeps_its_newest_row(matrix_pages):
    """A short tape sits at the top of its box, as text does; a long one keeps its newest row on
    the bottom edge and cuts its oldest rows whole; both read in the text's order."""
    page = matrix_pages("en:desk")
    page.set_viewport_size({"width": 1366, "height": 657})
    reset(page)
    short = page.evaluate(TAPE)
    assert short["fits"] and short["first"] - short["top"] < 12, short
    reset(page, "?steps=60")
    long = page.evaluate(TAPE)
    assert not long["fits"] and long["bottom"] - 12 < long["last"] <= long["bottom"] + 0.5, long
    # No older row is shown cut (the newest stays even where the box is shorter than a row).
    newest = long["shown"][-1][0]
    assert all(top >= long["top"] - 0.5 for top, _ in long["shown"] if top != newest), repr(long)
    for tape in (short, long):
        assert tape["shown"] == sorted(tape["shown"]), tape
    reset(page)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_link_with_a_state_shows_its_readouts_whole_beside_the_text(matrix_pages, lang):
    """A link with a state (three greedy passes: their notes in the tape and the readouts' longer
    lines) opens the Readouts beside the text in the shortest laptop window and a monitor's:
    nothing cut, drawn over or squeezed (clipcheck.CLIPPED), the Play row's box over the rail
    included. The frames above open the default state only."""
    page = matrix_pages(f"{lang}:desk")
    page.emulate_media(color_scheme="light")
    query = "?temperature=0&steps=3"
    reset(page, query)
    run(page, [{"type": "open_panel", "panel": "readouts"}])
    found = []
    for width, height in [(1366, 657), (1920, 940)]:
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate(DRAWN)
        found += cut(page, SCOPE, f"{lang} {query} readouts {width}x{height}")
    reset(page)
    assert found == [], "\n".join(found)


# A box as large as the element `selector` names, laid over it from outside the bench (fixed, as a
# bar over the page would be), with the colour given.
OVER = """([selector, colour]) => {
    const under = document.querySelector(selector).getBoundingClientRect();
    const box = Object.assign(document.createElement('div'), { className: 'over-it' });
    box.style.cssText = `position: fixed; z-index: 99; left: ${under.left}px; top: ${under.top}px; width: ${under.width}px; height: ${under.height}px; background: ${colour}`;
    document.body.append(box);
}"""


def test_the_cover_check_finds_a_box_over_play_or_a_word_of_the_machine_and_not_a_clear_one(matrix_pages):
    """clipcheck.COVERED's power, kept where the bench itself shows no cover: a red box over Play,
    or over the machine's name for its tape (a word of a drawing, covered by a box outside it), is
    found; the same box transparent (it draws nothing) is not."""
    page = matrix_pages("en:desk")
    page.set_viewport_size({"width": 1366, "height": 768})
    page.emulate_media(color_scheme="light")
    before = page.evaluate(COVERED, SCOPE)
    for selector, named in (("#b .b-play", "span.b-play__label"), ("#b-part-tape-label", "text.b-label")):
        found = {}
        for colour in ("rgb(255, 0, 0)", "transparent"):
            page.evaluate(OVER, [selector, colour])
            found[colour] = [line for line in page.evaluate(COVERED, SCOPE) if line not in before]
            page.evaluate("() => document.querySelector('.over-it').remove()")
        assert any(line.startswith(named) and "under div.over-it" in line for line in found["rgb(255, 0, 0)"]), (selector, found)
        assert found["transparent"] == [], (selector, found)
