"""The bench's first picture, computed by the same sim in CPython, so the page is whole before Pyodide.

It makes the very calls the page's Web Worker makes (sim.session.Session.handle with the
commands of docs/bench-protocol.md): the bench's spec (parameters, limits, layout constants) and
the view of the default state (a sentence, one pass, one round of the tubes, the readouts). The
template draws the picture from them; the page's script reads the same two objects back from the
JSON block the template embeds, and later redraws the same elements from the worker's answers.
"""

from __future__ import annotations

import json

from sim.session import Session

from .errors import BuildError


def _call(session: Session, command: str, args: dict):
    reply = json.loads(session.handle(command, json.dumps(args, ensure_ascii=False)))
    if not reply.get("ok"):
        raise BuildError(f"the bench's first picture: sim command {command!r} failed: {reply.get('error')}")
    return reply["result"]


def render(language, strings: dict) -> dict:
    """The template's `bench`: the spec, the default state's view, and the JSON the page reads.

    `strings` (the page's interface strings) are not needed: the template words the picture."""
    session = Session(language)
    spec = _call(session, "spec", {})
    view = _call(session, "view", {"state": spec["default_state"]})
    return {
        "spec": spec,
        "view": view,
        # What the page's script carries on from (read from a JSON block, never from the drawing).
        "state": {"spec": spec, "view": view},
    }
