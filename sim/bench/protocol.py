"""The worker's protocol, declared once: every command, every action and their arguments, and
the only code in sim that reads or writes the JSON the page's worker speaks (docs/bench-protocol.md).

A request comes in as a command's name and its arguments as JSON text (`handle`). Here they are
checked, once, into the sim's own objects (Settings, State, Action, token ids, whole numbers),
which the bench's modules take from then on; the answer goes back as JSON text. The same tables
describe the protocol to the page (`describe`, in the bench's spec as "protocol"): the store sends
to the worker what they say an action carries, the build checks the chapters' Try-its against
them, and a test checks docs/bench-protocol.md's tables against them.

An argument's kind: int (low..high), bool, number, choice (values), text, ids (token ids),
pairs (a link's [[name, value], ...]), names (a list of strings), state (a bench state), settings
(the bench's settings, each at the top level of the arguments), action (an action object, one of
ACTIONS that runs in the sim), value (a value of the setting an action names), function (the
page's own callback; never sent).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable

from ..errors import BenchError
from ..owntext import OwnTextError
from . import commands, tubes
from .commands import MAX_INDEX, MAX_TOP, default_context
from .links import parse_link
from ..free_drafts import SkipGramHeads
from .replay import UNTIL, Action, NeedsHeads
from .settings import (BY_NAME, DEFAULTS, DRAFTS, LEGACY, MAX_ROUNDS, MAX_STEPS, PARTS, SETTINGS, check_settings,
                       check_state, check_value, legacy_value)

UNTIL_MOST = 50  # passes a "step until" takes at most, unless it says


@dataclass(frozen=True)
class Arg:
    """One argument of a command or an action (kinds: the module docstring)."""

    name: str
    kind: str
    doc: str
    low: int | None = None
    high: int | None = None
    values: tuple = ()
    default: object = None

    def describe(self, docs: bool = False) -> dict:
        out = {"name": self.name, "kind": self.kind}
        if self.low is not None:
            out["min"], out["max"] = self.low, self.high
        if self.values:
            out["values"] = list(self.values)
        if self.default is not None:
            out["default"] = self.default
        return {**out, "doc": self.doc} if docs else out

    def read(self, args: dict):
        """This argument's value in a JSON object, checked (its default when absent)."""
        value = args.get(self.name, self.default)
        if self.kind == "int":
            if type(value) is not int or not self.low <= value <= self.high:
                raise BenchError(self.name, f"{self.name} must be a whole number from {self.low} to {self.high}; "
                                            f"got {value!r}")
        elif self.kind == "choice" and value not in self.values:
            raise BenchError(self.name, f"{self.name} must be one of {', '.join(self.values)}; got {value!r}")
        return value


@dataclass(frozen=True)
class ActionKind:
    """An action the page's store applies. runs: "sim" (sent to the worker as `act`), "models"
    (the session's models change through the command of the same name, then the state is redrawn)
    or "page" (the page's own state; never sent to the worker)."""

    type: str
    runs: str
    doc: str
    args: tuple = ()

    def describe(self, docs: bool = False) -> dict:
        out = {"runs": self.runs, "args": [a.describe(docs) for a in self.args]}
        return {**out, "doc": self.doc} if docs else out


# --- the actions ---------------------------------------------------------------------------------------

STEP_COUNT = Arg("count", "int", "passes", low=1, high=MAX_STEPS, default=1)
STEP_UNTIL = Arg("until", "choice", "step one pass at a time until the last pass had a rejected guess, or had "
                 "none (instead of count)", values=tuple(UNTIL))
STEP_MOST = Arg("max", "int", "passes a step until takes at most", low=1, high=MAX_STEPS, default=UNTIL_MOST)
ROUND_COUNT = Arg("count", "int", "rounds", low=1, high=MAX_ROUNDS, default=1)

ACTIONS = {a.type: a for a in (
    ActionKind("set", "sim", "a setting; draft, prompt, gamma, candidates, temperature, top_p, rule and seed start the "
               "sentence again from one pass, batch, gpu and model do not (the old name greedy sets temperature 0 "
               "or 1)", (
                   Arg("name", "choice", "the setting", values=SETTINGS),
                   Arg("value", "value", "its new value (the parameter's kind and limits)"))),
    ActionKind("step", "sim", "passes, or until a condition; past the cap the tape stays at the cap (capped)",
               (STEP_COUNT, STEP_UNTIL, STEP_MOST)),
    ActionKind("new_sentence", "sim", "the next seed ((seed + 1) mod 2^32), one pass"),
    ActionKind("round", "sim", "rounds of the test tubes; past the cap they stay at the cap (capped)",
               (ROUND_COUNT,)),
    ActionKind("clear_tubes", "sim", "the tubes emptied (no rounds)"),
    ActionKind("load", "sim", "a link: its state (and, with the embed's chapters, its view options)", (
        Arg("query", "pairs", "the link's [[name, value], ...] in order"),
        Arg("chapters", "names", "the embed's chapter anchors: read its view options too"))),
    ActionKind("view", "sim", "no change: the state drawn again"),
    ActionKind("use_text", "models", "count the reader's text into the models the bench runs on", (
        Arg("text", "text", "the reader's text (kept nowhere else)"),
        Arg("onProgress", "function", "hears each stage of the counting"))),
    ActionKind("use_book", "models", "back to the book's models"),
    ActionKind("play", "page", "one pass after another, as One step, until paused or capped"),
    ActionKind("pause", "page", "stops playing"),
    ActionKind("speed", "page", "the animations' speed", (Arg("value", "number", "a factor (1 = normal)"),)),
    ActionKind("isolate", "page", "a part lifted out; the same part again, or \"\", shows them all",
               (Arg("part", "choice", "the part, or \"\"", values=PARTS + ("",)),)),
    ActionKind("focus", "page", "the chapter in view's part", (
        Arg("part", "choice", "the part, or \"\"", values=PARTS + ("",)),
        Arg("reveal", "bool", "a Try-it's: the part's own panel shown even if the part is in focus already"))),
    ActionKind("open_panel", "page", "the panel shown beside the machine (one of the page's tabs)",
               (Arg("panel", "text", "bridge, exact, tubes, readouts, curve or own"),)),
)}
SIM_ACTIONS = tuple(t for t, a in ACTIONS.items() if a.runs == "sim")

# What any action may carry besides its own arguments: they steer the page's queue (never sent).
ACTION_FIELDS = (
    Arg("quiet", "bool", "applied and drawn but not announced"),
    Arg("measure", "bool", "true: readouts not yet measured are measured in the same act (else asked for next)"),
    Arg("source", "text", "who dispatched it (play, link, race): for the page's announcements"),
)


def read_action(kind: str, action: dict) -> Action:
    """A sim action (other than load) from the page's JSON, checked."""
    if kind == "set":
        name = action.get("name")
        if name in LEGACY:  # {"name": "greedy", "value": true}: temperature 0
            return Action("set", *legacy_value(name, check_value(LEGACY[name][0], action.get("value"))))
        if name not in SETTINGS:
            raise BenchError("name", f"name must be one of {', '.join(SETTINGS)}; got {name!r}")
        return Action("set", name=name, value=check_value(BY_NAME[name], action.get("value")))
    if kind == "step":
        if action.get("until") is None:
            if action.get("max") is not None:
                raise BenchError("max", "max bounds a step until a condition: give until too")
            return Action("step", count=STEP_COUNT.read(action))
        if action.get("count") is not None:
            raise BenchError("count", "a step takes count or until, not both")
        return Action("step", until=STEP_UNTIL.read(action), most=STEP_MOST.read(action))
    if kind == "round":
        return Action("round", count=ROUND_COUNT.read(action))
    return Action(kind)


# --- the commands --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Command:
    """A request the worker answers. owner: "bench" (sim.bench, on the models in use) or "session"
    (sim.session: which models). callers: who sends it (page, build, tests)."""

    name: str
    owner: str
    callers: tuple
    doc: str
    args: tuple
    run: Callable  # run(session, args: dict, progress) -> JSON-ready result

    def describe(self, docs: bool = False) -> dict:
        out = {"owner": self.owner, "callers": list(self.callers), "args": [a.describe(docs) for a in self.args]}
        return {**out, "doc": self.doc} if docs else out


SETTINGS_ARG = Arg("settings", "settings", f"{', '.join(SETTINGS)} (each may be left out; greedy: true is "
                   "temperature 0)")
STATE_ARG = Arg("state", "state", "a bench state {settings, steps, rounds}")
MEASURE_ARG = Arg("measure", "bool", "false: readouts not yet measured are left out (null)", default=True)
CONTEXT_ARGS = (Arg("context", "ids", "token ids to start from"),
                Arg("prefix", "text", "text to start from (when no context; the default prefix when neither)"))
STEP_INDEX = Arg("step_index", "int", "the pass's index: its random source is (seed, step_index)",
                 low=0, high=MAX_INDEX, default=0)
STEP_TOP = Arg("exactness_top", "int", "rows of the exactness table (0: none)", low=0, high=MAX_TOP, default=8)
TOP = Arg("top", "int", "rows (the top tokens by p)", low=1, high=MAX_TOP, default=8)
ROUND = Arg("round", "int", "the round's index: its random source is (seed, round)", low=0, high=MAX_INDEX,
            default=0)
DRAWS = Arg("draws", "int", "draws per tube", low=1, high=tubes.MAX_DRAWS, default=tubes.TUBE_DRAWS)
TEXT = Arg("text", "text", "the reader's text")
EXACTNESS_DRAFT = Arg("draft", "choice", "the draft model", values=DRAFTS, default=DEFAULTS["draft"])
HEADS = Arg("heads", "text", "the heads' skip-gram table as JSON (sim.free_drafts.SkipGramHeads.to_doc)")


def _use_heads(session, args: dict, _progress=None) -> dict:
    """The heads' table for the book's models (the page fetches it when a state first asks for heads)."""
    text = args.get("heads")
    if not isinstance(text, str):
        raise BenchError("heads", "heads must be the table's JSON text")
    try:
        table = SkipGramHeads.from_doc(json.loads(text))
    except (ValueError, KeyError, TypeError) as err:
        raise BenchError("heads", f"heads: not a skip-gram table ({err})") from None
    session.book.replays.heads_table = table
    return {"heads": table.heads, "top": table.top}


def read_context(language, args: dict, default: str = "bench") -> list[int]:
    """Token ids from args["context"] (ids) or args["prefix"] (text); the `default` prefix
    ("bench" or "tube", see commands.default_context) if neither."""
    if args.get("context") is not None:
        context = args["context"]
        if not isinstance(context, list):
            raise BenchError("context", f"context must be a list of token ids; got {context!r}")
        try:
            return language.target.check_context(context)
        except ValueError as err:
            raise BenchError("context", str(err)) from None
    if args.get("prefix") is not None:
        prefix = args["prefix"]
        if not isinstance(prefix, str):
            raise BenchError("prefix", f"prefix must be a string; got {prefix!r}")
        try:
            return language.encode(prefix)
        except ValueError as err:
            raise BenchError("prefix", str(err)) from None
    return default_context(language, default)


def _act(session, args: dict, _progress=None) -> dict:
    action = args.get("action")
    kind = action.get("type") if isinstance(action, dict) else None
    if kind not in SIM_ACTIONS:
        raise BenchError("action", f"action must be an object whose type is one of {', '.join(SIM_ACTIONS)}")
    messages, options = [], None
    if kind == "load":
        parsed = parse_link(action.get("query"), action.get("chapters"))
        state, messages, options = check_state(parsed["state"]), parsed["messages"], parsed.get("options")
        checked = Action("view")
    else:
        state = check_state(args.get("state"))
        checked = read_action(kind, action)
    measure = args.get("measure", True)
    if not isinstance(measure, bool):
        raise BenchError("measure", f"measure must be true or false; got {measure!r}")
    replays = session.bench.replays
    state, capped = replays.apply(state, checked)
    reply = {"state": state.as_json(), "view": replays.view(state, measure), "messages": messages, "capped": capped}
    return reply if options is None else {**reply, "options": options}


def _start(session, args: dict, _progress=None) -> dict:
    language = session.bench.language
    if args.get("prefix") is not None:
        ids = read_context(language, {"prefix": args["prefix"]})
        if not ids:
            raise BenchError("prefix", "prefix has no tokens")
        return commands.start(language, prefix=ids)
    if args.get("seed") is not None:
        return commands.start(language, seed=check_value(BY_NAME["seed"], args["seed"]))
    return commands.start(language)


def _model_draft(settings):
    """The settings, if their draft is a model (step and tube_round trace a model draft's q)."""
    if settings.free:
        raise BenchError("draft", f"{settings.draft} is a draft without a model: its passes come with act and view")
    return settings


def _step(session, args: dict, _progress=None) -> dict:
    language = session.bench.language
    settings = _model_draft(check_settings(args))
    context = read_context(language, args)
    return commands.step(language, settings, context, STEP_INDEX.read(args), STEP_TOP.read(args))


def _exactness(session, args: dict, _progress=None) -> dict:
    language = session.bench.language
    context = read_context(language, args)
    draft = EXACTNESS_DRAFT.read(args)
    return commands.exactness(language, context, draft, TOP.read(args))


def _tube_round(session, args: dict, _progress=None) -> dict:
    bench = session.bench
    settings = _model_draft(check_settings(args))
    context = read_context(bench.language, args, "tube")
    return tubes.tube_round(bench.language, settings, context, ROUND.read(args), DRAWS.read(args), TOP.read(args),
                            bench.replays.spec_cache)


def _view(session, args: dict, _progress=None) -> dict:
    return session.bench.replays.view(check_state(args.get("state")), args.get("measure", True) is not False)


COMMANDS = {c.name: c for c in (
    Command("python", "bench", ("page",), "which Python runs the sim: {version, platform}", (),
            lambda session, args, progress: commands.which_python()),
    Command("spec", "bench", ("build",), "what the page knows of the bench besides its answers (this protocol "
            "included)", (), lambda session, args, progress: session.bench.spec()),
    Command("link", "bench", ("tests",), "a link read: {state, messages, ignored} (and options)", (
        Arg("query", "pairs", "the link's [[name, value], ...] in order"),
        Arg("chapters", "names", "the embed's chapter anchors: read its view options too")),
        lambda session, args, progress: parse_link(args.get("query"), args.get("chapters"))),
    Command("act", "bench", ("page",), "one whole action applied to a state: {state, view, messages, capped}", (
        STATE_ARG, Arg("action", "action", "an action the sim runs (ACTIONS, runs: sim)"),
        Arg("measure", "bool", "false: readouts not yet measured are left out", default=True)), _act),
    Command("view", "bench", ("build",), "everything the page draws for a state", (STATE_ARG, MEASURE_ARG), _view),
    Command("readouts", "bench", ("page",), "the readouts of some settings, with the curve's coordinates",
            (SETTINGS_ARG,), lambda session, args, progress: session.bench.replays.measured(check_settings(args))),
    Command("start", "bench", ("tests",), "a sentence start: the prefix's, a seed's random one, or the bench's", (
        Arg("prefix", "text", "text to start from"), Arg("seed", "int", "a random start's seed", low=0,
                                                            high=BY_NAME["seed"].high)), _start),
    Command("step", "bench", ("tests",), "one traced speculative step",
            (SETTINGS_ARG, *CONTEXT_ARGS, STEP_INDEX, STEP_TOP), _step),
    Command("exactness", "bench", ("tests",), "the exactness table at a context", (
        *CONTEXT_ARGS, EXACTNESS_DRAFT, TOP), _exactness),
    Command("tube_round", "bench", ("tests",), "one round of the test tubes (default context: the tubes' prefix)",
            (SETTINGS_ARG, ROUND, DRAWS, TOP, *CONTEXT_ARGS), _tube_round),
    Command("use_text", "session", ("page",), "count a reader's text into models and run the bench on them",
            (TEXT,), lambda session, args, progress: session.use_text(args.get("text"), progress)),
    Command("use_heads", "session", ("page",), "the heads' table for the book's models (fetched when heads is "
            "first chosen; a command that needs it before answers code needs_heads)", (HEADS,), _use_heads),
    Command("use_book", "session", ("page",), "back to the book's models", (),
            lambda session, args, progress: session.use_book()),
    Command("source", "session", ("tests",), "which models the bench runs on", (),
            lambda session, args, progress: session.source()),
    Command("count_text", "session", ("tests",), "the model file a text counts into; the models in use stay",
            (TEXT,), lambda session, args, progress: session.count_text(args.get("text"), progress)),
)}


def describe(docs: bool = False) -> dict:
    """The protocol as the page's spec carries it (docs=True adds each entry's words, for the docs)."""
    return {
        "commands": {name: c.describe(docs) for name, c in COMMANDS.items()},
        "actions": {kind: a.describe(docs) for kind, a in ACTIONS.items()},
        "action_fields": [a.describe(docs) for a in ACTION_FIELDS],
    }


# --- the boundary --------------------------------------------------------------------------------------

def handle(session, command: str, args_json: str, progress=None) -> str:
    """One request from the worker, answered as JSON text; errors come back as data, not exceptions.

    {"ok": true, "result": ...} or {"ok": false, "error": message, "param": name|null}, plus
    "code" and "details" for a text that cannot be counted (sim.owntext). Every float is finite.
    """
    try:
        found = COMMANDS.get(command)
        if found is None:
            raise BenchError("command", f"unknown command {command!r}; known: {sorted(COMMANDS)}")
        args = json.loads(args_json or "{}")
        if not isinstance(args, dict):
            raise BenchError("args", "arguments must be a JSON object")
        result = found.run(session, args, progress)
        return json.dumps({"ok": True, "result": result}, ensure_ascii=False, allow_nan=False)
    except (ValueError, KeyError, TypeError) as err:
        param = getattr(err, "param", None)
        message = str(err) if not isinstance(err, KeyError) else f"missing or unknown {err}"
        reply = {"ok": False, "error": message, "param": param}
        if isinstance(err, (OwnTextError, NeedsHeads)):
            reply.update(code=err.code, details=err.details)
        return json.dumps(reply, ensure_ascii=False)
