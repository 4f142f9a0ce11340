"""One pass of the bench: a tree step (sim.tree) under the bench's settings, described for drawing.

The tree is Settings.widths: k candidates for the first guess, each continued by a line. What the
machine draws is one branch of it, position by position ("guesses", as for a line of guesses):
the kept candidates, then the one whose rejection ended the pass, then the guesses drafted after it
(void, never checked), and beside each position every candidate the target checked there in turn
("positions"). With k = 1 the guesses are those of sim.speculative.speculative_step for the same
random source, field for field (tests/sim/test_bench_tree.py checks it).

With residuals=True each rejected candidate also carries the distribution the next one is checked
against (the residual, for the exact rules; p itself for the others) as its likeliest tokens:
building one costs O(V), so only the pass on show asks for it (replay's pass view).
"""

from __future__ import annotations

from ..candidates import CHOSEN, EXACT_RULES, Verifier
from ..speculative import typical_threshold
from ..tempering import tempered
from ..tree import tree_step
from .settings import Settings

NEXT_TOP = 3  # tokens shown of what the next candidate is checked against


def verdict(kept: bool, checked: bool) -> str:
    """What became of a guess: kept, rejected (the first one the target refused) or void (after it)."""
    return "kept" if kept else ("rejected" if checked else "void")


def likeliest(dist, k: int) -> list[list]:
    """[[id, prob], ...] of a distribution's k likeliest tokens (ties: lower id), O(V) at most."""
    return sorted(dist.pairs(), key=lambda pair: (-pair[1], pair[0]))[:k]


def _branch(trace) -> list[int]:
    """Node indices of the branch on show, one per depth (see the module docstring)."""
    nodes, path = trace.nodes, trace.path
    children: dict = {}
    for i, n in enumerate(nodes):
        children.setdefault(n.parent, []).append(i)
    shown = list(path)
    parent = path[-1] if path else None
    if len(shown) < len(trace.widths):
        kids = children.get(parent, [])
        checked = [i for i in kids if nodes[i].checked]
        shown.append(checked[-1] if checked else kids[0])  # the rejection that ended the pass
        while len(shown) < len(trace.widths):
            shown.append(children[shown[-1]][0])
    return shown, children


def tree_pass(language, settings: Settings, context: list[int], rng, residuals: bool = False) -> dict:
    """The guesses, the candidates per position and what was written, for one pass."""
    target, draft = language.target, language.draft(settings.draft)
    greedy, rule = settings.greedy, settings.rule
    trace = tree_step(target, draft, context, settings.widths, rng, rule=rule, temperature=settings.temperature,
                      top_p=settings.top_p)
    keep = max(target.order, draft.order) - 1
    running = context[max(0, len(context) - keep):]

    def at(model, ctx):
        return model.sparse(ctx) if greedy else tempered(model.sparse(ctx), settings.temperature, settings.top_p)

    def ctx_of(i):
        tokens = []
        while trace.nodes[i].parent is not None:
            i = trace.nodes[i].parent
            tokens.append(trace.nodes[i].token)
        return running + tokens[::-1]

    vocab = language.vocab
    shown, children = _branch(trace)

    def described(i):
        n = trace.nodes[i]
        p = at(target, ctx_of(i))
        p_x = n.p if n.checked else p.prob(n.token)
        ratio = n.ratio if n.checked else p_x / n.q
        return {"token": n.token, "text": vocab[n.token], "q": n.q, "p": p_x, "ratio": ratio, "r": n.r,
                "kept": n.kept, "checked": n.checked, "verdict": verdict(n.kept, n.checked),
                "threshold": typical_threshold(p) if (n.checked and rule == "typical" and not greedy) else None,
                "best": p.argmax() if (n.checked and greedy) else None}

    guesses = [described(i) for i in shown]
    positions = []
    for depth, i in enumerate(shown):
        siblings = children[trace.nodes[i].parent]
        listed = [{**described(j), "shown": j == i} for j in siblings]
        if residuals and not greedy and any(c["checked"] and not c["kept"] for c in listed):
            _next_against(language, at(target, ctx_of(i)), at(draft, ctx_of(i)), rule, listed)
        positions.append({"depth": depth, "candidates": listed})
    return {"trace": trace, "guesses": guesses, "positions": positions}


def _next_against(language, p, q, rule: str, listed: list) -> None:
    """Each rejected candidate's `next_against`: what the one after it is checked against."""
    exact = rule in EXACT_RULES
    left = "struck" if rule in CHOSEN else "residual"  # "topk": p with the refused struck out
    verifier = Verifier(p, q, rule)
    for j, c in enumerate(listed):
        if not c["checked"] or c["kept"]:
            break
        verifier.reject(c["token"])
        if j + 1 < len(listed):  # the next candidate's test: p_j+1 for the exact rules, p for the others
            against, kind = (verifier.p_now, left) if exact else (verifier.p, "p")
        else:  # all rejected: what the token is drawn from
            against = verifier.fallback()
            kind = left if exact else "residual" if rule == "keep_any_survivor" else "p"
        c["next_against"] = {"kind": kind, "tokens": [{"id": w, "text": language.vocab[w], "p": v}
                                                      for w, v in likeliest(against, NEXT_TOP)]}
