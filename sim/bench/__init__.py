"""The bench: every number the interactive machine shows (docs/bench-protocol.md).

The page holds state and draws; this package computes. By role:

    protocol   every command, action and argument the worker speaks; the only reader and writer of its JSON
    settings   the parameters a bench state carries, their limits, the machine's parts and the themes;
               Settings and State, the checked forms the modules below pass each other
    links      a link's query read into a state (with messages), and a state's link
    commands   the single commands: a sentence start, one traced step, exactness
    tubes      a round of the test tubes: direct draws against speculative ones
    readouts   alpha, tokens per pass, speed-up, best gamma (greedy: many short runs), roofline
    replay     a state replayed into everything the page draws; the actions that change it ("until" too)
    race       the tape's passes timed on paper against plain decoding, on one clock
    hardware   the GPU and model rows the reader picks, with their figures and sources
    layout     where the drawings put things (shared with the template and the page)
    drawing    coordinates of the data-dependent parts of the drawings
    api        the Bench (one language's replays and readouts, with the session's caches) and the spec

sim.session hands the page's requests to protocol, which calls the modules above.
"""

from ..errors import BenchError
from . import protocol
from .api import Bench, spec
from .commands import BENCH_PREFIX, START_TOKENS, TUBE_PREFIX, exactness, rng_for, start, step, which_python
from .readouts import (CONTEXT_TOKENS, DRAFT_COST, GREEDY_RUN_TOKENS, GREEDY_RUNS, READOUT_GAMMA,
                       READOUT_SEED, READOUT_TOKENS, greedy_runs, roofline_readout)
from .tubes import TUBE_DRAWS, tube_round
from .links import parse_link
from .settings import (DEFAULTS, DRAFTS, MAX_BATCH, MAX_GAMMA, MAX_ROUNDS, MAX_SEED, MAX_STEPS, PARAMETERS,
                       RULES, Settings, State, check_settings, check_state)

__all__ = [
    "BENCH_PREFIX", "CONTEXT_TOKENS", "DEFAULTS", "DRAFTS", "DRAFT_COST", "GREEDY_RUNS", "GREEDY_RUN_TOKENS",
    "MAX_BATCH", "MAX_GAMMA", "MAX_ROUNDS", "MAX_SEED", "MAX_STEPS", "PARAMETERS", "READOUT_GAMMA",
    "READOUT_SEED", "READOUT_TOKENS", "RULES", "START_TOKENS", "TUBE_DRAWS", "TUBE_PREFIX", "Bench",
    "BenchError", "Settings", "State", "check_settings", "check_state", "exactness", "greedy_runs", "parse_link",
    "protocol", "rng_for", "roofline_readout", "spec", "start", "step", "tube_round", "which_python",
]
