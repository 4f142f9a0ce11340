"""Light and dark: the page, the bench and the embed follow the reader's setting, the
embed's theme= overrides it, the drawings change with it, keyboard focus and a chapter's highlight
stay distinct, and axe-core finds no serious or critical problem on the whole page or the embed,
in both languages and both themes.

The screenshots it takes (the page at 1,280 and 360 px, the embed at 700 px, each light and dark,
both languages) go to screenshots/ (git-ignored), for people to look at.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.benchpage import KeptPages, add_axe, embed_load, open_bench, without_python

pytestmark = [pytest.mark.browser, pytest.mark.long(35)]

REPO = Path(__file__).resolve().parents[2]
SHOTS = REPO / "screenshots"

ROUTES = {"page": ("{lang}/specdec/", {"width": 1280, "height": 900}), "embed": ("embed/{lang}/specdec/", {"width": 700, "height": 1000})}

# How dark the page's background is (relative luminance, 0 black to 1 white), and what the
# drawings and the two kinds of emphasis are painted with.
COLOURS = """() => {
    const probe = document.createElement('span');
    document.body.append(probe);
    const resolve = (value) => { probe.style.color = value; return getComputedStyle(probe).color; };
    const rgb = getComputedStyle(document.body).backgroundColor.match(/[\\d.]+/g).slice(0, 3).map(Number);
    const lin = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    const out = {
        luminance: 0.2126 * lin(rgb[0]) + 0.7152 * lin(rgb[1]) + 0.0722 * lin(rgb[2]),
        drum: getComputedStyle(document.querySelector('#b .b-drum-body')).fill,
        diagram: document.querySelector('.diagram .d-box') && getComputedStyle(document.querySelector('.diagram .d-box')).fill,
        focusRing: resolve('var(--focus-ring)'), highlight: resolve('var(--highlight)'),
    };
    probe.remove();
    return out;
}"""

# axe-core over `what` (a selector; the whole document when null).
AXE_RUN = """async (what) => (await axe.run(what ? document.querySelector(what) : document,
        { resultTypes: ['violations'] })).violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 4).map((n) => n.target.join(' ')).join(', ')}`)"""


def shot(page, name: str):
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


@pytest.fixture(scope="module")
def axe_page(live_pages):
    """The full page with axe-core in it (the session's: conftest.LivePages)."""
    return live_pages.for_module("axe", viewport=ROUTES["page"][1])


@pytest.fixture(scope="module")
def embed_pages(shared_contexts, site_url):
    """The live embed of each language at 700 px, with axe-core in it, kept for the module: the
    reader's colours are read on it, and the theme= option is loaded into it (one Python start per
    language)."""
    path, viewport = ROUTES["embed"]

    def open_embed(lang):
        page = shared_contexts.page(bypass_csp=True, viewport=viewport, reduced_motion="reduce")
        open_bench(page, site_url + path.format(lang=lang))
        add_axe(page)
        return page

    pages = KeptPages(open_embed)
    yield pages
    pages.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("route", ["page", "embed"])
def test_light_and_dark_with_axe(embed_pages, axe_page, route, lang):
    viewport = ROUTES[route][1]
    page = axe_page(lang) if route == "page" else embed_pages(lang)
    seen, problems = {}, {}
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        seen[scheme] = page.evaluate(COLOURS)
        problems[scheme] = page.evaluate(AXE_RUN, None)
        shot(page, f"{route}-{lang}-{scheme}-{viewport['width']}")
        if route == "page":  # a phone: the strip, then the bench opened over the text
            page.set_viewport_size({"width": 360, "height": 740})
            page.evaluate("() => document.getElementById('onebyone').scrollIntoView()")
            shot(page, f"{route}-{lang}-{scheme}-360")
            page.locator(".b-strip__open").click()
            page.wait_for_function("() => document.querySelector('.bench').dataset.sheet === 'open'")
            # the sheet is what the phone adds; the text around it was checked above
            problems[scheme + " (phone sheet)"] = page.evaluate(AXE_RUN, "#bench")
            shot(page, f"{route}-{lang}-{scheme}-360-bench")
            page.keyboard.press("Escape")
            page.set_viewport_size(viewport)
            page.evaluate("() => window.scrollTo(0, 0)")
    assert seen["light"]["luminance"] > 0.8 and seen["dark"]["luminance"] < 0.05, seen
    assert seen["light"]["drum"] != seen["dark"]["drum"]  # the machine's colours are variables too
    if route == "page":
        assert seen["light"]["diagram"] != seen["dark"]["diagram"]  # and the drawn figures'
    for scheme in ("light", "dark"):
        assert seen[scheme]["focusRing"] != seen[scheme]["highlight"], (scheme, seen[scheme])
    assert not any(problems.values()), problems


@pytest.mark.parametrize("theme,scheme", [("dark", "light"), ("light", "dark"), ("DARK", "light")])
def test_the_embeds_theme_overrides_the_readers_setting(new_page, embed_pages, site_url, theme, scheme):
    """Before Python starts, theme.js sets the theme for the first paint (a page whose Python is
    kept from starting); then the sim reads the link's option and the embed sets it (embed.js, on
    the reply to a load: the action the page's start sends with its address's query, sent here
    with the same query to the module's live embed, which holds no theme before each case: a
    reply whose option the embed did not apply would leave it without one)."""
    first = new_page(color_scheme=scheme, viewport=ROUTES["embed"][1])
    without_python(first)
    first.goto(f"{site_url}embed/en/specdec/?theme={theme}")
    dark = first.evaluate(COLOURS)["luminance"] < 0.05
    assert dark == (theme.lower() == "dark")
    page = embed_pages("en")
    page.emulate_media(color_scheme=scheme)
    assert page.locator("html").get_attribute("data-theme") is None
    try:
        embed_load(page, f"?theme={theme}")
        assert page.locator("html").get_attribute("data-theme") == theme.lower()  # as the sim read it
        assert (page.evaluate(COLOURS)["luminance"] < 0.05) == dark
    finally:  # the reader's own colours again, for the module's other tests (a failed case included)
        embed_load(page, "")
        page.emulate_media(color_scheme="null")


def test_the_axe_check_catches_a_real_problem(new_page, site_url):
    """Power check for the filter above: a nameless button and faint text are reported."""
    page = new_page(bypass_csp=True)
    page.goto(site_url)
    add_axe(page)
    page.evaluate("""() => document.body.insertAdjacentHTML('beforeend',
        '<main><button></button><p style="color:#9a9a9a;background:#a0a0a0">faint</p></main>')""")
    found = " ".join(page.evaluate(AXE_RUN, None))
    assert "button-name" in found and "color-contrast" in found, found
