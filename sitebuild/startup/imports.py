"""What the sim package imports, read from its source (every import statement, wherever it is).

The start files' maker carries these imports out inside Pyodide twice: with the full standard
library, so that each module they pull in is shipped in the trimmed one; and against the
trimmed one, so that a module missing from it fails the build instead of a reader's bench.
Imports inside functions count too: code that runs only when a reader asks for it (a pasted
text counted into a model, say) must find its modules just the same.
"""

from __future__ import annotations

import ast
from pathlib import Path


def package_modules(package: Path) -> list[str]:
    """Dotted names of the package's own modules (the package itself first)."""
    names = []
    for path in sorted(package.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names.append(".".join(parts))
    return sorted(names, key=lambda n: (n.count("."), n))


def named_imports(package: Path) -> list[list]:
    """[module, fromlist] for every absolute import in the package, sorted and without repeats.

    `import a.b` gives ["a.b", []]; `from a import b, c` gives ["a", ["b", "c"]] (b may be a
    submodule, as `from importlib import resources` is); relative imports name the package's own
    modules, which package_modules lists, and `from __future__` is not an import."""
    found: dict[str, set[str]] = {}
    for path in sorted(package.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        tree = ast.parse(path.read_bytes(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    found.setdefault(alias.name, set())
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module != "__future__":
                names = {a.name for a in node.names if a.name != "*"}
                found.setdefault(node.module, set()).update(names)
    own = package.name
    return [[module, sorted(names)] for module, names in sorted(found.items())
            if module != own and not module.startswith(own + ".")]
