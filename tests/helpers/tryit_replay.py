"""The chapters' Try-its run by the sim in CPython, as the page's runner runs them through the store.

Only for tests: it follows site/static/js/tryit.js (load the start, apply the actions, keep
snapshots). Each action goes to the sim as the store sends it: the arguments the protocol
declares for it (sim/bench/protocol.py), a "step until" included, in one `act`.
"""

from __future__ import annotations

import json

from sim.bench.protocol import ACTIONS
from sim.session import Session


def _act(session: Session, state, action: dict) -> dict:
    args = json.dumps({"state": state, "action": action, "measure": True})
    reply = json.loads(session.handle("act", args))
    if reply.get("code") == "needs_heads":  # as the page does (heads.js): the build's table, then again
        from helpers import corpus_models

        heads = json.dumps({"heads": corpus_models.heads_json(session.language.lang)})
        assert json.loads(session.handle("use_heads", heads))["ok"]
        reply = json.loads(session.handle("act", args))
    assert reply["ok"], reply
    return reply["result"]


def replay(session: Session, data: dict) -> tuple[dict, dict]:
    """(final view, {label: view}) of one Try-it's page data (sitebuild/tryit/blocks.page_data)."""
    reply = _act(session, None, {"type": "load", "query": data["start"]})
    state, view = reply["state"], reply["view"]
    snapshots = {"start": view}
    for entry in data["actions"]:
        if "snapshot" in entry:
            snapshots[entry["snapshot"]] = view
            continue
        if "hold" in entry or ACTIONS[entry["type"]].runs == "page":
            continue
        declared = ACTIONS[entry["type"]].args
        action = {"type": entry["type"], **{a.name: entry[a.name] for a in declared if a.name in entry}}
        reply = _act(session, state, action)
        state, view = reply["state"], reply["view"]
    return view, snapshots
