"""The test tubes' rounds: direct draws from the target against speculative first-token draws.

Each round is seeded by (seed, round) (stream 1, see commands.rng_for), so the page's cumulative
tubes are a function of the settings and the number of rounds, and a link reproduces them.

With a temperature or top-p both tubes draw from the tempered distributions (sim.tempering), and
the line each tube should reach is the tempered p; with k candidates the speculative tube's draws
are sim.tree.position_draws of k candidates (with k = 1, the first tokens of a line, bit for bit).
"""

from __future__ import annotations

import math

from ..candidates import EXACT_RULES, residual, top_tokens
from ..sparse import ChainDistribution
from ..speculative import residual_of, typical_threshold
from ..tempering import tempered
from ..tree import position_draws
from .commands import OTHER_ID, STREAM_TUBE, clean, rng_for, top_by_p
from .settings import Settings

MAX_DRAWS = 1000
TUBE_DRAWS = 50  # draws per tube per round


def spec_distribution(p, q, rule: str, greedy: bool, k: int = 1, size: int | None = None) -> list[float]:
    """Dense distribution of the speculative first token under a rule with k candidates (O(V);
    cached by caller). p and q: the distributions the rule sees (tempered, if so set).

    exact, recursive: p itself. greedy: all mass on argmax p. The rules that are not exact check
    candidate after candidate, each kept with chance a(x) on its own (independent of the ones
    before) and with total chance A, so x comes out with
        a(x) (1 - (1 - A)^k) / A  +  (1 - A)^k f(x)
    (f: what is drawn when all k fail). replace_from_p: a = min(p, q), f = p. typical:
    a = q [p > t], f = p, t the typical threshold. keep_any_survivor: a = min(p, q), f = the
    residual; with k = 1 it is the exact rule.
    """
    size = len(p.base) if size is None else size
    pd = _dense(p, size)
    if greedy:
        out = [0.0] * len(pd)
        out[p.argmax()] = 1.0
        return out
    if rule in EXACT_RULES:
        return list(pd)
    qd = _dense(q, size)
    if rule == "typical":
        threshold = typical_threshold(p)
        accept = [qi if pi > threshold else 0.0 for pi, qi in zip(pd, qd)]
    else:
        accept = [pi if pi < qi else qi for pi, qi in zip(pd, qd)]
    fallback = pd
    if rule == "keep_any_survivor":
        left = residual(p, q)
        fallback = _dense(left, size) if left is not None else pd
    if k == 1 and rule == "replace_from_p" and isinstance(p, ChainDistribution):
        kept = residual_of(p, q).beta  # one candidate: the chain's own residual mass, to the last bit
    else:
        kept = math.fsum(accept)
    rest = 1.0 - kept
    none = rest ** k
    some = (1.0 - none) / kept if kept > 0 else 0.0
    if k == 1:  # the line's own arithmetic (the page's figures before several candidates)
        return [a + rest * f for a, f in zip(accept, fallback)]
    return [a * some + none * f for a, f in zip(accept, fallback)]


def _dense(dist, size: int) -> list[float]:
    """All V probabilities of a chain, a residual, or a tempered (or cut) distribution."""
    if isinstance(dist, ChainDistribution):
        return dist.dense()
    out = [0.0] * size
    for w, v in dist.pairs():
        out[w] = float(v)
    return out


def _ranked(p, top: int, size: int) -> list[tuple[int, float]]:
    """The top tokens by p, most likely first, ties by id: top_by_p for a model's chain, else by
    sorting the dense distribution (a tempered one)."""
    if isinstance(p, ChainDistribution):
        return top_by_p(p, top)
    dense = _dense(p, size)
    return sorted(enumerate(dense), key=lambda pair: (-pair[1], pair[0]))[:top]


def tube_round(language, settings: Settings, context: list[int], round_index: int, draws: int = TUBE_DRAWS,
               top: int = 8, spec_cache: dict | None = None) -> dict:
    """Direct target draws and speculative first-token draws after a context (the page's: the
    "tube" prefix, see commands.default_context), counted into the top tokens by p plus
    "other"; seeded by (seed, round)."""
    target, draft = language.target, language.draft(settings.draft)
    rule, greedy, k = settings.rule, settings.greedy, settings.candidates
    temperature, top_p = settings.temperature, settings.top_p
    p, q = target.sparse(context), draft.sparse(context)
    if not greedy:
        p, q = tempered(p, temperature, top_p), tempered(q, temperature, top_p)
    size = len(language.vocab)
    ranked = _ranked(p, top, size)
    slot = {token_id: i for i, (token_id, _) in enumerate(ranked)}
    other = len(ranked)
    spec_dense = _spec_dense(spec_cache, context, settings, p, q, size)

    rng = rng_for(settings.seed, STREAM_TUBE, round_index)
    direct = [0] * (other + 1)
    kept_counts = [0] * (other + 1)
    target_counts = [0] * (other + 1)
    if greedy:
        best = p.argmax()
        direct[slot.get(best, other)] += draws
        kept = best in top_tokens(q, k)  # greedy candidates: the draft's k likeliest
        (kept_counts if kept else target_counts)[slot.get(best, other)] += draws
    else:
        for _ in range(draws):
            direct[slot.get(p.sample(rng), other)] += 1
        for drawn, position in position_draws(target, draft, context, rng, draws, k, rule=rule,
                                              temperature=temperature, top_p=top_p):
            (kept_counts if position is not None else target_counts)[slot.get(drawn, other)] += 1

    categories = [{"id": token_id, "text": language.vocab[token_id], "p": p_x,
                   "spec_p": spec_dense[token_id]} for token_id, p_x in ranked]
    categories.append({"id": OTHER_ID, "text": None,
                       "p": clean(1.0 - math.fsum(c["p"] for c in categories)),
                       "spec_p": clean(1.0 - math.fsum(c["spec_p"] for c in categories))})
    return {"round": round_index, "draws": draws, "settings": settings.as_json(), "context": context,
            "context_text": language.decode(context), "categories": categories,
            "target": direct, "spec_kept": kept_counts, "spec_target": target_counts}


def largest_gap(categories: list, direct: list, kept: list, written: list) -> dict:
    """The category whose speculative probability is furthest from the target's p, with its
    counts in both tubes: under the exact rule the gap is 0 for every category (the first is
    returned), under a rule that is not exact it names where tube B parts from the line."""
    size = [abs(c["spec_p"] - c["p"]) for c in categories]
    k = max(range(len(categories)), key=lambda i: (size[i], -i))
    c = categories[k]
    return {"index": k, "text": c["text"], "p": c["p"], "spec_p": c["spec_p"], "size": size[k],
            "direct": direct[k], "speculative": kept[k] + written[k]}


def _spec_dense(cache, context, s: Settings, p, q, size: int) -> list[float]:
    def make():
        return spec_distribution(p, q, s.rule, s.greedy, s.candidates, size)

    if cache is None:
        return make()
    key = (tuple(context[-2:]), s.draft, s.rule, s.greedy, s.candidates, s.temperature, s.top_p)
    dense = cache.get(key)
    if dense is None:
        dense = make()
        if len(cache) > 64:
            cache.clear()
        cache[key] = dense
    return dense
