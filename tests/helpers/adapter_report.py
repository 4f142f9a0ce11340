"""A pytest plugin for `./dev check-pyodide` (tests/check_pyodide.py): each test's outcome, with the
Pyodide adapter functions its `adapter` markers name, written as JSON to $SPECDEC_ADAPTER_REPORT
when the run ends. Works under pytest-xdist: the functions ride in each report's user_properties."""

from __future__ import annotations

import json
import os

results: dict[str, dict] = {}


def pytest_runtest_setup(item):
    functions = [name for marker in item.iter_markers("adapter") for name in marker.args]
    item.user_properties.append(("adapter", sorted(set(functions))))


def pytest_runtest_logreport(report):
    functions = next((value for key, value in report.user_properties if key == "adapter"), [])
    entry = results.setdefault(report.nodeid, {"outcome": "passed", "adapter": functions, "why": ""})
    entry["adapter"] = entry["adapter"] or functions
    if report.failed or (report.skipped and report.when != "teardown"):
        entry["outcome"] = "failed" if report.failed else "skipped"
        text = str(report.longrepr) if report.longrepr else ""
        lines = [line for line in text.splitlines() if line.startswith("E ")] or text.splitlines()[-1:]
        entry["why"] = entry["why"] or " ".join(line[1:].strip() for line in lines[:3])[:400]


def pytest_sessionfinish(session):
    path = os.environ.get("SPECDEC_ADAPTER_REPORT")
    if path and not hasattr(session.config, "workerinput"):  # the controller (or the one process) writes it
        with open(path, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1, sort_keys=True)
