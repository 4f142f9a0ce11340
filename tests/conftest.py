"""Fixtures shared by the build and browser tests: one built site per test session."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

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
