"""The bench's first picture, computed by the same sim in CPython, so the page is whole before Pyodide."""

from __future__ import annotations

from sim.session import Session

FIRST_SEED = 1


def render(language, strings: dict) -> dict:
    prefix = strings["bench_prefix"]
    step = Session(language).step({"prefix": prefix, "draft": "bigram", "gamma": 4, "seed": FIRST_SEED})
    return {"prefix": prefix, "step": step, "seed": FIRST_SEED}
