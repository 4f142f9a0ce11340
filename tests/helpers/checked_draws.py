"""One position checked by SpecInfer's rule (sim.candidates' Verifier, rule "exact") on candidates
the caller supplies: the wrong samplers of the tempering and top-k tests are this check given the
wrong candidates (a tempered draft checked against a raw target; chosen candidates as if drawn)."""

from __future__ import annotations

from sim.candidates import Verifier


def exact_check(p, q, candidates: list[int], rng) -> int:
    """The token written: the first candidate kept (r <= p_j(x)/q(x)), else a draw from the residual."""
    verifier = Verifier(p, q, "exact")
    for x in candidates:
        if rng.random() <= verifier.ratio(x):
            return x
        verifier.reject(x)
    return verifier.fallback().sample(rng)
