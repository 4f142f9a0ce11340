"""What the bench shows before Python is live, and that going live moves nothing.

A link that carries a state (`?temperature=0&steps=3`, the embed code "Embed this…" gives) first
paints that state's settings and its figures as pending, never the first picture's figures (the
default state's), which the build drew; the bench's start is said over the machine, not in the
head's flow, so the tabs and the readouts keep their place when it goes at go-live. The page's
worker is held (its script's request waits) until the first paint has been read, then let
through; the test waits for the bench's data-mode to become live, never for a time.
"""

from __future__ import annotations

import pytest
from helpers.benchpage import DEBUG_MODULE, LIVE, PYODIDE_TIMEOUT_MS, settle, without_python

pytestmark = [pytest.mark.browser, pytest.mark.long(12)]

LINK = "?temperature=0&steps=3"
# The places of what must not move: each tab, each row of the readouts, the machine, the column
# beside it and the tape's heading, the controls. Inside that column the tape gives up its room to
# the notes of the link's state that only Python knows (the greedy note, "3 passes ran at once"),
# so the tape's own height is not among them; the column's box is.
PLACES = """() => [...document.querySelectorAll('#b .b-tab, #b .b-readouts > div, #b .b-machine-panel, #b .b-rail, #b #b-tape-title, #b .b-controls')]
    .map((e) => { const r = e.getBoundingClientRect(); return [e.className, Math.round(r.x), Math.round(r.y), Math.round(r.width), Math.round(r.height)]; })"""
# The first picture's figures a reader could read: each one's words, and whether it is shown.
FIGURES = """() => [...document.querySelectorAll('#b :is(.b-alpha, .b-tpp-counted, .b-tpp-formula, .b-mal, .b-dar, .b-dar-formula, .b-speedup, .b-best-gamma, .b-tps-weights, .b-ar-value, .b-seed-value, .b-tape-count, .b-tape > li, .b-slot-text)')]
    .filter((e) => e.textContent.trim()).map((e) => { const s = getComputedStyle(e); return [e.className.baseVal ?? e.className, e.textContent.trim(),
        s.visibility !== 'hidden' && s.color !== 'rgba(0, 0, 0, 0)' && e.getClientRects().length > 0]; })"""
SETTINGS = """() => Object.fromEntries([...document.querySelectorAll('#b [data-setting]')].filter((i) => i.type !== 'radio' || i.checked)
    .map((i) => [i.dataset.setting, [i.value, getComputedStyle(i).visibility === 'visible']]))"""


def held_worker(page):
    """Hold the page's worker script until release() is called: the bench stays as first painted."""
    held = []
    page.route("**/sim-worker.js*", lambda route: held.append(route))

    def release():
        for route in held:
            route.continue_()
        page.unroute("**/sim-worker.js*")
    return release


def first_paint(page, url: str):
    """Open url with Python held back; returns the release. Waits until the bench's script has run
    (its start is said in the status box) and the fonts are in, so that places are final."""
    release = held_worker(page)
    page.goto(url)
    page.wait_for_selector("#b .b-status:not([hidden]) .b-status__text:not(:empty)", state="attached")
    page.evaluate("() => document.fonts.ready")
    return release


def test_going_live_moves_nothing_and_a_link_first_paints_its_own_state(new_page, site_url):
    """One Python start (each costs seconds of the processor), at the window where the start's box
    moved the most (49 px in English at 1366 x 768), with a link that carries a state; the plain
    page's first paint is the next test's."""
    page = new_page(viewport={"width": 1366, "height": 768})
    release = first_paint(page, f"{site_url}en/specdec/{LINK}")
    before = page.evaluate(PLACES)
    figures = page.evaluate(FIGURES)
    # The link's settings, and none of the first picture's figures shown; busy for assistive technology.
    assert page.evaluate("() => document.documentElement.dataset.benchLink || null") == "pending"
    assert page.evaluate(SETTINGS)["temperature"] == ["0", True]
    assert [f for f in figures if f[2]] == []
    assert page.locator("#b").get_attribute("aria-busy") == "true"
    release()
    page.wait_for_selector(LIVE, timeout=PYODIDE_TIMEOUT_MS, state="attached")
    settle(page)
    assert page.evaluate(PLACES) == before
    assert page.evaluate("() => document.documentElement.dataset.benchLink || null") is None
    assert page.locator("#b").get_attribute("aria-busy") is None
    live = page.evaluate(FIGURES)
    assert all(shown for _, _, shown in live), live
    state = page.evaluate("() => window.specdecBench.getState()")
    assert state["bench"]["settings"]["temperature"] == 0 and state["bench"]["steps"] == 3
    alpha = page.evaluate(f"async () => (await import({DEBUG_MODULE})).format.num(window.specdecBench.getState().view.readouts.alpha, 3)")
    assert page.locator("#b .b-alpha").text_content() == alpha
    # The first picture's α was not the link's: pending hid a figure that differed.
    assert dict((c, t) for c, t, _ in figures)["b-num b-alpha"] != alpha
    assert page.evaluate(SETTINGS)["temperature"] == ["0", True]
    assert not page.console_errors, page.console_errors


def test_the_settings_menus_stay_inside_the_play_rows_box(new_page, site_url):
    """In a wide window tall enough to show the settings beside the machine (1920 x 1080; lower, they
    fold behind their button: frames.css) their columns are narrow: the draft's and the prompt's
    menus, their longest option chosen, stay inside the controls' box (the prompt's ran 56 px past
    the window). As a free draft shows the prompt's menu at go-live, so here with Python held back."""
    page = new_page(viewport={"width": 1920, "height": 1080})
    first_paint(page, f"{site_url}en/specdec/")
    page.evaluate("""() => {
        document.querySelector('#b .b-field--prompt').hidden = false;
        for (const s of document.querySelectorAll('#b :is(.b-field--draft, .b-field--prompt) select'))
            s.selectedIndex = [...s.options].reduce((a, o, i) => o.text.length > s.options[a].text.length ? i : a, 0);
    }""")
    box = page.locator("#b .b-controls").bounding_box()
    for menu in page.locator("#b :is(.b-field--draft, .b-field--prompt) select").all():
        shown = menu.bounding_box()
        assert shown["x"] + shown["width"] <= box["x"] + box["width"] + 0.5, (menu.get_attribute("data-setting"), shown, box)


@pytest.mark.parametrize("path, pending", [
    ("embed/en/specdec/?draft=bigram&gamma=2&candidates=1&temperature=1&chapter=draft", True),  # a state the reader changed
    # The embed code of the untouched bench: the first picture's own link, drawn by the build.
    ("embed/zh/specdec/?draft=bigram&gamma=4&candidates=1&temperature=1&top_p=1&batch=1&seed=1&rule=exact"
     "&gpu=h100-sxm&model=llama-3.1-8b&steps=1&rounds=1&chapter=draft&theme=dark", False),
    ("en/specdec/?gamma=4&temperature=1&chapter=03-draft&utm_source=x", False),  # the first picture's values, other names
    ("en/specdec/?greedy=1", True),  # an old parameter: the sim says what it sets
    ("zh/specdec/?temperature=0.70", True),  # a spelling only the sim reads: the settings wait too
])
def test_a_link_is_pending_only_where_its_state_is_not_the_first_pictures(new_page, site_url, path, pending):
    page = new_page(viewport={"width": 1366, "height": 768})
    without_python(page)
    page.goto(f"{site_url}{path}")
    page.wait_for_selector("#b .b-status:not([hidden])", state="attached")
    assert page.evaluate("() => document.documentElement.dataset.benchLink || null") == ("pending" if pending else None)
    figures = page.evaluate(FIGURES)
    assert [f for f in figures if f[2]] == [] if pending else all(shown for _, _, shown in figures)
    settings = page.evaluate(SETTINGS)
    if path.startswith("embed/"):
        assert settings["gamma"] == (["2", True] if pending else ["4", True])
    if "0.70" in path or "greedy" in path:
        assert not settings["temperature"][1]  # hidden until the sim has read the link
