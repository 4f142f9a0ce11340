"""Split a content file into its TOML front matter and Markdown body."""

from __future__ import annotations

import tomllib
from pathlib import Path

from .errors import BuildError

FENCE = "+++"


def split(path: Path, text: str) -> tuple[dict, str, int]:
    """Return (front matter, body, line number where the body starts)."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != FENCE:
        raise BuildError(f"{path}:1: content files start with a '{FENCE}' line and TOML front matter")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == FENCE)
    except StopIteration:
        raise BuildError(f"{path}:1: front matter is never closed by a '{FENCE}' line") from None
    try:
        meta = tomllib.loads("\n".join(lines[1:end]))
    except tomllib.TOMLDecodeError as err:
        raise BuildError(f"{path}: front matter is not valid TOML: {err}") from None
    return meta, "\n".join(lines[end + 1 :]), end + 2


def load_toml(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BuildError(f"{path}: missing") from None
    except tomllib.TOMLDecodeError as err:
        raise BuildError(f"{path}: not valid TOML: {err}") from None
