"""The JSON-in, JSON-out face of the sim: what the page's Web Worker (Pyodide) and the build call.

Strings cross the JavaScript/Python boundary, never live objects, so the worker holds no
Python proxies but the session itself and the same calls run unchanged in CPython.
"""

from __future__ import annotations

import json
import random
import sys

from .models import load_language
from .speculative import speculative_step

DRAFTS = ("bigram", "unigram", "same")
MAX_GAMMA = 8


def runtime() -> dict:
    """Where this Python runs: the page shows it, and tests use it to prove the work ran in Pyodide."""
    return {"python": sys.version.split()[0], "platform": sys.platform}


def _choice(args: dict, key: str, allowed, default):
    value = args.get(key, default)
    if value not in allowed:
        raise ValueError(f"{key} must be one of {list(allowed)}, got {value!r}")
    return value


def _int(args: dict, key: str, low: int, high: int, default: int) -> int:
    value = args.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{key} must be a whole number from {low} to {high}, got {value!r}")
    return value


class Session:
    def __init__(self, language):
        self.language = language

    def token_text(self, token: int) -> str:
        return self.language.vocab[token]

    def step(self, args: dict) -> dict:
        """One speculative step from a text prefix, described for drawing."""
        lang = self.language
        draft = lang.drafts[_choice(args, "draft", DRAFTS, "bigram")]
        gamma = _int(args, "gamma", 1, MAX_GAMMA, 4)
        seed = _int(args, "seed", 0, 2**32 - 1, 1)
        greedy = bool(args.get("greedy", False))
        context = lang.encode(str(args.get("prefix", "")))
        trace = speculative_step(lang.target, draft, context, gamma, random.Random(seed), greedy=greedy)
        out = trace.to_dict()
        out["context_text"] = lang.decode(context)
        out["written_text"] = [self.token_text(t) for t in out["written"]]
        for guess in out["guesses"]:
            guess["text"] = self.token_text(guess["token"])
        out["runtime"] = runtime()
        out["settings"] = {"draft": args.get("draft", "bigram"), "gamma": gamma, "seed": seed, "greedy": greedy}
        return out

    def handle(self, command: str, args_json: str) -> str:
        """Dispatch one request from the worker; errors come back as data, not exceptions."""
        handlers = {"step": self.step, "runtime": lambda _args: runtime()}
        try:
            if command not in handlers:
                raise ValueError(f"unknown command {command!r}")
            result = handlers[command](json.loads(args_json or "{}"))
            return json.dumps({"ok": True, "result": result}, ensure_ascii=False)
        except (ValueError, KeyError, TypeError) as err:
            return json.dumps({"ok": False, "error": str(err)}, ensure_ascii=False)


def open_session(model_json: str) -> Session:
    return Session(load_language(json.loads(model_json)))
