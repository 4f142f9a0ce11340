"""The package's copy of the site, adapted to the way an LMS serves a package's files.

An LMS (Moodle's SCORM player, Canvas's SCORM tool, Open edX's XBlock) serves the unpacked zip
with its own MIME table and headers, not ours: no _headers, no Content-Encoding, and for any
extension it does not know `application/octet-stream`. Moodle's table knows .js (as
application/x-javascript, one of the HTML standard's JavaScript MIME types, so module scripts and
module workers load), .html, .css, .json, .svg, .zip; not .mjs and not .wasm. What breaks then,
and what the copy does about it (checked in Chromium by tests/browser/test_course_package.py,
with a server that sends that table):

- Pyodide's two scripts are ES modules named .mjs: served as octet-stream, a module import is
  refused. The copy gives them the names the build's adapter to Pyodide gives them for a package
  (sitebuild/startup/pyodide_adapter.mjs, LMS_NAMES, which says why they are what they are), and
  the embed's start-up settings give the worker those names (the start fields pyodideScript and
  pyodideModule). Pyodide's own files are copied byte for byte: the worker hands Pyodide its
  module (pyodide-adapter.js), so Pyodide's loader never imports its module by its name.
- Pyodide's .wasm is an .xz stream of it (assets.WASM_XZ), which any type serves: the worker
  decodes it and hands the compile the bytes as application/wasm itself (wasm-inflate.js), then
  hands Pyodide that module: the same worker as the site's.
- The service worker: the page registers it only if the page names one (data-service-worker);
  the copy names none and holds no sw.js, so nothing of the package is cached beside the LMS; nor
  does the sim worker keep the decoded .wasm there (data-wasm-cache empty).
- Pyodide's .wasm itself, which the site's worker fetches where the host sends it with brotli, is
  left out (9.6 MB as an LMS sends it): the copy names none (data-wasm-plain empty).
- The snapshot (.xz, decompressed by the worker itself) and the stdlib zip and wheel (fetched as
  bytes) need no type; nothing relies on Content-Encoding.
- The embed's link to the full page: the package has no full page, so with a base URL it opens
  the hosted one, and without one it is hidden (data-page empty).
- The embed's links to other chapters (a reference, the next chapter at a chapter's end) show
  that chapter in place (body[data-package]: embed.js), so that the LMS counts what the student
  reads and the launcher's chapter list follows.

Each rewrite must match exactly as often as it says, or the build stops: an edited page that no
longer holds the text is named, rather than shipped unadapted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .. import assets
from ..errors import BuildError

FIX = "update sitebuild/course/adapt.py to the new text (see its notes on why each rewrite is there)"


def renamed() -> dict[str, str]:
    """Pyodide's scripts, each with the name an LMS serves as JavaScript (the docstring says why)."""
    return assets.pyodide_files()["lms"]


@dataclass(frozen=True)
class Rewrite:
    old: str  # a regular expression
    new: str
    count: int  # how many times it must match
    why: str


def apply(name: str, text: str, rewrites: list[Rewrite]) -> str:
    for rewrite in rewrites:
        text, found = re.subn(rewrite.old, rewrite.new, text)
        if found != rewrite.count:
            raise BuildError(f"the course package's copy of {name}: {rewrite.why}, but "
                             f"/{rewrite.old}/ matched {found} times, not {rewrite.count}", fix=FIX)
    return text


def embed_page(hosted: bool) -> list[Rewrite]:
    """The embed's page. hosted: built with a base URL, so its link already opens the hosted full
    page (an absolute address); without one the link is relative, to a page the package lacks."""
    link = [] if hosted else [
        Rewrite(r'<a href="[^"]*"( target="_blank" rel="noopener" class="embed__full") data-page="[^"]*"',
                r'<a hidden\1 data-page=""', 1, "the link to the full page is hidden (no full page here)")]
    scripts = [Rewrite(rf'( data-pyodide-(?:script|module)="[^"]*/){re.escape(old)}"', rf'\g<1>{new}"', 1,
                       f"the worker imports {old} as {new}") for old, new in renamed().items()]
    return [Rewrite(r' data-service-worker="[^"]*"', ' data-service-worker=""', 1, "no service worker in the package"),
            *scripts,
            Rewrite(r' data-wasm-cache="[^"]*"', ' data-wasm-cache=""', 1, "the worker keeps nothing beside the LMS"),
            Rewrite(r' data-wasm-plain="[^"]*"', ' data-wasm-plain=""', 1,
                    "the worker fetches the .xz (an LMS sends no Content-Encoding: the .wasm itself is 9.6 MB)"),
            Rewrite(r'<body class="embed" data-embed="true"', '<body class="embed" data-embed="true" data-package="true"', 1,
                    "its chapters show other chapters in place"),
            *link]
