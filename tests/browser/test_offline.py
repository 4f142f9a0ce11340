"""Offline after one visit: the site's service worker (sitebuild/startup/service_worker.js,
written to /sw.js by sitebuild/startup/offline.py) keeps one build's files, checked by their hashes.

- A reader who opened the page once reloads it with the network off: the bench goes live from the
  snapshot and steps. So does a reload on a connection that takes requests and answers none (a
  crowded wifi): the worker serves its copy once the network has kept the page waiting a while
  (NETWORK_WAIT_MS), without waiting for the network to answer or fail.
- Offline, the other language's page (whose snapshot was never stored) shows its text, and its
  bench says that this language's Python files were not saved for offline use, with Retry, which
  starts it once the network is back.
- A new build on the host: the next online visit runs the new build's files only (never the old
  worker's cached copies), and the new service worker takes over.
- The embed in a course page on another origin goes live with the service worker present, and the
  worker keeps nothing of the course's origin.
- Beside the offline copy, the sim worker keeps the decoded .wasm, which later visits compile from.
"""

from __future__ import annotations

import functools
import hashlib
import re
import shutil
import threading
import time

import pytest
from helpers.benchpage import DEBUG_HOOKS, PYODIDE_TIMEOUT_MS
from helpers.course_host import course_page, course_site
from helpers.loopback import LoopbackSite
from helpers.service_worker import KEPT

from sitebuild import assets, startup
from sitebuild.startup import offline
from sitebuild.serve import SiteHandler

pytestmark = [pytest.mark.browser, pytest.mark.long(40), pytest.mark.adapter("restoreSnapshot", "watchFetches")]

LIVE = "#b[data-mode=live][data-busy=false]"


@pytest.fixture
def own_site(built_site, tmp_path):
    """A copy of the built site on a server of its own (a test may rebuild it in place)."""
    site = tmp_path / "site"
    shutil.copytree(built_site, site)
    with LoopbackSite(site) as served:
        yield site, served.url


def live_once(context, url):
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector(LIVE, timeout=PYODIDE_TIMEOUT_MS, state="attached")
    kept = page.evaluate(KEPT, None)
    return page, kept


def unanswering(root, silent: threading.Event, log: list):
    """A handler that answers as the site does until `silent` is set, then takes requests and
    answers none until it is cleared. Each request taken in silence is logged as ("held", path)
    and, when it ends, as ("answered", path) once the silence is over or ("dropped", path) if the
    silence outlasted HELD_S."""

    class Handler(SiteHandler):
        def do_GET(self):
            if not silent.is_set():
                return super().do_GET()
            path = self.path.split("?")[0]
            log.append(("held", path))
            deadline = time.monotonic() + HELD_S
            while silent.is_set() and time.monotonic() < deadline:
                time.sleep(0.05)
            if silent.is_set():
                log.append(("dropped", path))
                return
            log.append(("answered", path))
            super().do_GET()

    return functools.partial(Handler, directory=str(root))


# How long a request taken in silence is held at the most: longer than the test waits for anything.
HELD_S = 2 * PYODIDE_TIMEOUT_MS / 1000


def reload_live_and_step(page, steps: int):
    page.reload(timeout=PYODIDE_TIMEOUT_MS)
    page.wait_for_selector(LIVE, timeout=PYODIDE_TIMEOUT_MS, state="attached")
    assert page.evaluate("performance.getEntriesByName('specdec:stage-fallback').length") == 0
    page.locator("#b button.b-step").click()
    page.wait_for_selector(f"#b[data-platform=emscripten][data-steps='{steps}']", state="attached")


def test_after_one_visit_the_page_and_its_bench_work_offline(browser, built_site):
    """After one visit: a reload on a connection that takes requests and answers none (the
    service worker asks the network, and serves its copy once the network has kept the page
    waiting NETWORK_WAIT_MS, sitebuild/startup/service_worker.js), then one with the network off; each goes live from the snapshot and
    steps. The silent reload is live and stepped while every request the server took in the
    silence, the page's own among them, is still held: the copy did not wait for the network to
    answer or fail. (How long the reload took: benchmarks/responsiveness.py.)"""
    silent, log = threading.Event(), []
    server = LoopbackSite(built_site, handler=unanswering(built_site, silent, log))
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(DEBUG_HOOKS)  # LIVE reads the debug hooks' marks
    try:
        page, kept = live_once(context, f"{server.url}en/specdec/")
        assert kept["active"] and len(kept["caches"]) == 1
        assert not [p for p in kept["paths"] if p.startswith(("/models/", "/py/python_stdlib", "/py/sim."))]  # the fallback's
        silent.set()
        reload_live_and_step(page, 2)
        during = list(log)
        assert ("held", "/en/specdec/") in during, during  # the service worker asked the network first
        assert all(kind == "held" for kind, _ in during), during  # and answered without it
        silent.clear()
        context.set_offline(True)
        reload_live_and_step(page, 3)  # the reload keeps the link's steps=2
    finally:
        silent.clear()
        context.close()
        server.close()


def test_offline_the_language_not_visited_says_its_files_were_not_saved_and_retry_recovers(browser, site_url):
    """A visit to /zh/specdec/ stores the pages and zh's snapshot; offline, /en/specdec/ shows its
    text from the service worker, and the bench fails with the `offline` failure and its words
    (not "Python stopped while it was starting"): en's snapshot was never stored, and the
    fallback's files never are. With the network back, Retry starts Python."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(DEBUG_HOOKS)  # LIVE reads the debug hooks' marks
    try:
        live_once(context, f"{site_url}zh/specdec/")
        context.set_offline(True)
        page = context.new_page()
        page.goto(f"{site_url}en/specdec/", timeout=PYODIDE_TIMEOUT_MS)
        assert page.locator("#b-title").is_visible() and page.locator("section.chapter").count() > 5  # the text is there
        page.wait_for_selector("#b .b-status[data-state=failed]", timeout=PYODIDE_TIMEOUT_MS)
        status = page.locator("#b .b-status__text").inner_text()
        assert "not saved for offline use" in status and "Retry" in status, status
        assert page.locator("#b .b-status__raw").text_content().startswith("offline: "), page.locator("#b .b-status__raw").text_content()
        assert page.locator("#b .b-retry").is_visible()
        context.set_offline(False)
        page.locator("#b .b-retry").click()
        page.wait_for_selector(LIVE, timeout=PYODIDE_TIMEOUT_MS, state="attached")
    finally:
        context.close()


# The decoded .wasm the sim worker keeps (wasm-inflate.js, keepWasm) once the page has asked it
# to: its length and sha256, waited for (90 s at most), under Pyodide's address for it.
KEPT_WASM = """async ([cacheName, url]) => {
  const deadline = performance.now() + 90000;
  for (;;) {
    const found = await (await caches.open(cacheName)).match(url);
    if (found) {
      const bytes = await found.arrayBuffer();
      const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
      return [bytes.byteLength, [...digest].map((b) => b.toString(16).padStart(2, "0")).join(""), found.headers.get("Content-Type")];
    }
    if (performance.now() > deadline) throw new Error(`nothing kept in ${cacheName} for ${url} after 90 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}"""
WASM_ADDRESS = "() => new URL('pyodide.asm.wasm', new URL(self.specdecSimBoot.settings.pyodide, document.baseURI)).href"


def test_the_decoded_wasm_is_kept_beside_the_offline_copy_and_compiled_from_there(browser, built_site):
    """Once the service worker is registered, the sim worker keeps the decoded .wasm in its own Cache
    Storage (the start field wasmCache): Pyodide's .wasm byte for byte, under Pyodide's address for
    it. A later visit goes live from it. A kept copy that does not compile (here: a module of no
    functions, cut short) fails the start with the `wasm` failure naming it (so the copy is what
    a later visit compiles), is deleted, and Retry goes live from the .xz. A later visit, which the
    service worker controls, looks for the copy before it asks for the .xz, and so asks for none
    (a first visit asks at once and drops it if a copy turns up: test_start_files.py)."""
    server = LoopbackSite(built_site)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(DEBUG_HOOKS)  # LIVE reads the debug hooks' marks
    url = f"{server.url}en/specdec/"
    try:
        page, _ = live_once(context, url)
        address = page.evaluate(WASM_ADDRESS)
        original = (assets.PYODIDE_PACKAGE / "pyodide.asm.wasm").read_bytes()
        kept = page.evaluate(KEPT_WASM, [startup.WASM_CACHE, address])
        assert kept == [len(original), hashlib.sha256(original).hexdigest(), "application/wasm"], kept
        page.close()
        later = context.new_page()
        later_asked = []
        later.on("request", lambda request: later_asked.append(request.url))
        later.goto(url)
        later.wait_for_selector(LIVE, timeout=PYODIDE_TIMEOUT_MS, state="attached")
        # controlled by the service worker, it looked for the copy first: no .xz asked for, to be dropped
        assert not [u for u in later_asked if u.split("?")[0].endswith("/pyodide.asm.wasm.xz")], later_asked
        later.evaluate("""([name, url]) => caches.open(name).then((cache) =>
            cache.put(url, new Response(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1]), { headers: { "Content-Type": "application/wasm" } })))""",
                       [startup.WASM_CACHE, address])
        later.close()
        broken = context.new_page()
        asked = []
        broken.on("request", lambda request: asked.append(request.url))
        broken.goto(url)
        broken.wait_for_selector("#b .b-status[data-state=failed]", timeout=PYODIDE_TIMEOUT_MS)
        raw = broken.locator("#b .b-status__raw").text_content()
        assert raw.startswith("wasm: ") and f'its copy kept in Cache Storage "{startup.WASM_CACHE}"' in raw, raw
        assert broken.evaluate("([name, url]) => caches.open(name).then((cache) => cache.match(url)).then((r) => r === undefined)",
                               [startup.WASM_CACHE, address])
        broken.locator("#b .b-retry").click()
        broken.wait_for_selector(LIVE, timeout=PYODIDE_TIMEOUT_MS, state="attached")
        assert [u for u in asked if u.split("?")[0].endswith("/pyodide.asm.wasm.xz")], asked
    finally:
        context.close()
        server.close()


def bench_module(site) -> str:
    """The module that holds the bench, imported by a plain name (no ?v=): the largest file the full
    page preloads (a chunk of the bundle, named by its content; unbundled, the bench's own)."""
    page = (site / "en/specdec/index.html").read_text(encoding="utf-8")
    preloads = re.findall(r'<link rel="modulepreload" href="\.\./\.\./([^"?]+)"', page)
    return max(preloads, key=lambda rel: (site / rel).stat().st_size)


def rebuild_in_place(site):
    """What a new build changes, by hand: the bench's module (imported by a plain name) and the
    worker (whose ?v= version the pages carry) get new bytes; the pages and sw.js follow."""
    marker = "\n// build B\n"
    changed = {}
    for rel in (bench_module(site), "static/js/startup/sim-worker.js"):
        path = site / rel
        old = assets.short_hash(path.read_bytes())
        path.write_bytes(path.read_bytes() + marker.encode())
        changed[rel] = (old, assets.short_hash(path.read_bytes()))
    for page in site.rglob("index.html"):
        text = page.read_text(encoding="utf-8")
        for old, new in changed.values():
            text = text.replace(f"?v={old}", f"?v={new}")
        page.write_text(text + "<!-- build B -->\n", encoding="utf-8")
    offline.write_service_worker(site)
    return marker


def test_a_new_build_never_runs_with_the_old_builds_files(browser, own_site):
    site, root = own_site
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(DEBUG_HOOKS)  # LIVE reads the debug hooks' marks
    page, kept = live_once(context, f"{root}en/specdec/")
    (old_cache,) = kept["caches"]
    bench = bench_module(site).rsplit("/", 1)[-1]
    marker = rebuild_in_place(site)
    bodies = {}

    def record(response):
        # What the page and its worker were given; not the service worker's own requests to the
        # network, whose bodies it read itself (Playwright may then report them empty).
        if response.request.service_worker is not None:
            return
        name = response.url.split("?")[0].rsplit("/", 1)[-1]
        if name in (bench, "sim-worker.js", "") and response.ok:
            bodies[name or "page"] = response.body()

    context.on("response", record)
    page.reload()
    page.wait_for_selector(LIVE, timeout=PYODIDE_TIMEOUT_MS, state="attached")
    assert set(bodies) == {"page", bench, "sim-worker.js"}, set(bodies)
    for name, body in bodies.items():  # the new build's bytes, each of them
        assert body.rstrip().endswith(b"build B -->" if name == "page" else marker.strip().encode()), name
    # The new build's worker takes over, with a cache of its own; the old build's is gone.
    kept = page.evaluate(KEPT, old_cache)
    assert old_cache not in kept["caches"] and len(kept["caches"]) == 1, kept["caches"]
    context.close()


CACHED_URLS = """async () => { const out = [];
  for (const name of await caches.keys()) for (const r of await (await caches.open(name)).keys()) out.push(r.url);
  return out; }"""


def test_the_embed_on_a_course_page_of_another_origin_works_with_the_service_worker(browser, site_url):
    """The reader opened the full page first (its service worker is installed), then a course page on
    another origin that frames the embed. Chromium gives a third-party frame no service worker of its
    own here ("denied permission"): the embed goes without, says so in one console line, and works."""
    frame = f'<iframe src="{site_url}embed/en/specdec/" width="700" height="900" title="bench"></iframe>'
    with course_site() as course:
        course.pages["/week3.html"] = course_page([frame])
        context = browser.new_context(viewport={"width": 1000, "height": 1000})
        context.add_init_script(DEBUG_HOOKS)  # in the course page's frame too
        try:
            site_page, _ = live_once(context, f"{site_url}en/specdec/")
            page = context.new_page()
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            for _ in range(2):  # a first and a repeat visit of the course page
                page.goto(f"{course.url}/week3.html")
                embed = page.frame_locator("iframe")
                embed.locator(LIVE).wait_for(state="attached", timeout=PYODIDE_TIMEOUT_MS)
            embed.locator("#b button.b-step").click()
            embed.locator("#b[data-platform=emscripten][data-steps='2']").wait_for(state="attached")
            assert not errors, errors
            assert page.evaluate("caches.keys()") == []  # nothing stored for the course's origin
            cached = site_page.evaluate(CACHED_URLS)  # and the site's worker keeps nothing of the course's
            assert cached and all(url.startswith(site_url) for url in cached), cached[:5]
        finally:
            context.close()
