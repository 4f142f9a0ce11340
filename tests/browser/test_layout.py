"""The page fits a 360 px phone: nothing makes the reader scroll sideways, and no displayed
formula is wider than its box (it would scroll inside it, and look cut off at the edge)."""

import pytest
from helpers.benchpage import without_python

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_horizontal_overflow(new_page, site_url, lang):
    page = new_page(viewport={"width": 360, "height": 800})
    without_python(page)  # the text and the bench's picture as the build drew them
    page.goto(f"{site_url}{lang}/specdec/")
    for width in (360, 1280):
        page.set_viewport_size({"width": width, "height": 800})
        check_no_overflow(page)


def check_no_overflow(page):
    sizes = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert sizes[0] <= sizes[1], (page.viewport_size, sizes)
    wide = page.evaluate("""() => [...document.querySelectorAll('.math.block')]
        .filter((box) => box.scrollWidth > box.clientWidth)
        .map((box) => `${box.closest('section').id}: ${box.scrollWidth} px in ${box.clientWidth} px`)""")
    assert wide == [], (page.viewport_size, wide)
