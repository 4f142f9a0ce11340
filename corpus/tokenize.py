"""Split text into tokens: a word or punctuation mark (English), a character (Chinese).

English is lower-cased so that "The" and "the" share their counts: with one short book the
models need every count they can get. Curly apostrophes become straight ones so "alice’s"
and "alice's" are one word; the underscores Gutenberg uses for italics are dropped.
"""

from __future__ import annotations

import re

from .clean import normalise_space, strip_gutenberg

EN_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z0-9]+)*|[^\sa-z0-9]")


def tokenize_en(text: str) -> list[str]:
    text = normalise_space(strip_gutenberg(text)).lower()
    text = text.replace("\u2019", "'").replace("_", " ")
    return EN_TOKEN.findall(text)


def tokenize_zh(text: str) -> list[str]:
    return [ch for ch in strip_gutenberg(text) if not ch.isspace()]


TOKENIZERS = {"en": tokenize_en, "zh": tokenize_zh}


def tokenize(lang: str, text: str) -> list[str]:
    try:
        return TOKENIZERS[lang](text)
    except KeyError:
        raise ValueError(f"no tokenizer for language {lang!r}; known: {sorted(TOKENIZERS)}") from None
