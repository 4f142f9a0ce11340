"""The bench's single commands (docs/bench-protocol.md), through Session.handle as the worker calls them.

Statistical tests use fixed seeds and tests/helpers/statistical.py: Pearson's test at false-alarm odds
1e-7, each paired with a named wrong sampler at the same size whose rejection has a computed
power of at least 0.999 (stated per test), and which is run to see it rejected. Binomial bounds
are 5.5 standard deviations wide (two-sided ~4e-8).
"""

from __future__ import annotations

import json
import math

import pytest
from helpers.bench_calls import call, error, ok, tube_totals
from helpers.statistical import check_fit_and_power

from sim import bench
from sim.bench import commands
from sim.bench.tubes import spec_distribution
from sim.session import Session, open_session

Z_BOUND = 5.5
LANGS = ("en", "zh")


# --- transport ------------------------------------------------------------------------------------

def test_open_session_reads_model_json(sim_model_docs):
    session = open_session(json.dumps(sim_model_docs["zh"]))
    assert ok(session, "start")["text"] == "慢慢"
    assert ok(session, "python")["version"].startswith("3.")


def test_unknown_command_and_bad_json_are_errors(sessions):
    s = sessions["en"]
    reply = error(s, "fly")
    assert reply["param"] == "command" and "fly" in reply["error"]
    assert json.loads(s.handle("step", "{not json"))["ok"] is False
    assert json.loads(s.handle("step", "[1, 2]"))["ok"] is False


def test_replies_must_be_finite():
    """The helper that every test goes through refuses NaN and Infinity (it can fail)."""
    class Broken:
        def handle(self, command, args):
            return '{"ok": true, "result": NaN}'

    with pytest.raises(AssertionError, match="finite"):
        call(Broken(), "anything")


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
    ("link", {"query": {"gamma": "4"}}, "query"),
    ("link", {"query": [["gamma", 4]]}, "query"),
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
    # Guesses: a run of kept ones, then (if any) one rejected, then void ones; the verdict says which.
    kept = [g["kept"] for g in guesses]
    assert kept == [True] * step["n_kept"] + [False] * (gamma - step["n_kept"])
    checked = [g["checked"] for g in guesses]
    assert checked == [True] * min(gamma, step["n_kept"] + 1) + [False] * (gamma - step["n_kept"] - 1)
    verdicts = ["kept"] * step["n_kept"] + (["rejected"] if step["n_kept"] < gamma else [])
    assert [g["verdict"] for g in guesses] == verdicts + ["void"] * (gamma - len(verdicts))
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
                settings = {**bench.DEFAULTS, "draft": draft, "rule": rule, "temperature": 0 if greedy else 1,
                            "gamma": 3, "batch": 7}
                for index in range(12):
                    step = ok(s, "step", {**settings, "step_index": index})
                    check_step_shape(step, settings)
                    assert step["written_display"] == s.language.decode([w["id"] for w in step["written"]])
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


def test_chinese_is_displayed_without_spaces(sessions):
    step = ok(sessions["zh"], "step", {"seed": 3, "gamma": 6})
    assert step["written_display"] == "".join(step["written_text"])
    english = ok(sessions["en"], "step", {"seed": 3, "gamma": 6, "draft": "same"})
    assert " " in english["written_display"]


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
    for key in ("guesses", "written_text", "bonus", "n_written", "context_text", "python", "settings"):
        assert key in step
    assert step["settings"]["seed"] == 2 and all("text" in g for g in step["guesses"])
    assert step["written_text"][-1] == step["written"][-1]["text"]
    assert step == sessions["en"].step({"prefix": "said the", "draft": "bigram", "gamma": 4, "seed": 2})


STEPS = 8000


def first_tokens_of_steps(session, rule: str, slot: dict) -> list[int]:
    """The step command called directly (Session.step), not through the worker's JSON round trip,
    which would be half of the CPU of 8,000 steps: the round trip gives the same step
    (test_first_live_step_widget_arguments_still_work)."""
    counts = [0] * (len(slot) + 1)
    for index in range(STEPS):
        step = session.step({"seed": 11, "step_index": index, "gamma": 2, "exactness_top": 0, "rule": rule})
        counts[slot.get(step["written"][0]["id"], len(slot))] += 1
    return counts


@pytest.mark.parametrize("lang", LANGS)
def test_steps_first_token_follows_p_across_step_indices(sessions, lang):
    """Steps with consecutive step_index are independent draws: the first written token of
    8,000 steps from one context fits p (the top 10 tokens and the rest). Wrong sampler at the
    same size: the replace-from-p rule, rejected with computed power >= 0.9999998 (en 0.99999988,
    zh 0.9999999999)."""
    s = sessions[lang]
    table = ok(s, "exactness", {"top": 10})
    slot = {row["id"]: i for i, row in enumerate(table["tokens"])}
    p = [row["p"] for row in table["tokens"]] + [table["other"]["p"]]
    context = s.language.encode(commands.BENCH_PREFIX[lang])
    target, draft = s.language.target.sparse(context), s.language.draft("bigram").sparse(context)
    law = spec_distribution(target, draft, "replace_from_p", False)
    wrong = [law[token] for token in slot] + [1.0 - math.fsum(law[token] for token in slot)]
    check_fit_and_power(first_tokens_of_steps(s, "exact", slot), p, wrong,
                        first_tokens_of_steps(s, "replace_from_p", slot))


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
                got = ok(s, "tube_round", {"rule": rule, "temperature": 0 if greedy else 1, "round": 3, "draws": draws,
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
                elif rule in ("exact", "recursive", "topk", "keep_any_survivor"):  # the last: exact with one candidate
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


ROUNDS = 80  # 4,000 draws per tube


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("draft", ["bigram", "unigram"])
def test_exact_rule_tubes_converge_to_p(sessions, lang, draft):
    """Both tubes fit p over 4,000 draws. Wrong sampler at the same size: the replace-from-p
    rule's speculative tube, rejected with computed power >= 0.9999998 in all four cases (the
    least: zh bigram, 0.99999984)."""
    s = sessions[lang]
    categories, target, spec, kept = tube_totals(s, "exact", ROUNDS, seed=2023, draft=draft)
    wrong_categories, _, wrong_spec, _ = tube_totals(s, "replace_from_p", ROUNDS, seed=2023, draft=draft)
    p = [c["p"] for c in categories]
    wrong = [c["spec_p"] for c in wrong_categories]
    check_fit_and_power(target, p, wrong)
    check_fit_and_power(spec, p, wrong, wrong_spec)
    # Kept guesses: a share beta of the speculative draws (binomial).
    beta = ok(s, "exactness", {"context": s.language.encode(bench.TUBE_PREFIX[lang]), "draft": draft})["beta"]
    n = ROUNDS * bench.TUBE_DRAWS
    assert abs(kept - n * beta) <= Z_BOUND * math.sqrt(n * beta * (1 - beta)), (kept, n * beta)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("rule", ["typical", "replace_from_p"])
def test_inexact_rules_follow_spec_p(sessions, lang, rule):
    """The speculative tube of an inexact rule fits that rule's own law (spec_p) over 4,000
    draws. Wrong sampler at the same size: one that ignores the rule (the exact rule, which
    follows p), rejected with computed power >= 0.99999995 in all four cases (the least: zh
    replace-from-p, 0.99999996)."""
    s = sessions[lang]
    categories, _, spec, _ = tube_totals(s, rule, ROUNDS, seed=7)
    _, _, ignoring, _ = tube_totals(s, "exact", ROUNDS, seed=7)
    check_fit_and_power(spec, [c["spec_p"] for c in categories], [c["p"] for c in categories], ignoring)


@pytest.mark.parametrize("lang", LANGS)
def test_typical_rule_visibly_drifts_where_exact_does_not(sessions, lang):
    """Ten rounds (500 draws), what a reader adds in a minute, already show the relaxed rule's
    drift: the exact rule's speculative tube fits p, and the typical rule's is rejected, with
    computed power >= 0.99999999 at this size (en 0.9999999999999, zh 0.999999994)."""
    s = sessions[lang]
    categories, _, exact, _ = tube_totals(s, "exact", 10, seed=31)
    typical_categories, _, typical, _ = tube_totals(s, "typical", 10, seed=31)
    check_fit_and_power(exact, [c["p"] for c in categories], [c["spec_p"] for c in typical_categories], typical)


def test_the_bench_rules_are_the_samplers():
    from sim.candidates import CANDIDATE_RULES

    assert bench.RULES is CANDIDATE_RULES  # one definition, not two kept in step
