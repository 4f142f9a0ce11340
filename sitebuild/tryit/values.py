"""What a Try-it answer may report: each value a path into the bench's view and a format.

An answer template (and a prediction's why, sitebuild/tryit/predict.py) writes {name} for a value
after the Try-it's actions, or {name@label} for its value at a snapshot the actions declare
({snapshot = "label"}; "start" is the state the Try-it loads first); placeholders() checks one.
The page (site/static/js/tryit.js) follows the path in the view the store holds
(`specdecBench.getState().view`, the sim's own answer) and formats the value in its language.
So every number an answer shows is one the sim computed for the readouts, never a typed one.

Path steps: a key; an index into a list; "*" (the rest of the path maps over every element of a list); or
{"find": {field: value}} (the first element of a list whose field has that value).
Formats: int (a whole number, grouped), num2 / num3 (fixed decimals), num (up to three
decimals), pct (a percentage, up to one decimal), quoted (a token's text in the language's
quotation marks; no text means "other"), list (quoted texts joined as the language lists things).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import nearest

FORMATS = ("int", "num", "num2", "num3", "pct", "quoted", "list")


@dataclass(frozen=True)
class Value:
    path: tuple
    format: str
    what: str  # for readers of this table and of docs/tryit.md


def _rejected(field: str) -> tuple:
    return ("pass", "guesses", {"find": {"verdict": "rejected"}}, field)


_ROOF = ("readouts", "roofline")
_PLAIN = _ROOF + ("plain", "weights_only")

VALUES = {
    # settings and how far the reader went
    "gamma": Value(("state", "settings", "gamma"), "int", "guesses per pass"),
    "batch": Value(("state", "settings", "batch"), "int", "sequences in the batch"),
    "candidates": Value(("state", "settings", "candidates"), "int", "candidates for the first guess (k)"),
    "temperature": Value(("state", "settings", "temperature"), "num", "the temperature of both models"),
    "passes": Value(("tape", "passes"), "int", "passes on the tape"),
    "written": Value(("tape", "written"), "int", "tokens written on the tape"),
    "draws": Value(("tubes", "draws"), "int", "draws in each tube"),
    # the last pass
    "guesses": Value(("pass", "guesses", "*", "text"), "list", "the last pass's guesses"),
    "pass_kept": Value(("pass", "n_kept"), "int", "guesses the last pass kept"),
    "pass_written": Value(("pass", "n_written"), "int", "tokens the last pass wrote"),
    "pass_text": Value(("pass", "written_display"), "quoted", "what the last pass wrote"),
    "pass_lanes": Value(("pass", "lanes_per_sequence"), "int", "lanes one sequence lights (1 + k gamma)"),
    "rejected_text": Value(_rejected("text"), "quoted", "the rejected guess"),
    "rejected_ratio": Value(_rejected("ratio"), "num3", "its p/q"),
    "rejected_r": Value(_rejected("r"), "num3", "its random number r"),
    "replacement": Value(("pass", "replacement", "text"), "quoted", "the token the target wrote in its place"),
    "bonus": Value(("pass", "bonus", "text"), "quoted", "the bonus token after all guesses were kept"),
    # the readouts
    "alpha": Value(("readouts", "alpha"), "num3", "acceptance rate"),
    "some_kept": Value(("readouts", "alpha_candidates"), "num3", "the chance some of the k candidates is kept"),
    "tpp": Value(("readouts", "tokens_per_pass_counted"), "num2", "tokens per pass, counted"),
    "tpp_formula": Value(("readouts", "tokens_per_pass_formula"), "num2", "tokens per pass, by the formula"),
    "speedup": Value(("readouts", "speedup"), "num2", "speed-up by the formula"),
    "best_gamma": Value(("readouts", "best_gamma"), "int", "the best gamma"),
    "best_speedup": Value(("readouts", "best_speedup"), "num2", "the speed-up at the best gamma"),
    "c": Value(("readouts", "c"), "num", "cost of a draft run (c)"),
    "coverage": Value(("readouts", "coverage"), "pct", "the share of passes that had a guess (a draft without a model)"),
    # Of the readouts' passes that had a guess, the share whose guess at position j was kept (vLLM's rate by position).
    **{f"at_position_{j}": Value(("readouts", "accepted_by_position", j - 1), "pct", f"the guess at position {j} kept")
       for j in (1, 2, 3)},
    # the roofline (Llama 3.1 8B on an H100, on paper)
    "lanes": Value(_ROOF + ("lanes",), "int", "lanes a pass lights: batch x (gamma + 1)"),
    "lanes_to_match": Value(_ROOF + ("lanes_to_match",), "int", "lanes whose arithmetic keeps pace with reading"),
    "busy": Value(_ROOF + ("arith_busy_fraction",), "pct", "arithmetic busy, speculating"),
    "plain_busy": Value(_PLAIN + ("arith_busy_fraction",), "pct", "arithmetic busy, plain decoding"),
    "spec_tps": Value(_ROOF + ("tokens_per_s_weights_only",), "int", "tokens/s speculating (weights only)"),
    "plain_tps": Value(_PLAIN + ("tokens_per_s",), "int", "tokens/s, plain decoding (weights only)"),
    "plain_tps_cache": Value(_ROOF + ("plain", "with_cache", "tokens_per_s"), "int",
                             "tokens/s, plain decoding, with each sequence's cache"),
    "spec_tps_cache": Value(_ROOF + ("tokens_per_s_with_cache",), "int",
                            "tokens/s speculating, with each sequence's cache"),
    "busy_cache": Value(_ROOF + ("arith_busy_fraction_with_cache",), "pct",
                        "arithmetic busy, speculating, with each sequence's cache"),
    "context": Value(_ROOF + ("context_tokens",), "int", "tokens of context per sequence"),
    "cache_gb": Value(_ROOF + ("cache_gb",), "num2", "GB of key/value cache"),
    "pass_ms": Value(_ROOF + ("speculative", "weights_only", "pass_ms"), "num2", "ms per pass, speculating"),
    "plain_pass_ms": Value(_PLAIN + ("pass_ms",), "num2", "ms per pass, plain decoding"),
    # the test tubes: where tube B parts furthest from the target's line
    "gap_text": Value(("tubes", "gap", "text"), "quoted", "the token"),
    "gap_p": Value(("tubes", "gap", "p"), "num3", "its probability under the target"),
    "gap_spec_p": Value(("tubes", "gap", "spec_p"), "num3", "its probability in tube B"),
    "gap_size": Value(("tubes", "gap", "size"), "num3", "the difference (0 under the exact rule)"),
    "gap_direct": Value(("tubes", "gap", "direct"), "int", "its draws in tube A"),
    "gap_spec": Value(("tubes", "gap", "speculative"), "int", "its draws in tube B"),
}
START = "start"  # the snapshot every Try-it has: the state it loaded
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?:@([A-Za-z0-9_]*))?\}")
JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.S)
DIGIT = re.compile(r"[0-9０-９]+")


class TemplateError(ValueError):
    """A template that fails the checks below: the message and what to write instead."""

    def __init__(self, message: str, fix: str):
        super().__init__(message)
        self.fix = fix


def placeholders(template: str, labels: set, what: str) -> list[str]:
    """The {name} and {name@label} placeholders of a template the page fills from the view (a
    Try-it's answer, a prediction's why), each checked: a known value, a declared snapshot, no
    stray brace, no typed number, and at least one. `what` names the template in the message."""
    plain = JINJA.sub(" ", template)
    used = []
    for match in PLACEHOLDER.finditer(plain):
        name, label = match.group(1), match.group(2)
        if name not in VALUES:
            close = nearest(name, VALUES)
            raise TemplateError(f"{what} uses {{{name}}}, which is not a value the page can report"
                                + (f" (nearest: {close})" if close else ""),
                                "use a value listed in sitebuild/tryit/values.py, or add it there")
        if label is not None and label != START and label not in labels:
            raise TemplateError(f"{what} uses {{{name}@{label}}}, but the actions declare no snapshot {label!r}",
                                f'add {{snapshot = "{label}"}} to the actions, or use @start (the loaded state)')
        used.append(match.group(0)[1:-1])
    rest = PLACEHOLDER.sub(" ", plain)
    if "{" in rest or "}" in rest:
        raise TemplateError(f"{what} has a brace that is not a placeholder",
                            "a placeholder is {name} or {name@label}, e.g. {alpha} or {alpha@start}")
    typed = DIGIT.search(rest)
    if typed:
        raise TemplateError(f"{what} types the number {typed.group()}",
                            "every number it gives comes from the bench: use a placeholder such as {gamma}")
    if not used:
        raise TemplateError(f"{what} reports nothing from the bench",
                            "it gives what the actions did, through placeholders such as {alpha}")
    return used


def resolve(view: dict, path: tuple):
    """The value at `path` in a view, or None where the path leads nowhere (the page's
    resolver in site/static/js/tryit.js does the same; tests check the table with this one)."""
    node = view
    for i, step in enumerate(path):
        if node is None:
            return None
        if step == "*":
            return [resolve(item, path[i + 1:]) for item in node]
        if isinstance(step, dict):
            (field, wanted), = step["find"].items()
            node = next((item for item in node if item.get(field) == wanted), None)
        elif isinstance(step, int):
            node = node[step] if isinstance(node, list) and step < len(node) else None
        else:
            node = node.get(step)
    return node


def page_form(value: Value) -> dict:
    """The value as the page reads it (JSON)."""
    return {"path": list(value.path), "format": value.format}
