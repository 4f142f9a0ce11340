"""The up-to-date check cannot be fooled: every input's bytes and every output file count.

The tests share one project, built once for the module: each changes an input or an output, checks
that the next build is not skipped, and leaves the project built and up to date for the next (an
Options field it changes is put back), so that one build and one rebuild per test is all they cost."""

from __future__ import annotations

import dataclasses
import shutil

import pytest
from helpers.projects import project_in

from corpus.sources import corpus_dir
from sitebuild.errors import BuildError
from sitebuild.pipeline import build


@pytest.fixture(scope="module")
def shared_project(tmp_path_factory, build_memo, built_site):
    """A private copy of site/ and templates/ (tests/sitebuild/conftest.py: project), built once.
    After the session's build (built_site), whose start files it then takes from the cache: on a
    fresh clone the two builds would otherwise both make them in Node at the same time."""
    options = project_in(tmp_path_factory.mktemp("freshness"))
    build(options, build_memo)
    return options


@pytest.fixture
def built(shared_project, build_memo):
    """The shared project, built and up to date; the Options fields a test changes are put back,
    and the project rebuilt to them, after it."""
    saved = dataclasses.replace(shared_project)
    yield shared_project
    if shared_project != saved:
        for field in dataclasses.fields(saved):
            setattr(shared_project, field.name, getattr(saved, field.name))
        build(shared_project, build_memo)


def test_nothing_changed_skips_the_build(built, build_memo, tree_digest):
    """(How quickly: benchmarks/build_benchmark.py times the no-change build; no test is timed.)"""
    before = tree_digest(built.out)
    again = build(built, build_memo)
    assert again.skipped
    assert tree_digest(built.out) == before


def test_a_deleted_output_file_is_rebuilt(built, build_memo):
    page = built.out / "en" / "specdec" / "index.html"
    text = page.read_bytes()
    page.unlink()
    assert not build(built, build_memo).skipped
    assert page.read_bytes() == text


def test_an_edited_output_file_is_rebuilt_even_at_the_same_size(built, build_memo):
    page = built.out / "zh" / "specdec" / "index.html"
    text = page.read_bytes()
    page.write_bytes(text.replace(b"<html", b"<HTML", 1))
    assert not build(built, build_memo).skipped
    assert page.read_bytes() == text


def test_an_added_output_file_is_rebuilt_away(built, build_memo):
    (built.out / "en" / "stray.html").write_text("not the build's")
    assert not build(built, build_memo).skipped
    assert not (built.out / "en" / "stray.html").exists()


def test_a_changed_template_rebuilds(built, build_memo):
    base = built.templates / "base.html"
    base.write_text(base.read_text(encoding="utf-8") + "\n{# an edit #}\n", encoding="utf-8")
    assert not build(built, build_memo).skipped


def test_a_changed_static_file_rebuilds(built, build_memo):
    css = built.site / "static" / "css" / "site.css"
    css.write_text(css.read_text(encoding="utf-8") + "\n.an-edit { color: red }\n", encoding="utf-8")
    assert not build(built, build_memo).skipped
    for sheet in (built.out / "static" / "css").glob("*.css"):  # every page's sheet starts with site.css
        assert ".an-edit{color:red}" in sheet.read_text(encoding="utf-8"), sheet.name


def test_a_corrupted_corpus_byte_is_reported_not_skipped(built, build_memo, tmp_path, tree_digest):
    corpus = tmp_path / "corpus"
    shutil.copytree(corpus_dir(), corpus, ignore=shutil.ignore_patterns("*.md"))
    built.corpus = corpus
    build(built, build_memo)  # a good build from this copy of the corpus
    book = corpus / "en" / "alice.txt"
    data = bytearray(book.read_bytes())
    data[5000] ^= 0x01
    book.write_bytes(bytes(data))
    before = tree_digest(built.out)
    with pytest.raises(BuildError, match=r"en/alice\.txt: sha256 is [0-9a-f]{64}, the manifest expects"):
        build(built, build_memo)
    assert tree_digest(built.out) == before


def test_a_different_base_url_rebuilds(built, build_memo):
    built.base_url = "https://example.org/specdec/"
    assert not build(built, build_memo).skipped
    assert 'href="https://example.org/specdec/en/specdec/"' in (built.out / "en/specdec/index.html").read_text()


def test_a_base_url_set_then_removed_rebuilds_each_time(built, build_memo):
    """The base URL is an input: adding it writes the sitemap, removing it takes it away."""
    built.base_url = "https://example.org/specdec/"
    assert not build(built, build_memo).skipped
    assert (built.out / "sitemap.xml").is_file()
    assert build(built, build_memo).skipped
    built.base_url = None
    assert not build(built, build_memo).skipped
    assert not (built.out / "sitemap.xml").exists()
