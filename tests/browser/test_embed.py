"""The embed as a course author uses it: the "Embed this" dialog's code, pasted into a course page
on another origin (the site at 127.0.0.1, the course at localhost), in both languages.

- A page that runs the dialog's host script (as a plain HTML course page would): each frame
  settles at the height the embed reports, at most 1,000 px at 700 px wide, with the live bench
  whole and no scrollbar inside, and posts again only when its height changes (no resize loop,
  even after the reader opens a taller panel). The embed posts Canvas's lti.frameResize with every
  height. With chapter=exact (in a wider column), that chapter's text and the bench show together,
  and the bench stays in view while the chapter scrolls inside the frame.
- A page that ignores the messages (Moodle's editor may strip the script): the snippet's fixed
  height shows the bench whole.
"""

from __future__ import annotations

import html
import re

import pytest
from helpers.benchpage import PYODIDE_TIMEOUT_MS, embed_load, own_live_pages, settle
from helpers.course_host import course_page, course_site
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

LIVE_IN_FRAME = "#b[data-mode=live][data-busy=false]"


@pytest.fixture(scope="module")
def course():
    with course_site() as server:
        yield server


@pytest.fixture(scope="module")
def dialog_pages(shared_contexts, site_url):
    """Pages of this module's own (not the session's LivePages): the dialog starts from the chapter
    in view, and a page keeps the last chapter it showed (page.js), even scrolled back above it."""
    pages = own_live_pages(shared_contexts, site_url)
    yield pages
    pages.close()


@pytest.fixture
def dialog_page(dialog_pages):
    """The full English page with the bench live, where the author opens "Embed this" (kept for
    the module, and brought to the front of the pages other tests opened: KeptPages)."""
    return dialog_pages("en")


def snippet(page, chapter: str = "", theme: str = "") -> str:
    """The dialog's <iframe> code for the page's bench, with a chapter and colours chosen."""
    page.locator("#b .b-embed-open").click()
    dialog = page.locator("#embed-dialog")
    expect(dialog).to_be_visible()
    page.select_option("#embed-chapter", chapter)
    page.select_option("#embed-theme", theme)
    code = page.locator("#embed-code").input_value()
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    return code


def host_script(page) -> str:
    return page.locator("#embed-script").input_value()


def lang_of(code: str, lang: str) -> str:
    return code.replace("/embed/en/specdec/", f"/embed/{lang}/specdec/")


def wait_live(page, count: int):
    for i in range(count):
        page.frame_locator("iframe").nth(i).locator(LIVE_IN_FRAME).wait_for(state="attached", timeout=PYODIDE_TIMEOUT_MS)


def settled(page) -> list[dict]:
    """Once every frame's height is the last one it reported: each frame's size and what it posted."""
    page.wait_for_function("""() => [...document.getElementsByTagName('iframe')].every((f, i) => {
        const mine = window.posted.filter((p) => p.frame === i && p.data.type === 'specdec:height');
        return mine.length && Math.round(f.getBoundingClientRect().height) === mine[mine.length - 1].data.height;
    })""")
    # A resize loop would keep posting: let every frame draw twenty more times, then count. Each
    # frame is brought into view first: Chromium draws no frames in a cross-origin frame off screen.
    for i, frame in enumerate(page.frames[1:]):
        page.locator("iframe").nth(i).scroll_into_view_if_needed()
        frame.evaluate("() => new Promise((r) => { let n = 20; const f = () => (--n ? requestAnimationFrame(f) : r()); requestAnimationFrame(f); })")
    return page.evaluate("""() => [...document.getElementsByTagName('iframe')].map((f, i) => ({
        height: f.getBoundingClientRect().height,
        posted: window.posted.filter((p) => p.frame === i).map((p) => p.data) }))""")


def inside(page, i: int) -> dict:
    """What the reader of frame i sees: its viewport, its document, the bench's parts."""
    return page.frame_locator("iframe").nth(i).locator("body").evaluate("""() => {
        const box = (s) => { const r = document.querySelector(s).getBoundingClientRect(); return {top: r.top, bottom: r.bottom}; };
        return { viewport: innerHeight, document: document.documentElement.scrollHeight,
                 bench: box('#b'), machine: box('svg.b-machine'), deck: box('.b-deck'), controls: box('form.b-controls'),
                 chapter: document.querySelector('.embed__text section.b-shown h2')?.getBoundingClientRect().top ?? null };
    }""")


def test_the_dialog_gives_copy_ready_code_from_the_keyboard(dialog_page):
    page = dialog_page
    page.evaluate("() => window.specdecBench.run([{type: 'set', name: 'gamma', value: 6}, {type: 'step'}])")
    settle(page)
    button = page.locator("#b .b-embed-open")
    button.focus()
    page.keyboard.press("Enter")
    dialog = page.locator("#embed-dialog")
    expect(dialog).to_be_visible()
    assert page.evaluate("() => document.getElementById('embed-dialog').contains(document.activeElement)")
    code = page.locator("#embed-code").input_value()
    src = html.unescape(re.search(r'src="([^"]+)"', code).group(1))
    assert src.startswith(page.url.split("/en/specdec/")[0] + "/embed/en/specdec/?")
    state = page.evaluate("() => window.specdecBench.getState().view.link")
    assert src.endswith(state) and "gamma=6" in src and "steps=2" in src
    for part in ('title="The speculative-decoding bench (specdec)"', 'loading="lazy"', 'height="1000"', "height: 1000px"):
        assert part in code, part
    page.select_option("#embed-theme", "dark")
    page.select_option("#embed-chapter", "exact")
    code = page.locator("#embed-code").input_value()
    assert "&amp;chapter=exact&amp;theme=dark" in code
    assert page.locator(".embed-dialog__preview").get_attribute("href").endswith("&chapter=exact&theme=dark")
    assert "specdec:height" in host_script(page)
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    assert page.evaluate("() => document.activeElement.classList.contains('b-embed-open')")  # focus came back
    page.evaluate("() => window.specdecBench.run([{type: 'load', query: []}])")


def test_a_course_page_that_follows_the_height_message(dialog_page, new_page, course):
    en, chapter = snippet(dialog_page), snippet(dialog_page, chapter="exact")
    course.pages["/follows.html"] = course_page([en, lang_of(en, "zh")], host_script(dialog_page))
    course.pages["/chapter.html"] = course_page([chapter], host_script(dialog_page), width=1000)
    page = new_page(viewport={"width": 1280, "height": 1100}, reduced_motion="reduce")
    page.goto(course.url + "/follows.html")
    wait_live(page, 2)
    frames = settled(page)
    for i, frame in enumerate(frames):
        seen = inside(page, i)
        assert 600 < frame["height"] <= 1000, frame["height"]
        assert seen["document"] <= seen["viewport"]  # no scrollbar inside the frame
        assert seen["bench"]["top"] >= 0 and seen["bench"]["bottom"] <= seen["viewport"]  # the bench whole
        heights = [p["height"] for p in frame["posted"] if p.get("type") == "specdec:height"]
        canvas = [p["height"] for p in frame["posted"] if p.get("subject") == "lti.frameResize"]
        ims = [p["height"] for p in frame["posted"] if p.get("subject") == "org.imsglobal.lti.frameResize"]
        assert canvas == heights and ims == heights  # Canvas's message, and its org.imsglobal name, with every height
        assert all(a != b for a, b in zip(heights, heights[1:]))  # posted only when it changed
        assert len(heights) < 8, heights  # and it settled: no loop with a host that sets the height
    # The reader opens a taller panel: the frame follows once, and settles again.
    zh = page.frame_locator("iframe").nth(1)
    zh.locator(".b-tab[data-panel=tubes]").click()
    resizes = lambda frame: [p for p in frame["posted"] if p.get("type") == "specdec:height"]  # noqa: E731
    before = len(resizes(frames[1]))
    frames = settled(page)
    assert 0 < len(resizes(frames[1])) - before <= 2
    assert inside(page, 1)["document"] <= inside(page, 1)["viewport"]

    # A lesson on one idea: chapter 06's text beside the bench, both in view at once. The frame
    # is as tall as the bench (at least the snippet's 1,000 px), and the chapter scrolls inside
    # it past the bench, which stays whole in view.
    page.goto(course.url + "/chapter.html")
    wait_live(page, 1)
    [frame] = settled(page)
    seen = inside(page, 0)
    assert 1000 <= frame["height"] <= max(1000, seen["bench"]["bottom"] + 20), (frame["height"], seen)
    assert seen["document"] > seen["viewport"]  # the chapter is longer than the frame
    assert seen["bench"]["top"] >= 0 and seen["bench"]["bottom"] <= seen["viewport"]
    shown = page.frame_locator("iframe").first
    expect(shown.locator(".embed__text section#exact h2")).to_be_visible()
    # The progress message (docs/embedding.md): the chapter shown, no Try-it run yet, posted once.
    progress = [p for p in frame["posted"] if p.get("type") == "specdec:progress"]
    assert progress == [{"type": "specdec:progress", "chapters": ["exact"], "tried": [], "predicted": [],
                        "completed": False}]
    expect(shown.locator(".embed__text section.chapter:not(#exact)").first).to_be_hidden()
    top = page.locator("iframe").bounding_box()["y"]
    for name in ("chapter", "machine"):  # both inside the course page's window
        y = top + (seen[name] if name == "chapter" else seen[name]["bottom"])
        assert 0 <= y <= page.viewport_size["height"], (name, y)
    assert shown.locator("#b").get_attribute("data-panel") == "tubes"  # the chapter's part picks the panel
    # Read to the chapter's end: the bench stays in view, and the frame asks for nothing new.
    page.frames[1].evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)")
    after = inside(page, 0)
    assert after["chapter"] < 0 and after["bench"]["top"] >= 0 and after["bench"]["bottom"] <= after["viewport"], after
    assert len(settled(page)[0]["posted"]) == len(frame["posted"])


def test_a_course_page_that_ignores_the_message_shows_the_bench_whole(dialog_page, new_page, course):
    en = snippet(dialog_page)
    course.pages["/ignores.html"] = course_page([en, lang_of(en, "zh")])
    page = new_page(viewport={"width": 1280, "height": 900}, reduced_motion="reduce")
    page.goto(course.url + "/ignores.html")
    wait_live(page, 2)
    for i in range(2):
        assert page.locator("iframe").nth(i).bounding_box()["height"] == 1000
        seen = inside(page, i)
        assert seen["bench"]["bottom"] <= seen["viewport"], seen  # the live bench whole in the fixed height
        # ... with every tab open, and the race and the readouts on every GPU and model.
        page.locator("iframe").nth(i).scroll_into_view_if_needed()  # an off-screen frame draws no frames
        frame = page.locator("iframe").nth(i).element_handle().content_frame()
        tallest = frame.evaluate(EVERY_TAB_AND_MACHINE)
        assert tallest["bottom"] <= tallest["viewport"], tallest
    assert page.console_errors == []  # the messages it ignores (height, progress, state) cost it nothing


# In an embed: the bench's lowest point with each tab open (the race and the readouts, which
# depend on the GPU and the model, on each pair of them), the largest first.
EVERY_TAB_AND_MACHINE = """async () => {
    const api = window.specdecBench;
    const { hardware } = JSON.parse(document.getElementById("bench-state").textContent).spec;
    const start = api.getState().bench.settings;
    const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    let tallest = { bottom: 0 };
    for (const panel of [...document.querySelectorAll("#b [role=tabpanel]")].map((p) => p.dataset.panel)) {
        await api.dispatch({ type: "open_panel", panel, quiet: true });
        const pairs = ["race", "readouts"].includes(panel)
            ? hardware.gpus.flatMap((g) => hardware.models.map((m) => [g.key, m.key])) : [[start.gpu, start.model]];
        for (const [gpu, model] of pairs) {
            await api.run([{ type: "set", name: "gpu", value: gpu, quiet: true }, { type: "set", name: "model", value: model, quiet: true }]);
            await api.idle();
            await frames();
            const bottom = document.getElementById("b").getBoundingClientRect().bottom + scrollY;
            if (bottom > tallest.bottom) tallest = { bottom, panel, gpu, model, viewport: innerHeight };
        }
    }
    await api.run([{ type: "set", name: "gpu", value: start.gpu, quiet: true }, { type: "set", name: "model", value: start.model, quiet: true },
                   { type: "open_panel", panel: "readouts", quiet: true }]);
    return tallest;
}"""


def test_bad_embed_options_are_named_then_a_link_shows_the_full_page_with_its_state(page, site_url):
    """One live embed: first opened with bad options, then given a good link as its start gives
    one (benchpage.embed_load: the same action, whose reply embed.js applies the same way), so
    one Python start serves both."""
    page.goto(f"{site_url}embed/zh/specdec/?chapter=nope&theme=purple&part=tubes")
    page.wait_for_selector(LIVE_IN_FRAME, timeout=PYODIDE_TIMEOUT_MS, state="attached")
    # Bad options are named in the page's language (theme.js drew the unknown theme's attribute
    # at first paint; the sim's reply takes it away).
    box = page.locator("#b .b-urlerr")
    expect(box).to_be_visible()
    text = box.inner_text()
    assert "chapter = “nope”" in text and "theme = “purple”" in text and "已忽略" in text
    assert page.locator(".embed__text").is_hidden()  # no chapter, and no stray one
    assert page.locator("html").get_attribute("data-theme") is None  # the reader's own colours
    assert page.locator("#b").get_attribute("data-isolate") == "tubes"  # the good option still applies
    assert page.locator("#b").get_attribute("data-panel") == "tubes"

    # The embed links the full page with its state and its chapter.
    embed_load(page, "?gamma=7&chapter=exact")
    link = page.locator(".embed__full")
    expect(link).to_have_attribute("target", "_blank")
    href = link.get_attribute("href")
    assert href.startswith("../../../zh/specdec/?") and "gamma=7" in href and href.endswith("#exact")
    assert page.locator("html").get_attribute("lang") == "zh-Hans"
    # The settings fold behind their button (the frame keeps within 1,000 px); it opens and folds
    # them, from the keyboard too, and says which (aria-expanded).
    toggle, gamma = page.locator("#b .b-settings-toggle"), page.locator("#b input[name=gamma]")
    assert gamma.is_hidden() and toggle.get_attribute("aria-expanded") == "false"
    toggle.click()
    assert gamma.is_visible() and toggle.get_attribute("aria-expanded") == "true"
    toggle.focus()
    page.keyboard.press("Enter")
    assert gamma.is_hidden() and toggle.get_attribute("aria-expanded") == "false"
    page.keyboard.press("Space")
    gamma.focus()
    page.keyboard.press("Escape")
    assert gamma.is_hidden() and page.evaluate("() => document.activeElement.classList.contains('b-settings-toggle')")


def test_full_page_refuses_foreign_framing_but_embed_allows_it(page, site_url):
    full = page.request.get(f"{site_url}en/specdec/").headers["content-security-policy"]
    embed = page.request.get(f"{site_url}embed/en/specdec/").headers["content-security-policy"]
    assert "frame-ancestors 'self'" in full
    assert "frame-ancestors *" in embed
    for policy in (full, embed):
        assert "script-src 'self' 'wasm-unsafe-eval'" in policy
