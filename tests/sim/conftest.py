"""Fixtures for the sim tests: the real models counted from the shared corpus, and tiny ones.

The real models are built once per session, in memory, through the corpus package exactly as
the site build does (read the verified books, tokenise, count, export to JSON, parse).
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from sim.models import load_language


def build_model_doc(lang: str) -> dict:
    from corpus.sources import corpus_dir
    from sitebuild.counting import count_model

    return json.loads(count_model(lang, corpus_dir()).json_text)


@pytest.fixture(scope="session")
def sim_model_docs() -> dict[str, dict]:
    return {lang: build_model_doc(lang) for lang in ("en", "zh")}


@pytest.fixture(scope="session")
def sim_languages(sim_model_docs):
    return {lang: load_language(doc) for lang, doc in sim_model_docs.items()}


@pytest.fixture(scope="session")
def en(sim_languages):
    return sim_languages["en"]


@pytest.fixture(scope="session")
def zh(sim_languages):
    return sim_languages["zh"]


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
