"""The JSON-in, JSON-out face of the sim: what the page's Web Worker (Pyodide) and the build call.

Strings cross the JavaScript/Python boundary, never live objects, so the worker holds no
Python proxies but the session itself and the same calls run unchanged in CPython.
The commands are those of docs/bench-protocol.md, declared and read by sim.bench.protocol.
"""

from __future__ import annotations

import hashlib
import json

from .bench import Bench, protocol
from .counting import dump
from .models import load_language
from .owntext import count_language, count_text

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

    def use_text(self, text, progress=None) -> dict:
        """Count the text into models (progress(stage) along the way) and run the bench on them."""
        language, summary = count_language(self.language.lang, text, progress)
        self.bench = Bench(language, own_text=text)
        self.own_summary = summary
        return self.source()

    def count_text(self, text, progress=None) -> dict:
        """The model file the text counts into, as the build would write it; the models in use
        stay as they are (for tests, and for a reader who wants the counts)."""
        return {"model": dump(count_text(self.language.lang, text, progress))}

    def use_book(self) -> dict:
        self.bench = self.book
        self.own_summary = None
        return self.source()

    def source(self) -> dict:
        """Which models the bench runs on: {"source": "book"} or {"source": "text", summary}."""
        if self.bench is self.book:
            return {"source": "book"}
        return {"source": "text", **self.own_summary}

    def step(self, args: dict) -> dict:
        """One speculative step, from the `step` command's JSON arguments; the first live-step
        widget's arguments {prefix, draft, gamma, seed, greedy} still work."""
        return protocol.COMMANDS["step"].run(self, args, None)

    def handle(self, command: str, args_json: str, progress=None) -> str:
        """One request from the worker, answered as JSON text (sim.bench.protocol.handle).
        progress(stage), if given, hears how far `use_text` has got (the worker posts it on)."""
        return protocol.handle(self, command, args_json, progress)


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
