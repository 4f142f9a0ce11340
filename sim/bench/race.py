"""The race: the tape's passes timed on paper, against plain decoding writing the same text.

Two lanes share one clock. Plain decoding writes one token per target pass over `batch` lanes;
speculative decoding writes the same tokens in the tape's passes, each pass being gamma draft
runs (c times a target pass each) and one verification pass over batch x (gamma + 1) lanes (batch
x lanes_per_sequence with several candidates: every node of the tree is scored, and paid for).
Every duration is the roofline's (readouts.regime, the figures the readouts print): the weights
streamed once per pass at the GPU's bandwidth, or the arithmetic, whichever is longer. The key/
value cache is left out (the "weights only" figures): it adds the same read to both lanes' passes.

So the speed-up the race shows is plain / speculative = (tokens / passes) / (1 + gamma c) while
the pass is memory-bound: the tape's own tokens per pass, priced by the roofline.
"""

from __future__ import annotations

import math

from .. import roofline as rl
from .layout import RACE
from .readouts import DRAFT_COST, regime

RACE_PASSES = 40  # "Run the race" first takes a shorter tape to this many passes


def _r(x: float) -> float:
    return round(x, 2)


def lane_times(settings: dict, c: float = DRAFT_COST) -> dict:
    """Milliseconds of one plain pass, one draft run and one verification pass, at these settings
    (c: one guess's cost as a share of a pass: a draft model's run, or a free source's, sim.free_drafts)."""
    g, m = rl.gpu(settings["gpu"]), rl.model(settings["model"])
    batch, gamma = settings["batch"], settings["gamma"]
    plain = regime(g, m, batch, batch, 0, 1.0, 0.0)
    spec = regime(g, m, batch, batch * settings["lanes_per_sequence"], 0, 1.0, gamma * c)
    return {
        "plain_pass_ms": plain["pass_ms"],
        "draft_ms": c * spec["pass_ms"],
        "verify_ms": spec["pass_ms"],
        "spec_pass_ms": spec["step_ms"],  # gamma draft runs and the verification
        "plain_bound": plain["bound"],
        "verify_bound": spec["bound"],
        "c": c,
        "lanes_per_sequence": settings["lanes_per_sequence"],
    }


def race(settings: dict, passes: list[dict], pieces: list[str], c: float = DRAFT_COST) -> dict:
    """Both lanes over the tape's passes: finishing times, the speed-up, and the drawing.

    passes: the tape's steps (commands.step answers, in order); pieces: the display text of each
    token they wrote, in order (joined, they are the written text).
    """
    times = lane_times(settings, c)
    gamma = settings["gamma"]
    written = [p["n_written"] for p in passes]
    tokens = sum(written)
    spec_step = times["spec_pass_ms"]
    plain_finish = tokens * times["plain_pass_ms"]
    spec_finish = len(passes) * spec_step
    after, total = [], 0
    for n in written:
        total += n
        after.append(total)
    return {
        "gpu": settings["gpu"],
        "model": settings["model"],
        "gamma": gamma,
        "batch": settings["batch"],
        "tokens": tokens,
        "pieces": pieces,
        **times,
        "plain": {"passes": tokens, "finish_ms": plain_finish},
        "spec": {"passes": len(passes), "finish_ms": spec_finish, "written": written, "tokens_after": after,
                 "draft_runs": gamma * len(passes)},
        "speedup": plain_finish / spec_finish if spec_finish else None,
        "winner": _winner(plain_finish, spec_finish, tokens),
        "drawing": drawing(times, written, plain_finish, spec_finish, gamma),
    }


def _winner(plain: float, spec: float, tokens: int) -> str:
    if not tokens:
        return "none"
    if abs(plain - spec) <= 1e-9 * max(plain, spec):
        return "tie"
    return "speculative" if spec < plain else "plain"


def drawing(times: dict, written: list[int], plain_finish: float, spec_finish: float, gamma: int) -> dict:
    """Coordinates on the race's time axis (RACE): one x scale for both lanes, so lengths compare.

    The plain lane is one bar striped once per pass (a pattern of period `plain_period`); the
    speculative lane is a draft block and a verification block per pass, with the tokens it wrote.
    """
    x0, x1 = RACE["x0"], RACE["x1"]
    end = max(plain_finish, spec_finish)
    scale = (x1 - x0) / end if end > 0 else 0.0
    blocks = []
    step = times["spec_pass_ms"]
    drafting = gamma * times["draft_ms"]
    for i, n in enumerate(written):
        start = x0 + i * step * scale
        verify_x = start + drafting * scale
        blocks.append({"draft_x": _r(start), "draft_width": _r(drafting * scale), "verify_x": _r(verify_x),
                       "verify_width": _r(times["verify_ms"] * scale), "end_x": _r(x0 + (i + 1) * step * scale),
                       "written": n, "label": n if times["verify_ms"] * scale >= RACE["label_min_width"] else None})
    return {
        "end_ms": end,
        "x_per_ms": scale,
        "plain_end_x": _r(x0 + plain_finish * scale),
        "spec_end_x": _r(x0 + spec_finish * scale),
        "plain_period": _r(times["plain_pass_ms"] * scale),
        "plain_ticks": times["plain_pass_ms"] * scale >= RACE["tick_min_period"],
        "blocks": blocks,
        "ticks": _axis_ticks(end, scale),
    }


def _axis_ticks(end: float, scale: float) -> list[dict]:
    """Round milliseconds along the axis: 1, 2 or 5 times a power of ten, about RACE["ticks"] of them."""
    if end <= 0:
        return []
    rough = end / RACE["ticks"]
    unit = 10.0 ** math.floor(math.log10(rough))
    step = next(k * unit for k in (1, 2, 5, 10) if k * unit >= rough)
    out, k = [], 0
    while k * step <= end * (1 + 1e-9):
        out.append({"ms": k * step, "x": _r(RACE["x0"] + k * step * scale)})
        k += 1
    return out
