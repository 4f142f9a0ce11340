"""Small drawn figures: an SVG template per diagram, its words supplied by the chapter.

A chapter writes

    {{ diagram("medusa", caption="...", alt="...", model="the model's layers", ...) }}

and gets a <figure> with the SVG inline (so the page's CSS colours it and its text is real
text) and a <figcaption>. Each diagram is one file, templates/diagrams/NAME.svg.j2; the
labels it draws are its template's free variables, so a language that leaves one out or
adds an unknown one fails the build with the names. Nothing in a template is English:
every word comes from the content file of the page's language.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import jinja2
from jinja2 import meta
from markupsafe import Markup, escape

from .errors import BuildError

TEMPLATES = Path(__file__).resolve().parent.parent / "templates" / "diagrams"
SUFFIX = ".svg.j2"
GIVEN = {"id"}  # supplied by this module, not by the chapter

_ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(TEMPLATES),
    undefined=jinja2.StrictUndefined,
    autoescape=True,
    trim_blocks=True,
    lstrip_blocks=True,
)


def names() -> list[str]:
    return sorted(p.name[: -len(SUFFIX)] for p in TEMPLATES.glob(f"*{SUFFIX}"))


@lru_cache(maxsize=None)
def labels_of(name: str) -> frozenset[str]:
    """The words a diagram draws: its template's free variables."""
    source = (TEMPLATES / f"{name}{SUFFIX}").read_text(encoding="utf-8")
    return frozenset(meta.find_undeclared_variables(_ENV.parse(source)) - GIVEN)


def render(name: str, caption: str, **labels: str) -> Markup:
    """The <figure> for one diagram; BuildError names a missing or unknown diagram or label."""
    if name not in names():
        raise BuildError(f"unknown diagram {name!r}; templates/diagrams has {', '.join(names())}")
    wanted = labels_of(name)
    missing, unknown = sorted(wanted - labels.keys()), sorted(labels.keys() - wanted)
    if missing or unknown:
        raise BuildError(
            f"diagram {name!r}: labels missing {missing or 'none'}, unknown {unknown or 'none'}; "
            f"it draws {', '.join(sorted(wanted))}"
        )
    figure_id = f"diagram-{name}"
    svg = _ENV.get_template(f"{name}{SUFFIX}").render(id=figure_id, **labels)
    # One HTML block for Markdown: no blank line may end it early.
    svg = "\n".join(line for line in svg.splitlines() if line.strip())
    return Markup(
        f'<figure class="diagram" id="{figure_id}">\n{svg}\n'
        f"<figcaption>{escape(caption)}</figcaption>\n</figure>"
    )
