"""Fixtures for build tests that change inputs: copies of the content and templates, and one
memo so that the models and figures are computed once for all of them."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from helpers.projects import project_in

from sitebuild.pipeline import Options


def _tree_digest(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*")) if p.is_file()
    }


@pytest.fixture(scope="session")
def tree_digest():
    """tree_digest(root): every file under root (marker included) and its sha256."""
    return _tree_digest


@pytest.fixture(scope="session")
def build_memo() -> dict:
    """Models, figures and the bench picture, kept across the tests' builds (as `serve` keeps them)."""
    return {}


@pytest.fixture
def project(tmp_path) -> Options:
    """Options building a private copy of site/ and templates/ into tmp_path/out; tests may break
    the copies freely."""
    return project_in(tmp_path)


@pytest.fixture(scope="session")
def marked_site(built_site) -> Path:
    """A site built from the real inputs, with its marker; tests copy it, never change it.
    The session's one build (tests/conftest.py), which every build marks."""
    return built_site


@pytest.fixture
def previous_site(tmp_path, marked_site) -> Path:
    """A private copy of a good build, standing where a new build would replace it."""
    out = tmp_path / "out"
    shutil.copytree(marked_site, out)
    return out
