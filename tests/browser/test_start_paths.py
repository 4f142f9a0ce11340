"""How the bench's worker starts Python: from the language's memory snapshot, or, when
the snapshot is missing, broken or not this page's, from the trimmed stdlib and the sim wheel;
and the loading message, which counts the bytes fetched and then names the stage."""

from __future__ import annotations

import base64
import functools
import json
import lzma
import random
import re
import threading
import time
from pathlib import Path

import pytest
from helpers.benchpage import DEBUG_HOOKS, DEBUG_MODULE
from helpers.loopback import LoopbackSite
from helpers.pyodide_snapshot import memory_offset, packed_whole, unpack_spans

from corpus.sources import corpus_dir
from sim.session import open_session
from sitebuild.pipeline import Options, build
from sitebuild.serve import SiteHandler
from sitebuild.startup.maker import compress_snapshot

pytestmark = [pytest.mark.browser, pytest.mark.long(50)]

LIVE = "#b[data-mode=live][data-busy=false]"
TIMEOUT_MS = 90_000
PREFIX = {"en": "said the", "zh": "慢慢"}

# The page's own sim-start.js (startSim, simClient), as the debug hooks' module exports it
# (benchpage.DEBUG_MODULE: the page's own instance, bundled or not), which SIM_START below imports.
SIM_START = DEBUG_MODULE

# The page's own client: sim-start.js is loaded once per page, so importing it returns it.
PAGE_CLIENT = """async ([prefix]) => {
  const client = (await import(SIM_START)).simClient();
  return { via: client.via, start: await client.call('start', { prefix }) };
}""".replace("SIM_START", SIM_START)


def snapshot_file(built_site, lang):
    (path,) = built_site.glob(f"py/{lang}.*.snapshot.xz")
    return path


def open_page(browser, site_url, lang, route=None, init_script=None, live=True):
    # No service worker: its install after live (every page and Pyodide, fetched and hashed) is
    # test_offline.py's subject, and here it would only add to what these starts cost.
    context = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    context.add_init_script(DEBUG_HOOKS)  # LIVE reads the debug hooks' marks
    if init_script:
        context.add_init_script(init_script)
    if route:
        context.route("**/*.snapshot.xz", route)
    page = context.new_page()
    page.requests_seen, page.console_errors, page.warnings = [], [], []
    page.on("request", lambda r: page.requests_seen.append(r.url))
    page.on("console", lambda m: (page.console_errors if m.type == "error" else page.warnings).append(m.text))
    page.on("pageerror", lambda e: page.console_errors.append(str(e)))
    page.goto(f"{site_url}{lang}/specdec/")
    if live:
        page.wait_for_selector(LIVE, timeout=TIMEOUT_MS)
    return context, page


@pytest.fixture(scope="module")
def live_en(shared_contexts, site_url):
    """One first visit of en/specdec/ (a page of the shared desktop context), gone live: the page
    the tests below share, each starting workers of its own beside the page's (stopped when done),
    which changes nothing of what the page's own start left (its marks are each kept from their
    first report; the workers it started up to live are recorded then, as page.workers_at_live)."""
    page = shared_contexts.page()
    page.console_errors, workers = [], []
    page.on("console", lambda m: m.type == "error" and page.console_errors.append(m.text))
    page.on("pageerror", lambda e: page.console_errors.append(str(e)))
    page.on("worker", lambda worker: workers.append(worker.url.split("?")[0].rsplit("/", 1)[-1]))
    page.goto(f"{site_url}en/specdec/")
    page.wait_for_selector(LIVE, timeout=TIMEOUT_MS)
    page.workers_at_live = list(workers)
    yield page
    page.close()


def cpython_start(built_site, lang):
    session = open_session((built_site / "models" / f"{lang}.json").read_text(encoding="utf-8"))
    return json.loads(session.handle("start", json.dumps({"prefix": PREFIX[lang]})))["result"]


# Every text and bar value the status shows, recorded as they change.
RECORD_STATUS = """() => {
  window.statusLog = [];
  const record = () => {
    // The observer runs while the page is parsed: the box may be in without its bar yet.
    const box = document.querySelector('#b .b-status');
    const bar = box && box.querySelector('.b-status__bar');
    if (!bar) return;
    const text = box.querySelector('.b-status__text').textContent;
    const entry = [box.dataset.state, text, bar.hidden ? null : bar.value, bar.max];
    const last = window.statusLog[window.statusLog.length - 1];
    if (!last || last.join('|') !== entry.join('|')) window.statusLog.push(entry);
  };
  new MutationObserver(record).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
  document.addEventListener('DOMContentLoaded', record);
}"""

# The workers the page itself starts, by address (the sim worker, the snapshot's decoder).
RECORD_WORKERS = """() => {
  const PageWorker = window.Worker;
  window.startedWorkers = [];
  window.Worker = class extends PageWorker {
    constructor(url, options) {
      super(url, options);
      window.startedWorkers.push(new URL(url, document.baseURI).href);
    }
  };
}"""

DOWNLOAD = {"en": r"Downloading Python: ([\d.]+) / ([\d.]+) MB", "zh": r"正在下载 Python：([\d.]+) / ([\d.]+) MB"}


class HeldSnapshotSite(LoopbackSite):
    """The built site on a server of the test's own that holds each answer for a snapshot until
    release(): a reader on a real link reads the loading message while the snapshot comes in, and
    on localhost every file could be in before the bench's scripts have drawn the message at all
    (the worker starts first; the message then names only the last stage, as it did in a CI run).
    Held by the server, not by a Playwright route: a route on the page's context kept the nested
    decoding worker's script from loading."""

    def __init__(self, root: Path):
        released = self.released = threading.Event()

        class Handler(SiteHandler):
            def do_GET(self):
                if self.path.split("?")[0].endswith(".snapshot.xz"):
                    released.wait(TIMEOUT_MS / 1000)
                super().do_GET()

        super().__init__(root, handler=functools.partial(Handler, directory=str(root)))

    def close(self):
        self.released.set()
        super().close()


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.adapter("withPrecompiledWasm", "restoreSnapshot", "snapshotMemory", "watchFetches", "answerFetch", "startPyodide", "unpackWheel", "saveMemory", "zeroFreeChunks", "write_pyc_zip", "without_columns", "refill_stdin_buffer", "stdlib_zip_path")
def test_each_language_restores_its_own_snapshot_and_the_loading_message_counts_its_bytes(browser, built_site, lang):
    """One first visit per language (a fresh context): what the worker fetched and restored, and
    what the loading message said on the way (it counts the bytes fetched while the snapshot is
    held back, then fills its bar). The snapshot's decoding worker is the page's: the sim worker
    starts none (Firefox's stall, docs/testing.md), so its script is fetched once, at the address
    the page started it from."""
    site = HeldSnapshotSite(built_site)
    try:
        context, page = open_page(browser, site.url, lang, init_script=f"({RECORD_STATUS})(); ({RECORD_WORKERS})()", live=False)
        page.wait_for_function("(pattern) => (window.statusLog || []).some((e) => new RegExp(pattern).test(e[1]))",
                               arg=DOWNLOAD[lang], timeout=TIMEOUT_MS)
        site.released.set()
        page.wait_for_selector(LIVE, timeout=TIMEOUT_MS)
        log = page.evaluate("window.statusLog")  # up to live
        sizes = json.loads(page.evaluate("self.specdecSimBoot.settings.sizes"))
        got = page.evaluate(PAGE_CLIENT, [PREFIX[lang]])
        assert got["via"] == "snapshot"
        # The snapshot path fetches what it uses and nothing else: the model, the wheel, the stdlib
        # (all of it imported in the snapshot) and the lock (no package to install) stay unfetched.
        fetched = sorted(u.split("/")[-1] for u in page.requests_seen
                         if "/py/" in u or "/pyodide/" in u or "/models/" in u)
        snapshot = snapshot_file(built_site, lang).name
        assert fetched == sorted(["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm.xz", snapshot]), fetched
        inflated_there = [u for u in page.requests_seen if u.split("?")[0].endswith("/snapshot-inflate-worker.js")]
        started = page.evaluate("window.startedWorkers")
        assert [u.split("?")[0].rsplit("/", 1)[-1] for u in started] == ["sim-worker.js", "snapshot-inflate-worker.js"], started
        assert inflated_there == [started[1]], (inflated_there, started)
        # The decoding worker downloads the snapshot itself: the sim worker fetched the .wasm's .xz
        # and not the snapshot (its bytes would wait there while that thread decodes the .wasm).
        fetched_by_sim = [u.split("?")[0].rsplit("/", 1)[-1] for u in sim_worker_fetches(page)]
        assert "pyodide.asm.wasm.xz" in fetched_by_sim and snapshot not in fetched_by_sim, fetched_by_sim
        assert got["start"] == cpython_start(built_site, lang)  # the other language's model would differ
        assert not page.console_errors, page.console_errors
        context.close()
    finally:
        site.close()
    check_loading_message(log, sizes, lang)


@functools.cache
def brotli_of(path: Path, quality: int) -> bytes:
    import brotli

    return brotli.compress(path.read_bytes(), quality=quality)


class BrotliHost(LoopbackSite):
    """The built site on a host that compresses with brotli (for a browser that asks for it): the
    bench pages' style sheet at `sheet_quality` (11: as a host that compresses ahead sends it, the
    size the page looks for; 5: as one that compresses as it sends), and Pyodide's .wasm itself
    brotli-encoded (at quality 1: its size costs nothing on loopback, its 27 s at quality 11 would)
    or, with wasm_encoded=False, as it is. Each request's file name is logged; with hold=True the
    snapshot's answers wait for release, as HeldSnapshotSite's do."""

    def __init__(self, root: Path, sheet_quality: int, wasm_encoded: bool = True, hold: bool = False):
        asked = self.asked = []
        released = self.released = threading.Event()
        if not hold:
            released.set()

        class Handler(SiteHandler):
            def do_GET(self):
                path = self.path.split("?")[0]
                asked.append(path.rsplit("/", 1)[-1])
                if path.endswith(".snapshot.xz"):
                    released.wait(TIMEOUT_MS / 1000)
                file = Path(self.translate_path(self.path))
                brotli_asked = "br" in self.headers.get("Accept-Encoding", "")
                if brotli_asked and path.endswith("/static/css/all.css"):
                    return self.send_brotli(brotli_of(file, sheet_quality), "text/css")
                if brotli_asked and wasm_encoded and path.endswith("/pyodide.asm.wasm"):
                    return self.send_brotli(brotli_of(file, 1), "application/wasm")
                super().do_GET()

            def send_brotli(self, body: bytes, kind: str):
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Encoding", "br")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        super().__init__(root, handler=functools.partial(Handler, directory=str(root)))

    def close(self):
        self.released.set()
        super().close()


# The page's own navigation entry as a link of `ms` milliseconds from its first byte to its last
# would give it (sim-boot.js, fastLink, reads it once, before the worker starts): how fast the
# test's loopback server is depends on the machine's load, which a test must not.
# `cached`: as a page from the browser's cache gives it (no bytes on the wire).
PAGE_CAME_IN = """(ms, cached) => {
  const real = Performance.prototype.getEntriesByType;
  Performance.prototype.getEntriesByType = function (type) {
    const entries = real.call(this, type);
    if (type !== "navigation" || !entries[0]) return entries;
    const size = entries[0].encodedBodySize;
    const transferSize = cached ? 0 : size + 300; // its body and headers
    return [{ encodedBodySize: size, transferSize, responseStart: 50, responseEnd: 50 + ms, toJSON: () => ({}) }];
  };
}"""


@pytest.mark.adapter("withPrecompiledWasm", "restoreSnapshot", "watchFetches")
def test_where_the_host_sends_brotli_over_a_fast_link_the_worker_fetches_the_wasm_itself(browser, built_site):
    """A host whose style sheet comes in as many bytes as brotli -q 11 makes of it (one that
    compresses ahead, sim-boot.js: hostSendsBrotli), with the page in at 40 Mbit/s or more
    (fastLink), gets a request for Pyodide's .wasm itself, which comes brotli-encoded and is
    compiled as it is: the .xz is never asked for, the bench starts from the snapshot, and the
    loading message counts the .wasm as the .xz's share. The worker asks for the .xz alone where
    the page came in slower (the .xz's decoding then goes by during its download) or from the
    browser's cache (which says nothing of the link, and holds the .xz after a first visit), or where the
    sheet comes as a host that compresses as it sends makes it (quality 5); where the .wasm itself
    comes unencoded (9.6 MB), the worker drops it and reads the .xz."""
    page_bytes = (built_site / "en/specdec/index.html").stat().st_size
    fast, slow = 1, page_bytes * 8 / 20e6 * 1000  # ms: the page at 2.7 Gbit/s, or at 20 Mbit/s
    cases = {  # (sheet's quality, .wasm encoded, the page's ms, from the cache): the start files asked for, in order
        "ahead": ((11, True, fast, False), ["pyodide.asm.wasm"]),
        "ahead, a slow link": ((11, True, slow, False), ["pyodide.asm.wasm.xz"]),
        "ahead, the page from the cache": ((11, True, fast, True), ["pyodide.asm.wasm.xz"]),
        "as it sends": ((5, True, fast, False), ["pyodide.asm.wasm.xz"]),
        "ahead, the .wasm as it is": ((11, False, fast, False), ["pyodide.asm.wasm", "pyodide.asm.wasm.xz"]),
    }
    for case, ((quality, wasm_encoded, ms, cached), wasm_files) in cases.items():
        site = BrotliHost(built_site, quality, wasm_encoded, hold=case == "ahead")
        try:
            script = f"({RECORD_STATUS})(); ({PAGE_CAME_IN})({ms}, {str(cached).lower()})"
            context, page = open_page(browser, site.url, "en", init_script=script, live=False)
            if case == "ahead":  # the loading message read while the snapshot is held back
                page.wait_for_function("(pattern) => (window.statusLog || []).some((e) => new RegExp(pattern).test(e[1]))",
                                       arg=DOWNLOAD["en"], timeout=TIMEOUT_MS)
                site.released.set()
            page.wait_for_selector(LIVE, timeout=TIMEOUT_MS)
            log = page.evaluate("window.statusLog")
            sizes = json.loads(page.evaluate("self.specdecSimBoot.settings.sizes"))
            got = page.evaluate(PAGE_CLIENT, [PREFIX["en"]])
            assert got["via"] == "snapshot", case
            assert got["start"] == cpython_start(built_site, "en"), case
            assert [name for name in site.asked if name.startswith("pyodide.asm.wasm")] == wasm_files, (case, site.asked)
            assert not page.console_errors, (case, page.console_errors)
            context.close()
        finally:
            site.close()
        if case == "ahead":
            check_loading_message(log, sizes, "en")


def sim_worker_fetches(page) -> list[str]:
    """The addresses the sim worker fetched (its own resource timing), in order."""
    sim = [w for w in page.workers if w.url.split("?")[0].endswith("/sim-worker.js")]
    assert len(sim) == 1, [w.url for w in page.workers]
    return sim[0].evaluate("performance.getEntriesByType('resource').map((e) => e.name)")


@pytest.mark.adapter("restoreSnapshot", "watchFetches")
def test_when_the_decoding_workers_download_fails_the_sim_worker_fetches_the_snapshot(browser, site_url, built_site):
    """The page's decoding worker downloads the snapshot; where that download fails (here: its
    request is refused, the next one answered), the sim worker fetches it again and the bench
    still starts from the snapshot, not the wheel."""
    asked = []

    def refuse_the_first(route):
        asked.append(route.request.url)
        route.abort() if len(asked) == 1 else route.continue_()

    context, page = open_page(browser, site_url, "en", refuse_the_first)
    got = page.evaluate(PAGE_CLIENT, [PREFIX["en"]])
    assert got["via"] == "snapshot"
    assert got["start"] == cpython_start(built_site, "en")
    snapshot = snapshot_file(built_site, "en").name
    assert [u.split("?")[0].rsplit("/", 1)[-1] for u in asked] == [snapshot, snapshot], asked
    assert snapshot in [u.split("?")[0].rsplit("/", 1)[-1] for u in sim_worker_fetches(page)]
    assert not page.console_errors, page.console_errors
    context.close()



@pytest.mark.adapter("startPython", "installPackage", "startPyodide", "unpackWheel", "write_pyc_zip")
def test_a_site_built_with_start_wheel_has_no_snapshots_and_goes_live_from_the_wheel(browser, built_site, tmp_path_factory):
    """`--start=wheel` (for a Pyodide whose snapshots cannot be made): no snapshot is made or
    named, and the worker starts from the wheel at once, with no refused snapshot on the way. Built
    after the full site, it ships the same stdlib, lock and wheel (taken from that making: the
    survey alone is tests/sitebuild/test_start_files.py's make_stdlib)."""
    site = tmp_path_factory.mktemp("wheel-only") / "_site"
    build(Options(out=site, corpus=corpus_dir(), force=True, start="wheel"))
    assert not list(site.glob("py/*.snapshot.xz"))
    fallback = lambda root: {p.relative_to(root).as_posix(): p.read_bytes()  # noqa: E731
                             for p in [*root.glob("py/python_stdlib.*.zip"), *root.glob("py/sim.*/*")]}
    assert fallback(site) == fallback(built_site)
    assert "data-snapshot-size='null'" in (site / "zh/specdec/index.html").read_text(encoding="utf-8")
    assert 'data-snapshot=""' in (site / "zh/specdec/index.html").read_text(encoding="utf-8")
    with LoopbackSite(site) as served:
        context, page = open_page(browser, served.url, "zh")
        got = page.evaluate(PAGE_CLIENT, [PREFIX["zh"]])
        assert got == {"via": "wheel", "start": cpython_start(site, "zh")}, got
        assert not [u for u in page.requests_seen if ".snapshot" in u]
        assert page.evaluate("performance.getEntriesByName('specdec:stage-fallback').length") == 0
        assert not page.console_errors and not [w for w in page.warnings if "snapshot" in w], (page.console_errors, page.warnings)
        context.close()


# A start gone quiet is started again once, in a fresh worker (sim-client.js: restartAfterMs of no
# progress and no mark): here the first request for the snapshot is never answered (as Firefox
# under load now and then left its downloads), the second is. The page's clock is Playwright's,
# held still once the first worker has done all it can without the snapshot: the watchdog sees
# only the time the test gives it, so "not before restartAfterMs of quiet, then at once" is a claim
# about the page's own clock, whatever the machine's load. The client of the test's own waits
# QUIET_MS (under STALL_MS, the client's limit for a failed start).
QUIET_MS = 30_000
QUIET_START = """([prefix, snapshot, quietMs]) => {
  const quiet = window.quiet = { stages: [], marks: [], heard: null, result: null };
  const heard = () => (quiet.heard = performance.now());  // what resets the client's watchdog
  import(SIM_START).then(async ({ startSim }) => {
    const client = startSim(self.specdecSimBoot.settings, { snapshot, restartAfterMs: quietMs,
      onProgress: (stage) => { heard(); quiet.stages.push(stage); },
      onTimings: (timings) => { heard(); quiet.marks.push(...Object.keys(timings)); } });
    await client.ready;
    quiet.result = { via: client.via, stages: quiet.stages, start: await client.call('start', { prefix }) };
    client.stop(); // the client's own stop: a worker terminated under it would be started again once quiet
  });
}""".replace("SIM_START", SIM_START)
# Every step a worker's start takes without the snapshot (sim-worker.js: Pyodide's memory is made at
# the snapshot's size, which the page gives, so the .wasm is instantiated): after these it is quiet.
WITHOUT_SNAPSHOT = ("worker-pyodide-mjs", "worker-asm-mjs", "worker-wasm-compiled", "worker-wasm-instantiated")


@pytest.mark.adapter("restoreSnapshot", "withPrecompiledWasm")
def test_a_start_gone_quiet_is_started_again_in_a_fresh_worker(browser, site_url, built_site):
    own = snapshot_file(built_site, "en")
    asked = []

    def answer_the_second(route):
        asked.append(route.request.url)
        if len(asked) > 1:
            send_on(site_url + own.relative_to(built_site).as_posix())(route)  # the first is left unanswered

    context = browser.new_context(service_workers="block")
    context.add_init_script(DEBUG_HOOKS)  # LIVE reads the debug hooks' marks
    try:
        page = context.new_page()
        page.clock.install()  # the page's timers and clocks, which the test holds still below
        page.route("**/py/test-quiet.snapshot.xz", answer_the_second)
        page.goto(f"{site_url}en/specdec/")
        page.wait_for_selector(LIVE, timeout=TIMEOUT_MS)  # the page's own start is done (its watchdog stopped)
        page.evaluate(QUIET_START, [PREFIX["en"], f"{site_url}py/test-quiet.snapshot.xz", QUIET_MS])
        until(page, f"() => {list(WITHOUT_SNAPSHOT)}.every((m) => window.quiet.marks.includes(m))")
        hold_clock(page)
        quiet_for = page.evaluate("() => performance.now() - window.quiet.heard")
        page.clock.run_for(int(QUIET_MS - quiet_for) - 1000)  # the watchdog ticks each second: all before QUIET_MS
        assert "restarted" not in page.evaluate("() => window.quiet.stages") and len(asked) == 1, asked
        page.clock.run_for(2000)  # past QUIET_MS of quiet: the next tick starts a fresh worker
        until(page, "() => window.quiet.result !== null")
        got = page.evaluate("() => window.quiet.result")
    finally:
        context.close()
    assert len(asked) == 2, asked
    assert got["via"] == "snapshot" and "restarted" in got["stages"] and "fallback" not in got["stages"], got
    assert got["start"] == cpython_start(built_site, "en")


def hold_clock(page):
    """Stop the page's clock (installed with page.clock.install) half a second ahead of now (it
    runs on meanwhile; pause_at takes seconds since 1970): from there on it moves only by
    page.clock.run_for."""
    page.clock.pause_at((page.evaluate("() => Date.now()") + 500) / 1000)


def until(page, predicate: str, timeout_s: float = TIMEOUT_MS / 1000):
    """Wait until predicate() holds in the page, asked from here every 50 ms of this process's
    time (the page's own timers may be held by its clock)."""
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(predicate):
        assert time.monotonic() < deadline, f"not within {timeout_s} s: {predicate}"
        time.sleep(0.05)


# More workers in one page, each pointed at a snapshot it must refuse: cut short (the frame fails),
# not a snapshot at all (Pyodide's magic number), and the other language's (a valid snapshot that
# does not match the page), and the page's own snapshot under another build's token (a page of a
# new build that met an old build's snapshot). Each is refused with its reason and falls back to
# the wheel. A last one gets the snapshot decoded, as the browser hands it over from a host that
# sent the file with Content-Encoding (the test's server sends the decoded bytes themselves, what
# the worker then sees): that one it uses. With
# `through` false the worker is stopped as soon as it reports the fallback (its reason given):
# what follows is the same code for every refusal (sim-worker.js: start), so it runs to the end,
# and answers as CPython does, after a whole restore (another build's token), the worker's state
# most unlike a fresh one's; a refusal before any restore runs on to the end on a blocked
# snapshot in test_pyodide_parity.py (its wheel cases). (A wheel start costs about 4 s of CPU: one here, one there.)
SNAPSHOT_AT = """async ([prefix, snapshot, snapshotToken, through]) => {
  const { startSim } = await import(SIM_START);
  let fellBack;
  const fallback = new Promise((resolve) => { fellBack = resolve; });
  const onProgress = (stage, message) => stage === 'fallback' && fellBack(message.reason);
  const client = startSim(self.specdecSimBoot.settings,
                          { snapshot, onProgress, ...(snapshotToken ? { snapshotToken } : {}) });
  const reason = await Promise.race([fallback, client.ready.then(() => null)]);
  const result = { reason };
  if (reason === null || through) {
    await client.ready;
    Object.assign(result, { via: client.via, start: await client.call('start', { prefix }) });
  }
  client.stop(); // the client's own stop: a worker terminated under it would be started again once quiet
  return result;
}""".replace("SIM_START", SIM_START)


def send_on(url: str):
    """A route handler that has the browser fetch the request from `url` instead."""
    return lambda route: route.continue_(url=url)


@pytest.mark.adapter("snapshotMemory", "restoreSnapshot", "startPython", "installPackage")
def test_a_broken_or_foreign_snapshot_is_refused_and_python_starts_from_the_wheel(live_en, site_url, built_site, tmp_path):
    page = live_en
    own = snapshot_file(built_site, "en").read_bytes()
    served = {  # name: (bytes sent, why the worker refuses them)
        "truncated": (own[: len(own) // 2], "could not be read"),
        "not-a-snapshot": (random.Random(1).randbytes(1 << 20), "magic number"),
        "not-packed": (lzma.compress(random.Random(1).randbytes(1 << 20)), "not packed as spans"),
        "decoded": (unpack_spans(lzma.decompress(own)), None),
    }
    # Served by a server of the test's own, the page's requests sent on to it by the browser:
    # fulfilled through Playwright, the 31 MB decoded snapshot took 10 s to cross its protocol.
    bodies = tmp_path / "bodies"
    bodies.mkdir()
    server = LoopbackSite(bodies)
    for name, (body, _) in served.items():
        (bodies / name).write_bytes(body)
        page.route(f"**/py/test-{name}.snapshot.xz", send_on(f"{server.url}{name}"))
    urls = {name: f"{site_url}py/test-{name}.snapshot.xz" for name in served}
    urls["other-language"] = site_url + snapshot_file(built_site, "zh").relative_to(built_site).as_posix()
    urls["other-build"] = site_url + snapshot_file(built_site, "en").relative_to(built_site).as_posix()
    tokens = {"other-build": "0123456789abcdef"}
    reasons = {"other-language": "does not match this page", "other-build": "does not match this page",
               **{n: r for n, (_, r) in served.items()}}
    try:
        expected = cpython_start(built_site, "en")
        through = {"other-build", "decoded"}  # run to the end (the comment above says why)
        refusal = lambda m: m.type == "warning" and "snapshot failed" in m.text  # noqa: E731
        for name, url in urls.items():
            args = [PREFIX["en"], url, tokens.get(name), name in through]
            if reasons[name]:
                with page.expect_console_message(refusal) as warning:
                    got = page.evaluate(SNAPSHOT_AT, args)
                assert got["reason"] and reasons[name] in got["reason"], (name, got)  # it got the bytes, and refused them
                assert reasons[name] in warning.value.text, (name, warning.value.text)
            else:
                got = page.evaluate(SNAPSHOT_AT, args)
                assert got["reason"] is None, (name, got)
            if name in through:
                assert {"via": got["via"], "start": got["start"]} == {
                    "via": "wheel" if reasons[name] else "snapshot", "start": expected}, name
        assert not page.console_errors, page.console_errors
    finally:
        for name in served:
            page.unroute(f"**/py/test-{name}.snapshot.xz")
        server.close()


# A worker made as the client makes it (the client's own start message), but by hand: with the start message in its name and none
# posted (it starts from its name, as the page's does before the message is handed over), or with
# no name and the message posted (a worker that cannot read its name). Each one goes live from the
# snapshot, answers as CPython does, and posts with "ready" when each part of its start was done.
BY_HAND = """async ([prefix, how]) => {
  const { startSim } = await import(SIM_START);
  const { startMessage: message, workerURL } = startSim(self.specdecSimBoot.settings, { autostart: false });
  const worker = new Worker(workerURL, how === 'name' ? self.specdecSimBoot.workerOptions(message) : { type: 'module' });
  const helpers = self.specdecSimBoot.startPortWorkers(worker, message); // the snapshot's decoder, as the page's client starts it
  const replies = [];
  let ready = null;
  const answer = new Promise((resolve, reject) => {
    setTimeout(() => reject(new Error(`no answer in 60 s (${replies})`)), 60_000); // it never started
    worker.onmessage = ({ data: reply }) => {
      replies.push(reply.type || 'reply');
      if (reply.type === 'failed' || (reply.type === 'ready' && reply.via !== 'snapshot')) reject(new Error(JSON.stringify(reply)));
      if (reply.type === 'ready') {
        ready = reply;
        worker.postMessage({ id: 1, command: 'start', args: { prefix } });
      }
      if (reply.id === 1) resolve(reply.result);
    };
  });
  if (how === 'message') worker.postMessage(message);
  const start = await answer;
  worker.terminate();
  helpers.forEach((helper) => helper.terminate());
  return { start, timings: ready.timings, readies: replies.filter((t) => t === 'ready').length, helpers: helpers.length };
}""".replace("SIM_START", SIM_START)
TIMINGS = ["worker-evaluated", "worker-start", "worker-pyodide-mjs", "worker-wasm-instantiated",
           "worker-delta-undone", "worker-restored", "worker-ready"]


@pytest.mark.adapter("restoreSnapshot")
def test_the_worker_starts_from_its_name_or_from_the_start_message(live_en, built_site):
    page = live_en
    expected = cpython_start(built_site, "en")
    for how in ("name", "message"):
        got = page.evaluate(BY_HAND, [PREFIX["en"], how])
        assert got["start"] == expected and got["readies"] == 1 and got["helpers"] == 1, how
        times = [got["timings"][name] for name in TIMINGS]
        assert times == sorted(times), (how, got["timings"])  # the parts in the order they depend on each other
    # The page's own client names its worker so: it started before any message could reach it.
    marks = page.evaluate("""() => ['worker-evaluated', 'worker-start', 'worker-ready'].map(
        (n) => performance.getEntriesByName('specdec:' + n)[0]?.startTime ?? null)""")
    assert None not in marks and marks == sorted(marks), marks


@pytest.mark.adapter("restoreSnapshot")
def test_the_page_takes_over_the_worker_its_body_started(live_en):
    """sim-boot.js starts the worker as the parser reaches the top of <body>; the page's client
    (sim-start.js, made once the bench's modules run) takes that very worker over, and hears what
    it said before (its marks and progress): one sim worker, live, and none left to take."""
    page = live_en
    workers = page.workers_at_live
    assert workers.count("sim-worker.js") == 1, workers
    got = page.evaluate("""() => {
      const boot = self.specdecSimBoot;
      const message = boot.startMessage(boot.options(boot.settings));
      return { left: boot.take(boot.settings.worker, message), marks: ['worker-evaluated', 'stage-download']
        .map((n) => performance.getEntriesByName('specdec:' + n).length) };
    }""")
    assert got == {"left": None, "marks": [1, 1]}, got


# snapshot-inflate.js, on the page's thread (any page of the site: no bench needed): an .xz stream
# (made by the test, as the build makes them) decoded on the decoding worker, and here when no
# worker can be started; a stream that is not .xz read as it is; a broken one rejected. The same
# bytes every way.
INFLATE = """async ([frame]) => {
  const url = new URL('static/js/startup/snapshot-inflate.js', document.baseURI).href;
  const { inflateElsewhere, GRACE_MS } = await import(url);
  const raw = new Uint8Array(3 << 20).map((_, i) => (i * 7919) % 251);
  const stream = (bytes) => new Blob([bytes]).stream();
  const xz = Uint8Array.from(atob(frame), (c) => c.charCodeAt(0));
  const same = (a) => a.length === raw.length && a.every((x, i) => x === raw[i]);
  const there = same(await inflateElsewhere(stream(xz), null, null, raw.length));
  const plain = same(await inflateElsewhere(stream(raw), null, null, raw.length));
  const broken = await inflateElsewhere(stream(xz.slice(0, xz.length >> 1)), null, null, raw.length).then(() => 'read', (e) => e.message);
  const RealWorker = window.Worker;
  window.Worker = undefined; // no worker can be started: inflated on this thread
  let here;
  try { here = same(await inflateElsewhere(stream(xz), null, null, raw.length)); } finally { window.Worker = RealWorker; }
  return { there, plain, broken, here, grace: GRACE_MS };
}"""

# The same, with a decoding worker that loads and never answers (as Firefox's now and then did),
# or one that fails to load: late[name] records what the stub was posted. The page's clock is held
# by the test (Playwright's): the stub's load error and the grace period (GRACE_MS) come only when
# the test runs the clock.
LATE = """async ([frame, name]) => {
  const url = new URL('static/js/startup/snapshot-inflate.js', document.baseURI).href;
  const { inflateElsewhere } = await import(url);
  const raw = new Uint8Array(3 << 20).map((_, i) => (i * 7919) % 251);
  const xz = Uint8Array.from(atob(frame), (c) => c.charCodeAt(0));
  const input = new Blob([xz]).stream();
  if (window.blobsMade === undefined) {
    window.blobsMade = 0;
    window.Blob = class extends window.Blob { constructor(...args) { super(...args); window.blobsMade += 1; } };
  }
  const late = (window.late ||= {})[name] = { posted: [], same: null, blobsBefore: window.blobsMade };
  const silent = class { postMessage(m) { late.posted.push(m.done ? 'done' : Object.keys(m)[0]); } terminate() {} };
  const failing = class extends silent { postMessage(m) { super.postMessage(m); setTimeout(() => this.onerror({ preventDefault() {} }), 0); } };
  const RealWorker = window.Worker;
  window.Worker = { silent, failing }[name];
  try {
    inflateElsewhere(input, null, null, raw.length).then((a) => { late.same = a.length === raw.length && a.every((x, i) => x === raw[i]); });
  } finally { window.Worker = RealWorker; } // the stub is made at once, before the first await
}"""
# What late[name] shows now: its check of the bytes (null before they come) and how many decodings
# began on this thread since (each reads the chunks kept, as a Blob).
LATE_NOW = "(name) => ({ same: window.late[name].same, here: window.blobsMade - window.late[name].blobsBefore })"


def test_the_snapshot_is_inflated_on_a_worker_of_its_own_or_where_it_is(browser, site_url):
    raw = bytes((i * 7919) % 251 for i in range(3 << 20))
    frame = base64.b64encode(compress_snapshot(packed_whole(raw))).decode()
    context = browser.new_context()
    try:
        page = context.new_page()
        page.clock.install()
        page.goto(site_url)
        got = page.evaluate(INFLATE, [frame])
        assert {k: got[k] for k in ("there", "plain", "here")} == {"there": True, "plain": True, "here": True}
        assert got["broken"] != "read", got
        grace = got["grace"]
        hold_clock(page)
        # A silent worker is waited for: all its chunks posted, nothing is decoded here until the
        # grace period has passed on the page's clock, and then it is.
        page.evaluate(LATE, [frame, "silent"])
        until(page, "() => window.late.silent.posted.includes('done')")
        page.clock.run_for(grace - 1)
        assert page.evaluate(LATE_NOW, "silent") == {"same": None, "here": 0}
        page.clock.run_for(1)
        until(page, "() => window.late.silent.same !== null")
        assert page.evaluate(LATE_NOW, "silent") == {"same": True, "here": 1}
        # A worker that failed to load is not waited for: with the clock run just past its error
        # (and never near the grace period), the bytes are decoded here.
        page.evaluate(LATE, [frame, "failing"])
        page.clock.run_for(1)
        until(page, "() => window.late.failing.same !== null")
        assert page.evaluate(LATE_NOW, "failing") == {"same": True, "here": 1}
    finally:
        context.close()


# inflateFetchedThere (snapshot-inflate.js) on the page's thread, with the site's decoding worker
# on a channel, as sim-boot.js starts it: the worker downloads the built snapshot and decodes it
# (the same bytes as decoding it here), and each chunk's size is counted as it comes; a worker that
# says it failed, or none, gives null at once (the sim worker then fetches the snapshot itself).
FETCHED_THERE = """async () => {
  const settings = self.specdecSimBoot.settings;
  const decoder = new URL(settings.decoder, document.baseURI);
  const { inflateFetchedThere, inflateElsewhere } = await import(new URL('snapshot-inflate.js', decoder).href);
  const url = new URL(settings.snapshot, document.baseURI).href;
  const size = JSON.parse(settings.snapshotSize);
  const channel = new MessageChannel();
  const worker = new Worker(decoder, { type: 'module' });
  worker.postMessage({ port: channel.port2 }, [channel.port2]);
  let counted = 0;
  const there = await inflateFetchedThere(url, Promise.resolve(channel.port1), null, size, (n) => { counted += n; });
  worker.terminate();
  const here = await inflateElsewhere((await fetch(url)).body, null, Promise.resolve(null), size);
  const failing = new MessageChannel();
  failing.port2.onmessage = ({ data }) => data.download && failing.port2.postMessage({ error: 'HTTP 404' });
  return {
    same: there.length === size && there.every((x, i) => x === here[i]),
    counted, length: (await (await fetch(url)).arrayBuffer()).byteLength,
    failed: await inflateFetchedThere(url, Promise.resolve(failing.port1), null, size, () => {}),
    none: await inflateFetchedThere(url, Promise.resolve(null), null, size, () => {}),
  };
}"""

# A decoding worker that downloads and then never answers: null once the grace period has passed
# on the page's clock (held by the test), not before.
SILENT_THERE = """async () => {
  const { inflateFetchedThere } = await import(new URL('static/js/startup/snapshot-inflate.js', document.baseURI).href);
  const silent = new MessageChannel();
  silent.port2.onmessage = ({ data }) => {
    if (!data.download) return;
    silent.port2.postMessage({ received: 5 });
    silent.port2.postMessage({ downloaded: true });
  };
  window.silentThere = { counted: 0, got: 'none yet' };
  inflateFetchedThere('unused', Promise.resolve(silent.port1), null, 1, (n) => { window.silentThere.counted += n; })
    .then((got) => { window.silentThere.got = got; });
}"""


@pytest.mark.adapter("restoreSnapshot")
def test_the_decoding_worker_downloads_and_decodes_the_snapshot_or_gives_it_up(browser, live_en, site_url, built_site):
    got = live_en.evaluate(FETCHED_THERE)  # a decoding worker of its own: the page's settings are all it reads
    assert got == {"same": True, "counted": got["length"], "length": snapshot_file(built_site, "en").stat().st_size,
                   "failed": None, "none": None}, got
    context = browser.new_context(service_workers="block")
    try:
        quiet = context.new_page()
        quiet.clock.install()
        quiet.goto(site_url)
        grace = quiet.evaluate(
            "async () => (await import(new URL('static/js/startup/snapshot-inflate.js', document.baseURI).href)).GRACE_MS")
        hold_clock(quiet)
        quiet.evaluate(SILENT_THERE)
        until(quiet, "() => window.silentThere.counted === 5")
        quiet.clock.run_for(grace - 1)
        assert quiet.evaluate("window.silentThere.got") == "none yet"
        quiet.clock.run_for(1)
        until(quiet, "() => window.silentThere.got !== 'none yet'")
        assert quiet.evaluate("window.silentThere.got") is None
    finally:
        context.close()


# The snapshot's delta against the .wasm's data segments is undone on the decoding worker too, and
# on this thread where that worker cannot be: a tiny .wasm with one data segment (at 16), a
# snapshot (the built one's header, then 1 MB of memory) whose first bytes are XORed with it, as
# the build stores them. A .wasm that could not be read fails the snapshot, with its reason.
UNDO_DELTA = """async ([frame, wasm64, snapshot64]) => {
  const url = new URL('static/js/startup/snapshot-inflate.js', document.baseURI).href;
  const { inflateElsewhere } = await import(url);
  const bytes = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const xz = bytes(frame), wasm = bytes(wasm64).buffer, snapshot = bytes(snapshot64);
  const stream = () => new Blob([xz]).stream();
  const size = snapshot.length;
  const same = (a) => a.length === snapshot.length && a.every((x, i) => x === snapshot[i]);
  const there = same(await inflateElsewhere(stream(), Promise.resolve(wasm), null, size));
  const kept = same(await inflateElsewhere(stream(), null, null, size)); // no .wasm given: the delta stays
  const RealWorker = window.Worker;
  window.Worker = undefined;
  let here;
  try { here = same(await inflateElsewhere(stream(), wasm, null, size)); } finally { window.Worker = RealWorker; }
  const failed = await inflateElsewhere(stream(), Promise.reject(new Error('HTTP 404')), null, size).then(() => 'read', (e) => e.message);
  return { there, kept, here, failed };
}"""


@pytest.mark.adapter("snapshotMemory")
def test_the_decoding_worker_undoes_the_snapshots_delta(page, site_url, built_site):
    page.goto(site_url)
    segment = bytes(range(1, 33))
    data = bytes([0x0B, 7 + len(segment), 1, 0, 0x41, 16, 0x0B, len(segment)]) + segment
    wasm = b"\0asm\1\0\0\0" + bytes([5, 3, 1, 0, 1]) + data
    memory = bytes((i * 7919) % 251 for i in range(1 << 20))
    built = unpack_spans(lzma.decompress(snapshot_file(built_site, "en").read_bytes()))[: 1 << 20]
    header = built[: memory_offset(built)]
    snapshot = header + memory
    image = bytes(16) + segment
    delta = bytearray(snapshot)
    for i, x in enumerate(image):
        delta[len(header) + i] ^= x
    b64 = lambda b: base64.b64encode(b).decode()
    got = page.evaluate(UNDO_DELTA, [b64(compress_snapshot(packed_whole(bytes(delta)))), b64(wasm), b64(snapshot)])
    assert {k: got[k] for k in ("there", "here", "kept")} == {"there": True, "here": True, "kept": False}, got
    assert "HTTP 404" in got["failed"], got


def check_loading_message(log: list, sizes: dict, lang: str):
    expected_total = sum(sizes[n] for n in ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm.xz", "snapshot"))
    counts = [tuple(map(float, m.groups())) for m in (re.search(DOWNLOAD[lang], e[1]) for e in log) if m]
    assert counts, log
    assert {total for _, total in counts} == {round(expected_total / 1e6, 1)}
    assert [loaded for loaded, _ in counts] == sorted(loaded for loaded, _ in counts)
    bars = [e[2] for e in log if e[0] == "loading" and e[2] is not None]
    assert bars == sorted(bars), log  # the bar never goes back
    assert bars[-1] >= 0.9 * float(log[-1][3]), log  # nearly full when it gives way to "live": no jump
    assert log[-1][0] == "ready"
