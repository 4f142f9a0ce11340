"""Each kind of page links one style sheet, bundled at build time from site/static/css/ by esbuild.

Why one: every <link rel="stylesheet"> blocks the first paint, and on a slow link each is one more
request in the queue (Lighthouse's simulated mobile 4G allows 6 HTTP/1.1 connections; the full
page linked 8 sheets besides its module preloads). The sources stay one file per component; a
bundle is its sources in the order listed here, which is the order the page linked them one by
one, so the cascade is unchanged (esbuild bundles them as `@import`s in that order, minifies them
and writes the source map beside: sitebuild/bundles.py). The sources themselves are not
published: no page links them.
Each source's named frames (`@media (--page-bar)`) are written out from sitebuild/frames.py
first (`source_text`).

This table is the one list of which sheets each kind of page uses; pages.py says which kind each
template is, and the templates link `files.versions`'s version of it.
"""

from __future__ import annotations

from pathlib import Path

from . import frames
from .errors import BuildError

FOLDER = "css"  # under site/static/, and under the site's /static/
HERE = Path(__file__)
# The bench's sheets, the chapters' Try it blocks' and the full page's embed dialog.
BENCH = ("bench.css", "frames.css", "diagrams.css", "tryit.css", "race.css", "owntext.css", "dialog.css")
BUNDLES = {
    "index": ("site.css",),  # the language chooser and 404.html: no bench
    # The full pages, the embeds and the course packages' launcher: one file for all of them, so
    # the service worker stores it once and an embed's reader who opens the full page has it in
    # cache. The embed has no dialog: its 1.9 kB of rules, all under .embed-dialog, match nothing there.
    "all": ("site.css", *BENCH),
}


def published(kind: str) -> str:
    """The bundle's path under /static/ (and its key in the pages' `files.versions`, sitebuild/settings.py): css/<kind>.css."""
    if kind not in BUNDLES:
        raise BuildError(f"no style sheet for pages of kind {kind!r} (the kinds are {', '.join(BUNDLES)})",
                         file=HERE)
    return f"{FOLDER}/{kind}.css"


def sheets(static: Path) -> dict[str, tuple[str, ...]]:
    """Each kind's sheet (its path under /static/) and its sources, in order, for the bundler
    (sitebuild/bundles.py), once every source is known to be taken by a sheet and to exist.
    static: site/static, whose css/ holds the sources."""
    sources = static / FOLDER
    listed = {name for names in BUNDLES.values() for name in names}
    for path in sorted(sources.glob("*.css")):
        if path.name not in listed:
            raise BuildError(f"no page's style sheet takes {path.name}", file=path,
                             fix="add it to BUNDLES in sitebuild/stylesheets.py, in its place in the cascade")
        if path.name in {f"{kind}.css" for kind in BUNDLES}:
            raise BuildError(f"{path.name} has the name of a built style sheet", file=path, fix="rename it")
    for kind, names in BUNDLES.items():
        for name in names:
            if not (sources / name).is_file():
                raise BuildError(f"the style sheet {published(kind)} lists {name}, which is not in {sources}",
                                 file=HERE)
    return {published(kind): names for kind, names in BUNDLES.items()}


def source_text(path: Path) -> str:
    """A source as the bundler reads it: its named frames written out (sitebuild/frames.py)."""
    return frames.expand(path.read_text(encoding="utf-8"), path)
