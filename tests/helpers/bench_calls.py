"""The worker's round trip, for the bench's tests: JSON text in, JSON text out, every float finite."""

from __future__ import annotations

import json

from sim.session import Session


def _no_constant(name):
    raise AssertionError(f"a reply holds {name}: JSON for the page must be finite")


def call(session: Session, command: str, args: dict | None = None) -> dict:
    text = session.handle(command, json.dumps(args or {}, ensure_ascii=False))
    reply = json.loads(text, parse_constant=_no_constant)  # NaN or Infinity would fail here
    assert isinstance(reply, dict) and isinstance(reply.get("ok"), bool), reply
    return reply


def ok(session: Session, command: str, args: dict | None = None):
    reply = call(session, command, args)
    assert reply["ok"], reply
    return reply["result"]


def error(session: Session, command: str, args: dict | None = None) -> dict:
    reply = call(session, command, args)
    assert not reply["ok"], reply
    return reply
