"""Write a language's counts as compact, byte-stable JSON for the sim package."""

from __future__ import annotations

from sim.counting import dump
from sim.models import FORMAT  # the reader defines the format; the writer follows it

from .count import Counts, NgramLevel


def _level_json(level: NgramLevel) -> dict:
    return {
        "history": [row.tolist() for row in level.history.T],
        "types": level.types.tolist(),
        "total": level.total.tolist(),
        "next": level.next.tolist(),
        "count": level.count.tolist(),
    }


def to_json(lang: str, counts: Counts, sources: list[dict]) -> str:
    """Vocabulary once, then integer arrays: small to ship and cheap to parse in Pyodide.

    history holds one array per history position, oldest first; the continuations of
    history i are the next `types[i]` entries of next/count.
    """
    doc = {
        "format": FORMAT,
        "lang": lang,
        "sources": sources,
        "tokens": int(counts.unigram.sum()),
        "vocab": counts.vocab,
        "unigram": counts.unigram.tolist(),
        "bigram": _level_json(counts.bigram),
        "trigram": _level_json(counts.trigram),
    }
    return dump(doc)


def size_report(lang: str, counts: Counts, text: str) -> str:
    return (
        f"model {lang}: vocabulary {len(counts.vocab):,}, tokens {int(counts.unigram.sum()):,}, "
        f"bigram types {len(counts.bigram.next):,} over {len(counts.bigram.types):,} histories, "
        f"trigram types {len(counts.trigram.next):,} over {len(counts.trigram.types):,} histories, "
        f"{len(text.encode('utf-8')):,} bytes"
    )
