"""The test tubes' rounds: direct draws from the target against speculative first-token draws.

Each round is seeded by (seed, round) (stream 1, see commands.rng_for), so the page's cumulative
tubes are a function of the settings and the number of rounds, and a link reproduces them.
"""

from __future__ import annotations

import math

from ..speculative import first_tokens, residual_of, typical_threshold
from .commands import OTHER_ID, STREAM_TUBE, clean, rng_for, top_by_p
from .settings import Settings

MAX_DRAWS = 1000
TUBE_DRAWS = 50  # draws per tube per round


def spec_distribution(p, q, rule: str, greedy: bool) -> list[float]:
    """Dense distribution of the speculative first token under a rule (O(V); cached by caller).

    exact: p itself. replace_from_p: min(p, q) + (1 - beta) p. typical: q(x) [p(x) > t] +
    (1 - sum_{p(y) > t} q(y)) p(x), t the typical threshold. greedy: all mass on argmax p.
    """
    pd = p.dense()
    if greedy:
        out = [0.0] * len(pd)
        out[p.argmax()] = 1.0
        return out
    if rule == "exact":
        return list(pd)
    qd = q.dense()
    if rule == "replace_from_p":
        rest = 1.0 - residual_of(p, q).beta
        return [(pi if pi < qi else qi) + rest * pi for pi, qi in zip(pd, qd)]
    threshold = typical_threshold(p)
    kept_mass = math.fsum(qi for pi, qi in zip(pd, qd) if pi > threshold)
    rest = 1.0 - kept_mass
    return [(qi if pi > threshold else 0.0) + rest * pi for pi, qi in zip(pd, qd)]


def tube_round(language, settings: Settings, context: list[int], round_index: int, draws: int = TUBE_DRAWS,
               top: int = 8, spec_cache: dict | None = None) -> dict:
    """Direct target draws and speculative first-token draws after a context (the page's: the
    "tube" prefix, see commands.default_context), counted into the top tokens by p plus
    "other"; seeded by (seed, round)."""
    target, draft = language.target, language.draft(settings.draft)
    rule, greedy = settings.rule, settings.greedy
    p, q = target.sparse(context), draft.sparse(context)
    ranked = top_by_p(p, top)
    slot = {token_id: i for i, (token_id, _) in enumerate(ranked)}
    other = len(ranked)
    spec_dense = _spec_dense(spec_cache, context, settings.draft, p, q, rule, greedy)

    rng = rng_for(settings.seed, STREAM_TUBE, round_index)
    direct = [0] * (other + 1)
    kept_counts = [0] * (other + 1)
    target_counts = [0] * (other + 1)
    if greedy:
        best = p.argmax()
        direct[slot.get(best, other)] += draws
        kept = q.argmax() == best
        (kept_counts if kept else target_counts)[slot.get(best, other)] += draws
    else:
        for _ in range(draws):
            direct[slot.get(p.sample(rng), other)] += 1
        for drawn, kept in first_tokens(target, draft, context, rng, draws, rule=rule):
            (kept_counts if kept else target_counts)[slot.get(drawn, other)] += 1

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


def _spec_dense(cache, context, draft_name, p, q, rule, greedy) -> list[float]:
    if cache is None:
        return spec_distribution(p, q, rule, greedy)
    key = (tuple(context[-2:]), draft_name, rule, greedy)
    dense = cache.get(key)
    if dense is None:
        dense = spec_distribution(p, q, rule, greedy)
        if len(cache) > 64:
            cache.clear()
        cache[key] = dense
    return dense
