"""Chromium through Playwright: Debian's browser, since Playwright cannot download its own here."""

from __future__ import annotations

import os
import shutil

import pytest

LAUNCH_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str:
    for candidate in (os.environ.get("SPECDEC_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if candidate and os.path.exists(candidate):
            return candidate
    pytest.fail("Chromium not found: run ./dev test (it installs Debian's chromium) or set SPECDEC_CHROMIUM")


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=LAUNCH_FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, site_url):
    """A fresh page that records every request, so tests can check nothing leaves the site."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.requests_seen = []
    page.console_errors = []
    page.on("request", lambda r: page.requests_seen.append(r.url))
    page.on("console", lambda m: m.type == "error" and page.console_errors.append(m.text))
    page.on("pageerror", lambda e: page.console_errors.append(str(e)))
    yield page
    context.close()


@pytest.fixture(scope="module")
def shared_bench(browser, site_url):
    """Live bench pages shared by the tests of a module (Python starts once per language).

    shared_bench(lang) opens /<lang>/specdec/ on first use, with reduced motion, and records
    page errors in page.console_errors; each test puts the page in the state it needs
    (tests/browser/benchpage.py: reset).
    """
    from benchpage import open_bench

    contexts, pages = [], {}

    def get(lang: str):
        if lang not in pages:
            context = browser.new_context(viewport={"width": 1280, "height": 900}, reduced_motion="reduce")
            contexts.append(context)
            page = context.new_page()
            page.console_errors = []
            page.on("console", lambda m: m.type == "error" and page.console_errors.append(m.text))
            page.on("pageerror", lambda e: page.console_errors.append(str(e)))
            open_bench(page, f"{site_url}{lang}/specdec/")
            pages[lang] = page
        return pages[lang]

    yield get
    for context in contexts:
        context.close()
