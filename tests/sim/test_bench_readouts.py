"""The bench's readouts (sim/bench/readouts.py): the chapters' measurement, honest greedy, the roofline."""

from __future__ import annotations

import pytest
from helpers.bench_calls import ok

from sim import bench, stats
from sim.bench import readouts as ro
from sim.session import Session


def test_readouts_match_the_chapters_measurement(sessions, sim_languages):
    from sitebuild import figures

    assert bench.READOUT_GAMMA == figures.DEFAULT_GAMMA
    got = ok(sessions["en"], "readouts")
    run = stats.measure(sim_languages["en"], "bigram", gamma=4, n_tokens=bench.READOUT_TOKENS,
                        seed=bench.READOUT_SEED)
    assert got["alpha"] == run["alpha"] and got["alpha_kind"] == "beta"
    assert got["tokens_per_pass_counted"] == run["tokens_per_pass"]
    assert got["tokens_per_pass_formula"] == stats.expected_tokens_per_pass(run["alpha"], 4)
    assert got["speedup"] == stats.speedup(run["alpha"], 4, 0.1)
    assert got["passes"] == run["passes"] and got["tokens"] == run["tokens"]
    assert got["measure"]["method"] == "one_run"
    curve = got["curve"]
    assert [g for g, _ in curve] == list(range(1, 9))
    assert curve[3][1] == got["speedup"]
    assert got["best_gamma"] == max(curve, key=lambda gs: (gs[1], -gs[0]))[0]
    assert got["best_speedup"] == curve[got["best_gamma"] - 1][1]
    assert got["c"] == 0.1
    # The chapters' figures are these readouts, through the same call.
    raw = figures.bench_figures(sim_languages["en"])
    assert raw["bench_alpha"].value == got["alpha"] and raw["bench_speedup"].value == got["speedup"]


def test_readouts_alpha_does_not_move_with_gamma_and_batch_is_free(sessions):
    s = sessions["zh"]
    at4 = ok(s, "readouts", {"gamma": 4})
    at2 = ok(s, "readouts", {"gamma": 2, "batch": 64})
    assert at2["alpha"] == at4["alpha"] and at2["curve"] == at4["curve"]
    assert at2["tokens_per_pass_counted"] != at4["tokens_per_pass_counted"]
    assert 1 <= at2["tokens_per_pass_counted"] <= 3
    assert at2["roofline"]["batch"] == 64 and at2["roofline"]["lanes"] == 64 * 3


def test_readouts_of_the_same_draft(sessions):
    same = ok(sessions["zh"], "readouts", {"draft": "same", "gamma": 4})
    assert same["alpha"] == pytest.approx(1.0, abs=1e-12)
    assert same["tokens_per_pass_counted"] == pytest.approx(5.0, abs=0.01)
    assert same["tokens_per_pass_formula"] == pytest.approx(5.0, abs=1e-9)
    assert same["best_gamma"] == 8


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_greedy_readouts_do_not_count_a_loop_as_acceptance(sessions, sim_languages, lang):
    """One long greedy run falls into a loop the draft predicts perfectly (English: alpha 0.998).
    The readouts count many short runs instead, each stopped when it loops: the bigram draft's
    greedy alpha stays below 0.95 (en 0.61, zh 0.45)."""
    language = sim_languages[lang]
    one_run = stats.measure(language, "bigram", gamma=4, n_tokens=2000, seed=bench.READOUT_SEED, greedy=True)
    got = ok(sessions[lang], "readouts", {"greedy": True})
    assert got["alpha_kind"] == "acceptance_rate" and got["alpha"] == got["acceptance_rate"]
    assert 0.3 < got["alpha"] < 0.95
    assert got["measure"]["method"] == "greedy_runs" and got["measure"]["runs"] == bench.GREEDY_RUNS
    assert got["measure"]["runs_looped"] > bench.GREEDY_RUNS // 2  # greedy n-gram text does loop
    if lang == "en":
        assert one_run["acceptance_rate"] > 0.99  # what the single run would have shown
    # Greedy ignores the rule, so every rule reads the same.
    typical = ok(sessions[lang], "readouts", {"greedy": True, "rule": "typical"})
    assert typical["alpha"] == got["alpha"] and typical["tokens_per_pass_counted"] == got["tokens_per_pass_counted"]


def test_greedy_runs_stop_at_the_first_repeated_context(en):
    runs = ro.greedy_runs(en, "bigram", 4, runs=30, max_tokens=200)
    assert runs["runs_looped"] == 30  # every greedy run of this model loops well before 200 tokens
    assert runs["tokens"] < 30 * 60
    capped = ro.greedy_runs(en, "bigram", 4, runs=30, max_tokens=3)
    assert capped["runs_looped"] < 30 and capped["tokens"] <= 30 * (3 + 4)
    assert ro.greedy_runs(en, "same", 4, runs=10)["acceptance_rate"] == 1.0


def test_roofline_readout_agrees_with_the_chapters():
    from sitebuild import figures

    shared = figures.roofline_figures()
    plain = bench.roofline_readout(64, 4, 2.0)["plain"]
    assert plain["weights_only"]["tokens_per_s"] == pytest.approx(shared["batch_tokens_per_s"], rel=1e-12)
    assert plain["with_cache"]["tokens_per_s"] == pytest.approx(shared["cache_tokens_per_s"], rel=1e-12)
    assert plain["weights_only"]["arith_busy_fraction"] == pytest.approx(shared["batch_busy_pct"] / 100)
    one = bench.roofline_readout(1, 8, 1.0)
    assert one["lanes"] == 9
    assert one["arith_busy_fraction"] == pytest.approx(shared["lanes_example_pct"] / 100, rel=1e-12)
    assert one["lanes_to_match"] == pytest.approx(shared["balance_lanes"], rel=1e-12)
    assert one["plain"]["weights_only"]["tokens_per_s"] == pytest.approx(shared["tokens_per_s"], rel=1e-12)
    lanes = ro.lanes_readout(1, 9)
    assert lanes["lanes"] == one["lanes"] and lanes["mill_share"] == pytest.approx(one["arith_busy_fraction"])


def test_roofline_speculation_pays_while_arithmetic_is_idle_and_not_beyond():
    tpp = stats.expected_tokens_per_pass(0.6, 4)
    small = bench.roofline_readout(1, 4, tpp)
    assert small["tokens_per_s_weights_only"] == pytest.approx(
        small["plain"]["weights_only"]["tokens_per_s"] * stats.speedup(0.6, 4, 0.1), rel=1e-12)
    assert small["speculative"]["weights_only"]["bound"] == "memory"
    big = bench.roofline_readout(256, 4, tpp)
    assert big["speculative"]["weights_only"]["bound"] == "arithmetic"
    assert big["arith_busy_fraction"] == 1.0
    assert big["tokens_per_s_weights_only"] < big["plain"]["weights_only"]["tokens_per_s"]
    # Long context: the cache read dominates, the lanes share it, speculation still pays at 64.
    mid = bench.roofline_readout(64, 4, tpp)
    assert mid["tokens_per_s_with_cache"] > mid["plain"]["with_cache"]["tokens_per_s"]


# --- the build's table of every measurement ------------------------------------------------------

def test_a_session_opened_with_the_builds_table_answers_the_first_picture_and_measures_the_rest(sim_languages):
    """The table (made here through the build's own cached call) holds what the default
    settings' readouts measure, the page's first picture, and nothing per setting: those
    readouts answer without measuring, every other setting is measured on first use, and
    both are the readouts of a session that measures everything itself (every greedy and rule
    mode, both ends of gamma, each draft). Power check: one changed number in the table shows
    in the readouts."""
    import json
    import random

    from helpers.corpus_models import model_json
    from sitebuild.figures.measured import readout_table

    from sim.session import open_session

    text = model_json("en")
    table = readout_table(text, sim_languages["en"])
    doc = json.loads(table)
    d = bench.DEFAULTS
    assert [row[:4] for row in doc["runs"]] == [[d["draft"], ro.READOUT_GAMMA, False, d["rule"]]]
    with_table, measuring = open_session(text, table), Session(sim_languages["en"])
    readouts = with_table.bench._readouts
    assert readouts.cached(bench.check_settings(dict(d)))
    settings = [{"draft": dr, "gamma": g, "greedy": gr, "rule": r} for dr, g, gr, r in ro.every_setting()]
    sample = random.Random(5).sample(settings, 6) + [
        {"draft": "bigram", "gamma": 1, "greedy": False, "rule": "exact"},
        {"draft": "same", "gamma": 8, "greedy": True, "rule": "exact"}]
    assert not any(readouts.cached(bench.check_settings({**d, **s})) for s in sample
                   if bench.check_settings({**d, **s}) != bench.check_settings(d))
    for s in [{}] + sample:
        assert with_table.bench.readouts(s) == measuring.bench.readouts(s), s

    doc["runs"][0][4]["alpha"] += 0.01  # sampling with the exact rule: alpha is the mean of beta
    changed = open_session(text, json.dumps(doc))
    assert changed.bench.readouts({}) != measuring.bench.readouts({})


def test_a_table_made_on_another_model_is_refused(sim_languages):
    from helpers.corpus_models import model_json
    from sitebuild.figures.measured import readout_table

    from sim.session import open_session

    table = readout_table(model_json("zh"), sim_languages["zh"])
    with pytest.raises(ValueError, match="another model"):
        open_session(model_json("en"), table)
