"""The bench's readouts: alpha, tokens per pass, speed-up, best gamma and the paper roofline.

Sampling: the readouts come from sim.stats.measure on the run the chapters print, READOUT_TOKENS
tokens from the bench prefix with READOUT_SEED, so at the default settings the live readouts
equal the chapters' figures (sitebuild/figures/measured.py calls Readouts through Bench.readouts).

Greedy: one long greedy run measures nothing honest. Greedy n-gram text soon falls into a loop
("and the queen, and the queen, ...") that the draft predicts perfectly, and a 2,000-token run
spends nearly all its guesses there (alpha 0.998 on the English bigram draft). Once the last
two tokens repeat, a greedy run repeats itself forever: the target and both drafts look no
further back. So greedy readouts come from GREEDY_RUNS short runs from different seeded
sentence starts, each stopped at the pass in which its text returns to a two-token context it
had already seen (or at GREEDY_RUN_TOKENS tokens): every loop is counted at most once per start.

Cost: a measurement takes 0.01-0.3 s in CPython and about 1.5-3 times that in Pyodide; each
(draft, gamma, greedy, rule) is measured once per session and cached (alpha needs the gamma-4 one
too; batch changes are free). The build measures, on the book's models, only what the page's
first picture shows: the measurements the default settings' readouts make (first_measurements).
The page's snapshot opens its session with them (sim.session.measurements_json), so the picture
the reader sees before Pyodide is live is answered at once when it is; every other setting is
measured in the worker the first time it is asked for (about 0.2 s), as a reader's own text is.
The measurements are deterministic (fixed seeds, the same code), so both give the same numbers.
A new setting needs no entry here: the table holds whatever the default readouts measured.
"""

from __future__ import annotations

import random

from .. import roofline as rl
from .. import stats
from ..candidates import EXACT_RULES
from ..speculative import RULES as LINE_RULES
from ..speculative import speculative_step
from .commands import STREAM_GREEDY_STARTS, bench_prefix_ids, random_start, rng_for
from .settings import DRAFTS, MAX_GAMMA, RULES, Settings, check_settings
from .tree_readouts import run_tokens, tokens_per_pass, tree_run

PLAIN = (1, 1, 1)  # (candidates, temperature, top_p) of a line of guesses on the models' own distributions

DRAFT_COST = 0.1  # the small drum turns in a tenth of the big drum's time (c)

# The chapters' measurement (sitebuild/figures/measured.py uses the same; a test checks they agree).
READOUT_TOKENS = 2000
READOUT_SEED = 20230201
READOUT_GAMMA = 4  # alpha is measured once per draft and mode, at this gamma

GREEDY_RUNS = 100
GREEDY_RUN_TOKENS = 60

CONTEXT_TOKENS = 4096  # tokens of context per sequence, for the "with cache" figures


def greedy_runs(language, draft_name: str, gamma: int, *, runs: int = GREEDY_RUNS,
                max_tokens: int = GREEDY_RUN_TOKENS, seed: int = READOUT_SEED) -> dict:
    """Greedy speculative decoding from `runs` sentence starts, each stopped when it loops.

    Returns the fields of sim.stats.measure that the readouts use: acceptance_rate (kept /
    checked: greedy's alpha; beta means nothing here, so "alpha" is None), tokens_per_pass,
    passes, tokens, positions_checked; plus how many runs ended in a loop.
    """
    target, draft = language.target, language.draft(draft_name)
    keep = max(target.order, draft.order) - 1
    unused = random.Random(0)  # greedy steps draw no random numbers
    kept = checked = tokens = passes = looped = 0
    for run in range(runs):
        text = random_start(language, rng_for(seed, STREAM_GREEDY_STARTS, run))
        seen = {tuple(text[-keep:])}
        written = 0
        while written < max_tokens:
            trace = speculative_step(target, draft, text[-keep:], gamma, unused, greedy=True)
            passes += 1
            for guess in trace.guesses:
                if guess.checked:
                    checked += 1
                    kept += guess.kept
            repeated = False
            for t in trace.written:
                text.append(t)
                state = tuple(text[-keep:])
                repeated = repeated or state in seen
                seen.add(state)
            written += trace.n_written
            if repeated:
                looped += 1
                break
        tokens += written
    return {"alpha": None, "acceptance_rate": kept / checked,
            "tokens_per_pass": tokens / passes, "passes": passes, "tokens": tokens,
            "positions_checked": checked, "runs": runs, "runs_looped": looped,
            "max_tokens": max_tokens, "seed": seed}


def _key(draft: str, gamma: int, greedy: bool, rule: str, sampling: tuple = PLAIN) -> tuple:
    key = (draft, gamma, True) if greedy else (draft, gamma, False, rule)  # greedy ignores the rule
    return key if sampling == PLAIN else (*key, *sampling)


def sampling_of(s: Settings) -> tuple:
    """(candidates, temperature, top_p) as the measurements tell them apart: PLAIN for a line at
    temperature 1 without a cut, and for a greedy line (greedy has no temperature or top-p)."""
    if s["greedy"]:
        return PLAIN if s["candidates"] == 1 else (s["candidates"], 0, 1)
    return (s["candidates"], s["temperature"], s["top_p"])


def every_setting() -> list[tuple[str, int, bool, str]]:
    """Every (draft, gamma, greedy, rule) a measurement can be asked for; greedy ones once."""
    modes = [(True, RULES[0])] + [(False, rule) for rule in RULES]
    return [(draft, gamma, greedy, rule) for draft in DRAFTS for gamma in range(1, MAX_GAMMA + 1)
            for greedy, rule in modes]


# The fields of a measurement that readouts() reads (the rest, such as a sample of the text, stays out
# of the table the page's snapshot carries).
RUN_FIELDS = ("alpha", "acceptance_rate", "tokens_per_pass", "passes", "tokens", "runs_looped", "alpha_topk",
              "alpha_rules")


def _row(setting: tuple, run: dict, sampling: tuple = PLAIN) -> list:
    """[draft, gamma, greedy, rule, run] (and [candidates, temperature, top_p] unless PLAIN): one
    entry of what Readouts(measured=...) takes."""
    row = [*setting, {k: v for k, v in run.items() if k in RUN_FIELDS + ("alpha_candidates",)}]
    return row if sampling == PLAIN else [*row, list(sampling)]


def first_measurements(language) -> list[list]:
    """The rows the default settings' readouts measure (the page's first picture): the build's table."""
    readouts = Readouts(language)
    readouts.readouts(check_settings({}))
    return readouts.made()


class Readouts:
    """The readouts of one language's models, with the session's cache of measurements.

    measured: rows made on these same models (first_measurements, by the build), taken as the
    cache's first entries.
    """

    def __init__(self, language, measured: list | None = None):
        self.language = language
        self._runs: dict[tuple, dict] = {}
        self._made: list[list] = []  # rows measured here, in the order asked (made())
        for draft, gamma, greedy, rule, run, *sampling in measured or ():
            self._runs[_key(draft, gamma, greedy, rule, tuple(sampling[0]) if sampling else PLAIN)] = run

    def measure(self, draft: str, gamma: int, greedy: bool, rule: str, sampling: tuple = PLAIN) -> dict:
        key = _key(draft, gamma, greedy, rule, sampling)
        run = self._runs.get(key)
        if run is None:
            if sampling != PLAIN or (rule not in LINE_RULES and not greedy):
                run = self._tree_run(draft, gamma, greedy, rule, sampling)
            elif greedy:
                run = greedy_runs(self.language, draft, gamma)
            else:
                run = stats.measure(self.language, draft, gamma=gamma, n_tokens=READOUT_TOKENS,
                                    seed=READOUT_SEED, rule=rule, c=DRAFT_COST)
            self._runs[key] = run
            self._made.append(_row((draft, gamma, greedy, rule), run, sampling))
        return run

    def _tree_run(self, draft: str, gamma: int, greedy: bool, rule: str, sampling: tuple) -> dict:
        """Several candidates, a temperature or a top-p (sim.bench.tree_readouts), on the text the
        other readouts use: READOUT_TOKENS from the bench prefix, or the greedy runs' starts."""
        k, temperature, top_p = sampling
        widths = (k,) + (1,) * (gamma - 1)
        if greedy:
            starts = [random_start(self.language, rng_for(READOUT_SEED, STREAM_GREEDY_STARTS, run))
                      for run in range(GREEDY_RUNS)]
            return tree_run(self.language, draft, widths, rule="exact", temperature=0, top_p=1,
                            n_tokens=GREEDY_RUN_TOKENS, seed=READOUT_SEED, texts=starts)
        return tree_run(self.language, draft, widths, rule=rule, temperature=temperature, top_p=top_p,
                        n_tokens=run_tokens(temperature, top_p, READOUT_TOKENS), seed=READOUT_SEED)

    def made(self) -> list[list]:
        """The rows this session measured itself (not those it was given), as Readouts(measured=...) takes them."""
        return [list(row) for row in self._made]

    def alpha(self, draft: str, greedy: bool, rule: str, sampling: tuple = PLAIN) -> tuple[float, str, dict]:
        """(alpha, kind, run) for a draft and mode, from the gamma-4 reference run."""
        run = self.measure(draft, READOUT_GAMMA, greedy, rule, sampling)
        if run["alpha"] is None or rule not in EXACT_RULES:
            return run["acceptance_rate"], "acceptance_rate", run
        return run["alpha"], "beta", run

    @staticmethod
    def alpha_rules(ref: dict, alpha: float) -> dict:
        """{rule: alpha_k} for each exact rule at the same positions (tree_readouts); a line's run
        at temperature 1 (sim.stats.measure) gives k = 1: beta for "exact" and "recursive",
        p(the draft's likeliest) for "topk"; greedy: alpha for all three."""
        if "alpha_rules" in ref:
            return ref["alpha_rules"]
        if ref["alpha"] is None:  # greedy runs
            return dict.fromkeys(EXACT_RULES, alpha)
        return {"exact": ref["alpha"], "recursive": ref["alpha"], "topk": ref["alpha_topk"]}

    def method(self, greedy: bool, temperature=1, top_p=1) -> dict:
        """How the readouts were measured (the page says it beside them)."""
        if greedy:
            return {"method": "greedy_runs", "runs": GREEDY_RUNS, "max_tokens": GREEDY_RUN_TOKENS,
                    "seed": READOUT_SEED, "alpha_gamma": READOUT_GAMMA}
        return {"method": "one_run", "n_tokens": run_tokens(temperature, top_p, READOUT_TOKENS), "seed": READOUT_SEED,
                "alpha_gamma": READOUT_GAMMA, "prefix": self.language.decode(bench_prefix_ids(self.language))}

    def cached(self, settings: Settings) -> bool:
        """Whether readouts(settings) would answer at once (both its measurements are made)."""
        s = settings
        keys = [_key(s["draft"], gamma, s["greedy"], s["rule"], sampling_of(s)) for gamma in (READOUT_GAMMA, s["gamma"])]
        return all(key in self._runs for key in keys)

    def readouts(self, s: Settings) -> dict:
        """Alpha, tokens per pass (formula and counted), speed-up, best gamma and the roofline.

        alpha is a property of the draft and the text, not of gamma: it is measured once per
        (draft, greedy, rule), at gamma 4, so the speed-up curve does not wobble as gamma
        moves. Sampling with the exact rule: alpha = mean of beta = sum min(p, q) over the
        positions checked (Leviathan et al.'s alpha). Greedy, or a non-exact rule: alpha = the
        share of checked guesses kept (beta does not describe those rules). Greedy runs: see
        the module docstring. tokens_per_pass_counted comes from a measurement at the current
        gamma; the formula is (1 - alpha^(gamma+1)) / (1 - alpha).
        """
        sampling = sampling_of(s)
        alpha, kind, ref = self.alpha(s["draft"], s["greedy"], s["rule"], sampling)
        gamma, c = s["gamma"], DRAFT_COST
        run = self.measure(s["draft"], gamma, s["greedy"], s["rule"], sampling)
        k = s["candidates"]
        alpha_k = alpha if k == 1 else ref["alpha_candidates"]
        if k == 1:
            curve = [[g, stats.speedup(alpha, g, c)] for g in range(1, MAX_GAMMA + 1)]
            best = stats.best_gamma(alpha, c, max_gamma=MAX_GAMMA)
            formula = stats.expected_tokens_per_pass(alpha, gamma)
        else:  # the tree's: k candidates for the first guess, a line after each (tree_readouts)
            curve = [[g, tokens_per_pass(alpha, alpha_k, g) / (g * c + 1)] for g in range(1, MAX_GAMMA + 1)]
            best = max(curve, key=lambda point: (point[1], -point[0]))[0]
            formula = tokens_per_pass(alpha, alpha_k, gamma)
        measure = self.method(s["greedy"], s["temperature"], s["top_p"])
        if s["greedy"]:
            measure["runs_looped"] = ref["runs_looped"]
        proposed = s["lanes_per_sequence"] - 1  # guesses a pass offers: every node of its tree
        return {
            "settings": s.as_json(),
            "alpha": alpha,
            "alpha_kind": kind,
            "candidates": k,
            "alpha_candidates": alpha_k,
            "alpha_rules": self.alpha_rules(ref, alpha),
            "lanes_per_sequence": s["lanes_per_sequence"],
            "alpha_beta": ref["alpha"],
            "acceptance_rate": ref["acceptance_rate"],
            "acceptance_rate_counted": run["acceptance_rate"],
            "tokens_per_pass_counted": run["tokens_per_pass"],
            "tokens_per_pass_formula": formula,
            # What vLLM and SGLang report, from the same passes: 1 + accepted guesses per pass (a
            # pass writes its accepted guesses and one token of the target's own), and accepted
            # guesses over guesses proposed; the formula's value of the second, the first's is
            # tokens_per_pass_formula. Guesses after a rejection count as proposed, not accepted.
            "mean_acceptance_length": run["tokens"] / run["passes"],
            "draft_acceptance_rate": (run["tokens"] - run["passes"]) / (run["passes"] * proposed),
            "draft_acceptance_rate_formula": (formula - 1) / proposed,
            "guesses_per_pass": proposed,
            "passes": run["passes"],
            "tokens": run["tokens"],
            "measure": measure,
            "speedup": formula / (gamma * c + 1) if k > 1 else stats.speedup(alpha, gamma, c),
            "best_gamma": best,
            "best_speedup": curve[best - 1][1],
            "c": c,
            "curve": curve,
            "roofline": roofline_readout(s["batch"], gamma, formula, c, gpu=s["gpu"], model=s["model"],
                                         lanes_per_sequence=s["lanes_per_sequence"]),
        }


# --- roofline ------------------------------------------------------------------------------------------

def regime(g, m, batch: int, lanes: int, context: int, tokens_per_pass: float, cost: float) -> dict:
    """One pass of the target over `lanes` positions for `batch` sequences, on paper.

    The pass reads the weights once and each sequence's cache once (the positions of one
    sequence share its cache), and does 2N operations per lane; it takes whichever is longer.
    A step is that pass plus the draft's runs (cost x the pass; 0 for plain decoding).
    """
    read_s = rl.step_seconds(g, m, batch, context)
    arith_s = lanes * m.flops_per_token / g.flops
    pass_s = max(read_s, arith_s)
    step_s = pass_s * (1.0 + cost)
    return {
        "pass_ms": pass_s * 1e3,
        "step_ms": step_s * 1e3,
        "tokens_per_s": batch * tokens_per_pass / step_s,
        "arith_busy_fraction": arith_s / pass_s,
        "bytes_per_pass_gb": rl.bytes_per_step(m, batch, context) / 1e9,
        "bound": "arithmetic" if arith_s > read_s else "memory",
    }


def lanes_readout(batch: int, lanes_per_sequence: int, gpu: str = rl.DEFAULT_GPU,
                  model: str = rl.DEFAULT_MODEL) -> dict:
    """The lanes a speculative pass lights and the mill's share of them (no measurement needed):
    batch x lanes_per_sequence (Settings.lanes_per_sequence: gamma + 1 for a line of guesses)."""
    g, m = rl.gpu(gpu), rl.model(model)
    lanes = batch * lanes_per_sequence
    match = rl.balance_lanes(g, m)
    return {"batch": batch, "lanes": lanes, "lanes_to_match": match, "mill_share": min(1.0, lanes / match)}


def roofline_readout(batch: int, gamma: int, tokens_per_pass: float, c: float = DRAFT_COST, *,
                     gpu: str = rl.DEFAULT_GPU, model: str = rl.DEFAULT_MODEL,
                     lanes_per_sequence: int | None = None) -> dict:
    """Paper roofline of a model on a GPU (rows of sim.roofline) at the bench's batch, plain and speculative.

    Lanes are the positions the target computes per read of a weight: batch for plain
    decoding, batch x (gamma + 1) when speculating (gamma guesses plus the bonus position of
    each sequence), batch x lanes_per_sequence over a tree of candidates (every node is scored). lanes_to_match = lanes at which arithmetic time equals weight-reading
    time (machine balance / intensity at one lane, about 295). "weights_only" counts weight
    reads alone; "with_cache" adds each sequence's key/value cache of CONTEXT_TOKENS tokens.
    The speculative tokens per second use the formula's expected tokens per pass and a step
    of one target pass plus gamma draft runs at c times a pass each (the speed-up's model).
    The flat tokens_per_s_* and arith_busy_fraction* fields are the speculative ones (what
    the bench, as set, does); "plain" has the same figures for one token per sequence per
    pass (chapters 1-2: batch 64 gives ~14,300 and ~4,340 tokens/s). arith_busy_fraction
    (weights only) = min(1, lanes / lanes_to_match): the mill's gauge.
    """
    g, m = rl.gpu(gpu), rl.model(model)
    per_sequence = gamma + 1 if lanes_per_sequence is None else lanes_per_sequence
    lanes = lanes_readout(batch, per_sequence, gpu, model)["lanes"]
    plain = {name: regime(g, m, batch, batch, ctx, 1.0, 0.0)
             for name, ctx in (("weights_only", 0), ("with_cache", CONTEXT_TOKENS))}
    spec = {name: regime(g, m, batch, lanes, ctx, tokens_per_pass, gamma * c)
            for name, ctx in (("weights_only", 0), ("with_cache", CONTEXT_TOKENS))}
    return {
        "gpu": g.name,
        "model": m.name,
        "gpu_key": g.key,
        "model_key": m.key,
        # Whether one GPU holds the weights (70B's 141 GB do not fit in 80 GB: the paper figures
        # still price one read of them; a real deployment splits the model over several GPUs).
        "weights_fit": m.weight_bytes <= g.memory,
        "weights_gb": m.weight_bytes / 1e9,
        "memory_gb": g.memory / 1e9,
        "batch": batch,
        "gamma": gamma,
        "context_tokens": CONTEXT_TOKENS,
        "lanes_plain": batch,
        "lanes_per_sequence": per_sequence,
        "lanes": lanes,
        "lanes_to_match": rl.balance_lanes(g, m),
        "cache_gb": rl.kv_cache_bytes(m, batch, CONTEXT_TOKENS) / 1e9,
        # The bench as set (speculating), flat, for the readout line and the mill's gauge:
        "tokens_per_s_weights_only": spec["weights_only"]["tokens_per_s"],
        "tokens_per_s_with_cache": spec["with_cache"]["tokens_per_s"],
        "arith_busy_fraction": spec["weights_only"]["arith_busy_fraction"],
        "arith_busy_fraction_with_cache": spec["with_cache"]["arith_busy_fraction"],
        "plain": plain,
        "speculative": spec,
    }
