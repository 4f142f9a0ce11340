"""The question bank of one language: site/<lang>/questions.toml's wording, answers.py's numbers.

Each `[[question]]` names the chapter that teaches it (its anchor), optionally a bench state (a
link's query, read by the bench's own sim.bench.links) and a kind:

- `numerical`: `answer` names a computation of answers.py, `given` the values it takes (the
  text shows them as {name}), `decimals` how the answer is shown and `tolerance` the absolute
  error a course accepts; the feedback may show the answer as {answer}.
- `choice`: `[[question.option]]`s, each with its `claim` (a test of the sim in answers.py, of
  the question's `given` values when it takes any), `correct = true` on the one right option, and
  its `feedback` (for a wrong option: why it is wrong). The sim must find the right option's
  claim true and every other one false.

Both languages ask the same questions (names, kinds, computations, given values, tolerances and
claims, in the same order): only the wording differs. Anything else stops the build at the
file and line of the question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from sim.bench.links import parse_link

from ..errors import BuildError
from ..frontmatter import load_toml
from . import answers

FILE = "questions.toml"
KINDS = ("numerical", "choice")
PLACEHOLDER = re.compile(r"\{(\w+)\}")
SAME_IN_EVERY_LANGUAGE = ("name", "chapter", "bench", "kind", "answer", "given", "decimals", "tolerance")


@dataclass
class Option:
    text: str
    feedback: str
    correct: bool
    claim: str


@dataclass
class Question:
    name: str
    chapter: str
    bench: str
    kind: str
    text: str
    feedback: str
    line: int
    answer: float | None = None
    decimals: int = 0
    tolerance: float = 0.0
    options: list[Option] = field(default_factory=list)
    shape: tuple = ()  # what must be the same in both languages


@dataclass
class Bank:
    lang: str
    path: Path
    questions: list[Question]

    def count(self, kind: str) -> int:
        return sum(q.kind == kind for q in self.questions)


def _header_lines(text: str, header: str) -> list[int]:
    return [n for n, line in enumerate(text.split("\n"), start=1) if line.strip() == header]


def _key_line(text: str, start: int, key: str) -> int:
    """The line of `key = …` in the table that begins at line `start` (or the header's line)."""
    lines = text.split("\n")
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
    for number in range(start + 1, len(lines) + 1):
        line = lines[number - 1].strip()
        if line.startswith("[["):
            break
        if pattern.match(line):
            return number
    return start


class _Reader:
    """Errors at the file and line of one question."""

    def __init__(self, path: Path, text: str, line: int):
        self.path, self.text, self.line = path, text, line

    def fail(self, what: str, fix: str, key: str | None = None, line: int | None = None):
        where = line or (_key_line(self.text, self.line, key) if key else self.line)
        raise BuildError(what, file=self.path, line=where, fix=fix)

    def need(self, table: dict, key: str, kind, fix: str, line: int | None = None):
        value = table.get(key)
        if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
            self.fail(f"the question needs {key}", fix, line=line)
        return value


def _shown(value, decimals: int | None = None) -> str:
    if isinstance(value, list):
        return ", ".join(_shown(v) for v in value)
    if decimals is not None:
        return f"{value:.{decimals}f}"
    return str(value)


def _fill(r: _Reader, key: str, template: str, values: dict, line: int | None = None) -> str:
    unknown = [name for name in PLACEHOLDER.findall(template) if name not in values]
    if unknown:
        known = ", ".join(f"{{{k}}}" for k in values) or "none"
        r.fail(f"{key} shows {{{unknown[0]}}}, which this question does not give",
               f"use one of its values ({known})", key=key, line=line)
    return PLACEHOLDER.sub(lambda m: _shown(values[m.group(1)]), template)


def _check_bench(r: _Reader, bench: str) -> None:
    pairs = [list(pair.partition("=")[::2]) for pair in bench.split("&") if pair]
    parsed = parse_link(pairs)
    problems = [m["param"] for m in parsed["messages"]] + parsed["ignored"]
    if problems:
        r.fail(f"bench state {bench!r}: the bench does not read {problems[0]!r} as given",
               "give the bench's own parameters and values (docs/bench-protocol.md), e.g. gamma=8&draft=unigram",
               key="bench")


def _numerical(r: _Reader, q: dict, bench: answers.BenchReadouts) -> dict:
    name = r.need(q, "answer", str, "answer = \"tokens_per_pass\": a computation of sitebuild/course/answers.py")
    if name not in answers.NUMBERS:
        from ..errors import nearest

        r.fail(f"no computation named {name!r}", f"use one of sitebuild/course/answers.py's "
               f"(nearest: {nearest(name, answers.NUMBERS) or ', '.join(sorted(answers.NUMBERS)[:4])})", key="answer")
    given = q.get("given", {})
    if not isinstance(given, dict):
        r.fail("given is not a table", "given = {alpha = 0.8, gamma = 4}", key="given")
    wanted = answers.inputs(name)
    if sorted(given) != sorted(wanted):
        r.fail(f"{name} takes {', '.join(wanted) or 'no values'}, the question gives {', '.join(sorted(given)) or 'none'}",
               f"given = {{{', '.join(f'{w} = …' for w in wanted)}}}", key="given")
    try:
        value = answers.compute(name, given, bench)
    except (ValueError, TypeError, ZeroDivisionError) as err:
        r.fail(f"the sim cannot compute {name} from {given}: {err}", "give values the computation accepts", key="given")
    decimals = r.need(q, "decimals", int, "decimals = 2: how many decimals the answer is shown with")
    tolerance = q.get("tolerance")
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not tolerance > 0:
        r.fail("the question needs a tolerance above 0", "tolerance = 0.01: the absolute error a course accepts", key="tolerance")
    # The course stores the answer as shown (rounded to `decimals`): a reply the student rounds
    # otherwise may be a unit of the last decimal away, unless the answer has no more decimals.
    finest = 0.5 * 10 ** -decimals if round(value, decimals) == value else 10 ** -decimals
    if tolerance < finest * (1 - 1e-9):
        r.fail(f"tolerance {tolerance} is finer than the answer {value:.{decimals + 3}f} shown with {decimals} decimals "
               f"allows", f"make it at least {finest:g}, or show more decimals", key="tolerance")
    return {"answer": value, "decimals": decimals, "tolerance": float(tolerance), "given": given, "computation": name}


def _options(r: _Reader, q: dict, bench: answers.BenchReadouts, start: int, given: dict) -> list[Option]:
    raw = q.get("option")
    end = min([n for n in _header_lines(r.text, "[[question]]") if n > start], default=r.text.count("\n") + 2)
    option_lines = [n for n in _header_lines(r.text, "[[question.option]]") if start < n < end]
    if not isinstance(raw, list) or len(raw) < 3:
        r.fail("a choice question needs three options or more", "add [[question.option]] tables under it")
    if len(option_lines) != len(raw):  # each error names its option's line
        r.fail("options written other than as [[question.option]] tables", "write each option as its own "
               "[[question.option]] table under the question", key="option")
    options = []
    for o, line in zip(raw, option_lines):
        claim = r.need(o, "claim", str, "claim = \"…\": a claim of sitebuild/course/answers.py", line=line)
        if claim not in answers.CLAIMS:
            from ..errors import nearest

            r.fail(f"no claim named {claim!r}", f"use one of sitebuild/course/answers.py's CLAIMS "
                   f"(nearest: {nearest(claim, answers.CLAIMS) or 'none'})", line=_key_line(r.text, line, "claim"))
        correct = o.get("correct", False) is True
        try:
            holds = answers.claim(claim, bench, given)
        except KeyError as err:
            r.fail(f"claim {claim!r} needs {err.args[0]!r}, which the question does not give",
                   f"given = {{{err.args[0]} = …}}", key="given")
        if holds != correct:
            r.fail(f"the sim finds claim {claim!r} {'true' if holds else 'false'}, but the option is marked "
                   f"{'right' if correct else 'wrong'}", "mark the option the sim finds true as correct = true, "
                   "and rewrite its feedback", line=_key_line(r.text, line, "claim"))
        text = _fill(r, "text", r.need(o, "text", str, "text = \"…\"", line=line), given, _key_line(r.text, line, "text"))
        feedback = _fill(r, "feedback", r.need(o, "feedback", str, "feedback = \"…\": why this option is right or wrong",
                                               line=line), given, _key_line(r.text, line, "feedback"))
        options.append(Option(text, feedback, correct, claim))
    if sum(o.correct for o in options) != 1:
        r.fail("a choice question has exactly one option with correct = true", "mark the one right option")
    return options


def read(path: Path, anchors: list[str], bench: answers.BenchReadouts, lang: str) -> Bank:
    """The language's bank, every answer computed and every claim checked."""
    data = load_toml(path)
    text = path.read_text(encoding="utf-8")
    raw = data.get("question")
    starts = _header_lines(text, "[[question]]")
    if not isinstance(raw, list) or not raw:
        raise BuildError("no questions", file=path, line=1, fix="add [[question]] tables (docs/courses.md)")
    questions, names = [], set()
    for q, start in zip(raw, starts):
        r = _Reader(path, text, start)
        name = r.need(q, "name", str, "name = \"…\": the same in every language")
        if name in names:
            r.fail(f"two questions are named {name!r}", "give each its own name", key="name")
        names.add(name)
        chapter = r.need(q, "chapter", str, "chapter = \"alpha\": the anchor of the chapter that teaches it")
        if chapter not in anchors:
            r.fail(f"no chapter {chapter!r}", f"use a chapter's anchor ({', '.join(anchors)})", key="chapter")
        state = q.get("bench", "")
        if not isinstance(state, str):
            r.fail("bench is not a link's query", "bench = \"gamma=8&draft=unigram\"", key="bench")
        _check_bench(r, state)
        kind = q.get("kind")
        if kind not in KINDS:
            r.fail(f"kind {kind!r} is not one of {', '.join(KINDS)}", "kind = \"numerical\" or \"choice\"", key="kind")
        wording = r.need(q, "text", str, "text = \"…\": the question")
        feedback = q.get("feedback", "")
        if kind == "numerical":
            got = _numerical(r, q, bench)
            values = {k: v for k, v in got["given"].items()}
            question = Question(name, chapter, state, kind, _fill(r, "text", wording, values),
                                _fill(r, "feedback", feedback, {**values, "answer": _shown(got["answer"], got["decimals"])}),
                                start, got["answer"], got["decimals"], got["tolerance"],
                                shape=(name, chapter, state, kind, got["computation"], sorted(got["given"].items()),
                                       got["decimals"], got["tolerance"]))
        else:
            given = q.get("given", {})
            if not isinstance(given, dict):
                r.fail("given is not a table", "given = {alpha = 0.8, c = 0.1}", key="given")
            options = _options(r, q, bench, start, given)
            question = Question(name, chapter, state, kind, _fill(r, "text", wording, given),
                                _fill(r, "feedback", feedback, given), start, options=options,
                                shape=(name, chapter, state, kind, sorted(given.items()),
                                       [(o.claim, o.correct) for o in options]))
        questions.append(question)
    return Bank(lang, path, questions)


def check_parity(banks: list[Bank]) -> None:
    """Every language asks the same questions; the first difference is named where it is."""
    first, *others = banks
    for bank in others:
        for a, b in zip(first.questions, bank.questions):
            if a.shape != b.shape:
                raise BuildError(f"question {b.name!r} differs from {first.lang}'s {a.name!r} "
                                 f"({first.path.parent.name}/{FILE}:{a.line})", file=bank.path, line=b.line,
                                 fix="both languages ask the same questions in the same order, with the same "
                                     + ", ".join(SAME_IN_EVERY_LANGUAGE) + " and claims: only the wording differs")
        if len(first.questions) != len(bank.questions):
            longer = max((first, bank), key=lambda x: len(x.questions))
            extra = longer.questions[min(len(first.questions), len(bank.questions))]
            raise BuildError(f"question {extra.name!r} is in one language only", file=longer.path, line=extra.line,
                             fix="both languages ask the same questions")

