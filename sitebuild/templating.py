"""The Jinja2 settings shared by chapters and page templates: an unknown name is an error that
says which name, in which namespace (fig, paper, t), so the error boundary can suggest the
nearest known ones."""

from __future__ import annotations

from functools import lru_cache

import re

import jinja2
from jinja2.utils import missing
from markupsafe import Markup, escape

from . import numbers
from .errors import UnknownName
from .markdown import CLOSING, NOBREAK_OPEN
from .mathml import to_mathml


class ReportingUndefined(jinja2.StrictUndefined):
    """StrictUndefined that raises UnknownName (name and namespace) instead of Jinja's
    "'dict object' has no attribute" text."""

    __slots__ = ()

    def _fail_with_undefined_error(self, *args, **kwargs):
        if self._undefined_name is not None:
            namespace = None if self._undefined_obj is missing else self._undefined_obj
            raise UnknownName(self._undefined_name, namespace)
        return super()._fail_with_undefined_error(*args, **kwargs)

    __str__ = __iter__ = __len__ = __bool__ = __eq__ = __ne__ = __hash__ = __contains__ = (
        _fail_with_undefined_error
    )


CONTENT_ENV = jinja2.Environment(undefined=ReportingUndefined, autoescape=False, keep_trailing_newline=True)


@lru_cache(maxsize=2048)
def content_template(text: str) -> jinja2.Template:
    """A chapter's text as a template, compiled once per distinct text (the dev server rebuilds
    after every save; most sections have not changed)."""
    return CONTENT_ENV.from_string(text)


def page_environment(loader: jinja2.BaseLoader) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=loader,
        undefined=ReportingUndefined,
        autoescape=jinja2.select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    # The bench's numbers, written by the page's own rule (sitebuild/numbers.py).
    env.globals.update(numbers.TEMPLATE_GLOBALS)
    env.filters["math"] = with_math
    return env


_INLINE_MATH = re.compile(r"\$([^$]+)\$")


def with_math(text: str) -> Markup:
    """An interface string with formulas in it ($…$, as the chapters write them), its formulas as
    the chapters' MathML and the rest escaped."""
    parts = _INLINE_MATH.split(text)
    out = []
    for i, part in enumerate(parts):
        if not i % 2:
            out.append(escape(part))
            continue
        formula = Markup('<span class="math inline">%s</span>' % to_mathml(part, "inline"))
        after = parts[i + 1]
        marks = len(after) - len(after.lstrip(CLOSING))
        if marks:  # held with the closing marks after it, as in the chapters: no line begins with one
            formula = Markup(NOBREAK_OPEN) + formula + escape(after[:marks]) + Markup("</span>")
            parts[i + 1] = after[marks:]
        out.append(formula)
    return Markup("").join(out)
