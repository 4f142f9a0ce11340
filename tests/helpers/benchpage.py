"""Driving the bench in a page: open it, wait for its state (never for a fixed time), read it back.

The bench's public API (site/static/js/bench/api.js: dispatch, run, idle, getState) is the page's
own; the test pages reach it as window.specdecBench, which the debug hooks add (DEBUG_HOOKS, loaded
by every test context: site/static/js/bench/debug.js). These helpers use it to wait until the
queue is idle and to read what the page shows.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl, urlparse

# An init script for a test's or a benchmark's browser context: its pages load the debug hooks
# (site/static/js/bench/debug.js: window.specdecBench, window.specdecBenchTimings, the bench's
# marks data-steps, data-busy, data-platform... that LIVE reads, the specdec:tryit event), as
# readers' pages never do: no page script imports them. The module is found beside the page's
# first script from static/js/ as the parser adds it (the same folder on every route, subpath and
# package), so it shares the page's api.js and hears the bench from its start.
# LOAD_DEBUG_HOOKS does it in a page already open (WebDriver has no init scripts: Firefox's and
# WebKit's smoke tests run it after each load); the hooks then start from the state drawn by then.
LOAD_DEBUG_HOOKS = """import(new URL("bench/debug.js", document.querySelector('script[src*="/static/js/"]').src).href)"""
DEBUG_HOOKS = """new MutationObserver((records, observer) => {
    if (!document.querySelector('script[src*="/static/js/"]')) return;
    observer.disconnect();
    %s;
}).observe(document, { childList: true, subtree: true });""" % LOAD_DEBUG_HOOKS
PYODIDE_TIMEOUT_MS = 120_000
LIVE = "#b[data-mode=live][data-busy=false]"
AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"


class KeptPages:
    """Pages the tests of a module share, one per language: pages(lang) opens it with
    open_page(lang) on first use; pages.close() closes them all.

    Each call brings the page to the front of its context. In headless Chromium a page left
    behind a newer one in its context was measured to take about 2 s per click and 1 s per wait
    (Playwright's actions wait for animation frames): 3 s per Count in the own-text tests, 33 s
    in one test, until the page was brought to the front.
    """

    def __init__(self, open_page):
        self.open_page = open_page
        self.pages = {}

    def __call__(self, lang: str):
        if lang not in self.pages:
            self.pages[lang] = self.open_page(lang)
        page = self.pages[lang]
        page.bring_to_front()
        return page

    def close(self):
        for page in self.pages.values():
            page.close()


def add_axe(page):
    """axe-core into the page (its context must bypass the CSP), with every chapter drawn: the
    site skips drawing chapters off screen (content-visibility: auto, site.css), and axe reads the
    colours behind undrawn text wrongly (axe-core issue 2768), so each is drawn while axe looks."""
    page.add_style_tag(content=".chapter, .closing { content-visibility: visible !important; }")
    page.add_script_tag(content=AXE.read_text(encoding="utf-8"))


def axe_pages(shared_contexts, site_url: str, prepare=None) -> KeptPages:
    """For a module fixture: one live desktop page per language, in the shared context that lets
    the test inject axe-core (the site's CSP would refuse it), with prepare(page) run on it once."""

    def open_page(lang):
        page = shared_contexts.page(reduced_motion="reduce", bypass_csp=True)
        page.errors = []
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        page.goto(f"{site_url}{lang}/specdec/")
        page.wait_for_selector(LIVE, timeout=PYODIDE_TIMEOUT_MS)
        settle(page)
        if prepare:
            prepare(page)
        add_axe(page)
        return page

    return KeptPages(open_page)


def to_chapter(page, anchor: str):
    """Scroll a chapter to the top of the window, as a reader's jump to it does: the page marks it
    in the address bar; then two frames, so that its part is drawn and the layout has settled."""
    page.evaluate("(id) => document.getElementById(id).scrollIntoView({ block: 'start' })", anchor)
    page.wait_for_function("(id) => location.hash === '#' + id", arg=anchor)
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")


def open_bench(page, url: str):
    page.goto(url)
    # attached: on a phone the bench is a closed sheet until the reader opens it
    page.wait_for_selector(LIVE, timeout=PYODIDE_TIMEOUT_MS, state="attached")
    settle(page)


def settle(page):
    """Wait until the bench has applied every action it was given (the queue is idle); a queue
    that never goes idle fails after PYODIDE_TIMEOUT_MS (page.evaluate itself has no timeout)."""
    page.wait_for_function("() => window.specdecBench !== undefined", timeout=PYODIDE_TIMEOUT_MS)
    page.evaluate("""(ms) => Promise.race([window.specdecBench.idle(), new Promise((_, fail) =>
        setTimeout(() => fail(new Error(`the bench's queue was not idle after ${ms} ms`)), ms))])""", PYODIDE_TIMEOUT_MS)


def run(page, actions: list[dict]):
    """Actions through the public API, in order; returns when they are applied and drawn."""
    return page.evaluate("(actions) => window.specdecBench.run(actions)", actions)


def bench_state(page) -> dict:
    return page.evaluate("() => window.specdecBench.getState().bench")


def reset(page, query: str = ""):
    """The page as a fresh visit to `query` would leave it, without restarting Python: the
    address bar gets the query and the bench loads it as it does at start."""
    page.evaluate("""async (query) => {
        history.replaceState(history.state, "", location.pathname + query);
        const pairs = [...new URLSearchParams(query)];
        const api = window.specdecBench;
        await api.run([{ type: "pause" }, { type: "isolate", part: "" }, { type: "focus", part: "" },
                       { type: "open_panel", panel: "readouts" }, { type: "load", query: pairs }]);
    }""", query)
    settle(page)


def soft_reload(page):
    """The page's own link loaded again, through the same action the start uses."""
    reset(page, urlparse(page.url).query and "?" + urlparse(page.url).query)


def query_of(page) -> dict:
    return dict(parse_qsl(urlparse(page.url).query, keep_blank_values=True))


def snapshot(page) -> dict:
    """Everything a reader can see change: tape, pass strip, tubes, readouts, controls, link."""
    return page.evaluate("""() => {
        const b = document.getElementById("b");
        const texts = (sel) => [...b.querySelectorAll(sel)].map((e) => e.textContent);
        const controls = {};
        for (const input of b.querySelectorAll("form.b-controls [data-setting]")) {
            const name = input.dataset.setting;
            if (input.type === "radio") { if (input.checked) controls[name] = input.value; }
            else controls[name] = input.type === "checkbox" ? input.checked : input.value;
        }
        return {
            tape: texts(".b-tape .b-tok").join("|"),
            count: b.querySelector(".b-tape-count").textContent,
            slots: texts(".b-slot").join("|"),
            tubes: texts(".b-tube-table tbody tr").join("|"),
            readouts: b.querySelector(".b-readouts").textContent,
            exact: texts(".b-exact-table tbody tr").join("|"),
            controls,
            values: texts("[data-value-of]"),
            link: b.querySelector("a.b-link").getAttribute("href"),
            seed: b.querySelector(".b-seed-value").textContent,
            warnings: [...b.querySelectorAll(".b-rule-warning")].map((w) => !w.hidden),
        };
    }""")


def tube_counts(page):
    rows = page.locator("#b .b-tube-table tbody tr")
    p, target, spec, kept, written = [], [], [], [], []
    for i in range(rows.count()):
        row = rows.nth(i)
        p.append(float(row.get_attribute("data-p")))
        target.append(int(row.locator(".b-n-target").inner_text()))
        k = int(row.locator(".b-n-kept").inner_text())
        w = int(row.locator(".b-n-written").inner_text())
        kept.append(k)
        written.append(w)
        spec.append(k + w)
    return p, target, spec, kept, written


def build_platform() -> str:
    """Where the build's CPython ran (the picture before Pyodide says so)."""
    from sim.bench import runtime

    return runtime()["platform"]


BURST = """async () => {
    const api = window.specdecBench;
    const asked = window.specdecBenchTimings.length;
    await api.run([{ type: "set", name: "gamma", value: 7 }, { type: "set", name: "draft", value: "same" },
                   { type: "set", name: "rule", value: "replace_from_p" }]);
    await api.idle();
    const calls = window.specdecBenchTimings.slice(asked).map((t) => t.command);
    return { calls, readouts: api.getState().view.readouts };
}"""


def check_burst(page, calls: list[str]) -> None:
    """Three changes queued at once (a new gamma, draft and rule): the worker calls they make, and
    the last state's readouts drawn (on the book's models in test_bench, on a pasted text's in
    test_owntext_page)."""
    reset(page, "?gamma=4&draft=bigram&rule=exact")
    got = page.evaluate(BURST)
    assert got["calls"] == calls, got["calls"]
    ro = got["readouts"]
    assert ro["settings"]["gamma"] == 7 and ro["settings"]["draft"] == "same" and ro["settings"]["rule"] == "replace_from_p"
    assert page.locator("#b .b-alpha").text_content() == f"{ro['alpha']:.3f}"
