"""Strip what is not the author's text and normalise white space."""

from __future__ import annotations

import re

START = re.compile(r"^\*\*\* ?START OF (THE|THIS) PROJECT GUTENBERG EBOOK.*$", re.M)
END = re.compile(r"^\*\*\* ?END OF (THE|THIS) PROJECT GUTENBERG EBOOK.*$", re.M)
ILLUSTRATION = re.compile(r"\[Illustration[^\]]*\]")


def strip_gutenberg(text: str) -> str:
    """Keep what lies between the Gutenberg start and end sentinels, if there are any."""
    start, end = START.search(text), END.search(text)
    if start:
        text = text[start.end():]
        end = END.search(text)
    if end:
        text = text[: end.start()]
    return ILLUSTRATION.sub(" ", text)


def normalise_space(text: str) -> str:
    """One space between words; line breaks carry no meaning for the models."""
    return " ".join(text.split())
