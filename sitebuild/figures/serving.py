"""Chapter 14's figures: speculative decoding in today's serving engines. The same on both pages.

Three groups, each from data named once elsewhere:
- mixture-of-experts targets (moe.py): experts a verification pass touches, alone and in a batch;
- memory capacity (sim.roofline, the H100 and Llama 3.1 8B rows): how many sequences of the
  bench's context fit beside the weights, and what plain decoding writes at that batch;
- ratios of figures quoted from the engines' docs and papers (site/quoted.toml, read here by
  their `number` field, so each is typed once, there).
"""

from __future__ import annotations

import hashlib
import math
import tomllib
from pathlib import Path

from sim import roofline as rl
from sim import stats

from .formats import Figures, Words, fixed, pct, sig, times
from .measured import DEFAULT_GAMMA
from .moe import DEEPSEEK_V3, DEEPSEEK_V3_WEIGHTS, MIXTRAL, experts_touched, weights_ratio
from .roofline import BATCH, CONTEXT, GPU, MODEL

QUOTED = Path(__file__).resolve().parents[2] / "site" / "quoted.toml"
PASS_TOKENS = DEFAULT_GAMMA + 1  # a pass at the bench's default gamma: the guesses and one more


GIB = 2**30
HELD_BACK = 0.1  # a tenth of the memory left unused: vLLM's default gpu_memory_utilization is 0.9


def capacity_batch(g: rl.GPU = GPU, m: rl.Model = MODEL, context: int = CONTEXT, memory: float | None = None) -> int:
    """The most sequences of `context` tokens whose key/value caches fit beside the weights, in
    `memory` bytes (default: the GPU's quoted memory, 80 GB as 80 x 10^9)."""
    free = (g.memory if memory is None else memory) - m.weight_bytes
    return math.floor(free / (m.kv_bytes_per_token * context))


def quoted_number(name: str, path: Path = QUOTED) -> float:
    """The `number` of a quoted figure: the figure itself, for code that compares it."""
    entry = tomllib.loads(path.read_text(encoding="utf-8")).get(name)
    if not isinstance(entry, dict) or "number" not in entry:
        raise ValueError(f"{path.name}: [{name}] needs number = … for the serving chapter's ratios")
    return float(entry["number"])


def quoted_numbers_digest(path: Path = QUOTED) -> str:
    """A digest of the quoted figures these ratios read: a build that keeps its figures between
    rebuilds (serve) keys them on it, so editing a quoted number recomputes the ratios."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def moe_figures(f: Figures) -> None:
    """A pass over gamma + 1 tokens against one token, at batch 1 and at the batch chapter's batch."""
    ds, mx = DEEPSEEK_V3, MIXTRAL
    f.add("moe_ds_experts", ds.experts)
    f.add("moe_ds_active", ds.active)
    f.add("moe_ds_moe_layers", DEEPSEEK_V3_WEIGHTS.moe_layers)
    f.add("moe_ds_activated", DEEPSEEK_V3_WEIGHTS.activated,
          Words(lambda n: f"{n / 1e9:,.0f} billion", lambda n: f"{n / 1e8:,.0f} 亿"))
    touched = experts_touched(ds, PASS_TOKENS)
    f.add("moe_ds_pass_experts", float(touched), sig(3))
    f.add("moe_ds_pass_max", min(ds.experts, ds.active * PASS_TOKENS))  # every token picks others
    f.add("moe_ds_pass_gain", float(touched / ds.active), times(1))
    f.add("moe_ds_pass_weights", float(weights_ratio(ds, DEEPSEEK_V3_WEIGHTS, PASS_TOKENS)), times(0))
    plain_batch = experts_touched(ds, BATCH)
    spec_batch = experts_touched(ds, BATCH * PASS_TOKENS)
    f.add("moe_ds_batch_experts", float(plain_batch), sig(3))
    f.add("moe_ds_batch_spec_experts", float(spec_batch), sig(3))
    f.add("moe_ds_batch_gain", float(spec_batch / plain_batch), times(2))
    f.add("moe_mx_experts", mx.experts)
    f.add("moe_mx_active", mx.active)
    touched = experts_touched(mx, PASS_TOKENS)
    f.add("moe_mx_pass_experts", float(touched), sig(2))
    f.add("moe_mx_pass_max", min(mx.experts, mx.active * PASS_TOKENS))
    f.add("moe_mx_pass_gain", float(touched / mx.active), times(1))


def capacity_figures(f: Figures) -> None:
    """Llama 3.1 8B on one H100 with the bench's context: memory, not bandwidth, caps the batch."""
    g, m = GPU, MODEL
    per_sequence = m.kv_bytes_per_token * CONTEXT
    most = capacity_batch(g, m)
    f.add("serve_free_gb", (g.memory - m.weight_bytes) / 1e9, sig(4, "GB"))
    f.add("serve_seq_cache_gb", per_sequence / 1e9, sig(3, "GB"))
    f.add("serve_max_batch", most)
    # How the count moves with how memory is counted: 80 GB read as 80 GiB (the card's binary
    # gigabytes), and a tenth of either held back; the chapter rounds to the nearest ten.
    binary = g.memory / 1e9 * GIB
    f.add("serve_max_batch_gib", capacity_batch(g, m, memory=binary))
    f.add("serve_max_batch_held_low", capacity_batch(g, m, memory=(1 - HELD_BACK) * g.memory))
    f.add("serve_max_batch_held_high", capacity_batch(g, m, memory=(1 - HELD_BACK) * binary))
    f.add("serve_batch_about", round(most, -1))
    f.add("held_back_pct", HELD_BACK * 100, pct(0))
    f.add("held_back_complement_pct", (1 - HELD_BACK) * 100, pct(0))  # vLLM's default gpu_memory_utilization
    f.add("serve_max_batch_tps", rl.tokens_per_second(g, m, most, CONTEXT), sig(3))
    # The bench's own lanes at that batch: a pass at the default gamma lights most x (gamma + 1).
    f.add("serve_max_batch_lanes", most * PASS_TOKENS)


def quoted_ratios(f: Figures) -> None:
    """What the quoted throughputs say against each other and against the page's roofline."""
    plain = quoted_number("sglang_plain_tps")
    eagle2 = quoted_number("sglang_eagle2_tps")
    eagle3 = quoted_number("sglang_eagle3_tps")
    ceiling = rl.tokens_per_second(GPU, MODEL)
    f.add("sglang_eagle2_gain", eagle2 / plain, times(2))
    f.add("sglang_eagle3_gain", eagle3 / plain, times(2))
    f.add("sglang_plain_share_pct", plain / ceiling * 100, pct(0))
    f.add("sglang_eagle3_over_ceiling", eagle3 / ceiling, times(2))
    # Chapter 9: an A100's lanes at machine balance, shared by the sequences of EAGLE's larger batch.
    a100 = rl.gpu("a100-80gb-sxm")
    f.add("a100_balance_per_sequence_4", rl.balance_lanes(a100, MODEL) / quoted_number("eagle_batch_large"), sig(2))
    # Chen et al.'s times per token: the draft's over the target's is their c.
    f.add("chinchilla_c", quoted_number("chinchilla_draft_ms") / quoted_number("chinchilla_target_ms"), fixed(2))
    gain = quoted_number("eagle3_batch64_gain")
    # Throughput x 1.38 on the same GPU is GPU time per token / 1.38: the cost side of the same figure.
    f.add("eagle3_batch64_cost_cut_pct", (1 - 1 / gain) * 100, pct(0))


MTP_CHAIN_GAMMA = 3  # the MTP module run on its own guesses, three in a row


def mtp_figures(f: Figures) -> None:
    """DeepSeek-V3's reported MTP acceptance in this page's terms. One MTP module guesses one token
    ahead, so a pass checks gamma = 1 guess and its acceptance is alpha; a pass then writes 1 + alpha
    tokens on average. Against the reported speed-up, the rest is what a speculative pass costs over
    a plain step (the module's run and the second position), if the speed-up is per sequence."""
    low, high = quoted_number("deepseek_mtp_accept_low"), quoted_number("deepseek_mtp_accept_high")
    gain = quoted_number("deepseek_mtp_tps_gain")
    f.add("mtp_alpha_low", low, fixed(2))
    f.add("mtp_alpha_high", high, fixed(2))
    f.add("mtp_tpp_low", stats.expected_tokens_per_pass(low, 1), fixed(2))
    f.add("mtp_tpp_high", stats.expected_tokens_per_pass(high, 1), fixed(2))
    f.add("mtp_pass_cost_low_pct", (stats.expected_tokens_per_pass(low, 1) / gain - 1) * 100, pct(0))
    f.add("mtp_pass_cost_high_pct", (stats.expected_tokens_per_pass(high, 1) / gain - 1) * 100, pct(0))
    f.add("mtp_chain_gamma", MTP_CHAIN_GAMMA)
    f.add("mtp_chain_tpp_low", stats.expected_tokens_per_pass(low, MTP_CHAIN_GAMMA), fixed(2))
    f.add("mtp_chain_tpp_high", stats.expected_tokens_per_pass(high, MTP_CHAIN_GAMMA), fixed(2))


def serving_figures() -> Figures:
    f = Figures()
    for part in (moe_figures, capacity_figures, quoted_ratios, mtp_figures):
        part(f)
    return f
