"""The chapters' Try-it buttons, used as a reader would: from the keyboard, on the full page, on a
phone and in the embed, in both languages.

One page per language runs all 16 in chapter order (each starts from its own state, so the order
is only the reader's). After each: the bench holds the state the chapter describes
(tests/helpers/tryit_expect.py, the checks the sim's CPython run passes too), the views the answer came
from are the sim's own for those states, the answer shows each value formatted as the readouts
are, the one live region says it, the chapter's part is in focus and the button keeps the focus.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
from playwright.sync_api import expect
from helpers.benchpage import LIVE, PYODIDE_TIMEOUT_MS, add_axe, settle
from helpers.tryit_expect import EXPECT

from sitebuild.tryit.predict import direction, outcome
from sitebuild.tryit.values import resolve

pytestmark = [pytest.mark.browser, pytest.mark.long(50)]

REPO = Path(__file__).resolve().parents[2]
LABEL = {"en": "What happened:", "zh": "结果："}
OTHER = {"en": "other", "zh": "其他"}
# A run pressed when `heard` answers had been heard has ended: its answer is heard (the
# specdec:tryit event, done or incomplete), or it failed. (A box keeps the state of its last run,
# which on a page shared with earlier tests may be "done" already.)
FINISHED = """([box, heard]) => window.tryResults.length > heard || box.dataset.state === 'error'"""
LISTEN = """() => {
    window.tryResults = [];
    if (window.tryListening) return;
    window.tryListening = true;
    document.addEventListener("specdec:tryit", (e) => window.tryResults.push(e.detail));
}"""


def shown(value, fmt: str, lang: str) -> list[str]:
    """How the page writes a value (Intl in the page's language; both languages group with "," here)."""
    quote = lambda t: f"“{OTHER[lang] if t is None else t}”"  # noqa: E731
    if fmt == "int":
        return [f"{round(value):,}"]
    if fmt in ("num2", "num3"):
        return [f"{value:.{fmt[-1]}f}"]
    if fmt == "num":
        return [f"{value:.3f}".rstrip("0").rstrip(".")]
    if fmt == "pct":
        return [f"{value * 100:.1f}".removesuffix(".0") + "%"]
    if fmt == "quoted":
        return [quote(value)]
    return [quote(t) for t in value]  # list: each item, joined as the language lists things


def run_try(page, anchor: str, keyboard: bool = True) -> dict:
    box = page.locator(f"#{anchor} .try")
    button = box.locator(".try__button")
    assert button.is_enabled() and box.locator(".try__status").inner_text() == ""
    heard = page.evaluate("() => window.tryResults.length")
    if keyboard:
        button.focus()
        page.keyboard.press("Enter")
    else:
        button.click()
    page.wait_for_function(FINISHED, arg=[box.element_handle(), heard], timeout=PYODIDE_TIMEOUT_MS)
    assert box.get_attribute("data-state") == "done", box.locator(".try__status").inner_text()
    return page.evaluate("() => window.tryResults.pop()")


def check_answer(page, anchor: str, lang: str, result: dict) -> str:
    box = page.locator(f"#{anchor} .try")
    data = json.loads(box.get_attribute("data-try"))
    words = box.locator(".try__answer-words").inner_text()
    assert words == result["words"] and box.locator(".try__answer").is_visible()
    for key, value in data["values"].items():
        view = result["snapshots"][value["at"]] if value["at"] else result["final"]
        for text in shown(resolve(view, tuple(value["path"])), value["format"], lang):
            assert text in words, (anchor, key, text, words)
    return words


def predict(page, anchor: str, turn: int):
    """Make the chapter's prediction from the keyboard (a different choice on each turn), or None."""
    box = page.locator(f"#{anchor} .try")
    data = json.loads(box.get_attribute("data-try"))["predict"]
    if data is None:
        return None
    if data["kind"] == "direction":
        box.locator("input[type=radio]").first.focus()
        for key in ["Space"] + ["ArrowDown"] * (turn % 3):
            page.keyboard.press(key)
        return data, box.locator("input[type=radio]:checked").get_attribute("value")
    slider = box.locator("input[type=range]")
    slider.focus()
    for key in ["End"] if turn % 2 == 0 else ["Home", "ArrowRight"]:
        page.keyboard.press(key)
    guess = float(slider.input_value())
    assert box.locator(".try__guess").inner_text() == shown(guess, data["value"]["format"], page.lang)[0]
    return data, guess


def filled(template: str, values: dict, result: dict, lang: str) -> str:
    """A template (a prediction's why) as the page fills it: each placeholder the value it names,
    formatted in the language (not a list, which no why uses: Intl joins those)."""
    def value(match):
        entry = values[match.group(1)]
        view = result["snapshots"][entry["at"]] if entry["at"] else result["final"]
        assert entry["format"] != "list", match.group(1)
        return shown(resolve(view, tuple(entry["path"])), entry["format"], lang)[0]
    return re.sub(r"\{([A-Za-z_]\w*(?:@\w*)?)\}", value, template)


def check_comparison(page, anchor: str, lang: str, made, result: dict) -> str:
    """The comparison line says what sitebuild/tryit/predict.py's rule says, in the language's
    words, and then the chapter's why, filled from the view."""
    data, guess = made
    strings = tomllib.loads((REPO / "site" / lang / "strings.toml").read_text(encoding="utf-8"))
    fmt = lambda x: shown(x, data["value"]["format"], lang)[0]  # noqa: E731
    before, after = (resolve(view, tuple(data["value"]["path"])) for view in (result["snapshots"]["start"], result["final"]))
    if data["kind"] == "direction":
        rule = {"kind": "direction"}
        words = {w: strings[f"predict_{w}"] for w in ("up", "same", "down")}
        values = {"guess": words[guess], "actual": words[direction(before, after)], "before": fmt(before), "after": fmt(after)}
    else:
        rule = {"kind": "range", "range": (data["min"], data["max"], data["step"])}
        values = {"guess": fmt(guess), "after": fmt(after), "gap": fmt(abs(guess - after))}
    expected = strings["predict_" + outcome(rule, before, after, guess)].format(**values)
    if data["why"]:
        every = json.loads(page.locator(f"#{anchor} .try").get_attribute("data-try"))["values"]
        expected = strings["predict_why"].format(compared=expected, why=filled(data["why"], every, result, lang))
    line = page.locator(f"#{anchor} .try__compare")
    assert line.is_visible() and line.locator(".try__compare-words").inner_text() == expected, anchor
    assert result["predicted"] is True
    return f" {strings['predict_label']} {expected}"


def check_views_are_the_sims(page, result: dict) -> None:
    """Each view the answer read is what the worker answers for its state, asked afresh."""
    for view in [result["final"], *result["snapshots"].values()]:
        fresh = page.evaluate("(state) => window.specdecBench.call('view', {state, measure: true})", view["state"])
        assert fresh == view


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_try_it_runs_from_the_keyboard_and_leaves_its_chapters_state(shared_bench, lang):
    page = shared_bench(lang)
    page.evaluate(LISTEN)
    page.evaluate("() => window.specdecBench.dispatch({type: 'speed', value: 3})")  # the parts tour's holds
    anchors = page.eval_on_selector_all("section.chapter", "(ss) => ss.map((s) => [s.id, s.dataset.part])")
    assert len(anchors) == 16 and page.locator(".try").count() == 16
    page.lang = lang
    predicted = []
    for anchor, part in anchors:
        made = predict(page, anchor, len(predicted))  # before the run, from the keyboard
        result = run_try(page, anchor)
        EXPECT[anchor](result["final"], result["snapshots"])
        words = check_answer(page, anchor, lang, result)
        if made:
            predicted.append(anchor)
            words += check_comparison(page, anchor, lang, made, result)
        else:
            assert result["predicted"] is False and page.locator(f"#{anchor} .try__compare").count() == 0
        check_views_are_the_sims(page, result)
        state = page.evaluate("() => window.specdecBench.getState()")
        assert state["view"] == result["final"]  # nothing ran after the answer was read
        assert state["ui"]["focus"] == part and state["ui"]["isolate"] == "" and not state["ui"]["playing"]
        assert page.evaluate(f"() => document.activeElement === document.querySelector('#{anchor} .try__button')")
        page.wait_for_function("(said) => document.querySelector('#b .b-live').textContent === said",
                               arg=f"{LABEL[lang]} {words}")
    # every chapter asks for a prediction (docs/courses.md lists them)
    assert predicted == [anchor for anchor, _ in anchors], predicted

    # The same page on a phone: clicked, the answer fits under its button, with the way to the bench.
    page.set_viewport_size({"width": 360, "height": 740})
    page.locator("#exact .try__button").scroll_into_view_if_needed()
    result = run_try(page, "exact", keyboard=False)
    EXPECT["exact"](result["final"], result["snapshots"])
    check_answer(page, "exact", lang, result)
    answer = page.locator("#exact .try__answer").bounding_box()
    assert answer["x"] >= 0 and answer["x"] + answer["width"] <= 360  # nothing cut off
    assert page.locator("#exact .try__see a").get_attribute("href") == "#b-title"
    page.set_viewport_size({"width": 1280, "height": 900})
    assert not page.console_errors


def test_in_the_embed_the_buttons_wait_for_the_bench_and_pass_axe(fresh_page, site_url):
    """The embed (a course's iframe): the buttons are disabled with their reason while Python is
    held back, then work; axe-core finds nothing serious in a block before or after its answer."""
    page = fresh_page(viewport={"width": 700, "height": 900}, reduced_motion="reduce", bypass_csp=True)
    held = []
    page.route("**/pyodide.asm.wasm*", lambda route: held.append(route))  # Pyodide's .wasm held back
    page.goto(f"{site_url}embed/en/specdec/?chapter=exact")
    page.wait_for_function("() => document.querySelector('#exact .try__status').textContent.includes('Waiting')")
    buttons = page.locator(".try__button")
    assert all(buttons.nth(i).is_disabled() for i in range(buttons.count()))
    assert page.locator("#exact .try__status").is_visible()
    while not held:
        page.wait_for_timeout(50)
    held[0].continue_()
    page.wait_for_selector(LIVE, timeout=PYODIDE_TIMEOUT_MS)
    settle(page)
    assert all(buttons.nth(i).is_enabled() for i in range(buttons.count()))
    page.evaluate(LISTEN)
    add_axe(page)
    axe = """async () => (await axe.run(document.querySelector('#exact .try'), { resultTypes: ['violations'] }))
        .violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)"""
    assert page.evaluate(axe) == []
    result = run_try(page, "exact", keyboard=False)
    EXPECT["exact"](result["final"], result["snapshots"])
    check_answer(page, "exact", "en", result)
    assert page.evaluate(axe) == []
    # A prediction's fieldset (a radio group, a slider) before and after its comparison line.
    # The embed shows one chapter (embed.js's showChapter toggles b-shown); these are shown the same way.
    for anchor in ("speedup", "serving", "rule"):  # radios; a rate's slider (its rule: predict.py); a share's, with a why
        page.evaluate(f"() => document.getElementById('{anchor}').classList.add('b-shown')")
        assert page.evaluate(axe.replace("#exact", f"#{anchor}")) == []
        page.lang = "en"
        made = predict(page, anchor, 0)
        result = run_try(page, anchor, keyboard=False)
        check_comparison(page, anchor, "en", made, result)
        assert page.evaluate(axe.replace("#exact", f"#{anchor}")) == []


def test_a_bench_that_cannot_start_says_so_beside_each_button(fresh_page, site_url):
    page = fresh_page(reduced_motion="reduce", viewport={"width": 1280, "height": 720})
    page.route("**/pyodide.asm.wasm*", lambda route: route.abort("blockedbyclient"))
    page.goto(f"{site_url}zh/specdec/")
    page.wait_for_selector("#b[data-mode=failed]", timeout=30_000, state="attached")  # 720 px tall: the bench is a sheet
    assert page.locator("#rule .try__button").is_disabled()
    # Read as it is drawn when the reader reaches it: a chapter off screen is not drawn (site.css),
    # and is drawn in the frame after it comes into view.
    status = page.locator("#rule .try__status")
    status.scroll_into_view_if_needed()
    expect(status).to_contain_text("重试", use_inner_text=True)
