"""Each kind of page links one style sheet, concatenated at build time from site/static/css/.

Why one: every <link rel="stylesheet"> blocks the first paint, and on a slow link each is one more
request in the queue (Lighthouse's simulated mobile 4G allows 6 HTTP/1.1 connections; the full
page linked 8 sheets besides its module preloads). The sources stay one file per component; a
bundle is its sources in the order listed here, which is the order the page linked them one by
one, so the cascade is unchanged. The sources themselves are not published: no page links them.
Each source's named frames (`@media (--page-bar)`) are written out from sitebuild/frames.py.

This table is the one list of which sheets each kind of page uses; pages.py says which kind each
template is, and the templates link `runtime.static`'s version of it.
"""

from __future__ import annotations

from pathlib import Path

from . import frames
from .assets import short_hash
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
# A rule that must come first in its sheet: concatenated, it would be ignored (or ignore the rest).
FIRST_ONLY = ("@import", "@charset")


def published(kind: str) -> str:
    """The bundle's path under /static/ (and its key in runtime.static): css/<kind>.css."""
    if kind not in BUNDLES:
        raise BuildError(f"no style sheet for pages of kind {kind!r} (the kinds are {', '.join(BUNDLES)})",
                         file=HERE)
    return f"{FOLDER}/{kind}.css"


def bundle(sources: Path, kind: str) -> bytes:
    """The kind's sources in order, each under a comment naming it (which devtools then shows)."""
    parts = []
    for name in BUNDLES[kind]:
        path = sources / name
        if not path.is_file():
            raise BuildError(f"the style sheet {published(kind)} lists {name}, which is not in {sources}",
                             file=HERE)
        text = path.read_text(encoding="utf-8")
        first_only = next((rule for rule in FIRST_ONLY if rule in text), None)
        if first_only:
            raise BuildError(f"{first_only} cannot be bundled: it only works at the top of a style sheet",
                             file=path, fix="write the rule out in the sheet itself")
        text = frames.expand(text, path)
        parts.append(f"/* {FOLDER}/{name} */\n{text}" + ("" if text.endswith("\n") else "\n"))
    return "".join(parts).encode("utf-8")


def write(static: Path, out: Path) -> dict[str, str]:
    """Write every kind's bundle to out/static/css/; return their versions by published path.
    static: site/static, whose css/ holds the sources."""
    sources = static / FOLDER
    listed = {name for names in BUNDLES.values() for name in names}
    for path in sorted(sources.glob("*.css")):
        if path.name not in listed:
            raise BuildError(f"no page's style sheet takes {path.name}", file=path,
                             fix="add it to BUNDLES in sitebuild/stylesheets.py, in its place in the cascade")
        if path.name in {f"{kind}.css" for kind in BUNDLES}:
            raise BuildError(f"{path.name} has the name of a built style sheet", file=path, fix="rename it")
    versions = {}
    for kind in BUNDLES:
        data = bundle(sources, kind)
        target = out / "static" / published(kind)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        versions[published(kind)] = short_hash(data)
    return versions
