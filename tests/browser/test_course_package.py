"""The SCORM 1.2 package in Chromium, played by scorm-again (npm, pinned, test-only) as the LMS.

A host page on an LMS-like server creates window.API and opens the unpacked package's launcher in
a frame; the server sends Moodle's MIME table and no other header (LmsHandler), so the package runs
as an LMS serves it. The test walks every chapter and runs Try-its until lesson_status is
completed, then launches again with what the LMS kept and checks that the chapter and the bench's
state come back. Every request outside the package, the host page and scorm-again fails.
"""

from __future__ import annotations

import io
import json
import threading
import zipfile
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote

import pytest
from helpers.benchpage import PYODIDE_TIMEOUT_MS, KeptPages, run
from helpers.clipcheck import CLIPPED, FRAMES, LAUNCHER_SCOPE, SCOPE, cut, in_dark
from sitebuild.course.files import modules

pytestmark = [pytest.mark.browser, pytest.mark.adapter("withPrecompiledWasm", "restoreSnapshot")]

REPO = Path(__file__).resolve().parents[2]
SCORM_AGAIN = REPO / "node_modules" / "scorm-again" / "dist" / "scorm12.js"
# Moodle's conservative table (lib/classes/filetypes.php, as the issue gives it): what it knows,
# and application/octet-stream for everything else.
MOODLE_TYPES = {".js": "application/x-javascript", ".html": "text/html", ".css": "text/css",
                ".json": "application/json", ".svg": "image/svg+xml", ".zip": "application/zip"}
# The host page: scorm-again's SCORM 1.2 API as window.API, every call the package makes
# recorded in window.lmsCalls, the values a previous launch left loaded first (?restore=).
HOST = """<!doctype html><meta charset="utf-8"><title>LMS</title><link rel="icon" href="data:,">
<script src="/scorm-again/scorm12.js"></script>
<script>
  const api = new Scorm12API({ autocommit: false, logLevel: 5 });
  const restore = new URLSearchParams(location.search).get("restore");
  if (restore) api.loadFromJSON(JSON.parse(restore));
  window.lmsCalls = [];
  for (const name of ["LMSInitialize", "LMSGetValue", "LMSSetValue", "LMSCommit", "LMSFinish"]) {
    const call = api[name].bind(api);
    api[name] = (...args) => { const result = call(...args); window.lmsCalls.push([name, ...args, String(result)]); return result; };
  }
  window.API = api;
</script>
<iframe id="sco" src="/package/index.html" style="width: 1280px; height: 860px; border: 0"></iframe>
"""


class LmsHandler(SimpleHTTPRequestHandler):
    """The package under /package/, the host page and scorm-again; Moodle's MIME types, no headers
    of ours (no CSP, no Content-Encoding, no caching rules)."""

    def __init__(self, *args, package: Path, **kwargs):
        self.package = package
        super().__init__(*args, directory=str(package), **kwargs)

    def log_message(self, *args):
        pass

    def guess_type(self, path):
        return MOODLE_TYPES.get(Path(str(path)).suffix.lower(), "application/octet-stream")

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if path == "/host.html":
            return self._send(HOST.encode(), "text/html")
        if path == "/scorm-again/scorm12.js":
            return self._send(SCORM_AGAIN.read_bytes(), MOODLE_TYPES[".js"])
        if not path.startswith("/package/"):
            return self.send_error(404)
        self.path = self.path[len("/package"):]
        return super().do_GET()

    def send_error(self, code, message=None, explain=None):
        if code == 404:  # a file the package should hold and does not (or a path outside it)
            self.server.missing.append(self.path)
        return super().send_error(code, message, explain)

    def _send(self, body: bytes, content_type: str):
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        pass  # a page closed mid-download (the failing embed's worker, say): nothing to report


MISSING: dict[str, list[str]] = {}  # by the LMS's root URL: the paths it answered 404


def serve(folder: Path):
    server = QuietServer(("127.0.0.1", 0), partial(LmsHandler, package=folder))
    server.missing = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


@pytest.fixture(scope="module")
def packages(built_site, tmp_path_factory):
    """packages(lang): the package of that language unpacked and served as an LMS serves it (each
    on first use): the server's root URL."""
    servers, roots = [], {}

    def root(lang: str) -> str:
        if lang not in roots:
            folder = tmp_path_factory.mktemp(f"lms-{lang}") / "package"
            data = (built_site / "course" / f"specdec-{lang}-scorm12.zip").read_bytes()
            zipfile.ZipFile(io.BytesIO(data)).extractall(folder)
            # The debug hooks beside the package's modules (no page imports them, so the package
            # holds none), with the chunks they share with the embed (which the package holds
            # already): the test contexts load them, and LIVE reads their marks.
            for hooks in modules(built_site, ["static/js/bench/debug.js"]):
                if not (folder / hooks).exists():
                    (folder / hooks).parent.mkdir(parents=True, exist_ok=True)
                    (folder / hooks).write_bytes((built_site / hooks).read_bytes())
            server, roots[lang] = serve(folder)
            servers.append(server)
            MISSING[roots[lang]] = server.missing
        return roots[lang]

    yield root
    for server in servers:
        server.shutdown()


@pytest.fixture(scope="module")
def lms(packages):
    """The English package as an LMS serves it: the server's root URL."""
    return packages("en")


@pytest.fixture(scope="module")
def launchers(shared_contexts, packages):
    """launchers(lang): a page of the module's own, each opened on first use: the LMS's host page
    (1600 x 1000, reduced motion) with the package's launcher live in its frame, fenced
    (page.refused: the requests outside the LMS and the package). The tests resize the player's
    frame and move between chapters; none relaunches."""
    def open_page(lang):
        page = shared_contexts.page(viewport={"width": 1600, "height": 1000}, reduced_motion="reduce")
        page.root = packages(lang)
        page.refused = fence(page, page.root)
        launch(page, page.root)
        return page

    pages = KeptPages(open_page)
    yield pages
    pages.close()


def test_the_sites_own_embed_fails_behind_the_lms_table(new_page, built_site):
    """The server holds the package to Moodle's table: the site's own embed (its profile the site's) fails
    behind it (its .mjs scripts are refused), so the package's run below is not a given."""
    server, root = serve(built_site)
    try:
        page = new_page()
        page.goto(f"{root}package/embed/en/specdec/")
        page.wait_for_selector("#b[data-mode=failed]", timeout=PYODIDE_TIMEOUT_MS)
    finally:
        server.shutdown()


def fence(page, root: str) -> list[str]:
    """Fail every request outside the LMS's own pages and the package; return those refused."""
    refused = []

    def route(r):
        url = r.request.url
        if url.startswith((root + "package/", root + "host.html", root + "scorm-again/")):
            return r.continue_()
        refused.append(url)
        return r.abort()

    page.route("**/*", route)
    return refused


def launch(page, root: str, restore: dict | None = None):
    query = "?restore=" + quote(json.dumps(restore)) if restore else ""
    page.goto(f"{root}host.html{query}")
    frame = page.frame_locator("#sco").frame_locator("#launcher-frame")
    frame.locator("#b[data-mode=live][data-busy=false]").wait_for(timeout=PYODIDE_TIMEOUT_MS)
    return frame


def embed(page):
    """The embed's frame inside the launcher's."""
    return next(f for f in page.frames if "/embed/" in f.url)


def cmi(page, name: str) -> str:
    return page.evaluate(f"String(window.API.LMSGetValue({json.dumps(name)}))")


def calls(page, name: str, element: str | None = None) -> list:
    return [c for c in page.evaluate("window.lmsCalls") if c[0] == name and (element is None or c[1] == element)]


# The Try-its the walk runs (the rule needs four): chapters whose Try-it is quick.
TRIES = ("onebyone", "batch", "draft", "verify")
# The one the walk predicts first (a slider, from the keyboard; chapter 4's, with its why): it is
# counted in the LMS once.
PREDICTS = "verify"


def interactions(page) -> list:
    """The interactions the package wrote, as {n: {field: value}} in the order written."""
    found = {}
    for _, element, value, _ in calls(page, "LMSSetValue"):
        if element.startswith("cmi.interactions."):
            n, field = element.split(".")[2:4]
            found.setdefault(n, {})[field] = value
    return list(found.values())


def test_package_completes_and_resumes_in_an_lms(new_page, lms):
    page = new_page(reduced_motion="reduce")
    refused = fence(page, lms)
    sco = page.frame_locator("#sco")
    frame = launch(page, lms)
    assert cmi(page, "cmi.core.lesson_status") == "incomplete"
    chapters = page.evaluate("JSON.parse(document.querySelector('#sco').contentDocument"
                             ".getElementById('launcher-data').textContent).chapters")
    assert len(chapters) >= 13
    for i, anchor in enumerate(chapters):
        if i:
            sco.locator("#launcher-next").click()
        frame.locator(f"section#{anchor}.b-shown").wait_for()
        if anchor in TRIES:
            if anchor == PREDICTS:
                frame.locator(f"#{anchor} .try input[type=range]").press("End")
            frame.locator(f"#{anchor} .try__button").click()
            frame.locator(f"#{anchor} .try[data-state=done]").wait_for(timeout=60_000)
        status = cmi(page, "cmi.core.lesson_status")
        assert (status == "completed") == (i == len(chapters) - 1), (anchor, status)
        assert cmi(page, "cmi.core.lesson_location") == anchor
    assert sco.locator("#launcher-progress").inner_text().startswith("Completed")
    # A state of the bench's own, to come back: γ = 2 and one more step.
    run(embed(page), [{"type": "set", "name": "gamma", "value": 2}, {"type": "step"}])
    page.wait_for_function("String(window.API.LMSGetValue('cmi.suspend_data')).includes('gamma=2')")
    suspend = cmi(page, "cmi.suspend_data")
    assert len(suspend) <= 4096
    assert f"course-tried={'.'.join(a for a in chapters if a in TRIES)}" in suspend
    assert f"course-predicted={PREDICTS}" in suspend  # the others ran without a prediction
    said = interactions(page)
    assert [i["id"] for i in said] == [f"predict-{PREDICTS}"] and said[0]["result"] == "neutral", said
    assert all(c[-1] == "true" for c in calls(page, "LMSSetValue") if c[1].startswith("cmi.interactions."))
    assert sco.locator("#launcher-progress").inner_text().endswith("1 run with a prediction first")
    sco.locator("#launcher-chapter").select_option(chapters[2])
    page.wait_for_function(f"window.API.LMSGetValue('cmi.core.lesson_location') === {json.dumps(chapters[2])}")
    kept = {"core": {"lesson_status": cmi(page, "cmi.core.lesson_status"),
                     "lesson_location": cmi(page, "cmi.core.lesson_location")},
            "suspend_data": cmi(page, "cmi.suspend_data")}
    # Leaving the page finishes the session.
    page.evaluate("document.querySelector('#sco').src = 'about:blank'")
    page.wait_for_function("window.lmsCalls.some((c) => c[0] === 'LMSFinish')")
    finish = calls(page, "LMSFinish")
    assert finish == [["LMSFinish", "", "true"]]
    assert calls(page, "LMSSetValue", "cmi.core.exit")[-1][2] == "suspend"
    assert calls(page, "LMSSetValue", "cmi.core.session_time")[-1][2].startswith("0000:")
    record = [c for c in page.evaluate("window.lmsCalls") if c[0] != "LMSGetValue"]
    print("\nscorm-again recorded (first launch, LMSGetValue left out):", json.dumps(record, ensure_ascii=False))

    # The second launch: the LMS hands back what it kept.
    frame = launch(page, lms, kept)
    frame.locator(f"section#{chapters[2]}.b-shown").wait_for()
    frame.locator("#b[data-busy=false]").wait_for()
    link = embed(page).evaluate("window.specdecBench.getState().view.link")
    assert "gamma=2" in link and link.lstrip("?") in kept["suspend_data"]
    assert cmi(page, "cmi.core.lesson_status") == "completed"
    assert sco.locator("#launcher-progress").inner_text().startswith("Completed")
    # A prediction made again in the same chapter is not counted again; one in another chapter is.
    for anchor in (PREDICTS, "onebyone"):
        sco.locator("#launcher-chapter").select_option(anchor)
        frame.locator(f"#{anchor} .try input[type=range]").press("End")
        frame.locator(f"#{anchor} .try__button").click()
        frame.locator(f"#{anchor} .try__compare:not([hidden])").wait_for(timeout=60_000)
    page.wait_for_function("String(window.API.LMSGetValue('cmi.suspend_data')).includes('course-predicted=onebyone.verify')")
    assert [i["id"] for i in interactions(page)] == ["predict-onebyone"]
    print("scorm-again recorded (second launch):", json.dumps(
        [c for c in page.evaluate("window.lmsCalls") if c[0] != "LMSGetValue"][:6], ensure_ascii=False))
    assert refused == []
    # Every file the page and its workers ask for is in the package (a worker's script started
    # by URL, not imported, was once left out; the bench still went live without it).
    assert MISSING[lms] == []
    assert page.console_errors == []


# Moodle 4.5's player (measured in Moodle): its frame at 1366 x 768 with the course
# index open and closed, 1280 x 720, 1920 x 1080 and a 390 x 844 phone (Moodle makes its player at
# least 680 px tall, the frame 666).
PLAYERS = {"1366x768 index open": (952, 666), "1366x768 index closed": (1200, 666), "1280x720": (867, 666),
           "1920x1080": (1495, 799), "800x600": (800, 600), "390x844": (367, 666)}
# Where the chapter stands beside the bench, the embed's document is its one scroll area and the
# bench's Play row is in the frame after each way to a chapter.
BESIDE = {"1366x768 index open", "1366x768 index closed", "1280x720", "1920x1080", "800x600"}
# In the launcher: its own document, its frame, and the shown chapter's heading and the bar in the
# embed's frame, in the launcher's coordinates.
IN_LAUNCHER = """() => {
    const frame = document.getElementById('launcher-frame');
    const f = frame.getBoundingClientRect();
    const inner = frame.contentDocument;
    const h = inner.querySelector('.embed__text section.b-shown h2').getBoundingClientRect();
    const strip = inner.querySelector('.b-strip');
    const bar = getComputedStyle(strip).display === 'none' ? 0 : strip.getBoundingClientRect().bottom;
    const scrollers = [...inner.querySelectorAll('body *')].filter((el) => /auto|scroll/.test(getComputedStyle(el).overflowY)
        && el.scrollHeight > el.clientHeight + 1).map((el) => el.id || el.className);
    const bottom = (selector) => f.top + inner.querySelector(selector).getBoundingClientRect().bottom;
    return { width: innerWidth, height: innerHeight, scrolls: document.documentElement.scrollHeight > innerHeight,
             frameTop: f.top, frameBottom: f.bottom, headingTop: f.top + h.top, headingBottom: f.top + h.bottom,
             barBottom: f.top + bar, chapter: inner.querySelector('.embed__text section.b-shown').id,
             scrollers, playBottom: bottom('#b .b-play'), stepBottom: bottom('#b .b-step') };
}"""


def play_in(page, width: int, height: int):
    """The player's frame `width` x `height` (the launcher's window), drawn at that size."""
    page.eval_on_selector("#sco", "(f, [w, h]) => { f.style.width = w + 'px'; f.style.height = h + 'px'; }", [width, height])
    page.frame_locator("#sco").locator("body").evaluate(
        "(_, [w, h]) => new Promise((r) => { const f = () => (innerWidth === w && innerHeight === h"
        " ? requestAnimationFrame(() => requestAnimationFrame(r)) : requestAnimationFrame(f)); f(); })", [width, height])


def test_the_launcher_fills_each_player_and_every_way_to_a_chapter_shows_its_heading(launchers):
    """At each player size the launcher is exactly the player's height (its frame fills what its
    bar leaves: the embed's own scrolling is the only scroll area); after reading a chapter to its
    end, Next chapter, the chapter list and the link at the chapter's end (in place, in the
    package) each show the new chapter with its heading in view near the frame's top (under the
    machine's bar on a phone) and, beside the bench, Play and One step in the frame, with nothing
    in the embed scrolling but its document."""
    page = launchers("en")
    sco = page.frame_locator("#sco")
    shown = sco.frame_locator("#launcher-frame").locator("section.b-shown")
    steps = [("Next chapter", "batch", lambda: sco.locator("#launcher-next").click()),
             ("the chapter list", "verify", lambda: sco.locator("#launcher-chapter").select_option("verify")),
             ("the link at its end", "rule", lambda: shown.locator(".chapter__next a").click())]
    launcher = sco.locator("body")
    for where, (width, height) in PLAYERS.items():
        play_in(page, width, height)
        sco.locator("#launcher-chapter").select_option("onebyone")
        for way, anchor, go in steps:
            embed(page).evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)")  # read to the end
            go()
            sco.frame_locator("#launcher-frame").locator(f"section#{anchor}.b-shown").wait_for(state="attached")
            launcher.evaluate(FRAMES)
            seen = launcher.evaluate(f"(_) => ({IN_LAUNCHER})()")
            top = max(seen["frameTop"], seen["barBottom"])
            assert seen["chapter"] == anchor, (where, way, seen)
            assert not seen["scrolls"] and seen["frameBottom"] == seen["height"] == height, (where, way, seen)
            assert top <= seen["headingTop"] < top + 150 and seen["headingBottom"] <= seen["frameBottom"], (where, way, seen)
            if where in BESIDE:
                assert seen["scrollers"] == [], (where, way, seen)  # the bench scrolls with the chapter
                assert max(seen["playBottom"], seen["stepBottom"]) <= seen["frameBottom"], (where, way, seen)
        assert cmi(page, "cmi.core.lesson_location") == "rule"  # the link's chapter, shown in place, reached the LMS
    assert page.refused == [] and MISSING[page.root] == []


# The launcher's own page in the clip sweep (the bench's own windows and modes are
# tests/browser/test_clip_sweep.py's): Moodle's player at 1366 x 768 with its index
# open, at 800 x 600 and on a phone (PLAYERS), and the launcher alone in a 1366 x 768 window and
# on a 390 x 844 phone, as an LMS that opens the package in a window of its own shows it. Every
# chapter's name in the menu where the menu is narrowest (its width is the bar's below 28 rem). In
# dark at Moodle's player and its phone: the scheme changes colours and nothing else
# (tests/sitebuild/test_colour_scheme.py), which the same boxes in both schemes confirm there.
LAUNCHER_WINDOWS = [PLAYERS["1366x768 index open"], PLAYERS["800x600"], PLAYERS["390x844"], (1366, 768), (390, 844)]
NARROWEST_MENU = {PLAYERS["800x600"], PLAYERS["390x844"]}
DARK_WINDOWS = {PLAYERS["1366x768 index open"], PLAYERS["390x844"]}
NOTE = "(open) => { document.getElementById('launcher-recorded').open = open; }"
# The bench's sheet over the chapter where the embed shows its bar (a phone's frame): opened from
# the bar as a reader does, or closed by its own button. Returns whether the bar is there.
SHEET = """(open) => {
    const opener = document.querySelector('.b-strip__open');
    if (!opener || !opener.checkVisibility()) return false;
    const isOpen = document.documentElement.dataset.sheet === 'open';
    if (open && !isOpen) opener.click();
    if (!open && isOpen) document.querySelector('#b .b-sheet-close').click();
    return true;
}"""
# Every chapter's name where the launcher shows the chosen one (under its transparent menu), each
# in turn (the launcher does not move), read as CLIPPED reads the bar, and against the box it is
# shown in (a word wider than the box would cross its edge).
EVERY_CHAPTER = f"""(scope) => {{
    const clipped = {CLIPPED};
    const menu = document.getElementById('launcher-chapter'), shown = document.getElementById('launcher-chosen');
    const kept = shown.textContent, out = [];
    for (const option of menu.options) {{
        shown.textContent = option.text;
        out.push(...clipped(scope).cut);
        if (shown.scrollWidth > shown.clientWidth + 0.5) out.push(`"${{option.text}}" is ${{shown.scrollWidth}} px wide in ${{shown.clientWidth}}`);
    }}
    shown.textContent = kept;
    return out;
}}"""


def launcher_frame(page):
    """The launcher's frame (the package's index.html) inside the LMS's page."""
    return next(f for f in page.frames if f.url.split("?")[0].endswith("/package/index.html"))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_nothing_the_launcher_shows_is_cut_in_any_player(launchers, lang):
    """The launcher's bar (with what the LMS records folded and open, and each chapter's name in
    its menu where it is narrowest) and the embed in its frame (on a phone, its bar and the bench's sheet opened from
    it), a chapter reached by Next chapter and the bench live with three passes, at every player
    size: nothing cut, drawn over or squeezed (clipcheck.CLIPPED); in dark, every text where it
    is in light and none hidden by its colours."""
    page = launchers(lang)
    sco = page.frame_locator("#sco")
    play_in(page, 952, 666)
    sco.locator("#launcher-chapter").select_option("onebyone")
    run(embed(page), [{"type": "step"}] * 3)
    sco.locator("#launcher-next").click()
    sco.frame_locator("#launcher-frame").locator("section#batch.b-shown").wait_for(state="attached")
    bar, bench = launcher_frame(page), embed(page)
    found = []
    for width, height in LAUNCHER_WINDOWS:
        play_in(page, width, height)
        at = f"{lang} launcher {width}x{height}"
        bench.evaluate(FRAMES)
        found += cut(bar, LAUNCHER_SCOPE, at) + cut(bench, SCOPE, f"{at} embed")
        if (width, height) in DARK_WINDOWS:
            found += in_dark(page, [(bar, LAUNCHER_SCOPE), (bench, SCOPE)], at)
        if (width, height) in NARROWEST_MENU:
            found += [f"{at}: the chapters' menu: {line}" for line in bar.evaluate(EVERY_CHAPTER, LAUNCHER_SCOPE)]
        if bench.evaluate(SHEET, True):
            bench.evaluate(FRAMES)
            found += cut(bench, SCOPE, f"{at} embed, the bench's sheet open")
            bench.evaluate(SHEET, False)
        bar.evaluate(NOTE, True)
        bar.evaluate(FRAMES)
        found += cut(bar, LAUNCHER_SCOPE, f"{at} with what the LMS records open")
        bar.evaluate(NOTE, False)
    assert page.refused == [] and MISSING[page.root] == []
    assert found == [], "\n".join(found)

