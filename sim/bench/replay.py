"""A bench state replayed: the tape, the last pass, the tubes, the readouts, ready to draw.

The page holds a bench state ({"settings", "steps", "rounds"}, see sim.bench.settings) and sends
every change to `act` (sim.bench.protocol), which applies it here (`apply`: a whole action, "step
until" included, in one call) and returns the next state and its `view`: everything the page
draws, computed here. A state names its whole experiment (the sentence comes from the seed, pass i
from (seed, i), tube round k from (seed, k)), so replaying it from scratch or extending an
earlier replay gives the same view, and a link reproduces what the reader saw.

Replays are cached per session: the passes of each (draft, gamma, candidates, temperature, top_p,
rule, seed) and the rounds of each (draft, candidates, temperature, top_p, rule, seed) are kept, so One step, Play and Add a round extend a
run instead of recomputing it.
"""

from __future__ import annotations

from collections import OrderedDict

from dataclasses import dataclass

from ..errors import BenchError
from ..free_drafts import SkipGramHeads, draft_cost
from . import commands, drawing, race, tubes
from .commands import STREAM_START, default_context, random_start, rng_for, verdict
from .free_passes import FreeReplay, bench_readouts, point_mass_table
from .layout import CONTEXT_SENT, EXACTNESS_TOP, MARKS, TAPE_SHOWN, TUBE_TOP
from .links import link_query
from .readouts import DRAFT_COST, lanes_readout, roofline_readout
from .settings import BY_NAME, MAX_ROUNDS, MAX_STEPS, SEED_MODULUS, Settings, State

RUNS_KEPT = 8  # runs (and tube series) remembered per session


def _rejected(step: dict) -> bool:
    return any(g["verdict"] == "rejected" for g in step["guesses"])


# What a "step until" waits for, judged on the last pass (a step's trace).
UNTIL = {"rejected": _rejected, "all_kept": lambda step: not _rejected(step)}


@dataclass(frozen=True)
class Action:
    """An action on a bench state, checked (sim.bench.protocol reads it from the page's JSON).

    type: set (name, value), step (count, or until and most), new_sentence, round (count),
    clear_tubes, view. A link (load) becomes its state before it reaches here.
    """

    type: str
    name: str | None = None
    value: object = None
    count: int = 1
    until: str | None = None
    most: int = 0


class NeedsHeads(BenchError):
    """The heads source was asked for before its table is here (the page fetches it, then `use_heads`)."""

    code = "needs_heads"

    def __init__(self):
        super().__init__("draft", "the heads' table is not loaded: send it with use_heads first")
        self.details = {}


class Replays:
    """One language's replays, with the session's caches (see the module docstring).

    own_text: the reader's text the models were counted from (the prompt "own"), else None.
    """

    def __init__(self, language, readouts, own_text: str | None = None):
        self.language = language
        self.readouts = readouts
        self.own_text = own_text
        self.heads_table: SkipGramHeads | None = None  # use_heads's, when the model file carries none
        self._free_readouts: dict = {}
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

    def heads(self) -> SkipGramHeads:
        """The heads' skip-gram table: the model file's, else the one use_heads gave (NeedsHeads if neither)."""
        table = self.language.heads or self.heads_table
        if table is None:
            raise NeedsHeads()
        return table

    def _free(self, settings: Settings) -> FreeReplay:
        heads = self.heads() if settings.draft == "heads" else None
        start = lambda seed: random_start(self.language, rng_for(seed, STREAM_START, 0))  # noqa: E731
        return self._remember(self._runs, settings.restart_key(),
                              lambda: FreeReplay(self.language, settings, start, heads, self.own_text))

    def run(self, settings: Settings, steps: int) -> dict:
        """The sentence and the first `steps` passes under these settings (batch, GPU and model play no part)."""
        language = self.language
        if settings.free:
            return self._free(settings).extend(steps)

        def fresh():
            ids = random_start(language, rng_for(settings.seed, STREAM_START, 0))
            return {"sentence": ids, "text": list(ids), "passes": []}

        run = self._remember(self._runs, settings.restart_key(), fresh)
        one = settings.but(batch=1)
        while len(run["passes"]) < steps:
            index = len(run["passes"])
            step = commands.step(language, one, run["text"][-CONTEXT_SENT:], step_index=index, exactness_top=0)
            run["passes"].append(step)
            run["text"].extend(w["id"] for w in step["written"])
        return run

    def tubes(self, settings: Settings, rounds: int) -> dict:
        """Cumulative tube counts over rounds 0..rounds-1 (prefix sums kept per series)."""
        if settings.free:  # the tubes compare a model draft's q with p: the bench's own model draft stands in
            settings = settings.but(draft=BY_NAME["draft"].default)
        key = (settings.draft, settings.candidates, settings.temperature, settings.top_p, settings.rule, settings.seed)
        series = self._remember(self._tubes, key, lambda: {"rounds": [], "sums": []})
        context = default_context(self.language, "tube")
        while len(series["rounds"]) < max(rounds, 1):
            index = len(series["rounds"])
            got = tubes.tube_round(self.language, settings, context, index, tubes.TUBE_DRAWS, TUBE_TOP,
                                   self.spec_cache)
            counts = [got["target"], got["spec_kept"], got["spec_target"]]
            if series["sums"]:
                counts = [[a + b for a, b in zip(before, now)] for before, now in zip(series["sums"][-1], counts)]
            series["sums"].append(counts)
            series["rounds"].append(got)
        return series

    # --- the view ----------------------------------------------------------------------------------------
    def measured(self, settings: Settings) -> dict:
        """The readouts of some settings, with the speed-up curve's coordinates."""
        if settings.free:
            key = settings.but(batch=1, gpu=BY_NAME["gpu"].default, model=BY_NAME["model"].default, seed=0).as_json()
            key = tuple(key.values()) + (settings.model,)  # the cost of heads depends on the model
            if key not in self._free_readouts:
                heads = self.heads() if settings.draft == "heads" else None
                self._free_readouts[key] = bench_readouts(self.language, settings, heads, self.own_text)
            base = self._free_readouts[key]
            readouts = {**base, "settings": settings.as_json(),
                        "roofline": roofline_readout(settings.batch, settings.gamma, base["tokens_per_pass_counted"],
                                                     base["c"], gpu=settings.gpu, model=settings.model,
                                                     lanes_per_sequence=settings.lanes_per_sequence)}
        else:
            readouts = self.readouts.readouts(settings)
        curve = drawing.curve(readouts["curve"], settings.gamma, readouts["best_gamma"])
        return {**readouts, "curve_drawing": curve}

    def cached(self, settings: Settings) -> bool:
        """Whether measured(settings) answers at once."""
        if settings.free:
            key = settings.but(batch=1, gpu=BY_NAME["gpu"].default, model=BY_NAME["model"].default, seed=0).as_json()
            return tuple(key.values()) + (settings.model,) in self._free_readouts
        return self.readouts.cached(settings)

    def view(self, state: State, measure: bool = True) -> dict:
        """Everything the page draws for a bench state.

        The readouts take a measurement the first time a draft and mode are seen (up to a second
        in the worker) unless the session opened with the build's table of them (Readouts); with
        measure=False they are left out (None) unless already measured, so a replay is drawn at
        once and the page asks for them next (command "readouts").
        """
        settings, steps, rounds = state.settings, state.steps, state.rounds
        language = self.language
        run = self.run(settings, steps)
        readouts = self.measured(settings) if measure or self.cached(settings) else None
        last = run["passes"][steps - 1] if steps else None
        lanes = lanes_readout(settings.batch, settings.lanes_per_sequence, settings.gpu, settings.model)
        shown_pass = self._pass_view(settings, last, run, steps) if last else None
        return {
            "state": state.as_json(),
            "link": link_query(state),
            "sentence": {"ids": run["sentence"], "text": language.decode(run["sentence"])},
            "tape": self._tape(run, steps),
            "pass": shown_pass,
            "tubes": self._tubes_view(settings, rounds),
            "race": race.race(settings, run["passes"][:steps], self._pieces(run, steps), self._guess_cost(settings)),
            "readouts": readouts,
            "so_far": so_far(run["passes"][:steps], settings.gamma),
            "prompt": self._free(settings).described() if settings.free else None,
            "drawing": {
                "machine": drawing.machine(settings, lanes, shown_pass),
                "bridge": drawing.bridge(shown_pass),
                "exactness": drawing.exactness(shown_pass["exactness"] if shown_pass else None),
            },
            "python": commands.which_python(),
        }

    @staticmethod
    def _guess_cost(settings: Settings) -> float:
        """c: one guess's cost as a share of a target pass (a model draft's run, or a free source's guess)."""
        return draft_cost(settings.draft, settings.gamma, settings.model) / settings.gamma if settings.free else DRAFT_COST

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

    def _pass_view(self, settings: Settings, step: dict, run: dict, steps: int) -> dict:
        context = step["context"]
        if settings.free:  # a chosen guess: q is a point mass on it (none: a plain step, nothing to compare)
            first = step["positions"][0]["candidates"][0]["token"] if step["positions"] else None
            keep = self.language.target.order - 1
            table = point_mass_table(self.language, context[-keep:], first, EXACTNESS_TOP)
        else:
            table = commands.exactness_table(self.language, context, settings.draft, EXACTNESS_TOP)
        if not settings.greedy and not settings.free:  # the same pass again, with what each
            step = commands.step(self.language, settings.but(batch=1), context, step["step_index"], 0,
                                 residuals=True)  # rejection left to check the next candidate against
        return {
            "index": step["step_index"],
            "context_text": step["context_text"],
            "mode": "greedy" if settings.greedy else settings.rule,
            "guesses": step["guesses"],
            "positions": step["positions"],
            "candidates": settings.candidates,
            "n_checked": step["n_checked"],
            "n_kept": step["n_kept"],
            "n_written": step["n_written"],
            "written": step["written"],
            "written_display": step["written_display"],
            "replacement": step["replacement"],
            "bonus": step["bonus"],
            "rejected": _rejected(step),
            "checks": checks(step["positions"]),
            "choice": None if settings.greedy or settings.rule == "typical" else first_choice(step["positions"]),
            "lanes_per_sequence": step["lanes_per_sequence"],
            "lanes": settings.batch * step["lanes_per_sequence"],
            "exactness": {"context_text": step["context_text"], **table},
        }

    def _tubes_view(self, settings: Settings, rounds: int) -> dict:
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
    def apply(self, state: State, action: Action) -> tuple[State, bool]:
        """(the next state, whether a count ran into its cap) after one whole action.

        set: a setting; draft, gamma, greedy, rule and seed start the sentence again from one
        pass, batch, gpu and model do not; the tubes keep their rounds, redrawn under the new
        settings; a value the state already has changes nothing. step: `count` passes, or one pass
        at a time until the last pass meets `until` (UNTIL), at most `most` passes or the cap.
        new_sentence: the next seed, one pass. round: `count` rounds. clear_tubes: no rounds.
        view: no change. Past a cap the counter stays at the cap, and the flag says so.
        """
        kind, settings = action.type, state.settings
        if kind == "set":
            if action.value == getattr(settings, action.name):
                return state, False
            changed = state.but(settings=settings.but(**{action.name: action.value}))
            return (changed.but(steps=1) if BY_NAME[action.name].restarts else changed), False
        if kind == "step" and action.until:
            return self._step_until(state, UNTIL[action.until], action.most)
        if kind == "step":
            return state.but(steps=min(MAX_STEPS, state.steps + action.count)), state.steps + action.count > MAX_STEPS
        if kind == "new_sentence":
            return state.but(settings=settings.but(seed=(settings.seed + 1) % SEED_MODULUS), steps=1), False
        if kind == "round":
            return (state.but(rounds=min(MAX_ROUNDS, state.rounds + action.count)),
                    state.rounds + action.count > MAX_ROUNDS)
        if kind == "clear_tubes":
            return state.but(rounds=0), False
        return state, False  # view

    def _step_until(self, state: State, done, most: int) -> tuple[State, bool]:
        """One pass at a time, as the page's One step would, until done(last pass), `most` passes or the cap."""
        for _ in range(most):
            capped = state.steps + 1 > MAX_STEPS
            state = state.but(steps=min(MAX_STEPS, state.steps + 1))
            last = self.run(state.settings, state.steps)["passes"][state.steps - 1]
            if done(last) or capped:
                break
        return state, capped


def so_far(passes: list, gamma: int) -> dict:
    """Acceptance by position over the tape's passes, as vLLM counts it: of the passes that offered a
    guess (drafts), the share whose guess at position j (1..gamma) was kept; a pass without a guess is a
    plain step, in passes and tokens but not in drafts. alpha here: the share of checked positions kept."""
    drafts, kept, checked, accepted, tokens = 0, [0] * gamma, 0, 0, 0
    for step in passes:
        tokens += step["n_written"]
        if not step["positions"]:
            continue
        drafts += 1
        checked += sum(1 for position in step["positions"] if any(c["checked"] for c in position["candidates"]))
        for depth in range(min(step["n_kept"], gamma)):
            kept[depth] += 1
        accepted += step["n_kept"]
    return {"passes": len(passes), "drafts": drafts, "kept": kept,
            "accepted_by_position": [k / drafts if drafts else None for k in kept],
            "kept_share": accepted / checked if checked else None,
            "tokens_per_pass": tokens / len(passes) if passes else None,
            "mean_acceptance_length": 1 + accepted / drafts if drafts else None}


def checks(positions: list) -> list[dict]:
    """Every candidate the target checked in this pass, in order, with what came next after a
    rejection (the bridge's list): then "next_residual"/"next_struck"/"next_p" (what the next
    candidate is checked against: the residual, p with the refused struck out for "topk", or p),
    "draw_residual"/"draw_struck"/"draw_p" (what the token was drawn from), with its likeliest."""
    out = []
    for position in positions:
        listed = position["candidates"]
        for j, c in enumerate(listed):
            if not c["checked"]:
                continue
            then = c.get("next_against")
            kind = None
            if then is not None:
                last = j + 1 == len(listed)
                kind = ("draw_" if last else "next_") + then["kind"]
            out.append({"guess": position["depth"] + 1, "candidate": j + 1, "of": len(listed), "text": c["text"],
                        "r": c["r"], "ratio": c["ratio"], "verdict": c["verdict"], "then": kind,
                        "then_tokens": then["tokens"] if then else []})
    return out


def first_choice(positions: list) -> dict | None:
    """Why the first guess came out as it did (the exactness view's note): the candidate kept (its
    place among the k, what it was checked against: p, or the residual the rejections before it
    left) or, with every candidate rejected, what the token was drawn from."""
    if not positions:
        return None
    listed = positions[0]["candidates"]
    checked = [c for c in listed if c["checked"]]
    rejected = [c["text"] for c in checked if c["verdict"] == "rejected"]
    kept = next((j for j, c in enumerate(listed) if c["checked"] and c["verdict"] == "kept"), None)
    if kept is not None:
        c = listed[kept]
        before = listed[kept - 1].get("next_against") if kept else None
        return {"kept": kept + 1, "of": len(listed), "text": c["text"], "r": c["r"], "ratio": c["ratio"],
                "rejected": rejected, "against": before["kind"] if before else "p"}
    last = checked[-1].get("next_against") if checked else None
    return {"kept": None, "of": len(listed), "rejected": rejected, "drawn_from": last["kind"] if last else "p"}


def verdicts() -> list:
    """The fates of a guess, in the order the legend gives them."""
    return [verdict(True, True), verdict(False, True), verdict(False, False)]
