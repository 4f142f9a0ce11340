"""The docs' tables that are made from the code, written by one generator and checked by one test.

Each table stands in a doc between two markers that name it (`BEGIN`, `END`); its lines come from
the code that owns what it lists:

- "start contract" (docs/bench-protocol.md, "Transport"): the start fields, the worker's messages,
  the stages, marks, ways of starting and failures of sitebuild/startup/contract.py;
- "protocol" (docs/bench-protocol.md, "Parameters, commands and actions"): the parameters of
  sim/bench/settings.py, and the commands and actions of sim/bench/protocol.py.

`python -m sitebuild.doc_tables --write` writes every table; tests/sitebuild/test_doc_tables.py
fails while a doc holds another text than the one made here.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[1]
BEGIN = "<!-- {name} tables: made from {source} by sitebuild/doc_tables.py (python -m sitebuild.doc_tables --write); do not edit -->"
END = "<!-- end of the {name} tables -->"


# --- the start contract's tables -------------------------------------------------------------------

def _with_file_names(doc: str) -> str:
    """A start field's doc with Pyodide's file names written in ({loader}, {lms.module}...: the names
    the adapter to Pyodide gives, sitebuild/assets.py's pyodide_files)."""
    from . import assets

    files = assets.pyodide_files()
    names = {f"{{{key}}}": value for key, value in files.items() if isinstance(value, str)}
    names |= {f"{{lms.{key}}}": files["lms"][files[key]] for key in ("loader", "module")}
    for token, name in names.items():
        doc = doc.replace(token, name)
    return doc


def start_contract() -> list[str]:
    from .startup import contract as c

    lines = ["| start field | data attribute | kind | in the start message | what |", "|---|---|---|---|---|"]
    for f in c.FIELDS:
        per = "; one per language, the page's" if f.per_lang else ""
        lines.append(f"| `{f.name}` | `data-{c.attribute(f.name)}` | {f.kind} | {'yes' if f.message else 'no'} | "
                     f"{_with_file_names(f.doc)}{per} |")
    lines += ["", "| message | | what |", "|---|---|---|"]
    lines += [f"| {way} | {shape} | {doc} |" for way, shape, doc in c.MESSAGES]
    lines += ["", "| stage | from | what | words |", "|---|---|---|---|"]
    lines += [f"| `{s.name}` | {s.by} | {s.doc} | {f'`{s.words}`' if s.words else '—'} |" for s in c.STAGES]
    lines += ["", "| mark | done when |", "|---|---|"]
    lines += [f"| `{name}` | {doc} |" for name, doc in c.MARKS]
    lines += ["", "| `via` | how |", "|---|---|"]
    lines += [f"| `{name}` | {doc} |" for name, doc in c.VIA]
    lines += ["", "| failure | from | when | words |", "|---|---|---|---|"]
    lines += [f"| `{f.code}` | {f.by} | {f.doc} | `{f.words}` |" for f in c.FAILURES]
    return lines


# --- the protocol's tables -------------------------------------------------------------------------

ANCHORS = "the site's chapter anchors"  # what the embed's `chapter` takes (the build knows them)


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
    parts = " ".join(f"`{part}`" for part in p.parts) or "—"
    return f"| `{p.name}` | {p.role} | {p.kind} | {values} | `{json.dumps(p.default)}` | {restarts} | {parts} |"


def protocol() -> list[str]:
    from sim.bench.links import view_parameters
    from sim.bench.protocol import ACTION_FIELDS, ACTIONS, COMMANDS
    from sim.bench.settings import PARAMETERS

    lines = ["| parameter | role | kind | values | default | a change restarts the sentence | its control is about |",
             "|---|---|---|---|---|---|---|", *(_parameter(p) for p in PARAMETERS),
             *(_parameter(p) for p in view_parameters([ANCHORS]).values())]
    lines += ["", "Role `view`: the embed's view options, read from a link only when the page passes its chapters "
              "(the page alone uses them). A control is about the parts of the page listed (by the names a "
              "chapter's `part` gives): the chapter about one of them marks it."]
    lines += ["", "| command | from | called by | arguments | answers |", "|---|---|---|---|---|"]
    for c in COMMANDS.values():
        lines.append(f"| `{c.name}` | {c.owner} | {', '.join(c.callers)} | {_args(c.args)} | {c.doc} |")
    lines += ["", "| action | runs | arguments | does |", "|---|---|---|---|"]
    for a in ACTIONS.values():
        lines.append(f"| `{a.type}` | {a.runs} | {_args(a.args)} | {a.doc} |")
    lines += ["", "Any action may also carry: " + "; ".join(_arg(a) for a in ACTION_FIELDS) + "."]
    return lines


# --- the tables, where they stand --------------------------------------------------------------------

@dataclass(frozen=True)
class Table:
    name: str
    doc: str  # its doc, under the repository
    source: str  # what it is made from, as its marker says
    lines: Callable[[], list[str]]

    def made(self) -> str:
        begin, end = BEGIN.format(name=self.name, source=self.source), END.format(name=self.name)
        return "\n".join([begin, "", *self.lines(), "", end])

    def written(self, text: str) -> str:
        """The table as the doc's text holds it ("" without its markers)."""
        begin = re.escape(BEGIN.format(name=self.name, source="SOURCE")).replace("SOURCE", ".*?")
        found = re.search(begin + ".*?" + re.escape(END.format(name=self.name)), text, re.S)
        return found.group(0) if found else ""


TABLES = (
    Table("start contract", "docs/bench-protocol.md", "sitebuild/startup/contract.py", start_contract),
    Table("protocol", "docs/bench-protocol.md", "sim/bench/protocol.py and sim/bench/settings.py", protocol),
)


def stale(root: Path = REPO) -> list[Table]:
    """The tables whose doc holds another text than the one made now."""
    return [t for t in TABLES if t.written((root / t.doc).read_text(encoding="utf-8")) != t.made()]


def write(root: Path = REPO) -> None:
    for table in TABLES:
        path = root / table.doc
        text = path.read_text(encoding="utf-8")
        old = table.written(text)
        if not old:
            sys.exit(f"{path}: no {table.name} tables between their markers; put "
                     f"{BEGIN.format(name=table.name, source=table.source)} and {END.format(name=table.name)} where they go")
        path.write_text(text.replace(old, table.made()), encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        write()
    else:
        print("\n\n".join(t.made() for t in TABLES))
