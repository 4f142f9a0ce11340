"""Projects the build tests may break: copies of the content and the templates, and their Options."""

from __future__ import annotations

import shutil
from pathlib import Path

from corpus.sources import corpus_dir
from sitebuild.pipeline import SITE, TEMPLATES, Options


def project_in(folder: Path) -> Options:
    """Options building a private copy of site/ and templates/ (made in folder) into folder/out."""
    site, templates = folder / "site", folder / "templates"
    shutil.copytree(SITE, site)
    shutil.copytree(TEMPLATES, templates)
    return Options(out=folder / "out", corpus=corpus_dir(), site=site, templates=templates)
