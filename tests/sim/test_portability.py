"""The sim package must run unchanged in Pyodide's core: standard library only, any Python 3.11+."""

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SIM = Path(__file__).resolve().parents[2] / "sim"

SCRIPT = """
import json, sys
from sim.session import open_session
session = open_session(open(sys.argv[1], encoding="utf-8").read())
step = session.step({"prefix": sys.argv[2], "draft": "bigram", "gamma": 4, "seed": 42})
step.pop("python")
print(json.dumps(step, sort_keys=True))
"""


def test_sim_imports_only_the_standard_library():
    for path in sorted(SIM.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top in sys.stdlib_module_names or top == "sim", f"{path.relative_to(SIM)} imports {name}"


def find_python(version: str) -> str | None:
    """An interpreter of that version that really runs (pyenv shims may exist but not run)."""
    candidates = [shutil.which(f"python{version}")]
    candidates += sorted(str(p) for p in Path.home().glob(f".pyenv/versions/{version}*/bin/python{version}"))
    for exe in filter(None, candidates):
        if subprocess.run([exe, "-c", "pass"], capture_output=True).returncode == 0:
            return exe
    return None


@pytest.mark.parametrize("version", ["3.11", "3.12", "3.13", "3.14"])
def test_other_pythons_give_the_same_trace(version, sim_model_docs, tmp_path):
    exe = find_python(version)
    if exe is None:
        pytest.skip(f"no working Python {version} here")
    model = tmp_path / "en.json"
    model.write_text(json.dumps(sim_model_docs["en"]), encoding="utf-8")
    run = lambda interpreter: subprocess.run(  # noqa: E731
        [interpreter, "-c", SCRIPT, str(model), "said the"],
        cwd=SIM.parent, capture_output=True, text=True, check=True,
    ).stdout
    assert json.loads(run(exe)) == json.loads(run(sys.executable))
