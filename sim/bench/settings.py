"""The bench's parameters: every setting and counter a link can carry, with its limits, in one table.

A bench state is {"settings": {draft, prompt, gamma, candidates, temperature, top_p, batch, seed, rule, gpu,
model}, "steps": n, "rounds": m}:
the settings the sim's commands take, and how far the reader went (passes on the tape, rounds in
the tubes). PARAMETERS describes each of them once; the page's controls, its link, the build's
picture and the checks below all read this table (the page receives it in the bench's spec).
A new setting is one entry here (with the parts of the page its control is about), plus its
control in templates/_controls.html and its label strings.

Inside sim a state is a State and its settings a Settings: frozen, checked once where JSON comes
in, and passed as they are from there on. Two ways in:
- `check_settings` / `check_state`: JSON from the page or a command, types strict (gamma 4, not
  "4"); a bad value raises BenchError naming the parameter (sim.bench.protocol calls them).
- `sim.bench.links.parse_link`: a link's query, forgiving, with a message per bad value.

The embed's address carries three more options, which choose what the frame shows rather than
what the sim computes (VIEW_OPTIONS: chapter, part, theme, with the machine's PARTS and THEMES
here); the links read them too when the page passes the chapters it has.
"""

from __future__ import annotations

from dataclasses import dataclass, field, make_dataclass, replace

from .. import roofline as rl
from ..errors import BenchError
from ..free_drafts import PROMPT_SOURCES
from ..free_drafts import SOURCES as FREE_SOURCES
from ..models import DRAFT_NAMES as DRAFTS
from ..prompts import PROMPT_KINDS
from ..candidates import CANDIDATE_RULES as RULES
from ..candidates import EXACT_RULES as EXACT
from ..tempering import TEMPERATURES, TOP_PS
from ..tree import tree_size

# Which rules keep the target's distribution exactly (the others are there to show why it matters).
EXACT_RULES = frozenset(EXACT)


def _level(x: float):
    """A setting's number as the page and the link write it: 1, not 1.0 (JSON, the options' values)."""
    return int(x) if x == int(x) else x



SEED_MODULUS = 2**32  # "New sentence" moves the seed to (seed + 1) mod this
LINK_VALUE_SHOWN = 40  # characters of a bad link value quoted back to the reader


@dataclass(frozen=True)
class Parameter:
    """One thing a bench state holds.

    kind: "choice" (one of `values`, strings), "level" (one of `values`, numbers), "int" (low..high)
    or "bool".
    role: "setting" (passed to the sim's commands) or "progress" (a counter of the reader's own).
    control: how the page shows it ("select", "radios", "range", "checkbox", "seed": shown and
    moved by the New sentence button, "counter": moved by buttons, "row": a menu of data rows
    of sim.roofline, shown beside the race with each row's figures and sources).
    restarts: changing it starts the sentence again (a new text from one pass).
    over_cap: a link value past `high` is cut to `high` rather than replaced by the default.
    role: "view" for the embed's view options (not part of a bench state).
    parts: what on the page its control is about, by the names a chapter's `part` gives (the
    machine's PARTS, and the readouts' and the curve's panels): the chapter about one of them marks
    the control (templates/_controls.html writes them as its data-parts).
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
    parts: tuple = ()
    flags: dict = field(default_factory=dict)

    def describe(self) -> dict:
        """The parameter as the page's spec carries it."""
        out = {"name": self.name, "kind": self.kind, "default": self.default, "role": self.role,
               "control": self.control, "restarts": self.restarts}
        if self.kind in ("choice", "level"):
            out["values"] = list(self.values)
        if self.kind == "int":
            out["min"], out["max"] = self.low, self.high
        if self.kind == "bool":
            out["values"] = [False, True]
        if self.parts:
            out["parts"] = list(self.parts)
        return {**out, **self.flags}


# The draft: a second model (DRAFTS, sim.models) or a source of chosen guesses without one
# (FREE_SOURCES, sim.free_drafts: prompt lookup, suffix decoding, heads).
DRAFT_VALUES = DRAFTS + FREE_SOURCES

PARAMETERS = (
    Parameter("draft", "choice", "bigram", "select", values=DRAFT_VALUES, parts=("readouts",)),
    # What lookup and suffix search besides the text written (sim.prompts); the drafts it applies to
    # (flag "drafts"): the page shows its menu for those only (templates/_controls.html, controls.js).
    Parameter("prompt", "choice", "none", "select", values=PROMPT_KINDS, parts=("draft", "readouts"),
              flags={"drafts": list(PROMPT_SOURCES)}),
    Parameter("gamma", "int", 4, "range", low=1, high=8, parts=("draft", "curve", "readouts")),
    # k candidates for the first guess, each continued as a line (Settings.widths says why).
    Parameter("candidates", "int", 1, "range", low=1, high=4, parts=("readhead", "draft", "bridge")),
    # Both models' distributions reshaped before the rule (sim.tempering); temperature 0 is greedy.
    Parameter("temperature", "level", 1, "select", values=tuple(_level(t) for t in TEMPERATURES),
              parts=("tubes", "readouts"), flags={"greedy": 0}),
    Parameter("top_p", "level", 1, "select", values=tuple(_level(t) for t in TOP_PS), parts=("tubes", "readouts")),
    Parameter("batch", "int", 1, "range", low=1, high=256, restarts=False, parts=("cabinet", "mill", "readhead")),
    Parameter("seed", "int", 1, "seed", low=0, high=SEED_MODULUS - 1),
    Parameter("rule", "choice", "exact", "radios", values=RULES, parts=("tubes",),
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



# Links from before the temperature dial said greedy=1: it is temperature 0 (greedy=0, the default
# temperature). The one place that maps the old switch: links.parse_link and check_settings read it.
LEGACY = {"greedy": (Parameter("greedy", "bool", False, "none", role="legacy"), "temperature")}


def legacy_value(name: str, value: bool):
    """(the setting that replaced a legacy one, its value), given the old one's (checked) value."""
    if name == "greedy":
        return "temperature", (0 if value else BY_NAME["temperature"].default)
    raise KeyError(name)


MAX_GAMMA = BY_NAME["gamma"].high
MAX_CANDIDATES = BY_NAME["candidates"].high
MAX_BATCH = BY_NAME["batch"].high
MAX_SEED = BY_NAME["seed"].high
MAX_STEPS = BY_NAME["steps"].high
MAX_ROUNDS = BY_NAME["rounds"].high


def default_state() -> dict:
    return {"settings": dict(DEFAULTS), **{name: BY_NAME[name].default for name in PROGRESS}}


# --- the checked forms ---------------------------------------------------------------------------

class _Checked:
    """What Settings and State share: read-only, and turned back into JSON in the table's order."""

    __slots__ = ()

    def __getitem__(self, name: str):  # read-only keyed access, for the drawing code (settings["gamma"])
        return getattr(self, name)

    def but(self, **changes):
        """A copy with some fields changed (the caller has checked the new values)."""
        return replace(self, **changes)


class _SettingsBase(_Checked):
    __slots__ = ()

    def as_json(self) -> dict:
        return {name: getattr(self, name) for name in SETTINGS}

    def restart_key(self) -> tuple:
        """The settings a run depends on (those that restart the sentence), as a cache key."""
        return tuple(getattr(self, name) for name in SETTINGS if BY_NAME[name].restarts)

    @property
    def free(self) -> bool:
        """The draft is a source of chosen guesses (FREE_SOURCES), not a second model."""
        return self.draft in FREE_SOURCES

    @property
    def greedy(self) -> bool:
        """Temperature 0: both models take their likeliest token (the old greedy switch)."""
        return self.temperature == 0

    @property
    def widths(self) -> tuple[int, ...]:
        """The tree a pass checks (sim.tree): k candidates for the first guess, each continued by a
        line of gamma - 1 guesses, widths (k, 1, ..., 1). Chosen over k wide at every level, whose
        k^gamma leaves (65,536 at k = 4, gamma = 8) no read head can draw nor a step afford, and
        over a fixed shape such as 3-2-1, which would tie the tree to one gamma: here the lanes grow
        as k gamma + 1 (33 at most), a reader can count them, one step stays far below its time
        budget, and k = 1 is a plain line of gamma guesses."""
        return (self.candidates,) + (1,) * (self.gamma - 1)

    @property
    def lanes_per_sequence(self) -> int:
        """Positions the target scores per sequence in one pass: every node of the tree, plus the
        context's last position (gamma + 1 for a line)."""
        return tree_size(self.widths) + 1


class _StateBase(_Checked):
    __slots__ = ()

    def as_json(self) -> dict:
        return {"settings": self.settings.as_json(), **{name: getattr(self, name) for name in PROGRESS}}


# Made from the table, so a new parameter needs no edit here: Settings(draft=..., gamma=..., ...),
# State(settings=Settings, steps=..., rounds=...).
Settings = make_dataclass("Settings", [(name, object) for name in SETTINGS], bases=(_SettingsBase,),
                          frozen=True, slots=True)
Settings.__doc__ = "A bench's settings, checked (check_settings): one attribute per setting of PARAMETERS."
State = make_dataclass("State", [("settings", Settings)] + [(name, int) for name in PROGRESS],
                       bases=(_StateBase,), frozen=True, slots=True)
State.__doc__ = "A bench state, checked (check_state): its Settings and how far the reader went."
Settings.__module__ = State.__module__ = __name__  # (make_dataclass's own `module=` is Python 3.12+)


# --- strict JSON -------------------------------------------------------------------------------

def _range_text(p: Parameter) -> str:
    return f"a whole number from {p.low} to {p.high}"


def check_value(p: Parameter, value):
    """value if it is a valid JSON value of parameter p, else BenchError."""
    if p.kind == "level":
        if type(value) in (int, float) and value in p.values:
            return p.values[p.values.index(value)]  # the table's own spelling (1, not 1.0)
        raise BenchError(p.name, f"{p.name} must be one of {', '.join(map(str, p.values))}; got {value!r}")
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


def check_settings(args) -> Settings:
    """The settings in a command's JSON arguments, defaults filled in; BenchError if one is bad."""
    if not isinstance(args, dict):
        raise BenchError("args", f"arguments must be a JSON object; got {type(args).__name__}")
    for old, (p, new) in LEGACY.items():  # {"greedy": true} from a caller of before the temperature dial
        if old in args and new not in args:
            args = {**args, new: legacy_value(old, check_value(p, args[old]))[1]}
    return Settings(**{name: check_value(BY_NAME[name], args.get(name, DEFAULTS[name])) for name in SETTINGS})


def check_state(state) -> State:
    """A bench state from the page, checked; missing parts take their defaults."""
    if not isinstance(state, dict):
        raise BenchError("state", f"state must be a JSON object; got {type(state).__name__}")
    settings = check_settings(state.get("settings", {}))
    counters = {}
    for name in PROGRESS:
        p = BY_NAME[name]
        counters[name] = check_value(p, state.get(name, p.default))
    return State(settings=settings, **counters)

