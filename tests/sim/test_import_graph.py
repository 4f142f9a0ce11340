"""sim's own import graph has no cycle, deferred imports (inside functions) included.

A cycle hidden by an import moved into a function works until someone moves it back, and makes
the order modules load in matter; sim keeps its layers one-way instead (docs/architecture.md).
An edge A -> B is any `import` or `from ... import` in A naming B (a module of sim, or a package,
whose __init__ runs first), wherever it stands in A; importing B also runs every package above B
that is not already above A.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SIM = ROOT / "sim"


def modules() -> dict[str, Path]:
    out = {}
    for path in sorted(SIM.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def packages_above(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def imported(name: str, path: Path, known: dict) -> set[str]:
    """The modules of sim that module `name` imports, anywhere in its text."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            targets.add(module)
            targets |= {f"{module}.{alias.name}" for alias in node.names if f"{module}.{alias.name}" in known}
    running = set(packages_above(name)) | {name}  # a package above `name` is already running
    out = set()
    for target in targets & set(known):
        out |= ({target} | set(packages_above(target))) - running
    return out


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imported(name, path, known) for name, path in known.items()}


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle as [a, b, ..., a], or None."""
    state: dict[str, str] = {}
    stack: list[str] = []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(edges):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_sims_import_graph_has_no_cycle():
    cycle = find_cycle(graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_cycle_finder_finds_a_deferred_cycle(tmp_path):
    """Power check: the two cycles this test was written against (a deferred import each) are found."""
    assert find_cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
    path = tmp_path / "owntext.py"
    path.write_text("def f():\n    from .bench.commands import is_word\n", encoding="utf-8")
    known = {"sim": None, "sim.owntext": path, "sim.bench": None, "sim.bench.commands": None, "sim.bench.api": None}
    edges = {"sim.owntext": imported("sim.owntext", path, known), "sim.bench": {"sim.bench.api"},
             "sim.bench.api": {"sim.owntext"}}
    assert edges["sim.owntext"] == {"sim.bench.commands", "sim.bench"}
    assert find_cycle(edges) == ["sim.bench", "sim.bench.api", "sim.owntext", "sim.bench"]


def test_the_machines_parts_each_have_one_box():
    from sim.bench import layout, settings

    assert tuple(layout.PART_BOXES) == settings.PARTS
    assert layout.spec()["parts"] == list(settings.PARTS)


if __name__ == "__main__":  # prints the graph (for the docs)
    for name, targets in sorted(graph().items()):
        print(f"{name} -> {', '.join(sorted(targets)) or '-'}")
