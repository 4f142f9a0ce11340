"""The unbundled build (`build.py --unbundled`: the scripts as written, one module each, for editing
them with `./dev serve --unbundled`) and the bundled one (the default, which every other browser
test runs on) behave alike: in each language both go live from the snapshot, and the same clicks
(three steps, a tube round, the race's tab) leave the same bench and the same page for a reader.
The bundled site is read on the session's live page of each language (conftest.LivePages, which
went live from the bundled site's snapshot when it opened), set as a fresh visit of the same
link leaves it (benchpage.reset): the bundled site's own start is every other browser test's, and
a page of its own here would cost one more Python start per language."""

from __future__ import annotations

import pytest
from helpers.benchpage import open_bench, reset, settle, snapshot
from helpers.loopback import LoopbackSite

from corpus.sources import corpus_dir
from sitebuild.pipeline import Options, build

pytestmark = [pytest.mark.browser, pytest.mark.long(30)]


@pytest.fixture(scope="module")
def unbundled_url(tmp_path_factory):
    site = tmp_path_factory.mktemp("unbundled") / "_site"
    build(Options(out=site, corpus=corpus_dir(), force=True, bundled=False))  # the start files from .cache/
    with LoopbackSite(site) as served:
        yield served.url, site


def reader_sees(page) -> dict:
    for _ in range(3):
        page.locator("#b button.b-step").click()
        settle(page)
    page.evaluate("() => window.specdecBench.run([{ type: 'open_panel', panel: 'tubes' }])")
    page.locator("#b button.b-round").click()
    settle(page)
    seen = snapshot(page)
    seen["via"] = page.evaluate("() => document.getElementById('b').dataset.platform")
    seen["chapters"] = page.locator("main h2").all_text_contents()
    return seen


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_unbundled_and_the_bundled_site_behave_alike(new_page, shared_bench, unbundled_url, built_site, lang):
    unbundled, folder = unbundled_url
    assert (folder / "static/js/bench/bench.js").is_file() and not list(folder.glob("static/js/chunk-*.js"))
    assert list(built_site.glob("static/js/chunk-*.js")) and not (built_site / "static/js/bench/bench.js").exists()
    seen = {}
    page = shared_bench(lang)
    page.errors.clear()  # its uncaught exceptions (conftest.LivePages)
    reset(page, "?seed=7")
    seen["bundled"] = reader_sees(page)
    assert not page.errors, ("bundled", page.errors)
    page = new_page(reduced_motion="reduce")  # the same window and motion as the session's page
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    open_bench(page, f"{unbundled}{lang}/specdec/?seed=7")
    seen["unbundled"] = reader_sees(page)
    assert not errors, ("unbundled", errors)
    assert seen["bundled"]["via"] == "emscripten", seen["bundled"]["via"]
    assert seen["bundled"] == seen["unbundled"]
