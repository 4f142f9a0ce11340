"""docs/bench-protocol.md's tables of parameters, commands and actions, made from sim/bench/protocol.py
(and the parameters' table it reads, sim/bench/settings.py).

The doc holds them between two markers; tests/sim/test_bench_protocol.py checks they are these.
After a change to the protocol: `python tests/helpers/protocol_tables.py --write` rewrites them.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from sim.bench.protocol import ACTION_FIELDS, ACTIONS, COMMANDS  # noqa: E402
from sim.bench.links import view_parameters  # noqa: E402
from sim.bench.settings import PARAMETERS  # noqa: E402

ANCHORS = "the site's chapter anchors"  # what the embed's `chapter` takes (the build knows them)

DOC = ROOT / "docs" / "bench-protocol.md"
BEGIN = "<!-- protocol tables: made from sim/bench/protocol.py by tests/helpers/protocol_tables.py; do not edit -->"
END = "<!-- end of the protocol tables -->"


def _arg(a) -> str:
    limits = ""
    if a.low is not None:
        limits = f" {a.low}–{a.high}"
    elif a.values:
        limits = " " + "\\|".join(f"`{v}`" if v else '`""`' for v in a.values)
    default = f", default {json.dumps(a.default)}" if a.default is not None else ""
    return f"`{a.name}` ({a.kind}{limits}{default}): {a.doc}"


def _args(args) -> str:
    return "; ".join(_arg(a) for a in args) or "—"


def _parameter(p) -> str:
    values = f"{p.low}–{p.high}" if p.kind == "int" else " ".join(f"`{v}`" for v in p.values) or "true, false"
    values = ANCHORS if p.values == (ANCHORS,) else values
    restarts = "yes" if p.restarts and p.role == "setting" else "no"
    return f"| `{p.name}` | {p.role} | {p.kind} | {values} | `{json.dumps(p.default)}` | {restarts} |"


def tables() -> str:
    lines = [BEGIN, "", "| parameter | role | kind | values | default | a change restarts the sentence |",
             "|---|---|---|---|---|---|", *(_parameter(p) for p in PARAMETERS),
             *(_parameter(p) for p in view_parameters([ANCHORS]).values())]
    lines += ["", "Role `view`: the embed's view options, read from a link only when the page passes its chapters "
              "(the page alone uses them)."]
    lines += ["", "| command | from | called by | arguments | answers |", "|---|---|---|---|---|"]
    for c in COMMANDS.values():
        lines.append(f"| `{c.name}` | {c.owner} | {', '.join(c.callers)} | {_args(c.args)} | {c.doc} |")
    lines += ["", "| action | runs | arguments | does |", "|---|---|---|---|"]
    for a in ACTIONS.values():
        lines.append(f"| `{a.type}` | {a.runs} | {_args(a.args)} | {a.doc} |")
    lines += ["", "Any action may also carry: " + "; ".join(_arg(a) for a in ACTION_FIELDS) + ".", "", END]
    return "\n".join(lines)


def written() -> str:
    """The tables as the doc holds them now."""
    text = DOC.read_text(encoding="utf-8")
    found = re.search(re.escape(BEGIN) + ".*?" + re.escape(END), text, re.S)
    return found.group(0) if found else ""


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        text = DOC.read_text(encoding="utf-8")
        if not written():
            sys.exit(f"{DOC}: no tables between the markers; put {BEGIN} and {END} where they go")
        DOC.write_text(text.replace(written(), tables()), encoding="utf-8")
    else:
        print(tables())
