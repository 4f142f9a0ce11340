"""The closing notes' two-token example: several candidates for one position, in exact fractions.

Two candidates are drawn independently from the draft q (with replacement) for one position.
The naive rule checks each against the target p on its own and keeps the first survivor; the
exact rule (SpecInfer's multi-step speculative sampling, Miao et al. 2024) checks them in turn
and, after each rejection, checks the next against the normalised residual max(0, p - q)
instead of p. Both are enumerated over every draw in Fractions with sim.speculative's rule
functions, so the page prints what each rule writes and a test checks that only the exact
rule gives p back. The naive rule is also given with the other fallback a reader might guess
(every candidate refused: draw from p itself, not the residual).

The same two tokens with chosen candidates (sim.candidates' "topk": the draft's two likeliest,
a then b, each checked as a point mass) write p again; checking those chosen candidates as if
they had been drawn from q (SpecInfer's rule) does not. Both through sim.candidates' Verifier.
"""

from __future__ import annotations

from fractions import Fraction as F
from itertools import product

from sim.candidates import chosen_law
from sim.speculative import keep_probability, residual_distribution
from sim.weights import Weights

from .formats import ExactDecimal, Figures

TOKENS = ("a", "b")
P = (F(1, 5), F(4, 5))  # the target
Q = (F(4, 5), F(1, 5))  # the draft: proposes a four times as often as the target writes it
CANDIDATES = 2


def _written(p: list, q: list, draws: tuple, exact: bool, fallback_p: bool = False) -> list:
    """What one draw of candidates writes, as a law over tokens: check them in turn (the naive
    rule's last draw from the residual, or with fallback_p from p itself)."""
    out = [F(0)] * len(p)
    target, still = list(p), F(1)  # the law checked against, and the chance of getting here
    for x in draws:
        kept = keep_probability(target[x], q[x])
        out[x] += still * kept
        still *= 1 - kept
        if exact and still:
            target = residual_distribution(target, q)  # SpecInfer: the next is checked against this
    if still:  # every candidate rejected: draw from the residual of the law last checked against
        leftover = target if exact else (p if fallback_p else residual_distribution(p, q))
        for x, r in enumerate(leftover):
            out[x] += still * r
    return out


def output_law(p: list, q: list, candidates: int, exact: bool, fallback_p: bool = False) -> list:
    """P(written token = x), over every draw of `candidates` tokens, each independently from q."""
    total = [F(0)] * len(p)
    for draws in product(range(len(p)), repeat=candidates):
        chance = F(1)
        for x in draws:
            chance *= q[x]
        for x, w in enumerate(_written(p, q, draws, exact, fallback_p)):
            total[x] += chance * w
    return total


def chosen(p: list, q: list, candidates: int, rule: str) -> list:
    """P(written token = x) when the candidates are q's likeliest (sim.candidates.chosen_law)."""
    return chosen_law(Weights(range(len(p)), p), Weights(range(len(q)), q), candidates, rule, len(p))


def multicand_example() -> dict:
    """Every quantity the page prints, as exact fractions."""
    p, q = list(P), list(Q)
    first = output_law(p, q, 1, exact=True)  # one candidate: the ordinary rule
    return {"p": p, "q": q, "keep_a": keep_probability(p[0], q[0]),
            "exact": output_law(p, q, CANDIDATES, exact=True),
            "naive": output_law(p, q, CANDIDATES, exact=False),
            "naive_p": output_law(p, q, CANDIDATES, exact=False, fallback_p=True),
            "topk": chosen(p, q, CANDIDATES, "topk"),
            "as_drawn": chosen(p, q, CANDIDATES, "exact"),
            # what the naive rule's second chance adds to a, beyond the one-candidate rule
            "extra_a": output_law(p, q, CANDIDATES, exact=False)[0] - first[0]}


def multicand_figures() -> Figures:
    ex = multicand_example()
    exact = ExactDecimal()
    f = Figures()
    for column in ("p", "q", "exact", "naive", "naive_p", "topk", "as_drawn"):
        for token, value in zip(TOKENS, ex[column]):
            f.add(f"mc_{column}_{token}", value, exact)
    f.add("mc_keep_a", ex["keep_a"], exact)
    f.add("mc_extra_a", ex["extra_a"], exact)
    return f
