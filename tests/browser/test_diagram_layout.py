"""The drawn figures as a reader meets them: legible on a phone, every label inside its
picture and clear of the others, in both languages."""

import pytest
from helpers.benchpage import KeptPages, without_python

pytestmark = pytest.mark.browser

MIN_TEXT_PX = 12

# For each diagram: its rendered width, the smallest rendered font size, and every text
# box (in the SVG's own units) with the viewBox it must stay inside.
MEASURE = """() => [...document.querySelectorAll('figure.diagram svg')].map(svg => {
  const box = svg.viewBox.baseVal;
  const scale = svg.getBoundingClientRect().width / box.width;
  const texts = [...svg.querySelectorAll('text')].map(t => {
    const b = t.getBBox();
    return {text: t.textContent, x: b.x, y: b.y, w: b.width, h: b.height,
            px: parseFloat(getComputedStyle(t).fontSize) * scale};
  });
  return {id: svg.parentElement.id, width: box.width, height: box.height, scale, texts,
          caption: svg.parentElement.querySelector('figcaption').textContent};
})"""


def _overlap(a, b, slack=1.0):
    return (a["x"] + slack < b["x"] + b["w"] and b["x"] + slack < a["x"] + a["w"]
            and a["y"] + slack < b["y"] + b["h"] and b["y"] + slack < a["y"] + a["h"])


@pytest.fixture(scope="module")
def chapter_pages(shared_contexts, site_url):
    """One page per language, resized by each test (the figures are drawn from CSS, not at load)."""
    def open_page(lang):
        page = shared_contexts.page()
        without_python(page)  # the figures are the text's
        page.goto(f"{site_url}{lang}/specdec/")
        page.evaluate("document.fonts.ready")
        return page

    pages = KeptPages(open_page)
    yield pages
    pages.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("width", [360, 1280])
def test_diagrams_are_legible_and_their_labels_fit(chapter_pages, lang, width):
    page = chapter_pages(lang)
    page.set_viewport_size({"width": width, "height": 900})
    figures = page.evaluate(MEASURE)
    assert {f["id"] for f in figures} == {"diagram-medusa", "diagram-eagle", "diagram-lookahead"}
    for fig in figures:
        assert fig["caption"].strip(), fig["id"]
        for t in fig["texts"]:
            where = f"{lang} {width}px {fig['id']}: {t['text']!r}"
            assert t["px"] >= MIN_TEXT_PX, f"{where} renders at {t['px']:.1f} px"
            assert t["x"] >= 0 and t["x"] + t["w"] <= fig["width"], f"{where} leaves the picture sideways"
            assert t["y"] >= 0 and t["y"] + t["h"] <= fig["height"], f"{where} leaves the picture"
        texts = fig["texts"]
        for i, a in enumerate(texts):
            for b in texts[i + 1:]:
                assert not _overlap(a, b), f"{lang} {fig['id']}: {a['text']!r} overlaps {b['text']!r}"


def test_a_failing_layout_is_caught(new_page, site_url):
    """Power check: the same measurement flags a label pushed off the picture and text shrunk."""
    page = new_page(viewport={"width": 360, "height": 900})
    without_python(page)
    page.goto(f"{site_url}en/specdec/")
    page.evaluate("""() => {
      const t = document.querySelector('#diagram-medusa text');
      t.setAttribute('x', '300'); t.setAttribute('text-anchor', 'start');
      t.querySelector('tspan').setAttribute('x', '300');
      document.querySelector('#diagram-eagle text').style.fontSize = '9px';
    }""")
    figures = {f["id"]: f for f in page.evaluate(MEASURE)}
    medusa = figures["diagram-medusa"]
    assert any(t["x"] + t["w"] > medusa["width"] for t in medusa["texts"])
    assert min(t["px"] for t in figures["diagram-eagle"]["texts"]) < MIN_TEXT_PX
