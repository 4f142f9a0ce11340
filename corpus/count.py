"""Count unigrams, bigrams and trigrams with numpy, in the layout the JSON export uses."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np


@dataclass
class NgramLevel:
    """Continuations grouped by history, histories sorted: a compressed sparse row table.

    history has one row per distinct history (one column per history token, oldest first);
    types[i] continuations of history i follow one another in next/count.
    """

    history: np.ndarray  # shape (H, order-1)
    types: np.ndarray  # distinct continuations per history (Witten-Bell's T(h))
    total: np.ndarray  # tokens seen after each history (Witten-Bell's c(h))
    next: np.ndarray
    count: np.ndarray


@dataclass
class Counts:
    vocab: list[str]
    unigram: np.ndarray
    bigram: NgramLevel
    trigram: NgramLevel


def build_vocab(tokens: list[str]) -> list[str]:
    """Most frequent first, ties by code point, so ids are stable for the same text."""
    freq = Counter(tokens)
    return sorted(freq, key=lambda t: (-freq[t], t))


def _level(ids: np.ndarray, order: int, size: int) -> NgramLevel:
    n = len(ids) - order + 1
    code = np.zeros(max(n, 0), dtype=np.int64)
    for k in range(order):
        code = code * size + ids[k : k + n]
    grams, counts = np.unique(code, return_counts=True)
    hist_code, nxt = np.divmod(grams, size)
    hists, types = np.unique(hist_code, return_counts=True)
    starts = np.concatenate(([0], np.cumsum(types)[:-1])) if len(types) else np.zeros(0, np.int64)
    total = np.add.reduceat(counts, starts) if len(types) else np.zeros(0, np.int64)
    columns = []
    rest = hists
    for _ in range(order - 1):
        rest, col = np.divmod(rest, size)
        columns.append(col)
    history = np.stack(columns[::-1], axis=1) if columns else np.zeros((0, order - 1), np.int64)
    return NgramLevel(history, types, total, nxt, counts)


def count_ngrams(tokens: list[str]) -> Counts:
    if len(tokens) < 3:
        raise ValueError(f"need at least 3 tokens to count trigrams, got {len(tokens)}")
    vocab = build_vocab(tokens)
    index = {t: i for i, t in enumerate(vocab)}
    ids = np.fromiter((index[t] for t in tokens), dtype=np.int64, count=len(tokens))
    unigram = np.bincount(ids, minlength=len(vocab))
    size = len(vocab)
    return Counts(vocab, unigram, _level(ids, 2, size), _level(ids, 3, size))
