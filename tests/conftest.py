"""Fixtures shared by the tests: one built site and one set of real models per test session.

The suite runs in several processes (pytest-xdist, see pyproject.toml); a site is still built
once per run, by whichever process needs it first, and shared by all (`once_per_run`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from filelock import FileLock

from helpers import corpus_models
from corpus.sources import corpus_dir
from sitebuild.pipeline import Options, build


def once_per_run(tmp_path_factory, name: str, make: Callable[[Path], None]) -> Path:
    """The folder `name`/_site, made by make(folder) once for the whole run: under xdist, the first
    worker to ask makes it while holding a file lock, and the others wait for it and reuse it.
    Tests read such a folder and never change it (those that change a site copy it first)."""
    if "PYTEST_XDIST_WORKER" not in os.environ:  # one process (-n 0, or -p no:xdist)
        out = tmp_path_factory.mktemp(name) / "_site"
        make(out)
        return out
    shared = tmp_path_factory.getbasetemp().parent  # this run's folder, common to the workers
    out, done = shared / name / "_site", shared / f"{name}.done"
    with FileLock(shared / f"{name}.lock"):
        if not done.exists():
            make(out)
            done.touch()
    return out


def pytest_xdist_auto_num_workers(config):
    """`-n auto` (pyproject.toml) as one process per core and one more: with one per core, a core
    idles while its process waits (a first visit's downloads, a service worker's wait for the
    network, another browser's start), and the extra process fills that time (docs/testing.md).
    PYTEST_XDIST_AUTO_NUM_WORKERS still decides when it is set (None: pytest-xdist's own reading)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    return len(os.sched_getaffinity(0)) + 1 if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1) + 1


# The order the test modules are handed out in (pytest-xdist sends whole modules, in collection
# order, to whichever process is free: --dist loadscope --no-loadscope-reorder). First the modules
# that need no built site (no test asks for `built_site`, directly or through another fixture), so
# that while the first process to need the site builds it (on a fresh clone that includes Pyodide's
# snapshots, made in Node) the others are busy. Then the modules marked `long` (a rough weight in
# seconds of one process's time: `pytest.mark.long(seconds)`), longest first, then the other
# browser modules, and last the many short site checks, so that no process is left running a
# long module alone at the end. The longest `long` module goes before all of them (below).
SITE_FIXTURES = {"built_site", "site_url", "base_url_site"}


def module_rank(items) -> tuple[int, float]:
    """Where a module's tests go in the order above (items: the module's tests)."""
    if not any(SITE_FIXTURES & set(item.fixturenames) for item in items):
        return (0, 0)
    long = [m for item in items for m in item.iter_markers("long")]
    if long:
        return (1, -max(m.args[0] for m in long))
    return (2, 0) if any(item.get_closest_marker("browser") for item in items) else (3, 0)


def pytest_collection_modifyitems(items):
    modules: dict[Path, list] = {}
    for item in items:
        modules.setdefault(Path(item.path), []).append(item)
    ranks = {path: module_rank(tests) for path, tests in modules.items()}
    # The longest module that needs the site goes out first of all: the process that takes it
    # builds the site at once while the others run the modules that need none. (Behind them, both
    # processes reached the site together and one waited for the other's build: 74 s on a fresh
    # clone at load 15.)
    marked_long = [(rank, str(path)) for path, rank in ranks.items() if rank[0] == 1]
    if marked_long:
        ranks[Path(min(marked_long)[1])] = (-1, 0)
    items.sort(key=lambda item: ranks[Path(item.path)])  # stable: each module's tests stay in order


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    return once_per_run(tmp_path_factory, "site",
                        lambda out: build(Options(out=out, corpus=corpus_dir(), force=True)))


# Where the base-URL build says it is published: a sub-path, as a course server would host it.
PUBLISHED_AT = "https://example.org/courses/specdec/"


@pytest.fixture(scope="session")
def published_at() -> str:
    return PUBLISHED_AT


@pytest.fixture(scope="session")
def base_url_site(tmp_path_factory) -> Path:
    """The site built with --base-url PUBLISHED_AT: canonical links, sitemap, a 404 page rooted there."""
    return once_per_run(tmp_path_factory, "published",
                        lambda out: build(Options(out=out, corpus=corpus_dir(), force=True, base_url=PUBLISHED_AT)))


@pytest.fixture(scope="session")
def site_url(built_site):
    """Serve the built site on a free loopback port with the production headers."""
    from helpers.loopback import LoopbackSite

    with LoopbackSite(built_site) as served:
        yield served.url


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
