"""The first live proof: a speculative step computed by Python running in the page."""

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

PYODIDE_TIMEOUT_MS = 60_000


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_step_runs_in_pyodide_in_the_page(page, site_url, lang):
    page.goto(f"{site_url}{lang}/specdec/")
    step = page.locator("#live-step")
    # Before Pyodide: the build's CPython picture is already there.
    assert step.get_attribute("data-platform") == "linux"
    assert page.locator("#live-step .token").count() >= 2
    status = page.locator("#live-step .runtime-status")
    # Locator assertions, not wait_for_function: the page's CSP forbids string evaluation.
    expect(status).to_have_attribute("data-state", "ready", timeout=PYODIDE_TIMEOUT_MS)
    assert "Python 3." in status.inner_text()
    page.locator("#live-step button.step__run").click()
    expect(step).to_have_attribute("data-platform", "emscripten")
    assert step.get_attribute("data-seed") == "2"
    tokens = page.locator("#live-step .token")
    assert tokens.count() >= 2
    assert page.locator("#live-step .token--target").count() == 1
    assert "emscripten" in page.locator("#live-step .step__runtime").inner_text()
    written = int(page.locator("#live-step .step__written").inner_text())
    kept = page.locator("#live-step .token--kept").count()
    assert written == kept + 1
    assert not page.console_errors, page.console_errors


@pytest.mark.parametrize("path", ["", "en/specdec/", "zh/specdec/", "embed/en/specdec/", "embed/zh/specdec/"])
def test_routes_load_and_request_only_their_own_host(page, site_url, path):
    response = page.goto(site_url + path)
    assert response.status == 200
    page.wait_for_load_state("networkidle")
    foreign = [u for u in page.requests_seen if not u.startswith(site_url)]
    assert not foreign, foreign


def test_language_switch_keeps_the_chapter(page, site_url):
    page.goto(f"{site_url}en/specdec/#alpha")
    page.locator("a[data-lang-switch]").click()
    page.wait_for_url("**/zh/specdec/**")
    assert page.url.endswith("/zh/specdec/#alpha")
    assert page.evaluate("document.documentElement.lang") == "zh-Hans"
