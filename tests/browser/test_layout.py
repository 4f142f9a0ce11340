"""The page fits a 360 px phone: nothing makes the reader scroll sideways, and no displayed
formula is wider than its box (it would scroll inside it, and look cut off at the edge)."""

import pytest

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("width", [360, 1280])
def test_no_horizontal_overflow(new_page, site_url, lang, width):
    page = new_page(viewport={"width": width, "height": 800})
    page.goto(f"{site_url}{lang}/specdec/")
    sizes = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert sizes[0] <= sizes[1], sizes
    wide = page.evaluate("""() => [...document.querySelectorAll('.math.block')]
        .filter((box) => box.scrollWidth > box.clientWidth)
        .map((box) => `${box.closest('section').id}: ${box.scrollWidth} px in ${box.clientWidth} px`)""")
    assert wide == [], wide
