"""The GPU and model rows the reader picks from, each with its figures and its sources.

The rows are sim.roofline's data (GPUS, MODELS): this module only computes what the bench
shows of each, so a GPU added there is offered, priced and cited here with no other change.
The page lists every row (the picked ones marked), so each row's figures are on the page.
"""

from __future__ import annotations

from .. import roofline as rl


def gpu_row(g: rl.GPU) -> dict:
    return {"key": g.key, "name": g.name, "bandwidth_tbs": g.bandwidth / 1e12, "tflops_dense": g.flops / 1e12,
            "memory_gb": g.memory / 1e9, "balance": rl.machine_balance(g), "sources": list(g.sources)}


def model_row(m: rl.Model) -> dict:
    p = m.parameters
    return {"key": m.key, "name": m.name, "layers": m.layers, "width": m.width, "vocab": m.vocab,
            "params": p.total, "published_params": m.published_params, "embedding": p.embedding,
            "layer_params": p.layers, "output": p.output, "tied": p.tied, "weights_gb": m.weight_bytes / 1e9,
            "streamed_gb": m.streamed_bytes / 1e9, "sources": list(m.sources)}


def rows() -> dict:
    """Every GPU and model row, and the paper milliseconds per token (batch 1) of each pair."""
    return {
        "gpus": [gpu_row(g) for g in rl.GPUS.values()],
        "models": [model_row(m) for m in rl.MODELS.values()],
        "ms_per_token": {g.key: {m.key: rl.ms_per_token(g, m) for m in rl.MODELS.values()}
                         for g in rl.GPUS.values()},
    }
