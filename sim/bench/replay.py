"""A bench state replayed: the tape, the last pass, the tubes, the readouts, ready to draw.

The page holds a bench state ({"settings", "steps", "rounds"}, see sim.bench.settings) and sends
every change to `act`, which returns the next state and its `view`: everything the page draws,
computed here. A state names its whole experiment (the sentence comes from the seed, pass i
from (seed, i), tube round k from (seed, k)), so replaying it from scratch or extending an
earlier replay gives the same view, and a link reproduces what the reader saw.

Replays are cached per session: the passes of each (draft, gamma, greedy, rule, seed) and the
rounds of each (draft, greedy, rule, seed) are kept, so One step, Play and Add a round extend a
run instead of recomputing it.
"""

from __future__ import annotations

from collections import OrderedDict

from . import commands, drawing, race, tubes
from .commands import STREAM_START, random_start, rng_for, verdict
from .layout import CONTEXT_SENT, EXACTNESS_TOP, MARKS, TAPE_SHOWN, TUBE_TOP
from .readouts import lanes_readout
from .settings import (BY_NAME, MAX_ROUNDS, MAX_STEPS, SEED_MODULUS, SETTINGS, BenchError, check_state,
                       check_value, int_arg, link_query, parse_link)

RUNS_KEPT = 8  # runs (and tube series) remembered per session

ACTIONS = ("set", "step", "new_sentence", "round", "clear_tubes", "load", "view")


class Replays:
    """One language's replays, with the session's caches (see the module docstring)."""

    def __init__(self, language, readouts):
        self.language = language
        self.readouts = readouts
        self._runs: OrderedDict = OrderedDict()
        self._tubes: OrderedDict = OrderedDict()
        self.spec_cache: dict = {}  # the speculative first-token law per context (O(V) to build)

    # --- the cached runs -------------------------------------------------------------------------------
    @staticmethod
    def _remember(cache: OrderedDict, key, make):
        value = cache.get(key)
        if value is None:
            value = cache[key] = make()
            if len(cache) > RUNS_KEPT:
                cache.popitem(last=False)
        cache.move_to_end(key)
        return value

    def run(self, settings: dict, steps: int) -> dict:
        """The sentence and the first `steps` passes under these settings (batch, GPU and model play no part)."""
        key = tuple(settings[name] for name in SETTINGS if BY_NAME[name].restarts)
        language = self.language

        def fresh():
            ids = random_start(language, rng_for(settings["seed"], STREAM_START, 0))
            return {"sentence": ids, "text": list(ids), "passes": []}

        run = self._remember(self._runs, key, fresh)
        args = {**settings, "batch": 1, "exactness_top": 0}
        while len(run["passes"]) < steps:
            index = len(run["passes"])
            step = commands.step(language, {**args, "context": run["text"][-CONTEXT_SENT:], "step_index": index})
            run["passes"].append(step)
            run["text"].extend(w["id"] for w in step["written"])
        return run

    def tubes(self, settings: dict, rounds: int) -> dict:
        """Cumulative tube counts over rounds 0..rounds-1 (prefix sums kept per series)."""
        key = (settings["draft"], settings["greedy"], settings["rule"], settings["seed"])
        series = self._remember(self._tubes, key, lambda: {"rounds": [], "sums": []})
        args = {**settings, "draws": tubes.TUBE_DRAWS, "top": TUBE_TOP}
        while len(series["rounds"]) < max(rounds, 1):
            index = len(series["rounds"])
            got = tubes.tube_round(self.language, {**args, "round": index}, self.spec_cache)
            counts = [got["target"], got["spec_kept"], got["spec_target"]]
            if series["sums"]:
                counts = [[a + b for a, b in zip(before, now)] for before, now in zip(series["sums"][-1], counts)]
            series["sums"].append(counts)
            series["rounds"].append(got)
        return series

    # --- the view ----------------------------------------------------------------------------------------
    def measured(self, settings: dict) -> dict:
        """The readouts of some settings, with the speed-up curve's coordinates."""
        readouts = self.readouts.readouts(settings)
        curve = drawing.curve(readouts["curve"], settings["gamma"], readouts["best_gamma"])
        return {**readouts, "curve_drawing": curve}

    def view(self, state: dict, measure: bool = True) -> dict:
        """Everything the page draws for a bench state.

        The readouts take a measurement the first time a draft and mode are seen (up to a second
        in the worker) unless the session opened with the build's table of them (Readouts); with
        measure=False they are left out (None) unless already measured, so a replay is drawn at
        once and the page asks for them next (command "readouts").
        """
        state = check_state(state)
        settings, steps, rounds = state["settings"], state["steps"], state["rounds"]
        language = self.language
        run = self.run(settings, steps)
        readouts = self.measured(settings) if measure or self.readouts.cached(settings) else None
        last = run["passes"][steps - 1] if steps else None
        lanes = lanes_readout(settings["batch"], settings["gamma"], settings["gpu"], settings["model"])
        shown_pass = self._pass_view(settings, last, run, steps) if last else None
        return {
            "state": state,
            "link": link_query(state),
            "sentence": {"ids": run["sentence"], "text": language.decode(run["sentence"])},
            "tape": self._tape(run, steps),
            "pass": shown_pass,
            "tubes": self._tubes_view(settings, rounds),
            "race": race.race(settings, run["passes"][:steps], self._pieces(run, steps)),
            "readouts": readouts,
            "drawing": {
                "machine": drawing.machine(settings, lanes, shown_pass),
                "bridge": drawing.bridge(shown_pass),
                "exactness": drawing.exactness(shown_pass["exactness"] if shown_pass else None),
            },
            "runtime": commands.runtime(),
        }

    def _tape(self, run: dict, steps: int) -> dict:
        vocab = self.language.vocab
        tokens = [{"id": t, "kind": "prefix"} for t in run["sentence"]]
        for step in run["passes"][:steps]:
            tokens += [{"id": w["id"], "kind": w["kind"]} for w in step["written"]]
        shown = tokens[-TAPE_SHOWN:]
        return {"tokens": [{"text": vocab[t["id"]], "kind": t["kind"], "mark": MARKS[t["kind"]]} for t in shown],
                "hidden": len(tokens) - len(shown),
                "written": len(tokens) - len(run["sentence"]),
                "passes": steps,
                "text": self.language.decode([t["id"] for t in shown])}

    def _pieces(self, run: dict, steps: int) -> list[str]:
        """The display text of each token the first `steps` passes wrote (joined: the written text).

        The join of two tokens depends on those two alone, so each piece is what a token adds
        after the one before it."""
        start = len(run["sentence"])
        written = sum(p["n_written"] for p in run["passes"][:steps])
        ids, decode = run["text"][start - 1:start + written], self.language.decode
        return [decode(ids[k - 1:k + 1])[len(decode(ids[k - 1:k])):] for k in range(1, len(ids))]

    def _pass_view(self, settings: dict, step: dict, run: dict, steps: int) -> dict:
        context = step["context"]
        table = commands.exactness_table(self.language, context, settings["draft"], EXACTNESS_TOP)
        return {
            "index": step["step_index"],
            "context_text": step["context_text"],
            "mode": "greedy" if settings["greedy"] else settings["rule"],
            "guesses": step["guesses"],
            "n_kept": step["n_kept"],
            "n_written": step["n_written"],
            "written": step["written"],
            "written_display": step["written_display"],
            "replacement": step["replacement"],
            "bonus": step["bonus"],
            "rejected": any(g["verdict"] == "rejected" for g in step["guesses"]),
            "lanes_per_sequence": settings["gamma"] + 1,
            "lanes": settings["batch"] * (settings["gamma"] + 1),
            "exactness": {"context_text": step["context_text"], **table},
        }

    def _tubes_view(self, settings: dict, rounds: int) -> dict:
        series = self.tubes(settings, rounds)
        first = series["rounds"][0]
        categories = first["categories"]
        if rounds:
            target, kept, written = series["sums"][rounds - 1]
            last = series["rounds"][rounds - 1]
        else:
            target = kept = written = [0] * len(categories)
            last = None
        return {
            "context_text": first["context_text"],
            "rounds": rounds,
            "draws_per_round": tubes.TUBE_DRAWS,
            "draws": rounds * tubes.TUBE_DRAWS,
            "categories": [{"text": c["text"], "p": c["p"], "spec_p": c["spec_p"]} for c in categories],
            "target": target,
            "spec_kept": kept,
            "spec_target": written,
            "gap": tubes.largest_gap(categories, target, kept, written),
            "drawing": drawing.tubes(categories, target, kept, written, last),
        }

    # --- actions -----------------------------------------------------------------------------------------
    def act(self, args: dict) -> dict:
        """Apply one action to a state: {"state", "action", "measure"?} -> {"state", "view", "messages", "capped"}.

        Actions: {"type": "set", "name", "value"} (a setting; draft, gamma, greedy, rule and seed
        start the sentence again from one pass, batch does not; the tubes keep their rounds, redrawn
        under the new settings); {"type": "step", "count"?}; {"type": "new_sentence"} (the next
        seed, one pass); {"type": "round", "count"?}; {"type": "clear_tubes"}; {"type": "load",
        "query": [[name, value], ...], "chapters"?: [anchors]} (a link: see settings.parse_link; with
        the embed's chapters, its view options come back as "options"); {"type": "view"} (no change).
        "measure": false leaves readouts not yet measured out of the view (see view).
        """
        action = args.get("action")
        if not isinstance(action, dict) or action.get("type") not in ACTIONS:
            raise BenchError("action", f"action must be an object whose type is one of {', '.join(ACTIONS)}")
        kind = action["type"]
        messages, capped, options = [], False, None
        if kind == "load":
            parsed = parse_link(action.get("query"), action.get("chapters"))
            state, messages, options = parsed["state"], parsed["messages"], parsed.get("options")
        else:
            state = check_state(args.get("state"))
            settings = dict(state["settings"])
            if kind == "set":
                name = action.get("name")
                if name not in SETTINGS:
                    raise BenchError("name", f"name must be one of {', '.join(SETTINGS)}; got {name!r}")
                value = check_value(BY_NAME[name], action.get("value"))
                if value != settings[name]:
                    settings[name] = value
                    state = {**state, "settings": settings}
                    if BY_NAME[name].restarts:
                        state["steps"] = 1
            elif kind == "step":
                count = int_arg(action, "count", 1, MAX_STEPS, 1)
                capped = state["steps"] + count > MAX_STEPS
                state = {**state, "steps": min(MAX_STEPS, state["steps"] + count)}
            elif kind == "new_sentence":
                settings["seed"] = (settings["seed"] + 1) % SEED_MODULUS
                state = {**state, "settings": settings, "steps": 1}
            elif kind == "round":
                count = int_arg(action, "count", 1, MAX_ROUNDS, 1)
                capped = state["rounds"] + count > MAX_ROUNDS
                state = {**state, "rounds": min(MAX_ROUNDS, state["rounds"] + count)}
            elif kind == "clear_tubes":
                state = {**state, "rounds": 0}
        measure = args.get("measure", True)
        if not isinstance(measure, bool):
            raise BenchError("measure", f"measure must be true or false; got {measure!r}")
        reply = {"state": state, "view": self.view(state, measure), "messages": messages, "capped": capped}
        return reply if options is None else {**reply, "options": options}


def verdicts() -> list:
    """The fates of a guess, in the order the legend gives them."""
    return [verdict(True, True), verdict(False, True), verdict(False, False)]
