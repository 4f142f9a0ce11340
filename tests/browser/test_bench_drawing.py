"""The drawing holds at every setting, and the bench passes axe-core after each kind of action.

Geometry: no two text boxes in the machine overlap and none leaves the SVG, at gamma
1 to 8, batch 1, 64 and 256, in both languages, at 360 px (in the phone's sheet) and 1,280 px.
One page per language: the viewport is resized and the settings set through the bench's API,
checked in the page.
Accessibility: axe-core (npm, pinned; injected in tests only, in contexts that bypass the CSP)
finds no serious or critical violation after each kind of action, and Chrome's own
accessibility tree gives every control of the bench a name.
"""

from __future__ import annotations

import pytest
from helpers.benchpage import reset, run

pytestmark = [pytest.mark.browser, pytest.mark.long(45)]


# Text boxes of an SVG: overlapping pairs and those outside it (0.5 px of slack for rounding).
GEOMETRY = """(selector) => {
    const svg = document.querySelector(selector);
    const frame = svg.getBoundingClientRect();
    const shown = (el) => {
        for (let n = el; n && n !== svg; n = n.parentElement) {
            const style = getComputedStyle(n);
            if (style.display === "none" || style.visibility === "hidden") return false;
        }
        return true;
    };
    const boxes = [...svg.querySelectorAll("text")].filter((t) => t.textContent.trim() && shown(t))
        .map((t) => ({ text: t.textContent, r: t.getBoundingClientRect() }));
    const slack = 0.5;
    const problems = [];
    for (const b of boxes) {
        if (b.r.left < frame.left - slack || b.r.right > frame.right + slack
            || b.r.top < frame.top - slack || b.r.bottom > frame.bottom + slack) problems.push(`outside: ${b.text}`);
    }
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i].r, c = boxes[j].r;
        const w = Math.min(a.right, c.right) - Math.max(a.left, c.left);
        const h = Math.min(a.bottom, c.bottom) - Math.max(a.top, c.top);
        if (w > slack && h > slack) problems.push(`overlap: ${boxes[i].text} / ${boxes[j].text}`);
    }
    return { count: boxes.length, problems };
}"""


@pytest.fixture(scope="module")
def axe_bench(live_pages):
    """Live pages with axe-core in them (the session's: conftest.LivePages), with the geometry
    check beside it."""
    return live_pages.for_module("axe", prepare=lambda page: page.add_script_tag(
        content=f"window.benchGeometry = {GEOMETRY};"))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_machine_holds_at_every_setting(axe_bench, lang):
    page = axe_bench(lang)
    reset(page)
    failures = []
    for width in (360, 1280):
        page.set_viewport_size({"width": width, "height": 900})
        if width == 360:  # on a phone the machine is drawn in the sheet the strip opens
            page.locator(".b-strip__open").click()
        failures += page.evaluate("""async (width) => {
            const geometry = window.benchGeometry;
            const failures = [];
            for (let gamma = 1; gamma <= 8; gamma++) {
                for (const batch of [1, 64, 256]) {
                    await window.specdecBench.run([{ type: "load", query: [["gamma", String(gamma)], ["batch", String(batch)]] }]);
                    const found = geometry("#b svg.b-machine");
                    // labels, values and the pass strip are all drawn
                    if (found.count < 11 + 2 * (gamma + 1)) failures.push([width, gamma, batch, `only ${found.count} texts`]);
                    for (const p of found.problems) failures.push([width, gamma, batch, p]);
                }
            }
            return failures;
        }""", width)
    page.set_viewport_size({"width": 1280, "height": 900})  # the sheet closes as the window widens
    assert not failures, failures[:10]


def test_saturation_is_drawn_not_only_written(axe_bench):
    page = axe_bench("en")
    reset(page, "?batch=256&gamma=8")
    over = page.locator("#b .b-gauge-over").bounding_box()
    assert over["width"] > 10  # the red band past ~295 lanes
    assert "b-full" in page.locator("#b .b-mill-wheel").get_attribute("class")
    assert page.locator("#b .b-sheet:not(.b-off)").count() == 3 and page.locator("#b .b-lane.b-lit").count() == 9
    assert page.locator("#b .b-head-value").text_content() == "2,304 lanes"
    reset(page, "?batch=1&gamma=4")
    assert page.locator("#b .b-gauge-over").bounding_box() is None or page.locator("#b .b-gauge-over").bounding_box()["width"] == 0
    assert page.locator("#b .b-sheet:not(.b-off)").count() == 0


def test_words_stay_readable_at_gamma_eight(axe_bench):
    """A long word is cut with an ellipsis (its whole in a tooltip and the bridge's table), never squeezed."""
    page = axe_bench("en")
    reset(page, "?gamma=8&draft=unigram&seed=3")
    for _ in range(6):
        run(page, [{"type": "step"}])
        slots = page.evaluate("""() => [...document.querySelectorAll('#b .b-slot-text')].map((t) => ({
            text: t.firstChild ? t.firstChild.nodeValue : '', squeezed: t.hasAttribute('textLength'),
            width: t.getComputedTextLength(), title: t.querySelector('title') ? t.querySelector('title').textContent : null }))""")
        for slot in slots:
            assert not slot["squeezed"] and slot["width"] <= 33
            if slot["text"].endswith("…"):
                assert slot["title"] and slot["title"].startswith(slot["text"][:-1])


KINDS = [
    ("load", [{"type": "load", "query": [["rule", "typical"], ["rounds", "3"]]}]),
    ("set", [{"type": "set", "name": "draft", "value": "unigram"}, {"type": "set", "name": "temperature", "value": 0}]),
    ("step", [{"type": "step"}]),
    ("new sentence", [{"type": "new_sentence"}]),
    ("round", [{"type": "round"}]),
    ("clear", [{"type": "clear_tubes"}]),
    ("isolate", [{"type": "isolate", "part": "bridge"}]),
    ("focus", [{"type": "isolate", "part": ""}, {"type": "focus", "part": "mill"}]),
    ("play", [{"type": "play"}, {"type": "pause"}]),
]


# What axe-core finds serious or critical in the bench.
AXE_BENCH = """async () => (await axe.run(document.getElementById('bench'), {
    resultTypes: ['violations'] })).violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_axe_finds_nothing_serious_after_each_kind_of_action(axe_bench, lang):
    """In English axe runs after each kind of action; in Chinese after the link messages and once
    after every kind has run, in the same order. The two languages' benches are one template and
    one script: the DOM, the roles and the colours each action leaves are the same, and what
    differs, the words, comes from strings.toml, whose keys the build checks are the same in both
    (sitebuild's parity check), so a name missing in one language fails the build. (An axe run
    over the bench costs about 1.5 s of CPU: eight fewer here.)"""
    page = axe_bench(lang)
    reset(page, "?gamma=4%00&draft=trigram")  # the link messages are part of the page too
    found = {}
    checks = [("link messages", [])] + (KINDS if lang == "en" else [
        ("every kind, one after another", [action for _, actions in KINDS for action in actions])])
    for kind, actions in checks:
        run(page, actions)
        if violations := page.evaluate(AXE_BENCH):
            found[kind] = violations
    assert not found, found


def test_every_control_has_a_name_in_chromes_accessibility_tree(axe_bench):
    """axe misses some empty names; Chrome's own tree does not."""
    page = axe_bench("en")
    reset(page)
    cdp = page.context.new_cdp_session(page)
    try:
        nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        cdp.detach()
    roles = ("slider", "combobox", "checkbox", "radio", "button", "link")
    unnamed = [n["role"]["value"] for n in nodes
               if n.get("role", {}).get("value") in roles and not n.get("ignored")
               and not (n.get("name") or {}).get("value", "").strip()]
    assert not unnamed, unnamed
    names = {n["name"]["value"] for n in nodes if n.get("role", {}).get("value") == "slider"}
    assert {"Guesses per pass, γ", "Batch (sequences)"} <= names
