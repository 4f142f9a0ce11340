"""Compute every figure the chapters print, and format it for each language.

`compute(languages)` returns raw numbers per language: the roofline figures (the same on both
pages) and the bench's own measurements (each page measures its own book's models).
`formatted(lang, raw)` turns them into the strings `{{ fig.NAME }}` inserts. Digits, separators
and unit symbols are shared by both languages; only figures that need words differ.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim import bench as bench_settings
from sim import roofline as rl
from sim import stats
from sim.bench import Bench

# --- Settings the chapters describe --------------------------------------------------------

GPU = rl.gpu(rl.DEFAULT_GPU)
MODEL = rl.model(rl.DEFAULT_MODEL)
OTHER_GPUS = {"h200": rl.gpu("h200-sxm"), "a100": rl.gpu("a100-80gb-sxm")}

BATCH = 64  # the batch chapter's example
CONTEXT = bench_settings.CONTEXT_TOKENS  # tokens of context per sequence, as on the bench

# Theorem 3.11 of Leviathan et al. evaluated at the brief's example (facts.md): alpha 0.6,
# gamma 2, the draft's own arithmetic ignored (c_hat = 0).
IDLE_ALPHA = 0.6
IDLE_GAMMA = 2

# The bench's own settings (sim/bench.py), so the text and the bench print the same numbers.
DEFAULT_GAMMA = bench_settings.DEFAULTS["gamma"]
DRAFT_COST = bench_settings.DRAFT_COST  # c: the small drum turns in a tenth of the big drum's time
LAB_GAMMA = bench_settings.MAX_GAMMA  # the second suggested experiment: the bench's largest gamma
LANES_EXAMPLE = LAB_GAMMA + 1  # lanes a pass at that gamma lights (chapter 11): guesses plus one
MEASURE_TOKENS = bench_settings.READOUT_TOKENS


def roofline_figures() -> dict[str, float | int | str]:
    """Figures of chapters 1, 2, 9 and 11: the same for every language."""
    g, m = GPU, MODEL
    ms = rl.ms_per_token(g, m)
    busy1 = rl.busy_fraction(g, m)
    out: dict[str, float | int | str] = {
        # Hardware and model, as the code holds them (sources in sim/roofline.py).
        "gpu_bandwidth_tbs": g.bandwidth / 1e12,
        "gpu_tflops_dense": g.flops / 1e12,
        "gpu_tflops_sparse": 2 * g.flops / 1e12,  # NVIDIA's "with sparsity" figure is twice dense
        "model_params": m.params,
        "model_params_billion": m.params / 1e9,
        "model_layers": m.layers,
        "model_width": m.width,
        "model_heads": m.heads,
        "model_head_dim": m.head_dim,
        "model_kv_heads": m.kv_heads,
        "model_bytes_per_param": m.bytes_per_param,
        "model_bits_per_param": 8 * m.bytes_per_param,
        # Chapter 1: batch 1.
        "weights_gb": m.weight_bytes / 1e9,
        "ms_per_token": ms,
        "tokens_per_s": rl.tokens_per_second(g, m),
        "gflop_per_token": m.flops_per_token / 1e9,
        "arith_ms_per_token": rl.arithmetic_seconds(g, m) * 1e3,
        "busy_pct": busy1 * 100,
        "idle_pct": (1 - busy1) * 100,
        "machine_balance": rl.machine_balance(g),
        "batch1_intensity": rl.intensity(m),
        # Chapter 2: a batch, without and with its key/value cache.
        "batch": BATCH,
        "context": CONTEXT,
        "batch_tokens_per_s": rl.tokens_per_second(g, m, BATCH),
        "batch_busy_pct": rl.busy_fraction(g, m, BATCH) * 100,
        "batch_intensity": rl.intensity(m, BATCH),
        "kv_bytes_per_token": m.kv_bytes_per_token,
        "kv_kb_per_token": m.kv_bytes_per_token / 1e3,
        "cache_gb": rl.kv_cache_bytes(m, BATCH, CONTEXT) / 1e9,
        "step_gb": rl.bytes_per_step(m, BATCH, CONTEXT) / 1e9,
        "cache_step_ms": rl.step_seconds(g, m, BATCH, CONTEXT) * 1e3,
        "cache_tokens_per_s": rl.tokens_per_second(g, m, BATCH, CONTEXT),
        "cache_busy_pct": rl.busy_fraction(g, m, BATCH, CONTEXT) * 100,
        "cache_share_pct": rl.kv_cache_bytes(m, BATCH, CONTEXT) / rl.bytes_per_step(m, BATCH, CONTEXT) * 100,
        # Chapter 11: lanes of the read head.
        "lanes_example": LANES_EXAMPLE,
        "lanes_example_pct": rl.lanes_busy_fraction(g, m, LANES_EXAMPLE) * 100,
        "balance_lanes": rl.balance_lanes(g, m),
        # Chapter 9: theorem 3.11 at alpha 0.6, gamma 2 (c_hat = 0).
        "idle_alpha": IDLE_ALPHA,
        "idle_gamma": IDLE_GAMMA,
        "idle_extra_arith_pct": (stats.arithmetic_factor(IDLE_ALPHA, IDLE_GAMMA, 0.0) - 1) * 100,
        "idle_faster_pct": (stats.speedup(IDLE_ALPHA, IDLE_GAMMA, 0.0) - 1) * 100,
    }
    for key, other in OTHER_GPUS.items():
        out[f"{key}_bandwidth_tbs"] = other.bandwidth / 1e12
        out[f"{key}_ms_per_token"] = rl.ms_per_token(other, m)
        out[f"{key}_tokens_per_s"] = rl.tokens_per_second(other, m)
    return out


def bench_figures(language) -> dict[str, float | int | str]:
    """The bench's own readouts for one language's models (fixed seed): what the bench shows first."""
    bench = Bench(language)
    measured = bench.readouts({})
    unigram = bench.readouts({"draft": "unigram"})
    alpha = measured["alpha"]
    return {
        "default_gamma": DEFAULT_GAMMA,
        "default_gamma_plus_one": DEFAULT_GAMMA + 1,
        "draft_cost": DRAFT_COST,
        "draft_cost_inverse": round(1 / DRAFT_COST),
        "step_cost": DEFAULT_GAMMA * DRAFT_COST + 1,
        "lab_gamma": LAB_GAMMA,
        "measure_tokens": MEASURE_TOKENS,
        "tube_draws": bench_settings.TUBE_DRAWS,
        "bench_alpha": alpha,
        "bench_tokens_per_pass": measured["tokens_per_pass_counted"],
        "bench_tokens_per_pass_formula": measured["tokens_per_pass_formula"],
        "bench_speedup": measured["speedup"],
        "bench_best_gamma": measured["best_gamma"],
        "bench_best_speedup": measured["best_speedup"],
        "bench_lab_speedup": stats.speedup(alpha, LAB_GAMMA, DRAFT_COST),
        "bench_unigram_alpha": unigram["alpha"],
        "bench_unigram_speedup": unigram["speedup"],
        "same_alpha": 1,  # a copy of the target: every guess is kept
        "same_tokens_per_pass": DEFAULT_GAMMA + 1,
        "same_speedup": stats.speedup(1.0, DEFAULT_GAMMA, DRAFT_COST),
    }


def compute(languages: dict) -> dict[str, dict[str, float | int | str]]:
    """Raw figures for each language: the shared roofline figures plus that book's bench figures."""
    shared = roofline_figures()
    return {lang: {**shared, **bench_figures(language)} for lang, language in languages.items()}


# --- Formatting ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Format:
    """How one figure is printed: rounding, then an optional unit symbol."""

    decimals: int = 0
    unit: str = ""
    tens: bool = False  # round to the nearest ten (large "about" counts: 13,350)
    space: bool = True  # a space before the unit ("4.79 ms"), none for "%" and "×"

    def __call__(self, value: float | int) -> str:
        if self.tens:
            text = f"{round(value / 10) * 10:,.0f}"
        else:
            text = f"{value:,.{self.decimals}f}"
        if not self.unit:
            return text
        return f"{text} {self.unit}" if self.space else f"{text}{self.unit}"


def _pct(decimals: int = 0) -> Format:
    return Format(decimals, "%", space=False)


def _times(decimals: int = 2) -> Format:
    return Format(decimals, "×", space=False)


def _count(value: float) -> Format:
    """Token rates: nearest ten from a thousand up, else whole numbers."""
    return Format(tens=value >= 1000)


FORMATS: dict[str, Format] = {
    "gpu_bandwidth_tbs": Format(2, "TB/s"),
    "gpu_tflops_dense": Format(1, "TFLOPS"),
    "gpu_tflops_sparse": Format(0, "TFLOPS"),
    "model_params": Format(0),
    "model_params_billion": Format(2),
    "model_layers": Format(0),
    "model_width": Format(0),
    "model_heads": Format(0),
    "model_head_dim": Format(0),
    "model_kv_heads": Format(0),
    "model_bytes_per_param": Format(0),
    "model_bits_per_param": Format(0),
    "weights_gb": Format(2, "GB"),
    "ms_per_token": Format(2, "ms"),
    "gflop_per_token": Format(2, "GFLOP"),
    "arith_ms_per_token": Format(3, "ms"),
    "busy_pct": _pct(2),
    "idle_pct": _pct(1),
    "machine_balance": Format(0),
    "batch1_intensity": Format(0),
    "batch": Format(0),
    "context": Format(0),
    "batch_busy_pct": _pct(0),
    "batch_intensity": Format(0),
    "kv_bytes_per_token": Format(0, "B"),
    "kv_kb_per_token": Format(0, "KB"),
    "cache_gb": Format(1, "GB"),
    "step_gb": Format(1, "GB"),
    "cache_step_ms": Format(1, "ms"),
    "cache_busy_pct": _pct(0),
    "cache_share_pct": _pct(0),
    "lanes_example": Format(0),
    "lanes_example_pct": _pct(0),
    "balance_lanes": Format(0),
    "idle_alpha": Format(1),
    "idle_gamma": Format(0),
    "idle_extra_arith_pct": _pct(0),
    "idle_faster_pct": _pct(0),
    "h200_bandwidth_tbs": Format(1, "TB/s"),
    "h200_ms_per_token": Format(2, "ms"),
    "a100_bandwidth_tbs": Format(2, "TB/s"),
    "a100_ms_per_token": Format(2, "ms"),
    "default_gamma": Format(0),
    "default_gamma_plus_one": Format(0),
    "draft_cost": Format(1),
    "draft_cost_inverse": Format(0),
    "step_cost": Format(1),
    "lab_gamma": Format(0),
    "measure_tokens": Format(0),
    "tube_draws": Format(0),
    "bench_alpha": Format(2),
    "bench_tokens_per_pass": Format(2),
    "bench_tokens_per_pass_formula": Format(2),
    "bench_speedup": _times(),
    "bench_best_gamma": Format(0),
    "bench_best_speedup": _times(),
    "bench_lab_speedup": _times(),
    "bench_unigram_alpha": Format(2),
    "bench_unigram_speedup": _times(),
    "same_alpha": Format(0),
    "same_tokens_per_pass": Format(0),
    "same_speedup": _times(),
}
TOKEN_RATES = ("tokens_per_s", "batch_tokens_per_s", "cache_tokens_per_s", "h200_tokens_per_s",
               "a100_tokens_per_s")


def format_value(name: str, value: float | int | str) -> str:
    if isinstance(value, str):
        return value
    if name in TOKEN_RATES:
        return _count(value)(value)
    try:
        return FORMATS[name](value)
    except KeyError:
        raise KeyError(f"figure {name!r} has no format in sitebuild/figures.py FORMATS") from None


def _params_words(lang: str, params: int) -> str:
    """A parameter count in words: "8.03 billion" / "80.3 亿"."""
    if lang == "zh":
        return f"{params / 1e8:,.1f} 亿"
    return f"{params / 1e9:,.2f} billion"


def formatted(lang: str, raw: dict[str, float | int | str]) -> dict[str, str]:
    """The strings {{ fig.NAME }} inserts on the `lang` page."""
    out = {name: format_value(name, value) for name, value in raw.items()}
    if "model_params" in raw:
        out["model_params_words"] = _params_words(lang, raw["model_params"])
    return out
