"""Paper arithmetic of the memory roofline for decoding: how long one step must take.

Each GPU and each model is one row of data. Every figure below is an upper bound
"on paper": it counts the bytes a decoding step must read (the weights, and the
key/value cache when a context length is given) at the GPU's quoted bandwidth,
and the arithmetic of about two operations per parameter per token at the quoted
dense throughput. Kernel launches, attention arithmetic, activations and other
overheads are left out, so real systems stay below these numbers.

Pure standard library: runs in CPython and in Pyodide.
"""

from __future__ import annotations

from dataclasses import dataclass

TERA = 1e12
GIGA = 1e9


@dataclass(frozen=True)
class GPU:
    """One accelerator: its quoted memory bandwidth and dense 16-bit throughput."""

    key: str
    name: str
    bandwidth: float  # bytes per second
    flops: float  # dense BF16 tensor operations per second
    memory: float  # bytes of on-package memory
    sources: tuple[str, ...]  # ids in site/sources.toml


@dataclass(frozen=True)
class Model:
    """One decoder-only transformer: the shape that sets bytes and operations per token."""

    key: str
    name: str
    params: int
    layers: int
    width: int
    heads: int
    head_dim: int
    kv_heads: int
    bytes_per_param: int  # 2 for 16-bit weights; also used for the K/V cache entries
    sources: tuple[str, ...]  # ids in site/sources.toml

    @property
    def weight_bytes(self) -> float:
        return float(self.params * self.bytes_per_param)

    @property
    def flops_per_token(self) -> float:
        """About two operations (a multiply and an add) per parameter per token."""
        return 2.0 * self.params

    @property
    def kv_bytes_per_token(self) -> int:
        """K and V, for every layer and key/value head, at the weights' precision."""
        return 2 * self.layers * self.kv_heads * self.head_dim * self.bytes_per_param


GPUS: dict[str, GPU] = {
    gpu.key: gpu
    for gpu in (
        # NVIDIA H100 product page (SXM column): 3.35 TB/s of HBM3, 80 GB.
        # BF16 tensor: the page lists 1,979 TFLOPS "with sparsity"; dense is half, 989.5.
        GPU("h100-sxm", "NVIDIA H100 SXM", 3.35 * TERA, 989.5 * TERA, 80 * GIGA, ("nvidia-h100",)),
        # Quoted from NVIDIA's H200 product page: 4.8 TB/s HBM3e, 141 GB; same Hopper
        # tensor cores as the H100 SXM (1,979 TFLOPS BF16 sparse, so 989.5 dense).
        GPU("h200-sxm", "NVIDIA H200 SXM", 4.8 * TERA, 989.5 * TERA, 141 * GIGA, ("nvidia-h200",)),
        # Quoted from NVIDIA's A100 datasheet (80GB SXM column): 2,039 GB/s HBM2e;
        # BF16 tensor 312 TFLOPS dense (624 with sparsity).
        GPU("a100-80gb-sxm", "NVIDIA A100 80GB SXM", 2.039 * TERA, 312 * TERA, 80 * GIGA,
            ("nvidia-a100",)),
    )
}

MODELS: dict[str, Model] = {
    model.key: model
    for model in (
        # Meta's model card for Llama 3.1 8B (parameter count, from the released
        # weights: 8,030,261,248) and Llama Team 2024, arXiv:2407.21783, table 3
        # (32 layers, width 4,096, 32 attention heads, 8 key/value heads).
        # Head width = 4,096 / 32 = 128. bfloat16 weights: 2 bytes each.
        Model("llama-3.1-8b", "Llama 3.1 8B", 8_030_261_248, 32, 4096, 32, 128, 8, 2,
              ("llamacard2024", "llama2024")),
    )
}

DEFAULT_GPU = "h100-sxm"
DEFAULT_MODEL = "llama-3.1-8b"


def gpu(key: str = DEFAULT_GPU) -> GPU:
    return GPUS[key]


def model(key: str = DEFAULT_MODEL) -> Model:
    return MODELS[key]


def kv_cache_bytes(m: Model, batch: int, context: int) -> float:
    """Bytes of key/value cache held (and read each step) for `batch` sequences of `context` tokens."""
    return float(batch * context * m.kv_bytes_per_token)


def bytes_per_step(m: Model, batch: int = 1, context: int = 0) -> float:
    """Bytes one decoding step reads: the weights once, plus every sequence's own cache."""
    return m.weight_bytes + kv_cache_bytes(m, batch, context)


def step_seconds(g: GPU, m: Model, batch: int = 1, context: int = 0) -> float:
    """Time to stream one step's bytes at full bandwidth (the memory roof)."""
    return bytes_per_step(m, batch, context) / g.bandwidth


def ms_per_token(g: GPU, m: Model, context: int = 0) -> float:
    """Milliseconds per token for one sequence (batch 1)."""
    return step_seconds(g, m, 1, context) * 1e3


def tokens_per_second(g: GPU, m: Model, batch: int = 1, context: int = 0) -> float:
    """Tokens per second across the batch: one token per sequence per step."""
    return batch / step_seconds(g, m, batch, context)


def arithmetic_seconds(g: GPU, m: Model, batch: int = 1) -> float:
    """Time the step's arithmetic (2 x params per token, attention ignored) takes at dense peak."""
    return batch * m.flops_per_token / g.flops


def busy_fraction(g: GPU, m: Model, batch: int = 1, context: int = 0) -> float:
    """Share of a memory-bound step during which the arithmetic units have work."""
    return arithmetic_seconds(g, m, batch) / step_seconds(g, m, batch, context)


def machine_balance(g: GPU) -> float:
    """Operations the GPU can do in the time it reads one byte (the roofline's ridge point)."""
    return g.flops / g.bandwidth


def intensity(m: Model, batch: int = 1, context: int = 0) -> float:
    """Operations per byte read in one decoding step (operational intensity)."""
    return batch * m.flops_per_token / bytes_per_step(m, batch, context)


def balance_lanes(g: GPU, m: Model) -> float:
    """Lanes (tokens per weight read) needed before arithmetic, not reading, sets the pace."""
    return machine_balance(g) / intensity(m, 1)


def lanes_busy_fraction(g: GPU, m: Model, lanes: int) -> float:
    """Share of the mill's capacity that `lanes` lit lanes use during one weight read."""
    return lanes / balance_lanes(g, m)
