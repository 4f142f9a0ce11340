"""The drafts without a second model (sim.free_drafts) on the bench: a pass described for drawing, and
their readouts, in the shapes the bench's model drafts give (sim.bench.commands.step, sim.bench.readouts).

Not yet values of the `draft` setting: the page's menu, strings and build figures read that table, so a
caller names the source beside the settings (whose `draft` is then unused). A chosen guess is a point
mass: its q is 1 and its ratio the chance the point-mass rule kept it with (p_j(x), sim.guess_tree).

The readouts' curve of speed-up against gamma comes from one run at the bench's largest gamma: a pass of
gamma guesses keeps its first j with the chances the longer run counted by position, so
tokens per pass(gamma) = 1 + coverage x (accepted_by_position[0] + ... + [gamma - 1]) and the speed-up
that over 1 + c(gamma). Approximate where a shorter pass would have written a different text (the
counted figures at the bench's gamma come from a run of their own).
"""

from __future__ import annotations

from ..free_drafts import SkipGramHeads, draft_cost
from ..free_runs import REQUEST_TOKENS, REQUESTS, RUN_SEED, make_source, run_source
from ..guess_tree import GuessTree, check_guess_tree
from ..prompts import prompt_ids
from ..tempering import tempered
from .commands import STREAM_STEP, rng_for, runtime, written_tokens
from .passes import verdict
from .settings import MAX_GAMMA, Settings


def _shown(tree: GuessTree, trace) -> list[int]:
    """Node indices of the branch on show, one per level: the kept ones, then the refusal that ended
    the pass, then the first guesses below it (void)."""
    shown = list(trace.path)
    node = shown[-1] if shown else None
    kids = tree.children(node)
    if kids:
        checked = [i for i in kids if trace.checked[i]]
        shown.append(checked[-1] if checked else kids[0])
        while tree.children(shown[-1]):
            shown.append(tree.children(shown[-1])[0])
    return shown


def free_pass(language, settings: Settings, source, context: list[int], step_index: int = 0) -> dict:
    """One pass of a source after the context (its whole text: prompt and writing), as
    sim.bench.commands.step describes a model draft's, without the exactness table."""
    target = language.target
    greedy = settings.greedy
    tree = source.propose(list(context), settings.widths)
    rng = rng_for(settings.seed, STREAM_STEP, step_index)
    keep = target.order - 1
    trace = check_guess_tree(target, context[-keep:], tree, rng, temperature=settings.temperature,
                             top_p=settings.top_p)

    def p_at(node):
        path = tree.path_tokens(tree.parents[node]) if tree.parents[node] is not None else []
        dist = target.sparse((context + path)[-keep:])
        return dist if greedy else tempered(dist, settings.temperature, settings.top_p)

    def described(i):
        p = p_at(i)
        chance = trace.p[i] if trace.checked[i] else p.prob(tree.tokens[i])
        return {"token": tree.tokens[i], "text": language.vocab[tree.tokens[i]], "q": 1.0,
                "p": p.prob(tree.tokens[i]), "ratio": chance, "r": trace.r[i], "kept": trace.kept[i],
                "checked": trace.checked[i], "verdict": verdict(trace.kept[i], trace.checked[i]),
                "threshold": None, "best": p.argmax() if (greedy and trace.checked[i]) else None}

    shown = _shown(tree, trace)
    positions = [{"depth": depth, "candidates": [{**described(j), "shown": j == i}
                                                 for j in tree.children(tree.parents[i])]}
                 for depth, i in enumerate(shown)]
    n_kept = trace.accepted
    written, replacement, bonus = written_tokens(language, trace.written[:n_kept], trace.replacement, trace.bonus)
    return {
        "context": list(context), "settings": settings.as_json(), "source": source.name,
        "step_index": step_index, "guesses": [described(i) for i in shown], "positions": positions,
        "tree": {"tokens": list(tree.tokens), "parents": list(tree.parents)},
        "n_checked": sum(trace.checked), "n_kept": n_kept, "replacement": replacement, "bonus": bonus,
        "written": written, "written_display": language.decode(trace.written), "n_written": len(trace.written),
        "lanes_per_sequence": len(tree) + 1, "lanes": settings.batch * (len(tree) + 1), "runtime": runtime(),
    }


def free_readouts(language, settings: Settings, source_name: str, prompt_kind: str = "none",
                  heads: SkipGramHeads | None = None, own_text: str | None = None) -> dict:
    """A source's readouts under the settings (gamma, candidates, temperature, top-p, model) on a
    prompt of sim.prompts: the counted figures of sim.free_runs at the bench's gamma, and the
    speed-up curve (see the module docstring)."""
    prompt = prompt_ids(language, prompt_kind, own_text)
    common = {"candidates": settings.candidates, "requests": REQUESTS, "tokens": REQUEST_TOKENS, "seed": RUN_SEED,
              "temperature": settings.temperature, "top_p": settings.top_p, "heads": heads, "model": settings.model}
    run = run_source(language, source_name, prompt, gamma=settings.gamma, **common)
    longest = run if settings.gamma == MAX_GAMMA else run_source(language, source_name, prompt, gamma=MAX_GAMMA,
                                                                 **common)
    curve = []
    for g in range(1, MAX_GAMMA + 1):
        tokens = 1 + longest["coverage"] * sum(longest["accepted_by_position"][:g])
        curve.append([g, tokens / (1 + draft_cost(source_name, g, settings.model))])
    best = max(curve, key=lambda point: (point[1], -point[0]))[0]
    fields = ("alpha", "acceptance_rate", "accepted_by_position", "kept_given_checked", "tokens_per_pass",
              "tokens_per_pass_formula", "mean_acceptance_length", "draft_acceptance_rate", "coverage", "passes",
              "drafts", "proposed", "accepted", "tokens", "c", "speedup")
    return {**{name: run[name] for name in fields}, "settings": settings.as_json(), "source": source_name,
            "prompt": prompt_kind, "alpha_kind": "point_mass" if not settings.greedy else "acceptance_rate",
            "guesses_per_draft": run["proposed"] / run["drafts"] if run["drafts"] else 0.0,
            "curve": curve, "best_gamma": best, "best_speedup": curve[best - 1][1],
            "measure": {"method": "session", "requests": REQUESTS, "tokens": REQUEST_TOKENS, "seed": RUN_SEED}}


def free_run(language, settings: Settings, source_name: str, steps: int, prompt_kind: str = "none",
             heads: SkipGramHeads | None = None) -> list[dict]:
    """The first `steps` passes of one request from a prompt (the tape of a free source)."""
    source = make_source(source_name, heads or language.heads)
    text = prompt_ids(language, prompt_kind)
    source.begin(text)
    passes = []
    for index in range(steps):
        shown = free_pass(language, settings, source, text, index)
        passes.append(shown)
        text = text + [w["id"] for w in shown["written"]]
    return passes
