"""Chosen guesses, checked as a tree: the check every draft without a second model shares.

Prompt lookup, suffix decoding and heads (sim.free_drafts) do not draw their guesses from a
distribution q: they choose them, a function of the text so far (and of the session's earlier
outputs), so each guess is a point mass. A GuessTree holds them as explicit nodes (a token and
its parent), which covers a line of guesses, the bench's widths per level (sim.tree) and the
irregular trees a suffix match grows; it may also be empty (nothing matched), and then the pass
is a plain step: the target writes one token of its own, as engines do.

The check is the "topk" rule of sim.candidates, node by node from the root: at each node its
children are checked in order, the j-th kept with p_j(x_j), where p_1 = p and p_{j+1} is p with
the refused children struck out; the first kept child is written and the walk goes on from it;
if all are refused, a token is drawn from what is left of p and the pass ends; at a kept leaf
the bonus token comes from p. Exact whatever the tree: at every node each child is offered with
certainty, so P(child x_j written) = p(x_j) and P(any other y) = p(y) (sim.candidates gives the
identity); the tree itself depends only on what was written before the pass.

Random numbers: one r per checked child, then the last draw (the replacement or the bonus).
Temperature 0 is greedy: a child is kept when it is the target's likeliest token, no r drawn.
"""

from __future__ import annotations

from dataclasses import dataclass

from .candidates import Verifier
from .tempering import check_sampling, tempered


class GuessTree:
    """Guessed tokens as nodes: parents[i] is the index of node i's parent (None at the top),
    always an earlier node. Siblings are distinct tokens, listed in the order they are checked."""

    __slots__ = ("tokens", "parents", "depths", "_children")

    def __init__(self, tokens, parents):
        self.tokens, self.parents = list(tokens), list(parents)
        if len(self.tokens) != len(self.parents):
            raise ValueError("a guess tree needs one parent per token")
        self.depths: list[int] = []
        self._children: dict = {None: []}
        for i, (token, parent) in enumerate(zip(self.tokens, self.parents)):
            if parent is not None and not (type(parent) is int and 0 <= parent < i):
                raise ValueError(f"node {i}: its parent must be an earlier node, got {parent!r}")
            siblings = self._children[parent]
            if any(self.tokens[j] == token for j in siblings):
                raise ValueError(f"node {i}: token {token} is already a child of node {parent}")
            siblings.append(i)
            self._children[i] = []
            self.depths.append(0 if parent is None else self.depths[parent] + 1)

    @classmethod
    def line(cls, tokens) -> GuessTree:
        """A line of guesses, each the child of the one before."""
        return cls(tokens, [None if i == 0 else i - 1 for i in range(len(tokens))])

    @classmethod
    def by_levels(cls, levels) -> GuessTree:
        """Every node at depth d gets the tokens levels[d] as children (levels a list of lists):
        a heads' tree, each head's likeliest tokens at its level."""
        tokens, parents, frontier = [], [], [None]
        for level in levels:
            next_frontier = []
            for parent in frontier:
                for token in level:
                    parents.append(parent)
                    tokens.append(token)
                    next_frontier.append(len(tokens) - 1)
            frontier = next_frontier
        return cls(tokens, parents)

    def __len__(self) -> int:
        return len(self.tokens)

    def children(self, node) -> list[int]:
        """Indices of a node's children (node None: the top level), in the order they are checked."""
        return self._children[node]

    @property
    def depth(self) -> int:
        """Levels of guesses: the most a pass can keep."""
        return 1 + max(self.depths) if self.tokens else 0

    def path_tokens(self, node) -> list[int]:
        """The tokens from the top down to a node, inclusive."""
        out = []
        while node is not None:
            out.append(self.tokens[node])
            node = self.parents[node]
        return out[::-1]


@dataclass
class GuessTrace:
    """What one pass over a guess tree did. path: the kept nodes, top down; checked and kept:
    per node; p: for each checked node, the chance it was kept with (p_j(x) of the point-mass
    rule: the target's probability with the siblings refused before it struck out; greedy: p(x))."""

    tree: GuessTree
    checked: list[bool]
    kept: list[bool]
    p: list
    r: list  # per node: the uniform its check drew (None: unchecked, or greedy)
    path: list[int]
    replacement: int | None
    bonus: int | None
    written: list[int]

    @property
    def accepted(self) -> int:
        """Guesses kept: the pass wrote these and one token of the target's own."""
        return len(self.path)

    @property
    def proposed(self) -> int:
        return len(self.tree)

    def to_dict(self) -> dict:
        return {"tokens": list(self.tree.tokens), "parents": list(self.tree.parents), "checked": list(self.checked),
                "kept": list(self.kept), "p": list(self.p), "r": list(self.r), "path": list(self.path),
                "replacement": self.replacement, "bonus": self.bonus, "written": list(self.written)}


def check_children(p, tokens: list[int], rng, greedy: bool):
    """Check one node's children in order: (position of the kept one, [(chance, r)] of each child
    checked, None), or (None, those, what to draw from) when all are refused (greedy: r is None,
    p's argmax is written, and the last slot is None)."""
    seen = []
    if greedy:
        best = p.argmax()
        for i, x in enumerate(tokens):
            seen.append((p.prob(x), None))
            if x == best:
                return i, seen, None
        return None, seen, None
    verifier = Verifier(p, None, "topk")
    for i, x in enumerate(tokens):
        chance, r = verifier.ratio(x), rng.random()
        seen.append((chance, r))
        if r <= chance:
            return i, seen, None
        verifier.reject(x)
    return None, seen, verifier.fallback()


def check_guess_tree(target, context, tree: GuessTree, rng, *, temperature=1, top_p=1) -> GuessTrace:
    """One pass of the target over `tree`, guessed after `context` (see the module docstring)."""
    check_sampling(temperature, top_p)
    context = target.check_context(context)
    greedy = temperature == 0
    keep = target.order - 1
    running = context[max(0, len(context) - keep):]

    def target_at(ctx):
        dist = target.sparse(ctx)
        return dist if greedy else tempered(dist, temperature, top_p)

    n = len(tree)
    checked, kept, p_seen, r_seen = [False] * n, [False] * n, [None] * n, [None] * n
    path, written = [], []
    replacement = bonus = None
    node, ctx = None, running
    while True:
        kids = tree.children(node)
        p = target_at(ctx)
        if not kids:  # a kept leaf, or no guess at all: the target's own token
            bonus = p.argmax() if greedy else p.sample(rng)
            written.append(bonus)
            break
        index, seen, fallback = check_children(p, [tree.tokens[i] for i in kids], rng, greedy)
        for i, (chance, r) in zip(kids, seen):
            checked[i], p_seen[i], r_seen[i] = True, chance, r
        if index is None:
            replacement = p.argmax() if greedy else fallback.sample(rng)
            written.append(replacement)
            break
        node = kids[index]
        kept[node] = True
        path.append(node)
        written.append(tree.tokens[node])
        ctx = (ctx + [tree.tokens[node]])[-keep:] if keep else []
    return GuessTrace(tree, checked, kept, p_seen, r_seen, path, replacement, bonus, written)
