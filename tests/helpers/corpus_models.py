"""The real models, counted once per test session from the shared corpus, for every test that needs them.

Built in memory through the corpus package exactly as the site build does (read the verified
books, tokenise, count, export to JSON, parse). tests/conftest.py wraps them as fixtures
(sim_model_docs, sim_languages, en, zh); plain helpers (tests/sitebuild/test_figures.py) call these.
Imported by name (tests/ is on the path when pytest loads tests/conftest.py).
"""

from __future__ import annotations

import json
from functools import lru_cache

LANGS = ("en", "zh")


@lru_cache(maxsize=None)
def model_file(lang: str):
    from corpus.sources import corpus_dir
    from sitebuild.counting import count_model

    return count_model(lang, corpus_dir())


def model_json(lang: str) -> str:
    return model_file(lang).json_text


def heads_json(lang: str) -> str:
    """The heads' table the build writes beside the model (models/<lang>-heads.json), counted once."""
    return model_file(lang).heads_json


def model_doc(lang: str) -> dict:
    return json.loads(model_json(lang))


@lru_cache(maxsize=None)
def language(lang: str):
    from sim.models import load_language

    return load_language(model_doc(lang))


@lru_cache(maxsize=None)
def book_ids(lang: str) -> tuple:
    """The books' token ids in the model's vocabulary, in reading order (what the heads count)."""
    from corpus import tokenize
    from corpus.sources import corpus_dir
    from sitebuild.counting import read_books

    index = language(lang).index
    return tuple(index[t] for text in read_books(lang, corpus_dir()) for t in tokenize.tokenize(lang, text))
