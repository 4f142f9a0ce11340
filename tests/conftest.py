"""Fixtures shared by the tests: one built site and one set of real models per test session."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

import corpus_models
from corpus.sources import corpus_dir
from sitebuild.pipeline import Options, build


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site") / "_site"
    build(Options(out=out, corpus=corpus_dir(), force=True))
    return out


# Where the base-URL build says it is published: a sub-path, as a course server would host it.
PUBLISHED_AT = "https://example.org/courses/specdec/"


@pytest.fixture(scope="session")
def published_at() -> str:
    return PUBLISHED_AT


@pytest.fixture(scope="session")
def base_url_site(tmp_path_factory) -> Path:
    """The site built with --base-url PUBLISHED_AT: canonical links, sitemap, a 404 page rooted there."""
    out = tmp_path_factory.mktemp("published") / "_site"
    build(Options(out=out, corpus=corpus_dir(), force=True, base_url=PUBLISHED_AT))
    return out


@pytest.fixture(scope="session")
def site_url(built_site):
    """Serve the built site on a free loopback port with the production headers."""
    from sitebuild.serve import make_server

    server = make_server(built_site, "127.0.0.1", 0, verbose=False)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


@pytest.fixture(scope="session")
def sim_model_docs() -> dict[str, dict]:
    return {lang: corpus_models.model_doc(lang) for lang in corpus_models.LANGS}


@pytest.fixture(scope="session")
def sim_languages():
    return {lang: corpus_models.language(lang) for lang in corpus_models.LANGS}


@pytest.fixture(scope="session")
def en(sim_languages):
    return sim_languages["en"]


@pytest.fixture(scope="session")
def zh(sim_languages):
    return sim_languages["zh"]
