"""The worker's protocol (sim/bench/protocol.py): declared once, read by the page, the build's
checks, the test helpers and the docs; whole actions, "step until" included, in one round trip."""

from __future__ import annotations

import json
import sys

import pytest
from helpers.bench_calls import act, error, ok

from sim.bench import protocol
from sim.bench.api import spec
from sim.bench.settings import MAX_STEPS, default_state
from sim.session import Session


# What the page's store did before "until" moved into the sim: one act of one pass at a time,
# judged on the view, until the condition held, the reply was capped or `most` acts were made.
OLD_UNTIL = {"rejected": lambda view: view["pass"] and view["pass"]["rejected"],
             "all_kept": lambda view: view["pass"] and not view["pass"]["rejected"]}


def step_until_the_old_way(session, state, until, most):
    passes = 0
    while True:
        reply = act(session, state, {"type": "step"})
        state, passes = reply["state"], passes + 1
        if OLD_UNTIL[until](reply["view"]) or reply["capped"] or passes >= most:
            return reply


@pytest.mark.parametrize("until", sorted(OLD_UNTIL))
def test_step_until_in_one_act_ends_where_the_stores_loop_ended(sessions, sim_languages, until):
    for lang, seed, steps, most in [("en", 3, 1, 50), ("zh", 8, 0, 50), ("en", 5, 4, 2), ("en", 2, MAX_STEPS - 2, 50),
                                    ("zh", 4, MAX_STEPS, 50), ("en", 11, 7, 1)]:
        state = {**default_state(), "settings": {**default_state()["settings"], "seed": seed, "gamma": 3},
                 "steps": steps}
        old = step_until_the_old_way(Session(sim_languages[lang]), state, until, most)
        new = act(sessions[lang], state, {"type": "step", "until": until, "max": most})
        assert new == old, (lang, seed, steps, most)


def test_step_until_takes_fifty_passes_at_most_unless_told(sessions):
    """The unigram draft under greedy decoding is refused at almost every pass: "all_kept" may
    take many; the default bound is the protocol's."""
    state = {**default_state(), "settings": {**default_state()["settings"], "draft": "unigram", "gamma": 8}}
    reply = act(sessions["en"], state, {"type": "step", "until": "all_kept"})
    assert reply["state"]["steps"] - 1 <= protocol.UNTIL_MOST
    assert protocol.STEP_MOST.default == protocol.UNTIL_MOST == 50


@pytest.mark.parametrize("action, param, message", [
    ({"type": "step", "until": "rejcted"}, "until", "until must be one of rejected, all_kept; got 'rejcted'"),
    ({"type": "step", "until": "rejected", "count": 2}, "count", "a step takes count or until, not both"),
    ({"type": "step", "max": 3}, "max", "max bounds a step until a condition: give until too"),
    ({"type": "step", "until": "rejected", "max": 0}, "max", "max must be a whole number from 1 to 200; got 0"),
    ({"type": "step", "count": 201}, "count", "count must be a whole number from 1 to 200; got 201"),
    ({"type": "round", "count": "2"}, "count", "count must be a whole number from 1 to 100; got '2'"),
])
def test_a_bad_argument_of_an_action_is_named(sessions, action, param, message):
    got = error(sessions["en"], "act", {"state": default_state(), "action": action})
    assert (got["param"], got["error"]) == (param, message)


def test_only_the_sims_actions_reach_the_sim(sessions):
    sent = [kind for kind, a in protocol.ACTIONS.items() if a.runs == "sim"]
    assert sent == ["set", "step", "new_sentence", "round", "clear_tubes", "load", "view"]
    for kind, declared in protocol.ACTIONS.items():
        if declared.runs != "sim":
            got = error(sessions["en"], "act", {"state": default_state(), "action": {"type": kind}})
            assert got["param"] == "action" and ", ".join(sent) in got["error"], kind


def test_every_argument_an_action_declares_is_one_the_sim_reads(sessions):
    """The store sends exactly the declared arguments: each, at a good value, changes the answer."""
    s, state = sessions["en"], default_state()
    assert act(s, state, {"type": "set", "name": "gamma", "value": 6})["state"]["settings"]["gamma"] == 6
    assert act(s, state, {"type": "step", "count": 3})["state"]["steps"] == 4
    once = act(s, state, {"type": "step", "until": "all_kept", "max": 1})["state"]["steps"]
    assert once == 2 and act(s, state, {"type": "round", "count": 4})["state"]["rounds"] == 5
    loaded = act(s, None, {"type": "load", "query": [["gamma", "2"], ["theme", "dark"]], "chapters": ["a"]})
    assert loaded["state"]["settings"]["gamma"] == 2 and loaded["options"]["theme"] == "dark"
    declared = {kind: [arg.name for arg in a.args] for kind, a in protocol.ACTIONS.items() if a.runs == "sim"}
    assert declared == {"set": ["name", "value"], "step": ["count", "until", "max"], "new_sentence": [],
                        "round": ["count"], "clear_tubes": [], "load": ["query", "chapters"], "view": []}


def test_every_command_is_declared_and_answers(sessions):
    s = sessions["en"]
    got = error(s, "nonsense")
    assert got["param"] == "command" and str(sorted(protocol.COMMANDS)) in got["error"]
    for name, command in protocol.COMMANDS.items():
        assert command.owner in ("bench", "session") and set(command.callers) <= {"page", "build", "tests"}, name
    assert ok(s, "python")["version"] == sys.version.split()[0]


def test_an_act_checks_the_state_once(sessions, monkeypatch):
    """The JSON is checked where it comes in, and the modules pass the checked objects on: one act
    enters each of the state's checks once (it entered them 7 times when they passed dicts)."""
    calls = []
    checks = {"check_state", "check_settings"}

    def profile(frame, event, _arg):
        if event == "call" and frame.f_code.co_name in checks and frame.f_code.co_filename.endswith("settings.py"):
            calls.append(frame.f_code.co_name)

    state = {**default_state(), "steps": 3}
    act(sessions["zh"], state, {"type": "step"})  # the run cached: the profile below sees one act alone
    sys.setprofile(profile)
    try:
        act(sessions["zh"], state, {"type": "set", "name": "batch", "value": 8})
    finally:
        sys.setprofile(None)
    assert sorted(calls) == ["check_settings", "check_state"]


def test_the_pages_spec_carries_the_protocol_without_its_words():
    page = spec()["protocol"]
    assert page == protocol.describe() and json.loads(json.dumps(page)) == page
    assert "doc" not in json.dumps(page) and "doc" in json.dumps(protocol.describe(docs=True))
    assert set(page["actions"]) == set(protocol.ACTIONS) and set(page["commands"]) == set(protocol.COMMANDS)
