"""Chromium through Playwright: Debian's browser, since Playwright cannot download its own here."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from helpers.benchpage import DEBUG_HOOKS, DESKTOP, PHONE
from playwright.sync_api import expect

# Playwright's expect() waits 5 s by default for what it asserts, Playwright's other waits 30 s: on
# a busy machine a click's answer can take longer than 5 s to draw, so expect() waits as long.
expect.set_options(timeout=30_000)

LAUNCH_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str:
    """Chromium's headless shell (Debian's chromium-headless-shell), which ./dev test installs: the
    browser's Blink and V8 without its windowing layers, as Playwright's own headless tests run. The
    suite takes about a sixth less CPU on it than on the browser (docs/testing.md); the browser
    itself stays the fallback, and SPECDEC_CHROMIUM names another build."""
    for candidate in (os.environ.get("SPECDEC_CHROMIUM"), "/usr/bin/chromium-headless-shell",
                      "/usr/bin/chromium", shutil.which("chromium")):
        if candidate and os.path.exists(candidate):
            return candidate
    pytest.fail("Chromium not found: run ./dev test (it installs Debian's chromium-headless-shell) or set "
                "SPECDEC_CHROMIUM")


@pytest.fixture(scope="session")
def playwright_driver():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright_driver):
    """A browser for tests that make their own fresh (incognito) contexts: a first visit."""
    browser = playwright_driver.chromium.launch(executable_path=chromium_path(), args=LAUNCH_FLAGS)
    yield browser
    browser.close()


class SharedContexts:
    """Browser contexts kept for the whole session, one per set of context-only options (bypass_csp
    for axe-core, is_mobile and has_touch for a phone, java_script_enabled). Every page a test opens
    in one shares its HTTP cache, so the second and later starts of Python reuse Pyodide's
    downloaded files. Each context is a persistent profile (a browser of its own with a profile
    folder), as a reader's browser is: unlike an incognito context, it keeps V8's code cache, so
    later starts also reuse the compiled JavaScript and WebAssembly (measured: 2.5 to 3 s of CPU
    per start instead of 4.2 to 4.8 s). The site keeps one thing in storage, the decoded .wasm
    (site/static/js/startup/wasm-inflate.js), which later pages in a context compile, as a reader's later
    visits do: a test that routes Pyodide's .wasm opens its page in a context of its own
    (fresh_page). Options a page can take alone (viewport, reduced motion, colour scheme) are set on
    the page; routes go on the page too (page.route), never on a shared context."""

    def __init__(self, playwright, profiles: Path):
        self.playwright = playwright
        self.profiles = profiles
        self.contexts = {}

    def page(self, viewport=None, reduced_motion=None, color_scheme=None, **context_options):
        # No service worker in the shared contexts: one installed by an earlier test would answer
        # from its cache the requests a later test routes (tests/browser/test_offline.py has its own).
        key = tuple(sorted(context_options.items()))
        if key not in self.contexts:
            self.contexts[key] = self.playwright.chromium.launch_persistent_context(
                self.profiles / f"profile-{len(self.contexts)}", executable_path=chromium_path(),
                args=LAUNCH_FLAGS, viewport=DESKTOP, service_workers="block", **context_options)
            self.contexts[key].add_init_script(DEBUG_HOOKS)  # tests read the bench through its debug hooks
        page = self.contexts[key].new_page()
        page.set_viewport_size(viewport or DESKTOP)
        media = {k: v for k, v in (("reduced_motion", reduced_motion), ("color_scheme", color_scheme)) if v}
        if media:
            page.emulate_media(**media)
        return page

    def close(self):
        for context in self.contexts.values():
            context.close()


@pytest.fixture(scope="session")
def shared_contexts(playwright_driver, tmp_path_factory):
    contexts = SharedContexts(playwright_driver, tmp_path_factory.mktemp("profiles"))
    yield contexts
    contexts.close()


def watch_errors(page):
    """page.console_errors: every console error and uncaught exception the page reports."""
    page.console_errors = []
    page.on("console", lambda m: m.type == "error" and page.console_errors.append(m.text))
    page.on("pageerror", lambda e: page.console_errors.append(str(e)))
    return page


@pytest.fixture
def new_page(shared_contexts):
    """new_page(viewport=..., reduced_motion=..., color_scheme=..., bypass_csp=..., is_mobile=...)
    opens a page in the shared context for those options; the pages are closed after the test."""
    opened = []

    def make(**options):
        page = watch_errors(shared_contexts.page(**options))
        opened.append(page)
        return page

    yield make
    for page in opened:
        page.close()


@pytest.fixture
def fresh_page(browser):
    """fresh_page(viewport=..., reduced_motion=..., **context options): a page in a context of its
    own (closed after the test), as new_page's are otherwise, for a test that routes Pyodide's
    .wasm: in a shared context an earlier page's kept copy of the decoded .wasm starts Python
    without asking for it."""
    contexts = []

    def make(viewport=None, reduced_motion=None, **context_options):
        context = browser.new_context(viewport=viewport or DESKTOP, reduced_motion=reduced_motion,
                                      service_workers="block", **context_options)
        context.add_init_script(DEBUG_HOOKS)
        contexts.append(context)
        return watch_errors(context.new_page())

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def page(new_page):
    """A fresh desktop page that records every request, so tests can check nothing leaves the site."""
    page = new_page()
    page.requests_seen = []
    page.on("request", lambda r: page.requests_seen.append(r.url))
    return page


class LivePages:
    """Live bench pages kept for the whole session, one per kind and language, each opened on first
    use (one Python start each, per xdist process) and shared by every module that asks for its
    kind: the modules' tests act as readers on one page, and each test puts the page in the state
    it needs (benchpage.reset). Kinds (the context's options and the page's first window):
      desktop  the full page beside the text, reduced motion
      phone    the same on a touch phone (is_mobile, has_touch: a context of its own), at PHONE
      axe      in the context that lets a test inject axe-core (bypass_csp), with axe-core added
               and every chapter drawn (benchpage.add_axe)
    A module takes a kind through for_module(kind): on its first use in the module each page is
    handed over (benchpage.hand_over: as a fresh visit leaves it, whatever earlier modules did)."""

    KINDS = {"desktop": ({}, DESKTOP), "phone": ({"is_mobile": True, "has_touch": True}, PHONE),
             "axe": ({"bypass_csp": True}, DESKTOP)}

    def __init__(self, shared_contexts, site_url: str):
        self.shared_contexts = shared_contexts
        self.site_url = site_url
        self.pages = {}

    def get(self, kind: str, lang: str):
        from helpers.benchpage import add_axe, open_bench

        if (kind, lang) not in self.pages:
            options, viewport = self.KINDS[kind]
            page = watch_errors(self.shared_contexts.page(viewport=viewport, reduced_motion="reduce", **options))
            page.errors = []  # uncaught exceptions alone (page.console_errors has the console's errors too)
            page.on("pageerror", lambda e: page.errors.append(str(e)))
            open_bench(page, f"{self.site_url}{lang}/specdec/")
            if kind == "axe":
                add_axe(page)
            self.pages[kind, lang] = page
        return self.pages[kind, lang]

    def for_module(self, kind: str, prepare=None, viewport: dict | None = None):
        """pages(lang) for one module's tests: the session's page of `kind`, handed over at
        `viewport` (the kind's own by default) and given to prepare(page) on the module's first
        use, and brought to the front at each call (in headless Chromium a page left behind a
        newer one in its context was measured to take about 2 s per click and 1 s per wait until
        brought to the front: Playwright waits for animation frames)."""
        from helpers.benchpage import hand_over

        taken = set()

        def pages(lang: str):
            page = self.get(kind, lang)
            if lang not in taken:
                hand_over(page, viewport or self.KINDS[kind][1])
                if prepare:
                    prepare(page)
                taken.add(lang)
            page.bring_to_front()
            return page

        return pages

    def close(self):
        for page in self.pages.values():
            page.close()


@pytest.fixture(scope="session")
def live_pages(shared_contexts, site_url):
    pages = LivePages(shared_contexts, site_url)
    yield pages
    pages.close()


@pytest.fixture(scope="module")
def shared_bench(live_pages):
    """shared_bench(lang): the session's live desktop page of /<lang>/specdec/ (LivePages), which
    this module's tests share with the other modules'; each test first puts it in the state it
    needs (tests/helpers/benchpage.py: reset)."""
    return live_pages.for_module("desktop")
