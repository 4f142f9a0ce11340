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
# DEBUG_MODULE is its address: a test that needs one of the page's own modules (its sim client, the
# bench's number format) imports it from there (debug.js's exports), since a bundled site publishes
# them inside the chunks that module shares with the page (sitebuild/bundles.py).
# LOAD_DEBUG_HOOKS does it in a page already open (WebDriver has no init scripts: Firefox's and
# WebKit's smoke tests run it after each load); the hooks then start from the state drawn by then.
DEBUG_MODULE = """new URL("bench/debug.js", document.querySelector('script[src*="/static/js/"]').src).href"""
LOAD_DEBUG_HOOKS = f"import({DEBUG_MODULE})"
DEBUG_HOOKS = """new MutationObserver((records, observer) => {
    if (!document.querySelector('script[src*="/static/js/"]')) return;
    observer.disconnect();
    %s;
}).observe(document, { childList: true, subtree: true });""" % LOAD_DEBUG_HOOKS
PYODIDE_TIMEOUT_MS = 120_000
# The windows the shared pages open in: a laptop beside the text, and a phone (the smallest width
# the site is laid out for; its pages are also touch and mobile: tests/browser/conftest.py).
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 360, "height": 740}
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


def own_live_pages(shared_contexts, site_url: str) -> KeptPages:
    """Live full pages of a module's own, one per language (reduced motion), each opened on its
    first use: for a module that leaves its page in a state the session's shared pages
    (conftest.LivePages) must not inherit, or that needs one no other module has touched."""
    def open_page(lang):
        page = shared_contexts.page(reduced_motion="reduce")
        open_bench(page, f"{site_url}{lang}/specdec/")
        return page

    return KeptPages(open_page)


# What a page shared by the tests of earlier modules may still hold besides the bench's state,
# put back as a fresh visit has it: an open dialog and its choices, focus mode, the phone's sheet,
# a target of the address's fragment, a reader's own text and its models, a speed other than
# normal, the focus and the scroll.
HAND_OVER = """async () => {
    const api = window.specdecBench;
    const bench = document.querySelector('.layout .bench');
    for (const dialog of document.querySelectorAll('dialog[open]')) dialog.close();
    for (const form of document.querySelectorAll('dialog form, .embed-dialog select')) (form.reset ? form.reset() : form.selectedIndex = 0);
    if (bench && bench.dataset.fill === 'on') bench.querySelector('.b-fill').click();
    if (bench && bench.dataset.sheet === 'open') bench.querySelector('.b-sheet-close').click();
    if (api.getState().source.source !== 'book') await api.dispatch({ type: 'use_book' });
    const own = document.getElementById('b-own-text');
    if (own) own.value = '';
    if (api.getState().ui.speed !== 1) await api.dispatch({ type: 'speed', value: 1 });
    if (document.querySelector(':target')) location.hash = 'handed-over';  // no element's: a skip link's target opens a phone's sheet (frames.css)
    if (document.activeElement) document.activeElement.blur();
    window.scrollTo(0, 0);
}"""


def hand_over(page, viewport: dict):
    """A live page kept from earlier tests, made ready for a module that has not used it yet: in
    front, at `viewport`, with reduced motion and the browser's own colour scheme, nothing open,
    on the book, at the top of the text, its bench as a fresh visit of its address leaves it
    (reset), and no errors recorded. (Within a module, each test puts the page in the state it
    needs, as before.)"""
    page.bring_to_front()
    page.set_viewport_size(viewport)
    page.emulate_media(reduced_motion="reduce", color_scheme="null")
    settle(page)
    page.evaluate(HAND_OVER)
    reset(page)
    for errors in (page.console_errors, page.errors):
        errors.clear()


def add_axe(page):
    """axe-core into the page (its context must bypass the CSP), with every chapter drawn: the
    site skips drawing chapters off screen (content-visibility: auto, site.css), and axe reads the
    colours behind undrawn text wrongly (axe-core issue 2768), so each is drawn while axe looks."""
    page.add_style_tag(content=".chapter, .closing { content-visibility: visible !important; }")
    page.add_script_tag(content=AXE.read_text(encoding="utf-8"))


def to_chapter(page, anchor: str):
    """Scroll a chapter to the top of the window, as a reader's jump to it does, until the page
    marks it in the address bar (the chapters around it are laid out at an estimated height until
    they are first drawn, so one scroll may land short of it: it is scrolled to again at each
    frame until the page names it); then two frames, so that its part is drawn and the layout has
    settled."""
    page.wait_for_function("""(id) => location.hash === '#' + id
        || void document.getElementById(id).scrollIntoView({ block: 'start' })""", arg=anchor)
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")


def without_python(page):
    """Keep the pages this page opens from starting Python (their worker's script refused), for a
    test of what the page shows without it (the text, its layout, its links): a full page's worker
    starts as its <body> opens, and each start costs seconds of the processor."""
    page.route("**/sim-worker.js*", lambda route: route.abort())


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


def paste(page, text: str):
    """The text into the box as a paste puts it there (Playwright's fill is slow on 200,000 characters),
    with its tab open beside the machine."""
    run(page, [{"type": "open_panel", "panel": "own"}])
    page.evaluate("""(text) => {
        const box = document.getElementById('b-own-text');
        box.value = text;
        box.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertFromPaste' }));
    }""", text)


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


def embed_load(page, query: str):
    """A link loaded into a live embed as the embed's start loads its address's (bench/live.js:
    the query as a link, with the page's chapters, which make the sim read the embed's view
    options, chapter, part and theme, that embed.js applies from the reply), without restarting
    Python. (reset's load sends no chapters: the view options stay as they were.)"""
    page.evaluate("""async (query) => {
        history.replaceState(history.state, "", location.pathname + query);
        const chapters = JSON.parse(document.getElementById("page-chapters").textContent);
        await window.specdecBench.dispatch({ type: "load", query: [...new URLSearchParams(query)], source: "link", chapters });
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
        // its text, less what is hidden (a hidden note keeps the words it last showed)
        const shown = (el) => { const copy = el.cloneNode(true); copy.querySelectorAll("[hidden]").forEach((e) => e.remove()); return copy.textContent; };
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
            readouts: shown(b.querySelector(".b-readouts")),
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
    from sim.bench import which_python

    return which_python()["platform"]


# Three changes queued at once (a new gamma, draft and rule) from BURST_START, as [gamma, draft, rule]:
# the first of BURSTS whose three states the page's worker has not measured yet (a page shared
# with earlier tests may have measured some), so that a measurement of a state the queue replaces
# would show as a call of its own.
BURST_START = "?gamma=4&draft=bigram&rule=exact"
BURSTS = [[gamma, draft, rule] for gamma in (7, 6, 5, 3, 2, 1)
          for draft, rule in (("same", "replace_from_p"), ("unigram", "typical"), ("same", "typical"),
                              ("unigram", "replace_from_p"))]
UNMEASURED_BURST = """async ([start, bursts]) => {
    const api = window.specdecBench;
    const from = Object.fromEntries(new URLSearchParams(start));
    for (const [gamma, draft, rule] of bursts) {
        const states = [];
        for (const change of [{ gamma }, { gamma, draft }, { gamma, draft, rule }]) {
            const query = Object.entries({ ...from, ...change }).map(([k, v]) => [k, String(v)]);
            states.push((await api.call("link", { query })).state);
        }
        const views = await Promise.all(states.map((state) => api.call("act", { state, action: { type: "view" }, measure: false })));
        if (views.every((reply) => reply.view.readouts == null)) return [gamma, draft, rule];
    }
    return null;
}"""
BURST = """async ([gamma, draft, rule]) => {
    const api = window.specdecBench;
    const asked = window.specdecBenchTimings.length;
    await api.run([{ type: "set", name: "gamma", value: gamma }, { type: "set", name: "draft", value: draft },
                   { type: "set", name: "rule", value: rule }]);
    await api.idle();
    const calls = window.specdecBenchTimings.slice(asked).map((t) => t.command);
    return { calls, readouts: api.getState().view.readouts };
}"""


def check_burst(page, calls: list[str]) -> None:
    """Three changes queued at once (a new gamma, draft and rule, none measured before): the worker
    calls they make, and the last state's readouts drawn (on the book's models in test_bench, on a
    pasted text's in test_owntext_page)."""
    reset(page, BURST_START)
    burst = page.evaluate(UNMEASURED_BURST, [BURST_START, BURSTS])
    assert burst is not None, "every burst of BURSTS was measured before"
    got = page.evaluate(BURST, burst)
    assert got["calls"] == calls, (burst, got["calls"])
    ro = got["readouts"]
    assert [ro["settings"][name] for name in ("gamma", "draft", "rule")] == burst
    assert page.locator("#b .b-alpha").text_content() == f"{ro['alpha']:.3f}"
