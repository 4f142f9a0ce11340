"""A build into a temporary folder: every route, the runtime, and byte-stable output."""

import hashlib
import re
from pathlib import Path

import pytest

from corpus.sources import corpus_dir
from sitebuild.errors import BuildError
from sitebuild.pipeline import Options, build

ROUTES = ["index.html", "en/specdec/index.html", "zh/specdec/index.html",
          "embed/en/specdec/index.html", "embed/zh/specdec/index.html"]


def tree_digest(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_every_route_is_built(built_site):
    for route in ROUTES:
        assert (built_site / route).is_file(), route


def test_pyodide_is_self_hosted_under_a_versioned_path(built_site):
    runtime = list(built_site.glob("pyodide/v*/pyodide.asm.wasm"))
    assert len(runtime) == 1
    # the worker's start-up files (sitebuild/runtime): tests/site/test_runtime_files.py checks them
    assert len(list(built_site.glob("py/python_stdlib.*.zip"))) == 1
    assert len(list(built_site.glob("py/sim.*/specdec_sim-*.whl"))) == 1
    for lang in ("en", "zh"):
        assert (built_site / "models" / f"{lang}.json").is_file()


@pytest.mark.parametrize("route,lang", [("en/specdec/index.html", "en"), ("zh/specdec/index.html", "zh-Hans")])
def test_page_language_and_alternates(built_site, route, lang):
    html = (built_site / route).read_text()
    assert f'<html lang="{lang}"' in html
    assert 'hreflang="en"' in html and 'hreflang="zh-Hans"' in html and 'hreflang="x-default"' in html


def test_embed_has_no_chrome_and_points_to_the_full_page(built_site):
    html = (built_site / "embed/en/specdec/index.html").read_text()
    assert "site-header" not in html and "site-footer" not in html
    assert 'name="robots" content="noindex"' in html
    assert re.search(r'rel="canonical" href="[^"]+/en/specdec/"', html)


def test_no_page_loads_anything_from_another_host(built_site):
    for route in ROUTES:
        html = (built_site / route).read_text()
        for url in re.findall(r'(?:src|href)="(https?://[^"]+)"', html):
            # Only links a reader clicks (and canonical/alternate metadata) may be absolute.
            tag = html[: html.index(url)].rsplit("<", 1)[1]
            assert tag.startswith(("a ", "link rel=\"canonical\"", "link rel=\"alternate\"")), (route, url)


def test_two_builds_give_identical_output(built_site, tmp_path):
    again = tmp_path / "again"
    build(Options(out=again, corpus=corpus_dir(), force=True))
    assert tree_digest(again) == tree_digest(built_site)


def test_unchanged_inputs_skip_the_build(tmp_path):
    out = tmp_path / "site"
    first = build(Options(out=out, corpus=corpus_dir(), force=True))
    second = build(Options(out=out, corpus=corpus_dir()))
    assert not first.skipped and second.skipped


def test_failed_build_leaves_the_previous_site(tmp_path, monkeypatch):
    out = tmp_path / "site"
    (out / "keep").mkdir(parents=True)
    (out / "keep" / "index.html").write_text("previous")
    with pytest.raises(BuildError, match="corpus file not found"):
        build(Options(out=out, corpus=tmp_path / "no-corpus", force=True))
    assert (out / "keep" / "index.html").read_text() == "previous"
    assert not list(tmp_path.glob(".site.staging-*"))
