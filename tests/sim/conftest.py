"""Fixtures for the sim tests: a tiny model (the real ones are in tests/conftest.py), and the
bench's sessions, one per language for each module (tests/helpers/bench_calls.py)."""

from __future__ import annotations

import pytest
from helpers.bench_calls import sessions  # noqa: F401  (a fixture: every module here may ask for it)

from sim.counting import count_document
from sim.models import load_language


# --- tiny models, counted by the page's one counter (checked by hand in tests/corpus/test_count.py) ---

TINY_TEXT = "a b a c a b b d a c e a b a a d c b a e b c a"


@pytest.fixture(scope="session")
def tiny_doc() -> dict:
    return count_document("en", TINY_TEXT.split(), [])


@pytest.fixture(scope="session")
def tiny(tiny_doc):
    return load_language(tiny_doc)
