"""The chapters' Try-its run by the sim in CPython, as the page's runner runs them through the store.

Only for tests: it follows site/static/js/tryit.js (load the start, apply the actions, keep
snapshots) and the store's "step until" (one pass at a time until the condition holds, at most
`max`, default 50, or the cap), so the answers' values can be checked without a browser.
"""

from __future__ import annotations

import json

from sim.session import Session

UNTIL_MAX = 50  # the store's default (site/static/js/bench/store.js)
UNTIL = {"rejected": lambda view: view["pass"] and view["pass"]["rejected"],
         "all_kept": lambda view: view["pass"] and not view["pass"]["rejected"]}


def _act(session: Session, state, action: dict) -> dict:
    reply = json.loads(session.handle("act", json.dumps({"state": state, "action": action, "measure": True})))
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
        if "hold" in entry or entry["type"] == "isolate":
            continue
        action = {k: entry[k] for k in ("type", "name", "value", "count") if k in entry}
        passes = 0
        while True:
            reply = _act(session, state, action)
            state, view = reply["state"], reply["view"]
            passes += 1
            until = UNTIL.get(entry.get("until"))
            if not until or until(view) or reply["capped"] or passes >= entry.get("max", UNTIL_MAX):
                break
    return view, snapshots
