"""The bench's candidates, temperature and top-p (the bench side), through the session API.

One candidate at temperature 1 is the bench as it was, bit for bit (the line's sampler, the tubes'
first tokens); several candidates light 1 + k gamma lanes per sequence, which the machine, the
readouts, the roofline and the race all count; the bridge's checks say what the next candidate is
checked against; the tubes reach the tempered p under the exact rules and part from it under
"keep any survivor"; the old greedy switch is temperature 0.
"""

from __future__ import annotations

import pytest

from helpers.bench_calls import error, ok
from sim import bench
from sim.bench.commands import STREAM_STEP, STREAM_TUBE, default_context, rng_for
from sim.bench.settings import BY_NAME, MAX_GAMMA, check_settings, default_state
from sim.candidates import residual
from sim.speculative import RULES as LINE_RULES
from sim.speculative import first_tokens, speculative_step
from sim.tempering import tempered

LANGS = ("en", "zh")


# --- settings and links ------------------------------------------------------------------------------

def test_the_settings_and_their_link_spellings(sessions):
    s = sessions["en"]
    got = ok(s, "link", {"query": [["candidates", "3"], ["temperature", ".7"], ["top_p", "0.90"]]})
    assert got["messages"] == []
    assert {k: got["state"]["settings"][k] for k in ("candidates", "temperature", "top_p")} == \
        {"candidates": 3, "temperature": 0.7, "top_p": 0.9}
    for bad, raw, code in (("candidates", "5", "out_of_range"), ("temperature", "0.6", "not_one_of"),
                           ("top_p", "1.5", "not_one_of"), ("temperature", "hot", "not_one_of")):
        got = ok(s, "link", {"query": [[bad, raw]]})
        assert [(m["param"], m["code"], m["value"]) for m in got["messages"]] == [(bad, code, raw)]
        assert got["state"]["settings"][bad] == BY_NAME[bad].default
    # strict JSON: a bad value is named; a number outside the set is refused, its spelling kept (1, not 1.0)
    assert error(s, "step", {"temperature": 0.6})["param"] == "temperature"
    assert error(s, "step", {"candidates": 0})["param"] == "candidates"
    assert error(s, "step", {"top_p": "0.9"})["param"] == "top_p"
    assert check_settings({"temperature": 1.0}).as_json()["temperature"] == 1
    assert type(check_settings({"temperature": 1.0}).temperature) is int


def test_the_old_greedy_switch_is_temperature_zero(sessions):
    s = sessions["zh"]
    for query, temperature in (([["greedy", "1"]], 0), ([["greedy", ""]], 0), ([["greedy", "0"]], 1),
                               ([["greedy", "1"], ["temperature", "0.7"]], 0.7)):
        got = ok(s, "link", {"query": query})
        assert got["messages"] == [] and got["ignored"] == []
        assert got["state"]["settings"]["temperature"] == temperature
    bad = ok(s, "link", {"query": [["greedy", "maybe"]]})
    assert bad["messages"][0]["param"] == "greedy" and bad["messages"][0]["code"] == "not_yes_no"
    # a caller of before the dial: {"greedy": true} and the action set greedy
    assert ok(s, "step", {"greedy": True, "seed": 4})["settings"]["temperature"] == 0
    state = ok(s, "act", {"state": default_state(), "action": {"type": "set", "name": "greedy", "value": True}})["state"]
    assert state["settings"]["temperature"] == 0 and "greedy" not in state["settings"]
    assert "greedy" not in ok(s, "view", {"state": state})["link"]


# --- one candidate at temperature 1 is the bench as it was ----------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_one_candidate_is_the_line_of_guesses_bit_for_bit(sessions, sim_languages, lang):
    """The step command with candidates 1, temperature 1, top-p 1 against sim.speculative's own step
    for the same random source: every guess's fields, and what was written."""
    s, language = sessions[lang], sim_languages[lang]
    context = default_context(language, "bench")
    for rule in LINE_RULES:
        for temperature in (1, 0):
            for seed in range(12):
                settings = {"rule": rule, "temperature": temperature, "seed": seed, "gamma": 1 + seed % 8}
                got = ok(s, "step", {**settings, "context": context, "step_index": seed, "exactness_top": 0})
                trace = speculative_step(language.target, language.draft("bigram"), context, settings["gamma"],
                                         rng_for(seed, STREAM_STEP, seed), greedy=temperature == 0, rule=rule)
                assert [w["id"] for w in got["written"]] == trace.written
                assert [{k: g[k] for k in old.to_dict()} for g, old in zip(got["guesses"], trace.guesses)] == \
                    [old.to_dict() for old in trace.guesses]
                assert got["lanes_per_sequence"] == settings["gamma"] + 1


@pytest.mark.parametrize("lang", LANGS)
def test_one_candidate_fills_the_tubes_as_before(sessions, sim_languages, lang):
    s, language = sessions[lang], sim_languages[lang]
    context = default_context(language, "tube")
    p = language.target.sparse(context)
    for rule in LINE_RULES:
        got = ok(s, "tube_round", {"rule": rule, "seed": 3, "round": 2, "draws": 40, "top": 8})
        rng = rng_for(3, STREAM_TUBE, 2)
        for _ in range(40):
            p.sample(rng)
        draws = first_tokens(language.target, language.draft("bigram"), context, rng, 40, rule=rule)
        slot = {c["id"]: i for i, c in enumerate(got["categories"][:-1])}
        kept, written = [0] * 9, [0] * 9
        for token, was_kept in draws:
            (kept if was_kept else written)[slot.get(token, 8)] += 1
        assert (got["spec_kept"], got["spec_target"]) == (kept, written), rule


# --- several candidates, a temperature ----------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_several_candidates_at_a_temperature_through_the_session(sessions, sim_languages, lang):
    """k = 3, T = 0.7, top-p 0.9, batch 5: the pass's guesses walk the tree, its lanes are
    batch x (1 + k gamma) on the head, the roofline and the race, and each rejection says what the
    next candidate is checked against: the residual max(0, p_j - q), as sim.candidates computes it."""
    s, language = sessions[lang], sim_languages[lang]
    settings = {**bench.DEFAULTS, "candidates": 3, "temperature": 0.7, "top_p": 0.9, "batch": 5, "seed": 11}
    lanes = 1 + 3 * settings["gamma"]
    state = {"settings": settings, "steps": 6, "rounds": 1}
    view = ok(s, "view", {"state": state})
    machine = view["drawing"]["machine"]
    assert machine["lanes_lit"] == lanes and sum(r["lit"] for r in machine["lane_rects"]) == lanes
    assert sum(r["width"] > 0 for r in machine["lane_rects"]) == 1 + 3 * MAX_GAMMA  # the head's lanes for k = 3
    assert view["pass"]["lanes"] == 5 * lanes and machine["lanes"] == 5 * lanes
    assert view["readouts"]["roofline"]["lanes"] == 5 * lanes == view["readouts"]["lanes_per_sequence"] * 5
    assert view["race"]["lanes_per_sequence"] == lanes
    seen_rejection = False
    for index in range(6):
        step = ok(s, "step", {**settings, "context": view["sentence"]["ids"], "step_index": index})
        first = step["positions"][0]["candidates"]
        assert len(first) == 3 and all(len(p["candidates"]) == 1 for p in step["positions"][1:])
        assert [g["token"] for g in step["guesses"][:1]] == [c["token"] for c in first if c["shown"]]
        kept = [j for j, c in enumerate(first) if c["kept"]]
        last = kept[0] if kept else 2  # checked in order up to the kept one, or all three rejected
        assert len(kept) <= 1 and [c["checked"] for c in first] == [j <= last for j in range(3)]
        assert step["n_written"] == step["n_kept"] + 1 and step["lanes_per_sequence"] == lanes
    # the bridge's checks on the pass on show, against a fresh computation of the residuals
    for seed in range(30):
        one = ok(s, "view", {"state": {**state, "settings": {**settings, "seed": seed}, "steps": 1}})
        shown, context = one["pass"], one["sentence"]["ids"]  # the first pass starts from the sentence
        p = tempered(language.target.sparse(context), 0.7, 0.9)
        q = tempered(language.draft("bigram").sparse(context), 0.7, 0.9)
        first = [c for c in shown["checks"] if c["guess"] == 1]
        current = p
        for c in first:
            if c["verdict"] != "rejected":
                break
            seen_rejection = True
            current = residual(current, q) or current
            top = sorted(current.pairs(), key=lambda pair: (-pair[1], pair[0]))[:3]
            assert [t["id"] for t in c["then_tokens"]] == [w for w, _ in top]
            assert c["then"] == ("draw_residual" if c["candidate"] == 3 else "next_residual")
    assert seen_rejection


def test_the_exactness_view_says_which_candidate_was_kept_and_why(sessions):
    """The pass view's `choice` (the exactness view's line) agrees with the bridge's checks of the
    first guess: the kept candidate, the rejected ones before it and what it was checked against
    (the residual under the exact rule, p again under "keep any survivor"), or, all rejected, what
    the token was drawn from; greedy and typical have none. The seeds are searched until each case
    shows, so the test cannot pass on passes that never reject."""
    s = sessions["en"]
    seen = set()
    for rule, against in (("exact", "residual"), ("keep_any_survivor", "p")):
        for seed in range(40):
            settings = {**bench.DEFAULTS, "candidates": 3, "rule": rule, "seed": seed}
            shown = ok(s, "view", {"state": {"settings": settings, "steps": 1, "rounds": 0}})["pass"]
            choice, first = shown["choice"], [c for c in shown["checks"] if c["guess"] == 1]
            assert choice["of"] == 3 and choice["rejected"] == [c["text"] for c in first if c["verdict"] == "rejected"]
            if choice["kept"] is None:
                assert all(c["verdict"] == "rejected" for c in first) and len(first) == 3
                assert choice["drawn_from"] == first[-1]["then"].removeprefix("draw_")
                seen.add((rule, "drawn"))
            else:
                kept = first[-1]
                assert kept["verdict"] == "kept" and kept["candidate"] == choice["kept"] == len(first)
                assert (choice["text"], choice["r"], choice["ratio"]) == (kept["text"], kept["r"], kept["ratio"])
                assert choice["against"] == ("p" if choice["kept"] == 1 else against)
                seen.add((rule, "first" if choice["kept"] == 1 else "after"))
    assert {("exact", "first"), ("exact", "after"), ("exact", "drawn"), ("keep_any_survivor", "after")} <= seen, seen
    for other in ({"temperature": 0}, {"rule": "typical"}):
        state = {"settings": {**bench.DEFAULTS, "candidates": 3, **other}, "steps": 1, "rounds": 0}
        assert ok(s, "view", {"state": state})["pass"]["choice"] is None


@pytest.mark.parametrize("lang", LANGS)
def test_the_tubes_reach_the_tempered_p_and_keep_any_survivor_drifts(sessions, sim_languages, lang):
    s, language = sessions[lang], sim_languages[lang]
    p = tempered(language.target.sparse(default_context(language, "tube")), 0.7, 1)
    exact = ok(s, "tube_round", {"candidates": 3, "temperature": 0.7, "rule": "exact"})
    assert exact["categories"][0]["p"] == pytest.approx(max(v for _, v in p.pairs()), abs=1e-12)
    assert all(c["spec_p"] == pytest.approx(c["p"], abs=1e-12) for c in exact["categories"])
    plain = ok(s, "tube_round", {})
    assert exact["categories"][0]["p"] > plain["categories"][0]["p"]  # the line moves with T
    survivor = ok(s, "tube_round", {"candidates": 3, "rule": "keep_any_survivor"})
    assert max(abs(c["spec_p"] - c["p"]) for c in survivor["categories"]) > 0.02
    one = ok(s, "tube_round", {"candidates": 1, "rule": "keep_any_survivor"})
    assert all(c["spec_p"] == pytest.approx(c["p"], abs=1e-12) for c in one["categories"])


@pytest.mark.parametrize("lang", LANGS)
def test_more_candidates_win_at_batch_one_and_lose_at_batch_256(sessions, lang):
    """The readouts honour the settings (measured live): three candidates keep the first guess more
    often than one; on the paper roofline the extra lanes are free at batch 1 and paid at 256."""
    s = sessions[lang]
    one = ok(s, "readouts", {"batch": 1})
    three = ok(s, "readouts", {"batch": 1, "candidates": 3})
    assert three["alpha_candidates"] > one["alpha"] == one["alpha_candidates"]
    assert three["tokens_per_pass_counted"] > one["tokens_per_pass_counted"]
    assert three["roofline"]["tokens_per_s_weights_only"] > one["roofline"]["tokens_per_s_weights_only"]
    wide_one = ok(s, "readouts", {"batch": 256})
    wide_three = ok(s, "readouts", {"batch": 256, "candidates": 3})
    assert wide_three["roofline"]["lanes"] == 256 * (1 + 3 * 4) and wide_one["roofline"]["lanes"] == 256 * 5
    assert wide_three["roofline"]["tokens_per_s_weights_only"] < wide_one["roofline"]["tokens_per_s_weights_only"]
    cold = ok(s, "readouts", {"temperature": 0.5})
    assert cold["alpha"] != one["alpha"] and cold["settings"]["temperature"] == 0.5
    greedy = ok(s, "readouts", {"temperature": 0, "candidates": 2})
    assert greedy["measure"]["method"] == "greedy_runs" and greedy["alpha_kind"] == "acceptance_rate"
    assert greedy["lanes_per_sequence"] == 1 + 2 * 4
