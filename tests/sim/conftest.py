"""Fixtures for the sim tests: tiny models counted by hand (the real ones are in tests/conftest.py)."""

from __future__ import annotations

from collections import Counter

import pytest

from sim.models import load_language


# --- tiny models, counted by hand (no numpy, no corpus package) -----------------------------

TINY_TEXT = "a b a c a b b d a c e a b a a d c b a e b c a"


def counts_doc(tokens: list[str], lang: str = "en") -> dict:
    """A "specdec-ngram/1" document counted in plain Python (the format, written out by hand)."""
    freq = Counter(tokens)
    vocab = sorted(freq, key=lambda t: (-freq[t], t))
    index = {t: i for i, t in enumerate(vocab)}
    ids = [index[t] for t in tokens]

    def table(order: int) -> dict:
        grams = Counter(tuple(ids[i : i + order]) for i in range(len(ids) - order + 1))
        histories = sorted({g[:-1] for g in grams})
        out = {"history": [[h[k] for h in histories] for k in range(order - 1)],
               "types": [], "total": [], "next": [], "count": []}
        for h in histories:
            continuations = sorted((g[-1], c) for g, c in grams.items() if g[:-1] == h)
            out["types"].append(len(continuations))
            out["total"].append(sum(c for _, c in continuations))
            out["next"].extend(w for w, _ in continuations)
            out["count"].extend(c for _, c in continuations)
        return out

    return {"format": "specdec-ngram/1", "lang": lang, "sources": [], "tokens": len(ids),
            "vocab": vocab, "unigram": [freq[t] for t in vocab],
            "bigram": table(2), "trigram": table(3)}


@pytest.fixture(scope="session")
def tiny_doc() -> dict:
    return counts_doc(TINY_TEXT.split())


@pytest.fixture(scope="session")
def tiny(tiny_doc):
    return load_language(tiny_doc)
