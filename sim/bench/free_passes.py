"""The drafts without a second model (sim.free_drafts) on the bench: a pass described for drawing, and
their readouts, in the shapes the bench's model drafts give (sim.bench.commands.step, sim.bench.readouts).

Values of the `draft` setting (sim.bench.settings.FREE_SOURCES): sim.bench.replay replays a free source's
sentence with FreeReplay and its readouts with bench_readouts. A chosen guess is a point
mass: its q is 1 and its ratio the chance the point-mass rule kept it with (p_j(x), sim.guess_tree).

The readouts' curve of speed-up against gamma comes from one run at the bench's largest gamma: a pass of
gamma guesses keeps its first j with the chances the longer run counted by position, so
tokens per pass(gamma) = 1 + coverage x (accepted_by_position[0] + ... + [gamma - 1]) and the speed-up
that over 1 + c(gamma). Approximate where a shorter pass would have written a different text (the
counted figures at the bench's gamma come from a run of their own).
"""

from __future__ import annotations

import math

from ..free_drafts import PROMPT_SOURCES, SkipGramHeads, draft_cost
from ..free_runs import REQUEST_TOKENS, REQUESTS, RUN_SEED, make_source, run_source
from ..guess_tree import GuessTree, check_guess_tree
from ..prompts import ECHO_CUE, prompt_ids
from ..tempering import tempered
from .commands import OTHER_ID, STREAM_STEP, clean, rng_for, top_by_p, which_python, written_tokens
from .layout import CONTEXT_SENT
from .passes import verdict
from .readouts import roofline_readout
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
        "context": list(context), "context_text": language.decode(context[-CONTEXT_SENT:]),
        "settings": settings.as_json(), "source": source.name,
        "step_index": step_index, "guesses": [described(i) for i in shown], "positions": positions,
        "tree": {"tokens": list(tree.tokens), "parents": list(tree.parents)},
        "n_checked": sum(trace.checked), "n_kept": n_kept, "replacement": replacement, "bonus": bonus,
        "written": written, "written_display": language.decode(trace.written), "n_written": len(trace.written),
        "lanes_per_sequence": len(tree) + 1, "lanes": settings.batch * (len(tree) + 1), "python": which_python(),
    }


def free_readouts(language, settings: Settings, source_name: str, prompt_kind: str = "none",
                  heads: SkipGramHeads | None = None, own_text: str | None = None, requests: int = REQUESTS) -> dict:
    """A source's readouts under the settings (gamma, candidates, temperature, top-p, model) on a
    prompt of sim.prompts: the counted figures of sim.free_runs at the bench's gamma, and the
    speed-up curve (see the module docstring)."""
    prompt = request_prompt(language, prompt_kind, own_text)
    common = {"candidates": settings.candidates, "requests": requests, "tokens": REQUEST_TOKENS, "seed": RUN_SEED,
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
            "measure": {"method": "session", "requests": requests, "tokens": REQUEST_TOKENS, "seed": RUN_SEED}}


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


# --- the bench's replay of a free source ---------------------------------------------------------------

# Suffix decoding's "earlier outputs" on the bench are the sentences the bench state itself names: those
# of the seeds just before this one (at most EARLIER_SENTENCES, none below FIRST_SEED, the page's first
# sentence), each as its first EARLIER_TOKENS tokens under the same settings. So a link replays what
# the reader saw, and "New sentence" after a first sentence gives suffix that sentence to draw on.
EARLIER_SENTENCES = 2
EARLIER_TOKENS = 40
FIRST_SEED = 1
OWN_PROMPT_TOKENS = 2000  # the reader's text as a prompt: its last tokens (a suffix tree over 200,000 is not quick)


def bench_prompt(language, kind: str, own_text: str | None) -> tuple[list[int], list[int] | None, bool]:
    """(the prompt's tokens the sources search, the sentence's start when the prompt gives it, whether
    the prompt is the one asked for). The sentence starts where sim.prompts' request does: "echo"
    with the passage's own opening (the request to say it again), "fresh" with the bench's prefix, so
    that at T = 0 every sentence on a prompt is the same text (what suffix decoding's earlier outputs
    then hold); "none" and "own" leave the seed's random start. "own" without a text of the reader's
    in use is the empty prompt, and says so (the third value False), as is "echo" or "fresh" on models
    counted from a reader's text that lacks a word of the book's passage."""
    if kind == "none" or (kind == "own" and not own_text):
        return [], None, kind == "none"
    if kind == "own":
        return prompt_ids(language, "own", own_text)[:-len(prompt_ids(language, "none"))][-OWN_PROMPT_TOKENS:], None, True
    try:
        passage = prompt_ids(language, "fresh")[:-len(prompt_ids(language, "none"))]
    except ValueError:  # a word of the book's passage that models counted from a reader's text lack
        return [], None, False
    return passage, (passage[:ECHO_CUE] if kind == "echo" else prompt_ids(language, "none")), True


def request_prompt(language, kind: str, own_text: str | None) -> list[int]:
    """A measured request's prompt (sim.prompts.prompt_ids), or the bench's prefix alone where
    bench_prompt finds the prompt asked for empty: "own" without a text of the reader's, or a book's
    passage the models in use cannot read."""
    empty = (not own_text) if kind == "own" else (kind != "none" and not bench_prompt(language, kind, own_text)[2])
    return prompt_ids(language, "none" if empty else kind, own_text)


def earlier_seeds(seed: int) -> list[int]:
    """The seeds whose sentences suffix decoding has seen before this one's, oldest first."""
    return [s for s in range(max(FIRST_SEED, seed - EARLIER_SENTENCES), seed)]


class FreeReplay:
    """A free source's sentence on the bench, pass by pass (what sim.bench.replay keeps per settings):
    the prompt, the sentence and its passes, as a model draft's run, with the source's own state."""

    def __init__(self, language, settings: Settings, start, heads: SkipGramHeads | None = None,
                 own_text: str | None = None):
        """start(seed): the sentence's random start for a seed (sim.bench.commands.random_start)."""
        self.language, self.settings = language, settings.but(batch=1)
        self.prompt, cue, self.prompt_found = bench_prompt(language, settings.prompt, own_text)
        self.source = make_source(settings.draft, heads)
        self.earlier = []
        if settings.draft == "suffix":
            for seed in earlier_seeds(settings.seed):
                base = self._sentence(cue, start, seed)
                text, index = list(base), 0
                self.source.begin(self.prompt)
                while len(text) - len(base) < EARLIER_TOKENS:
                    shown = free_pass(language, self.settings.but(seed=seed), self.source, self.prompt + text, index)
                    text += [w["id"] for w in shown["written"]]
                    index += 1
                self.source.end(text)
                self.earlier.append(text)
        sentence = self._sentence(cue, start, settings.seed)
        self.source.begin(self.prompt)
        self.run = {"sentence": sentence, "text": list(sentence), "passes": []}

    @staticmethod
    def _sentence(cue, start, seed) -> list[int]:
        return list(cue) if cue is not None else list(start(seed))

    def extend(self, steps: int) -> dict:
        run = self.run
        while len(run["passes"]) < steps:
            shown = free_pass(self.language, self.settings, self.source, self.prompt + run["text"], len(run["passes"]))
            run["passes"].append(shown)
            run["text"].extend(w["id"] for w in shown["written"])
        return run

    def described(self) -> dict:
        """The prompt and the earlier sentences as the page shows them."""
        decode = self.language.decode
        return {"kind": self.settings.prompt, "searched": self.settings.draft in PROMPT_SOURCES,
                "found": self.prompt_found, "tokens": len(self.prompt),
                "text": decode(self.prompt) if self.prompt else "",
                "earlier": [decode(t) for t in self.earlier]}


def point_mass_table(language, context: list[int], guess: int | None, top: int) -> dict:
    """The exactness table (sim.bench.commands.exactness_table's rows) for a chosen guess g: q is a point
    mass on g, so g is kept with p(g) (beta = p(g)) and, refused, the token is drawn from p with g struck
    out: the replacement share of x != g is (1 - p(g)) p(x) / (1 - p(g)) = p(x), and min + share = p(x).
    No guess (None): a plain step, every token drawn from p (beta 0, the share p(x))."""
    p = language.target.sparse(context)
    beta = p.prob(guess) if guess is not None else 0.0
    ranked = top_by_p(p, top)
    if guess is not None and guess not in {t for t, _ in ranked}:
        ranked = ranked[:top - 1] + [(guess, beta)]
    rows = [{"id": t, "text": language.vocab[t], "p": p_x, "q": 1.0 if t == guess else 0.0,
             "min": p_x if t == guess else 0.0, "residual_share": 0.0 if t == guess else p_x}
            for t, p_x in ranked]
    shown_p = math.fsum(r["p"] for r in rows)
    other = {"id": OTHER_ID, "text": None, "p": clean(1.0 - shown_p), "q": 0.0, "min": 0.0,
             "residual_share": clean(1.0 - shown_p)}
    return {"beta": beta, "tokens": rows, "other": other, "point_mass": True}


BENCH_REQUESTS = 8  # the readouts' session on the page: requests of REQUEST_TOKENS (the worker counts them live)


def bench_readouts(language, s: Settings, heads: SkipGramHeads | None, own_text: str | None) -> dict:
    """A free source's readouts in the fields the bench's model drafts give (sim.bench.readouts.Readouts),
    from a session of BENCH_REQUESTS requests on the bench's prompt (free_readouts). alpha is the chance a
    checked position's guess is kept, over the positions checked: a pass without a guess checks none and
    stays out of alpha (it counts in tokens per pass and in coverage). Every exact rule keeps a chosen guess
    (q a point mass) with p(guess), so alpha_rules are alpha. c is one guess's cost (draft_cost / gamma)."""
    kind = s.prompt if (s.prompt != "own" or own_text) else "none"
    r = free_readouts(language, s, s.draft, kind, heads, own_text, requests=BENCH_REQUESTS)
    c_run = r["c"] / s.gamma
    proposed = s.lanes_per_sequence - 1
    tpp = r["tokens_per_pass"]
    return {
        "settings": s.as_json(), "free": True, "source": s.draft, "prompt": kind,
        "alpha": r["alpha"], "alpha_kind": "point_mass", "candidates": s.candidates, "alpha_candidates": r["alpha"],
        "alpha_rules": dict.fromkeys(("exact", "recursive", "topk"), r["alpha"]),
        "lanes_per_sequence": s.lanes_per_sequence, "alpha_beta": r["alpha"],
        "acceptance_rate": r["acceptance_rate"], "acceptance_rate_counted": r["acceptance_rate"],
        "tokens_per_pass_counted": tpp, "tokens_per_pass_formula": r["tokens_per_pass_formula"],
        "mean_acceptance_length": r["mean_acceptance_length"], "draft_acceptance_rate": r["draft_acceptance_rate"],
        "draft_acceptance_rate_formula": (None if r["tokens_per_pass_formula"] is None
                                          else (r["tokens_per_pass_formula"] - 1) / proposed),
        "accepted_by_position": r["accepted_by_position"], "coverage": r["coverage"],
        "guesses_per_pass": proposed, "passes": r["passes"], "tokens": r["tokens"], "measure": r["measure"],
        "speedup": r["speedup"], "best_gamma": r["best_gamma"], "best_speedup": r["best_speedup"],
        "c": c_run, "c_pass": r["c"], "curve": r["curve"],
        "roofline": roofline_readout(s.batch, s.gamma, tpp, c_run, gpu=s.gpu, model=s.model,
                                     lanes_per_sequence=s.lanes_per_sequence),
    }
