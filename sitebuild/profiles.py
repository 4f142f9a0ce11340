"""Where a copy of a page is served, as the settings its templates and start-up settings read.

A page is rendered once per place that serves it, from the same templates: the site's pages with
SITE, each course package's copy of the embed with PACKAGE (sitebuild/render.py, package_pages).
Nothing edits a page after it is rendered; what differs between the two copies is these fields.

Why the package's copy is what it is. An LMS (Moodle's SCORM player, Canvas's SCORM tool, Open
edX's XBlock) serves the unpacked zip with its own MIME table and headers, not ours: no _headers,
no Content-Encoding, and for any extension it does not know `application/octet-stream`. Moodle's
table knows .js (as application/x-javascript, one of the HTML standard's JavaScript MIME types, so
module scripts and module workers load), .html, .css, .json, .svg, .zip; not .mjs and not .wasm.
What breaks then, and what the profile says (checked in Chromium by
tests/browser/test_course_package.py, with a server that sends that table):

- Pyodide's two scripts are ES modules named .mjs: served as octet-stream, a module import is
  refused. The package holds them under the names the build's adapter to Pyodide gives them for
  an LMS (sitebuild/startup/pyodide_adapter.mjs, LMS_NAMES, which says why they are what they are;
  `lms_script_names`), and the start fields pyodideScript and pyodideModule give the worker those
  names. Pyodide's own files are copied byte for byte: the worker hands Pyodide its module
  (pyodide-adapter.js), so Pyodide's loader never imports its module by its name.
- Pyodide's .wasm is an .xz stream of it (assets.WASM_XZ), which any type serves: the worker
  decodes it and hands the compile the bytes as application/wasm itself (wasm-inflate.js), then
  hands Pyodide that module: the same worker as the site's.
- The service worker: the page registers it only if the page names one (the start field
  serviceWorker); the package's copy names none and holds no sw.js (`service_worker`), so nothing
  of the package is cached beside the LMS; nor does the sim worker keep the decoded .wasm there
  (the start field wasmCache empty: `wasm_cache`).
- Pyodide's .wasm itself, which the site's worker fetches where the host sends it with brotli, is
  left out (9.6 MB as an LMS sends it): the copy names none (the start field wasmPlain empty:
  `wasm_plain`), and the package does not hold it.
- The snapshot (.xz, decompressed by the worker itself) and the stdlib zip and wheel (fetched as
  bytes) need no type; nothing relies on Content-Encoding.
- The embed's link to the full page: the package has no full page (`full_page_beside`), so with a
  base URL it opens the hosted one, and without one it is hidden.
- The embed's links to other chapters (a reference, the next chapter at a chapter's end) show
  that chapter in place (body[data-package]: embed.js; `chapters_in_place`), so that the LMS
  counts what the student reads and the launcher's chapter list follows.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Profile:
    # The page names the site's service worker (sw.js), which keeps an offline copy of the site.
    service_worker: bool
    # The sim worker keeps the decoded .wasm in Cache Storage (the start field wasmCache).
    wasm_cache: bool
    # The sim worker may fetch Pyodide's .wasm itself where the host sends it with brotli (wasmPlain);
    # without it the .xz stream alone is named, and held.
    wasm_plain: bool
    # Pyodide's scripts go by the names an LMS serves as JavaScript (the build's adapter's LMS names).
    lms_script_names: bool
    # The full page is served beside the embed, so the embed links it even without a base URL
    # (relatively); without it, only a base URL gives the link (the hosted page), else it is hidden.
    full_page_beside: bool
    # The embed's links to other chapters show them in place (body[data-package], embed.js).
    chapters_in_place: bool

    def pyodide_name(self, name: str) -> str:
        """Pyodide's file `name` as this copy names and holds it."""
        if not self.lms_script_names:
            return name
        from . import assets  # asks the build's adapter (Node) once: not at import

        return assets.pyodide_files()["lms"].get(name, name)


SITE = Profile(service_worker=True, wasm_cache=True, wasm_plain=True, lms_script_names=False,
               full_page_beside=True, chapters_in_place=False)
PACKAGE = Profile(service_worker=False, wasm_cache=False, wasm_plain=False, lms_script_names=True,
                  full_page_beside=False, chapters_in_place=True)
