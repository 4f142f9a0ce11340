"""The bench's first picture, computed by the same sim in CPython, so the page is whole before Pyodide.

It makes the very calls the page's Web Worker makes (sim.session.Session.handle with the
commands of docs/bench-protocol.md), with the default settings: a new sentence, one step, the
readouts, and one round of the test tubes. The template draws the picture from these results,
and the bench's JavaScript later redraws the same elements from the worker's answers.
"""

from __future__ import annotations

import json
import math

from sim import bench
from sim.session import Session

from .errors import BuildError

DEFAULTS = bench.DEFAULTS  # the settings a page opens with, as the sim defines them
FIRST_SEED = DEFAULTS["seed"]
TUBE_DRAWS = bench.TUBE_DRAWS
TUBE_TOP = 8
EXACTNESS_TOP = 6
MAX_GAMMA = bench.MAX_GAMMA
DRAWERS_SHOWN = 16
TAPE_SHOWN = 60


def _ring(cx: float, cy: float, radius: float, count: int, r: float, turn: float = 0.0) -> list:
    """Pin positions round a drum (layout only)."""
    return [
        [round(cx + radius * math.cos(turn + 2 * math.pi * i / count), 2),
         round(cy + radius * math.sin(turn + 2 * math.pi * i / count), 2), r]
        for i in range(count)
    ]


def _call(session: Session, command: str, args: dict):
    reply = json.loads(session.handle(command, json.dumps(args, ensure_ascii=False)))
    if not reply.get("ok"):
        raise BuildError(f"the bench's first picture: sim command {command!r} failed: {reply.get('error')}")
    return reply["result"]


def render(language, strings: dict) -> dict:
    session = Session(language)
    settings = dict(DEFAULTS)
    # A sentence is the start the sim draws for the seed; the page's "new sentence" moves the seed.
    sentence = _call(session, "start", {"seed": settings["seed"]})
    context = [t["id"] for t in sentence["tokens"]]
    step = _call(session, "step", {**settings, "context": context, "step_index": 0,
                                   "exactness_top": EXACTNESS_TOP})
    readouts = _call(session, "readouts", settings)
    tubes = _call(session, "tube_round", {**settings, "round": 0, "draws": TUBE_DRAWS, "top": TUBE_TOP})
    tape = [{"text": t["text"], "kind": "prefix"} for t in sentence["tokens"]]
    tape += [{"text": w["text"], "kind": w["kind"]} for w in step["written"]]
    return {
        "settings": settings,
        "tube_prefix": tubes["context_text"],
        "seed": FIRST_SEED,
        "sentence": sentence,
        "step": step,
        "readouts": readouts,
        "tubes": tubes,
        "tape": tape[-TAPE_SHOWN:],
        "layout": {
            "max_gamma": MAX_GAMMA,
            "drawers": DRAWERS_SHOWN,
            "tube_top": TUBE_TOP,
            "tube_draws": TUBE_DRAWS,
            "exactness_top": EXACTNESS_TOP,
            "pins_big": _ring(70, 78, 46, 28, 2.4) + _ring(70, 78, 33, 20, 2.0, 0.1),
            "pins_small": _ring(30, 186, 14, 10, 2.0),
        },
        # What the page's script needs to carry on from this picture (read from a JSON block).
        "state": {
            "settings": settings,
            "steps": 1,
            "rounds": 1,
            "sentence": sentence["tokens"],
            "context": context + [w["id"] for w in step["written"]],
            "written": step["n_written"],
            "tube_round": tubes,
            "readouts": readouts,
            "lanes_per_sequence": step["lanes_per_sequence"],
        },
    }
