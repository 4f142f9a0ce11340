"""The bench's n-gram models, loaded from the "specdec-ngram/1" JSON the corpus build writes.

Interpolated Witten-Bell smoothing (Witten and Bell 1991; the interpolated form as in Chen
and Goodman 1998):

    P1(w)       = c(w) / N
    P2(w | a)   = (c(a, w)    + T(a)    * P1(w))     / (c(a)    + T(a))      no row for a:    P1
    P3(w | b,a) = (c(b, a, w) + T(b, a) * P2(w | a)) / (c(b, a) + T(b, a))   no row for b,a:  P2

T(h) = distinct continuations seen after h, c(h) = tokens seen after h. A context shorter than
the model's order uses what there is (an empty context gives P1).

Each model answers in two ways:
- `distribution(context)`: the dense list of V probabilities, computed straight from the
  JSON arrays. It is the reference; with exact=True it returns fractions.Fraction values.
- `sparse(context)`: a sim.sparse.ChainDistribution, the fast path the sampler uses. Its
  probabilities are the same floats, bit for bit.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from fractions import Fraction
from itertools import accumulate

from . import text as text_module
from .sparse import ChainDistribution, Row, Unigram

FORMAT = "specdec-ngram/1"
DRAFT_NAMES = ("bigram", "unigram", "same")
TAIL_CACHE_SIZE = 100_000  # contexts remembered per model; cleared when full


def int_table(values: list, order: int, name: str) -> array:
    """A column of a table as array("i") (4 bytes an entry), not a list of int objects: the page's
    memory snapshot holds the opened model, and its lists of ints (a pointer and, past 255, an
    int object of their own per entry) were a fifth of what the session added to it."""
    try:
        return array("i", values)
    except (TypeError, OverflowError) as error:
        raise ValueError(f"order-{order} table, {name}: {error}") from None


class Level:
    """One CSR table of the JSON (bigram or trigram): finds a history's row, builds rows lazily.
    Its columns are arrays (int_table); the rows it builds hold lists, as the fast path expects."""

    def __init__(self, table: dict, order: int, vocab_size: int):
        columns = table["history"]
        if len(columns) != order - 1:
            raise ValueError(f"order-{order} table needs {order - 1} history columns, got {len(columns)}")
        self.order = order
        self.columns = [int_table(c, order, "history") for c in columns]
        self.types = int_table(table["types"], order, "types")
        self.total = int_table(table["total"], order, "total")
        self.next = int_table(table["next"], order, "next")
        self.count = int_table(table["count"], order, "count")
        self.offsets = array("i", [0, *accumulate(self.types)])
        if any(len(c) != len(self.types) for c in columns) or len(self.total) != len(self.types):
            raise ValueError(f"order-{order} table: history/types/total lengths differ")
        if self.offsets[-1] != len(self.next) or len(self.next) != len(self.count):
            raise ValueError(f"order-{order} table: types do not add up to the continuations")
        self.vocab_size = vocab_size
        self._rows: dict[int, Row] = {}
        self._dense_index: dict[tuple, int] | None = None

    def find(self, history) -> int:
        """Row index of a history (oldest token first), or -1. Binary search, column by column."""
        lo, hi = 0, len(self.types)
        for column, token in zip(self.columns, history):
            lo = bisect_left(column, token, lo, hi)
            hi = bisect_right(column, token, lo, hi)
            if lo == hi:
                return -1
        return lo

    def row(self, index: int) -> Row:
        """The Row of the fast path, built on first use (loading stays cheap in the browser)."""
        row = self._rows.get(index)
        if row is None:
            start, end = self.offsets[index], self.offsets[index + 1]
            row = Row(self.next[start:end].tolist(), self.count[start:end].tolist())
            if row.seen != self.total[index] or row.types != self.types[index]:
                raise ValueError(
                    f"order-{self.order} table, row {index}: total/types disagree with the counts")
            self._rows[index] = row
        return row

    def dense_lookup(self, history: tuple) -> int:
        """The reference path's own lookup (a dict), independent of find()."""
        if self._dense_index is None:
            self._dense_index = {h: i for i, h in enumerate(zip(*self.columns))}
        return self._dense_index.get(tuple(history), -1)

    def dense_counts(self, index: int) -> tuple[list[int], int, int]:
        """Counts of row `index` over the whole vocabulary, with T(h) and c(h) + T(h)."""
        counts = [0] * self.vocab_size
        start, end = self.offsets[index], self.offsets[index + 1]
        for w, c in zip(self.next[start:end], self.count[start:end]):
            counts[w] = c
        return counts, self.types[index], self.total[index] + self.types[index]


class NgramModel:
    """An interpolated Witten-Bell model of a given order over a shared unigram base."""

    def __init__(self, name: str, order: int, base: Unigram, levels: list[Level]):
        self.name = name
        self.order = order
        self.base = base
        self.levels = levels  # orders 2..order, lowest first
        self.vocab_size = len(base)
        self._chains: dict[tuple, ChainDistribution] = {}
        self._by_tail: dict[tuple, ChainDistribution] = {}

    def __repr__(self) -> str:
        return f"<NgramModel {self.name} order={self.order} V={self.vocab_size}>"

    def check_context(self, context) -> list[int]:
        """The context as a list of ints, or a ValueError naming the bad entry."""
        ids = list(context)
        for t in ids:
            if type(t) is not int or not 0 <= t < self.vocab_size:
                raise ValueError(f"context token {t!r} is not a token id in 0..{self.vocab_size - 1}")
        return ids

    def sparse(self, context) -> ChainDistribution:
        """The distribution after `context` on the fast path.

        Cached twice: by the last order-1 tokens (one dict lookup on the hot path) and by
        the combination of rows found, so contexts that back off alike share one object.
        """
        tail = tuple(context[len(context) - self.order + 1:]) if self.order > 1 else ()
        chain = self._by_tail.get(tail)
        if chain is None:
            chain = self._chain_for(tail)
            if len(self._by_tail) >= TAIL_CACHE_SIZE:
                self._by_tail.clear()
            self._by_tail[tail] = chain
        return chain

    def _chain_for(self, tail: tuple) -> ChainDistribution:
        n = len(tail)
        key = tuple(
            level.find(tail[n - level.order + 1:]) if n >= level.order - 1 else -1
            for level in self.levels
        )
        chain = self._chains.get(key)
        if chain is None:
            rows = tuple(level.row(i) for level, i in zip(self.levels, key) if i >= 0)
            chain = ChainDistribution(rows, self.base)
            self._chains[key] = chain
        return chain

    def prob(self, context, token: int) -> float:
        return self.sparse(context).prob(token)

    def distribution(self, context, *, exact: bool = False) -> list:
        """Dense reference: V probabilities summing to 1 (floats, or Fractions if exact)."""
        context = self.check_context(context)
        if exact:
            n = self.base.tokens
            values = [Fraction(c, n) for c in self.base.counts]
        else:
            values = list(self.base.probs)
        for level in self.levels:
            h = level.order - 1
            if len(context) < h:
                continue
            index = level.dense_lookup(tuple(context[len(context) - h:]))
            if index < 0:
                continue
            counts, t, d = level.dense_counts(index)
            values = [(c + t * v) / d for c, v in zip(counts, values)]
        return values


class Language:
    """One language's vocabulary, target (trigram) and draft models.

    prefixes: for models counted from a reader's text, the token ids the bench starts from
    ({"bench": ids, "tube": ids}, see sim.owntext), since the books' fixed prefixes ("said
    the", "she said", "慢慢") may not occur in it; None for the books.
    heads: the skip-gram heads of sim.free_drafts, when the model file has a "heads" section.
    """

    def __init__(self, lang: str, vocab: list[str], target: NgramModel, drafts: dict[str, NgramModel],
                 prefixes: dict | None = None, heads=None):
        self.heads = heads  # sim.free_drafts.SkipGramHeads when the model file carries them, else None
        self.lang = lang
        self.vocab = vocab
        self.index = {t: i for i, t in enumerate(vocab)}
        self.target = target
        self.drafts = drafts
        self.prefixes = prefixes

    def __repr__(self) -> str:
        return f"<Language {self.lang} V={len(self.vocab)}>"

    def draft(self, name: str) -> NgramModel:
        try:
            return self.drafts[name]
        except KeyError:
            raise ValueError(f"unknown draft {name!r}; choose one of {list(self.drafts)}") from None

    def tokenize(self, text: str) -> list[str]:
        return text_module.tokenize(self.lang, text)

    def encode(self, text: str) -> list[int]:
        """Token ids of a text, tokenised as the corpus was; unknown tokens raise ValueError."""
        ids = []
        for token in self.tokenize(text):
            i = self.index.get(token)
            if i is None:
                raise ValueError(f"token {token!r} is not in the {self.lang} vocabulary")
            ids.append(i)
        return ids

    def decode(self, ids) -> str:
        vocab = self.vocab
        for i in ids:
            if type(i) is not int or not 0 <= i < len(vocab):
                raise ValueError(f"{i!r} is not a token id in 0..{len(vocab) - 1}")
        return text_module.detokenize(self.lang, [vocab[i] for i in ids])


def load_language(doc: dict) -> Language:
    """Build the models from a parsed model JSON. Cheap: per-history structures come later."""
    if doc.get("format") != FORMAT:
        raise ValueError(f"model format {doc.get('format')!r}, expected {FORMAT!r}")
    lang = doc["lang"]
    vocab = list(doc["vocab"])
    if len(set(vocab)) != len(vocab):
        raise ValueError("vocabulary has duplicate tokens")
    if len(doc["unigram"]) != len(vocab):
        raise ValueError("unigram counts and vocabulary differ in length")
    base = Unigram(doc["unigram"])
    if base.tokens != doc["tokens"]:
        raise ValueError(f"unigram counts add up to {base.tokens}, the model says {doc['tokens']} tokens")
    bigram_level = Level(doc["bigram"], 2, len(vocab))
    trigram_level = Level(doc["trigram"], 3, len(vocab))
    unigram = NgramModel("unigram", 1, base, [])
    bigram = NgramModel("bigram", 2, base, [bigram_level])
    trigram = NgramModel("trigram", 3, base, [bigram_level, trigram_level])
    drafts = {"bigram": bigram, "unigram": unigram, "same": trigram}
    heads = None
    if "heads" in doc:  # optional: the skip-gram heads counted from the same tokens (sim.counting)
        from .free_drafts import SkipGramHeads

        heads = SkipGramHeads.from_doc(doc["heads"])
    return Language(lang, vocab, trigram, drafts, heads=heads)
