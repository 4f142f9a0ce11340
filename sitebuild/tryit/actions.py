"""A Try-it's start and actions, checked against the bench's spec (sim.bench.api.spec).

The actions are the store's own, as the protocol in the spec declares them (sim/bench/protocol.py:
their arguments, kinds and limits; the parameters' values), so a Try-it does nothing a reader's
click could not. Each is checked here against those tables, so a typo fails the build with the
file and line instead of failing a reader; which actions a Try-it may use is this module's choice.
Two markers belong to the Try-it runner (site/static/js/tryit.js), not to the store:
{snapshot = "label"} keeps the view at that point for the answer's {name@label}, and
{hold = seconds} leaves what the bench shows on screen for a moment (a tour of the parts).
"""

from __future__ import annotations

import re

# The actions a Try-it may use (each one of the protocol's: a test checks), in the order a message lists them.
ALLOWED = ("set", "step", "round", "new_sentence", "clear_tubes", "isolate")
HOLD_SECONDS = (0.2, 5.0)
LABEL = re.compile(r"^[a-z][a-z0-9_]*$")

# What a Try-it may not do, and what to write instead.
REFUSED = {
    "load": "a Try-it starts from its start table (start = {gamma = 8}); it may not load another link",
    "view": "a Try-it needs no redraw: every action draws its result",
    "play": "a Try-it ends in a state the reader can read: use step with a count or until",
    "pause": "a Try-it never plays, so it has nothing to pause",
    "speed": "the speed is the reader's choice",
    "focus": "the chapter's own part is brought into view when the actions are done",
    "open_panel": "the chapter's own part opens its panel when the actions are done",
}


class ActionError(ValueError):
    """A bad action: the message, the key at fault (start or actions) and the entry's index."""

    def __init__(self, message: str, index: int | None, fix: str, key: str = "actions"):
        super().__init__(message)
        self.index, self.fix, self.key = index, fix, key


def _parameters(spec: dict) -> dict:
    return {p["name"]: p for p in spec["parameters"]}


def _arguments(spec: dict, kind: str) -> dict:
    """An action's arguments as the protocol declares them, by name."""
    return {a["name"]: a for a in spec["protocol"]["actions"][kind]["args"]}


def _check_value(p: dict, value) -> str | None:
    """None if value is valid for p (a parameter, or an action's argument, as the spec describes
    either: kind choice with values, level (numbers) with values, bool, or int with min and max),
    else what it should be."""
    if p["kind"] == "choice":
        return None if isinstance(value, str) and value in p["values"] else "one of " + ", ".join(p["values"])
    if p["kind"] == "bool":
        return None if isinstance(value, bool) else "true or false"
    if p["kind"] == "level":  # a number from a fixed set (temperature, top_p)
        ok = type(value) in (int, float) and value in p["values"]
        return None if ok else "one of " + ", ".join(map(str, p["values"]))
    ok = type(value) is int and p["min"] <= value <= p["max"]
    return None if ok else f"a whole number from {p['min']} to {p['max']}"


def start_query(start, spec: dict) -> list[list[str]]:
    """The start table as the link pairs a `load` action takes; ActionError if a value is bad."""
    if not isinstance(start, dict):
        raise ActionError("start must be a table of bench parameters", None, "write start = {gamma = 8, rounds = 0}",
                          "start")
    parameters = _parameters(spec)
    pairs = []
    for name, value in start.items():
        if name not in parameters:
            raise ActionError(f"start names {name!r}, which the bench does not have", None,
                              "use " + ", ".join(parameters), "start")
        wrong = _check_value(parameters[name], value)
        if wrong:
            raise ActionError(f"start sets {name} = {value!r}", None, f"{name} is {wrong}", "start")
    for p in spec["parameters"]:  # in the link's own order
        if p["name"] in start:
            value = start[p["name"]]
            pairs.append([p["name"], ("1" if value else "0") if p["kind"] == "bool" else str(value)])
    return pairs


def _keys(entry: dict, allowed: set, i: int, what: str) -> None:
    extra = sorted(set(entry) - allowed)
    if extra:
        raise ActionError(f"{what} has no {extra[0]!r}", i, f"{what} takes {', '.join(sorted(allowed))}")


def _argument(entry: dict, i: int, arg: dict) -> None:
    """An optional argument (count, max) checked against the protocol's limits."""
    name = arg["name"]
    if name in entry:
        wrong = _check_value(arg, entry[name])
        if wrong:
            raise ActionError(f"{name} = {entry[name]!r}", i, f"{name} is {wrong}")


def _check_entry(entry, i: int, spec: dict, labels: set) -> None:
    parameters = _parameters(spec)
    if not isinstance(entry, dict):
        raise ActionError(f"action {i + 1} is not a table", i, 'write each action as {type = "step"}')
    if "snapshot" in entry:
        _keys(entry, {"snapshot"}, i, "a snapshot")
        label = entry["snapshot"]
        if not isinstance(label, str) or not LABEL.match(label) or label == "start":
            raise ActionError(f"snapshot {label!r} is not a usable label", i,
                              'a label is lower-case letters, digits and _, and not "start" (which every Try-it has)')
        if label in labels:
            raise ActionError(f"snapshot {label!r} is declared twice", i, "give each snapshot its own label")
        labels.add(label)
        return
    if "hold" in entry:
        _keys(entry, {"hold"}, i, "a hold")
        low, high = HOLD_SECONDS
        seconds = entry["hold"]
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not low <= seconds <= high:
            raise ActionError(f"hold = {entry['hold']!r}", i, f"a hold is a number of seconds from {low} to {high}")
        return
    kind = entry.get("type")
    if kind in REFUSED:
        raise ActionError(f"a Try-it may not use a {kind!r} action", i, REFUSED[kind])
    if kind not in ALLOWED:
        raise ActionError(f"unknown action type {kind!r}", i,
                          "type is one of " + ", ".join(ALLOWED) + '; or write {snapshot = "label"} or {hold = seconds}')
    args = _arguments(spec, kind)
    _keys(entry, {"type", *args}, i, kind)
    if kind == "set":
        name = entry.get("name")
        if name not in spec["settings"]:
            raise ActionError(f"set names {name!r}, which is not a setting", i,
                              "name is one of " + ", ".join(spec["settings"]))
        wrong = _check_value(parameters[name], entry.get("value"))
        if wrong:
            raise ActionError(f"set {name} to {entry.get('value')!r}", i, f"{name} is {wrong}")
    elif kind == "step":
        _argument(entry, i, args["count"])
        if "until" in entry:
            if "count" in entry:
                raise ActionError("step has both count and until", i, "step a number of passes, or until a condition")
            if _check_value(args["until"], entry["until"]):
                raise ActionError(f"step until {entry['until']!r}", i, "until is " + _check_value(args["until"], None))
            _argument(entry, i, args["max"])
        elif "max" in entry:
            raise ActionError("step has max without until", i, "max bounds a step until a condition")
    elif kind == "round":
        _argument(entry, i, args["count"])
    elif kind == "isolate":
        if _check_value(args["part"], entry.get("part")):
            parts = [part for part in args["part"]["values"] if part]
            raise ActionError(f"isolate part {entry.get('part')!r}, which the machine does not have", i,
                              "part is one of " + ", ".join(parts) + ', or "" to show them all')


def check_actions(actions, spec: dict) -> set:
    """Check every entry; return the snapshot labels declared. ActionError names the entry."""
    if not isinstance(actions, list) or not actions:
        raise ActionError("actions must be a list of at least one action", None,
                          'write actions = [{type = "step"}]')
    labels: set = set()
    for i, entry in enumerate(actions):
        _check_entry(entry, i, spec, labels)
        before = actions[i - 1] if i else {}
        if entry.get("type") == "set" and before.get("type") == "set" and before.get("name") == entry.get("name"):
            raise ActionError(f"set {entry['name']} twice in a row", i,
                              "the store applies only the second; put a snapshot or a step between them, or drop one")
    if not any("type" in entry for entry in actions):
        raise ActionError("actions has no action, only markers", None, "add at least one action with a type")
    return labels
