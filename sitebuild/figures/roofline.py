"""The paper roofline figures of chapters 1, 2, 9 and 11 and the closing notes: the same on both pages.

Precision follows the inputs: counts of parameters and bytes are exact, so figures made of
them alone keep four significant digits; anything divided by a bandwidth quoted to three
digits (3.35 TB/s) gets three; the "two operations per parameter" estimate gets two.
"""

from __future__ import annotations

from sim import bench as bench_settings
from sim import roofline as rl
from sim import stats

from .formats import Figures, Words, fixed, pct, sig

GPU = rl.gpu(rl.DEFAULT_GPU)
MODEL = rl.model(rl.DEFAULT_MODEL)
BIG_MODEL = rl.model("llama-3.1-70b")  # the closing notes' second model row
OTHER_GPUS = {"h200": rl.gpu("h200-sxm"), "a100": rl.gpu("a100-80gb-sxm")}

BATCH = 64  # the batch chapter's example
CONTEXT = bench_settings.CONTEXT_TOKENS  # tokens of context per sequence, as on the bench

# Theorem 3.11 of Leviathan et al. evaluated at the brief's example (facts.md): alpha 0.6,
# gamma 2, the draft's own cost ignored (c = 0), and again at the bench's c.
IDLE_ALPHA = 0.6
IDLE_GAMMA = 2
DRAFT_COST = bench_settings.DRAFT_COST

# Chapter 11's example: a pass at the bench's largest gamma lights gamma + 1 lanes.
LANES_EXAMPLE = bench_settings.MAX_GAMMA + 1

# Chapter 14's prompt: as long as the bench's context; and an answer of this many tokens after it.
PROMPT_TOKENS = CONTEXT
ANSWER_TOKENS = 256
# The prefill's figures assume the dense peak; this share of it shows how they move with the share kept busy.
PREFILL_SHARE_EXAMPLE = 0.5


def _params_words(lang: str):
    if lang == "zh":
        return lambda n: f"{n / 1e8:,.1f} 亿"
    return lambda n: f"{n / 1e9:,.2f} billion"


def hardware(f: Figures) -> None:
    g, m = GPU, MODEL
    f.add("gpu_bandwidth_tbs", g.bandwidth / 1e12, fixed(2, "TB/s"))
    f.add("gpu_tflops_dense", g.flops / 1e12, fixed(1, "TFLOPS"))
    # NVIDIA's better-known "with sparsity" figure is twice the dense one.
    f.add("gpu_tflops_sparse", 2 * g.flops / 1e12, fixed(0, "TFLOPS"))
    f.add("gpu_memory_gb", g.memory / 1e9, fixed(0, "GB"))
    f.add("model_params", m.params)
    f.add("model_params_words", m.params, Words(_params_words("en"), _params_words("zh")))
    f.add("model_layers", m.layers)
    f.add("model_width", m.width)
    f.add("model_vocab", m.vocab)
    f.add("model_head_dim", m.head_dim)
    f.add("model_kv_heads", m.kv_heads)
    f.add("model_bytes_per_param", m.bytes_per_param)
    f.add("model_bits_per_param", 8 * m.bytes_per_param)


def one_sequence(f: Figures) -> None:
    """Chapter 1: batch 1, weights only."""
    g, m = GPU, MODEL
    busy = rl.busy_fraction(g, m)
    f.add("weights_gb", m.weight_bytes / 1e9, sig(4, "GB"))
    f.add("embedding_params", m.parameters.embedding)
    f.add("embedding_gb", m.embedding_bytes / 1e9, sig(4, "GB"))
    f.add("streamed_gb", m.streamed_bytes / 1e9, sig(4, "GB"))
    f.add("ms_per_token", rl.ms_per_token(g, m), sig(3, "ms"))
    f.add("tokens_per_s", rl.tokens_per_second(g, m), sig(3))
    f.add("gflop_per_token", m.flops_per_token / 1e9, sig(4, "GFLOP"))
    f.add("arith_ms_per_token", rl.arithmetic_seconds(g, m) * 1e3, sig(2, "ms"))
    f.add("busy_pct", busy * 100, pct(digits=2))
    f.add("idle_pct", (1 - busy) * 100, pct(1))
    f.add("machine_balance", rl.machine_balance(g), sig(3))
    f.add("batch1_intensity", rl.intensity(m))


def batch(f: Figures) -> None:
    """Chapter 2: a batch, without and with its key/value cache."""
    g, m = GPU, MODEL
    f.add("batch", BATCH)
    f.add("context", CONTEXT)
    f.add("batch_tokens_per_s", rl.tokens_per_second(g, m, BATCH), sig(3))
    f.add("batch_busy_pct", rl.busy_fraction(g, m, BATCH) * 100, pct(digits=2))
    f.add("kv_bytes_per_token", m.kv_bytes_per_token, fixed(0, "B"))
    cache = rl.kv_cache_bytes(m, BATCH, CONTEXT)
    step = rl.bytes_per_step(m, BATCH, CONTEXT)
    f.add("cache_gb", cache / 1e9, sig(4, "GB"))
    f.add("step_gb", step / 1e9, sig(4, "GB"))
    f.add("cache_step_ms", rl.step_seconds(g, m, BATCH, CONTEXT) * 1e3, sig(3, "ms"))
    f.add("cache_tokens_per_s", rl.tokens_per_second(g, m, BATCH, CONTEXT), sig(3))
    f.add("cache_share_pct", cache / step * 100, pct(digits=2))
    # The closing notes: the bench's largest batch at the same context holds more cache than
    # one GPU's memory, so its "with cache" readout is a rate for a batch that does not fit.
    f.add("max_batch", bench_settings.MAX_BATCH)
    f.add("max_batch_cache_gb", rl.kv_cache_bytes(m, bench_settings.MAX_BATCH, CONTEXT) / 1e9, sig(3, "GB"))


def lanes(f: Figures) -> None:
    """Chapter 11: lanes of the read head."""
    f.add("lanes_example", LANES_EXAMPLE)
    f.add("lanes_example_pct", rl.lanes_busy_fraction(GPU, MODEL, LANES_EXAMPLE) * 100, pct(0))
    f.add("balance_lanes", rl.balance_lanes(GPU, MODEL), sig(3))


def idle(f: Figures) -> None:
    """Chapter 9: theorem 3.11 at alpha 0.6, gamma 2, with the draft free (c = 0) and at the bench's c."""
    f.add("idle_alpha", IDLE_ALPHA, fixed(1))
    f.add("idle_gamma", IDLE_GAMMA)
    f.add("idle_extra_arith_pct", (stats.arithmetic_factor(IDLE_ALPHA, IDLE_GAMMA, 0.0) - 1) * 100, pct(0))
    f.add("idle_faster_pct", (stats.speedup(IDLE_ALPHA, IDLE_GAMMA, 0.0) - 1) * 100, pct(0))
    f.add("idle_bench_faster_pct", (stats.speedup(IDLE_ALPHA, IDLE_GAMMA, DRAFT_COST) - 1) * 100, pct(0))


def other_rows(f: Figures) -> None:
    """The closing notes: the same sums for other GPUs and another model, one row of data each."""
    m = MODEL
    f.add("h200_bandwidth_tbs", OTHER_GPUS["h200"].bandwidth / 1e12, fixed(1, "TB/s"))
    f.add("h200_ms_per_token", rl.ms_per_token(OTHER_GPUS["h200"], m), sig(2, "ms"))
    f.add("a100_bandwidth_tbs", OTHER_GPUS["a100"].bandwidth / 1e12, fixed(3, "TB/s"))
    f.add("a100_ms_per_token", rl.ms_per_token(OTHER_GPUS["a100"], m), sig(3, "ms"))
    f.add("a100_balance_lanes", rl.balance_lanes(OTHER_GPUS["a100"], m), sig(3))
    f.add("big_weights_gb", BIG_MODEL.weight_bytes / 1e9, sig(4, "GB"))
    f.add("big_streamed_gb", BIG_MODEL.streamed_bytes / 1e9, sig(4, "GB"))


def prefill(f: Figures) -> None:
    """Chapter 14: reading a prompt of PROMPT_TOKENS tokens in one pass (prefill), against decoding.
    The time to first token on paper is the prefill; every later token costs a decoding step."""
    g, m = GPU, MODEL
    read = rl.prefill_seconds(g, m, PROMPT_TOKENS)
    f.add("prompt_tokens", PROMPT_TOKENS)
    f.add("answer_tokens", ANSWER_TOKENS)
    f.add("prefill_tflop", rl.prefill_flops(m, PROMPT_TOKENS) / 1e12, sig(3, "TFLOP"))
    f.add("prefill_ms", read["seconds"] * 1e3, sig(3, "ms"))
    f.add("prefill_read_ms", read["read_s"] * 1e3, sig(3, "ms"))
    f.add("prefill_intensity", read["intensity"], sig(3))
    f.add("prefill_over_read", read["arith_s"] / read["read_s"], sig(2))
    f.add("prefill_in_steps", read["seconds"] / (rl.ms_per_token(g, m) / 1e3), sig(2))
    decode_s = ANSWER_TOKENS * rl.ms_per_token(g, m) / 1e3
    f.add("answer_plain_s", read["seconds"] + decode_s, sig(3, "s"))
    # Decoding after that prompt also reads the cache it left, one token longer at each step.
    with_cache_s = answer_decode_seconds(g, m)
    f.add("ms_per_token_after_prompt", rl.ms_per_token(g, m, PROMPT_TOKENS), sig(3, "ms"))
    f.add("ms_per_token_answer_end", rl.ms_per_token(g, m, PROMPT_TOKENS + ANSWER_TOKENS - 1), sig(3, "ms"))
    f.add("answer_plain_cache_s", read["seconds"] + with_cache_s, sig(3, "s"))
    # The prefill at the dense peak is a floor; a pass that keeps a share s of the peak busy takes 1/s as long.
    f.add("prefill_share_example_pct", PREFILL_SHARE_EXAMPLE * 100, pct(0))
    f.add("prefill_ms_at_share", read["arith_s"] / PREFILL_SHARE_EXAMPLE * 1e3, sig(3, "ms"))


def answer_decode_seconds(g: rl.GPU = GPU, m: rl.Model = MODEL) -> float:
    """Decoding ANSWER_TOKENS tokens one at a time after the prompt: each step reads the weights
    and the cache of the prompt and of every token written before it."""
    return sum(rl.ms_per_token(g, m, PROMPT_TOKENS + i) for i in range(ANSWER_TOKENS)) / 1e3


def roofline() -> Figures:
    f = Figures()
    for part in (hardware, one_sequence, batch, lanes, idle, other_rows, prefill):
        part(f)
    return f
