"""The race (sim/bench/race.py) and the GPU and model rows (sim/bench/hardware.py).

The finishing times are checked against sim.roofline's own functions, recomputed here from the
tape's passes: plain decoding takes one target pass per token written, speculative decoding one
pass of gamma draft runs and a verification per tape pass.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from helpers.bench_calls import error, ok

from sim import roofline as rl
from sim.bench import DRAFT_COST
from sim.bench.layout import RACE

ROOT = Path(__file__).resolve().parents[2]


def load(session, **query):
    reply = ok(session, "act", {"action": {"type": "load", "query": [[k, str(v)] for k, v in query.items()]},
                                "measure": False})
    assert reply["messages"] == []
    return reply["view"]


def pass_ms(g, m, batch: int, lanes: int) -> float:
    """One target pass on paper: the weights read once, or the arithmetic of `lanes` positions."""
    return max(rl.step_seconds(g, m, batch), lanes * m.flops_per_token / g.flops) * 1e3


CASES = [
    {"lang": "en", "draft": "bigram", "gamma": 4, "batch": 1, "gpu": "h100-sxm", "model": "llama-3.1-8b"},
    {"lang": "en", "draft": "unigram", "gamma": 8, "batch": 1, "gpu": "h100-sxm", "model": "llama-3.1-8b"},
    {"lang": "zh", "draft": "bigram", "gamma": 3, "batch": 64, "gpu": "a100-80gb-sxm", "model": "llama-3.1-70b"},
    # arithmetic-bound: 256 x 9 lanes on an A100 (balance ~153 lanes)
    {"lang": "zh", "draft": "same", "gamma": 8, "batch": 256, "gpu": "a100-80gb-sxm", "model": "llama-3.1-8b"},
    {"lang": "en", "draft": "bigram", "gamma": 2, "batch": 9, "gpu": "h200-sxm", "model": "llama-3.1-70b"},
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(str(v) for v in c.values()))
def test_finishing_times_are_the_rooflines_for_the_steps_taken(sessions, case):
    lang, settings = case["lang"], {k: v for k, v in case.items() if k != "lang"}
    view = load(sessions[lang], steps=30, seed=5, **settings)
    race = view["race"]
    g, m = rl.gpu(case["gpu"]), rl.model(case["model"])
    batch, gamma = case["batch"], case["gamma"]
    # The race writes exactly the tape's text, in the tape's passes.
    assert race["tokens"] == view["tape"]["written"] and race["spec"]["passes"] == view["tape"]["passes"] == 30
    assert view["sentence"]["text"] + "".join(race["pieces"]) == sessions[lang].language.decode(
        view["sentence"]["ids"] + [t for p in _passes(sessions[lang], view) for t in p])
    plain = race["tokens"] * pass_ms(g, m, batch, batch)
    verify = pass_ms(g, m, batch, batch * (gamma + 1))
    spec = 30 * verify * (1 + gamma * DRAFT_COST)
    assert race["plain"]["finish_ms"] == pytest.approx(plain, rel=1e-12)
    assert race["spec"]["finish_ms"] == pytest.approx(spec, rel=1e-12)
    assert race["speedup"] == pytest.approx(plain / spec, rel=1e-12)
    assert race["winner"] == ("speculative" if spec < plain else "plain")
    assert race["spec"]["tokens_after"][-1] == race["tokens"] and race["spec"]["draft_runs"] == 30 * gamma
    # The same figures as the readouts' roofline (the pass times the readouts print).
    rf = ok(sessions[lang], "readouts", view["state"]["settings"])["roofline"]
    assert race["plain_pass_ms"] == rf["plain"]["weights_only"]["pass_ms"]
    assert race["spec_pass_ms"] == rf["speculative"]["weights_only"]["step_ms"]
    assert rf["gpu_key"] == case["gpu"] and rf["model_key"] == case["model"]


def _passes(session, view):
    """The tokens each of the view's passes wrote, replayed with the step command."""
    settings, text, out = view["state"]["settings"], list(view["sentence"]["ids"]), []
    for index in range(view["state"]["steps"]):
        step = ok(session, "step", {**settings, "context": text[-8:], "step_index": index, "exactness_top": 0})
        out.append([w["id"] for w in step["written"]])
        text += out[-1]
    return out


def test_a_good_draft_wins_and_unigram_at_gamma_8_loses(sessions):
    for lang in ("en", "zh"):
        good = load(sessions[lang], steps=40)["race"]
        bad = load(sessions[lang], steps=40, draft="unigram", gamma=8)["race"]
        assert good["winner"] == "speculative" and good["speedup"] > 1.2
        assert bad["winner"] == "plain" and bad["speedup"] < 0.9


def test_the_drawing_shares_one_scale(sessions):
    race = load(sessions["en"], steps=12, gamma=5)["race"]
    d = race["drawing"]
    x0 = RACE["x0"]
    assert max(d["plain_end_x"], d["spec_end_x"]) == pytest.approx(RACE["x1"], abs=0.01)
    assert (d["plain_end_x"] - x0) / (d["spec_end_x"] - x0) == pytest.approx(
        race["plain"]["finish_ms"] / race["spec"]["finish_ms"], rel=1e-3)
    assert len(d["blocks"]) == 12 and d["blocks"][-1]["end_x"] == d["spec_end_x"]
    first = d["blocks"][0]
    assert first["draft_width"] == pytest.approx(5 * DRAFT_COST * first["verify_width"], abs=0.02)
    assert [t["ms"] for t in d["ticks"]][0] == 0 and d["ticks"][-1]["x"] <= RACE["x1"]


def test_no_passes_no_race(sessions):
    race = load(sessions["en"], steps=0)["race"]
    assert race["tokens"] == 0 and race["winner"] == "none" and race["speedup"] is None
    assert race["drawing"]["blocks"] == [] and race["drawing"]["ticks"] == []


def test_gpu_and_model_do_not_restart_the_sentence(sessions):
    s = sessions["en"]
    view = load(s, steps=7)
    for name, value in (("gpu", "a100-80gb-sxm"), ("model", "llama-3.1-70b")):
        reply = ok(s, "act", {"state": view["state"], "action": {"type": "set", "name": name, "value": value},
                              "measure": False})
        assert reply["state"]["steps"] == 7 and reply["view"]["tape"] == view["tape"]
        assert f"{name}={value}" in reply["view"]["link"]
        assert reply["view"]["race"]["plain"]["finish_ms"] > view["race"]["plain"]["finish_ms"]
        view = reply["view"]


def test_gpu_and_model_in_links(sessions):
    s = sessions["zh"]
    reply = ok(s, "link", {"query": [["gpu", "H200-SXM"], ["model", "llama-3.1-405b"]]})
    assert reply["state"]["settings"]["gpu"] == "h200-sxm"
    assert reply["state"]["settings"]["model"] == rl.DEFAULT_MODEL
    assert [(m["code"], m["param"]) for m in reply["messages"]] == [("not_one_of", "model")]
    assert list(rl.MODELS) == reply["messages"][0]["args"]["values"]
    assert error(s, "readouts", {"gpu": "b200"})["param"] == "gpu"


def test_every_row_is_offered_with_its_figures_and_sources(sessions):
    spec = ok(sessions["en"], "spec")
    rows = spec["hardware"]
    known = {source["id"] for source in tomllib.loads((ROOT / "site/sources.toml").read_text())["source"]}
    assert [g["key"] for g in rows["gpus"]] == list(rl.GPUS)
    assert [m["key"] for m in rows["models"]] == list(rl.MODELS)
    by_name = {p["name"]: p for p in spec["parameters"]}
    assert by_name["gpu"]["values"] == list(rl.GPUS) and by_name["model"]["values"] == list(rl.MODELS)
    for g in rows["gpus"]:
        assert g["sources"] and set(g["sources"]) <= known
        assert g["bandwidth_tbs"] * 1e12 == rl.GPUS[g["key"]].bandwidth
    for m in rows["models"]:
        assert m["sources"] and set(m["sources"]) <= known
        assert m["embedding"] + m["layer_params"] + (0 if m["tied"] else m["output"]) == m["params"]
        assert m["params"] == m["published_params"]
    assert rows["ms_per_token"]["h100-sxm"]["llama-3.1-70b"] == rl.ms_per_token(rl.gpu("h100-sxm"),
                                                                                 rl.model("llama-3.1-70b"))
