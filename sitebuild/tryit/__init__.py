"""The chapters' "Try it" levers: declared in each chapter's [try] table, checked against the
bench's spec, rendered into the chapter (templates/_tryit.html) and run by site/static/js/tryit.js.

check(contents, spec): every chapter (and a closing section with [try]) has a valid block, and both
languages declare the same one.
render(section, values, spec): what the template shows and the data the page's runner reads.
"""

from __future__ import annotations

from ..sections import Piece
from .blocks import check_parity, checked, page_data


def check(contents: dict, spec: dict) -> None:
    """Fail on the first bad or unmatched Try-it, naming its file and line."""
    first, *rest = contents.values()
    blocks = {lang: [checked(s, spec) for s in c.with_tryit] for lang, c in contents.items()}
    for other in rest:
        for a, b, block_a, block_b in zip(first.with_tryit, other.with_tryit, blocks[first.lang],
                                          blocks[other.lang]):
            check_parity(a, b, block_a, block_b)


def render(section, values: dict, spec: dict, page: str | None = None) -> dict:
    """The block as the template shows it: button words, the question (Markdown), the data."""
    block = checked(section, spec)
    button, question, answer = (Piece(section, page, key) for key in ("button", "question", "answer"))
    predict = why = None
    if block["predict"] is not None:
        asked = Piece(section, page, "predict")
        predict = {**block["predict"], "question": asked.inline(asked.fill(block["predict"]["question"], values))}
        if block["predict"]["why"] is not None:
            why = asked.fill(block["predict"]["why"], values)
    return {
        "button": button.fill(block["button"], values),
        "question": question.inline(question.fill(block["question"], values)),
        "predict": predict,
        "data": page_data(block, answer.fill(block["answer"], values), section.meta["part"], why),
    }
