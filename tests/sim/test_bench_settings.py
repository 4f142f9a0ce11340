"""The bench's parameters and links (sim/bench/settings.py): every accepted value, every message."""

from __future__ import annotations

import json

import pytest
from helpers.bench_calls import error, ok

from sim import bench
from sim.bench import settings as st
from sim.session import Session


@pytest.fixture(scope="module")
def session(sim_languages):
    """The book's session, with an empty heads' table (the page sends the build's when heads is first
    chosen; links only need the state replayed, and with no row the heads guess nothing)."""
    made = Session(sim_languages["en"])
    gamma, top = st.MAX_GAMMA, st.MAX_CANDIDATES
    ok(made, "use_heads", {"heads": json.dumps({"heads": gamma, "top": top, "rows": [[]] * gamma})})
    return made


def link(session, *pairs):
    return ok(session, "link", {"query": [list(p) for p in pairs]})


def spellings(p) -> list[tuple[str, object]]:
    """Every spelling a link accepts for a parameter, with the value it means (ints: every value
    of small ranges, the edges and a spread of the seed's), as typed in a link."""
    if p.kind == "choice":
        return [(s, v) for v in p.values for s in (v, v.upper(), v.capitalize(), f" {v} ")]
    if p.kind == "level":
        return [(s, v) for v in p.values for s in (str(v), f"{float(v)}", f" {v} ", f"{float(v):.2f}")]
    if p.kind == "bool":
        words = {True: ["", "1", "true", "yes", "on"], False: ["0", "false", "no", "off"]}
        return [(s, v) for v, ws in words.items() for w in ws for s in {w, w.upper(), w.title()}]
    if p.high - p.low <= 300:
        values = range(p.low, p.high + 1)
    else:
        values = sorted({p.low, p.low + 1, p.high - 1, p.high, *range(p.low, p.high, 65_537 * 997)})
    return [(str(v), v) for v in values] + [(f"00{p.low + 1}", p.low + 1), (f" {p.high} ", p.high)]


@pytest.mark.parametrize("p", st.PARAMETERS, ids=lambda p: p.name)
def test_every_accepted_value_of_every_parameter(session, p):
    for spelled, value in spellings(p):
        got = link(session, (p.name, spelled))
        assert got["messages"] == [], (p.name, spelled, got["messages"])
        state = got["state"]
        assert (state["settings"] if p.role == "setting" else state)[p.name] == value
        # The canonical link of that state reads back to the same state.
        canonical = [pair.split("=") for pair in ok(session, "act", {"action": {"type": "load", "query": [
            [p.name, spelled]]}, "measure": False})["view"]["link"][1:].split("&")]
        assert link(session, *canonical)["state"] == state


def test_defaults_and_ignored_names(session):
    got = link(session)
    assert got == {"state": st.default_state(), "messages": [], "ignored": []}
    got = link(session, ("utm_source", "x"), ("chapter", "exact"), ("gamma", "6"), ("utm_source", "y"))
    assert got["ignored"] == ["utm_source", "chapter"] and got["state"]["settings"]["gamma"] == 6


@pytest.mark.parametrize("param, value, code", [
    ("gamma", "0", "out_of_range"), ("gamma", "9", "out_of_range"), ("gamma", "4.5", "not_whole_number"),
    ("gamma", "-1", "not_whole_number"), ("gamma", "four", "not_whole_number"), ("batch", "0", "out_of_range"),
    ("batch", "257", "out_of_range"), ("seed", "4294967296", "out_of_range"), ("seed", "-3", "not_whole_number"),
    ("seed", "1e3", "not_whole_number"), ("draft", "trigram", "not_one_of"), ("draft", "", "not_one_of"),
    ("rule", "medusa", "not_one_of"), ("temperature", "2", "not_one_of"), ("temperature", "0.7x", "not_one_of"),
    ("top_p", "0.5", "not_one_of"), ("candidates", "5", "out_of_range"), ("candidates", "0", "out_of_range"),
    ("steps", "x", "not_whole_number"),
])
def test_a_bad_value_falls_back_to_the_default_and_is_named(session, param, value, code):
    got = link(session, (param, value), ("gamma", "6") if param != "gamma" else ("batch", "3"))
    p = st.BY_NAME[param]
    used = got["state"]["settings"][param] if p.role == "setting" else got["state"][param]
    assert used == p.default
    assert got["messages"] == [{"code": code, "param": param, "value": value, "used": p.default,
                                "args": got["messages"][0]["args"]}]
    args = got["messages"][0]["args"]
    if code in ("out_of_range", "not_whole_number"):
        assert args == {"min": p.low, "max": p.high}
    if code == "not_one_of":
        assert args == {"values": list(p.values)}
    good = ("gamma", 6) if param != "gamma" else ("batch", 3)
    assert got["state"]["settings"][good[0]] == good[1]  # the good ones still count


def test_counters_past_their_cap_are_cut_to_it_and_say_so(session):
    got = link(session, ("steps", "500"), ("rounds", "101"))
    assert got["state"]["steps"] == bench.MAX_STEPS and got["state"]["rounds"] == bench.MAX_ROUNDS
    assert [(m["code"], m["param"], m["used"], m["args"]) for m in got["messages"]] == [
        ("over_cap", "steps", bench.MAX_STEPS, {"max": bench.MAX_STEPS}),
        ("over_cap", "rounds", bench.MAX_ROUNDS, {"max": bench.MAX_ROUNDS})]


def test_values_are_quoted_as_typed_and_cut(session):
    huge = "9" * 10_000
    got = link(session, ("gamma", "4\x00"), ("batch", huge), ("draft", "é" * 60 + "\x7f"))
    shown = {m["param"]: m["value"] for m in got["messages"]}
    assert shown["gamma"] == "4\u2400"  # control characters are drawn, never hidden or escaped
    assert shown["batch"] == "9" * st.LINK_VALUE_SHOWN + "…"
    assert shown["draft"] == "é" * st.LINK_VALUE_SHOWN + "…"
    assert len(json.dumps(got, ensure_ascii=False)) < 2_000  # a 10 KB value is never echoed whole
    assert {m["code"] for m in got["messages"]} == {"not_whole_number", "out_of_range", "not_one_of"}


def test_a_parameter_given_twice_is_read_once_and_the_message_says_which(session):
    got = link(session, ("gamma", "3"), ("draft", "unigram"), ("gamma", "7"), ("gamma", "x"))
    assert got["state"]["settings"]["gamma"] == 3
    assert got["messages"] == [{"code": "given_twice", "param": "gamma", "value": None, "used": 3,
                                "args": {"count": 3}}]


def test_commands_refuse_what_links_forgive(session):
    """JSON from the page is strict: the page sends what the sim returned."""
    assert error(session, "act", {"state": {"settings": {"gamma": "4"}}, "action": {"type": "view"}})["param"] == "gamma"
    assert error(session, "act", {"state": {"steps": 201}, "action": {"type": "view"}})["param"] == "steps"
    assert error(session, "act", {"state": [], "action": {"type": "view"}})["param"] == "state"


def test_the_spec_carries_every_limit_and_value(session):
    spec = ok(session, "spec")
    by_name = {p["name"]: p for p in spec["parameters"]}
    assert list(by_name) == [p.name for p in st.PARAMETERS]
    assert by_name["gamma"]["min"] == 1 and by_name["gamma"]["max"] == bench.MAX_GAMMA
    assert by_name["batch"]["max"] == bench.MAX_BATCH and by_name["seed"]["max"] == bench.MAX_SEED
    assert by_name["steps"]["max"] == bench.MAX_STEPS and by_name["rounds"]["max"] == bench.MAX_ROUNDS
    assert by_name["rule"]["values"] == list(bench.RULES)
    assert by_name["rule"]["exact"] == {"exact": True, "typical": False, "replace_from_p": False, "recursive": True,
                                        "topk": True, "keep_any_survivor": False}
    assert by_name["temperature"]["values"] == [0, 0.5, 0.7, 1, 1.3] and by_name["temperature"]["greedy"] == 0
    assert by_name["top_p"]["values"] == [0.9, 0.95, 1] and by_name["candidates"]["max"] == 4
    assert spec["seed_modulus"] == bench.MAX_SEED + 1
    assert spec["verdicts"] == ["kept", "rejected", "void"]
    assert spec["default_state"] == st.default_state()
    assert spec["layout"]["slots"] == bench.MAX_GAMMA + 1


# --- the embed's view options (chapter, part, theme) ---------------------------------------------

CHAPTERS = ["onebyone", "rule", "exact", "lab"]  # the page passes the site's anchors; a few do here


def embed_link(session, *pairs):
    return ok(session, "link", {"query": [list(p) for p in pairs], "chapters": CHAPTERS})


def test_the_embed_reads_its_view_options_with_the_bench_state(session):
    got = embed_link(session, ("chapter", "Exact"), ("gamma", "6"), ("part", " TUBES "), ("theme", "dark"))
    assert got["options"] == {"chapter": "exact", "part": "tubes", "theme": "dark"}
    assert got["state"]["settings"]["gamma"] == 6 and got["messages"] == [] and got["ignored"] == []
    assert embed_link(session, ("utm_source", "x"))["options"] == {"chapter": None, "part": None, "theme": None}
    # Every part the machine draws, and both themes, are accepted.
    spec = ok(session, "spec")
    for part in spec["layout"]["parts"]:
        assert embed_link(session, ("part", part))["options"]["part"] == part
    assert spec["view_options"] == {"parts": spec["layout"]["parts"], "themes": ["light", "dark"]}


@pytest.mark.parametrize("param, value, values", [
    ("chapter", "sources", CHAPTERS), ("chapter", "", CHAPTERS), ("part", "readouts", None),
    ("theme", "purple", ["light", "dark"]), ("theme", "auto", ["light", "dark"]),
])
def test_a_bad_view_option_is_left_out_and_named(session, param, value, values):
    got = embed_link(session, (param, value), ("batch", "3"))
    assert got["options"][param] is None and got["state"]["settings"]["batch"] == 3
    [message] = got["messages"]
    assert message["code"] == "not_one_of" and message["param"] == param and message["value"] == value
    assert message["used"] is None  # the page words it "left out"
    assert message["args"]["values"] == (values or list(ok(session, "spec")["layout"]["parts"]))


def test_view_options_given_twice_and_bad_chapter_lists(session):
    got = embed_link(session, ("theme", "light"), ("theme", "dark"))
    assert got["options"]["theme"] == "light"
    assert got["messages"] == [{"code": "given_twice", "param": "theme", "value": None, "used": "light",
                                "args": {"count": 2}}]
    assert error(session, "link", {"query": [], "chapters": "exact"})["param"] == "chapters"
    assert error(session, "link", {"query": [], "chapters": [""]})["param"] == "chapters"


def test_a_load_action_returns_the_options_only_for_the_embed(session):
    act = lambda **extra: ok(session, "act", {"action": {"type": "load", "query": [["chapter", "rule"]], **extra},
                                              "measure": False})
    assert act(chapters=CHAPTERS)["options"]["chapter"] == "rule"
    assert "options" not in act()  # the full page passes no chapters: chapter is an unknown name there
