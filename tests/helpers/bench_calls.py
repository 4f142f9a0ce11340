"""The worker's round trip, for the bench's tests: JSON text in, JSON text out, every float finite.

Also what the bench's CPython tests share: a session per language for a module (the `sessions`
fixture, which tests/sim/conftest.py makes available to every test there), an act, and the
tubes' counts summed over rounds.
"""

from __future__ import annotations

import json

import pytest

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


@pytest.fixture(scope="module")
def sessions(sim_languages) -> dict[str, Session]:
    """One session per language for a test module (each module starts with fresh caches)."""
    return {lang: Session(language) for lang, language in sim_languages.items()}


def act(session: Session, state, action: dict, measure: bool = False) -> dict:
    """One action on a bench state, as the page's store sends it."""
    return ok(session, "act", {"state": state, "action": action, "measure": measure})


def tube_totals(session: Session, rule: str, rounds: int, seed: int, draft: str = "bigram"):
    """The tubes' counts summed over rounds 0..rounds-1, as the page's cumulative histogram holds
    them: (the first round's categories, the target tube, the speculative tube, how many of the
    speculative tube's draws were kept guesses)."""
    first = ok(session, "tube_round", {"rule": rule, "seed": seed, "round": 0, "draft": draft})
    target = list(first["target"])
    spec = [k + t for k, t in zip(first["spec_kept"], first["spec_target"])]
    kept = sum(first["spec_kept"])
    for r in range(1, rounds):
        got = ok(session, "tube_round", {"rule": rule, "seed": seed, "round": r, "draft": draft})
        target = [a + b for a, b in zip(target, got["target"])]
        spec = [a + k + t for a, k, t in zip(spec, got["spec_kept"], got["spec_target"])]
        kept += sum(got["spec_kept"])
    return first["categories"], target, spec, kept
