"""The first live proof: a speculative step computed by Python running in the page."""

import pytest
from helpers.benchpage import build_platform, without_python
from helpers.page_requests import requests_until_now

pytestmark = pytest.mark.browser

PYODIDE_TIMEOUT_MS = 60_000


# Every text node replaced by one with the same words, from the page's first script to live:
# writing unchanged text still lays out the boxes around it again in the next frame, and the
# page's start did it a dozen times (the Try-its' reasons, the phone bar's part, the status line).
SAME_TEXT_REWRITES = """
window.__sameText = [];
new MutationObserver((records) => {
  for (const r of records) {
    const [gone] = r.removedNodes, [come] = r.addedNodes;
    if (r.type === 'childList' && r.removedNodes.length === 1 && r.addedNodes.length === 1
        && gone.nodeType === 3 && come.nodeType === 3 && gone.data === come.data) {
      window.__sameText.push((r.target.id || r.target.className || r.target.tagName) + ': ' + come.data);
    }
  }
}).observe(document, { subtree: true, childList: true });
"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_step_runs_in_pyodide_in_the_page_and_nothing_leaves_the_site(page, site_url, lang):
    # The live proof is the bench's: its "One step" button runs the sim in Pyodide.
    # The same page's start is watched for same-word rewrites (a MutationObserver reads, changes nothing).
    page.add_init_script(SAME_TEXT_REWRITES)
    page.goto(f"{site_url}{lang}/specdec/")
    bench = page.locator("#b")
    # Before Pyodide: the build's CPython picture is already there (marked once the debug hooks are in).
    page.wait_for_selector("#b[data-platform]", state="attached")
    assert bench.get_attribute("data-platform") == build_platform()
    assert page.locator("#b .b-tape .b-tok").count() >= 2
    assert page.locator("#b .b-slot--target").count() == 1
    status = page.locator("#b .b-status")
    # Ready, the status box (said over the machine beside the text) goes: its words stay for the record.
    page.wait_for_selector("#b .b-status[data-state=ready]", timeout=PYODIDE_TIMEOUT_MS, state="attached")
    assert "Python 3." in status.text_content()
    assert status.is_hidden()
    # Going live draws nothing again (the worker's first state is the build's: a redraw of every
    # panel was the largest main-thread task of a phone's start); only the line naming the Python changes.
    page.wait_for_selector("#b[data-mode=live]", state="attached")
    assert page.evaluate("() => window.__sameText") == []  # from the first script to live
    page.evaluate("() => window.specdecBench.idle()")
    assert bench.get_attribute("data-drawn") == "0"
    assert "emscripten" in page.locator("#b .b-python-value").inner_text()
    page.locator("#b button.b-step").click()
    page.wait_for_selector("#b[data-platform=emscripten][data-steps='2']")
    assert bench.get_attribute("data-drawn") == "1"
    assert bench.get_attribute("data-seed") == "1"
    assert page.locator("#b .b-tape .b-tok").count() >= 3
    assert page.locator("#b .b-slot--target").count() == 1
    assert "emscripten" in page.locator("#b .b-python-value").inner_text()
    written = int(bench.get_attribute("data-written"))
    kept = page.locator("#b .b-slot--kept").count()
    assert written == kept + 1
    assert not page.console_errors, page.console_errors
    assert_only_own_host(page, site_url)


def assert_only_own_host(page, site_url):
    foreign = [u for u in requests_until_now(page) if not u.startswith(site_url)]
    assert not foreign, foreign


# The full pages (en/specdec/, zh/specdec/) are checked by the test above, once Python has run.
@pytest.mark.parametrize("path", ["", "embed/en/specdec/", "embed/zh/specdec/"])
def test_routes_load_and_request_only_their_own_host(page, site_url, path):
    response = page.goto(site_url + path)
    assert response.status == 200
    assert_only_own_host(page, site_url)


def test_language_switch_keeps_the_chapter(page, site_url):
    without_python(page)  # the links alone
    page.goto(f"{site_url}en/specdec/#alpha")
    page.locator("a[data-lang-switch]").click()
    page.wait_for_url("**/zh/specdec/**")
    assert page.url.endswith("/zh/specdec/#alpha")
    assert page.evaluate("document.documentElement.lang") == "zh-Hans"
