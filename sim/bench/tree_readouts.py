"""The readouts' measurements for settings beyond a line of guesses at temperature 1: several
candidates (the tree of Settings.widths), a temperature or a top-p cut, or a rule that is not a
line's ("recursive", "topk", "keep_any_survivor").

Measured live in the worker, like every setting but the page's first picture (sim.bench.readouts),
on the same text: READOUT_TOKENS tokens from the bench prefix with READOUT_SEED (sampling), or the
greedy readouts' short runs (temperature 0). Along the text:

    alpha           the chance one guess is kept, averaged over the positions checked: beta =
                    sum min(p, q) of the tempered p and q for "exact" and "recursive" (Leviathan
                    et al.'s alpha, as for a line), p(the draft's likeliest) for "topk"; for a
                    rule that is not exact, or greedy, the share of checked guesses kept
    alpha_rules     {rule: alpha_k} for each exact rule of sim.candidates at the bench's k, at the
                    same positions (sim.alpha.rule_alpha): with one candidate every position
                    checked, with k the passes' first positions. "recursive" is estimated from
                    a generator of its own (RULES_SEED), so the run's own draws do not move
    alpha_candidates the chance that some of the k candidates of a pass's first guess is kept:
                    alpha_rules of the rule in use, or for a rule that is not exact the share
                    of passes whose first guess kept a candidate

A temperature or a top-p cut reshapes every distribution the run meets (sim.tempering, O(support)
each, in pure arithmetic so that Pyodide agrees to the bit): about 4 ms a pass in CPython, so those
runs write TEMPERED_TOKENS tokens rather than READOUT_TOKENS (about 0.5 s in CPython, 1-2 s in the
worker, instead of four times that); the readouts' `measure` says how many.

With widths (k, 1, ..., 1) a pass writes 1 + alpha_k (1 + alpha + ... + alpha^(gamma-1))
tokens on average (i.i.d. positions): tokens_per_pass below, which is the line's formula at k = 1.
"""
from __future__ import annotations

import math
import random

from ..alpha import greedy_alpha, rule_alpha
from ..candidates import EXACT_RULES
from ..stats import default_prefix
from ..tempering import tempered
from ..tree import tree_step

TEMPERED_TOKENS = 500  # tokens a tempered (or top-p) readout writes (see the module docstring)
RULES_SEED = 2402  # the generator of the "recursive" alpha_k estimates (sim.alpha)


def run_tokens(temperature, top_p, n_tokens: int) -> int:
    """The tokens a sampling readout writes: n_tokens, or TEMPERED_TOKENS when tempering costs."""
    return n_tokens if temperature == 1 and top_p == 1 else min(n_tokens, TEMPERED_TOKENS)


def tokens_per_pass(alpha: float, alpha_k: float, gamma: int) -> float:
    """Expected tokens a pass writes: 1 + alpha_k (1 - alpha^gamma) / (1 - alpha)."""
    line = float(gamma) if alpha >= 1 else (1 - alpha ** gamma) / (1 - alpha)
    return 1 + alpha_k * line


def _alphas(target, draft, ctx, k, temperature, top_p, rng) -> tuple[float, float, dict | None]:
    """(beta, p(the draft's likeliest), {rule: alpha_k} or None when k = 1) at one position;
    greedy: whether the target's choice is among the draft's 1 and k likeliest."""
    p, q = target.sparse(ctx), draft.sparse(ctx)
    if temperature == 0:
        one = greedy_alpha(p, q, 1)
        return one, one, None if k == 1 else dict.fromkeys(EXACT_RULES, greedy_alpha(p, q, k))
    p, q = tempered(p, temperature, top_p), tempered(q, temperature, top_p)
    some = None if k == 1 else {rule: float(rule_alpha(p, q, k, rule, rng)) for rule in EXACT_RULES}
    return float(rule_alpha(p, q, 1, "exact")), float(rule_alpha(p, q, 1, "topk")), some


def tree_run(language, draft_name: str, widths: tuple, *, rule: str, temperature, top_p, n_tokens: int,
             seed: int, texts=None) -> dict:
    """Passes over `widths` until n_tokens are written, from the bench prefix (or from each start in
    `texts`, stopped when its text returns to a two-token context it had seen: the greedy runs)."""
    target, draft = language.target, language.draft(draft_name)
    keep = max(target.order, draft.order) - 1
    k = widths[0]
    rng, rules_rng = random.Random(seed), random.Random(RULES_SEED)
    betas, tops, firsts = [], [], {r: [] for r in EXACT_RULES}
    passes = tokens = checked = kept = looped = first_kept = 0
    starts = texts if texts is not None else [default_prefix(language)]
    for start in starts:
        text = list(start)
        seen = {tuple(text[-keep:])}
        written = 0
        while written < n_tokens:
            ctx = text[-keep:]
            trace = tree_step(target, draft, ctx, widths, rng, rule=rule, temperature=temperature, top_p=top_p)
            passes += 1
            reached = len(trace.path) + (trace.replacement is not None)  # positions the walk checked
            checked += reached
            kept += len(trace.path)
            first_kept += bool(trace.path)
            running = list(ctx)
            for depth in range(reached):
                one, top, some = _alphas(target, draft, running, k if depth == 0 else 1, temperature, top_p,
                                         rules_rng)
                betas.append(one)
                tops.append(top)
                if depth == 0 and some is not None:
                    for r, value in some.items():
                        firsts[r].append(value)
                running.append(trace.written[depth])
            repeated = False
            for t in trace.written:
                text.append(t)
                repeated = repeated or (texts is not None and tuple(text[-keep:]) in seen)
                seen.add(tuple(text[-keep:]))
            written += len(trace.written)
            tokens += len(trace.written)
            if repeated:
                looped += 1
                break
    mean = lambda values: math.fsum(values) / len(values)  # noqa: E731
    if k == 1:  # at every position checked, as alpha
        alpha_rules = {"exact": mean(betas), "recursive": mean(betas), "topk": mean(tops)}
    else:
        alpha_rules = {r: mean(v) for r, v in firsts.items()}
    if temperature == 0:  # greedy: every rule offers the draft's likeliest; counted, as alpha
        alpha_rules = dict.fromkeys(EXACT_RULES, mean(tops) if k == 1 else alpha_rules["exact"])
    exact = temperature != 0 and rule in EXACT_RULES
    # The exact rules' chances are computed; a rule that is not exact is only counted (as for a line).
    some = alpha_rules[rule] if exact or temperature == 0 else first_kept / passes
    alpha = (mean(tops) if rule == "topk" else mean(betas)) if exact else None
    return {"alpha": alpha, "acceptance_rate": kept / checked, "alpha_candidates": some, "alpha_rules": alpha_rules,
            "tokens_per_pass": tokens / passes, "passes": passes, "tokens": tokens, "positions_checked": checked,
            "runs_looped": looped}
