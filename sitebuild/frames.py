"""The frames the bench sits in, chosen from the size of what a page is given (the window, or the
frame a course page or a course package gives the embed), and the widths at which the bench's
panels rearrange: the one table of the layout's thresholds.

Style sheets name a threshold as a custom media query, `@media (--page-beside)` (Media Queries
level 5's syntax), or a custom condition of a named container, `@container bench (--bench-wide)`;
the style-sheet bundler writes each out from this table (`expand`; an unknown name stops the
build, and so does a size written out in a prelude). The page's scripts read the same queries
from the page's data (`page-frames`, the queries of its own kind: `for_page`) and ask
`matchMedia`, so a threshold changes here and nowhere else. Inside an `<iframe>` a media query
measures the frame, not the reader's window; a container query follows the width of a panel
(the bench, its controls, its deck of panels), whatever frame holds it.
"""

from __future__ import annotations

import re
from pathlib import Path

from .errors import BuildError

HERE = Path(__file__)

# The full page (templates/page.html): the text and the bench side by side from 56.25rem (900 px)
# wide and 35rem (560 px) tall, where a measure of 24rem and a machine at its own size (340 x 304
# units, 12-unit lettering at 12 px or more) fit with the rest of the bench beside it; smaller,
# the machine in a bar at the top and the bench a sheet over the text.
PAGE_BESIDE_WIDTH = 56.25
PAGE_BESIDE_HEIGHT = 35
# Beside the text, windows under 56rem tall set the Play row beside the machine (under it, across
# the bench, where the bench is under BENCH_NARROW) and fold the settings behind one button. Under 62rem the panels are set tighter (a wide bench's tabs too), and
# from WIDE_WINDOW wide, a desktop monitor's window, the settings fold as well: beside a full
# measure of text its bench is --bench-wide from 106.5rem (the machine at the left, everything else
# in one column beside it, which cannot hold five rows of settings and a panel); folding a little
# earlier only saves height.
PAGE_SHORT = 56
PAGE_LOW = 62
WIDE_WINDOW = 100
# The embed showing a chapter (templates/embed.html, the course package's frame): the chapter
# beside the bench from 43.75rem (700 px) wide and 28rem (448 px) tall: a column of 18rem and a
# machine at its own size; smaller, the phone's layout (the machine in a bar, the chapter first).
EMBED_BESIDE_WIDTH = 43.75
EMBED_BESIDE_HEIGHT = 28
# A frame as narrow as a phone's column: less padding around the bench.
EMBED_PHONE = 24
# A window or frame of a phone's width: the course package's launcher sets its steps under its
# chapter list, the race's drawing its words a size larger.
PHONE = 40
# The bench's width beside the text (the `bench` container): narrower, the Play row goes under
# the machine in a short window; wider, the machine takes the left of the bench. Beside an
# embed's chapter, from BENCH_BESIDE the head and the tape sit beside the machine (its own size
# and a column of 12rem), under it in a narrower bench.
BENCH_NARROW = 42
BENCH_WIDE = 68
BENCH_BESIDE = 34
# A bench (the `bench` container) or a deck of panels (`deck`) this wide sets a drawing and its
# words side by side: the machine and its rail, a panel's figure and its side.
SPLIT = 33
# The controls (`controls`) in two columns, each control on one line.
CONTROLS_TWO_COLUMNS = 27
# A deck too narrow to split but this wide puts each readout's label beside its value.
DECK_LABELS_BESIDE = 24
# A deck this wide sets the race's verdict and details beside its drawing.
DECK_WIDE = 40


def _beside(width: float, height: float) -> str:
    return f"(width >= {width}rem) and (height >= {height}rem)"


def _bar(width: float, height: float) -> str:
    return f"(width < {width}rem) or (height < {height}rem)"


# Media queries, by name.
MEDIA = {
    "page-beside": _beside(PAGE_BESIDE_WIDTH, PAGE_BESIDE_HEIGHT),
    "page-bar": _bar(PAGE_BESIDE_WIDTH, PAGE_BESIDE_HEIGHT),
    "page-short": f"{_beside(PAGE_BESIDE_WIDTH, PAGE_BESIDE_HEIGHT)} and (height < {PAGE_SHORT}rem)",
    "page-low": f"{_beside(PAGE_BESIDE_WIDTH, PAGE_BESIDE_HEIGHT)} and (height < {PAGE_LOW}rem)",
    "page-fold": f"{_beside(PAGE_BESIDE_WIDTH, PAGE_BESIDE_HEIGHT)} and ((height < {PAGE_SHORT}rem)"
                 f" or ((height < {PAGE_LOW}rem) and (width >= {WIDE_WINDOW}rem)))",
    "window-short": f"(height < {PAGE_SHORT}rem)",
    "embed-beside": _beside(EMBED_BESIDE_WIDTH, EMBED_BESIDE_HEIGHT),
    "embed-bar": _bar(EMBED_BESIDE_WIDTH, EMBED_BESIDE_HEIGHT),
    "embed-phone": f"(width < {EMBED_PHONE}rem)",
    "phone": f"(width <= {PHONE}rem)",
}
# Container conditions, by name (for `@container <name> (--condition)`).
CONTAINER = {
    "bench-narrow": f"(width < {BENCH_NARROW}rem)",
    "bench-wide": f"(width >= {BENCH_WIDE}rem)",
    "bench-beside": f"(width >= {BENCH_BESIDE}rem)",
    "bench-split": f"(width >= {SPLIT}rem)",
    "controls-two-columns": f"(width >= {CONTROLS_TWO_COLUMNS}rem)",
    "deck-narrow": f"(width < {SPLIT}rem)",
    "deck-split": f"(width >= {SPLIT}rem)",
    "deck-labels-beside": f"(width >= {DECK_LABELS_BESIDE}rem) and (width < {SPLIT}rem)",
    "deck-wide": f"(width >= {DECK_WIDE}rem)",
}
# What each kind of page's scripts read (templates: _page_data.html): its bar and its beside.
FOR_PAGE = {
    "page": {"beside": "page-beside", "bar": "page-bar"},
    "embed": {"beside": "embed-beside", "bar": "embed-bar"},
}

PRELUDE = re.compile(r"@(media|container)([^{;]*)\{")
NAME = re.compile(r"\(--([a-z][a-z0-9-]*)\)")
SIZE = re.compile(r"\b(?:min-|max-)?(?:width|height)\s*[:<>=]")


def for_page(kind: str) -> dict[str, str]:
    """The queries a page of this kind's scripts read, by role ("beside", "bar")."""
    return {role: MEDIA[name] for role, name in FOR_PAGE[kind].items()}


def expand(text: str, path: Path) -> str:
    """The style sheet with every `(--name)` of an @media or @container prelude written out."""
    def prelude(match: re.Match) -> str:
        rule, condition = match.group(1), match.group(2)
        table = MEDIA if rule == "media" else CONTAINER
        if SIZE.search(condition):
            line = text.count("\n", 0, match.start()) + 1
            raise BuildError(f"@{rule} writes a size out ({condition.strip()})", file=path, line=line,
                             fix="name it, @" + rule + (" <container>" if rule == "container" else "")
                                 + " (--name), from the table in sitebuild/frames.py (add it there if it is new)")

        def named(found: re.Match) -> str:
            name = found.group(1)
            if name not in table:
                line = text.count("\n", 0, match.start()) + 1
                known = ", ".join(f"--{n}" for n in table)
                raise BuildError(f"@{rule} names --{name}, which sitebuild/frames.py does not define", file=path,
                                 line=line, fix=f"use one of {known}, or add it to the table in sitebuild/frames.py")
            return f"({table[name]})"

        return f"@{rule}{NAME.sub(named, condition)}{{"

    return PRELUDE.sub(prelude, text)
