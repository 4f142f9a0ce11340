"""The drafts without a second model on the bench (draft = lookup, suffix, heads): settings, links,
replays, readouts, the race's cost and the heads' table sent on demand (sim/bench/free_passes.py,
sim/bench/replay.py). Their exactness is proved in tests/sim/test_free_drafts.py."""

from __future__ import annotations

import json
import math

import pytest
from helpers import corpus_models
from helpers.bench_calls import act, call, error, ok

from sim.bench import settings as st
from sim.bench.free_passes import EARLIER_TOKENS, FIRST_SEED, point_mass_table
from sim.bench.links import link_query
from sim.free_drafts import SOURCES, SkipGramHeads, draft_cost
from sim.prompts import PROMPT_KINDS
from sim.session import Session


def state_of(**settings) -> dict:
    state = st.default_state()
    steps = settings.pop("steps", 1)
    return {**state, "settings": {**state["settings"], **settings}, "steps": steps}


@pytest.fixture(scope="module")
def en_heads_json() -> str:
    """The build's table for English (sitebuild/counting.py: 8 heads, 4 tokens each), counted from the book."""
    assert SkipGramHeads.from_doc(json.loads(corpus_models.heads_json("en"))).heads == st.MAX_GAMMA
    return corpus_models.heads_json("en")


def test_the_draft_menu_and_the_prompt_are_settings_of_the_one_table():
    assert st.BY_NAME["draft"].values == st.DRAFTS + SOURCES
    assert st.BY_NAME["prompt"].values == PROMPT_KINDS and st.DEFAULTS["prompt"] == "none"
    assert st.BY_NAME["prompt"].describe()["drafts"] == ["lookup", "suffix"]  # heads search no prompt
    assert st.check_settings({"draft": "heads"}).free and not st.check_settings({}).free


@pytest.mark.parametrize("value", ["lookup", "suffix", "heads", "LOOKUP"])
def test_a_link_keeps_each_new_draft(sessions, value):
    got = ok(sessions["en"], "link", {"query": [["draft", value], ["prompt", "echo"]]})
    assert got["state"]["settings"]["draft"] == value.lower() and got["messages"] == []
    assert got["state"]["settings"]["prompt"] == "echo"


def test_a_link_still_rewrites_an_unknown_draft_or_prompt(sessions):
    got = ok(sessions["en"], "link", {"query": [["draft", "medusa"], ["prompt", "poem"]]})
    assert got["state"]["settings"]["draft"] == "bigram" and got["state"]["settings"]["prompt"] == "none"
    assert [(m["code"], m["param"]) for m in got["messages"]] == [("not_one_of", "draft"), ("not_one_of", "prompt")]
    assert "lookup" in got["messages"][0]["args"]["values"]


@pytest.mark.parametrize("draft,prompt", [("lookup", "echo"), ("suffix", "fresh")])
def test_a_free_state_replays_what_its_steps_showed(sessions, draft, prompt):
    """One step at a time in one session, and the link's state in a session that saw nothing else,
    give the same tape, pass and so-far counts."""
    s = sessions["en"]
    state = state_of(draft=draft, prompt=prompt, seed=3)
    for _ in range(5):
        state = act(s, state, {"type": "step", "count": 1})["state"]
    stepped = ok(s, "view", {"state": state, "measure": False})
    fresh = ok(Session(s.language), "view", {"state": state, "measure": False})
    for part in ("tape", "pass", "so_far", "prompt", "race", "link"):
        assert stepped[part] == fresh[part], part
    assert stepped["link"].startswith(f"?draft={draft}&prompt={prompt}&")
    assert stepped["prompt"]["text"] and stepped["readouts"] is None


def test_suffix_draws_on_the_sentences_before_this_one_in_the_state(sessions):
    """New sentence after the first: suffix's earlier output is the first sentence as the bench wrote it
    (its first EARLIER_TOKENS tokens), from the state itself, not from what the session saw before."""
    s = sessions["zh"]
    first = state_of(draft="suffix", seed=FIRST_SEED, steps=60)
    assert ok(s, "view", {"state": first, "measure": False})["prompt"]["earlier"] == []
    second = act(s, first, {"type": "new_sentence"})["state"]
    earlier = ok(Session(s.language), "view", {"state": second, "measure": False})["prompt"]["earlier"]
    run = s.bench.replays.run(st.check_state(first).settings, 60)
    written = run["text"]
    cut = next(n for n in range(len(run["sentence"]), len(written) + 1)
               if n - len(run["sentence"]) >= EARLIER_TOKENS and
               n in _pass_ends(run))
    assert earlier == [s.language.decode(written[:cut])]


def _pass_ends(run) -> set[int]:
    ends, n = set(), len(run["sentence"])
    for step in run["passes"]:
        n += step["n_written"]
        ends.add(n)
    return ends


def test_acceptance_by_position_counts_the_tape_as_vllm_counts(sessions):
    s = sessions["en"]
    for draft in ("bigram", "lookup"):
        view = ok(s, "view", {"state": state_of(draft=draft, prompt="echo", steps=30), "measure": False})
        passes = s.bench.replays.run(st.check_state(view["state"]).settings, 30)["passes"]
        sf = view["so_far"]
        drafts = [p for p in passes if p["positions"]]
        assert sf["passes"] == 30 and sf["drafts"] == len(drafts)
        for j in range(4):
            assert sf["kept"][j] == sum(1 for p in drafts if p["n_kept"] > j)
        assert 1 + sum(sf["accepted_by_position"]) == pytest.approx(sf["mean_acceptance_length"])
        assert sf["tokens_per_pass"] == sum(p["n_written"] for p in passes) / 30
    assert sf["drafts"] < sf["passes"]  # lookup: passes that found nothing are plain steps, not drafts


@pytest.mark.parametrize("draft", ["lookup", "suffix"])
def test_free_readouts_agree_with_each_other_and_with_the_race(sessions, draft):
    """tokens per pass = 1 + coverage (mean acceptance length - 1); the speed-up is tokens per pass over
    1 + c per pass, the curve's point at this gamma too; the race prices each guess at the same c."""
    s = sessions["en"]
    view = ok(s, "view", {"state": state_of(draft=draft, prompt="echo", steps=4)})
    ro = view["readouts"]
    assert ro["free"] and ro["alpha_kind"] == "point_mass" and ro["c"] == 0
    assert ro["tokens_per_pass_counted"] == pytest.approx(1 + ro["coverage"] * (ro["mean_acceptance_length"] - 1))
    assert ro["mean_acceptance_length"] == pytest.approx(1 + sum(ro["accepted_by_position"]))
    assert ro["speedup"] == pytest.approx(ro["tokens_per_pass_counted"])
    assert set(ro["alpha_rules"].values()) == {ro["alpha"]} and 0 < ro["alpha"] < 1
    assert view["race"]["c"] == ro["c"] and view["race"]["draft_ms"] == 0
    assert ro["curve"][3][1] == pytest.approx(1 + ro["coverage"] * sum(ro["accepted_by_position"][:4]), rel=0.2)


def test_heads_need_their_table_and_then_price_each_guess(en_heads_json):
    s = Session(corpus_models.language("en"))
    state = state_of(draft="heads", steps=3)
    refused = error(s, "act", {"state": state, "action": {"type": "view"}})
    assert refused["code"] == "needs_heads" and refused["param"] == "draft"
    assert error(s, "use_heads", {"heads": "{}"})["param"] == "heads"
    assert ok(s, "use_heads", {"heads": en_heads_json}) == {"heads": st.MAX_GAMMA, "top": st.MAX_CANDIDATES}
    view = ok(s, "act", {"state": state, "action": {"type": "view"}, "measure": True})["view"]
    ro = view["readouts"]
    c = draft_cost("heads", 4) / 4
    assert ro["c"] == pytest.approx(c) and view["race"]["c"] == pytest.approx(c)
    assert ro["speedup"] == pytest.approx(ro["tokens_per_pass_counted"] / (1 + 4 * c))
    assert ro["accepted_by_position"][0] > ro["accepted_by_position"][1] > ro["accepted_by_position"][2]
    assert all(g["q"] == 1.0 for g in view["pass"]["guesses"]) and not view["prompt"]["searched"]


def test_the_why_exact_table_of_a_chosen_guess_is_a_point_mass(sim_languages):
    language = sim_languages["en"]
    context = language.encode("said the")
    p = language.target.sparse(context)
    guess = p.argmax()
    table = point_mass_table(language, context, guess, 8)
    assert table["beta"] == pytest.approx(p.prob(guess))
    for row in table["tokens"]:
        assert row["q"] == (1.0 if row["id"] == guess else 0.0)
        assert row["min"] + row["residual_share"] == pytest.approx(row["p"])
    total = math.fsum(r["min"] + r["residual_share"] for r in table["tokens"]) + table["other"]["p"]
    assert total == pytest.approx(1.0)
    assert point_mass_table(language, context, None, 8)["beta"] == 0.0


def test_the_prompt_own_without_a_text_is_empty_and_says_so(sessions):
    view = ok(sessions["en"], "view", {"state": state_of(draft="lookup", prompt="own"), "measure": False})
    assert view["prompt"] == {"kind": "own", "searched": True, "found": False, "tokens": 0, "text": "", "earlier": []}
    assert call(sessions["en"], "view", {"state": state_of(draft="bigram", prompt="echo")})["ok"]


def test_the_single_pass_commands_name_a_draft_without_a_model(sessions):
    for command in ("step", "tube_round"):
        assert error(sessions["en"], command, {"draft": "lookup"})["param"] == "draft"


@pytest.mark.parametrize("draft,prompt", [("lookup", "echo"), ("suffix", "fresh"), ("heads", "none")])
def test_a_course_package_saves_a_free_draft_and_launches_it_again(sessions, draft, prompt):
    """The SCORM package's suspend data is the bench's link (the view's) and the course's progress
    (sitebuild/course/launcher/launcher.js); the launcher hands the embed the link's parameters and
    chapter=. The embed's reading of that (the link command with its chapters) is the same state,
    with nothing to say of it, well inside SCORM 1.2's 4,096 characters."""
    from urllib.parse import parse_qsl

    state = state_of(draft=draft, prompt=prompt, temperature=0, seed=5, steps=6)
    link = link_query(st.check_state(state))
    suspend = f"{link.lstrip('?')}&course-chapters=lookup.suffix&course-tried=lookup&course-predicted=lookup"
    assert len(suspend) <= 4096 and f"draft={draft}" in suspend and f"prompt={prompt}" in suspend
    bench = [[k, v] for k, v in parse_qsl(suspend, keep_blank_values=True) if not k.startswith("course-")]
    got = ok(sessions["en"], "link", {"query": bench + [["chapter", "suffix"]], "chapters": ["lookup", "suffix"]})
    assert got["state"] == st.check_state(state).as_json() and got["messages"] == [] and got["ignored"] == []
    assert got["options"]["chapter"] == "suffix"
