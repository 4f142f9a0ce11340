"""Runs of the drafts without a second model (sim.free_drafts), counted pass by pass.

A run is a session of `requests` requests, each from the same prompt (sim.prompts), each writing
`tokens` tokens (the last pass may overshoot), on one seeded generator; suffix decoding keeps each
request's output for the next. Counted over the passes, with vLLM's names where it has them
(vllm/v1/spec_decode/metrics.py):

    passes                  target passes; each writes its kept guesses and one token of its own
    drafts                  passes that had at least one guess (vLLM's num_drafts: a pass with no
                            guess is a plain step, and engines do not count it as a draft)
    proposed                guesses offered, every node of every tree (num_draft_tokens)
    accepted                guesses kept (num_accepted_tokens); tokens = passes + accepted
    accepted_by_position    [j]: drafts whose guess at position j + 1 was kept, over drafts
                            (vLLM's per-position acceptance rate); they sum to mean_acceptance_length - 1
    kept_given_checked      [j]: of the drafts whose walk checked position j + 1, the share kept there
    mean_acceptance_length  1 + accepted / drafts (vLLM's; 1 when no pass had a guess)
    draft_acceptance_rate   accepted / proposed
    tokens_per_pass         tokens / passes, plain steps included: 1 + coverage (mean_acceptance_length - 1)
    coverage                drafts / passes
    alpha                   the chance a position's guess is kept, averaged over the positions the
                            walk checked: the target's probability of the guess (of the guesses
                            there, summed, in a tree: the point-mass rule keeps one of them with
                            that chance). A pass with no guess checks no position, so it does not
                            enter alpha; it enters tokens per pass and coverage. Greedy: the share
                            of checked positions kept.
    tokens_per_pass_formula the i.i.d. formula with this alpha over each pass's own number of
                            levels (0 for a pass with no guess): mean of (1 - alpha^(d+1)) / (1 - alpha)
    c, speedup              the source's cost per pass (sim.free_drafts.draft_cost) and
                            tokens_per_pass / (1 + c), the readouts' model of a step
"""

from __future__ import annotations

import math
import random

from .free_drafts import LOOKUP_MAX, LOOKUP_MIN, SOURCES, PromptLookup, SkipGramHeads, SuffixDecoding, draft_cost
from .guess_tree import check_guess_tree
from .tempering import tempered

RUN_SEED = 20230201
REQUESTS = 20
REQUEST_TOKENS = 100


def make_source(name: str, heads: SkipGramHeads | None = None):
    """A fresh source of sim.free_drafts.SOURCES (heads needs the skip-gram table)."""
    if name == "lookup":
        return PromptLookup(LOOKUP_MAX, LOOKUP_MIN)
    if name == "suffix":
        return SuffixDecoding()
    if name == "heads":
        if heads is None:
            raise ValueError("the heads source needs its skip-gram table (SkipGramHeads)")
        return heads
    raise ValueError(f"unknown draft source {name!r}; choose one of {list(SOURCES)}")


class Tally:
    """The counts of a run's passes (the module docstring names them)."""

    def __init__(self, gamma: int):
        self.gamma = gamma
        self.passes = self.drafts = self.proposed = self.accepted = self.tokens = 0
        self.by_position = [0] * gamma  # drafts that kept position j + 1
        self.checked_at = [0] * gamma  # drafts whose walk checked position j + 1
        self.chances: list[float] = []  # per checked position: the chance a guess there is kept
        self.kept_levels = 0
        self.levels: list[int] = []  # per pass: levels of guesses offered

    def add(self, trace, p_at, greedy: bool) -> None:
        tree = trace.tree
        self.passes += 1
        self.tokens += len(trace.written)
        self.levels.append(tree.depth)
        if not len(tree):
            return
        self.drafts += 1
        self.proposed += len(tree)
        self.accepted += trace.accepted
        node = None
        for depth in range(tree.depth):
            kids = tree.children(node)
            if not kids:
                break
            self.checked_at[depth] += 1
            if greedy:
                self.chances.append(1.0 if depth < trace.accepted else 0.0)
            else:
                p = p_at(tree.path_tokens(node) if node is not None else [])
                self.chances.append(math.fsum(p.prob(tree.tokens[i]) for i in kids))
            if depth >= trace.accepted:
                break
            self.by_position[depth] += 1
            self.kept_levels += 1
            node = trace.path[depth]

    def summary(self) -> dict:
        alpha = math.fsum(self.chances) / len(self.chances) if self.chances else None
        mal = 1 + self.accepted / self.drafts if self.drafts else 1.0
        return {
            "passes": self.passes, "drafts": self.drafts, "proposed": self.proposed, "accepted": self.accepted,
            "tokens": self.tokens,
            "accepted_by_position": [n / self.drafts if self.drafts else 0.0 for n in self.by_position],
            "kept_given_checked": [k / c if c else None for k, c in zip(self.by_position, self.checked_at)],
            "mean_acceptance_length": mal,
            "draft_acceptance_rate": self.accepted / self.proposed if self.proposed else None,
            "tokens_per_pass": self.tokens / self.passes,
            "coverage": self.drafts / self.passes,
            "alpha": alpha,
            "acceptance_rate": self.kept_levels / len(self.chances) if self.chances else None,
            "tokens_per_pass_formula": None if alpha is None else
            math.fsum(_line_tokens(alpha, d) for d in self.levels) / self.passes,
        }


def _line_tokens(alpha: float, levels: int) -> float:
    """Expected tokens of a pass with `levels` positions each kept with chance alpha (i.i.d.)."""
    return float(levels + 1) if alpha >= 1 else (1 - alpha ** (levels + 1)) / (1 - alpha)


def run_source(language, source_name: str, prompt: list[int], *, gamma: int = 4, candidates: int = 1,
               requests: int = REQUESTS, tokens: int = REQUEST_TOKENS, seed: int = RUN_SEED, temperature=1,
               top_p=1, heads: SkipGramHeads | None = None, model: str | None = None) -> dict:
    """A session of a source on a prompt (see the module docstring): the pooled counts, and the
    counts of each request (`per_request`), with the source's cost and speed-up. heads: the
    skip-gram table, else the model file's (Language.heads)."""
    target = language.target
    source = make_source(source_name, heads or language.heads)
    widths = (candidates,) + (1,) * (gamma - 1)
    rng = random.Random(seed)
    greedy = temperature == 0
    keep = target.order - 1
    pooled, per_request = Tally(gamma), []
    for _ in range(requests):
        source.begin(prompt)
        text, tally = list(prompt), Tally(gamma)
        while len(text) - len(prompt) < tokens:
            tree = source.propose(text, widths)
            context = text[-keep:]
            trace = check_guess_tree(target, context, tree, rng, temperature=temperature, top_p=top_p)

            def p_at(path, context=context):
                dist = target.sparse((context + path)[-keep:])
                return dist if greedy else tempered(dist, temperature, top_p)

            tally.add(trace, p_at, greedy)
            pooled.add(trace, p_at, greedy)
            text.extend(trace.written)
        source.end(text[len(prompt):])
        per_request.append(tally.summary())
    summary = pooled.summary()
    c = draft_cost(source_name, gamma, **({"model": model} if model else {}))
    return {**summary, "source": source_name, "gamma": gamma, "candidates": candidates, "requests": requests,
            "request_tokens": tokens, "seed": seed, "temperature": temperature, "top_p": top_p, "c": c,
            "speedup": summary["tokens_per_pass"] / (1 + c), "per_request": per_request}
