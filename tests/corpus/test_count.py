"""The one counter of the page's models (sim/counting.py), as the build uses it (sitebuild/counting.py)."""

import json
import random

import pytest
from helpers.owntext_fixtures import own_texts

from helpers import corpus_models
from corpus.sources import corpus_dir
from sim import owntext
from sim.counting import build_vocab, count_document, dump
from sim.models import FORMAT
from sitebuild.counting import model_of_texts, read_books

# "a b a b c a b": counts anyone can check by hand.
TOKENS = "a b a b c a b".split()


def test_vocabulary_is_ordered_by_frequency_then_code_point():
    assert build_vocab({"a": 3, "b": 3, "c": 1}) == ["a", "b", "c"]
    assert build_vocab({"z": 2, "y": 2, "x": 1}) == ["y", "z", "x"]


def test_unigram_bigram_and_trigram_tables_by_hand():
    doc = count_document("en", TOKENS, [])
    assert doc["vocab"] == ["a", "b", "c"] and doc["unigram"] == [3, 3, 1] and doc["tokens"] == 7
    # histories a, b, c (ids 0, 1, 2); a->b x3; b->a x1, b->c x1; c->a x1
    assert doc["bigram"] == {"history": [[0, 1, 2]], "types": [1, 2, 1], "total": [3, 2, 1],
                             "next": [1, 0, 2, 0], "count": [3, 1, 1, 1]}
    # trigrams aba, bab, abc, bca, cab: (a,b)->a, (a,b)->c, (b,a)->b, (b,c)->a, (c,a)->b
    assert doc["trigram"] == {"history": [[0, 1, 1, 2], [1, 0, 2, 0]], "types": [2, 1, 1, 1],
                              "total": [2, 1, 1, 1], "next": [0, 2, 1, 0, 1], "count": [1, 1, 1, 1, 1]}


def test_random_token_streams_list_every_gram_once_with_its_occurrences():
    """Small vocabularies and repeats, where ties in frequency and shared histories abound: each
    table row's count is how often that n-gram occurs in the stream, and none is missing."""
    rng = random.Random(5)
    for size in (1, 2, 3, 7, 40):
        for length in (3, 4, 10, 200):
            tokens = [f"w{rng.randrange(size)}" for _ in range(length)]
            doc = count_document("en", tokens, [])
            ids = [doc["vocab"].index(t) for t in tokens]
            for order, level in ((2, doc["bigram"]), (3, doc["trigram"])):
                grams = [tuple(ids[i:i + order]) for i in range(len(ids) - order + 1)]
                listed, at = [], 0
                for row, n in enumerate(level["types"]):
                    history = tuple(column[row] for column in level["history"])
                    rows = list(zip(level["next"][at:at + n], level["count"][at:at + n]))
                    assert sum(c for _, c in rows) == level["total"][row]
                    listed += [(history + (token,), c) for token, c in rows]
                    at += n
                assert [g for g, _ in listed] == sorted(set(grams))
                assert all(grams.count(g) == c for g, c in listed)


def test_the_model_file_is_compact_byte_stable_json():
    tokens = "the cat sat on the mat . the cat ran .".split()
    model = model_of_texts("en", [" ".join(tokens)], [{"path": "x", "sha256": "0"}])
    doc = json.loads(model.json_text)
    assert doc["format"] == FORMAT and doc["vocab"][0] == "the" and doc["tokens"] == len(tokens)
    assert model.json_text == model_of_texts("en", [" ".join(tokens)], [{"path": "x", "sha256": "0"}]).json_text
    assert ", " not in model.json_text and '": ' not in model.json_text  # no padding
    assert "vocabulary 7" in model.report and model.report.endswith(f"{len(model.json_text.encode()):,} bytes")


@pytest.mark.parametrize("lang", corpus_models.LANGS)
def test_a_pasted_text_counts_as_the_build_would(lang):
    """Every fixture, and a book pasted whole with its Gutenberg header, counted as the worker
    counts it (sim.owntext: its checks and cleaning), gives the model the build writes for that
    text (the build's tokeniser and reader of the books)."""
    texts = dict(own_texts(lang))
    texts["book"] = read_books(lang, corpus_dir())[0]
    for name, text in texts.items():
        assert dump(owntext.count_text(lang, text)) == model_of_texts(lang, [text], []).json_text, name


def test_too_short_text_is_refused():
    with pytest.raises(ValueError, match="at least 3 tokens"):
        count_document("en", ["a", "b"], [])
