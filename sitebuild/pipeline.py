"""The build, step by step: corpus -> models -> sim -> figures -> pages, into one staged folder.

1. Refuse an output folder the build may not replace (output.check_target).
2. Stamp the inputs; if the output holds exactly what they build, stop (freshness).
3. Read, check, count, compute and render (render.prepare).
4. Write the runtime files and the pages into a staging folder, sign it with its marker and
   manifest, and swap it in whole (output.staged).

This module imports only light modules, so step 2 is quick; the heavy ones come with step 3.
A new build product is one more write in write_runtime (files the page loads) or in
render.write_pages (files made from the content); _headers, written last, covers it by its folder.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from . import assets, freshness, output
from . import base_url as base_urls

REPO = Path(__file__).resolve().parent.parent
SITE = REPO / "site"
TEMPLATES = REPO / "templates"


@dataclass
class Options:
    out: Path
    corpus: Path
    download: bool = False
    force: bool = False
    base_url: str | None = None
    site: Path = SITE  # content and static files (tests build broken copies)
    templates: Path = TEMPLATES


@dataclass
class Result:
    out: Path
    skipped: bool
    seconds: float
    reports: list[str] = field(default_factory=list)


def write_runtime(stage: Path, models: dict, measured: dict[str, str], site: Path = SITE) -> dict:
    """Static files, Pyodide and its start-up files, and the models; return their versioned paths.
    measured: per language, the readout table the snapshots' sessions open with."""
    from . import runtime  # runs Pyodide in Node when its cache misses: not needed for step 2

    static_versions = assets.copy_static(site / "static", stage)
    model_bytes = {lang: model.json_text.encode("utf-8") for lang, model in models.items()}
    python = runtime.write_runtime_files(stage, model_bytes,
                                         {lang: text.encode("utf-8") for lang, text in measured.items()})
    (stage / "models").mkdir()
    model_versions = {}
    for lang, data in model_bytes.items():
        (stage / "models" / f"{lang}.json").write_bytes(data)
        model_versions[lang] = assets.short_hash(data)
    return {**python, "static": static_versions, "models": model_versions}


def build(opts: Options, memo: dict | None = None) -> Result:
    """Build the site into opts.out, or do nothing if it already holds what the inputs build.

    memo: kept by the development server between rebuilds (see render.py).
    """
    started = time.perf_counter()
    out = output.check_target(opts.out, inputs=(opts.corpus, opts.site, opts.templates))
    stamp = freshness.input_stamp(opts)
    if not opts.force and freshness.up_to_date(out, stamp):
        return Result(out, True, time.perf_counter() - started, ["nothing changed"])

    from . import headers, pages, render
    from .runtime import offline

    products = render.prepare(opts, memo)
    with output.staged(out) as stage:
        products.site["runtime"] = write_runtime(stage, products.models, products.measured, opts.site)
        render.write_pages(stage, products)
        offline.write_service_worker(stage)  # lists every file written so far
        headers.write(stage, pages.ROUTES)  # last: its rules are read from the files written
        if stamp is None:  # the books were just downloaded: now they can be stamped
            stamp = freshness.input_stamp(opts)
        freshness.write_marker(stage, stamp)
    reports = [m.report for m in products.models.values()] + [base_urls.report(products.site["base_url"])]
    return Result(out, False, time.perf_counter() - started, reports)
