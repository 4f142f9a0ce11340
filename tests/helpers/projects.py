"""Projects the build tests may break: copies of the content and the templates, and their Options;
and tiny two-language sites written from scratch."""

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


# A chapter file of the tiny sites the content tests write.
CHAPTER = '+++\ntitle = "{title}"\ncaption = "{caption}"\npart = "drum"\n+++\n\n{body}\n'


def write_site(root: Path, en_body: str, zh_body: str, zh_strings: str = 'a = "甲"\n') -> Path:
    for lang, body, strings in (("en", en_body, 'a = "A"\n'), ("zh", zh_body, zh_strings)):
        (root / lang).mkdir(parents=True)
        (root / lang / "01-onebyone.md").write_text(CHAPTER.format(title="T", caption="C", body=body))
        (root / lang / "strings.toml").write_text(strings)
    return root
