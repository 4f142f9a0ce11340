"""Bench states replayed (sim/bench/replay.py): actions, views, and the session's caches."""

from __future__ import annotations

import random

import pytest
from helpers.bench_calls import act, error, ok

from sim import bench
from sim.bench import layout, tubes
from sim.bench.settings import default_state
from sim.session import Session


def fresh_view(language, state):
    """The same state's view from a session that never saw anything else."""
    return ok(Session(language), "view", {"state": state, "measure": False})


def without_readouts(view):
    return {k: v for k, v in view.items() if k != "readouts"}


def test_a_view_is_the_replay_of_its_state(sessions):
    s = sessions["zh"]
    state = {**default_state(), "settings": {**default_state()["settings"], "gamma": 6, "seed": 9}, "steps": 5}
    view = ok(s, "view", {"state": state})
    run = [ok(s, "start", {"seed": 9})["ids"]]
    text = list(run[0])
    for index in range(5):
        step = ok(s, "step", {**state["settings"], "context": text[-layout.CONTEXT_SENT:], "step_index": index})
        text += [w["id"] for w in step["written"]]
    assert view["tape"]["text"] == s.language.decode(text[-layout.TAPE_SHOWN:])
    assert view["tape"]["written"] == len(text) - len(run[0]) and view["tape"]["passes"] == 5
    assert view["pass"]["guesses"] == step["guesses"] and view["pass"]["index"] == 4
    assert view["sentence"]["text"] == s.language.decode(run[0])
    assert view["link"] == ("?draft=bigram&prompt=none&gamma=6&candidates=1&temperature=1&top_p=1&batch=1&seed=9&rule=exact"
                            "&gpu=h100-sxm&model=llama-3.1-8b&steps=5&rounds=1")


def test_extending_a_run_gives_what_a_fresh_replay_gives(sessions, sim_languages):
    """Play and One step extend the cached run; a link replays from scratch: the same view."""
    s = sessions["en"]
    rng = random.Random(5)
    state = default_state()
    for _ in range(40):
        action = rng.choice([{"type": "step"}, {"type": "step", "count": 3}, {"type": "round"},
                             {"type": "set", "name": "batch", "value": rng.choice([1, 64, 256])},
                             {"type": "set", "name": "gamma", "value": rng.randint(1, 8)},
                             {"type": "set", "name": "rule", "value": rng.choice(bench.RULES)},
                             {"type": "new_sentence"}, {"type": "clear_tubes"}])
        reply = act(s, state, action)
        state = reply["state"]
        replayed = fresh_view(sim_languages["en"], state)
        assert without_readouts(reply["view"]) == without_readouts(replayed), action


def test_actions_change_what_they_say(sessions):
    s = sessions["en"]
    state = default_state()
    gamma = act(s, {**state, "steps": 7, "rounds": 4}, {"type": "set", "name": "gamma", "value": 8})["state"]
    assert gamma["settings"]["gamma"] == 8 and gamma["steps"] == 1 and gamma["rounds"] == 4
    batch = act(s, {**state, "steps": 7}, {"type": "set", "name": "batch", "value": 64})["state"]
    assert batch["settings"]["batch"] == 64 and batch["steps"] == 7  # the text does not depend on the batch
    same = act(s, {**state, "steps": 7}, {"type": "set", "name": "draft", "value": "bigram"})["state"]
    assert same["steps"] == 7  # setting a value it already has changes nothing
    fresh = act(s, {**state, "steps": 7}, {"type": "new_sentence"})["state"]
    assert fresh["settings"]["seed"] == 2 and fresh["steps"] == 1
    wrap = {**state, "settings": {**state["settings"], "seed": bench.MAX_SEED}}
    assert act(s, wrap, {"type": "new_sentence"})["state"]["settings"]["seed"] == 0
    assert act(s, state, {"type": "step", "count": 5})["state"]["steps"] == 6
    assert act(s, state, {"type": "round", "count": 9})["state"]["rounds"] == 10
    assert act(s, {**state, "rounds": 9}, {"type": "clear_tubes"})["state"]["rounds"] == 0


def test_caps_are_held_and_reported(sessions):
    s = sessions["zh"]
    full = {**default_state(), "steps": bench.MAX_STEPS, "rounds": bench.MAX_ROUNDS}
    step = act(s, full, {"type": "step"})
    assert step["capped"] and step["state"]["steps"] == bench.MAX_STEPS
    rounds = act(s, full, {"type": "round"})
    assert rounds["capped"] and rounds["state"]["rounds"] == bench.MAX_ROUNDS
    assert not act(s, default_state(), {"type": "step"})["capped"]


@pytest.mark.parametrize("action, param", [
    ({"type": "jump"}, "action"), ({"type": "set", "name": "speed", "value": 1}, "name"),
    ({"type": "set", "name": "gamma", "value": 9}, "gamma"), ({"type": "step", "count": 0}, "count"),
    ({"type": "round", "count": 101}, "count"), ({"type": "load", "query": "gamma=4"}, "query"),
])
def test_bad_actions_are_named(sessions, action, param):
    assert error(sessions["en"], "act", {"state": default_state(), "action": action})["param"] == param


def test_a_load_reads_a_link(sessions):
    reply = act(sessions["en"], default_state(), {"type": "load", "query": [["gamma", "2"], ["steps", "0"],
                                                                             ["rule", "replace_from_p"]]})
    assert reply["state"]["settings"]["gamma"] == 2 and reply["state"]["steps"] == 0
    assert reply["view"]["pass"] is None and reply["view"]["drawing"]["machine"]["lanes_lit"] == 0
    assert reply["view"]["tape"]["written"] == 0 and reply["messages"] == []


def test_readouts_are_left_out_until_measured_unless_asked(sessions, sim_languages):
    s = Session(sim_languages["zh"])
    state = {**default_state(), "settings": {**default_state()["settings"], "draft": "unigram"}}
    assert act(s, state, {"type": "view"})["view"]["readouts"] is None
    measured = ok(s, "readouts", state["settings"])
    again = act(s, state, {"type": "view"})["view"]["readouts"]
    assert again == measured and "curve_drawing" in measured
    assert act(s, state, {"type": "view"}, measure=True)["view"]["readouts"] == measured
    # the batch costs no measurement
    assert act(s, state, {"type": "set", "name": "batch", "value": 200})["view"]["readouts"]["roofline"]["batch"] == 200


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_pass_strip_and_meters_follow_the_verdicts(sessions, lang):
    s = sessions[lang]
    for rule in bench.RULES:
        state = {**default_state(), "settings": {**default_state()["settings"], "gamma": 8, "rule": rule}}
        for steps in (1, 2, 3):
            view = ok(s, "view", {"state": {**state, "steps": steps}, "measure": False})
            machine, guesses = view["drawing"]["machine"], view["pass"]["guesses"]
            assert [slot["kind"] for slot in machine["slots"]] == [g["verdict"] for g in guesses] + ["target"]
            assert machine["slots"][8]["text"] == view["pass"]["written"][-1]["text"]
            for slot in machine["slots"]:
                assert len(slot["short"]) <= layout.TAPE["slot_chars"]
                assert slot["short"] == slot["text"] or slot["short"].endswith("…")
                assert slot["mark"] == layout.MARKS[slot["kind"]]
            for meter, g in zip(view["drawing"]["bridge"], guesses):
                assert meter["verdict"] == g["verdict"] and meter["over"] == (g["ratio"] >= 1)
                assert meter["bar_height"] == pytest.approx(min(1, g["ratio"]) * layout.BRIDGE["height_bar"], abs=0.01)
                assert (meter["r_y"] is None) == (g["r"] is None)


def test_the_machine_draws_saturation(sessions):
    s = sessions["en"]
    def machine(batch, gamma):
        state = {**default_state(), "settings": {**default_state()["settings"], "batch": batch, "gamma": gamma}}
        return ok(s, "view", {"state": state, "measure": False})["drawing"]["machine"]
    small, big = machine(1, 4), machine(256, 8)
    assert not small["gauge"]["full"] and small["gauge"]["over_width"] == 0 and small["sheets"] == 0
    assert big["gauge"]["full"] and big["gauge"]["over_width"] > 10 and big["sheets"] == layout.HEAD["sheets"]
    assert big["lanes"] == 256 * 9 and big["drawers_in_use"] == 16 and big["stacks"] == layout.CABINET["stacks"]
    assert big["gauge"]["fill_width"] == pytest.approx(big["gauge"]["tick_x"] - layout.GAUGE["x"])
    assert small["mill_turns"] < big["mill_turns"] == 8


def test_every_chapter_part_is_known_to_the_bench():
    """Chapters name the part they highlight; those the machine draws can be isolated (chapter 12)."""
    from pathlib import Path

    from sitebuild.frontmatter import split

    site = Path(__file__).resolve().parents[2] / "site" / "en"
    parts = set()
    for path in sorted(site.glob("[01]*.md")):
        meta, _, _ = split(path, path.read_text(encoding="utf-8"))
        parts.add(meta["part"])
    drawn = parts - {"readouts", "curve", "selfdraft", "parts", "lab"}  # panels and the whole machine
    assert drawn <= set(layout.PARTS), drawn - set(layout.PARTS)
    assert {"bridge", "tubes"} <= set(layout.PARTS)


def test_tubes_view_adds_up_the_rounds(sessions):
    s = sessions["zh"]
    state = {**default_state(), "rounds": 6}
    got = ok(s, "view", {"state": state, "measure": False})["tubes"]
    rounds = [ok(s, "tube_round", {**state["settings"], "round": r}) for r in range(6)]
    assert got["target"] == [sum(r["target"][k] for r in rounds) for k in range(9)]
    assert got["spec_kept"] == [sum(r["spec_kept"][k] for r in rounds) for k in range(9)]
    assert got["draws"] == 6 * tubes.TUBE_DRAWS
    empty = ok(s, "view", {"state": {**state, "rounds": 0}, "measure": False})["tubes"]
    assert sum(empty["target"]) == 0 and all(bar["dot_y"] is None for bar in empty["drawing"]["spec"])


@pytest.mark.parametrize("rule", ["exact", "typical", "replace_from_p"])
def test_the_tubes_name_where_tube_b_parts_from_the_line(sessions, rule):
    """gap: the category furthest from p in tube B's exact law, with its counts in both tubes; zero
    under the exact rule (the Try-it of chapter 6 reports it), the largest difference otherwise."""
    state = {**default_state(), "settings": {**default_state()["settings"], "rule": rule}, "rounds": 4}
    got = ok(sessions["en"], "view", {"state": state, "measure": False})["tubes"]
    gap, cats = got["gap"], got["categories"]
    differences = [abs(c["spec_p"] - c["p"]) for c in cats]
    assert gap["size"] == max(differences) and gap["index"] == differences.index(max(differences))
    k = gap["index"]
    assert (gap["text"], gap["p"], gap["spec_p"]) == (cats[k]["text"], cats[k]["p"], cats[k]["spec_p"])
    assert gap["direct"] == got["target"][k] and gap["speculative"] == got["spec_kept"][k] + got["spec_target"][k]
    assert (gap["size"] == 0) == (rule == "exact")
