import numpy as np
import pytest

from corpus.count import build_vocab, count_ngrams

# "a b a b c a b": counts anyone can check by hand.
TOKENS = "a b a b c a b".split()


def test_vocabulary_is_ordered_by_frequency_then_code_point():
    assert build_vocab(TOKENS) == ["a", "b", "c"]
    assert build_vocab(["z", "y", "z", "y", "x"]) == ["y", "z", "x"]


def test_unigram_counts():
    counts = count_ngrams(TOKENS)
    assert counts.unigram.tolist() == [3, 3, 1]  # a, b, c


def test_bigram_table_by_history():
    b = count_ngrams(TOKENS).bigram
    # histories a, b, c (ids 0, 1, 2); a->b x3; b->a x1, b->c x1; c->a x1
    assert b.history[:, 0].tolist() == [0, 1, 2]
    assert b.types.tolist() == [1, 2, 1]
    assert b.total.tolist() == [3, 2, 1]
    assert b.next.tolist() == [1, 0, 2, 0]
    assert b.count.tolist() == [3, 1, 1, 1]


def test_trigram_table_by_history():
    t = count_ngrams(TOKENS).trigram
    # trigrams aba, bab, abc, bca, cab: (a,b)->a, (a,b)->c, (b,a)->b, (b,c)->a, (c,a)->b
    assert t.history.tolist() == [[0, 1], [1, 0], [1, 2], [2, 0]]
    assert t.types.tolist() == [2, 1, 1, 1]
    assert t.total.tolist() == [2, 1, 1, 1]
    assert t.next.tolist() == [0, 2, 1, 0, 1]
    assert t.count.tolist() == [1, 1, 1, 1, 1]


def test_counts_add_up():
    counts = count_ngrams(TOKENS)
    assert counts.bigram.count.sum() == len(TOKENS) - 1
    assert counts.trigram.count.sum() == len(TOKENS) - 2
    assert counts.bigram.types.sum() == len(counts.bigram.next)
    assert np.array_equal(counts.unigram, np.bincount([0, 1, 0, 1, 2, 0, 1]))


def test_too_short_text_is_refused():
    with pytest.raises(ValueError, match="at least 3 tokens"):
        count_ngrams(["a", "b"])
