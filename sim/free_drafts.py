"""Drafts without a second model, as engines serve them: prompt lookup, suffix decoding and heads.

Each source chooses its guesses (sim.guess_tree checks them as point masses, exactly) from what
it may see: the prompt, the text written so far, the session's earlier outputs, the target's book.

- "lookup" (prompt lookup; vLLM's `ngram` method): the last n tokens of the prompt and the text so
  far, for n from LOOKUP_MAX down to LOOKUP_MIN, are looked for earlier in that same text; at the
  first n that occurs, the guesses are the (up to) gamma tokens that followed its most recent
  earlier occurrence. Fewer when the text ends sooner, none when nothing matches. vLLM's proposer
  (vllm/v1/spec_decode/ngram_proposer.py) also takes the longest n in [prompt_lookup_min,
  prompt_lookup_max]; among the occurrences of that n-gram it takes the earliest, we the most
  recent (llama.cpp's lookup and the prompt-lookup-decoding reference scan from the end too).
  LOOKUP_MIN is 2 because the target is a trigram: a two-token match is the context the target
  itself reads, and one token matches nearly everywhere in a text of a few hundred tokens.
- "suffix" (suffix decoding, Oliaro et al. 2024, arXiv:2411.04975; ArcticInference, which vLLM's
  `suffix` method calls): a suffix tree, cut at SUFFIX_DEPTH tokens, over the prompt and the text
  written so far, and another over the session's earlier outputs. The longest suffix of the text
  found in a tree, up to SUFFIX_DEPTH - 1 tokens, is a match (the depth bounds a match and its
  guesses together, as ArcticInference's max_tree_depth does, so every match length is tried and
  the best tree kept); from its node the guesses grow best first, each node scored by its chance along the path (count of the child / count of the
  node, multiplied down), kept while the score is at least SUFFIX_MIN_PROB, for at most
  SUFFIX_SPEC_FACTOR x the match's length nodes (so the tree grows with the match) and at most the
  bench's lanes (gamma x candidates) nodes, gamma levels deep. Of the two trees' speculations the
  one with the larger total score is checked (as ArcticInference does). vLLM's defaults:
  max_tree_depth 24, max_spec_factor 1.0, min_token_prob 0.1; the bench's texts are a few hundred
  tokens, so 16 levels reach as deep as any pass can use (gamma <= 8, a match >= gamma).
- "heads" (Medusa, Cai et al. 2024, arXiv:2401.10774; the MTP layers of DeepSeek-V3 and others):
  head j guesses the token j places ahead from the position the pass starts at alone, never from
  the guesses before it. Here a head is counted from the target's own book as a skip-gram: how
  often token w stood j places after token a (SkipGramHeads); head j's guesses are its likeliest
  w after the text's last token. A line takes each head's likeliest; with the bench's widths
  (k, 1, ..., 1) the first level holds head 1's k likeliest, each continued by the other heads'
  likeliest (GuessTree.by_levels, the product of each level's tokens, as Medusa's trees are).

Cost c of a source's guesses, as a share of one pass of the target (draft_cost): lookup and
suffix run no model (a search over a few thousand tokens on the CPU, against a pass of the GPU:
the bench counts 0); a head is one more layer and an output projection of its own, run on the
target's last hidden state (sim.roofline.head_cost), so gamma heads add gamma x that.
"""

from __future__ import annotations

import heapq
from collections import Counter

from . import roofline as rl
from .guess_tree import GuessTree

SOURCES = ("lookup", "suffix", "heads")
PROMPT_SOURCES = ("lookup", "suffix")  # the sources that search a prompt (heads read the last token alone)

LOOKUP_MAX = 3
LOOKUP_MIN = 2

SUFFIX_DEPTH = 16
SUFFIX_SPEC_FACTOR = 1.0
SUFFIX_MIN_PROB = 0.1


# --- prompt lookup -----------------------------------------------------------------------------------

def lookup_guesses(text, gamma: int, n_max: int = LOOKUP_MAX, n_min: int = LOOKUP_MIN) -> list[int]:
    """The tokens that followed the most recent earlier occurrence of the text's last n tokens,
    n from n_max down to n_min (the first n that occurs); [] when none does."""
    size = len(text)
    for n in range(min(n_max, size - 1), n_min - 1, -1):
        tail = text[size - n:]
        for start in range(size - n - 1, -1, -1):  # most recent first; the tail itself excluded
            if text[start:start + n] == tail:
                follow = start + n
                return list(text[follow:follow + gamma])
    return []


class PromptLookup:
    """Prompt lookup: a line of guesses from the text itself; candidates play no part (one
    earlier occurrence gives one continuation). The n-grams of a request's text are indexed as it
    grows (each n-gram's latest start), so a pass costs O(n_max), not a scan of the text; the
    guesses are lookup_guesses' own."""

    name = "lookup"

    def __init__(self, n_max: int = LOOKUP_MAX, n_min: int = LOOKUP_MIN):
        if not 1 <= n_min <= n_max:
            raise ValueError(f"prompt lookup needs 1 <= n_min <= n_max, got {n_min}, {n_max}")
        self.n_max, self.n_min = n_max, n_min
        self.begin([])

    def begin(self, prompt) -> None:
        """A new request: its text is indexed afresh (lookup keeps nothing between requests)."""
        self.latest: dict[tuple, int] = {}  # n-gram -> its latest start, among those ending before the last token
        self.indexed = 0  # n-grams ending before this position are in `latest`

    def propose(self, text, widths) -> GuessTree:
        size = len(text)
        if size - 1 < self.indexed:
            raise ValueError("prompt lookup: the text of a request only grows; call begin for a new one")
        for end in range(self.indexed + 1, size):  # n-grams text[end - n:end], end <= size - 1
            for n in range(self.n_min, min(self.n_max, end) + 1):
                self.latest[tuple(text[end - n:end])] = end - n
        self.indexed = max(self.indexed, size - 1)
        for n in range(min(self.n_max, size - 1), self.n_min - 1, -1):
            start = self.latest.get(tuple(text[size - n:]))
            if start is not None:
                return GuessTree.line(text[start + n:start + n + len(widths)])
        return GuessTree([], [])

    def end(self, output) -> None:
        """A request's output is done: nothing to keep."""


# --- suffix decoding ---------------------------------------------------------------------------------

class _Node:
    __slots__ = ("count", "children")

    def __init__(self):
        self.count = 0
        self.children: dict[int, _Node] = {}


class SuffixIndex:
    """A suffix tree cut at `depth` tokens over some documents: every substring of up to `depth`
    tokens is a path from the root, and each node counts where its path occurs. Documents grow
    token by token (extend), so the text of a request is indexed as it is written."""

    def __init__(self, depth: int = SUFFIX_DEPTH):
        self.depth = depth
        self.root = _Node()
        self._open: dict = {}  # document -> nodes of its last depth - 1 suffixes, shortest first

    def extend(self, document, tokens) -> None:
        """Append tokens to a document, counting every new substring up to `depth` long."""
        open_nodes = self._open.get(document, [])
        for token in tokens:
            grown = []
            for node in [self.root, *open_nodes]:
                child = node.children.get(token)
                if child is None:
                    child = node.children[token] = _Node()
                child.count += 1
                grown.append(child)
            open_nodes = grown[:self.depth - 1]
        self._open[document] = open_nodes

    def matches(self, text) -> list:
        """(length, node) of every suffix of text found, up to depth - 1 tokens, longest first
        (a suffix is found only if every shorter one is)."""
        found = []
        for n in range(1, min(self.depth - 1, len(text)) + 1):
            node = self.root
            for token in text[len(text) - n:]:
                node = node.children.get(token)
                if node is None:
                    return found[::-1]
            found.append((n, node))
        return found[::-1]

    def speculate(self, text, levels: int, budget: int, factor: float = SUFFIX_SPEC_FACTOR,
                  min_prob: float = SUFFIX_MIN_PROB) -> tuple[GuessTree, float]:
        """(tree, score): of the trees grown from each suffix of the text found (grow), the one
        with the largest score, the longer match on a tie (ArcticInference tries every match
        length too: a long match leaves the cut tree few levels below it)."""
        best = (GuessTree([], []), 0.0)
        for length, top in self.matches(text):
            grown = grow(top, min(levels, self.depth - length), min(budget, int(factor * length)), min_prob)
            if grown[1] > best[1]:
                best = grown
        return best


def grow(top: _Node, levels: int, budget: int, min_prob: float) -> tuple[GuessTree, float]:
    """The guesses below a matched node, best first: each node scored by its chance along the
    path (count of the child / count of its parent, multiplied down), taken while the score is at
    least min_prob, at most `budget` nodes and `levels` deep; (tree, sum of the scores)."""
    tokens, parents, score = [], [], 0.0
    if budget < 1 or levels < 1:
        return GuessTree(tokens, parents), score
    heap, order = [], 0
    for token, child in top.children.items():  # (-score, token, order, node, parent, depth)
        heap.append((-child.count / top.count, token, order, child, None, 1))
        order += 1
    heapq.heapify(heap)
    while heap and len(tokens) < budget:
        neg, token, _, node, parent, depth = heapq.heappop(heap)
        if -neg < min_prob:
            break
        tokens.append(token)
        parents.append(parent)
        score += -neg
        if depth < levels:
            here = len(tokens) - 1
            for t, child in node.children.items():
                heapq.heappush(heap, (neg * child.count / node.count, t, order, child, here, depth + 1))
                order += 1
    return GuessTree(tokens, parents), score


class SuffixDecoding:
    """Suffix decoding over the prompt and text of the request in hand, and the session's earlier
    outputs. The request's tree is made afresh at begin; end adds its output to the session's."""

    name = "suffix"

    def __init__(self, depth: int = SUFFIX_DEPTH, factor: float = SUFFIX_SPEC_FACTOR,
                 min_prob: float = SUFFIX_MIN_PROB):
        self.depth, self.factor, self.min_prob = depth, factor, min_prob
        self.outputs = SuffixIndex(depth)
        self.request = SuffixIndex(depth)
        self.indexed = 0  # tokens of the request's text in self.request
        self.finished = 0  # outputs in self.outputs

    def begin(self, prompt) -> None:
        self.request = SuffixIndex(self.depth)
        self.indexed = 0

    def propose(self, text, widths) -> GuessTree:
        if len(text) - 1 < self.indexed:
            raise ValueError("suffix decoding: the text of a request only grows; call begin for a new one")
        # Index all but the last token: the match is a suffix of the text, whose own last
        # occurrence must not be its only match (as for lookup, an earlier occurrence is needed).
        if len(text) - 1 > self.indexed:
            self.request.extend("request", text[self.indexed:len(text) - 1])
            self.indexed = len(text) - 1
        budget = sum(_level_sizes(widths))
        mine = self.request.speculate(text, len(widths), budget, self.factor, self.min_prob)
        theirs = self.outputs.speculate(text, len(widths), budget, self.factor, self.min_prob)
        return theirs[0] if theirs[1] > mine[1] else mine[0]

    def end(self, output) -> None:
        self.outputs.extend(self.finished, output)
        self.finished += 1


def _level_sizes(widths) -> list[int]:
    sizes, level = [], 1
    for w in widths:
        level *= w
        sizes.append(level)
    return sizes


# --- heads -------------------------------------------------------------------------------------------

class SkipGramHeads:
    """Heads counted from a token stream: head j's guesses after token a are the tokens w most
    often seen j places after a (ties to the lower id), at most `top` of them, for j = 1..heads."""

    name = "heads"

    def __init__(self, ids, heads: int, top: int):
        self.heads, self.top = heads, top
        self.table: list[dict[int, list[int]]] = []
        for j in range(1, heads + 1):
            pairs = Counter(zip(ids, ids[j:]))
            rows: dict[int, list[tuple[int, int]]] = {}
            for (a, w), count in pairs.items():
                rows.setdefault(a, []).append((-count, w))
            self.table.append({a: [w for _, w in sorted(row)[:top]] for a, row in rows.items()})

    def to_doc(self) -> dict:
        """The table as JSON: {"heads", "top", "rows": per head, [[a, w1, w2, ...], ...] by a}."""
        return {"heads": self.heads, "top": self.top,
                "rows": [[[a, *row] for a, row in sorted(table.items())] for table in self.table]}

    @classmethod
    def from_doc(cls, doc: dict) -> SkipGramHeads:
        """The table of to_doc (a model file's optional "heads" section, sim.models)."""
        heads = cls.__new__(cls)
        heads.heads, heads.top = doc["heads"], doc["top"]
        if len(doc["rows"]) != heads.heads:
            raise ValueError(f"heads: {len(doc['rows'])} tables for {heads.heads} heads")
        heads.table = [{row[0]: list(row[1:heads.top + 1]) for row in rows} for rows in doc["rows"]]
        return heads

    def guesses(self, last: int, j: int, k: int) -> list[int]:
        """Head j's k likeliest tokens after `last` ([] when the book never had a token there)."""
        return self.table[j - 1].get(last, [])[:k]

    def begin(self, prompt) -> None:
        """Heads keep nothing between requests."""

    def propose(self, text, widths) -> GuessTree:
        if len(widths) > self.heads or max(widths) > self.top:
            raise ValueError(f"these heads guess {self.heads} places ahead, {self.top} tokens each; "
                             f"asked for widths {list(widths)}")
        if not text:
            return GuessTree([], [])
        levels = []
        for j, k in enumerate(widths, 1):
            level = self.guesses(text[-1], j, k)
            if not level:
                break
            levels.append(level)
        return GuessTree.by_levels(levels)

    def end(self, output) -> None:
        """Heads keep nothing between requests."""


# --- cost ---------------------------------------------------------------------------------------------

FREE_COST = 0.0  # lookup and suffix: a search on the CPU, no model run


def draft_cost(source: str, gamma: int, model: str = rl.DEFAULT_MODEL) -> float:
    """The guesses' cost per pass, as a share of one pass of the target: 0 for lookup and suffix,
    gamma heads' for heads (sim.roofline.head_cost on the bench's model)."""
    if source not in SOURCES:
        raise ValueError(f"unknown draft source {source!r}; choose one of {list(SOURCES)}")
    return gamma * rl.head_cost(rl.model(model)) if source == "heads" else FREE_COST
