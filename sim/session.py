"""The JSON-in, JSON-out face of the sim: what the page's Web Worker (Pyodide) and the build call.

Strings cross the JavaScript/Python boundary, never live objects, so the worker holds no
Python proxies but the session itself and the same calls run unchanged in CPython.
The commands are those of docs/bench-protocol.md, implemented in sim.bench.
"""

from __future__ import annotations

import json

from .bench import Bench, BenchError
from .models import load_language

__all__ = ["Session", "open_session"]


class Session:
    """One language's bench for one page: the worker keeps it for as long as the page lives."""

    def __init__(self, language):
        self.language = language
        self.bench = Bench(language)

    def step(self, args: dict) -> dict:
        """One speculative step (sim.bench.step); the first live-step widget's arguments
        {prefix, draft, gamma, seed, greedy} still work."""
        return self.bench.handlers["step"](args)

    def handle(self, command: str, args_json: str) -> str:
        """Dispatch one request from the worker; errors come back as data, not exceptions.

        {"ok": true, "result": ...} or {"ok": false, "error": message, "param": name|null}.
        """
        try:
            handler = self.bench.handlers.get(command)
            if handler is None:
                raise BenchError("command", f"unknown command {command!r}; known: {sorted(self.bench.handlers)}")
            args = json.loads(args_json or "{}")
            if not isinstance(args, dict):
                raise BenchError("args", "arguments must be a JSON object")
            result = handler(args)
            return json.dumps({"ok": True, "result": result}, ensure_ascii=False, allow_nan=False)
        except (ValueError, KeyError, TypeError) as err:
            param = getattr(err, "param", None)
            message = str(err) if not isinstance(err, KeyError) else f"missing or unknown {err}"
            return json.dumps({"ok": False, "error": message, "param": param}, ensure_ascii=False)


def open_session(model_json: str) -> Session:
    return Session(load_language(json.loads(model_json)))
