"""The Bench: one language's commands (docs/bench-protocol.md), with the session's caches.

sim.session dispatches the page's requests here by name; every handler takes the request's
JSON arguments (a dict) and returns a JSON-ready dict, or raises BenchError naming a bad one.
"""

from __future__ import annotations

from .. import owntext
from ..counting import STAGES
from . import commands, hardware, layout, tubes
from .race import RACE_PASSES
from .readouts import DRAFT_COST, GREEDY_RUN_TOKENS, GREEDY_RUNS, READOUT_GAMMA, READOUT_TOKENS, Readouts
from .replay import Replays, verdicts
from .settings import (LINK_VALUE_SHOWN, PARAMETERS, PARTS, PROGRESS, check_settings, SEED_MODULUS, SETTINGS, THEMES,
                       default_state, parse_link)


def spec() -> dict:
    """What the page needs to know about the bench besides its answers: every parameter with its
    limits and accepted values, the verdicts, and the drawings' layout constants."""
    return {
        "parameters": [p.describe() for p in PARAMETERS],
        "settings": list(SETTINGS),
        "progress": list(PROGRESS),
        "default_state": default_state(),
        "seed_modulus": SEED_MODULUS,
        "link_value_shown": LINK_VALUE_SHOWN,
        "verdicts": verdicts(),
        "tube_draws": tubes.TUBE_DRAWS,
        "readouts": {"c": DRAFT_COST, "alpha_gamma": READOUT_GAMMA, "tokens": READOUT_TOKENS,
                     "greedy_runs": GREEDY_RUNS, "greedy_run_tokens": GREEDY_RUN_TOKENS},
        "layout": layout.spec(),
        # The embed's view options besides chapter (whose anchors the build knows): parse_link.
        "view_options": {"parts": list(PARTS), "themes": list(THEMES)},
        "own_text": own_text_spec(),
        "hardware": hardware.rows(),
        "race_passes": RACE_PASSES,
    }


def own_text_spec() -> dict:
    """The limits of a reader's own text and the stages its counting reports (sim.owntext)."""
    return {"max_characters": owntext.MAX_CHARACTERS, "min_tokens": owntext.MIN_TOKENS, "stages": list(STAGES)}


class Bench:
    """The bench's commands for one language (measured: see Readouts)."""

    def __init__(self, language, measured: list | None = None):
        self.language = language
        self._readouts = Readouts(language, measured)
        self._replays = Replays(language, self._readouts)
        self.handlers = {
            "runtime": lambda _args: commands.runtime(),
            "spec": lambda _args: spec(),
            "link": lambda args: parse_link(args.get("query"), args.get("chapters")),
            "act": self._replays.act,
            "view": lambda args: self._replays.view(args.get("state"), args.get("measure", True) is not False),
            "readouts": self.readouts,
            "start": lambda args: commands.start(language, args),
            "step": lambda args: commands.step(language, args),
            "exactness": lambda args: commands.exactness(language, args),
            "tube_round": lambda args: tubes.tube_round(language, args, self._replays.spec_cache),
        }

    def readouts(self, args: dict) -> dict:
        """The readouts of some settings (docs/bench-protocol.md), with the curve's coordinates."""
        return self._replays.measured(check_settings(args))
