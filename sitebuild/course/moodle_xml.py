"""A language's question bank as Moodle XML: the `<quiz>` file that Moodle's question bank
imports (Question bank → Import → Moodle XML format).

Numerical questions are `numerical` with one answer worth 100% and its absolute tolerance;
choice questions are `multichoice` with one right answer, shuffled, and each option's own
feedback. A first `category` question puts them in a category of the course's bank named after
the page. Every question ends with a link to the chapter that teaches it on the hosted full page,
and to that chapter with the bench at the question's state when it gives one. The question's
idnumber is its name, so a second import can be told from the first.
"""

from __future__ import annotations

import html

from .bank import Bank, Question
from .xml import document, element

# Moodle's own defaults for a new question (question/type/edit_question_form.php and the
# multichoice and numerical forms): a third off for each wrong try in an adaptive quiz.
PENALTY = "0.3333333"


def name(lang: str) -> str:
    return f"specdec-{lang}-questions.xml"


def _text(tag: str, value: str, html_format: bool = True):
    return element(tag, {"format": "html"} if html_format else None, element("text", text=value))


def _escape(text: str) -> str:
    return html.escape(text, quote=False)


def _paragraphs(text: str) -> str:
    return "".join(f"<p>{_escape(p.strip())}</p>" for p in text.split("\n\n") if p.strip())


def _links(q: Question, chapter: tuple[int, str], strings: dict, page: str) -> str:
    number, title = chapter
    taught = _escape(strings["bank_taught"].format(number=number, title="\0")).replace(
        "\0", f'<a href="{html.escape(page)}#{q.chapter}">{_escape(title)}</a>')
    if q.bench:
        taught += f' (<a href="{html.escape(page)}?{html.escape(q.bench)}#{q.chapter}">{_escape(strings["bank_bench"])}</a>)'
    return f"<p>{taught}</p>"


def _common(q: Question, lang: str, body: str) -> list:
    return [element("name", None, element("text", text=f"{q.chapter} · {q.name}")),
            _text("questiontext", body),
            _text("generalfeedback", _paragraphs(q.feedback)),
            element("defaultgrade", text="1"), element("penalty", text=PENALTY),
            element("hidden", text="0"), element("idnumber", text=f"specdec-{lang}-{q.name}")]


def answer_text(q: Question) -> str:
    """The answer as Moodle stores and shows it ("The correct answer is: …"): rounded as the
    feedback shows it; bank.py holds the tolerance to what that rounding needs."""
    return f"{q.answer:.{q.decimals}f}"


def _numerical(q: Question, lang: str, body: str):
    answer = element("answer", {"fraction": "100", "format": "moodle_auto_format"},
                     element("text", text=answer_text(q)),
                     element("tolerance", text=repr(q.tolerance)),
                     _text("feedback", ""))
    return element("question", {"type": "numerical"}, *_common(q, lang, body), answer,
                   element("unitgradingtype", text="0"), element("unitpenalty", text="0.1000000"),
                   element("showunits", text="3"), element("unitsleft", text="0"))


def _choice(q: Question, lang: str, body: str):
    options = [element("answer", {"fraction": "100" if o.correct else "0", "format": "html"},
                       element("text", text=_paragraphs(o.text)), _text("feedback", _paragraphs(o.feedback)))
               for o in q.options]
    return element("question", {"type": "multichoice"}, *_common(q, lang, body),
                   element("single", text="true"), element("shuffleanswers", text="true"),
                   element("answernumbering", text="abc"), element("showstandardinstruction", text="0"),
                   _text("correctfeedback", ""), _text("partiallycorrectfeedback", ""),
                   _text("incorrectfeedback", ""), *options)


def quiz(bank: Bank, chapters: dict[str, tuple[int, str]], strings: dict, page: str) -> bytes:
    """The Moodle XML of a bank; chapters: anchor -> (number, title); page: the full page's address."""
    category = element("question", {"type": "category"},
                       element("category", None, element("text", text=f"$course$/top/{strings['bank_category']}")),
                       element("info", {"format": "html"}, element("text", text="")))
    made = [category]
    for q in bank.questions:
        body = _paragraphs(q.text) + _links(q, chapters[q.chapter], strings, page)
        made.append(_numerical(q, bank.lang, body) if q.kind == "numerical" else _choice(q, bank.lang, body))
    return document(element("quiz", None, *made), {})
