"""A reader's own text on the bench (sim.owntext through Session.handle, as the worker calls it).

Statistical tests as in test_bench_api.py: Pearson's test at false-alarm odds 1e-7
(tests/helpers/statistical.py), paired with a named wrong sampler whose rejection has computed power
of at least 0.999, which is also run to see it rejected.
"""

from __future__ import annotations

import pytest
from helpers.bench_calls import error, ok, tube_totals
from helpers.owntext_fixtures import own_text
from helpers.statistical import check_fit_and_power

from sim import owntext
from sim.bench import TUBE_DRAWS
from sim.session import Session

LANGS = ("en", "zh")
OTHER = {"en": "zh", "zh": "en"}
STATE = {"settings": {"seed": 3}, "steps": 3, "rounds": 2}

# One text per case of bad input (module docstring of sim.owntext), in each language's bench.
BAD = {
    "empty": lambda lang: " \n\t ",
    "too_long": lambda lang: own_text(f"prose.{lang}") * (owntext.MAX_CHARACTERS // len(own_text(f"prose.{lang}")) + 1),
    "binary": lambda lang: own_text(f"prose.{lang}")[:300] + "\x00\x01\ufffd\x7f" + "\ufffd\x03" * 20,
    "other_language": lambda lang: own_text(f"prose.{OTHER[lang]}"),
    "no_words": lambda lang: "… — ! ? 12 34 ; : 。，" * 40,
    "too_short": lambda lang: own_text(f"prose.{lang}")[:60],
}


@pytest.fixture()
def session(sim_languages, request):
    return Session(sim_languages[request.param])


def view(session) -> dict:
    return ok(session, "act", {"state": STATE, "action": {"type": "view"}})["view"]


@pytest.mark.parametrize("session", LANGS, indirect=True)
@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_is_named_and_keeps_the_models_in_use(session, case):
    """Each case gets its code, on the book's models and on a text's; the models stay as they were."""
    lang = session.language.lang
    before = view(session)
    reply = error(session, "use_text", {"text": BAD[case](lang)})
    assert reply["code"] == case and reply["param"] == "text", reply
    assert ok(session, "source") == {"source": "book"}
    assert view(session) == before
    counted = ok(session, "use_text", {"text": own_text(f"prose.{lang}")})
    before = view(session)
    assert error(session, "use_text", {"text": BAD[case](lang)})["code"] == case
    assert ok(session, "source") == counted
    assert view(session) == before


def test_bad_input_messages_quote_what_and_where(sim_languages):
    s = Session(sim_languages["en"])
    binary = error(s, "use_text", {"text": "ab\x00" + "word " * 200})
    assert binary["details"] == {"count": 1, "position": 3, "code_point": "U+0000"}
    assert "character 3" in binary["error"]
    long = error(s, "use_text", {"text": "a" * 200_001})
    assert long["details"] == {"characters": 200_001, "max": 200_000}
    short = error(s, "use_text", {"text": "one two three"})
    assert short["details"] == {"tokens": 3, "min": owntext.MIN_TOKENS}
    assert error(s, "use_text", {"text": own_text("prose.zh")})["details"]["other"] == "zh"
    assert error(s, "use_text", {"text": 12})["param"] == "text"
    assert error(s, "use_text", {})["param"] == "text"


@pytest.mark.parametrize("lang", LANGS)
def test_the_limits_themselves_are_accepted(sim_languages, lang):
    """Exactly MAX_CHARACTERS characters, and a text of exactly MIN_TOKENS tokens, are counted."""
    s = Session(sim_languages[lang])
    prose = own_text(f"prose.{lang}")
    longest = (prose * (owntext.MAX_CHARACTERS // len(prose) + 1))[:owntext.MAX_CHARACTERS]
    assert ok(s, "use_text", {"text": longest})["characters"] == owntext.MAX_CHARACTERS
    tokens = s.language.tokenize(prose)[:owntext.MIN_TOKENS]
    shortest = (" " if lang == "en" else "").join(tokens)
    assert ok(s, "use_text", {"text": shortest})["tokens"] == owntext.MIN_TOKENS


@pytest.mark.parametrize("session", LANGS, indirect=True)
def test_the_whole_bench_runs_on_a_text_and_the_book_comes_back(session):
    lang = session.language.lang
    book_view = view(session)
    summary = ok(session, "use_text", {"text": own_text(f"refrain.{lang}")})
    assert summary["source"] == "text" and summary["tokens"] >= owntext.MIN_TOKENS
    vocab = set(session.bench.language.vocab)
    assert ok(session, "source") == summary
    v = view(session)
    # Everything drawn comes from the text's vocabulary: the tape, the pass, the tubes.
    assert {t["text"] for t in v["tape"]["tokens"]} <= vocab
    assert {c["text"] for c in v["tubes"]["categories"] if c["text"]} <= vocab
    assert v["tubes"]["context_text"] == summary["prefix"]
    assert v["readouts"]["measure"]["prefix"] == summary["prefix"]
    assert 0 < v["readouts"]["alpha"] <= 1
    assert ok(session, "start")["text"] == summary["prefix"]
    assert ok(session, "exactness", {})["context_text"] == summary["prefix"]
    for draft in ("bigram", "unigram", "same"):
        for greedy in (False, True):
            ok(session, "act", {"state": {**STATE, "settings": {"draft": draft, "greedy": greedy}},
                                "action": {"type": "step", "count": 20}})
    assert ok(session, "use_book") == {"source": "book"}
    assert view(session) == book_view


def test_progress_reports_every_stage_in_order(sim_languages):
    stages = []
    s = Session(sim_languages["zh"])
    s.handle("use_text", '{"text": "' + own_text("prose.zh").replace("\n", "") + '"}', stages.append)
    assert tuple(stages) == ("tokens", "unigram", "bigram", "trigram", "models")


def test_the_start_prefix_is_the_most_seen_pair_of_words(sim_languages):
    s = Session(sim_languages["en"])
    assert ok(s, "use_text", {"text": own_text("refrain.en")})["prefix"] == "the boat"
    assert ok(s, "use_text", {"text": own_text("code.en")})["prefix"] == "value in"


ROUNDS = 200  # 10,000 draws per tube: at 4,000 the zh bigram case has power 0.957 only


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("draft", ["bigram", "unigram"])
def test_tubes_converge_to_p_on_a_pasted_text(sim_languages, lang, draft):
    """On the models of a pasted text (the prose fixture), both tubes fit p over 10,000 draws.
    Wrong sampler at the same size: the replace-from-p rule's speculative tube, rejected with
    computed power >= 0.9999993 in all four cases (the least: zh with the bigram draft)."""
    s = Session(sim_languages[lang])
    ok(s, "use_text", {"text": own_text(f"prose.{lang}")})
    categories, target, spec, _ = tube_totals(s, "exact", ROUNDS, seed=2023, draft=draft)
    wrong_categories, _, wrong_spec, _ = tube_totals(s, "replace_from_p", ROUNDS, seed=2023, draft=draft)
    assert sum(target) == sum(spec) == ROUNDS * TUBE_DRAWS
    p = [c["p"] for c in categories]
    wrong = [c["spec_p"] for c in wrong_categories]
    check_fit_and_power(target, p, wrong)
    check_fit_and_power(spec, p, wrong, wrong_spec)


@pytest.mark.parametrize("session", LANGS, indirect=True)
@pytest.mark.parametrize("prompt", ["echo", "fresh"])
def test_a_book_passage_the_texts_models_cannot_read_is_an_empty_prompt_that_says_so(session, prompt):
    """The passages of "echo" and "fresh" are the book's; on models counted from a text that lacks
    some of their words the prompt is empty and the view says it is not the one asked for (the page
    names why), rather than the act failing and the text's models being given up."""
    lang = session.language.lang
    ok(session, "use_text", {"text": own_text(f"refrain.{lang}")})
    for draft in ("lookup", "suffix"):
        settings = {"draft": draft, "prompt": prompt, "greedy": True}
        v = ok(session, "act", {"state": {**STATE, "settings": settings}, "action": {"type": "step", "count": 3}})["view"]
        assert v["prompt"]["found"] is False and v["prompt"]["tokens"] == 0 and v["prompt"]["kind"] == prompt
        assert 0 <= v["readouts"]["alpha"] <= 1
    # On the book's models the same settings search the passage.
    ok(session, "use_book")
    v = ok(session, "act", {"state": {**STATE, "settings": {"draft": "lookup", "prompt": prompt}},
                            "action": {"type": "view"}})["view"]
    assert v["prompt"]["found"] is True and v["prompt"]["tokens"] > 0
