"""The bench's parameters: every setting and counter a link can carry, with its limits, in one table.

A bench state is {"settings": {draft, gamma, greedy, batch, seed, rule, gpu, model}, "steps": n,
"rounds": m}:
the settings the sim's commands take, and how far the reader went (passes on the tape, rounds in
the tubes). PARAMETERS describes each of them once; the page's controls, its link, the build's
picture and the checks below all read this table (the page receives it in the bench's spec).
A new setting is one entry here, plus its control in templates/_bench.html and its label strings.

Two ways in:
- `check_settings` / `check_state`: JSON from the page or a command, types strict (gamma 4, not
  "4"); a bad value raises BenchError naming the parameter.
- `parse_link`: the URL's query as the ordered list of [name, value] strings. A bad value falls
  back to the default (a counter past its cap is cut to the cap) and is reported as a message:
  a code, the parameter, the value as typed (cut to LINK_VALUE_SHOWN characters) and the code's
  arguments, which the page turns into words in its own language.

The embed's address carries three more options, which choose what the frame shows rather than
what the sim computes (VIEW_OPTIONS: chapter, part, theme). They are read by the same code, with
the same messages, when the page passes the chapters it has (the build knows them; the sim does
not): `parse_link(query, chapters=[...])`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .. import roofline as rl
from ..errors import BenchError
from ..models import DRAFT_NAMES as DRAFTS
from ..speculative import RULES

# Which rules keep the target's distribution exactly (the others are there to show why it matters).
EXACT_RULES = frozenset({"exact"})

SEED_MODULUS = 2**32  # "New sentence" moves the seed to (seed + 1) mod this
LINK_VALUE_SHOWN = 40  # characters of a bad link value quoted back to the reader


@dataclass(frozen=True)
class Parameter:
    """One thing a bench state holds.

    kind: "choice" (one of `values`), "int" (low..high) or "bool".
    role: "setting" (passed to the sim's commands) or "progress" (a counter of the reader's own).
    control: how the page shows it ("select", "radios", "range", "checkbox", "seed": shown and
    moved by the New sentence button, "counter": moved by buttons, "row": a menu of data rows
    of sim.roofline, shown beside the race with each row's figures and sources).
    restarts: changing it starts the sentence again (a new text from one pass).
    over_cap: a link value past `high` is cut to `high` rather than replaced by the default.
    role: "view" for the embed's view options (not part of a bench state).
    """

    name: str
    kind: str
    default: object
    control: str
    values: tuple = ()
    low: int = 0
    high: int = 0
    role: str = "setting"
    restarts: bool = True
    over_cap: bool = False
    flags: dict = field(default_factory=dict)

    def describe(self) -> dict:
        """The parameter as the page's spec carries it."""
        out = {"name": self.name, "kind": self.kind, "default": self.default, "role": self.role,
               "control": self.control, "restarts": self.restarts}
        if self.kind == "choice":
            out["values"] = list(self.values)
        if self.kind == "int":
            out["min"], out["max"] = self.low, self.high
        if self.kind == "bool":
            out["values"] = [False, True]
        return {**out, **self.flags}


PARAMETERS = (
    Parameter("draft", "choice", "bigram", "select", values=DRAFTS),
    Parameter("gamma", "int", 4, "range", low=1, high=8),
    Parameter("greedy", "bool", False, "checkbox"),
    Parameter("batch", "int", 1, "range", low=1, high=256, restarts=False),
    Parameter("seed", "int", 1, "seed", low=0, high=SEED_MODULUS - 1),
    Parameter("rule", "choice", "exact", "radios", values=RULES,
              flags={"exact": {rule: rule in EXACT_RULES for rule in RULES}}),
    # The roofline's hardware and model: rows of data in sim.roofline (a new GPU is one row there).
    Parameter("gpu", "choice", rl.DEFAULT_GPU, "row", values=tuple(rl.GPUS), restarts=False),
    Parameter("model", "choice", rl.DEFAULT_MODEL, "row", values=tuple(rl.MODELS), restarts=False),
    # A link replays its passes and rounds: the caps keep any accepted link quick to replay.
    Parameter("steps", "int", 1, "counter", low=0, high=200, role="progress", over_cap=True),
    Parameter("rounds", "int", 1, "counter", low=0, high=100, role="progress", over_cap=True),
)
BY_NAME = {p.name: p for p in PARAMETERS}
SETTINGS = tuple(p.name for p in PARAMETERS if p.role == "setting")
PROGRESS = tuple(p.name for p in PARAMETERS if p.role == "progress")

DEFAULTS = {name: BY_NAME[name].default for name in SETTINGS}

# The embed's view options. Their default, None, means "not asked for": the bench alone, no part
# lifted out, the reader's own light or dark setting. The chapters' anchors come from the caller.
# The machine's parts a reader (or a link's `part`) can lift out, in reading order (chapter 12 names
# them); sim.bench.layout gives each its box.
PARTS = ("drum", "readhead", "mill", "cabinet", "draft", "tubes", "bridge", "tape")
THEMES = ("light", "dark")
VIEW_OPTIONS = ("chapter", "part", "theme")


def view_parameters(chapters) -> dict:
    """The view options as parameters, given the site's chapter anchors (BenchError if malformed)."""
    if not isinstance(chapters, list) or not all(isinstance(c, str) and c for c in chapters):
        raise BenchError("chapters", "chapters must be a list of the site's chapter anchors")
    return {p.name: p for p in (
        Parameter("chapter", "choice", None, "none", values=tuple(chapters), role="view"),
        Parameter("part", "choice", None, "none", values=PARTS, role="view"),
        Parameter("theme", "choice", None, "none", values=THEMES, role="view"),
    )}
MAX_GAMMA = BY_NAME["gamma"].high
MAX_BATCH = BY_NAME["batch"].high
MAX_SEED = BY_NAME["seed"].high
MAX_STEPS = BY_NAME["steps"].high
MAX_ROUNDS = BY_NAME["rounds"].high


def default_state() -> dict:
    return {"settings": dict(DEFAULTS), **{name: BY_NAME[name].default for name in PROGRESS}}


# --- strict JSON -------------------------------------------------------------------------------

def _range_text(p: Parameter) -> str:
    return f"a whole number from {p.low} to {p.high}"


def check_value(p: Parameter, value):
    """value if it is a valid JSON value of parameter p, else BenchError."""
    if p.kind == "choice":
        if isinstance(value, str) and value in p.values:
            return value
        raise BenchError(p.name, f"{p.name} must be one of {', '.join(p.values)}; got {value!r}")
    if p.kind == "bool":
        if isinstance(value, bool):
            return value
        raise BenchError(p.name, f"{p.name} must be true or false; got {value!r}")
    if type(value) is int and p.low <= value <= p.high:
        return value
    raise BenchError(p.name, f"{p.name} must be {_range_text(p)}; got {value!r}")


def check_settings(args) -> dict:
    """The settings in a command's JSON arguments, defaults filled in; BenchError if one is bad."""
    if not isinstance(args, dict):
        raise BenchError("args", f"arguments must be a JSON object; got {type(args).__name__}")
    return {name: check_value(BY_NAME[name], args.get(name, DEFAULTS[name])) for name in SETTINGS}


def check_state(state) -> dict:
    """A bench state from the page, checked; missing parts take their defaults."""
    if not isinstance(state, dict):
        raise BenchError("state", f"state must be a JSON object; got {type(state).__name__}")
    out = {"settings": check_settings(state.get("settings", {}))}
    for name in PROGRESS:
        p = BY_NAME[name]
        out[name] = check_value(p, state.get(name, p.default))
    return out


def int_arg(args: dict, name: str, low: int, high: int, default: int) -> int:
    """A whole-number argument of a command (not a bench parameter), checked."""
    value = args.get(name, default)
    if type(value) is not int or not low <= value <= high:
        raise BenchError(name, f"{name} must be a whole number from {low} to {high}; got {value!r}")
    return value


# --- links ---------------------------------------------------------------------------------------

_DIGITS = re.compile(r"[0-9]+")
_TRUE = ("", "1", "true", "yes", "on")  # "" is a bare ?greedy
_FALSE = ("0", "false", "no", "off")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def shown(raw: str) -> str:
    """A link value as typed, for a message: control characters made visible, cut to length."""
    cut = raw[:LINK_VALUE_SHOWN]
    visible = _CONTROL.sub(lambda m: "\u2421" if m.group() == "\x7f" else chr(0x2400 + ord(m.group())), cut)
    return visible + ("…" if len(raw) > LINK_VALUE_SHOWN else "")


def _read(p: Parameter, raw: str):
    """(value, message) for one link value: the message is None when the value is accepted."""
    text = raw.strip()
    if p.kind == "choice":
        if text.lower() in p.values:
            return text.lower(), None
        return p.default, ("not_one_of", {"values": list(p.values)})
    if p.kind == "bool":
        if text.lower() in _TRUE:
            return True, None
        if text.lower() in _FALSE:
            return False, None
        return p.default, ("not_yes_no", {})
    if not _DIGITS.fullmatch(text):
        return p.default, ("not_whole_number", {"min": p.low, "max": p.high})
    value = int(text) if len(text) <= 12 else p.high + 1  # past any limit (and never a huge int())
    if p.low <= value <= p.high:
        return value, None
    if p.over_cap and value > p.high:
        return p.high, ("over_cap", {"max": p.high})
    return p.default, ("out_of_range", {"min": p.low, "max": p.high})


def parse_link(query, chapters=None) -> dict:
    """A link's query (ordered [name, value] pairs) to a bench state, with messages.

    Accepted spellings: whole numbers as decimal digits; greedy as 1/0, true/false, yes/no,
    on/off (any case) or a bare "?greedy"; draft, rule and the view options by name (any case).
    A parameter given twice is read from its first occurrence, and the message says so. Names
    the bench does not use are listed under "ignored" (the page may carry other options).

    With `chapters` (the embed's chapter anchors), the view options are read too and returned
    under "options" ({"chapter", "part", "theme"}, None when not given or not understood: a bad
    view option is left out, so its message's "used" is None).
    """
    if not isinstance(query, list) or not all(
            isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) for x in pair)
            for pair in query):
        raise BenchError("query", "query must be a list of [name, value] string pairs")
    view = {} if chapters is None else view_parameters(chapters)
    state = default_state()
    options = {name: None for name in view}
    messages, ignored, seen = [], [], {}
    for name, raw in query:
        p = BY_NAME.get(name) or view.get(name)
        if p is None:
            if name not in ignored:
                ignored.append(name)
            continue
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            continue
        value, problem = _read(p, raw)
        if p.role == "setting":
            state["settings"][name] = value
        elif p.role == "view":
            options[name] = value
        else:
            state[name] = value
        if problem:
            code, args = problem
            messages.append({"code": code, "param": name, "value": shown(raw), "used": value, "args": args})
    for name, count in seen.items():
        if count > 1:
            used = options[name] if name in options else _value_of(state, name)
            messages.append({"code": "given_twice", "param": name, "value": None, "used": used,
                             "args": {"count": count}})
    out = {"state": state, "messages": messages, "ignored": ignored}
    return {**out, "options": options} if view else out


def _value_of(state: dict, name: str):
    return state["settings"][name] if name in state["settings"] else state[name]


def link_query(state: dict) -> str:
    """The canonical query string of a bench state ("?draft=bigram&gamma=4&..."): parse_link reads it back."""
    parts = []
    for p in PARAMETERS:
        value = _value_of(state, p.name)
        parts.append(f"{p.name}={(1 if value else 0) if p.kind == 'bool' else value}")
    return "?" + "&".join(parts)
