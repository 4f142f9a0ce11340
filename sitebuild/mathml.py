"""Turn LaTeX written in the chapters into MathML at build time: no math library in the browser."""

from __future__ import annotations

from latex2mathml.converter import convert


def render_math(latex: str, options: dict) -> str:
    display = "block" if options.get("display_mode") else "inline"
    return convert(latex.strip(), display=display)
