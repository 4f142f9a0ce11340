"""Count a token list into the model document that sim.models loads ("specdec-ngram/1").

Pure standard library, so the worker (Pyodide core) counts a reader's text with the very code
that describes the format; the build counts the books with it too (sitebuild/counting.py), so
every model the page runs comes from this one counter (tests/corpus/test_count.py).

Layout, as the loader reads it: the vocabulary most frequent first (ties by code point), the
unigram counts in that order, then one compressed sparse row table per order: histories sorted
(one column per history position, oldest first), and after each history its continuations in
id order with their counts, types[i] of them; total[i] is their sum.
"""

from __future__ import annotations

import json
from collections import Counter

from .models import FORMAT

STAGES = ("tokens", "unigram", "bigram", "trigram", "models")  # what progress() reports, in order


def build_vocab(freq: Counter) -> list[str]:
    """Most frequent first, ties by code point, so ids are stable for the same text."""
    return sorted(freq, key=lambda t: (-freq[t], t))


def level_table(grams: Counter, order: int) -> dict:
    """One order's CSR table from its n-gram counts (keys: tuples of ids)."""
    columns: list[list[int]] = [[] for _ in range(order - 1)]
    types: list[int] = []
    total: list[int] = []
    nexts: list[int] = []
    counts: list[int] = []
    last = None
    for gram in sorted(grams):
        history, token = gram[:-1], gram[-1]
        count = grams[gram]
        if history != last:
            for column, value in zip(columns, history):
                column.append(value)
            types.append(0)
            total.append(0)
            last = history
        types[-1] += 1
        total[-1] += count
        nexts.append(token)
        counts.append(count)
    return {"history": columns, "types": types, "total": total, "next": nexts, "count": counts}


def count_document(lang: str, tokens: list[str], sources: list, progress=None, heads: int = 0,
                   heads_top: int = 1) -> dict:
    """The model document of a token list; progress(stage) is told as each stage begins. With
    heads > 0 it also holds the skip-gram heads of sim.free_drafts (heads_top tokens each), which
    the "heads" draft needs and no other part reads."""
    if len(tokens) < 3:
        raise ValueError(f"need at least 3 tokens to count trigrams, got {len(tokens)}")
    tell = progress or (lambda stage: None)
    tell("unigram")
    freq = Counter(tokens)
    vocab = build_vocab(freq)
    index = {t: i for i, t in enumerate(vocab)}
    ids = [index[t] for t in tokens]
    tell("bigram")
    bigram = level_table(Counter(zip(ids, ids[1:])), 2)
    tell("trigram")
    trigram = level_table(Counter(zip(ids, ids[1:], ids[2:])), 3)
    extra = {}
    if heads:
        from .free_drafts import SkipGramHeads

        extra["heads"] = SkipGramHeads(ids, heads, heads_top).to_doc()
    return {
        **extra,
        "format": FORMAT,
        "lang": lang,
        "sources": sources,
        "tokens": len(tokens),
        "vocab": vocab,
        "unigram": [freq[t] for t in vocab],
        "bigram": bigram,
        "trigram": trigram,
    }


def dump(doc: dict) -> str:
    """The document as compact, byte-stable JSON (the one writer of the model files)."""
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"), sort_keys=True) + "\n"
