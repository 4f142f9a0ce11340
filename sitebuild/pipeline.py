"""The build, step by step: corpus -> models -> sim -> figures -> pages, into one staged folder.

1. Refuse an output folder the build may not replace (output.check_target).
2. Stamp the inputs; if the output holds exactly what they build, stop (freshness).
3. Read, check, count, compute and render (render.prepare). As soon as the models and their
   readout tables exist, a thread starts making the start files (Pyodide in Node, cached under
   .cache/start-files/), so Node works on one core while the figures are measured on the other;
   beside it, Pyodide's .wasm is compressed to .xz (cached too).
4. Write the static files, Pyodide's files, the start files and the pages into a staging folder, sign it with its marker and
   manifest, and swap it in whole (output.staged).

Each stage says one line as it ends (sitebuild/progress.py): counting, figures, start files,
pages, packages (the course packages, sitebuild/course/), swap; then a summary. A build that finds
nothing changed says nothing but that.

This module imports only light modules, so step 2 is quick; the heavy ones come with step 3.
A new build product is one more write in write_page_files (files the page loads) or in
render.write_pages (files made from the content); _headers, written last, covers it by its folder.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from . import assets, bundles, freshness, output, stylesheets
from . import base_url as base_urls
from .progress import Progress, children_cpu
from .settings import PageFiles

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
    start: str = "snapshot"  # how the page's worker starts Python: "snapshot" (and the wheel as its fallback) or "wheel" alone
    bundled: bool = True  # the scripts bundled and minified by esbuild (False: the modules as written, sitebuild/bundles.py)
    site: Path = SITE  # content and static files (tests build broken copies)
    templates: Path = TEMPLATES


@dataclass
class Result:
    out: Path
    skipped: bool
    seconds: float
    reports: list[str] = field(default_factory=list)
    summary: str = ""  # the last line the build says: "built: OUT in S s (CPU C s ...)" or "up to date: ..."


def _thread_cpu(work: Callable, *args) -> float:
    """The CPU seconds work(*args) took in this thread."""
    cpu = time.thread_time()
    work(*args)
    return time.thread_time() - cpu


def _start_inputs(models: dict, measured: dict[str, str]) -> tuple[dict, dict]:
    return ({lang: model.json_text.encode("utf-8") for lang, model in models.items()},
            {lang: text.encode("utf-8") for lang, text in measured.items()})


class StartFilesMaker:
    """Makes the start files into their cache in a thread (Node does the work, in its own
    process), so that the figures and pages are made meanwhile; write_page_files then copies them.

    One maker runs at a time: a build that starts while another's Node still runs (the dev
    server after a failed build) waits for it and then finds the files in the cache."""

    _one_at_a_time = threading.Lock()

    def __init__(self):
        self.thread: threading.Thread | None = None
        self.error: BaseException | None = None
        self.seconds = 0.0
        self.cpu = 0.0  # the thread's and Node's
        self.made = None  # what it was started for (the build's memo records it)

    def start(self, models: dict, measured: dict[str, str], snapshots: bool = True) -> None:
        self.thread = threading.Thread(target=self._make, args=(*_start_inputs(models, measured), snapshots),
                                       name="start files")
        self.thread.start()

    def _make(self, model_bytes: dict, measured: dict, snapshots: bool) -> None:
        from . import startup  # runs Pyodide in Node when its cache misses: not needed for step 2

        started, cpu, children = time.perf_counter(), time.thread_time(), children_cpu()
        wasm_cpu = 0.0
        try:
            with self._one_at_a_time, ThreadPoolExecutor(max_workers=1) as pool:
                # Pyodide's .wasm as .xz depends on nothing of ours: it is compressed on a core of
                # its own (lzma lets go of the GIL) while the sim wheel is built and Node runs,
                # rather than after them, and write_page_files finds it in the cache.
                wasm = pool.submit(_thread_cpu, startup.wasm_stream, startup.cache_root())
                startup.start_files(model_bytes, startup.cache_root(), measured, snapshots)
                wasm_cpu = wasm.result()
        except BaseException as err:  # noqa: BLE001 - raised again in the build's own thread by wait()
            self.error = err
        self.seconds = time.perf_counter() - started
        # Node is the only child process the build runs meanwhile.
        self.cpu = time.thread_time() - cpu + wasm_cpu + children_cpu() - children

    def wait(self) -> tuple[float, float]:
        """Seconds the making took, in wall and CPU time; its error, if it failed."""
        if self.thread is not None:
            self.thread.join()
        if self.error is not None:
            raise self.error
        return self.seconds, self.cpu


def write_page_files(stage: Path, models: dict, measured: dict[str, str], site: Path = SITE,
                     snapshots: bool = True, bundled: bool = True) -> PageFiles:
    """Static files, Pyodide's files, the start files and the models; return them as the pages name them.
    measured: per language, the readout table the snapshots' sessions open with; snapshots=False:
    none made (`--start=wheel`); bundled: the scripts bundled by esbuild (else as written)."""
    from . import startup

    static = site / "static"
    sheets = stylesheets.sheets(static)  # each kind of page's one sheet, checked before any work
    made_from = (stylesheets.FOLDER, bundles.JS) if bundled else (stylesheets.FOLDER,)
    static_versions = assets.copy_static(static, stage, leave_out=made_from)
    published = bundles.write(static, stage, sheets, bundled)
    static_versions |= published.versions
    model_bytes, measured_bytes = _start_inputs(models, measured)
    start_files = startup.write_start_files(stage, model_bytes, measured_bytes, snapshots)
    (stage / "models").mkdir()
    model_versions = {}
    for lang, data in model_bytes.items():
        (stage / "models" / f"{lang}.json").write_bytes(data)
        model_versions[lang] = assets.short_hash(data)
        # The heads' table beside it: the page fetches it only when a reader chooses the heads draft.
        (stage / "models" / f"{lang}-heads.json").write_text(models[lang].heads_json, encoding="utf-8")
    # The bench pages' style sheet as a host that compresses ahead sends it: the page tells such a
    # host by this size (sim-boot.js, hostSendsBrotli).
    sheet_brotli = assets.brotli_size((stage / "static" / stylesheets.published("all")).read_bytes())
    return PageFiles(versions=static_versions, preloads=published.preloads, models=model_versions,
                     sheet_brotli=sheet_brotli, start_files=start_files)


def build(opts: Options, memo: dict | None = None, say: Callable[[str], None] | None = None) -> Result:
    """Build the site into opts.out, or do nothing if it already holds what the inputs build.

    memo: kept by the development server between rebuilds (see render.py).
    say: told one line per stage as it ends (print; none: silent). The summary is Result.summary.
    """
    progress = Progress(say)
    out = output.check_target(opts.out, inputs=(opts.corpus, opts.site, opts.templates))
    stamp = freshness.input_stamp(opts)
    if not opts.force and freshness.up_to_date(out, stamp):
        seconds = progress.elapsed()
        return Result(out, True, seconds, [], f"up to date: {out} ({seconds:.2f} s)")

    from . import course, headers, pages, render
    from .startup import offline

    # A failure in prepare is reported at once; a maker already started finishes on its own
    # (its files are cached for the next build; build.py's process ends when it has).
    maker = StartFilesMaker()
    snapshots = opts.start != "wheel"

    def make_start_files(models: dict, measured: dict[str, str]) -> None:
        # The dev server's memo: files made for these models in this process are in the cache
        # (the server restarts when code changes), so a rebuild only copies them.
        made = (tuple(m.json_text for m in models.values()), tuple(measured.values()), opts.start)
        if memo is None or memo.get("start files made") != made:
            maker.start(models, measured, snapshots)
            maker.made = made

    products = render.prepare(opts, memo, progress, on_models=make_start_files)
    made_s, made_cpu = maker.wait()
    if memo is not None and maker.thread is not None:
        memo["start files made"] = maker.made
    with output.staged(out) as stage:
        with progress.part("start files"):
            products.files = write_page_files(stage, products.models, products.measured, opts.site, snapshots,
                                              opts.bundled)
        progress.add("start files", made_s, made_cpu)
        progress.line("start files", ("the stdlib, the sim wheel and the snapshots" if snapshots else
                                      "the stdlib and the sim wheel, no snapshots (--start=wheel)")
                      + (", made in Node alongside the figures and pages" if maker.thread else ", copied from .cache/start-files/"))
        with progress.stage("pages") as note:
            render.write_pages(stage, products)
            offline.write_service_worker(stage)  # lists every file written so far
            note.detail = f"{len(pages.ROUTES)} routes"
        with progress.stage("packages") as note:  # after the service worker: it keeps none of them
            courses = course.courses(products)
            banks = course.question_banks(opts.site, courses, products.languages)
            base_url = products.site.base_url
            note.detail = course.write(stage, courses, render.package_pages(products), base_url, memo,
                                       course.bank_files(banks, courses, base_url))
        headers.write(stage, pages.ROUTES)  # last: its rules are read from the files written
        if stamp is None:  # the books were just downloaded: now they can be stamped
            stamp = freshness.input_stamp(opts)
        freshness.write_marker(stage, stamp)
        swap_started, swap_cpu = time.perf_counter(), time.thread_time()
    progress.add("swap", time.perf_counter() - swap_started, time.thread_time() - swap_cpu)
    progress.line("swap", f"into {out}")
    reports = [base_urls.report(products.site.base_url)]
    return Result(out, False, progress.elapsed(), reports, progress.summary(out))
