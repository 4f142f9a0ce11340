"""The site's service worker, /sw.js: the page and its bench work offline after one visit.

Written last but one (before _headers, whose rules cover it), from service_worker.js with this
build's files filled in: each file's path below the site's root and the short sha256 of its
bytes (the same short hash as the `?v=` versions and the start files' names), the build's name
(a hash of that list, so any changed file makes a new worker and a new cache), and the files
stored at install: the pages, /static/ and Pyodide. The language's snapshot is stored when the
page asks for it; the fallback's files (stdlib, wheel, lock, models) are never stored.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from .. import assets

SOURCE = Path(__file__).with_name("service_worker.js")
FILE = "sw.js"
# Read by the host or the build, never fetched by a page.
NOT_OFFLINE = {FILE, "_headers", "_redirects", ".specdec-site.json", "robots.txt", "sitemap.xml"}
# Stored only when a page uses them (one language's snapshot) or never (the fallback's files).
ON_USE = ("py/", "models/")


# Read by the browser's developer tools alone: the scripts' and style sheets' source maps.
DEVTOOLS_ONLY = ".map"


def offline_files(site: Path) -> dict[str, str]:
    """path below the site's root (a folder's index.html as the folder, "en/specdec/") -> short hash."""
    files = {}
    for path in sorted(site.rglob("*")):
        rel = path.relative_to(site).as_posix()
        # Never stored: Pyodide's .wasm itself (the offline copy holds its .xz, and the worker keeps
        # the decoded .wasm in a cache of its own), which a page then fetches as without this worker.
        if not path.is_file() or rel in NOT_OFFLINE or rel.endswith(DEVTOOLS_ONLY) or path.name == assets.WASM_PLAIN:
            continue
        if path.name == "index.html":
            rel = rel[: -len("index.html")]
        files[rel] = assets.short_hash(path.read_bytes())
    return files


def write_service_worker(site: Path) -> str:
    """Write site/sw.js for the site as it stands; return the build's name."""
    files = offline_files(site)
    build = hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()[:16]
    shell = [path for path in files if not path.startswith(ON_USE)]
    source = SOURCE.read_text(encoding="utf-8")
    text = (source.replace('"__BUILD__"', json.dumps(build))
            .replace("__FILES__", json.dumps(files, indent=0, sort_keys=True))
            .replace("__SHELL__", json.dumps(shell, indent=0)))
    (site / FILE).write_text(text, encoding="utf-8")
    return build
