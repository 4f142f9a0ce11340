"""Each chapter's "Try it": a [try] table in its front matter, checked and rendered.

    [try]
    button = "Step until a guess is rejected"      # the button's words
    question = "…"                                 # Markdown; {{ fig.* }} as in the prose
    answer = "Pass {passes}: …{alpha@start}…"      # shown after the actions, filled from the view
    start = {rounds = 0}                           # optional: the state to begin from (a link)
    actions = [{type = "step", until = "rejected"}]
    predict = {kind = "range", value = "alpha", question = "…", why = "…"}  # optional (predict.py)

The Try-it loads `start` (the bench's defaults for what it leaves out), runs the actions
through the store, brings the chapter's own part into view, and shows the answer. Both
languages declare the same start and actions and report the same values; the words are each
language's own. Every number an answer gives is a placeholder (sitebuild/tryit/values.py): the
build refuses a digit typed in an answer.
"""

from __future__ import annotations

from ..content import Section
from ..errors import BuildError, nearest
from .actions import ActionError, check_actions, start_query
from .predict import check_predict, check_predict_parity, predict_data
from .values import VALUES, TemplateError, page_form, placeholders

KEYS = ("button", "question", "answer", "start", "actions", "predict")
REQUIRED = ("button", "question", "answer", "actions")
TABLE_FIX = "each chapter's front matter ends with a [try] table: button, question, answer, actions (and start)"


def block_of(section: Section) -> dict:
    """The section's [try] table, its keys checked."""
    block = section.meta.get("try")
    if block is None:
        raise BuildError("the chapter has no [try] table", file=section.path, line=1, fix=TABLE_FIX)
    if not isinstance(block, dict):
        raise BuildError("try is not a table", file=section.path, line=section.key_line("try"), fix=TABLE_FIX)
    line = _table_line(section)
    for key in REQUIRED:
        if key not in block:
            raise BuildError(f"the [try] table lacks {key}", file=section.path, line=line, fix=TABLE_FIX)
    for key in block:
        if key not in KEYS:
            close = nearest(key, KEYS)
            raise BuildError(f"the [try] table has no key {key!r}" + (f" (nearest: {close})" if close else ""),
                             file=section.path, line=section.key_line(key) or line, fix=TABLE_FIX)
    for key in ("button", "question", "answer"):
        if not isinstance(block[key], str) or not block[key].strip():
            raise BuildError(f"{key} is empty or not text", file=section.path, line=section.key_line(key),
                             fix=TABLE_FIX)
    return block


def _table_line(section: Section) -> int:
    for number, line in enumerate(section.source.split("\n")[: section.body_line - 1], start=1):
        if line.strip() == "[try]":
            return number
    return 1


def _entry_lines(section: Section) -> list[int]:
    """The file line of each entry of the actions list (entries open with "{" at the list's top level)."""
    start = section.key_line("actions")
    if start is None:
        return []
    lines = section.source.split("\n")[start - 1: section.body_line - 1]
    found, brackets, braces, quoted = [], 0, 0, False
    for offset, line in enumerate(lines):
        after_key = line.split("=", 1)[1] if offset == 0 else line
        for ch in after_key:
            if ch == '"':
                quoted = not quoted
            elif quoted:
                continue
            elif ch == "[":
                brackets += 1
            elif ch == "]":
                brackets -= 1
                if brackets == 0:
                    return found
            elif ch == "{":
                if brackets == 1 and braces == 0:
                    found.append(start + offset)
                braces += 1
            elif ch == "}":
                braces -= 1
    return found


def checked(section: Section, spec: dict) -> dict:
    """The block with its start as link pairs, its actions checked, and the answer's placeholders."""
    block = block_of(section)
    try:
        query = start_query(block.get("start", {}), spec)
        labels = check_actions(block["actions"], spec)
    except ActionError as err:
        entries = _entry_lines(section)
        if err.index is not None and err.index < len(entries):
            line = entries[err.index]
        else:
            line = section.key_line(err.key)
        raise BuildError(str(err), file=section.path, line=line, fix=err.fix) from None
    used = answer_placeholders(section, block["answer"], labels)
    predict = check_predict(section, block, spec, labels)
    return {**block, "query": query, "labels": labels, "used": used, "predict": predict}


def answer_placeholders(section: Section, answer: str, labels: set) -> list[str]:
    """The answer's {name} and {name@label} placeholders, each checked (values.placeholders); and
    every snapshot the actions declare is one the answer reports at."""
    line = section.key_line("answer")
    try:
        used = placeholders(answer, labels, "the answer")
    except TemplateError as err:
        raise BuildError(str(err), file=section.path, line=line, fix=err.fix) from None
    unused = sorted(labels - {u.split("@")[1] for u in used if "@" in u})
    if unused:
        raise BuildError(f"the actions declare snapshot {unused[0]!r}, which the answer never uses",
                         file=section.path, line=section.key_line("actions"),
                         fix=f"report a value at it, {{alpha@{unused[0]}}}, or drop the snapshot")
    return used


def check_parity(a: Section, b: Section, block_a: dict, block_b: dict) -> None:
    """Both languages start alike, act alike and report the same values."""
    for key in ("start", "actions"):
        if block_a.get(key, {}) != block_b.get(key, {}):
            entries = _entry_lines(a)
            first = next((i for i, (x, y) in enumerate(zip(block_a[key], block_b[key])) if x != y), None) \
                if key == "actions" else None
            line = entries[first] if first is not None and first < len(entries) else a.key_line(key) or _table_line(a)
            raise BuildError(f"the Try-it's {key} differ from {b.path.parent.name}/{b.path.name}'s",
                             file=a.path, line=line,
                             fix="both languages declare the same start and actions; only the words differ")
    if sorted(set(block_a["used"])) != sorted(set(block_b["used"])):
        name = min(set(block_a["used"]) ^ set(block_b["used"]))
        has, lacks = (a, b) if name in block_a["used"] else (b, a)
        raise BuildError(f"the answer reports {{{name}}}, which {lacks.path.parent.name}/{lacks.path.name}'s does not",
                         file=has.path, line=has.key_line("answer"),
                         fix="both languages' answers report the same values")
    check_predict_parity(a, b, block_a["predict"], block_b["predict"])


def page_data(block: dict, answer: str, show: str, why: str | None = None) -> dict:
    """What the page's runner reads (site/static/js/tryit.js): the answer's words and a prediction's
    why (each as rendered), and every value either fills in."""
    values = {}
    for used in block["used"] + (block["predict"]["why_used"] if block["predict"] else []):
        name, _, label = used.partition("@")
        values[used] = {**page_form(VALUES[name]), "at": label or None}
    return {"start": block["query"], "actions": block["actions"], "show": show, "answer": answer, "values": values,
            "predict": predict_data(block["predict"], why)}
