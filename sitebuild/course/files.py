"""Which of a built site's files a language's package holds: exactly what its embed loads.

Read from the package's copy of the embed (rendered with the package's profile:
sitebuild/profiles.py) and the built files, not from a list kept by hand: the page names its style
sheets, scripts, Pyodide's files and the start files (src, href and the start fields' addresses), each script names the
modules it imports, and the lock names its wheel. Nothing else is taken: no _headers, sitemap,
service worker, full pages or the other language's snapshot and model.
"""

from __future__ import annotations

import json
import posixpath
import re
from pathlib import Path

from .. import assets
from ..errors import BuildError
from ..pages import page_route
from ..profiles import PACKAGE
from ..startup import contract

# The page's local addresses: src/href, and the start fields' addresses (the start contract's url fields).
URL_ATTRIBUTES = "|".join(re.escape(contract.attribute(f.name)) for f in contract.FIELDS if f.kind == "url")
PAGE_REFS = re.compile(rf'\b(?:src|href|data-(?:{URL_ATTRIBUTES}))="([^"#?:]+)(?:\?[^"]*)?"')
# A module's static imports (`import ... from "./x.js"`, `import "./x.js"`), literal dynamic ones,
# and the workers it starts from its own folder (`new URL("./x.js", import.meta.url)`).
MODULE_REFS = re.compile(r'(?:\bfrom\s*|\bimport\s*\(?\s*|\bnew URL\(\s*)"(\.{1,2}/[^"]+\.js)"')


def embed_path(lang: str) -> str:
    return page_route(lang, embed=True).path + "index.html"


def read(site: Path, rel: str) -> bytes:
    path = site / rel
    if not path.is_file():
        raise BuildError(f"the course package needs {rel}, which the built site does not hold", file=path)
    return path.read_bytes()


def modules(site: Path, first: list[str]) -> list[str]:
    """Every script reached from `first` through its imports (site-relative paths)."""
    seen, todo = [], list(first)
    while todo:
        rel = todo.pop()
        if rel in seen:
            continue
        seen.append(rel)
        text = read(site, rel).decode("utf-8")
        todo += [posixpath.normpath(posixpath.join(posixpath.dirname(rel), ref)) for ref in MODULE_REFS.findall(text)]
    return seen


def needed(site: Path, lang: str, page: str) -> list[str]:
    """The site's files the language's embed loads, as the package's copy of it (`page`) names
    them; site-relative, Pyodide's by the site's names."""
    rel = embed_path(lang)
    base = posixpath.dirname(rel)
    refs = [posixpath.normpath(posixpath.join(base, ref)) for ref in PAGE_REFS.findall(page)]
    files = {rel}
    for ref in refs:
        folder = site / ref
        if ref.startswith("pyodide/") and folder.is_dir():  # data-pyodide: Pyodide's folder
            # The files the worker may ask for, by the page's start fields: the .wasm itself only
            # where the profile names it (the package's does not).
            files |= {f"{ref}/{p.name}" for p in folder.iterdir()
                      if p.is_file() and (PACKAGE.wasm_plain or p.name != assets.WASM_PLAIN)}
        elif ref.startswith("pyodide/"):  # one of its scripts (under the package's name): the folder holds it
            continue
        elif ref.endswith("pyodide-lock.json"):  # the lock and the wheel it names
            lock = json.loads(read(site, ref))
            files |= {ref} | {posixpath.join(posixpath.dirname(ref), p["file_name"]) for p in lock["packages"].values()}
        elif ref != base:  # a file (not the page's own bench link, href="?...")
            files.add(ref)
    files |= set(modules(site, [f for f in files if f.endswith(".js") and f.startswith("static/")]))
    return sorted(files)


def package_files(site: Path, lang: str, page: str) -> dict[str, bytes]:
    """The package's copy of the embed (`page`) and everything it loads, by the package's paths
    (the site's, but Pyodide's scripts under the names the package's profile gives them)."""
    files = {}
    for rel in needed(site, lang, page):
        data = page.encode("utf-8") if rel == embed_path(lang) else read(site, rel)
        if rel.startswith("pyodide/"):
            rel = posixpath.join(posixpath.dirname(rel), PACKAGE.pyodide_name(posixpath.basename(rel)))
        files[rel] = data
    if "static/js/startup/sim-worker.js" not in files:
        raise BuildError(f"the course package found no static/js/startup/sim-worker.js among the files {embed_path(lang)} loads")
    mjs = [rel for rel in files if rel.endswith(".mjs")]
    if mjs:
        raise BuildError(f"the course package would hold {', '.join(mjs)}: an LMS serves .mjs as "
                         "application/octet-stream, which a module import refuses",
                         fix="give it a name an LMS serves as JavaScript: LMS_NAMES in sitebuild/startup/pyodide_adapter.mjs "
                             "(sitebuild/profiles.py says why)")
    return files
