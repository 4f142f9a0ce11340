"""A reader's page carries no test hooks: site/static/js/bench/debug.js loads only when a test or a
benchmark loads it (DEBUG_HOOKS, an init script); no page script imports it or asks for it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers.benchpage import PYODIDE_TIMEOUT_MS

pytestmark = pytest.mark.browser

JS = Path(__file__).resolve().parents[2] / "site" / "static" / "js"
HOOKS = "() => [typeof window.specdecBench, typeof window.specdecBenchTimings, document.getElementById('b').dataset.steps]"


def test_no_page_module_imports_the_debug_hooks_but_on_request():
    for path in JS.rglob("*.js"):
        text = path.read_text(encoding="utf-8")
        imports = re.findall(r"""(?:import|from)\s*\(?\s*["']([^"']*debug\.js)["']""", text)
        assert not imports and "specdecDebug" not in text, path
        if path.name != "debug.js":
            assert not re.search(r"window\.specdecBench\w*\s*=|specdec:tryit", text), path


def test_a_readers_page_runs_a_try_it_without_the_hooks_and_a_tests_page_has_them(browser, site_url, shared_bench):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, reduced_motion="reduce", service_workers="block")
    page = context.new_page()
    fetched = []
    page.on("request", lambda r: fetched.append(r.url))
    page.goto(f"{site_url}en/specdec/")
    page.wait_for_selector("#b[data-mode=live]", timeout=PYODIDE_TIMEOUT_MS)  # (LIVE's data-busy is a hook)
    box = page.locator("section.chapter .try").first
    box.locator(".try__button").click()
    page.wait_for_function("(box) => box.dataset.state === 'done'", arg=box.element_handle(), timeout=PYODIDE_TIMEOUT_MS)
    assert page.evaluate(HOOKS) == ["undefined", "undefined", None]
    assert not [url for url in fetched if url.endswith("debug.js")]
    context.close()

    page = shared_bench("en")  # a test's page (tests/browser/conftest.py: the hooks are its context's init script)
    assert page.evaluate(HOOKS)[:2] == ["object", "object"] and page.evaluate(HOOKS)[2]
    # A step's call is timed.
    page.evaluate("() => window.specdecBench.run([{ type: 'step' }])")
    assert page.evaluate("() => window.specdecBenchTimings.map((t) => t.command)")[-1:] == ["act"]
