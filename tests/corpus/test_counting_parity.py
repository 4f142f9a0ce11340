"""The build's numpy counts and the worker's pure-Python counts give byte-identical models.

The build counts the books with numpy (corpus/count.py, corpus/export.py); a reader's text is
counted in the browser by sim.counting through sim.owntext. Both must write the same model
document for the same text, or the bench would run on a different model than the one counted.
"""

from __future__ import annotations

import random

import pytest
from owntext_fixtures import own_texts

import corpus_models
from corpus import count, export, sources, tokenize
from corpus.sources import corpus_dir
from sim import owntext
from sim.counting import count_document, dump
from sitebuild.counting import read_books


def build_json(lang: str, text: str) -> str:
    """The build's way: its tokeniser (Gutenberg sentinels stripped), numpy counts, its writer."""
    return export.to_json(lang, count.count_ngrams(tokenize.tokenize(lang, text)), [])


@pytest.mark.parametrize("lang", corpus_models.LANGS)
def test_the_books_count_the_same_both_ways(lang):
    """The site's model file equals the pure-Python count of the same books' tokens."""
    tokens = [t for text in read_books(lang, corpus_dir()) for t in tokenize.tokenize(lang, text)]
    provenance = [{"path": b.path, "sha256": b.sha256} for b in sources.book_files(lang)]
    assert dump(count_document(lang, tokens, provenance)) == corpus_models.model_json(lang)


@pytest.mark.parametrize("lang", corpus_models.LANGS)
def test_a_pasted_text_counts_as_the_build_would(lang):
    """Every fixture, and a book pasted whole with its Gutenberg header, counted as the worker
    counts it (sim.owntext), gives the model the build writes for that text."""
    texts = dict(own_texts(lang))
    texts["book"] = read_books(lang, corpus_dir())[0]
    for name, text in texts.items():
        assert dump(owntext.count_text(lang, text)) == build_json(lang, text), name


def test_random_token_streams_count_the_same_both_ways():
    """Small vocabularies and repeats, where ties in frequency and shared histories abound."""
    rng = random.Random(5)
    for size in (1, 2, 3, 7, 40):
        for length in (3, 4, 10, 200):
            tokens = [f"w{rng.randrange(size)}" for _ in range(length)]
            assert dump(count_document("en", tokens, [])) == export.to_json("en", count.count_ngrams(tokens), [])
