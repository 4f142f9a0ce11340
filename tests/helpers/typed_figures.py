"""The scan that keeps chapters from typing a number the code computes (they print it through
{{ fig.* }}), and the figures computed on the session's real models, for the figures' tests."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from sitebuild import figures

SITE = Path(__file__).resolve().parents[2] / "site"
JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.S)
MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]*\$", re.S)
LINK_TARGET = re.compile(r"\]\([^)]*\)")
NUMBER = re.compile(r"(?<![\w.\-])\d[\d,]*(?:\.\d+)?(?!\w|\.\d)")
# Zero and one are the bounds of every probability; the code computes them too, but typing them is fine.
CONSTANTS = {"0", "1"}
# A number right after one of these words names a place in a paper or a model's version
# ("Llama 3.1"), not a quantity.
REFERENCE_WORDS = re.compile(
    r"(equation|theorem|table|section|appendix|chapter|eBook|Llama|#|定理|公式|式|附录|表|第|节)\s*$", re.I
)
# A number right before one of these is a date, a duration or a version, not a computed figure.
NOT_A_FIGURE_AFTER = re.compile(r"^\s*(years?|年|International|国际)", re.I)


LIST_MARKER = re.compile(r"^\s*\d+[.)]\s", re.M)


def typed_numbers(text):
    text = LINK_TARGET.sub("]", MATH.sub(" ", JINJA.sub(" ", text)))
    text = LIST_MARKER.sub(" ", text)
    for match in NUMBER.finditer(text):
        before = text[max(0, match.start() - 12):match.start()]
        after = text[match.end():match.end() + 16]
        if not REFERENCE_WORDS.search(before) and not NOT_A_FIGURE_AFTER.search(after):
            yield match.group().rstrip(",")


def content_texts(lang):
    """Every content file: the chapters and the closing sections, front matter included."""
    from sitebuild.frontmatter import split

    for path in sorted((SITE / lang).glob("*.md")):
        meta, body, _ = split(path, path.read_text(encoding="utf-8"))
        extra = [meta.get("caption", "")] + [f"{q['q']} {q['a']}" for q in meta.get("faq", [])]
        tryit = meta.get("try", {})  # the Try-it's words (its actions are data, not prose)
        extra += [tryit.get(key, "") for key in ("button", "question", "answer")]
        yield path.name, "\n".join([body, *extra])


def figure_numbers(lang):
    shown = figures.formatted(lang, computed_figures()[lang])
    numbers = set()
    for text in shown.values():
        numbers.update(m.group() for m in NUMBER.finditer(text))
    return numbers


def typed_figures(lang, texts):
    computed = figure_numbers(lang)
    return {
        (name, n)
        for name, text in texts
        for n in typed_numbers(text)
        if n in computed and n not in CONSTANTS
    }


def real_language(lang):
    from helpers import corpus_models  # the session's one set of real models

    return corpus_models.language(lang)


@lru_cache(maxsize=1)
def computed_figures():
    return figures.compute({lang: real_language(lang) for lang in ("en", "zh")})
