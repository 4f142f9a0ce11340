"""The warnings a test raises reach the run's summary (pytest-xdist carries them from a worker to
the controller, which imports each warning's class by its module's name): see
tests/helpers/run_warnings.py."""

from __future__ import annotations

import ast
import inspect
import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import run_warnings

TESTS = Path(__file__).parent
ROOT = TESTS.parent

# The controller's side, in a process of its own with the controller's path (the checkout, as
# pyproject's pythonpath, and tests/, as tests/conftest.py adds): a warning made and serialised as a
# worker sends it, then read back as the controller reads it.
ROUND_TRIP = """
import json, sys, types, warnings
from xdist.remote import serialize_warning_message
from xdist.workermanage import unserialize_warning_message
module, name = sys.argv[1], sys.argv[2]
if module.startswith("helpers."):
    cls = getattr(__import__(module, fromlist=[name]), name)
else:  # a class as a test module would define it, its module known to the worker only
    cls = type(name, (UserWarning,), {"__module__": module})
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    warnings.warn(cls("met once"))
data = json.loads(json.dumps(serialize_warning_message(caught[0])))
sys.modules.pop(module, None)
try:
    back = unserialize_warning_message(data)
    print(json.dumps([type(back.message).__name__, str(back.message)]))
except ModuleNotFoundError as error:
    print(json.dumps(["ModuleNotFoundError", str(error)]))
"""


def controller_reads(module: str, name: str) -> list[str]:
    run = subprocess.run([sys.executable, "-c", ROUND_TRIP, module, name], capture_output=True, text=True,
                         cwd=ROOT, env={"PYTHONPATH": f"{ROOT}:{TESTS}", "PATH": ""}, check=True)
    return json.loads(run.stdout)


WARNINGS = [name for name, cls in inspect.getmembers(run_warnings, inspect.isclass) if issubclass(cls, Warning)]


@pytest.mark.parametrize("name", WARNINGS)
def test_the_controller_reads_each_warning_a_worker_sends(name):
    assert controller_reads(run_warnings.__name__, name) == [name, "met once"]


def test_a_warning_defined_in_a_test_module_would_crash_the_controller():
    """The power check: the same round trip with the class where test_other_engines.py had it."""
    got = controller_reads("test_other_engines", "FirefoxStall")
    assert got == ["ModuleNotFoundError", "No module named 'test_other_engines'"], got


def test_no_test_module_defines_a_warning_of_its_own():
    defined = []
    for path in sorted(TESTS.rglob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any("Warning" in ast.unparse(base) for base in node.bases):
                defined.append(f"{path.relative_to(TESTS)}: {node.name}")
    assert not defined, f"define these in tests/helpers/run_warnings.py: {defined}"
