"""Chapter 6's worked example: three tokens, exact fractions, the sim's own rule.

p and q are chosen so that the residual falls on two tokens and the draft over-proposes the
third; every other number is computed with sim.speculative's rule functions in exact
arithmetic, so the table the chapter prints adds up exactly (a test checks it in Fractions).
"""

from __future__ import annotations

from fractions import Fraction as F

from sim import stats
from sim.speculative import keep_probability, residual_distribution

from .formats import ExactDecimal, Figures

TOKENS = ("a", "b", "c")
P = (F(1, 2), F(3, 10), F(1, 5))  # the target
Q = (F(1, 5), F(1, 5), F(3, 5))  # the draft


def worked_example() -> dict:
    """Every quantity of the example, as exact fractions."""
    p, q = list(P), list(Q)
    kept = [qx * keep_probability(px, qx) for px, qx in zip(p, q)]  # = min(p, q)
    beta = stats.beta(p, q)
    residual = residual_distribution(p, q)
    replaced = [(1 - beta) * r for r in residual]
    return {"p": p, "q": q, "kept": kept, "beta": beta, "rejected": 1 - beta,
            "excess": [max(F(0), px - qx) for px, qx in zip(p, q)],
            "residual": residual, "replaced": replaced,
            "total": [k + r for k, r in zip(kept, replaced)],
            # The broken variant: the replacement drawn from p instead of the residual.
            "wrong": [k + (1 - beta) * px for k, px in zip(kept, p)]}


def worked_figures() -> Figures:
    ex = worked_example()
    exact = ExactDecimal()
    f = Figures()
    for column in ("p", "q", "kept", "excess", "residual", "replaced", "total", "wrong"):
        for token, value in zip(TOKENS, ex[column]):
            f.add(f"ex_{column}_{token}", value, exact)
    f.add("ex_beta", ex["beta"], exact)
    f.add("ex_rejected", ex["rejected"], exact)
    return f
