"""A build into a temporary folder: every route, Pyodide's files, and byte-stable output."""

import re

import pytest

from corpus.sources import corpus_dir
from sitebuild.errors import BuildError
from sitebuild.pipeline import Options, build

ROUTES = ["index.html", "en/specdec/index.html", "zh/specdec/index.html",
          "embed/en/specdec/index.html", "embed/zh/specdec/index.html", "404.html"]


def test_every_route_is_built(built_site):
    for route in ROUTES:
        assert (built_site / route).is_file(), route


def test_pyodide_is_self_hosted_under_a_versioned_path(built_site):
    wasm = list(built_site.glob("pyodide/v*/pyodide.asm.wasm.xz"))
    assert len(wasm) == 1
    assert len(list(built_site.glob("pyodide/v*/pyodide.asm.wasm"))) == 1  # for a host that sends brotli
    # the worker's start files (sitebuild/startup): tests/sitebuild/test_start_files.py checks them
    assert len(list(built_site.glob("py/python_stdlib.*.zip"))) == 1
    assert len(list(built_site.glob("py/sim.*/specdec_sim-*.whl"))) == 1
    for lang in ("en", "zh"):
        assert (built_site / "models" / f"{lang}.json").is_file()


@pytest.mark.parametrize("route,lang", [("en/specdec/index.html", "en"), ("zh/specdec/index.html", "zh-Hans")])
def test_page_language_and_alternates(base_url_site, route, lang):
    html = (base_url_site / route).read_text()
    assert f'<html lang="{lang}"' in html
    assert 'hreflang="en"' in html and 'hreflang="zh-Hans"' in html and 'hreflang="x-default"' in html


def test_embed_has_no_chrome_and_points_to_the_full_page(built_site):
    html = (built_site / "embed/en/specdec/index.html").read_text()
    assert "site-header" not in html and "site-footer" not in html
    assert 'name="robots" content="noindex"' in html
    assert re.search(r'<a href="\.\./\.\./\.\./en/specdec/" target="_blank"', html)


@pytest.mark.parametrize("site", ["built_site", "base_url_site"])
def test_no_page_loads_anything_from_another_host(site, request):
    built_site = request.getfixturevalue(site)
    for route in ROUTES:
        html = (built_site / route).read_text()
        for url in re.findall(r'(?:src|href)="(https?://[^"]+)"', html):
            # Only links a reader clicks (and canonical/alternate metadata) may be absolute.
            tag = html[: html.index(url)].rsplit("<", 1)[1]
            assert tag.startswith(("a ", "link rel=\"canonical\"", "link rel=\"alternate\"")), (route, url)


@pytest.fixture(scope="module")
def built_again(tmp_path_factory):
    """A second build of the real inputs, in this process and into a folder of its own, and its result:
    the two tests below share it (the one compares it, the other builds over it without --force)."""
    out = tmp_path_factory.mktemp("again") / "_site"
    return out, build(Options(out=out, corpus=corpus_dir(), force=True))


def test_two_builds_give_identical_output(built_site, built_again, tree_digest):
    again, _ = built_again
    assert tree_digest(again) == tree_digest(built_site)


def test_unchanged_inputs_skip_the_build(built_again, tree_digest):
    out, first = built_again
    before = tree_digest(out)
    second = build(Options(out=out, corpus=corpus_dir()))
    assert not first.skipped and second.skipped
    assert tree_digest(out) == before


def test_failed_build_leaves_the_previous_site(previous_site, tmp_path, tree_digest):
    before = tree_digest(previous_site)
    with pytest.raises(BuildError, match="corpus file not found"):
        build(Options(out=previous_site, corpus=tmp_path / "no-corpus", force=True))
    assert tree_digest(previous_site) == before
    assert not list(tmp_path.glob(".out.*"))


def test_a_rebuild_with_kept_models_gives_the_same_bytes_as_a_cold_build(built_site, previous_site, build_memo,
                                                                         tree_digest):
    """What `serve` does after each save (reuse the models and figures) changes nothing."""
    build(Options(out=previous_site, corpus=corpus_dir(), force=True), build_memo)
    build(Options(out=previous_site, corpus=corpus_dir(), force=True), build_memo)
    assert tree_digest(previous_site) == tree_digest(built_site)


def test_the_built_site_holds_nothing_of_the_development_server(built_site):
    """The reload channel is added by `serve` to the pages it sends, never written to the site."""
    for path in built_site.rglob("*"):
        if path.is_file() and "pyodide" not in path.parts:
            data = path.read_bytes()
            assert b"__specdec__" not in data and b"EventSource" not in data, path


def test_help_describes_every_option():
    import build as build_cli

    parser = build_cli.make_parser()
    assert all(action.help for action in parser._actions), "an option without help text"
    text = " ".join(parser.format_help().split())
    assert "--host HOST serve: the address to listen on" in text
    assert "--port PORT serve: the port to listen on (default: 8000; 0 picks a free one)" in text
