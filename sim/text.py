"""Turn text into model tokens and token strings back into readable text.

This is the one tokeniser: corpus/tokenize.py counts the books with it (after stripping
Gutenberg's sentinels), and the page splits a reader's prefix, and counts a reader's own text
(sim.owntext), with it in the browser, where only `sim` runs.
"""

from __future__ import annotations

import re

# A word (with inner apostrophes) or one mark.
EN_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z0-9]+)*|[^\sa-z0-9]")

# English marks written against the word before them ("alice," "said:" "way—").
EN_NO_SPACE_BEFORE = frozenset(",.;:!?)]}”'’—-…")
# English marks written against the word after them ("“oh" "(and" "—so").
EN_NO_SPACE_AFTER = frozenset("“‘([{—-")

LANGUAGES = ("en", "zh")

GUTENBERG_START = re.compile(r"^\*\*\* ?START OF (THE|THIS) PROJECT GUTENBERG EBOOK.*$", re.M)
GUTENBERG_END = re.compile(r"^\*\*\* ?END OF (THE|THIS) PROJECT GUTENBERG EBOOK.*$", re.M)
ILLUSTRATION = re.compile(r"\[Illustration[^\]]*\]")


def strip_gutenberg(text: str) -> str:
    """Keep what lies between the Gutenberg start and end sentinels, if there are any."""
    start, end = GUTENBERG_START.search(text), GUTENBERG_END.search(text)
    if start:
        text = text[start.end():]
        end = GUTENBERG_END.search(text)
    if end:
        text = text[: end.start()]
    return ILLUSTRATION.sub(" ", text)


def tokenize(lang: str, text: str) -> list[str]:
    """Split text the way the models were counted: en lower-cased words/marks, zh characters."""
    if lang == "en":
        text = " ".join(text.split()).lower().replace("\u2019", "'").replace("_", " ")
        return EN_TOKEN.findall(text)
    if lang == "zh":
        return [ch for ch in text if not ch.isspace()]
    raise ValueError(f"no tokenizer for language {lang!r}; known: {list(LANGUAGES)}")


def is_word(lang: str, text: str) -> bool:
    """Whether a token's text is a word (the bench starts its sentences on words, not marks)."""
    return text[:1].isalnum() if lang == "en" else text.isalpha()


def detokenize(lang: str, tokens: list[str]) -> str:
    """Join token strings for display: English with spaces where a reader expects them."""
    if lang == "zh":
        return "".join(tokens)
    if lang != "en":
        raise ValueError(f"no detokenizer for language {lang!r}; known: {list(LANGUAGES)}")
    pieces: list[str] = []
    glue_next = True  # no space before the very first token
    for token in tokens:
        if not glue_next and token not in EN_NO_SPACE_BEFORE:
            pieces.append(" ")
        pieces.append(token)
        glue_next = token in EN_NO_SPACE_AFTER
    return "".join(pieces)
