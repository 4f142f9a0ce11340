"""The chapters' Try-its: declared in each chapter's [try] table, checked against the bench's spec,
the same in both languages, and run by the sim to the state each chapter describes.

Every bad block fails with one line naming the file and the line of the entry at fault; each
check has its broken example. The browser runs the same Try-its (tests/browser/test_tryit.py).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

import pytest

from sim.bench.api import spec as bench_spec
from sim.session import Session
from sitebuild import tryit
from sitebuild.content import load_all, load_section
from sitebuild.errors import BuildError
from sitebuild.tryit.actions import ALLOWED, REFUSED
from sitebuild.tryit.blocks import checked, page_data
from sitebuild.tryit.predict import direction, outcome, ranges
from sitebuild.tryit.values import VALUES, resolve
from helpers.tryit_expect import EXPECT
from helpers.tryit_replay import replay

REPO = Path(__file__).resolve().parents[2]
SITE = REPO / "site"
SPEC = bench_spec()

GOOD = '''+++
title = "A chapter"
caption = "A caption."
part = "bridge"

[try]
button = "Step until a guess is rejected"
question = "What did the big model write instead?"
answer = "In pass {passes} the guess {rejected_text} was rejected; α went from {alpha@start} to {alpha@later}."
actions = [
  {type = "step", until = "rejected"},
  {snapshot = "later"},
  {type = "set", name = "gamma", value = 6},
]
+++

Body.
'''


def section_from(tmp_path: Path, text: str, lang: str = "en"):
    path = tmp_path / lang / "05-rule.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return load_section(path)


def refusal(tmp_path, text: str) -> str:
    section = section_from(tmp_path, text)
    with pytest.raises(BuildError) as caught:
        checked(section, SPEC)
    return str(caught.value)


def line_with(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.split("\n"), 1) if needle in line)


def test_a_good_block_becomes_the_pages_data(tmp_path):
    section = section_from(tmp_path, GOOD)
    block = checked(section, SPEC)
    data = page_data(block, block["answer"], "bridge")
    assert data["start"] == [] and data["show"] == "bridge"
    assert data["actions"][0] == {"type": "step", "until": "rejected"}
    assert data["values"]["alpha@later"] == {"path": ["readouts", "alpha"], "format": "num3", "at": "later"}
    assert data["values"]["passes"]["at"] is None


@pytest.mark.parametrize("old, new, message", [
    ('{type = "step", until = "rejected"}', '{type = "stepp"}',
     "unknown action type 'stepp'; type is one of set, step, round, new_sentence, clear_tubes, isolate"),
    ('name = "gamma", value = 6', 'name = "gama", value = 6', "set names 'gama', which is not a setting"),
    ('name = "gamma", value = 6', 'name = "gamma", value = 9', "set gamma to 9; gamma is a whole number from 1 to 8"),
    ('name = "gamma", value = 6', 'name = "gamma", value = "6"', "set gamma to '6'; gamma is a whole number"),
    ('until = "rejected"', 'until = "rejcted"', "step until 'rejcted'; until is one of rejected, all_kept"),
    ('until = "rejected"', 'count = 0', "count = 0; count is a whole number from 1 to 200"),
    ('{type = "step", until = "rejected"}', '{type = "isolate", part = "drums"}',
     "isolate part 'drums', which the machine does not have"),
    ('{type = "step", until = "rejected"}', '{type = "play"}', "a Try-it may not use a 'play' action"),
    ('{type = "step", until = "rejected"}', '{type = "round", count = 101}',
     "count = 101; count is a whole number from 1 to 100"),
    ('{type = "step", until = "rejected"}', '{hold = 9}', "hold = 9; a hold is a number of seconds"),
    ('{type = "step", until = "rejected"}', '{type = "step", until = "rejected", color = "red"}',
     "step has no 'color'"),
])
def test_a_bad_action_names_its_own_line(tmp_path, old, new, message):
    text = GOOD.replace(old, new)
    got = refusal(tmp_path, text)
    assert got.startswith(f"{tmp_path / 'en' / '05-rule.md'}:{line_with(text, new)}: {message}"), got


def test_setting_one_value_twice_in_a_row_is_refused(tmp_path):
    """The store would apply only the second of two queued sets of one setting."""
    twice = '{type = "set", name = "gamma", value = 5},\n  {type = "set", name = "gamma", value = 7}'
    text = GOOD.replace('{type = "step", until = "rejected"}', twice)
    assert f"05-rule.md:{line_with(text, 'value = 7')}: set gamma twice in a row" in refusal(tmp_path, text)


@pytest.mark.parametrize("start, message", [
    ("start = {gama = 3}", "start names 'gama', which the bench does not have"),
    ("start = {rounds = 500}", "start sets rounds = 500; rounds is a whole number from 0 to 100"),
    ('start = {temperature = 2}', "start sets temperature = 2; temperature is one of 0, 0.5, 0.7, 1, 1.3"),
])
def test_a_bad_start_names_its_line(tmp_path, start, message):
    text = GOOD.replace("actions = [", f"{start}\nactions = [")
    assert f"05-rule.md:{line_with(text, start)}: {message}" in refusal(tmp_path, text)


def test_the_start_becomes_a_link_in_the_links_order(tmp_path):
    text = GOOD.replace("actions = [", "start = {rounds = 0, temperature = 0.7, gamma = 8}\nactions = [")
    block = checked(section_from(tmp_path, text), SPEC)
    assert block["query"] == [["gamma", "8"], ["temperature", "0.7"], ["rounds", "0"]]


@pytest.mark.parametrize("old, new, message", [
    ("{alpha@start}", "{alpah@start}",
     "the answer uses {alpah}, which is not a value the page can report (nearest: alpha)"),
    ("{alpha@later}", "{alpha@before}", "the answer uses {alpha@before}, but the actions declare no snapshot 'before'"),
    ("went from", "went from 0.63, from", "the answer types the number 0"),
    ("went from", "went { from", "the answer has a brace that is not a placeholder"),
    ("{alpha@later}", "{alpha}", "the actions declare snapshot 'later', which the answer never uses"),
])
def test_a_bad_answer_names_its_line(tmp_path, old, new, message):
    text = GOOD.replace(old, new)
    got = refusal(tmp_path, text)
    line = line_with(text, "actions =" if "never uses" in message else "answer =")
    assert f"05-rule.md:{line}: {message}" in got, got


def test_an_answer_must_report_something_from_the_bench(tmp_path):
    text = re.sub(r'answer = ".*"', 'answer = "Something happened."', GOOD).replace('  {snapshot = "later"},\n', "")
    assert "the answer reports nothing from the bench" in refusal(tmp_path, text)


def test_every_chapter_has_a_try_table_with_known_keys(tmp_path):
    assert "05-rule.md:1: the chapter has no [try] table" in refusal(tmp_path, GOOD.split("\n[try]")[0] + "\n+++\n")
    text = GOOD.replace("question =", "questoin =")
    assert "the [try] table lacks question" in refusal(tmp_path, text)
    text = GOOD.replace('question = "', 'hint = "x"\nquestion = "')
    assert f"05-rule.md:{line_with(text, 'hint =')}: the [try] table has no key 'hint'" in refusal(tmp_path, text)


def test_both_languages_declare_the_same_actions_and_report_the_same_values(tmp_path):
    from sitebuild.tryit.blocks import check_parity

    en = section_from(tmp_path, GOOD, "en")
    changed = GOOD.replace("value = 6", "value = 7")
    zh = section_from(tmp_path, changed, "zh")
    with pytest.raises(BuildError) as caught:
        check_parity(en, zh, checked(en, SPEC), checked(zh, SPEC))
    line = line_with(GOOD, "value = 6")
    assert f"en/05-rule.md:{line}: the Try-it's actions differ from zh/05-rule.md's" in str(caught.value)
    fewer = GOOD.replace("In pass {passes} the", "The")
    zh = section_from(tmp_path, fewer, "zh")
    with pytest.raises(BuildError) as caught:
        check_parity(en, zh, checked(en, SPEC), checked(zh, SPEC))
    assert "the answer reports {passes}, which zh/05-rule.md's does not" in str(caught.value)


def test_a_typo_in_a_chapter_fails_the_whole_build_with_its_line(project, build_memo):
    from sitebuild.pipeline import build

    path = project.site / "zh" / "08-speedup.md"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('name = "gamma", value = 8', 'name = "gamma", value = 80'), encoding="utf-8")
    with pytest.raises(BuildError) as caught:
        build(project, build_memo)
    line = line_with(path.read_text(encoding="utf-8"), "value = 80")
    assert f"zh/08-speedup.md:{line}: set gamma to 80; gamma is a whole number from 1 to 8" in str(caught.value)
    assert not project.out.exists()


# --- the real chapters -------------------------------------------------------------------------------

@lru_cache(maxsize=1)
def _contents():
    return load_all(SITE)


def test_the_chapters_blocks_pass_the_build_checks():
    tryit.check(_contents(), SPEC)
    assert all(len(c.chapters) == 16 for c in _contents().values())


def _chapter_runs(lang):
    from helpers import corpus_models

    session = Session(corpus_models.language(lang))
    for section in _contents()[lang].with_tryit:
        block = checked(section, SPEC)
        data = page_data(block, block["answer"], section.meta["part"])
        yield section.anchor, data, replay(session, data)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_try_it_leaves_the_state_its_chapter_describes(lang):
    """Run by the sim in CPython as the page runs it: the state, the verdicts and the direction of
    every readout the answer speaks of (tests/helpers/tryit_expect.py), a value for every placeholder,
    and for a prediction, an answer the options or the slider can meet."""
    seen, predicted = set(), []
    for anchor, data, (end, snaps) in _chapter_runs(lang):
        EXPECT[anchor](end, snaps)
        if data["predict"]:
            _check_prediction(anchor, data["predict"], snaps["start"], end)
            predicted.append(anchor)
        for key, value in data["values"].items():  # the answer's and the why's
            got = resolve(snaps[value["at"]] if value["at"] else end, tuple(value["path"]))
            values = got if isinstance(got, list) else [got]
            assert values and None not in values, (anchor, key)
            seen.add(key.split("@")[0])
    assert seen == set(VALUES), set(VALUES) - seen  # every value the table offers is used and resolves
    assert predicted == [s.anchor for s in _contents()[lang].chapters]  # every chapter asks for a prediction


def test_python_knows_the_stores_actions():
    """The Try-it's lists (sitebuild/tryit/actions.py) name the protocol's actions, every one that
    runs in the sim or on the page; the store reads the protocol and keeps no list of its own."""
    store = (REPO / "site" / "static" / "js" / "bench" / "store.js").read_text(encoding="utf-8")
    actions = SPEC["protocol"]["actions"]
    bench = {kind for kind, a in actions.items() if a["runs"] == "sim"}
    local = set(re.findall(r'action\.type === "(\w+)"', store[store.index("async local("):]))
    assert local == {kind for kind, a in actions.items() if a["runs"] == "page"}
    assert set(ALLOWED) | set(REFUSED) == bench | local
    assert not re.search(r'new Set\(\[\s*"set"|\bUNTIL\b|"rejected"|"all_kept"', store)


def test_the_built_page_holds_one_waiting_block_per_chapter(built_site):
    for lang, waiting in (("en", "Works once the bench has started"), ("zh", "实验台启动后")):
        html = (built_site / lang / "specdec" / "index.html").read_text(encoding="utf-8")
        blocks = re.findall(r"<div class=\"try\" role=\"group\" aria-labelledby=\"([a-z]+)-try-title\" "
                            r"data-try='([^']*)'>(.*?)</div>\n</div>", html, re.S)
        assert [anchor for anchor, _, _ in blocks] == [s.anchor for s in _contents()[lang].chapters]
        for anchor, data, inner in blocks:
            assert json.loads(data.replace("&#34;", '"'))["show"]
            assert re.search(r"<button type=\"button\" class=\"try__button\" disabled", inner)
            assert waiting in inner and "try__answer\" hidden" in inner


# --- predictions (sitebuild/tryit/predict.py) ---------------------------------------------------------

PREDICT = 'predict = {kind = "direction", value = "alpha", question = "α will be…"}'
WITH_PREDICT = GOOD.replace("\n+++\n\nBody.", f"\n{PREDICT}\n+++\n\nBody.")
# What each chapter's prediction must come to on the sim (the chapters' own claims, as tryit_expect checks them).
PREDICTED = {"alpha": "down", "speedup": "down", "exact": "up", "lab": "down"}
# What a chapter's why says of the sim's answer, as a rule on the final view.
WHY_CLAIMS = {
    # the pass that kept every guess wrote them and the bonus: gamma + 1, the most a pass writes
    "verify": lambda v: v["pass"]["n_written"] == v["state"]["settings"]["gamma"] + 1 and v["pass"]["bonus"],
    # the rejected guess's p/q is below one, and its r above it
    "rule": lambda v: (lambda g: g["ratio"] < 1 and g["r"] > g["ratio"])(
        next(g for g in v["pass"]["guesses"] if g["verdict"] == "rejected")),
    # the typing head wrote the kept guesses and one token of the big drum's own
    "parts": lambda v: v["pass"]["n_written"] == v["pass"]["n_kept"] + 1,
}


def _check_prediction(anchor, predict, start, end):
    before = resolve(start, tuple(predict["value"]["path"]))
    after = resolve(end, tuple(predict["value"]["path"]))
    assert isinstance(after, (int, float)), anchor
    if anchor in WHY_CLAIMS:
        assert predict["why"] and WHY_CLAIMS[anchor](end), anchor
    if predict["kind"] == "direction":
        assert isinstance(before, (int, float)), anchor
        assert direction(before, after) == PREDICTED[anchor], anchor
        assert predict["options"] == ["up", "same", "down"]
    else:
        assert predict["min"] <= after <= predict["max"], (anchor, after)
        steps = (predict["max"] - predict["min"]) / predict["step"]
        assert 4 <= steps <= 40 and abs(steps - round(steps)) < 1e-9, anchor  # a slider a thumb can set


def test_a_prediction_becomes_the_pages_data(tmp_path):
    block = checked(section_from(tmp_path, WITH_PREDICT), SPEC)
    data = page_data(block, block["answer"], "bridge")["predict"]
    assert data == {"kind": "direction", "value": {"path": ["readouts", "alpha"], "format": "num3"},
                    "options": ["up", "same", "down"], "same_within": 0.01, "why": None}
    ranged = WITH_PREDICT.replace('kind = "direction"', 'kind = "range"')
    data = page_data(checked(section_from(tmp_path, ranged), SPEC), "", "bridge")["predict"]
    assert (data["min"], data["max"], data["step"]) == ranges(SPEC)["alpha"] == (0, 1, 0.05)
    gamma = next(p for p in SPEC["parameters"] if p["name"] == "gamma")
    assert ranges(SPEC)["tpp"][1] == gamma["max"] + 1  # the slider's bounds follow the bench's spec
    no_predict = checked(section_from(tmp_path, GOOD), SPEC)
    assert page_data(no_predict, "", "bridge")["predict"] is None


def test_a_predictions_why_is_filled_from_the_view_like_the_answer(tmp_path):
    """The why's placeholders join the answer's in the values the page reads; its words are the
    rendered ones (the chapter's {{ fig.* }} filled), else the declared ones."""
    why = WITH_PREDICT.replace('question = "α will be…"', 'question = "α will be…", why = "It kept {pass_kept@later}: {c}."')
    block = checked(section_from(tmp_path, why), SPEC)
    assert block["predict"]["why_used"] == ["pass_kept@later", "c"]
    data = page_data(block, block["answer"], "bridge")
    assert data["predict"]["why"] == "It kept {pass_kept@later}: {c}."
    assert data["values"]["pass_kept@later"] == {"path": ["pass", "n_kept"], "format": "int", "at": "later"}
    assert data["values"]["c"]["at"] is None and "alpha@start" in data["values"]  # the answer's stay
    assert page_data(block, block["answer"], "bridge", "It kept {c}.")["predict"]["why"] == "It kept {c}."


def test_the_sliders_of_rates_and_of_the_tape_follow_the_roofline_and_the_passes(tmp_path):
    """A rate's slider ends at the arithmetic's ceiling of the fastest GPU and model (one token's
    arithmetic, roofline.arithmetic_seconds), rounded up to a notch; the tape's tokens after n
    passes from an empty tape run from n to n (γ + 1), γ the start's or the bench's default."""
    from sim import roofline

    ceiling = max(1 / roofline.arithmetic_seconds(roofline.gpu(g), roofline.model(m))
                  for g in roofline.GPUS for m in roofline.MODELS)
    three = WITH_PREDICT.replace('kind = "direction", value = "alpha"', 'kind = "range", value = "spec_tps"')
    low, high, step = (page_data(checked(section_from(tmp_path, three), SPEC), "", "bridge")["predict"][k]
                       for k in ("min", "max", "step"))
    assert low == 0 and ceiling <= high < ceiling + step and high / step <= 40 and high % step == 0
    written = three.replace('value = "spec_tps"', 'value = "written"').replace(
        '{type = "step", until = "rejected"},\n  {snapshot = "later"},\n  {type = "set", name = "gamma", value = 6},',
        '{type = "step"},\n  {type = "step", count = 2},').replace("actions = [", "start = {steps = 0}\nactions = [")
    written = written.replace("{alpha@start} to {alpha@later}", "{alpha@start} to {alpha}")
    data = page_data(checked(section_from(tmp_path, written), SPEC), "", "bridge")["predict"]
    gamma = SPEC["default_state"]["settings"]["gamma"]
    assert (data["min"], data["max"], data["step"]) == (3, 3 * (gamma + 1), 1)
    narrow = written.replace("start = {steps = 0}", "start = {steps = 0, gamma = 2}")
    data = page_data(checked(section_from(tmp_path, narrow), SPEC), "", "bridge")["predict"]
    assert (data["min"], data["max"]) == (3, 9)


@pytest.mark.parametrize("old, new, message", [
    ('kind = "direction"', 'kind = "directon"', "predict's kind 'directon' is not one of direction, range (nearest: direction)"),
    ('value = "alpha"', 'value = "alpah"', "predict's value 'alpah' is not a value the page can report (nearest: alpha)"),
    ('value = "alpha"', 'value = "pass_text"', "predict's value 'pass_text' is quoted text, not a number to predict"),
    ('kind = "direction", value = "alpha"', 'kind = "range", value = "c"', "a range prediction of 'c' has no slider"),
    ('kind = "direction", value = "alpha"', 'kind = "range", value = "written"',
     "a range prediction of 'written' needs a Try-it that starts from an empty tape and only steps"),
    ('question = "α will be…"', 'question = " "', "predict's question is empty or not text"),
    ('question = "α will be…"', 'asked = "α will be…"', "predict has no key 'asked'"),
    ('kind = "direction", ', '', "predict lacks kind"),
    (PREDICT, 'predict = "alpha"', "predict is not a table"),
    ('question = "α will be…"', 'question = "α will be…", why = ""', "predict's why is empty or not text"),
    ('question = "α will be…"', 'question = "α will be…", why = "It kept {kept}."',
     "predict's why uses {kept}, which is not a value the page can report (nearest: some_kept, pass_kept)"),
    ('question = "α will be…"', 'question = "α will be…", why = "α was {alpha@before}."',
     "predict's why uses {alpha@before}, but the actions declare no snapshot 'before'"),
    ('question = "α will be…"', 'question = "α will be…", why = "γ + 1 = {pass_written}."',
     "predict's why types the number 1"),
    ('question = "α will be…"', 'question = "α will be…", why = "It kept { pass_kept }."',
     "predict's why has a brace that is not a placeholder"),
    ('question = "α will be…"', 'question = "α will be…", why = "Chance."', "predict's why reports nothing from the bench"),
])
def test_a_bad_prediction_names_its_line(tmp_path, old, new, message):
    text = WITH_PREDICT.replace(old, new)
    got = refusal(tmp_path, text)
    assert f"05-rule.md:{line_with(text, 'predict =')}: {message}" in got, got


def test_both_languages_predict_the_same_thing(tmp_path):
    from sitebuild.tryit.blocks import check_parity

    explained = WITH_PREDICT.replace('question = "α will be…"', 'question = "α will be…", why = "{gamma}."')
    message = "the Try-it's prediction differs from zh/05-rule.md's"
    for en_text, zh_text in ((WITH_PREDICT, GOOD), (WITH_PREDICT, WITH_PREDICT.replace('"alpha"', '"speedup"')),
                             (WITH_PREDICT, explained),  # a why in one language only
                             (explained, explained.replace("{gamma}", "{gamma}, {c}"))):  # from other values
        en, zh = section_from(tmp_path, en_text, "en"), section_from(tmp_path, zh_text, "zh")
        with pytest.raises(BuildError) as caught:
            check_parity(en, zh, checked(en, SPEC), checked(zh, SPEC))
        assert f"en/05-rule.md:{line_with(WITH_PREDICT, 'predict =')}: {message}" in str(caught.value)
    en, zh = section_from(tmp_path, explained, "en"), section_from(tmp_path, explained.replace("{gamma}.", "γ = {gamma}."), "zh")
    check_parity(en, zh, checked(en, SPEC), checked(zh, SPEC))  # the words may differ


def test_the_comparison_rule():
    """Right or wrong for a direction; close on the notch nearest the answer (within half a step),
    else high or low, for a slider: a count one off is not close (site/static/js/tryit.js's
    compare() follows it; the browser test sees its words)."""
    way = {"kind": "direction"}
    assert [outcome(way, 0.6, after, "down") for after in (0.3, 0.599, 0.9)] == ["right", "wrong", "wrong"]
    assert direction(0.6, 0.598) == "same" and direction(0.6, 0.59) == "down" and direction(2, 3) == "up"
    slider = {"kind": "range", "range": (0, 1, 0.05)}
    assert [outcome(slider, None, 0.51, guess) for guess in (0.5, 0.55, 0.45, 0.6)] == ["close", "high", "low", "high"]
    assert outcome(slider, None, 0.5, 0.5) == "close" and outcome(slider, None, 0.525, 0.55) == "close"  # a tie: both
    count = {"kind": "range", "range": (1, 9, 1)}
    assert [outcome(count, None, 5, guess) for guess in (5, 4, 6)] == ["close", "low", "high"]  # the bonus forgotten
