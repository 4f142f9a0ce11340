"""The bench's commands (docs/bench-protocol.md): every number the interactive machine shows.

The page holds state and draws; this module computes. Each public function takes a Language
and plain JSON-like arguments and returns a JSON-ready dict; sim.session dispatches to them.
Bad arguments raise BenchError (a ValueError that names the parameter).

Random numbers. Every draw comes from a random.Random seeded by an integer made of the bench
seed, a stream and an index, so that one (seed, step_index) or (seed, round) gives the same
result in CPython and in Pyodide, whatever was asked before:

    random.Random((seed << 34) | (stream << 32) | index),  seed, index in 0..2**32 - 1,
    stream 0 = step (index = step_index), 1 = tube round (index = round), 2 = sentence start.

Readouts (alpha, tokens per pass, speed-up) come from sim.stats.measure on the same run the
chapters print: READOUT_TOKENS = 2000 tokens from the bench prefix with READOUT_SEED, so at
the default settings the live readouts equal the chapter's figures. That run is not cheap
(0.1-0.7 s in CPython or in the worker's Pyodide); it is made once per (draft, greedy,
rule) for alpha and once per (draft, gamma, greedy, rule) for the counted tokens per pass,
and cached for the session. The page should ask for readouts after the first step is drawn,
and debounce sliders. See `readouts` for what alpha means in greedy and typical modes.
"""

from __future__ import annotations

import math
import random
import re
import sys

from . import roofline as rl
from . import stats
from .speculative import first_tokens, residual_of, speculative_step, typical_threshold

DRAFTS = ("bigram", "unigram", "same")
RULES = ("exact", "typical", "replace_from_p")
MAX_GAMMA = 8
MAX_BATCH = 256
MAX_SEED = 2**32 - 1
MAX_INDEX = 2**32 - 1
MAX_TOP = 20
MAX_DRAWS = 1000
TUBE_DRAWS = 50  # draws per tube per round

DEFAULTS = {"draft": "bigram", "gamma": 4, "greedy": False, "batch": 1, "seed": 1, "rule": "exact"}

BENCH_PREFIX = dict(stats.DEFAULT_PREFIX)  # {"en": "said the", "zh": "慢慢"}

# The test tubes' default prefix. Chinese: the bench prefix, as chapter 6 says. English: not
# "said the", where Medusa's typical acceptance moves the top categories by only ~3 points
# (total variation) and no reader could see it drift; after "she said" it turns p("the") =
# 0.12 into 0.47, visible in one round, while the exact rule still converges to p.
TUBE_PREFIX = {"en": "she said", "zh": "慢慢"}

# The bench's cost of one draft run relative to one target run (the small drum's tenth).
DRAFT_COST = 0.1

# The chapters' measurement (sitebuild/figures.py uses the same; a test checks they agree).
READOUT_TOKENS = 2000
READOUT_SEED = 20230201
READOUT_GAMMA = 4  # alpha is measured once per draft and mode, at this gamma

# The roofline the bench's mill and cache cabinet show.
ROOFLINE_GPU = rl.DEFAULT_GPU
ROOFLINE_MODEL = rl.DEFAULT_MODEL
CONTEXT_TOKENS = 4096  # tokens of context per sequence, for the "with cache" figures

STREAM_STEP, STREAM_TUBE, STREAM_START = 0, 1, 2

# A new sentence starts after this token (the draw is taken from the target after it).
SENTENCE_END = {"en": ".", "zh": "。"}
START_TOKENS = 2
START_TRIES = 200

OTHER_ID = -1


class BenchError(ValueError):
    """A bad argument, named: str(err) is a readable message, err.param the argument's name."""

    def __init__(self, param: str, message: str):
        super().__init__(message)
        self.param = param


# --- settings -------------------------------------------------------------------------------------

_INT_TEXT = re.compile(r"[0-9]{1,12}")
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")

_INT_RANGES = {"gamma": (1, MAX_GAMMA), "batch": (1, MAX_BATCH), "seed": (0, MAX_SEED)}
_CHOICES = {"draft": DRAFTS, "rule": RULES}


def _choice_message(name: str, value) -> str:
    return f"{name} must be one of {', '.join(_CHOICES[name])}; got {value!r}"


def _int_message(name: str, value) -> str:
    low, high = _INT_RANGES[name]
    return f"{name} must be a whole number from {low} to {high}; got {value!r}"


def _greedy_message(value) -> str:
    return f"greedy must be true or false; got {value!r}"


def check_settings(args: dict) -> dict:
    """The settings of a command's JSON arguments, defaults filled in; BenchError if one is bad.

    JSON types are strict here (gamma 4, not "4"; greedy true, not "true"): the page sends what
    `settings` returned. URL strings go through `parse_query` instead.
    """
    if not isinstance(args, dict):
        raise BenchError("args", f"arguments must be a JSON object; got {type(args).__name__}")
    out = {}
    for name, default in DEFAULTS.items():
        value = args.get(name, default)
        if name in _CHOICES:
            if not isinstance(value, str) or value not in _CHOICES[name]:
                raise BenchError(name, _choice_message(name, value))
        elif name == "greedy":
            if not isinstance(value, bool):
                raise BenchError(name, _greedy_message(value))
        else:
            low, high = _INT_RANGES[name]
            if type(value) is not int or not low <= value <= high:
                raise BenchError(name, _int_message(name, value))
        out[name] = value
    return out


def parse_query(query: dict) -> dict:
    """URL parameters (strings) to settings: a bad value falls back to its default, reported.

    Accepted spellings: gamma, batch, seed as decimal digits; greedy as 1/0, true/false,
    yes/no, on/off (any case; a bare "?greedy" counts as true); draft and rule as their names
    (any case). Names the bench does not use are listed under "ignored", not as errors.
    """
    if not isinstance(query, dict):
        raise BenchError("query", f"query must be an object of parameter names to strings; got {query!r}")
    settings = dict(DEFAULTS)
    errors, ignored = [], []
    for name, raw in query.items():
        if name not in DEFAULTS:
            ignored.append(name)
            continue
        text = raw if isinstance(raw, str) else ("" if raw is None else str(raw))
        value = text.strip()
        message = None
        if name in _CHOICES:
            if value.lower() in _CHOICES[name]:
                settings[name] = value.lower()
            else:
                message = _choice_message(name, text)
        elif name == "greedy":
            if value == "" or value.lower() in _TRUE:
                settings[name] = True
            elif value.lower() in _FALSE:
                settings[name] = False
            else:
                message = _greedy_message(text)
        else:
            low, high = _INT_RANGES[name]
            if _INT_TEXT.fullmatch(value) and low <= int(value) <= high:
                settings[name] = int(value)
            else:
                message = _int_message(name, text)
        if message is not None:
            errors.append({"param": name, "value": text, "message": message, "default": DEFAULTS[name]})
    return {"settings": settings, "errors": errors, "ignored": sorted(ignored)}


def _int_arg(args: dict, name: str, low: int, high: int, default: int) -> int:
    value = args.get(name, default)
    if type(value) is not int or not low <= value <= high:
        raise BenchError(name, f"{name} must be a whole number from {low} to {high}; got {value!r}")
    return value


def rng_for(seed: int, stream: int, index: int) -> random.Random:
    """The random source of one step, tube round or sentence start (see the module docstring)."""
    return random.Random((seed << 34) | (stream << 32) | index)


# --- tokens and contexts ------------------------------------------------------------------------

def _token(language, token: int) -> dict:
    return {"id": token, "text": language.vocab[token]}


def bench_prefix_ids(language) -> list[int]:
    return language.encode(BENCH_PREFIX.get(language.lang, ""))


def _context(language, args: dict, default: dict = BENCH_PREFIX) -> list[int]:
    """Token ids from args["context"] (ids) or args["prefix"] (text); `default`'s prefix if neither."""
    if args.get("context") is not None:
        context = args["context"]
        if not isinstance(context, list):
            raise BenchError("context", f"context must be a list of token ids; got {context!r}")
        try:
            return language.target.check_context(context)
        except ValueError as err:
            raise BenchError("context", str(err)) from None
    if args.get("prefix") is not None:
        prefix = args["prefix"]
        if not isinstance(prefix, str):
            raise BenchError("prefix", f"prefix must be a string; got {prefix!r}")
        try:
            return language.encode(prefix)
        except ValueError as err:
            raise BenchError("prefix", str(err)) from None
    return language.encode(default.get(language.lang, ""))


def runtime() -> dict:
    """Where this Python runs: the page shows it, and tests use it to prove the work ran in Pyodide."""
    return {"python": sys.version.split()[0], "platform": sys.platform}


# --- start -------------------------------------------------------------------------------------------

def _is_word(lang: str, text: str) -> bool:
    return text[:1].isalnum() if lang == "en" else text.isalpha()


def start(language, args: dict) -> dict:
    """A new sentence: args["prefix"] (text) if given, else a random sentence start for
    args["seed"] if given, else the language's bench prefix.

    The random start draws START_TOKENS word tokens (no punctuation) from the target after a
    sentence end (English ".", Chinese "。"), redrawing a punctuation token; seeded by
    (seed, stream 2).
    """
    if args.get("prefix") is not None:
        ids = _context(language, {"prefix": args["prefix"]})
        if not ids:
            raise BenchError("prefix", "prefix has no tokens")
    elif args.get("seed") is not None:
        seed = _int_arg(args, "seed", 0, MAX_SEED, DEFAULTS["seed"])
        ids = _random_start(language, seed)
    else:
        ids = bench_prefix_ids(language)
    return {"tokens": [_token(language, t) for t in ids], "ids": ids, "text": language.decode(ids)}


def _random_start(language, seed: int) -> list[int]:
    rng = rng_for(seed, STREAM_START, 0)
    end = language.index.get(SENTENCE_END.get(language.lang, ""))
    running = [] if end is None else [end]
    target, vocab = language.target, language.vocab
    for _ in range(START_TOKENS):
        p = target.sparse(running)
        for _ in range(START_TRIES):
            token = p.sample(rng)
            if _is_word(language.lang, vocab[token]):
                break
        else:  # pragma: no cover - the books always have words after a full stop
            return bench_prefix_ids(language)
        running.append(token)
    return running[-START_TOKENS:]


# --- exactness ---------------------------------------------------------------------------------------

def top_by_p(p, k: int) -> list[tuple[int, float]]:
    """The k most likely tokens of a ChainDistribution as (id, p), most likely first, ties by id.

    Outside the support p is a constant times P1, and P1 never grows with the id (the
    vocabulary is sorted by frequency), so only the first k ids missing from the support
    can compete with it.
    """
    support = p.support
    inside = p.support_set
    candidates = list(support)
    vocab_size = len(p.base)
    added, w = 0, 0
    while added < k and w < vocab_size:
        if w not in inside:
            candidates.append(w)
            added += 1
        w += 1
    values = p.probs_at(candidates)
    ranked = sorted(zip(candidates, values), key=lambda pair: (-pair[1], pair[0]))
    return ranked[:k]


def _clean(x: float) -> float:
    """Remainders computed by subtraction: a rounding residue of either sign becomes 0."""
    return 0.0 if abs(x) < 1e-12 else x


def exactness_table(language, context: list[int], draft_name: str, top: int) -> dict:
    """Why a speculative token follows p, token by token, at one context.

    Per token x: p(x), q(x), min = min(p(x), q(x)) (the chance x is guessed and kept) and
    residual_share = (1 - beta) * residual(x) (the chance a guess is rejected and x is written
    instead), with min + residual_share = p(x) up to float rounding. "other" aggregates every
    other token (its fields are 1 or beta minus the rows shown).
    """
    target, draft = language.target, language.draft(draft_name)
    p = target.sparse(context)
    q = draft.sparse(context)
    residual = residual_of(p, q)
    beta = residual.beta
    rejected = 1.0 - beta
    rows = []
    for token, p_x in top_by_p(p, top):
        q_x = q.prob(token)
        rows.append({"id": token, "text": language.vocab[token], "p": p_x, "q": q_x,
                     "min": p_x if p_x < q_x else q_x,
                     "residual_share": rejected * residual.prob(token)})
    other = {"id": OTHER_ID, "text": None,
             "p": _clean(1.0 - math.fsum(r["p"] for r in rows)),
             "q": _clean(1.0 - math.fsum(r["q"] for r in rows)),
             "min": _clean(beta - math.fsum(r["min"] for r in rows)),
             "residual_share": _clean(rejected - math.fsum(r["residual_share"] for r in rows))}
    return {"beta": beta, "tokens": rows, "other": other}


def exactness(language, args: dict) -> dict:
    """The `exactness` command: {context|prefix, draft, top} -> the table at that context."""
    context = _context(language, args)
    draft = args.get("draft", DEFAULTS["draft"])
    if not isinstance(draft, str) or draft not in DRAFTS:
        raise BenchError("draft", _choice_message("draft", draft))
    top = _int_arg(args, "top", 1, MAX_TOP, 8)
    table = exactness_table(language, context, draft, top)
    return {"context": context, "context_text": language.decode(context), "draft": draft, **table}


# --- step --------------------------------------------------------------------------------------------

def step(language, args: dict) -> dict:
    """One speculative step after the context, described for drawing.

    Arguments: the settings, plus "context" (token ids) or "prefix" (text; the bench prefix if
    neither), "step_index" (default 0) and "exactness_top" (rows of the exactness table at the
    step's first position; default 8, 0 leaves the table out). Random source: (seed, step_index).
    """
    settings = check_settings(args)
    context = _context(language, args)
    step_index = _int_arg(args, "step_index", 0, MAX_INDEX, 0)
    exactness_top = _int_arg(args, "exactness_top", 0, MAX_TOP, 8)
    gamma, greedy, rule = settings["gamma"], settings["greedy"], settings["rule"]
    draft = language.draft(settings["draft"])
    rng = rng_for(settings["seed"], STREAM_STEP, step_index)
    trace = speculative_step(language.target, draft, context, gamma, rng, greedy=greedy, rule=rule)
    vocab = language.vocab

    guesses = []
    for g in trace.guesses:
        p = g.target_dist
        guesses.append({
            "token": g.token, "text": vocab[g.token], "q": g.q, "p": g.p, "ratio": g.ratio,
            "r": g.r, "kept": g.kept, "checked": g.checked,
            # typical rule: kept when p > threshold; greedy: kept when token == best.
            "threshold": typical_threshold(p) if (g.checked and rule == "typical" and not greedy) else None,
            "best": p.argmax() if (g.checked and greedy) else None,
        })
    written = [{"id": t, "text": vocab[t], "kind": "kept"} for t in trace.written[:trace.n_kept]]
    replacement = bonus = None
    if trace.replacement is not None:
        replacement = _token(language, trace.replacement)
        written.append({**replacement, "kind": "replacement"})
    if trace.bonus is not None:
        bonus = _token(language, trace.bonus)
        written.append({**bonus, "kind": "bonus"})
    out = {
        "context": list(context),
        "context_text": language.decode(context),
        "settings": settings,
        "step_index": step_index,
        "guesses": guesses,
        "n_kept": trace.n_kept,
        "replacement": replacement,
        "bonus": bonus,
        "written": written,
        "written_text": [w["text"] for w in written],
        "n_written": trace.n_written,
        "lanes_per_sequence": gamma + 1,
        "lanes": settings["batch"] * (gamma + 1),
        "exactness": (exactness_table(language, context, settings["draft"], exactness_top)
                      if exactness_top else None),
        "runtime": runtime(),
    }
    return out


# --- tube round --------------------------------------------------------------------------------------

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


class Bench:
    """The bench's commands for one language, with the session's caches."""

    def __init__(self, language):
        self.language = language
        self._alpha_runs: dict[tuple, dict] = {}
        self._count_runs: dict[tuple, dict] = {}
        self._spec: dict[tuple, list[float]] = {}

    # commands
    def settings(self, args: dict) -> dict:
        return parse_query(args.get("query", {}))

    def start(self, args: dict) -> dict:
        return start(self.language, args)

    def step(self, args: dict) -> dict:
        return step(self.language, args)

    def exactness(self, args: dict) -> dict:
        return exactness(self.language, args)

    def tube_round(self, args: dict) -> dict:
        """Direct target draws and speculative first-token draws after a context (default:
        TUBE_PREFIX), counted into the top tokens by p plus "other"."""
        settings = check_settings(args)
        language = self.language
        context = _context(language, args, TUBE_PREFIX)
        round_index = _int_arg(args, "round", 0, MAX_INDEX, 0)
        draws = _int_arg(args, "draws", 1, MAX_DRAWS, TUBE_DRAWS)
        top = _int_arg(args, "top", 1, MAX_TOP, 8)
        target, draft = language.target, language.draft(settings["draft"])
        rule, greedy = settings["rule"], settings["greedy"]
        p, q = target.sparse(context), draft.sparse(context)
        ranked = top_by_p(p, top)
        slot = {token: i for i, (token, _) in enumerate(ranked)}
        other = len(ranked)
        spec_dense = self._spec_dense(context, settings["draft"], p, q, rule, greedy)

        rng = rng_for(settings["seed"], STREAM_TUBE, round_index)
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
            for token, kept in first_tokens(target, draft, context, rng, draws, rule=rule):
                (kept_counts if kept else target_counts)[slot.get(token, other)] += 1

        categories = [{"id": token, "text": language.vocab[token], "p": p_x,
                       "spec_p": spec_dense[token]} for token, p_x in ranked]
        categories.append({"id": OTHER_ID, "text": None,
                           "p": _clean(1.0 - math.fsum(c["p"] for c in categories)),
                           "spec_p": _clean(1.0 - math.fsum(c["spec_p"] for c in categories))})
        return {"round": round_index, "draws": draws, "settings": settings, "context": context,
                "context_text": language.decode(context), "categories": categories,
                "target": direct, "spec_kept": kept_counts, "spec_target": target_counts}

    def _spec_dense(self, context, draft_name, p, q, rule, greedy) -> list[float]:
        key = (tuple(context[-2:]), draft_name, rule, greedy)
        dense = self._spec.get(key)
        if dense is None:
            dense = spec_distribution(p, q, rule, greedy)
            if len(self._spec) > 64:
                self._spec.clear()
            self._spec[key] = dense
        return dense

    # readouts
    def _measure(self, draft: str, gamma: int, greedy: bool, rule: str) -> dict:
        key = (draft, gamma, greedy, rule)
        run = self._count_runs.get(key)
        if run is None:
            run = stats.measure(self.language, draft, gamma=gamma, n_tokens=READOUT_TOKENS,
                                seed=READOUT_SEED, greedy=greedy, rule=rule, c=DRAFT_COST)
            self._count_runs[key] = run
        return run

    def alpha(self, draft: str, greedy: bool, rule: str) -> tuple[float, str, dict]:
        """(alpha, kind, run) for a draft and mode, from the gamma-4 reference run."""
        run = self._measure(draft, READOUT_GAMMA, greedy, rule)
        if greedy or rule != "exact":
            return run["acceptance_rate"], "acceptance_rate", run
        return run["alpha"], "beta", run

    def readouts(self, args: dict) -> dict:
        """Alpha, tokens per pass (formula and counted), speed-up, best gamma and the roofline.

        alpha is a property of the draft and the text, not of gamma: it is measured once per
        (draft, greedy, rule), at gamma 4 on the chapters' run (READOUT_TOKENS tokens, seed
        READOUT_SEED), so the speed-up curve does not wobble as gamma moves. Sampling with the
        exact rule: alpha = mean of beta = sum min(p, q) over the positions checked (Leviathan
        et al.'s alpha). Greedy, or a non-exact rule: alpha = the share of checked guesses kept
        (beta does not describe those rules). tokens_per_pass_counted comes from a run at the
        current gamma (same length and seed); the formula is (1 - alpha^(gamma+1)) / (1 - alpha).
        """
        s = check_settings(args)
        alpha, kind, ref = self.alpha(s["draft"], s["greedy"], s["rule"])
        gamma, c = s["gamma"], DRAFT_COST
        run = self._measure(s["draft"], gamma, s["greedy"], s["rule"])
        curve = [[g, stats.speedup(alpha, g, c)] for g in range(1, MAX_GAMMA + 1)]
        best = stats.best_gamma(alpha, c, max_gamma=MAX_GAMMA)
        formula = stats.expected_tokens_per_pass(alpha, gamma)
        return {
            "settings": s,
            "alpha": alpha,
            "alpha_kind": kind,
            "alpha_beta": ref["alpha"],
            "acceptance_rate": ref["acceptance_rate"],
            "acceptance_rate_counted": run["acceptance_rate"],
            "tokens_per_pass_counted": run["tokens_per_pass"],
            "tokens_per_pass_formula": formula,
            "passes": run["passes"],
            "tokens": run["tokens"],
            "measure": {"n_tokens": READOUT_TOKENS, "seed": READOUT_SEED, "alpha_gamma": READOUT_GAMMA,
                        "prefix": BENCH_PREFIX.get(self.language.lang, "")},
            "speedup": stats.speedup(alpha, gamma, c),
            "best_gamma": best,
            "best_speedup": stats.speedup(alpha, best, c),
            "c": c,
            "curve": curve,
            "roofline": roofline_readout(s["batch"], gamma, formula, c),
        }


# --- roofline ------------------------------------------------------------------------------------------

def _regime(g, m, batch: int, lanes: int, context: int, tokens_per_pass: float, cost: float) -> dict:
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


def roofline_readout(batch: int, gamma: int, tokens_per_pass: float, c: float = DRAFT_COST) -> dict:
    """Paper roofline of Llama 3.1 8B on an H100 SXM at the bench's batch, plain and speculative.

    Lanes are the positions the target computes per read of a weight: batch for plain
    decoding, batch x (gamma + 1) when speculating (gamma guesses plus the bonus position of
    each sequence). lanes_to_match = lanes at which arithmetic time equals weight-reading
    time (machine balance / intensity at one lane, about 295). "weights_only" counts weight
    reads alone; "with_cache" adds each sequence's key/value cache of CONTEXT_TOKENS tokens.
    The speculative tokens per second use the formula's expected tokens per pass and a step
    of one target pass plus gamma draft runs at c times a pass each (the speed-up's model).
    The flat tokens_per_s_* and arith_busy_fraction* fields are the speculative ones (what
    the bench, as set, does); "plain" has the same figures for one token per sequence per
    pass (chapters 1-2: batch 64 gives ~13,350 and ~4,250 tokens/s). arith_busy_fraction
    (weights only) = min(1, lanes / lanes_to_match): the mill's gauge.
    """
    g, m = rl.gpu(ROOFLINE_GPU), rl.model(ROOFLINE_MODEL)
    lanes = batch * (gamma + 1)
    plain = {name: _regime(g, m, batch, batch, ctx, 1.0, 0.0)
             for name, ctx in (("weights_only", 0), ("with_cache", CONTEXT_TOKENS))}
    spec = {name: _regime(g, m, batch, lanes, ctx, tokens_per_pass, gamma * c)
            for name, ctx in (("weights_only", 0), ("with_cache", CONTEXT_TOKENS))}
    return {
        "gpu": g.name,
        "model": m.name,
        "batch": batch,
        "gamma": gamma,
        "context_tokens": CONTEXT_TOKENS,
        "lanes_plain": batch,
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
