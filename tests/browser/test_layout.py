"""The page fits a phone: nothing makes the reader scroll sideways, and no displayed formula is
wider than its box (it would scroll inside it, and look cut off at the edge). What may scroll
sideways, a chapter's table wider than the column, scrolls in a region the keyboard reaches
(WCAG 2.1.1): axe-core finds no scrollable region out of the keyboard's reach, Tab stops on the
table's region, with the site's focus ring, and the arrow keys scroll it."""

import pytest
from helpers.benchpage import KeptPages, add_axe, without_python

pytestmark = pytest.mark.browser

PHONES = [{"width": 390, "height": 844}, {"width": 360, "height": 740}]


@pytest.fixture(scope="module")
def text_pages(shared_contexts, site_url):
    """text_pages(lang): the page's text and the bench's picture as the build drew them (no
    Python), every chapter drawn and axe-core in it (benchpage.add_axe: its context bypasses the
    CSP), one page per language shared by this module's tests."""
    def open_page(lang):
        page = shared_contexts.page(viewport=PHONES[1], reduced_motion="reduce", bypass_csp=True)
        without_python(page)
        page.goto(f"{site_url}{lang}/specdec/")
        add_axe(page)
        return page

    pages = KeptPages(open_page)
    yield pages
    pages.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_horizontal_overflow(text_pages, lang):
    page = text_pages(lang)
    for width in (360, 1280):
        page.set_viewport_size({"width": width, "height": 800})
        check_no_overflow(page)


# Each prediction's question (a fieldset's legend of two or three lines on a phone) and how far it
# sits below its box's top edge, against the box's border and padding there.
LEGENDS = """() => [...document.querySelectorAll('.try__predict')].map((box) => {
    const legend = box.querySelector('legend'), s = getComputedStyle(box);
    return [box.closest('section').id, legend.getBoundingClientRect().top - box.getBoundingClientRect().top,
            parseFloat(s.borderTopWidth) + parseFloat(s.paddingTop)];
})"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_predictions_question_sits_inside_its_box(text_pages, lang):
    """A legend drawn across its fieldset's top border wraps on a phone with its first line above
    the border and the next inside the box, starting further left: the question is the box's
    first line instead, below its border and padding."""
    page = text_pages(lang)
    page.set_viewport_size(PHONES[1])
    legends = page.evaluate(LEGENDS)
    assert legends and [(id, top) for id, top, inset in legends if top < inset - 0.5] == []


def check_no_overflow(page):
    sizes = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert sizes[0] <= sizes[1], (page.viewport_size, sizes)
    wide = page.evaluate("""() => [...document.querySelectorAll('.math.block')]
        .filter((box) => box.scrollWidth > box.clientWidth)
        .map((box) => `${box.closest('section').id}: ${box.scrollWidth} px in ${box.clientWidth} px`)""")
    assert wide == [], (page.viewport_size, wide)


# axe-core's rule for what scrolls with no way in from the keyboard (WCAG 2.1.1).
AXE_SCROLLABLE = """async () => (await axe.run(document, { runOnly: ['scrollable-region-focusable'] }))
    .violations.flatMap((v) => v.nodes.map((n) => n.target.join(' ')))"""

# Everything in the text that scrolls sideways now, and the chapter's table region that scrolls
# furthest, marked (data-scrolls) with the control before it in the tab order focused, so that the
# next Tab is the reader's step onto it.
SIDEWAYS = """() => {
    const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility === 'visible';
    const scrolls = (e) => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX) && e.scrollWidth > e.clientWidth + 1;
    const all = [...document.querySelectorAll('.layout > :not(.bench) *')].filter((e) => shown(e) && scrolls(e));
    const regions = all.filter((e) => e.matches('.table-scroll')).sort((a, b) => (b.scrollWidth - b.clientWidth) - (a.scrollWidth - a.clientWidth));
    for (const e of document.querySelectorAll('[data-scrolls]')) delete e.dataset.scrolls;
    if (regions.length) {
        const region = regions[0];
        region.scrollLeft = 0;
        region.dataset.scrolls = '';
        const focusable = [...document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex="-1"])')]
            .filter((e) => shown(e) && !e.disabled && (e.compareDocumentPosition(region) & Node.DOCUMENT_POSITION_FOLLOWING));
        focusable.at(-1).focus();
    }
    return all.map((e) => `${e.tagName.toLowerCase()}.${e.className} in #${e.closest('section').id}: ${e.scrollWidth} px in ${e.clientWidth} px`);
}"""

# What the focused element is and how its focus is drawn, against the site's focus ring.
FOCUSED = """() => {
    const e = document.activeElement, s = getComputedStyle(e);
    const probe = document.createElement('span');
    probe.style.color = 'var(--focus-ring)';
    document.body.append(probe);
    const ring = getComputedStyle(probe).color;
    probe.remove();
    return { scrolls: 'scrolls' in e.dataset, role: e.getAttribute('role'), name: e.getAttribute('aria-label'),
             ring: s.outlineStyle === 'solid' && s.outlineWidth === '3px' && s.outlineColor === ring };
}"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_what_scrolls_sideways_is_reached_and_scrolled_from_the_keyboard(text_pages, lang):
    """At each phone size, axe-core over the whole text (every chapter drawn) finds nothing that
    scrolls out of the keyboard's reach, and only the chapters' table regions scroll sideways.
    Where one does, Tab from the control before it stops on it, named and ringed as every focus
    is, and ArrowRight scrolls it."""
    page = text_pages(lang)
    stepped = []
    for size in PHONES:
        page.set_viewport_size(size)
        page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
        assert page.evaluate(AXE_SCROLLABLE) == [], size
        sideways = page.evaluate(SIDEWAYS)
        assert all(s.startswith("div.table-scroll ") for s in sideways), (size, sideways)
        if not sideways or stepped:
            continue
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED)
        assert focused["scrolls"] and focused["role"] == "region" and focused["name"], (size, focused)
        assert focused["ring"], (size, focused)
        page.keyboard.press("ArrowRight")
        page.wait_for_function("() => document.querySelector('[data-scrolls]').scrollLeft > 0")
        stepped.append((size, sideways))
    # A table wider than a phone: en's at both sizes, zh's at 360 px (if none were, nothing above
    # would have pressed a key).
    assert stepped, "no table scrolls sideways at either phone size"
