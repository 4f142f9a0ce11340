"""The bench's single commands: a sentence start, one traced step, the exactness table (tube rounds: tubes.py).

Each takes a Language and checked arguments (Settings, token ids, whole numbers: sim.bench.protocol
reads them from the worker's JSON) and returns a JSON-ready dict. They depend only on their
arguments, never on what was asked before:

Random numbers. Every draw comes from a random.Random seeded by an integer made of the bench
seed, a stream and an index, so that one (seed, step_index) or (seed, round) gives the same
result in CPython and in Pyodide, whatever was asked before:

    random.Random((seed << 34) | (stream << 32) | index),  seed, index in 0..2**32 - 1,
    stream 0 = step (index = step_index), 1 = tube round (index = round), 2 = sentence start,
    3 = the greedy readouts' sentence starts (index = run).
"""

from __future__ import annotations

import math
import random
import sys

from .. import stats
from ..speculative import residual_of
from ..text import is_word
from .passes import tree_pass, verdict  # noqa: F401 (verdict: the bench's word for a guess's fate)
from .settings import Settings

MAX_INDEX = 2**32 - 1
MAX_TOP = 20

STREAM_STEP, STREAM_TUBE, STREAM_START, STREAM_GREEDY_STARTS = 0, 1, 2, 3

BENCH_PREFIX = dict(stats.DEFAULT_PREFIX)  # {"en": "said the", "zh": "慢慢"}

# The test tubes' default prefix. Chinese: the bench prefix, as chapter 6 says. English: not
# "said the", where Medusa's typical acceptance moves the top categories by only ~3 points
# (total variation) and no reader could see it drift; after "she said" it turns p("the") =
# 0.12 into 0.47, visible in one round, while the exact rule still converges to p.
TUBE_PREFIX = {"en": "she said", "zh": "慢慢"}

# A new sentence starts after this token (the draw is taken from the target after it).
SENTENCE_END = {"en": ".", "zh": "。"}
START_TOKENS = 2
START_TRIES = 200

OTHER_ID = -1


def rng_for(seed: int, stream: int, index: int) -> random.Random:
    """The random source of one step, tube round or sentence start (see the module docstring)."""
    return random.Random((seed << 34) | (stream << 32) | index)


def which_python() -> dict:
    """The Python that runs this (its version and platform): the page shows it, and tests use it to
    prove the work ran in the worker's Python (Pyodide's, platform "emscripten")."""
    return {"version": sys.version.split()[0], "platform": sys.platform}


# --- tokens and contexts --------------------------------------------------------------------------

def token(language, token_id: int) -> dict:
    return {"id": token_id, "text": language.vocab[token_id]}


def default_context(language, which: str) -> list[int]:
    """The "bench" or "tube" prefix: the book's (BENCH_PREFIX, TUBE_PREFIX), or the one chosen
    from a reader's text (Language.prefixes)."""
    if language.prefixes is not None:
        return list(language.prefixes[which])
    return language.encode((BENCH_PREFIX if which == "bench" else TUBE_PREFIX).get(language.lang, ""))


def bench_prefix_ids(language) -> list[int]:
    return default_context(language, "bench")


# --- start --------------------------------------------------------------------------------------------

def start(language, prefix: list[int] | None = None, seed: int | None = None) -> dict:
    """A new sentence: the prefix's token ids if given, else a random sentence start for `seed`
    if given, else the language's bench prefix.

    The random start draws START_TOKENS word tokens (no punctuation) from the target after a
    sentence end (English ".", Chinese "。"), redrawing a punctuation token; seeded by
    (seed, stream 2).
    """
    if prefix is not None:
        ids = list(prefix)
    elif seed is not None:
        ids = random_start(language, rng_for(seed, STREAM_START, 0))
    else:
        ids = bench_prefix_ids(language)
    return {"tokens": [token(language, t) for t in ids], "ids": ids, "text": language.decode(ids)}


def random_start(language, rng) -> list[int]:
    """START_TOKENS word tokens drawn from the target after a sentence end."""
    end = language.index.get(SENTENCE_END.get(language.lang, ""))
    running = [] if end is None else [end]
    target, vocab = language.target, language.vocab
    for _ in range(START_TOKENS):
        p = target.sparse(running)
        for _ in range(START_TRIES):
            drawn = p.sample(rng)
            if is_word(language.lang, vocab[drawn]):
                break
        else:  # pragma: no cover - the books always have words after a full stop
            return bench_prefix_ids(language)
        running.append(drawn)
    return running[-START_TOKENS:]


# --- exactness ---------------------------------------------------------------------------------------

def top_by_p(p, k: int) -> list[tuple[int, float]]:
    """The k most likely tokens of a ChainDistribution as (id, p), most likely first, ties by id.

    Outside the support p is a constant times P1, and P1 never grows with the id (the
    vocabulary is sorted by frequency), so only the first k ids missing from the support
    can compete with it.
    """
    inside = p.support_set
    candidates = list(p.support)
    vocab_size = len(p.base)
    added, w = 0, 0
    while added < k and w < vocab_size:
        if w not in inside:
            candidates.append(w)
            added += 1
        w += 1
    values = p.probs_at(candidates)
    ranked = sorted(zip(candidates, values), key=lambda pair: (-pair[1], pair[0]))
    return ranked[:k]


def clean(x: float) -> float:
    """Remainders computed by subtraction: a rounding residue of either sign becomes 0."""
    return 0.0 if abs(x) < 1e-12 else x


def exactness_table(language, context: list[int], draft_name: str, top: int) -> dict:
    """Why a speculative token follows p, token by token, at one context.

    Per token x: p(x), q(x), min = min(p(x), q(x)) (the chance x is guessed and kept) and
    residual_share = (1 - beta) * residual(x) (the chance a guess is rejected and x is written
    instead), with min + residual_share = p(x) up to float rounding. "other" aggregates every
    other token (its fields are 1 or beta minus the rows shown).
    """
    p = language.target.sparse(context)
    q = language.draft(draft_name).sparse(context)
    residual = residual_of(p, q)
    beta = residual.beta
    rejected = 1.0 - beta
    rows = []
    for token_id, p_x in top_by_p(p, top):
        q_x = q.prob(token_id)
        rows.append({"id": token_id, "text": language.vocab[token_id], "p": p_x, "q": q_x,
                     "min": p_x if p_x < q_x else q_x,
                     "residual_share": rejected * residual.prob(token_id)})
    other = {"id": OTHER_ID, "text": None,
             "p": clean(1.0 - math.fsum(r["p"] for r in rows)),
             "q": clean(1.0 - math.fsum(r["q"] for r in rows)),
             "min": clean(beta - math.fsum(r["min"] for r in rows)),
             "residual_share": clean(rejected - math.fsum(r["residual_share"] for r in rows))}
    return {"beta": beta, "tokens": rows, "other": other}


def exactness(language, context: list[int], draft: str, top: int) -> dict:
    """The `exactness` command: the table at a context, with the context."""
    table = exactness_table(language, context, draft, top)
    return {"context": context, "context_text": language.decode(context), "draft": draft, **table}


# --- step --------------------------------------------------------------------------------------------

def written_tokens(language, kept: list[int], replacement: int | None, bonus: int | None):
    """(what a pass wrote, each token marked kept, replacement or bonus; the replacement; the bonus)."""
    written = [{"id": t, "text": language.vocab[t], "kind": "kept"} for t in kept]
    if replacement is not None:
        replacement = token(language, replacement)
        written.append({**replacement, "kind": "replacement"})
    if bonus is not None:
        bonus = token(language, bonus)
        written.append({**bonus, "kind": "bonus"})
    return written, replacement, bonus


def step(language, settings: Settings, context: list[int], step_index: int = 0, exactness_top: int = 8,
         residuals: bool = False) -> dict:
    """One speculative pass after the context over the settings' tree, described for drawing.

    exactness_top: rows of the exactness table at the step's first position (0 leaves the table
    out). residuals: each rejected candidate says what the next one is checked against (O(V)).
    Random source: (seed, step_index).
    """
    rng = rng_for(settings.seed, STREAM_STEP, step_index)
    shown = tree_pass(language, settings, context, rng, residuals)
    trace = shown["trace"]
    n_kept = len(trace.path)
    written, replacement, bonus = written_tokens(language, trace.written[:n_kept], trace.replacement, trace.bonus)
    return {
        "context": list(context),
        "context_text": language.decode(context),
        "settings": settings.as_json(),
        "step_index": step_index,
        "guesses": shown["guesses"],
        "positions": shown["positions"],
        "widths": list(trace.widths),
        "n_checked": trace.n_checked,
        "n_kept": n_kept,
        "replacement": replacement,
        "bonus": bonus,
        "written": written,
        "written_text": [w["text"] for w in written],
        "written_display": language.decode(trace.written),
        "n_written": len(trace.written),
        "lanes_per_sequence": trace.lanes,  # the tree's nodes and the context's last position
        "lanes": settings.batch * trace.lanes,
        "exactness": (exactness_table(language, context, settings.draft, exactness_top)
                      if exactness_top else None),
        "python": which_python(),
    }
