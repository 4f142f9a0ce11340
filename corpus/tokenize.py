"""Split a book into tokens: a word or punctuation mark (English), a character (Chinese).

The rules themselves live in sim/text.py, because the page must split a reader's prefix
exactly as the models were counted and only `sim` runs in the browser. English is lower-cased
so that "The" and "the" share their counts (one short book needs every count it can get);
curly apostrophes become straight ones and Gutenberg's italic underscores are dropped.
The Gutenberg sentinels are stripped in sim too, so that a reader's pasted book is cleaned as
the build's.
"""

from __future__ import annotations

from sim.text import strip_gutenberg
from sim.text import tokenize as tokenize_text


def tokenize(lang: str, text: str) -> list[str]:
    """Tokens of a whole book: its Gutenberg sentinels are stripped first."""
    return tokenize_text(lang, strip_gutenberg(text))
