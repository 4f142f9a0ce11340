"""The bench's commands (docs/bench-protocol.md), through Session.handle as the worker calls them.

Statistical tests use fixed seeds (so they are deterministic) and are designed so that, for a
random seed, the chance of a false failure is below 1e-6: each chi-square test rejects at
FALSE_ALARM = 1e-7 and each binomial bound is 5.5 standard deviations wide (two-sided ~4e-8);
tests that must reject check first that the expected statistic is far past the critical value.
"""

from __future__ import annotations

import json
import math

import pytest

from sim import bench, stats
from sim.session import Session, open_session

FALSE_ALARM = 1e-7
Z_BOUND = 5.5
LANGS = ("en", "zh")


@pytest.fixture(scope="module")
def sessions(sim_languages):
    return {lang: Session(language) for lang, language in sim_languages.items()}


def call(session: Session, command: str, args: dict | None = None):
    """The worker's round trip: JSON text in, JSON text out; returns the parsed reply."""
    text = session.handle(command, json.dumps(args or {}, ensure_ascii=False))
    reply = json.loads(text)
    assert json.dumps(reply, ensure_ascii=False, allow_nan=False)  # finite, serialisable
    return reply


def ok(session: Session, command: str, args: dict | None = None):
    reply = call(session, command, args)
    assert reply["ok"], reply
    return reply["result"]


def error(session: Session, command: str, args: dict | None = None) -> dict:
    reply = call(session, command, args)
    assert not reply["ok"], reply
    return reply


# --- transport ------------------------------------------------------------------------------------

def test_open_session_reads_model_json(sim_model_docs):
    session = open_session(json.dumps(sim_model_docs["zh"]))
    assert ok(session, "start")["text"] == "慢慢"
    assert ok(session, "runtime")["python"].startswith("3.")


def test_unknown_command_and_bad_json_are_errors(sessions):
    s = sessions["en"]
    reply = error(s, "fly")
    assert reply["param"] == "command" and "fly" in reply["error"]
    assert json.loads(s.handle("step", "{not json"))["ok"] is False
    assert json.loads(s.handle("step", "[1, 2]"))["ok"] is False


# --- settings ------------------------------------------------------------------------------------------

def test_settings_defaults_and_good_values(sessions):
    s = sessions["en"]
    assert ok(s, "settings", {"query": {}}) == {"settings": bench.DEFAULTS, "errors": [], "ignored": []}
    got = ok(s, "settings", {"query": {"draft": "Unigram", "gamma": "8", "greedy": "on", "batch": "256",
                                       "seed": "4294967295", "rule": "typical", "lang": "en"}})
    assert got["settings"] == {"draft": "unigram", "gamma": 8, "greedy": True, "batch": 256,
                               "seed": 2**32 - 1, "rule": "typical"}
    assert got["errors"] == [] and got["ignored"] == ["lang"]
    for text, value in (("", True), ("1", True), ("TRUE", True), ("yes", True), ("0", False),
                        ("false", False), ("Off", False), ("no", False)):
        assert ok(s, "settings", {"query": {"greedy": text}})["settings"]["greedy"] is value


@pytest.mark.parametrize("param, value", [
    ("gamma", "0"), ("gamma", "9"), ("gamma", "4.5"), ("gamma", "-1"), ("gamma", "four"),
    ("batch", "0"), ("batch", "257"), ("seed", "4294967296"), ("seed", "-3"), ("seed", "1e3"),
    ("draft", "trigram"), ("draft", ""), ("rule", "medusa"), ("greedy", "maybe"),
])
def test_settings_bad_values_fall_back_and_are_named(sessions, param, value):
    got = ok(sessions["en"], "settings", {"query": {param: value, "gamma": "6"} if param != "gamma"
                                          else {param: value}})
    assert got["settings"][param] == bench.DEFAULTS[param]
    assert len(got["errors"]) == 1
    err = got["errors"][0]
    assert err["param"] == param and err["value"] == value and param in err["message"]
    assert err["default"] == bench.DEFAULTS[param]
    if param != "gamma":
        assert got["settings"]["gamma"] == 6  # the good ones still count


def test_several_bad_settings_are_all_reported(sessions):
    got = ok(sessions["zh"], "settings", {"query": {"gamma": "99", "batch": "x", "draft": "same"}})
    assert sorted(e["param"] for e in got["errors"]) == ["batch", "gamma"]
    assert got["settings"]["draft"] == "same"


@pytest.mark.parametrize("command", ["readouts", "step", "tube_round"])
@pytest.mark.parametrize("param, value", [
    ("gamma", 0), ("gamma", 9), ("gamma", "4"), ("gamma", 4.0), ("gamma", True), ("batch", 0),
    ("batch", 300), ("seed", -1), ("seed", 2**32), ("draft", "trigram"), ("rule", "Exact"),
    ("greedy", "true"), ("greedy", 1),
])
def test_commands_name_a_bad_setting(sessions, command, param, value):
    reply = error(sessions["en"], command, {param: value})
    assert reply["param"] == param and param in reply["error"]


@pytest.mark.parametrize("command, args, param", [
    ("step", {"context": [0, 10**6]}, "context"),
    ("step", {"context": "said the"}, "context"),
    ("step", {"prefix": "said the zzzqx"}, "prefix"),
    ("step", {"step_index": -1}, "step_index"),
    ("step", {"exactness_top": 21}, "exactness_top"),
    ("exactness", {"top": 0}, "top"),
    ("exactness", {"draft": "big"}, "draft"),
    ("tube_round", {"round": -1}, "round"),
    ("tube_round", {"draws": 0}, "draws"),
    ("tube_round", {"top": 21}, "top"),
    ("start", {"seed": "7"}, "seed"),
    ("settings", {"query": ["gamma"]}, "query"),
])
def test_other_bad_arguments_are_named(sessions, command, args, param):
    assert error(sessions["en"], command, args)["param"] == param


# --- start --------------------------------------------------------------------------------------------

def test_start(sessions):
    for lang, prefix in (("en", "said the"), ("zh", "慢慢")):
        s = sessions[lang]
        got = ok(s, "start")
        assert got["text"] == prefix and [t["id"] for t in got["tokens"]] == got["ids"]
        assert ok(s, "start", {"seed": 5, "prefix": prefix}) == got  # prefix wins
        starts = [ok(s, "start", {"seed": seed}) for seed in range(30)]
        assert ok(s, "start", {"seed": 3}) == starts[3]  # deterministic
        assert len({tuple(x["ids"]) for x in starts}) >= 10  # and varied
        for x in starts:
            assert len(x["ids"]) == bench.START_TOKENS
            assert all(t["text"][:1].isalnum() for t in x["tokens"])
            assert s.language.decode(x["ids"]) == x["text"]


# --- step ---------------------------------------------------------------------------------------------

def check_step_shape(step: dict, settings: dict):
    gamma = settings["gamma"]
    guesses = step["guesses"]
    assert len(guesses) == gamma
    kinds = [w["kind"] for w in step["written"]]
    assert kinds[:-1] == ["kept"] * step["n_kept"] and kinds[-1] in ("replacement", "bonus")
    assert step["n_written"] == len(step["written"]) == step["n_kept"] + 1
    assert step["written_text"] == [w["text"] for w in step["written"]]
    # Guesses: a run of kept ones, then (if any) one rejected, then void ones.
    kept = [g["kept"] for g in guesses]
    assert kept == [True] * step["n_kept"] + [False] * (gamma - step["n_kept"])
    checked = [g["checked"] for g in guesses]
    assert checked == [True] * min(gamma, step["n_kept"] + 1) + [False] * (gamma - step["n_kept"] - 1)
    if step["bonus"] is not None:
        assert step["n_kept"] == gamma and step["replacement"] is None
        assert step["written"][-1]["id"] == step["bonus"]["id"]
    else:
        assert step["n_kept"] < gamma and step["replacement"] is not None
        assert step["written"][-1]["id"] == step["replacement"]["id"]
    for g, w in zip(guesses, step["written"]):
        if g["kept"]:
            assert w["id"] == g["token"] and w["text"] == g["text"]
    assert step["lanes"] == settings["batch"] * (gamma + 1)
    assert step["lanes_per_sequence"] == gamma + 1
    assert step["settings"] == settings


@pytest.mark.parametrize("lang", LANGS)
def test_step_shape_under_every_mode(sessions, lang):
    s = sessions[lang]
    for draft in bench.DRAFTS:
        for rule in bench.RULES:
            for greedy in (False, True):
                settings = {**bench.DEFAULTS, "draft": draft, "rule": rule, "greedy": greedy,
                            "gamma": 3, "batch": 7}
                for index in range(12):
                    step = ok(s, "step", {**settings, "step_index": index})
                    check_step_shape(step, settings)
                    for g in step["guesses"]:
                        if not g["checked"]:
                            assert g["r"] is None and g["threshold"] is None and g["best"] is None
                        elif greedy:
                            assert g["kept"] == (g["token"] == g["best"]) and g["r"] is None
                        elif rule == "typical":
                            assert g["kept"] == (g["p"] > g["threshold"]) and g["r"] is None
                        else:
                            assert g["kept"] == (g["r"] <= g["ratio"])
                            assert g["threshold"] is None and g["best"] is None
                    if draft == "same" and not greedy and rule == "exact":
                        assert step["bonus"] is not None  # q = p: every guess kept


def test_step_is_determined_by_its_arguments(sessions, sim_languages):
    args = {"seed": 99, "step_index": 7, "context": [11, 1], "gamma": 6}
    first = ok(sessions["en"], "step", args)
    fresh = Session(sim_languages["en"])
    for index in range(20):  # another history of calls first
        ok(fresh, "step", {"seed": 3, "step_index": index})
    assert ok(fresh, "step", args) == first
    others = [ok(fresh, "step", {**args, "step_index": i})["written"] for i in range(20)]
    assert len({json.dumps(w) for w in others}) >= 5
    reseeded = [ok(fresh, "step", {**args, "seed": seed})["written"] for seed in range(20)]
    assert len({json.dumps(w) for w in reseeded}) >= 5


def test_step_context_prefix_and_default_agree(sessions):
    s = sessions["zh"]
    ids = ok(s, "start")["ids"]
    by_ids = ok(s, "step", {"context": ids, "seed": 4})
    assert ok(s, "step", {"prefix": "慢慢", "seed": 4}) == by_ids
    assert ok(s, "step", {"seed": 4}) == by_ids
    assert by_ids["context_text"] == "慢慢"
    # Only the last two tokens matter to the models, and the same random source is used.
    longer = ok(s, "step", {"context": [5, 6, 7] + ids, "seed": 4})
    assert longer["written"] == by_ids["written"] and longer["guesses"] == by_ids["guesses"]


def test_first_live_step_widget_arguments_still_work(sessions):
    step = ok(sessions["en"], "step", {"prefix": "said the", "draft": "bigram", "gamma": 4, "seed": 2})
    for key in ("guesses", "written_text", "bonus", "n_written", "context_text", "runtime", "settings"):
        assert key in step
    assert step["settings"]["seed"] == 2 and all("text" in g for g in step["guesses"])
    assert step["written_text"][-1] == step["written"][-1]["text"]
    assert step == sessions["en"].step({"prefix": "said the", "draft": "bigram", "gamma": 4, "seed": 2})


@pytest.mark.parametrize("lang", LANGS)
def test_steps_first_token_follows_p_across_step_indices(sessions, lang):
    """Steps with consecutive step_index are independent draws: the first written token of
    2,000 steps from one context fits p (chi-square over the top tokens and the rest)."""
    s = sessions[lang]
    table = ok(s, "exactness", {"top": 10})
    slot = {row["id"]: i for i, row in enumerate(table["tokens"])}
    probabilities = [row["p"] for row in table["tokens"]] + [table["other"]["p"]]
    counts = [0] * len(probabilities)
    for index in range(2000):
        step = ok(s, "step", {"seed": 11, "step_index": index, "gamma": 2, "exactness_top": 0})
        counts[slot.get(step["written"][0]["id"], len(slot))] += 1
    statistic, df = stats.chi_square_statistic(counts, probabilities)
    assert statistic < stats.chi_square_critical(df, FALSE_ALARM), (counts, probabilities)


# --- exactness ----------------------------------------------------------------------------------------

def check_exactness_table(table: dict, top: int):
    rows = table["tokens"]
    assert len(rows) == top
    ps = [r["p"] for r in rows]
    assert ps == sorted(ps, reverse=True)
    for r in rows + [table["other"]]:
        if r["id"] >= 0:
            assert r["min"] == min(r["p"], r["q"])
        else:  # a sum of minima: at most the minimum of the sums
            assert r["min"] <= min(r["p"], r["q"]) + 1e-12
        assert r["min"] + r["residual_share"] == pytest.approx(r["p"], rel=1e-12, abs=1e-14)
        assert r["residual_share"] >= 0 and r["min"] >= 0
    other = table["other"]
    assert other["id"] == -1 and other["text"] is None
    assert math.fsum(ps + [other["p"]]) == pytest.approx(1.0, abs=1e-12)
    assert math.fsum([r["q"] for r in rows] + [other["q"]]) == pytest.approx(1.0, abs=1e-12)
    assert math.fsum([r["min"] for r in rows] + [other["min"]]) == pytest.approx(table["beta"], abs=1e-12)
    assert 0 < table["beta"] <= 1 + 1e-12


@pytest.mark.parametrize("lang", LANGS)
def test_exactness_rows_add_up_to_p(sessions, sim_languages, lang):
    s, language = sessions[lang], sim_languages[lang]
    for draft in bench.DRAFTS:
        for context in ([], ok(s, "start")["ids"], ok(s, "start", {"seed": 8})["ids"], [0], [3, 3]):
            for top in (1, 6, 20):
                table = ok(s, "exactness", {"context": context, "draft": draft, "top": top})
                check_exactness_table(table, top)
                # The rows are the top tokens by p over the whole vocabulary.
                dense = language.target.distribution(context)
                best = sorted(range(len(dense)), key=lambda w: (-dense[w], w))[:top]
                assert [r["id"] for r in table["tokens"]] == best
                if draft == "same":
                    assert table["beta"] == pytest.approx(1.0, abs=1e-12)
                    assert all(r["residual_share"] == pytest.approx(0, abs=1e-15) for r in table["tokens"])


def test_step_carries_the_exactness_table_of_its_first_position(sessions):
    s = sessions["en"]
    step = ok(s, "step", {"seed": 5, "exactness_top": 6, "draft": "unigram"})
    assert step["exactness"] == {k: v for k, v in ok(s, "exactness", {"draft": "unigram", "top": 6}).items()
                                 if k in ("beta", "tokens", "other")}
    assert ok(s, "step", {"exactness_top": 0})["exactness"] is None


# --- tube rounds --------------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_tube_round_counts_and_categories(sessions, lang):
    s = sessions[lang]
    for rule in bench.RULES:
        for greedy in (False, True):
            for draws, top in ((50, 8), (7, 3), (200, 12)):
                got = ok(s, "tube_round", {"rule": rule, "greedy": greedy, "round": 3, "draws": draws,
                                           "top": top})
                assert got["context_text"] == bench.TUBE_PREFIX[lang]
                cats = got["categories"]
                assert len(cats) == top + 1 and cats[-1]["id"] == -1 and cats[-1]["text"] is None
                for key in ("target", "spec_kept", "spec_target"):
                    assert len(got[key]) == top + 1 and min(got[key]) >= 0
                assert sum(got["target"]) == draws
                assert sum(got["spec_kept"]) + sum(got["spec_target"]) == draws
                assert math.fsum(c["p"] for c in cats) == pytest.approx(1.0, abs=1e-12)
                assert math.fsum(c["spec_p"] for c in cats) == pytest.approx(1.0, abs=1e-12)
                if greedy:  # every draw is the argmax, the top category
                    assert got["target"][0] == draws
                    assert got["spec_kept"][0] + got["spec_target"][0] == draws
                    assert [c["spec_p"] for c in cats] == [1.0] + [0.0] * top
                elif rule == "exact":
                    assert all(c["spec_p"] == pytest.approx(c["p"], abs=1e-12) for c in cats)
                else:
                    assert any(abs(c["spec_p"] - c["p"]) > 1e-3 for c in cats)


def test_tube_round_is_determined_by_seed_and_round(sessions, sim_languages):
    args = {"seed": 77, "round": 12, "rule": "exact"}
    first = ok(sessions["zh"], "tube_round", args)
    fresh = Session(sim_languages["zh"])
    ok(fresh, "tube_round", {"seed": 77, "round": 11})
    assert ok(fresh, "tube_round", args) == first
    rounds = [ok(fresh, "tube_round", {**args, "round": r}) for r in range(10)]
    assert len({json.dumps([r["target"], r["spec_kept"]]) for r in rounds}) >= 8


def tube_totals(session, rule: str, rounds: int, seed: int, draft: str = "bigram"):
    """Counts summed over rounds 0..rounds-1 (the page's cumulative histogram)."""
    first = ok(session, "tube_round", {"rule": rule, "seed": seed, "round": 0, "draft": draft})
    target = list(first["target"])
    spec = [k + t for k, t in zip(first["spec_kept"], first["spec_target"])]
    kept = sum(first["spec_kept"])
    for r in range(1, rounds):
        got = ok(session, "tube_round", {"rule": rule, "seed": seed, "round": r, "draft": draft})
        target = [a + b for a, b in zip(target, got["target"])]
        spec = [a + k + t for a, k, t in zip(spec, got["spec_kept"], got["spec_target"])]
        kept += sum(got["spec_kept"])
    return first["categories"], target, spec, kept


ROUNDS = 20  # 1,000 draws per tube


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("draft", ["bigram", "unigram"])
def test_exact_rule_tubes_converge_to_p(sessions, lang, draft):
    s = sessions[lang]
    categories, target, spec, kept = tube_totals(s, "exact", ROUNDS, seed=2023, draft=draft)
    p = [c["p"] for c in categories]
    for counts in (target, spec):
        statistic, df = stats.chi_square_statistic(counts, p)
        assert statistic < stats.chi_square_critical(df, FALSE_ALARM), (counts, p)
    # Kept guesses: a share beta of the speculative draws (binomial).
    beta = ok(s, "exactness", {"context": s.language.encode(bench.TUBE_PREFIX[lang]), "draft": draft})["beta"]
    n = ROUNDS * 50
    assert abs(kept - n * beta) <= Z_BOUND * math.sqrt(n * beta * (1 - beta)), (kept, n * beta)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("rule", ["typical", "replace_from_p"])
def test_inexact_rules_follow_spec_p(sessions, lang, rule):
    categories, _, spec, _ = tube_totals(sessions[lang], rule, ROUNDS, seed=7)
    statistic, df = stats.chi_square_statistic(spec, [c["spec_p"] for c in categories])
    assert statistic < stats.chi_square_critical(df, FALSE_ALARM)


@pytest.mark.parametrize("lang", LANGS)
def test_typical_rule_visibly_drifts_where_exact_does_not(sessions, lang):
    """Ten rounds (500 draws) of the typical rule already reject p; the exact rule does not."""
    rounds, n = 10, 500
    s = sessions[lang]
    categories, _, typical, _ = tube_totals(s, "typical", rounds, seed=31)
    p = [c["p"] for c in categories]
    spec_p = [c["spec_p"] for c in categories]
    critical = stats.chi_square_critical(len(p) - 1, FALSE_ALARM)
    # Design: noncentrality n * sum (spec_p - p)^2 / p puts the expected statistic more than
    # 8 standard deviations (normal approximation of the noncentral chi-square) past the
    # critical value, so a seed that fails to reject has odds far below 1e-6.
    lam = n * math.fsum((b - a) ** 2 / a for a, b in zip(p, spec_p))
    df = len(p) - 1
    assert df + lam - critical > 8 * math.sqrt(2 * (df + 2 * lam)), lam
    statistic, df_used = stats.chi_square_statistic(typical, p)
    assert statistic > stats.chi_square_critical(df_used, FALSE_ALARM), (typical, p)
    _, _, exact, _ = tube_totals(s, "exact", rounds, seed=31)
    statistic, df_used = stats.chi_square_statistic(exact, p)
    assert statistic < stats.chi_square_critical(df_used, FALSE_ALARM)


# --- readouts -----------------------------------------------------------------------------------------

def test_readouts_match_the_chapters_measurement(sessions, sim_languages):
    from sitebuild import figures

    assert bench.READOUT_GAMMA == figures.DEFAULT_GAMMA
    s = sessions["en"]
    got = ok(s, "readouts")
    run = stats.measure(sim_languages["en"], "bigram", gamma=4, n_tokens=bench.READOUT_TOKENS,
                        seed=bench.READOUT_SEED)
    assert got["alpha"] == run["alpha"] and got["alpha_kind"] == "beta"
    assert got["tokens_per_pass_counted"] == run["tokens_per_pass"]
    assert got["tokens_per_pass_formula"] == stats.expected_tokens_per_pass(run["alpha"], 4)
    assert got["speedup"] == stats.speedup(run["alpha"], 4, 0.1)
    assert got["passes"] == run["passes"] and got["tokens"] == run["tokens"]
    curve = got["curve"]
    assert [g for g, _ in curve] == list(range(1, 9))
    assert curve[3][1] == got["speedup"]
    assert got["best_gamma"] == max(curve, key=lambda gs: (gs[1], -gs[0]))[0]
    assert got["best_speedup"] == curve[got["best_gamma"] - 1][1]
    assert got["c"] == 0.1


def test_readouts_alpha_does_not_move_with_gamma_and_batch_is_free(sessions):
    s = sessions["zh"]
    at4 = ok(s, "readouts", {"gamma": 4})
    at2 = ok(s, "readouts", {"gamma": 2, "batch": 64})
    assert at2["alpha"] == at4["alpha"] and at2["curve"] == at4["curve"]
    assert at2["tokens_per_pass_counted"] != at4["tokens_per_pass_counted"]
    assert 1 <= at2["tokens_per_pass_counted"] <= 3
    assert at2["roofline"]["batch"] == 64 and at2["roofline"]["lanes"] == 64 * 3


def test_readouts_same_draft_and_greedy(sessions):
    s = sessions["zh"]
    same = ok(s, "readouts", {"draft": "same", "gamma": 4})
    assert same["alpha"] == pytest.approx(1.0, abs=1e-12)
    assert same["tokens_per_pass_counted"] == pytest.approx(5.0, abs=0.01)
    assert same["tokens_per_pass_formula"] == pytest.approx(5.0, abs=1e-9)
    assert same["best_gamma"] == 8
    greedy = ok(s, "readouts", {"greedy": True})
    assert greedy["alpha_kind"] == "acceptance_rate" and greedy["alpha"] == greedy["acceptance_rate"]
    assert 0 < greedy["alpha"] < 1


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
