"""Links: a bench state (and the embed's view options) read from a URL's query, and written back.

`parse_link`: the URL's query as the ordered list of [name, value] strings. A bad value falls
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

from ..errors import BenchError
from .settings import (BY_NAME, LEGACY, LINK_VALUE_SHOWN, PARAMETERS, PARTS, THEMES, Parameter, default_state,
                       legacy_value)


def view_parameters(chapters) -> dict:
    """The view options as parameters, given the site's chapter anchors (BenchError if malformed)."""
    if not isinstance(chapters, list) or not all(isinstance(c, str) and c for c in chapters):
        raise BenchError("chapters", "chapters must be a list of the site's chapter anchors")
    return {p.name: p for p in (
        Parameter("chapter", "choice", None, "none", values=tuple(chapters), role="view"),
        Parameter("part", "choice", None, "none", values=PARTS, role="view"),
        Parameter("theme", "choice", None, "none", values=THEMES, role="view"),
    )}


_DIGITS = re.compile(r"[0-9]+")
_DECIMAL = re.compile(r"[0-9]*\.?[0-9]+|[0-9]+\.")
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
    if p.kind == "level":
        number = float(text) if _DECIMAL.fullmatch(text) and len(text) <= 12 else None
        if number is not None and number in p.values:
            return p.values[p.values.index(number)], None
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

    Accepted spellings: whole numbers as decimal digits; temperature and top_p as decimals (0.7,
    .7, 1, 1.0); draft, rule and the view options by name (any case). The old greedy switch
    (settings.LEGACY) is still read, as 1/0, true/false, yes/no, on/off (any case) or a bare
    "?greedy": greedy=1 is temperature 0, unless the link gives a temperature too.
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
    given = {name for name, _ in query}
    for name, raw in query:
        p = BY_NAME.get(name) or view.get(name) or LEGACY.get(name, (None,))[0]
        if p is None:
            if name not in ignored:
                ignored.append(name)
            continue
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            continue
        value, problem = _read(p, raw)
        if p.role == "legacy":
            new, new_value = legacy_value(name, value)
            if new not in given:
                state["settings"][new] = new_value
        elif p.role == "setting":
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
            used = options[name] if name in options else _value_of(state, LEGACY.get(name, (None, name))[1])
            messages.append({"code": "given_twice", "param": name, "value": None, "used": used,
                             "args": {"count": count}})
    out = {"state": state, "messages": messages, "ignored": ignored}
    return {**out, "options": options} if view else out


def _value_of(state: dict, name: str):
    return state["settings"][name] if name in state["settings"] else state[name]


def link_query(state) -> str:
    """The canonical query string of a bench state ("?draft=bigram&gamma=4&..."): parse_link reads it back."""
    state = state.as_json()
    parts = []
    for p in PARAMETERS:
        value = _value_of(state, p.name)
        parts.append(f"{p.name}={(1 if value else 0) if p.kind == 'bool' else value}")  # levels: 0.7, 1
    return "?" + "&".join(parts)
