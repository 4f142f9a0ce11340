"""Strip what is not the author's text and normalise white space."""

from __future__ import annotations

# The sentinels are stripped in sim, so that a reader's pasted book is cleaned as the build's.
from sim.text import strip_gutenberg

__all__ = ["normalise_space", "strip_gutenberg"]


def normalise_space(text: str) -> str:
    """One space between words; line breaks carry no meaning for the models."""
    return " ".join(text.split())
