"""The JSON-in, JSON-out face of the sim: what the page's Web Worker (Pyodide) and the build call.

Strings cross the JavaScript/Python boundary, never live objects, so the worker holds no
Python proxies but the session itself and the same calls run unchanged in CPython.
The commands are those of docs/bench-protocol.md, implemented in sim.bench.
"""

from __future__ import annotations

import hashlib
import json

from .bench import Bench, BenchError
from .counting import dump
from .models import load_language
from .owntext import OwnTextError, count_language, count_text

__all__ = ["Session", "open_session"]


class Session:
    """One language's bench for one page: the worker keeps it for as long as the page lives.

    The bench runs on the book's models, or on models counted from a reader's own text
    (`use_text`); `use_book` goes back to the book's, whose caches were kept. A text that
    cannot be counted leaves the models in use as they were.
    """

    def __init__(self, language, measured: list | None = None):
        self.language = language
        self.book = Bench(language, measured)
        self.bench = self.book
        self.own_summary = None
        self.commands = {"use_text": self.use_text, "use_book": self.use_book, "source": self.source,
                         "count_text": self.count_text}

    def use_text(self, args: dict, progress=None) -> dict:
        """Count args["text"] into models (progress(stage) along the way) and run the bench on them."""
        language, summary = count_language(self.language.lang, args.get("text"), progress)
        self.bench = Bench(language)
        self.own_summary = summary
        return self.source({})

    def count_text(self, args: dict, progress=None) -> dict:
        """The model file args["text"] counts into, as the build would write it; the models in
        use stay as they are (for tests, and for a reader who wants the counts)."""
        return {"model": dump(count_text(self.language.lang, args.get("text"), progress))}

    def use_book(self, _args: dict, progress=None) -> dict:
        self.bench = self.book
        self.own_summary = None
        return self.source({})

    def source(self, _args: dict, progress=None) -> dict:
        """Which models the bench runs on: {"source": "book"} or {"source": "text", summary}."""
        if self.bench is self.book:
            return {"source": "book"}
        return {"source": "text", **self.own_summary}

    def step(self, args: dict) -> dict:
        """One speculative step (sim.bench.step); the first live-step widget's arguments
        {prefix, draft, gamma, seed, greedy} still work."""
        return self.bench.handlers["step"](args)

    def handle(self, command: str, args_json: str, progress=None) -> str:
        """Dispatch one request from the worker; errors come back as data, not exceptions.

        {"ok": true, "result": ...} or {"ok": false, "error": message, "param": name|null},
        plus "code" and "details" for a text that cannot be counted (sim.owntext).
        progress(stage), if given, hears how far `use_text` has got (the worker posts it on).
        """
        try:
            own = self.commands.get(command)
            handler = self.bench.handlers.get(command)
            if own is None and handler is None:
                known = sorted([*self.bench.handlers, *self.commands])
                raise BenchError("command", f"unknown command {command!r}; known: {known}")
            args = json.loads(args_json or "{}")
            if not isinstance(args, dict):
                raise BenchError("args", "arguments must be a JSON object")
            result = own(args, progress) if own is not None else handler(args)
            return json.dumps({"ok": True, "result": result}, ensure_ascii=False, allow_nan=False)
        except (ValueError, KeyError, TypeError) as err:
            param = getattr(err, "param", None)
            message = str(err) if not isinstance(err, KeyError) else f"missing or unknown {err}"
            reply = {"ok": False, "error": message, "param": param}
            if isinstance(err, OwnTextError):
                reply.update(code=err.code, details=err.details)
            return json.dumps(reply, ensure_ascii=False)


def measurements_json(model_json: str, language) -> str:
    """The readout measurements the page's first picture shows (sim.bench.readouts.first_measurements),
    as the build ships them for open_session, tied to the model's text by its sha256."""
    from .bench.readouts import first_measurements

    return json.dumps({"model_sha256": _sha256(model_json), "runs": first_measurements(language)},
                      separators=(",", ":"), sort_keys=True)


def open_session(model_json: str, measured_json: str | None = None) -> Session:
    """A session on a model; with measured_json (measurements_json of this very model), the
    default settings' readouts answer at once; every other setting is measured on first use."""
    measured = None
    if measured_json is not None:
        doc = json.loads(measured_json)
        if doc.get("model_sha256") != _sha256(model_json):
            raise ValueError("the readout measurements were made on another model: build them again "
                             "from this model (sim.session.measurements_json)")
        measured = doc["runs"]
    return Session(load_language(json.loads(model_json)), measured)


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
