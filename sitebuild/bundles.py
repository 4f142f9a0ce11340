"""The page's scripts and style sheets as the site publishes them: bundled and minified by esbuild.

The sources stay one file per component (site/static/js/, site/static/css/). The build hands them
to esbuild (npm, pinned in package.json; sitebuild/esbuild.mjs runs it) in four groups:

- the page's modules (PAGE_ENTRIES): ES modules with code splitting, so what several entries share
  is one file, `js/chunk-<hash>.js`, named by its content (a new build's chunk has a new name). The
  full page, the embed and the course launcher share the bench's code that way, and the tests'
  debug hooks (bench/debug.js, which no reader's page loads) share the page's own instance of
  bench/api.js. The head preloads the chunks its entry imports (`preloads`), so they are asked for
  with the entry instead of after it.
- the workers (WORKER_ENTRIES): one file each, no chunk: a chunk would be one more round trip
  before the sim worker can ask for Pyodide's files. The snapshot's decoder is also published alone
  (snapshot-inflate.js), for the tests that drive it on a page's thread and in Node. xz-decompress
  stays the vendored file it is (assets.VENDORED_JS), imported when the .wasm or a snapshot is decoded.
- the classic scripts (CLASSIC_ENTRIES: the worker's start, whether the link's state is the first
  picture's, the embed's theme): one IIFE each.
- the style sheets: one per kind of page, from its sources in cascade order (sitebuild/stylesheets.py).

Everything is minified, with its source map beside it (the sources included, so the browser's
developer tools show the components by name). Unbundled (`build.py --unbundled`, for editing
scripts with the development server), the modules are copied as written and the head preloads
what the page's first imports need; the style sheets are joined the same way, unminified.
A script no entry reaches stops the build: it would silently not ship.
"""

from __future__ import annotations

import json
import posixpath
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .assets import REPO, short_hash
from .errors import BuildError

RUNNER = Path(__file__).with_name("esbuild.mjs")
ESBUILD_PACKAGE = REPO / "node_modules" / "esbuild"
JS = "js"  # under site/static/ and the site's /static/
PAGE_ENTRIES = ("page.js", "embed.js", "progress.js", "bench/debug.js")  # progress.js: the course launcher's
WORKER_ENTRIES = ("startup/sim-worker.js", "startup/snapshot-inflate-worker.js", "startup/snapshot-inflate.js")
CLASSIC_ENTRIES = ("startup/sim-boot.js", "link-state.js", "theme.js")
# Imported by its plain name and copied as it is from npm, with its license (assets.VENDORED_JS).
EXTERNAL = ("./vendor/xz-decompress.js",)
# Unbundled, what the head preloads: the page's sim client, so that it takes over the worker that
# sim-boot.js started as soon as page.js imports it (docs/architecture.md, "The start-up in the page").
UNBUNDLED_PRELOADS = ("js/startup/sim-start.js", "js/startup/sim-client.js")


@dataclass
class Published:
    versions: dict[str, str]  # path under /static/ -> short hash of its bytes (the `?v=` versions)
    preloads: dict[str, list[str]]  # an entry's path under /static/ -> the chunks it imports, in order


def esbuild_version() -> str:
    try:
        return json.loads((ESBUILD_PACKAGE / "package.json").read_text())["version"]
    except FileNotFoundError:
        raise BuildError(f"{ESBUILD_PACKAGE}: esbuild is not installed; run `npm ci` first") from None


def _common(static: Path, minify: bool) -> dict:
    return {"absWorkingDir": str(static), "bundle": True, "minify": minify, "sourcemap": "linked",
            "charset": "utf8", "legalComments": "eof"}


def _outdir(static: Path) -> Path:
    """Where esbuild is told it writes (it writes nothing: the build does). The source maps name
    their sources relative to it: ../../../site/static/js/bench/api.js, wherever the site is built."""
    return static.parent.parent / "_published" / "static"


def _script_jobs(static: Path) -> list[dict]:
    js, out = static / JS, _outdir(static) / JS
    common = _common(static, minify=True) | {"outdir": str(out), "outbase": str(js), "entryNames": "[dir]/[name]"}
    entries = lambda names: [str(js / name) for name in names]  # noqa: E731
    return [
        common | {"entryPoints": entries(PAGE_ENTRIES), "format": "esm", "splitting": True,
                  "chunkNames": "chunk-[hash]", "external": list(EXTERNAL)},
        common | {"entryPoints": entries(WORKER_ENTRIES), "format": "esm", "external": list(EXTERNAL)},
        common | {"entryPoints": entries(CLASSIC_ENTRIES), "format": "iife"},
    ]


def _sheet_jobs(static: Path, sheets: dict[str, tuple[str, ...]], minify: bool) -> list[dict]:
    """One job per sheet (its path under /static/ -> its sources under static/css/, in order), each
    source read as stylesheets.source_text gives it (its named frames written out)."""
    from .stylesheets import source_text

    jobs = []
    for published, sources in sheets.items():
        folder = static / posixpath.dirname(published)
        imports = "".join(f'@import "./{name}";\n' for name in sources)
        jobs.append(_common(static, minify) | {
            "stdin": {"contents": imports, "resolveDir": str(folder), "sourcefile": posixpath.basename(published),
                      "loader": "css"},
            "outfile": str(_outdir(static) / published),
            "contents": {str(folder / name): source_text(folder / name) for name in sources}})
    return jobs


def _run(jobs: list[dict]) -> tuple[dict[str, bytes], list[dict]]:
    from .startup.maker import node_binary

    esbuild_version()  # installed?
    run = subprocess.run([node_binary(), str(RUNNER)], input=json.dumps(jobs), capture_output=True, text=True,
                         cwd=REPO)
    if run.returncode != 0:
        raise BuildError("esbuild refused the page's scripts or style sheets: " + run.stderr.strip().replace("\n", "; "))
    result = json.loads(run.stdout)
    return {output["path"]: output["text"].encode("utf-8") for output in result["outputs"]}, result["metafiles"]


def _unreached(static: Path, metafiles: list[dict]) -> list[str]:
    inputs = {posixpath.normpath(name) for meta in metafiles for name in meta["inputs"]}
    return [path.relative_to(static).as_posix() for path in sorted((static / JS).rglob("*.js"))
            if path.relative_to(static).as_posix() not in inputs]


def _chunks(meta: dict, entry_out: str, prefix: str) -> list[str]:
    """The chunks an output imports statically, and theirs, in order, as paths under /static/."""
    found, todo = [], [entry_out]
    while todo:
        for imported in meta["outputs"][todo.pop(0)]["imports"]:
            if imported["kind"] == "import-statement" and not imported.get("external") and imported["path"] not in found:
                found.append(imported["path"])
                todo.append(imported["path"])
    return [path.removeprefix(prefix) for path in found]


def write(static: Path, out: Path, sheets: dict[str, tuple[str, ...]], bundled: bool = True) -> Published:
    """Write the bundles (or, unbundled, the sheets alone) under out/static/; return their versions
    and each page entry's chunks. static: site/static; sheets: stylesheets.sheets()."""
    jobs = _sheet_jobs(static, sheets, minify=bundled)
    if bundled:
        jobs = _script_jobs(static) + jobs
    outputs, metafiles = _run(jobs)
    if bundled:
        unreached = _unreached(static, metafiles)
        if unreached:
            raise BuildError(f"no page loads {', '.join(unreached)}: no entry of sitebuild/bundles.py imports it",
                             file=static / unreached[0], fix="import it from a script that a page loads, "
                             "or add it to the entries in sitebuild/bundles.py")
    root = _outdir(static)
    versions = {}
    for path, data in outputs.items():
        rel = Path(path).relative_to(root).as_posix()
        target = out / "static" / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        versions[rel] = short_hash(data)
    prefix = posixpath.relpath(str(root), str(static)) + "/"
    if not bundled:
        return Published(versions, {f"{JS}/{name}": list(UNBUNDLED_PRELOADS) for name in PAGE_ENTRIES})
    meta = metafiles[0]
    preloads = {f"{JS}/{name}": _chunks(meta, f"{prefix}{JS}/{name}", prefix) for name in PAGE_ENTRIES}
    return Published(versions, preloads)
