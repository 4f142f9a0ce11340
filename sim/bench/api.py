"""The Bench: one language's models with the session's caches, and the spec the page is built with.

sim.bench.protocol reads the page's requests and calls the bench's modules through a Bench with
checked arguments; the page's spec (`spec`) carries everything the page knows of the bench
besides its answers, the protocol's own tables included.
"""

from __future__ import annotations

from .. import owntext
from ..counting import STAGES
from . import hardware, layout, protocol, tubes
from .race import RACE_PASSES
from .readouts import DRAFT_COST, GREEDY_RUN_TOKENS, GREEDY_RUNS, READOUT_GAMMA, READOUT_TOKENS, Readouts
from .replay import Replays, verdicts
from .settings import (LEGACY, LINK_VALUE_SHOWN, PARAMETERS, PARTS, PROGRESS, SEED_MODULUS, SETTINGS, THEMES,
                       check_settings, default_state)


def spec() -> dict:
    """What the page needs to know about the bench besides its answers: every parameter with its
    limits and accepted values, the protocol (commands, actions), the verdicts, and the drawings'
    layout constants."""
    return {
        "parameters": [p.describe() for p in PARAMETERS],
        # Read in old links (greedy=1 is temperature 0) and replaced by their successor in the link.
        "legacy_parameters": list(LEGACY),
        "settings": list(SETTINGS),
        "progress": list(PROGRESS),
        "default_state": default_state(),
        "seed_modulus": SEED_MODULUS,
        "link_value_shown": LINK_VALUE_SHOWN,
        "protocol": protocol.describe(),
        "verdicts": verdicts(),
        "tube_draws": tubes.TUBE_DRAWS,
        "readouts": {"c": DRAFT_COST, "alpha_gamma": READOUT_GAMMA, "tokens": READOUT_TOKENS,
                     "greedy_runs": GREEDY_RUNS, "greedy_run_tokens": GREEDY_RUN_TOKENS},
        "layout": layout.spec(),
        # The embed's view options besides chapter (whose anchors the build knows): sim.bench.links.
        "view_options": {"parts": list(PARTS), "themes": list(THEMES)},
        "own_text": own_text_spec(),
        "hardware": hardware.rows(),
        "race_passes": RACE_PASSES,
    }


def own_text_spec() -> dict:
    """The limits of a reader's own text and the stages its counting reports (sim.owntext)."""
    return {"max_characters": owntext.MAX_CHARACTERS, "min_tokens": owntext.MIN_TOKENS, "stages": list(STAGES)}


class Bench:
    """One language's bench (measured: see Readouts): its replays, readouts and caches."""

    def __init__(self, language, measured: list | None = None, own_text: str | None = None):
        """own_text: the reader's text these models were counted from (the prompt "own")."""
        self.language = language
        self._readouts = Readouts(language, measured)
        self.replays = Replays(language, self._readouts, own_text)

    @staticmethod
    def spec() -> dict:
        return spec()

    def readouts(self, args: dict) -> dict:
        """The readouts of some settings given as JSON (the `readouts` command), with the curve's coordinates."""
        return self.replays.measured(check_settings(args))
