"""A Try-it's prediction: what the reader may commit to before the actions run.

    [try]
    ...
    predict = {kind = "direction", value = "alpha", question = "What will α do?", why = "…{alpha}…"}

kind "direction": the reader picks one of three options, the value after the actions higher
than, about the same as, or lower than at the Try-it's start; the page reads both from the sim's
view and says which it was. kind "range": the reader sets a slider, whose bounds and step are
this module's rule for the value (from the bench's spec where a setting bounds it, from the
roofline's ceiling for a rate in tokens a second, from the Try-it's own passes for the tokens on
the tape; so no one types them), and the page says how far the sim's answer fell from it ("close"
only on the notch nearest it: a count one off, the bonus token forgotten, is not close).

`why`, if given, follows that comparison in the same line: the chapter's reason for the sim's
answer, a template like the answer's (its {name} and {name@label} filled from the view, no typed
number; values.placeholders), so that the reader learns where the gap came from, not only its size.

Either way the options and the answer come from the view (sitebuild/tryit/values.py), never
from typed numbers; the words of the options and of the comparison are each language's strings
(predict_* in site/<lang>/strings.toml), the question the chapter's own. The comparison is not
a grade: a prediction is counted in the progress (site/static/js/progress.js), right or wrong.
"""

from __future__ import annotations

import math

from sim import roofline

from ..errors import BuildError, nearest
from .values import VALUES, TemplateError, page_form, placeholders

KINDS = ("direction", "range")
KEYS = ("kind", "value", "question", "why")
REQUIRED = ("kind", "value", "question")
NUMERIC = ("int", "num", "num2", "num3", "pct")
# Direction: a change smaller than this share of the larger value is "about the same".
SAME_WITHIN = 0.01
# The three options of a direction, in the order shown (their words are predict_<option>).
DIRECTIONS = ("up", "same", "down")
# A slider a thumb can set from the keyboard: at most this many notches.
NOTCHES = 40
# The rates in tokens a second a range prediction may ask about (their slider: _rate_range).
RATES = ("plain_tps", "plain_tps_cache", "spec_tps", "spec_tps_cache")
FIX = ('predict = {kind = "direction" or "range", value = "<a value of sitebuild/tryit/values.py>", '
       'question = "…", why = "… {gamma} …" (optional)}')


def _gamma_max(spec: dict) -> int:
    return next(p["max"] for p in spec["parameters"] if p["name"] == "gamma")


def ranges(spec: dict) -> dict:
    """The slider of each value a range prediction may ask about: (low, high, step).
    A share runs from none to all; what a pass writes from one token to γ + 1 at the largest γ."""
    most = _gamma_max(spec) + 1
    share = (0, 1, 0.05)
    return {
        "alpha": share, "busy": share, "plain_busy": share, "busy_cache": share,
        "tpp": (1, most, 0.25), "tpp_formula": (1, most, 0.25), "speedup": (0, most, 0.25),
        "pass_kept": (0, most - 1, 1), "pass_written": (1, most, 1), "pass_lanes": (1, most, 1),
        # a rejected guess's p/q is below one: a guess at or above it is always kept
        "rejected_ratio": share,
    }


def _nice_step(top: float) -> float:
    """The smallest 1, 2 or 5 times a power of ten that cuts 0 to `top` into at most NOTCHES."""
    power = 10 ** math.floor(math.log10(top / NOTCHES))
    return next(k * power for k in (1, 2, 5, 10) if top / (k * power) <= NOTCHES)


def _rate_range(spec: dict) -> tuple:
    """A rate's slider: none to the arithmetic's ceiling on the fastest GPU and model the bench
    offers. Every token written costs at least one lane's arithmetic, so no way of decoding, plain
    or speculative, batched or not, writes faster (roofline.arithmetic_seconds of one token)."""
    hardware = spec["hardware"]
    ceiling = max(1 / roofline.arithmetic_seconds(roofline.gpu(g["key"]), roofline.model(m["key"]))
                  for g in hardware["gpus"] for m in hardware["models"])
    step = _nice_step(ceiling)
    return (0, math.ceil(ceiling / step) * step, step)


def _written_range(block: dict, spec: dict) -> tuple | None:
    """The tape's tokens after a Try-it that starts from an empty tape and only makes a number of
    passes: each pass writes at least one token and at most γ + 1 (γ the start's, or the bench's
    default). None for any other Try-it, whose tape the build cannot bound."""
    start = block.get("start", {})
    steps = [a for a in block["actions"] if a.get("type") == "step" and "until" not in a]
    if start.get("steps") != 0 or len(steps) != len(block["actions"]):
        return None
    gamma = start.get("gamma", spec["default_state"]["settings"]["gamma"])
    passes = sum(a.get("count", 1) for a in steps)
    return (passes, passes * (gamma + 1), 1)


def check_predict(section, block: dict, spec: dict, labels: set = frozenset()) -> dict | None:
    """The block's prediction, checked (None if it has none): its kind, value, slider and why
    (with the placeholders it uses; `labels`: the snapshots the Try-it's actions declare)."""
    entry = block.get("predict")
    if entry is None:
        return None
    line = section.key_line("predict")

    def fail(message: str, fix: str = FIX):
        raise BuildError(message, file=section.path, line=line, fix=fix)

    if not isinstance(entry, dict):
        fail("predict is not a table")
    for key in entry:
        if key not in KEYS:
            close = nearest(key, KEYS)
            fail(f"predict has no key {key!r}" + (f" (nearest: {close})" if close else ""))
    for key in REQUIRED:
        if key not in entry:
            fail(f"predict lacks {key}")
    if not isinstance(entry["question"], str) or not entry["question"].strip():
        fail("predict's question is empty or not text")
    kind, name = entry["kind"], entry["value"]
    if kind not in KINDS:
        close = nearest(str(kind), KINDS)
        fail(f"predict's kind {kind!r} is not one of {', '.join(KINDS)}" + (f" (nearest: {close})" if close else ""))
    if name not in VALUES:
        close = nearest(str(name), VALUES)
        fail(f"predict's value {name!r} is not a value the page can report" + (f" (nearest: {close})" if close else ""),
             "use a value listed in sitebuild/tryit/values.py")
    if VALUES[name].format not in NUMERIC:
        fail(f"predict's value {name!r} is {VALUES[name].format} text, not a number to predict",
             "predict a number: " + ", ".join(n for n, v in VALUES.items() if v.format in NUMERIC)[:120] + ", …")
    checked = {"kind": kind, "value": name, "question": entry["question"], "why": entry.get("why"),
               "why_used": _why_used(entry, labels, fail)}
    if kind == "range":
        slider = {**ranges(spec), **dict.fromkeys(RATES, _rate_range(spec))}
        if name == "written":
            slider["written"] = _written_range(block, spec)
            if slider["written"] is None:
                fail("a range prediction of 'written' needs a Try-it that starts from an empty tape and only steps",
                     "start = {steps = 0} and actions of {type = \"step\"} (a count, no until); or predict pass_written")
        if name not in slider:
            close = nearest(name, slider)
            fail(f"a range prediction of {name!r} has no slider" + (f" (nearest: {close})" if close else ""),
                 "use a value with a slider in sitebuild/tryit/predict.py (ranges), add one there, or kind = \"direction\"")
        checked["range"] = slider[name]
    return checked


def _why_used(entry: dict, labels: set, fail) -> list[str]:
    """The placeholders of the prediction's why (none if it gives none), checked as an answer's."""
    if "why" not in entry:
        return []
    if not isinstance(entry["why"], str) or not entry["why"].strip():
        fail("predict's why is empty or not text")
    try:
        return placeholders(entry["why"], labels, "predict's why")
    except TemplateError as err:
        fail(str(err), err.fix)


def check_predict_parity(a, b, predict_a: dict | None, predict_b: dict | None) -> None:
    """Both languages ask for the same kind of prediction about the same value (or neither asks),
    and explain it, or not, from the same values."""
    same = lambda p: None if p is None else (p["kind"], p["value"], p["why"] is None, sorted(set(p["why_used"])))  # noqa: E731
    if same(predict_a) != same(predict_b):
        has, lacks = (a, b) if predict_a is not None else (b, a)
        raise BuildError(f"the Try-it's prediction differs from {lacks.path.parent.name}/{lacks.path.name}'s",
                         file=has.path, line=has.key_line("predict") or 1,
                         fix="both languages predict the same kind and value, and give a why from the same "
                             "values (or none); only the words differ")


def predict_data(predict: dict | None, why: str | None = None) -> dict | None:
    """What the page's runner reads: the value's path and format, the options or the slider, and
    the why's words (`why`: as rendered, its {{ fig.* }} filled; the declared one otherwise), whose
    placeholders the page fills as the answer's (blocks.page_data lists their values)."""
    if predict is None:
        return None
    data = {"kind": predict["kind"], "value": page_form(VALUES[predict["value"]]),
            "why": why if why is not None else predict["why"]}
    if predict["kind"] == "direction":
        data.update(options=list(DIRECTIONS), same_within=SAME_WITHIN)
    else:
        low, high, step = predict["range"]
        data.update(min=low, max=high, step=step)
    return data


def outcome(predict: dict, before: float, after: float, guess) -> str:
    """Which comparison line the page shows (the same rule as tryit.js's compare(); tests use this):
    direction: "right" or "wrong"; range: "close" (no notch of the slider is nearer the answer:
    within half a step, so a count's slider is close only when the count is right), "high" or "low"."""
    if predict["kind"] == "direction":
        return "right" if guess == direction(before, after) else "wrong"
    step = predict["range"][2]
    if abs(guess - after) <= step / 2 * (1 + 1e-9):
        return "close"
    return "high" if guess > after else "low"


def direction(before: float, after: float) -> str:
    if abs(after - before) <= SAME_WITHIN * max(abs(before), abs(after)):
        return "same"
    return "up" if after > before else "down"
