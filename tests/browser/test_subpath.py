"""The site hosted under a sub-path, as a course server would (https://example.org/courses/specdec/):
built with that base URL, served at /courses/specdec/ with the production headers, and used as
a reader would: the bench runs a step in Pyodide, the links and the 404 page stay inside, and
no request leaves the sub-path or the origin."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from helpers.benchpage import without_python
from helpers.loopback import LoopbackSite
from helpers.page_requests import requests_until_now
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

PYODIDE_TIMEOUT_MS = 90_000


@pytest.fixture(scope="module")
def sub_url(base_url_site, published_at):
    prefix = urlsplit(published_at).path
    with LoopbackSite(base_url_site, prefix=prefix) as served:
        yield served.url


def outside(page, sub_url) -> list[str]:
    return [u for u in requests_until_now(page) if not u.startswith(sub_url)]


def test_the_bench_runs_under_a_sub_path(page, sub_url):
    response = page.goto(f"{sub_url}en/specdec/")
    assert response.status == 200
    assert "frame-ancestors 'self'" in response.headers["content-security-policy"]
    # attached: beside the text the status is said over the machine and goes once ready
    page.wait_for_selector("#b .b-status[data-state=ready]", timeout=PYODIDE_TIMEOUT_MS, state="attached")
    page.locator("#b button.b-step").click()
    page.wait_for_selector("#b[data-platform=emscripten][data-steps='2']")
    assert not outside(page, sub_url), outside(page, sub_url)
    assert any(u.startswith(f"{sub_url}pyodide/") and u.split("?")[0].endswith("/pyodide.asm.wasm.xz") for u in page.requests_seen)
    assert not page.console_errors, page.console_errors


def test_the_embed_runs_under_a_sub_path(page, sub_url):
    response = page.goto(f"{sub_url}embed/zh/specdec/")
    assert "frame-ancestors *" in response.headers["content-security-policy"]
    page.wait_for_selector("#b .b-status[data-state=ready]", timeout=PYODIDE_TIMEOUT_MS)
    assert not outside(page, sub_url), outside(page, sub_url)
    assert not page.console_errors, page.console_errors


def test_the_chooser_and_the_language_switch_stay_inside(page, sub_url):
    """The links; what the pages' Python fetches stays inside too (the two tests above)."""
    without_python(page)
    page.goto(sub_url)
    page.locator('a[hreflang="zh-Hans"]').click()
    page.wait_for_url(f"{sub_url}zh/specdec/**")
    page.locator("a[data-lang-switch]").click()
    page.wait_for_url(f"{sub_url}en/specdec/**")
    page.locator(".site-header__home").click()
    page.wait_for_url(sub_url)
    assert not outside(page, sub_url), outside(page, sub_url)


@pytest.mark.parametrize("missing", ["no-such-page", "en/specdec/chapter/typo", "embed/zh/specdec/x/y/z.html"])
def test_the_404_page_works_at_any_depth(page, sub_url, missing):
    without_python(page)  # the language page its link opens
    response = page.goto(sub_url + missing)
    assert response.status == 404
    expect(page.locator("h1")).to_contain_text("Page not found")
    expect(page.locator("h1")).to_contain_text("找不到这个页面")
    # Its style sheet loaded (the chooser's card layout), from inside the sub-path.
    assert page.locator(".index__langs a").first.evaluate("a => getComputedStyle(a).display") == "block"
    assert not outside(page, sub_url), outside(page, sub_url)
    page.locator('.index__langs a[hreflang="zh-Hans"]').click()
    page.wait_for_url(f"{sub_url}zh/specdec/")
    assert page.evaluate("document.documentElement.lang") == "zh-Hans"
