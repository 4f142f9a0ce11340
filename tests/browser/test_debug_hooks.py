"""A reader's page carries no test hooks: site/static/js/bench/debug.js loads only when a test or a
benchmark asks for it (window.specdecDebug, set by DEBUG_HOOKS in an init script)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers.benchpage import DEBUG_HOOKS, LIVE, PYODIDE_TIMEOUT_MS

pytestmark = pytest.mark.browser

JS = Path(__file__).resolve().parents[2] / "site" / "static" / "js"
HOOKS = "() => [typeof window.specdecBench, typeof window.specdecBenchTimings]"


def test_no_page_module_imports_the_debug_hooks_but_on_request():
    for path in JS.rglob("*.js"):
        text = path.read_text(encoding="utf-8")
        imports = re.findall(r"""(?:import|from)\s*\(?\s*["']([^"']*debug\.js)["']""", text)
        if path.name == "bench.js":
            assert imports == ["./debug.js"] and 'window.specdecDebug ? import("./debug.js")' in text
        else:
            assert not imports, path
        if path.name != "debug.js":
            assert not re.search(r"window\.specdecBench\w*\s*=|specdec:tryit", text), path


def test_a_readers_page_runs_a_try_it_without_the_hooks_and_a_tests_page_has_them(browser, site_url):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, reduced_motion="reduce")
    page = context.new_page()
    fetched = []
    page.on("request", lambda r: fetched.append(r.url))
    page.goto(f"{site_url}en/specdec/")
    page.wait_for_selector(LIVE, timeout=PYODIDE_TIMEOUT_MS)
    box = page.locator("section.chapter .try").first
    box.locator(".try__button").click()
    page.wait_for_function("(box) => box.dataset.state === 'done'", arg=box.element_handle(), timeout=PYODIDE_TIMEOUT_MS)
    assert page.evaluate(HOOKS) == ["undefined", "undefined"]
    assert not [url for url in fetched if url.endswith("debug.js")]
    context.close()

    context = browser.new_context(viewport={"width": 1280, "height": 900}, reduced_motion="reduce")
    context.add_init_script(DEBUG_HOOKS)
    page = context.new_page()
    page.goto(f"{site_url}en/specdec/")
    page.wait_for_selector(LIVE, timeout=PYODIDE_TIMEOUT_MS)
    assert page.evaluate(HOOKS) == ["object", "object"]
    assert page.evaluate("() => window.specdecBenchTimings.map((t) => t.command)")  # the start's calls, timed
    context.close()
