"""The site's settings, as the templates and the build's modules read them (by attribute).

- Site: what the site says of itself, known before anything is written: its base URL and the
  path it is served under, the date it was updated, and the full pages' hreflang alternates.
- PageFiles: the files written before the pages, as the pages name them: each static file's
  version (its `?v=`), the chunks each page script preloads, each model's version, the style
  sheet's size as a host that compresses ahead sends it, and the start files (the snapshots, the
  sim wheel, its lock and the stdlib: sitebuild/startup, StartFiles).

Where a page is served (the site, a course package) is a third setting, its profile
(sitebuild/profiles.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .startup import StartFiles


@dataclass(frozen=True)
class Alternate:
    hreflang: str
    href: str


@dataclass(frozen=True)
class Site:
    base_url: str | None  # with its trailing slash; None: the build has none (no absolute links)
    site_path: str  # the site's path on its host ("/" without a base URL): 404.html's links start there
    updated: str  # ISO date (site/meta.toml)
    alternates: tuple[Alternate, ...]  # every language's full page and the chooser; none without a base URL


@dataclass(frozen=True)
class PageFiles:
    versions: dict[str, str]  # path under /static/ -> short hash of its bytes
    preloads: dict[str, list[str]]  # a page script's path under /static/ -> the chunks it imports, in order
    models: dict[str, str]  # per language: the short hash of its model's bytes
    sheet_brotli: int  # the bench pages' style sheet as brotli -q 11 makes it (sim-boot.js, hostSendsBrotli)
    start_files: StartFiles
