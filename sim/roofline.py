"""Paper arithmetic of the memory roofline for decoding: how long one step must take.

Each GPU and each model is one row of data. Every figure below is an upper bound
"on paper": it counts the bytes a decoding step must read (the weights it streams, and
the key/value cache when a context length is given) at the GPU's quoted bandwidth, and
the arithmetic of two operations per streamed parameter per token at the quoted dense
throughput. Kernel launches, attention arithmetic, activations and other overheads are
left out, so real systems stay below these numbers.

What a token streams. A decoder holds three kinds of weights: the input embedding table,
the transformer layers, and the output projection. Decoding a token looks up one row of
the embedding table (a few kilobytes), but multiplies by every weight of every layer and
by the whole output projection (it scores every token of the vocabulary). So the bytes
streamed per token are the layers plus the output projection, not the parameter count.
When the output projection is tied to the embedding table (one shared matrix), that
matrix is still read once per token, as the output projection.

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
class Parameters:
    """Where a model's parameters sit, by what decoding one token does with them."""

    embedding: int  # input embedding table: one row looked up per token, not streamed
    layers: int  # every transformer layer, and the final norm: streamed once per step
    output: int  # output projection (the LM head): a real matrix multiply, streamed
    tied: bool = False  # the output projection is the embedding table itself

    @property
    def total(self) -> int:
        """Parameters stored: a tied output projection is the embedding table, counted once."""
        return self.embedding + self.layers + (0 if self.tied else self.output)

    @property
    def streamed(self) -> int:
        """Parameters read from memory for every decoding step."""
        return self.layers + self.output


def llama_parameters(*, vocab: int, width: int, layers: int, heads: int, kv_heads: int,
                     head_dim: int, ffn: int, tied: bool = False) -> Parameters:
    """The breakdown of a Llama-style decoder, from its shape.

    Per layer: attention projections Q and O (width x heads x head_dim each), K and V
    (width x kv_heads x head_dim each), a gated feed-forward block of three width x ffn
    matrices, and two RMSNorm weight vectors; one more norm after the last layer. No biases.
    """
    attention = 2 * width * heads * head_dim + 2 * width * kv_heads * head_dim
    per_layer = attention + 3 * width * ffn + 2 * width
    return Parameters(embedding=vocab * width, layers=layers * per_layer + width,
                      output=vocab * width, tied=tied)


@dataclass(frozen=True)
class Model:
    """One decoder-only transformer: the shape that sets bytes and operations per token."""

    key: str
    name: str
    parameters: Parameters
    layers: int
    width: int
    heads: int
    head_dim: int
    kv_heads: int
    vocab: int
    bytes_per_param: int  # 2 for 16-bit weights; also used for the K/V cache entries
    published_params: int  # the count its publisher gives; a test checks the breakdown sums to it
    sources: tuple[str, ...]  # ids in site/sources.toml

    @property
    def params(self) -> int:
        """Parameters stored (the published model size)."""
        return self.parameters.total

    @property
    def weight_bytes(self) -> float:
        """Bytes of weights held in memory: every parameter, the embedding table included."""
        return float(self.parameters.total * self.bytes_per_param)

    @property
    def streamed_params(self) -> int:
        return self.parameters.streamed

    @property
    def streamed_bytes(self) -> float:
        """Bytes of weights one decoding step reads: all but the looked-up embedding table."""
        return float(self.parameters.streamed * self.bytes_per_param)

    @property
    def embedding_bytes(self) -> float:
        return float(self.parameters.embedding * self.bytes_per_param)

    @property
    def flops_per_token(self) -> float:
        """Two operations (a multiply and an add) per streamed parameter per token."""
        return 2.0 * self.parameters.streamed

    @property
    def kv_bytes_per_token(self) -> int:
        """K and V, for every layer and key/value head, at the weights' precision."""
        return 2 * self.layers * self.kv_heads * self.head_dim * self.bytes_per_param


def llama_model(key: str, name: str, *, vocab: int, width: int, layers: int, heads: int,
                kv_heads: int, ffn: int, published_params: int, sources: tuple[str, ...],
                tied: bool = False, bytes_per_param: int = 2) -> Model:
    """One row of data for a Llama-style model: its shape, its published size, its sources."""
    head_dim = width // heads
    parameters = llama_parameters(vocab=vocab, width=width, layers=layers, heads=heads,
                                  kv_heads=kv_heads, head_dim=head_dim, ffn=ffn, tied=tied)
    return Model(key, name, parameters, layers, width, heads, head_dim, kv_heads, vocab,
                 bytes_per_param, published_params, sources)


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
        # Shape: Llama Team 2024, arXiv:2407.21783, table 3 (32 layers, width 4,096, FFN
        # 14,336, 32 attention heads, 8 key/value heads) and the released config (vocabulary
        # 128,256; input embedding and output projection not tied). Published size: Meta's
        # model card, 8,030,261,248 parameters. bfloat16 weights: 2 bytes each.
        llama_model("llama-3.1-8b", "Llama 3.1 8B", vocab=128_256, width=4096, layers=32,
                    heads=32, kv_heads=8, ffn=14_336, published_params=8_030_261_248,
                    sources=("llamacard2024", "llama2024")),
        # Shape: the same table 3 (80 layers, width 8,192, FFN 28,672, 64 attention heads,
        # 8 key/value heads) and released config (vocabulary 128,256, not tied). Published
        # size: Meta's model card for Llama 3.1 70B, 70,553,706,496 parameters.
        llama_model("llama-3.1-70b", "Llama 3.1 70B", vocab=128_256, width=8192, layers=80,
                    heads=64, kv_heads=8, ffn=28_672, published_params=70_553_706_496,
                    sources=("llamacard70b2024", "llama2024")),
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
    """Bytes one decoding step reads: the streamed weights once, plus every sequence's own cache."""
    return m.streamed_bytes + kv_cache_bytes(m, batch, context)


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
    """Time the step's arithmetic (2 per streamed parameter per token, attention ignored) takes."""
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


def prefill_flops(m: Model, tokens: int) -> float:
    """Operations to read a prompt of `tokens` tokens in one pass (prefill), on paper: 2 per
    parameter of every layer for every prompt token; the output projection for the last token
    only (only it is sampled from); and causal attention, each token's query against itself
    and every earlier key, QK^T and the weighted sum of V, 2 x 2 x heads x head_dim per pair."""
    if type(tokens) is not int or tokens < 1:
        raise ValueError(f"tokens must be a positive integer, got {tokens!r}")
    pairs = tokens * (tokens + 1) // 2
    attention = m.layers * 4 * m.heads * m.head_dim * pairs
    return 2.0 * m.parameters.layers * tokens + 2.0 * m.parameters.output + attention


def prefill_seconds(g: GPU, m: Model, tokens: int) -> dict:
    """Reading a prompt on paper: its arithmetic at dense peak, and its bytes (the weights once,
    and every prompt token's key and value written to the cache) at full bandwidth; the pass
    takes the longer of the two."""
    arith = prefill_flops(m, tokens) / g.flops
    read = (m.streamed_bytes + m.kv_bytes_per_token * tokens) / g.bandwidth
    return {"arith_s": arith, "read_s": read, "seconds": max(arith, read),
            "intensity": prefill_flops(m, tokens) / (m.streamed_bytes + m.kv_bytes_per_token * tokens)}


def lanes_busy_fraction(g: GPU, m: Model, lanes: int) -> float:
    """Share of the mill's capacity that `lanes` lit lanes use during one weight read."""
    return lanes / balance_lanes(g, m)


def head_params(m: Model) -> int:
    """One Medusa head (Cai et al. 2024, arXiv:2401.10774, section 2.1.1): a feed-forward layer with
    a residual connection (width x width) and an output projection of its own (width x vocab),
    run on the target's last hidden state."""
    return m.width * m.width + m.width * m.vocab


def head_cost(m: Model) -> float:
    """A head's weights as a share of those a pass of the target streams: what guessing one more
    place ahead adds to a pass, on the roofline's memory-bound step."""
    return head_params(m) / m.streamed_params
