"""The self-written texts the own-text tests paste (tests/fixtures/owntext/), by name.

Imported by name (tests/ is on the path when pytest loads tests/conftest.py).
"""

from __future__ import annotations

from pathlib import Path

FOLDER = Path(__file__).resolve().parents[1] / "fixtures" / "owntext"


def own_text(name: str) -> str:
    """A fixture by name, "refrain.en" for example."""
    return (FOLDER / f"{name}.txt").read_text(encoding="utf-8")


def own_texts(lang: str) -> dict[str, str]:
    """Every fixture of one language, by name."""
    return {path.stem: path.read_text(encoding="utf-8") for path in sorted(FOLDER.glob(f"*.{lang}.txt"))}
