"""Every number the chapters print that code can compute, with the format it is printed in.

`compute(languages)` returns, per language, a `Figures` collection (name -> value and
format): the paper roofline and the bench's settings and worked example (the same on both
pages) and the bench's own measurements (each page measures its own book's models).
`formatted(lang, figures)` gives the strings `{{ fig.NAME }}` inserts. Each module declares a
figure's format where it computes it, so a name is written once.

    roofline.py   chapters 1, 2, 9, 11 and the closing notes (sim.roofline)
    measured.py   the bench's measurements on each book (sim.bench, sim.stats), cached by cache.py
    worked.py     chapter 6's three-token example in exact fractions
    multicand.py  the closing notes' two-token example of several candidates, in exact fractions
    freedrafts.py chapters 14 to 16: prompt lookup and suffix decoding on each book's prompts (sim.prompts)
    serving.py    chapter 14: MoE passes (moe.py), memory capacity, ratios of quoted figures
    formats.py    Format, Words, ExactDecimal and the Figures collection
"""

from __future__ import annotations

from .formats import Figures, Format
from .freedrafts import free_figures
from .measured import DEFAULT_GAMMA, LAB_GAMMA, bench_figures, settings
from .multicand import multicand_figures
from .roofline import roofline
from .serving import serving_figures
from .worked import worked_figures


def shared() -> Figures:
    """The figures that are the same on every page."""
    f = roofline()
    f.merge(settings())
    f.merge(worked_figures())
    f.merge(multicand_figures())
    f.merge(serving_figures())
    return f


def compute(languages: dict) -> dict[str, Figures]:
    """Each language's figures: the shared ones plus that book's measurements."""
    common = shared()
    out = {}
    for lang, language in languages.items():
        f = Figures()
        f.merge(common)
        f.merge(bench_figures(language))
        f.merge(free_figures(language))
        out[lang] = f
    return out


def formatted(lang: str, figures: Figures) -> dict[str, str]:
    """The strings {{ fig.NAME }} inserts on the `lang` page."""
    return figures.texts(lang)


def roofline_figures() -> dict:
    """The roofline figures' raw values (the bench's tests compare its readouts with them)."""
    return roofline().raw()


__all__ = ["DEFAULT_GAMMA", "LAB_GAMMA", "Figures", "Format", "bench_figures", "compute",
           "formatted", "roofline_figures", "shared"]
