"""The page fits a 360 px phone: nothing makes the reader scroll sideways."""

import pytest

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("width", [360, 1280])
def test_no_horizontal_overflow(new_page, site_url, lang, width):
    page = new_page(viewport={"width": width, "height": 800})
    page.goto(f"{site_url}{lang}/specdec/")
    sizes = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert sizes[0] <= sizes[1], sizes
