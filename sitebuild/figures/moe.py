"""Mixture-of-experts targets: how many experts one verification pass touches, in exact fractions.

A dense model reads the same weights whatever the tokens in a pass; an MoE layer reads only
the experts its router picks. One token at a time reads `active` experts per layer; a pass
over n tokens reads every expert that any of them picked. If each token picks its `active`
experts uniformly and independently of the others, an expert escapes one token with
probability 1 - active/experts, so the expected number touched is

    experts * (1 - (1 - active/experts) ** n)

That is an upper estimate: a router that favours some experts, or neighbouring tokens that
share experts, touch fewer (the sum of 1 - (1 - p_i)^n over experts is largest when every
p_i is the same). Real routing is neither uniform nor independent, so the chapter says "at most".
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class MoE:
    """The routed experts of one MoE model, as its published configuration gives them."""

    name: str
    experts: int  # routed experts per MoE layer
    active: int  # routed experts each token picks per layer
    sources: tuple[str, ...]  # ids in site/sources.toml


@dataclass(frozen=True)
class DeepSeekV3Weights:
    """Where DeepSeek-V3's active parameters sit (released config.json; report abstract).

    61 layers, the first 3 with a dense feed-forward block, so 58 MoE layers; each routed
    expert is a gated feed-forward block of three width x expert_ffn matrices. The 37B
    activated per token (the report's abstract, rounded there) include the routed experts
    picked; the rest (attention, the shared expert, the dense layers, the output head) is
    read whatever the routing.
    """

    layers: int = 61
    dense_layers: int = 3
    width: int = 7168
    expert_ffn: int = 2048
    activated: int = 37_000_000_000

    @property
    def moe_layers(self) -> int:
        return self.layers - self.dense_layers

    @property
    def expert_params(self) -> int:
        return 3 * self.width * self.expert_ffn

    def routed_params(self, experts_per_layer) -> Fraction:
        return self.moe_layers * Fraction(experts_per_layer) * self.expert_params

    def fixed_params(self, active: int) -> Fraction:
        """The activated parameters that are not routed experts: read by every pass."""
        return self.activated - self.routed_params(active)


# DeepSeek-V3: 256 routed experts and 1 shared expert per MoE layer, 8 routed experts per token
# (config.json: n_routed_experts, num_experts_per_tok, n_shared_experts; also num_hidden_layers,
# first_k_dense_replace, hidden_size, moe_intermediate_size above). How checked: the released
# config as several public repositories transcribe it, all alike, found through the project's
# search index (the model repository's own file was not in it); 37B and 671B from the abstract.
DEEPSEEK_V3 = MoE("DeepSeek-V3", experts=256, active=8, sources=("deepseekv3-2024",))
DEEPSEEK_V3_WEIGHTS = DeepSeekV3Weights()
# Mixtral 8x7B: 8 experts per layer, the router picks two per token (the paper's abstract, read
# in several indexed copies of arXiv:2401.04088).
MIXTRAL = MoE("Mixtral 8x7B", experts=8, active=2, sources=("mixtral2024",))


def experts_touched(moe: MoE, tokens: int) -> Fraction:
    """Expected distinct experts per MoE layer for `tokens` tokens routed independently."""
    if tokens < 1:
        raise ValueError("a pass has at least one token")
    missed = 1 - Fraction(moe.active, moe.experts)
    return moe.experts * (1 - missed**tokens)


def weights_ratio(moe: MoE, weights: DeepSeekV3Weights, tokens: int, baseline_tokens: int = 1) -> Fraction:
    """Parameters a pass over `tokens` reads, over those a pass over `baseline_tokens` reads."""
    fixed = weights.fixed_params(moe.active)

    def read(n: int) -> Fraction:
        return fixed + weights.routed_params(experts_touched(moe, n))

    return read(tokens) / read(baseline_tokens)
