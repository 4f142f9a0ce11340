"""One speculative step over a tree of candidates, traced for display.

The tree's shape is a tuple of widths, one per level: every node at depth d gets widths[d]
children, drawn from q in that node's context (SpecInfer's expansion-based token tree,
Miao et al. 2024, which expands with such a vector, e.g. <1, 1, 3, 1, 1, 1, 1, 1>). (1,)*gamma
is today's line of gamma guesses; (k,)*gamma is k wide and gamma deep; (3, 2, 1) a small tree.
Widths per level was chosen over free-form trees because one small vector says how many lanes a
pass lights (1 + k1 + k1 k2 + ...), every draft run extends a whole level at once (gamma runs,
as for a line), and the exactness argument is the same at every node: a node's children are
fresh draws from q there, whatever the rest of the tree holds.

Drafting goes level by level, nodes left to right; then the target, which scored every node in
its one pass, walks down from the root: at each node its children are checked in order by the
rule of sim.candidates; the first kept child is written and the walk goes on from it; if all are
rejected, a token is drawn from the fallback (the last residual, for the exact rules) and the
step ends; at a kept leaf a bonus token comes from p. Random numbers are used in that order
(the draft's draws, then one r per checked candidate, then the last draw), so with widths (1,)*gamma
the step is sim.speculative.speculative_step, bit for bit, and one seed gives one trace in
every Python.

With temperature and top-p (sim.tempering) both models' distributions are reshaped first;
temperature 0 is greedy: the candidates are the draft's k likeliest tokens, and one is kept
when it is the target's first choice.
"""

from __future__ import annotations

from dataclasses import dataclass

from .candidates import CANDIDATE_RULES, CHOSEN, Verifier, draw_candidates, likeliest_candidates, top_tokens
from .tempering import check_sampling, tempered

MAX_NODES = 4096  # a bound on the work of one step, far above what a bench can draw


def check_widths(widths) -> tuple[int, ...]:
    """The widths as a tuple, or a clear error; the tree may hold at most MAX_NODES nodes."""
    if not isinstance(widths, (tuple, list)) or not widths:
        raise ValueError(f"tree widths must be a non-empty list of positive integers, got {widths!r}")
    for w in widths:
        if type(w) is not int or w < 1:
            raise ValueError(f"tree widths must be positive integers, got {widths!r}")
    if tree_size(widths) > MAX_NODES:
        raise ValueError(f"a tree of widths {list(widths)} has {tree_size(widths)} nodes; at most {MAX_NODES}")
    return tuple(widths)


def tree_size(widths) -> int:
    """Number of candidate nodes: k1 + k1 k2 + ... (the lanes of a pass are this plus one)."""
    total, level = 0, 1
    for w in widths:
        level *= w
        total += level
    return total


class Node:
    """One candidate in the tree. parent is the parent's index in TreeTrace.nodes, None at the top.

    p and ratio are filled in for the nodes the walk checked (ratio: what r was compared with);
    r is None when no random number decided (greedy, typical, or unchecked). A plain slotted
    class: a step makes up to a few hundred of these, and a dataclass costs twice as much."""

    __slots__ = ("token", "parent", "depth", "q_dist", "p", "ratio", "r", "kept", "checked")

    def __init__(self, token: int, parent: int | None, depth: int, q_dist):
        self.token, self.parent, self.depth, self.q_dist = token, parent, depth, q_dist
        self.p = self.ratio = self.r = None
        self.kept = self.checked = False

    @property
    def q(self) -> float:
        """The draft's probability of the token where it was drawn (looked up when asked: most
        nodes of a big tree are never shown)."""
        return self.q_dist.prob(self.token)

    def to_dict(self) -> dict:
        return {"token": self.token, "parent": self.parent, "depth": self.depth, "q": self.q, "p": self.p,
                "ratio": self.ratio, "r": self.r, "kept": self.kept, "checked": self.checked}


@dataclass
class TreeTrace:
    """Everything one tree step did. path: indices of the kept nodes, top down."""

    context: list[int]
    widths: tuple[int, ...]
    rule: str
    temperature: float
    top_p: float
    target: str
    draft: str
    nodes: list[Node]
    path: list[int]
    replacement: int | None
    residual: object | None
    bonus: int | None
    written: list[int]

    @property
    def lanes(self) -> int:
        """Positions the target scores in its one pass: every node, and the context's last."""
        return len(self.nodes) + 1

    @property
    def n_checked(self) -> int:
        return sum(1 for n in self.nodes if n.checked)

    def to_dict(self) -> dict:
        """JSON-safe and deterministic (equal traces give equal dicts)."""
        return {"context": list(self.context), "widths": list(self.widths), "rule": self.rule,
                "temperature": self.temperature, "top_p": self.top_p, "target": self.target,
                "draft": self.draft, "nodes": [n.to_dict() for n in self.nodes], "path": list(self.path),
                "replacement": self.replacement,
                "residual": None if self.residual is None else self.residual.pairs(),
                "bonus": self.bonus, "written": list(self.written), "n_written": len(self.written),
                "lanes": self.lanes, "n_checked": self.n_checked}


def _draft_tree(draft_at, context, widths, rng, rule, greedy):
    """Every node, level by level; children[i] lists node i's children (children[None]: the top)."""
    nodes: list[Node] = []
    children: dict = {}
    level = [(None, context)]
    last = len(widths) - 1
    for depth, width in enumerate(widths):
        next_level = []
        for parent, ctx in level:
            q = draft_at(ctx)
            tokens = top_tokens(q, width) if greedy else draw_candidates(q, width, rng, rule)
            first = len(nodes)
            children[parent] = range(first, first + len(tokens))
            nodes.extend([Node(x, parent, depth, q) for x in tokens])
            if depth < last:  # leaves have no children to draft: no context needed
                next_level.extend([(i, ctx + [x]) for i, x in enumerate(tokens, first)])
        level = next_level
    return nodes, children


def tree_step(target, draft, context, widths, rng, *, rule="exact", temperature=1.0, top_p=1.0,
              greedy=False) -> TreeTrace:
    """Run one draft-then-check step over a tree of the given widths after `context`.

    rule is one of sim.candidates.CANDIDATE_RULES; temperature and top_p come from the fixed sets
    of sim.tempering (temperature 0, or greedy=True, is greedy decoding, where rule plays no part).
    """
    if rule not in CANDIDATE_RULES:
        raise ValueError(f"unknown rule {rule!r}; choose one of {list(CANDIDATE_RULES)}")
    check_sampling(temperature, top_p)
    widths = check_widths(widths)
    if draft.vocab_size != target.vocab_size:
        raise ValueError("draft and target have different vocabularies")
    context = target.check_context(context)
    greedy = greedy or temperature == 0
    keep = max(target.order, draft.order) - 1  # the models look no further back
    running = context[max(0, len(context) - keep):]

    def at(model):
        if greedy:
            return lambda ctx: model.sparse(ctx)
        return lambda ctx: tempered(model.sparse(ctx), temperature, top_p)

    target_at, draft_at = at(target), at(draft)
    nodes, children = _draft_tree(draft_at, running, widths, rng, rule, greedy)

    path: list[int] = []
    written: list[int] = []
    replacement = residual = bonus = None
    parent, ctx = None, running
    while True:
        kids = children.get(parent)
        p = target_at(ctx)
        if not kids:  # a kept leaf: the bonus token
            bonus = p.argmax() if greedy else p.sample(rng)
            written.append(bonus)
            break
        kept, fallback = _check_children(p, draft_at(ctx), [nodes[i] for i in kids], rule, greedy, rng)
        if kept is None:
            if greedy:
                replacement = p.argmax()
            else:
                residual = fallback
                replacement = fallback.sample(rng)
            written.append(replacement)
            break
        index = kids[kept]
        path.append(index)
        written.append(nodes[index].token)
        parent, ctx = index, ctx + [nodes[index].token]
    return TreeTrace(context, widths, rule, temperature, top_p, target.name, draft.name, nodes, path,
                     replacement, residual, bonus, written)


def _check_children(p, q, kids: list[Node], rule, greedy, rng):
    """Check one level's candidates in order: (position of the kept one, None), or (None, what
    to draw from) when all are rejected (None in greedy mode, where the target's choice is written)."""
    if greedy:
        best = p.argmax()
        for i, node in enumerate(kids):
            node.p, node.checked = p.prob(node.token), True
            node.ratio = node.p / node.q
            if node.token == best:
                node.kept = True
                return i, None
        return None, None
    verifier = Verifier(p, q, rule)
    for i, node in enumerate(kids):
        x = node.token
        node.p, node.checked = p.prob(x), True
        node.ratio = verifier.ratio(x)
        if verifier.draws_r:
            node.r = rng.random()
            node.kept = node.r <= node.ratio
        else:
            node.kept = verifier.passes_threshold(x)
        if node.kept:
            return i, None
        verifier.reject(x)
    return None, verifier.fallback()


def position_draws(target, draft, context, rng, n: int, k: int, *, rule="exact", temperature=1.0,
                   top_p=1.0) -> list[tuple[int, int | None]]:
    """n independent draws of the next token with k candidates (the test tube's rounds):
    (token, position of the kept candidate, or None for a drawn replacement). Each is the first
    token tree_step with widths (k,) writes for the same generator state; no bonus is drawn."""
    if rule not in CANDIDATE_RULES:
        raise ValueError(f"unknown rule {rule!r}; choose one of {list(CANDIDATE_RULES)}")
    check_sampling(temperature, top_p)
    if type(n) is not int or n < 0 or type(k) is not int or k < 1:
        raise ValueError(f"n must be a non-negative and k a positive integer, got n={n!r}, k={k!r}")
    context = target.check_context(context)
    greedy = temperature == 0
    if greedy:
        p, q = target.sparse(context), draft.sparse(context)
    else:
        p = tempered(target.sparse(context), temperature, top_p)
        q = tempered(draft.sparse(context), temperature, top_p)
    # Greedy's candidates and a chosen rule's take no random number: the same for every draw,
    # so they are found once (each finding sorts q's support).
    fixed = top_tokens(q, k) if greedy else likeliest_candidates(q, k) if rule in CHOSEN else None
    draws = []
    for _ in range(n):
        tokens = fixed if fixed is not None else draw_candidates(q, k, rng, rule)
        kids = [Node(x, None, 0, q) for x in tokens]
        kept, fallback = _check_children(p, q, kids, rule, greedy, rng)
        if kept is not None:
            draws.append((kids[kept].token, kept))
        else:
            draws.append((p.argmax() if greedy else fallback.sample(rng), None))
    return draws
