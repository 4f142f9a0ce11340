"""Drafts without a second model (sim.free_drafts), checked as chosen guesses (sim.guess_tree).

Exact part (fractions.Fraction, enumerated through the sim's own Verifier and the sources' own
proposals): on a 3-token vocabulary with a random rational trigram target (two seeds), a whole session of
each source (lookup, suffix with an earlier output, heads as a line and as a tree) writes its
first 5 tokens with exactly the target's chained probabilities, passes with no guess included.

Sampling part (tests/helpers/statistical.py: fixed seeds, false alarm 1e-7): on both books'
models, the first token a pass writes over each source's real guesses (lookup's line, suffix's
tree from a match, heads' tree of three first guesses) fits p in 6,000 draws; the named wrong rule
"redraw_from_p" (a refused guess not struck out: the next one checked, and the fallback drawn,
against p itself) has computed power >= 0.999 at that size, and its own draws fail.

Counting part: the run's counts agree with each other as vLLM's definitions say, for every source.
"""

from __future__ import annotations

import copy
import functools
import itertools
import json
import math
import random
from fractions import Fraction as F

import pytest
from helpers import corpus_models
from helpers.exact_laws import dense, guess_tree_law, rational
from helpers.statistical import check_fit_and_power, histogram

from sim import roofline as rl
from sim import stats
from sim.free_drafts import (PromptLookup, SkipGramHeads, SuffixDecoding, SuffixIndex, draft_cost,
                             lookup_guesses)
from sim.free_runs import run_source
from sim.guess_tree import GuessTree, check_guess_tree
from sim.prompts import ECHO_CUE, PASSAGES, prompt_ids

SIZE = 3
WRITTEN = 5


# --- the sources' proposals -----------------------------------------------------------------------

def test_lookup_takes_the_longest_n_and_its_most_recent_occurrence():
    text = [5, 1, 2, 7, 9, 1, 2, 8, 3, 4, 1, 2]
    assert lookup_guesses(text, 3, n_max=3, n_min=2) == [8, 3, 4]  # "1 2": the latest earlier one
    assert lookup_guesses([4, 1, 2, 6, 5, 1, 2, 7, 4, 1, 2], 2, 3, 2) == [6, 5]  # "4 1 2" beats "1 2"
    assert lookup_guesses([1, 2, 3, 1, 2], 4, 3, 2) == [3, 1, 2]  # fewer: the text ends
    assert lookup_guesses([1, 2, 3, 4], 4, 3, 2) == []  # nothing matches: a plain step
    assert lookup_guesses([3, 1, 2, 3], 2, 3, 1) == [1, 2]  # n = 1 when allowed


def test_suffix_trees_grow_with_the_match():
    index = SuffixIndex(depth=8)
    index.extend("a", [1, 2, 3, 4, 5, 1, 2, 3, 6, 7])
    short, _ = index.speculate([9, 3], levels=4, budget=8, min_prob=0.0)  # match "3": budget 1
    assert len(short) == 1
    line, _ = index.speculate([9, 1, 2, 3], levels=4, budget=8, min_prob=0.0)  # match "1 2 3": 3 nodes
    assert line.tokens == [4, 5, 1] and line.parents == [None, 0, 1]  # ties (all 1/2) to the lower id
    wide, _ = index.speculate([9, 1, 2, 3], levels=4, budget=8, factor=2.0, min_prob=0.0)  # 6 nodes
    assert len(wide) == 6 and [wide.tokens[i] for i in wide.children(None)] == [4, 6]
    assert index.speculate([9, 8], 4, 8)[0].tokens == []  # no match, no guess


def test_a_guess_tree_refuses_bad_shapes():
    with pytest.raises(ValueError, match="earlier node"):
        GuessTree([1, 2], [1, None])
    with pytest.raises(ValueError, match="already a child"):
        GuessTree([1, 1], [None, None])
    tree = GuessTree.by_levels([[1, 2], [3]])
    assert tree.tokens == [1, 2, 3, 3] and tree.parents == [None, None, 0, 1] and tree.depth == 2


def test_the_cost_of_heads_and_of_the_free_sources():
    assert draft_cost("lookup", 4) == draft_cost("suffix", 8) == 0
    m = rl.model(rl.DEFAULT_MODEL)
    assert draft_cost("heads", 4) == pytest.approx(4 * (m.width ** 2 + m.width * m.vocab) / m.streamed_params)
    assert 0.05 < rl.head_cost(m) < 0.1  # one head of Llama 3.1 8B: about 7% of a pass


def test_the_passages_are_quoted_from_the_books_and_echo_ends_with_their_opening(sim_languages):
    for lang, language in sim_languages.items():
        book = corpus_models.book_ids(lang)
        passage = language.encode(PASSAGES[lang])
        starts = [i for i in range(len(book) - len(passage)) if book[i] == passage[0]]
        assert any(list(book[i:i + len(passage)]) == passage for i in starts), lang
        echo = prompt_ids(language, "echo")
        assert echo == passage + passage[:ECHO_CUE]
        assert prompt_ids(language, "fresh")[:len(passage)] == passage
    with pytest.raises(ValueError, match="own"):
        prompt_ids(sim_languages["en"], "own")


# --- exact: a whole session of each source, enumerated ----------------------------------------------

def toy_target(seed: int):
    """p after the last two tokens (fewer at the start), rational, some zeros."""
    rng = random.Random(seed)
    contexts = [c for n in range(3) for c in itertools.product(range(SIZE), repeat=n)]
    return {c: rational(rng, SIZE) for c in contexts}


def session_law(table, source, prompt, length: int) -> dict[tuple, F]:
    """The law of the first `length` tokens a request writes, pass after pass, each pass's tree
    proposed by the source from the text so far (a copy of the source per branch)."""
    law: dict[tuple, F] = {}

    def p_after(text):
        return dense(table[tuple(text[-2:])])

    def passes(src, text, weight):
        written = tuple(text[len(prompt):])
        if len(written) >= length:
            law[written[:length]] = law.get(written[:length], F(0)) + weight
            return
        tree = src.propose(list(text), (2, 1) if isinstance(src, SkipGramHeads) else (1, 1))
        for out, prob in guess_tree_law(lambda path: p_after(list(text) + list(path)), tree).items():
            passes(copy.deepcopy(src), text + list(out), weight * prob)

    source.begin(prompt)
    passes(source, list(prompt), F(1))
    return law


def chained(table, prompt, written) -> F:
    prob, text = F(1), list(prompt)
    for x in written:
        prob *= table[tuple(text[-2:])][x]
        text.append(x)
    return prob


def suffix_with_history():
    source = SuffixDecoding(depth=6, min_prob=0.0)
    source.begin([0])
    source.end([1, 2, 0, 1, 2, 2, 1])  # an earlier output: its matches grow trees
    return source


SOURCES = {
    "lookup": lambda: PromptLookup(3, 2),
    "suffix": suffix_with_history,
    "heads": lambda: SkipGramHeads([0, 1, 2, 0, 1, 1, 2, 0, 2, 1, 0, 0, 2], heads=2, top=2),
}


@pytest.mark.parametrize("name", sorted(SOURCES))
@pytest.mark.parametrize("prompt", [[0, 1, 2, 0, 1], [2, 2, 1]], ids=["repeating", "plain"])
def test_each_source_writes_the_target_s_chain_exactly(name, prompt):
    for seed in (1, 2):
        table = toy_target(seed)
        law = session_law(table, SOURCES[name](), prompt, WRITTEN)
        assert sum(law.values()) == 1
        for written in itertools.product(range(SIZE), repeat=WRITTEN):
            assert law.get(written, F(0)) == chained(table, prompt, written), (name, seed, written)


def test_the_enumerated_sessions_meet_guesses_trees_and_plain_passes():
    """The cases above hold each kind of pass: none, a line, and siblings checked in turn."""
    assert PromptLookup(3, 2).propose([2, 2, 1], (1, 1)).tokens == []
    assert len(PromptLookup(3, 2).propose([0, 1, 2, 0, 1], (1, 1))) == 2
    tree = suffix_with_history().propose([0, 1, 2], (1, 1, 1))
    assert len(tree.children(None)) >= 1 and tree.depth >= 2
    heads = SOURCES["heads"]().propose([0, 1], (2, 1))
    assert len(heads.children(None)) == 2


# --- sampling on the real models -----------------------------------------------------------------------

DRAWS = 6000


def wrong_law(p_dense, tokens):
    """"redraw_from_p": each guess kept with p(x), never struck out; the fallback drawn from p."""
    law, still = [v * 0 for v in p_dense], 1.0
    for x in tokens:
        law[x] += still * p_dense[x]
        still *= 1 - p_dense[x]
    return [a + still * v for a, v in zip(law, p_dense)]


def wrong_draws(p, tokens, n, rng):
    out = []
    for _ in range(n):
        for x in tokens:
            if rng.random() <= p.prob(x):
                out.append(x)
                break
        else:
            out.append(p.sample(rng))
    return out


@functools.lru_cache(maxsize=None)
def book_heads(lang: str) -> SkipGramHeads:
    return SkipGramHeads(list(corpus_models.book_ids(lang)), heads=4, top=3)


def real_tree(language, lang, name):
    """A source's tree on the echo prompt's text (suffix: after one earlier output)."""
    text = prompt_ids(language, "echo")
    if name == "lookup":
        return text, PromptLookup().propose(text, (1, 1, 1, 1))
    if name == "suffix":
        source = SuffixDecoding(min_prob=0.0)
        source.begin(text)
        source.end(language.encode(PASSAGES[lang])[ECHO_CUE:] + text[:ECHO_CUE])
        return text, source.propose(text, (2, 1, 1, 1))
    return text, book_heads(lang).propose(text, (3, 1, 1, 1))


@pytest.mark.parametrize("name", ["lookup", "suffix", "heads"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_first_tokens_follow_p_on_the_real_models(sim_languages, lang, name):
    language = sim_languages[lang]
    text, tree = real_tree(language, lang, name)
    first = [tree.tokens[i] for i in tree.children(None)]
    assert first, (lang, name)  # the prompt gives each source a guess to check
    target, size = language.target, len(language.vocab)
    p = target.sparse(text[-2:])
    p_dense = [p.prob(w) for w in range(size)]
    rng = random.Random(58)
    observed = histogram((check_guess_tree(target, text, tree, rng).written[0] for _ in range(DRAWS)), size)
    wrong = histogram(wrong_draws(p, first, DRAWS, random.Random(58)), size)
    strength = check_fit_and_power(observed, p_dense, wrong_law(p_dense, first), wrong)
    assert strength >= 0.999


# --- counting --------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def en_heads():
    return book_heads("en")


@pytest.mark.parametrize("name,candidates,temperature", [("lookup", 1, 0), ("suffix", 1, 1), ("suffix", 2, 0),
                                                         ("heads", 1, 1), ("heads", 2, 1)])
def test_the_counts_agree_as_the_engines_define_them(sim_languages, en_heads, name, candidates, temperature):
    language = sim_languages["en"]
    run = run_source(language, name, prompt_ids(language, "echo"), gamma=4, candidates=candidates, requests=3,
                     tokens=60, temperature=temperature, heads=en_heads)
    assert run["tokens"] == run["passes"] + run["accepted"]
    assert math.isclose(run["tokens_per_pass"], 1 + run["coverage"] * (run["mean_acceptance_length"] - 1))
    assert math.isclose(sum(run["accepted_by_position"]), run["mean_acceptance_length"] - 1)
    assert math.isclose(run["draft_acceptance_rate"], run["accepted"] / run["proposed"])
    assert run["accepted_by_position"] == sorted(run["accepted_by_position"], reverse=True)
    assert sum(r["passes"] for r in run["per_request"]) == run["passes"]
    assert 0 < run["alpha"] <= 1
    assert run["speedup"] == run["tokens_per_pass"] / (1 + draft_cost(name, 4))


def test_heads_are_kept_less_often_further_ahead_and_a_full_line_meets_the_formula(sim_languages, en_heads):
    language = sim_languages["en"]
    run = run_source(language, "heads", prompt_ids(language, "none"), gamma=4, requests=4, tokens=100,
                     heads=en_heads)
    assert run["coverage"] == 1  # every token was seen in the book with a follower at each distance
    kept = run["kept_given_checked"]
    assert kept[0] > kept[1] > kept[2], kept
    assert math.isclose(run["tokens_per_pass_formula"], stats.expected_tokens_per_pass(run["alpha"], 4))


def test_a_pass_without_a_guess_is_a_plain_step_and_stays_out_of_alpha(sim_languages):
    language = sim_languages["en"]
    run = run_source(language, "lookup", prompt_ids(language, "none"), gamma=4, requests=2, tokens=80)
    assert run["coverage"] < 1 and run["drafts"] >= 1
    plain = run["passes"] - run["drafts"]
    assert run["tokens"] - run["accepted"] - run["drafts"] == plain  # one token each
    # alpha averages the positions checked, which only drafts have
    assert run["acceptance_rate"] is not None


# --- on the bench (sim.bench.free_passes) -------------------------------------------------------------------

def test_a_free_pass_is_described_as_a_model_draft_s(sim_languages, en_heads):
    from sim.bench.free_passes import free_run
    from sim.bench.settings import check_settings

    language = sim_languages["en"]
    settings = check_settings({"candidates": 2})
    passes = free_run(language, settings, "heads", 8, "echo", heads=en_heads)
    assert passes == free_run(language, settings, "heads", 8, "echo", heads=en_heads)  # one seed, one tape
    json.dumps(passes)
    for shown in passes:
        verdicts = [g["verdict"] for g in shown["guesses"]]
        kept = verdicts.count("kept")
        assert verdicts[:kept] == ["kept"] * kept and set(verdicts[kept + 1:]) <= {"void"}
        assert shown["n_written"] == shown["n_kept"] + 1 == kept + 1
        assert all(g["q"] == 1.0 for g in shown["guesses"])
        first = shown["positions"][0]["candidates"][0]
        assert first["ratio"] == first["p"]  # the first guess at a level is kept with p itself
        assert 1 <= len(shown["positions"][0]["candidates"]) <= 2  # head 1's two likeliest (one after a rare token)
    assert any(len(shown["positions"][0]["candidates"]) == 2 for shown in passes)


def test_the_free_readouts_curve_meets_the_counted_tokens_at_the_largest_gamma(sim_languages):
    from sim.bench.free_passes import free_readouts
    from sim.bench.settings import MAX_GAMMA, check_settings

    language = sim_languages["zh"]
    got = free_readouts(language, check_settings({"temperature": 0, "gamma": MAX_GAMMA}), "suffix", "echo")
    g, speedup = got["curve"][-1]
    assert g == MAX_GAMMA and math.isclose(speedup * (1 + got["c"]), got["tokens_per_pass"])
    assert got["speedup"] == got["tokens_per_pass"]  # suffix costs nothing
    assert got["curve"][got["best_gamma"] - 1][1] == max(s for _, s in got["curve"])


def test_a_model_file_may_carry_the_heads(tiny_doc):
    from sim.counting import count_document, dump
    from sim.models import load_language

    assert load_language(tiny_doc).heads is None  # the books' files carry none today
    words = "a b a c a b b d a c e a b a a d c b a e b c a".split()
    doc = count_document("en", words, [], heads=3, heads_top=2)
    language = load_language(json.loads(dump(doc)))
    ids = [language.index[t] for t in words]
    counted = SkipGramHeads(ids, heads=3, top=2)
    assert language.heads.table == counted.table
    run = run_source(language, "heads", [ids[0], ids[1]], gamma=3, requests=1, tokens=20)
    assert run["proposed"] > 0


def test_the_indexed_lookup_proposes_what_the_scan_finds():
    rng = random.Random(7)
    for _ in range(30):
        text = [rng.randrange(4) for _ in range(rng.randrange(1, 12))]
        source = PromptLookup(3, 2)
        source.begin(text[:2])
        for size in range(2, len(text) + 1):  # the text grows pass by pass, as in a request
            assert source.propose(text[:size], (1,) * 4).tokens == lookup_guesses(text[:size], 4, 3, 2)
