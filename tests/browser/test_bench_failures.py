"""A worker that cannot start, or dies, is reported at once, in words; Retry recovers.

Issue 11, findings 4 and 9: a blocked pyodide.asm.wasm was reported only after the 123 s
watchdog; a worker that died left pending calls hanging and the status stuck.
"""

from __future__ import annotations

import time

import pytest
from helpers.benchpage import LIVE, PYODIDE_TIMEOUT_MS, bench_state, settle

pytestmark = pytest.mark.browser


# "At once" against the 123 s watchdog it replaced: a bound a loaded machine cannot miss (the
# start itself is timed in benchmarks/browser_perf.py), far below the watchdog.
REPORTED_MS = 30_000

# The bench beside the text (a window 1280 x 900): its status line and Retry button in view.
VIEWPORT = {"width": 1280, "height": 900}


@pytest.mark.adapter("wasmOf", "withPrecompiledWasm")
def test_a_blocked_wasm_is_reported_long_before_the_watchdog_and_retry_recovers(new_page, site_url):
    page = new_page(reduced_motion="reduce", viewport=VIEWPORT)
    # Blocked until Retry; then let through. Not page.unroute(): it waits for the handlers still
    # running, and an abort for a request of the worker the page has terminated may never finish
    # (the test hung there in 2 of 6 runs).
    blocking = [True]
    page.route("**/pyodide.asm.wasm*",
               lambda route: route.abort("blockedbyclient") if blocking[0] else route.fallback())
    started = time.monotonic()
    page.goto(f"{site_url}zh/specdec/?gamma=6")
    page.wait_for_selector("#b .b-status[data-state=failed]", timeout=REPORTED_MS)
    print(f"blocked wasm reported after {time.monotonic() - started:.2f} s")
    status = page.locator("#b .b-status")
    assert "pyodide.asm.wasm" in status.inner_text() and "拦" in status.inner_text()  # zh words
    details = page.locator("#b .b-status__detail")
    assert details.is_visible() and "wasm" in details.text_content()
    assert page.locator("#b button.b-step").is_disabled()
    assert page.locator("#b .b-live").text_content()  # said once, politely
    blocking[0] = False
    page.locator("#b .b-retry").click()
    page.wait_for_selector(LIVE, timeout=PYODIDE_TIMEOUT_MS)
    settle(page)
    assert bench_state(page)["settings"]["gamma"] == 6  # the link waited for Python and was applied
    assert page.locator("#b .b-retry").is_hidden() and page.locator("#b button.b-step").is_enabled()


def test_a_worker_that_dies_rejects_its_calls_and_retry_recovers(new_page, site_url):
    page = new_page(reduced_motion="reduce", viewport=VIEWPORT)
    page.goto(f"{site_url}en/specdec/")
    page.wait_for_selector(LIVE, timeout=PYODIDE_TIMEOUT_MS)
    settle(page)
    worker = page.workers[0]
    worker.evaluate("() => { self.onmessage = null; }")  # from now on it answers nothing
    page.evaluate("""() => {
        window.rawCall = window.specdecBench.call("runtime", {}).then(() => "answered", (e) => e.code);
        window.stepDone = window.specdecBench.dispatch({ type: "step" }).then(() => "applied");
    }""")
    worker.evaluate("() => { setTimeout(() => { throw new Error('boom in the worker'); }, 0); }")
    page.wait_for_selector("#b .b-status[data-state=failed]", timeout=REPORTED_MS)
    assert page.evaluate("() => window.rawCall") == "died"  # a pending call is rejected, not left hanging
    assert "stopped working" in page.locator("#b .b-status__text").inner_text()
    assert "boom in the worker" in page.locator("#b .b-status__raw").text_content()
    assert page.locator("#b button.b-new").is_disabled()
    assert bench_state(page)["steps"] == 1
    page.locator("#b .b-retry").click()
    page.wait_for_selector(LIVE, timeout=PYODIDE_TIMEOUT_MS)
    assert page.evaluate("() => window.stepDone") == "applied"  # the action waited, then ran
    settle(page)
    assert bench_state(page)["steps"] == 2
    assert page.locator("#b").get_attribute("data-platform") == "emscripten"
