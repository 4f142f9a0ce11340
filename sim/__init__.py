"""Speculative sampling on small n-gram models, in pure standard-library Python.

Runs unchanged in CPython 3.11+ and in Pyodide (no numpy there).

    models       load a "specdec-ngram/1" JSON: vocabulary, trigram target, drafts
    sparse       the fast distributions: time in proportion to the continuations seen
    speculative  one traced draft-then-check step, plain target sampling, single draws
    stats        beta, alpha, tokens per pass, speed-up, best gamma, measurement, chi-square
    text         tokenise text for the models; detokenise ids for display
    bench        the interactive bench's commands (settings, replays, readouts, drawing)
    session      the JSON boundary the page's worker and the build call
"""

from .models import Language, NgramModel, load_language
from .speculative import StepTrace, first_token, first_tokens, sample_target, speculative_step

__all__ = ["Language", "NgramModel", "StepTrace", "first_token", "first_tokens", "load_language",
           "sample_target", "speculative_step"]
