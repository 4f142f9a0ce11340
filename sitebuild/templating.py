"""The Jinja2 settings shared by chapters and page templates: an unknown name is an error that
says which name, in which namespace (fig, paper, t), so the error boundary can suggest the
nearest known ones."""

from __future__ import annotations

from functools import lru_cache

import jinja2
from jinja2.utils import missing

from .errors import UnknownName


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
    return jinja2.Environment(
        loader=loader,
        undefined=ReportingUndefined,
        autoescape=jinja2.select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
