"""One source of truth: whatever a reader does, fast, the page's own link reproduces what it shows.

Property-style, with fixed seeds: 10 sequences of 30 actions (sliders, buttons, radios, the
draft, temperature, Play, chapter actions through the public API) fired without waiting between
them, in one page (so the readouts' measurements are shared; the controls are language-free). After each sequence the bench must be idle in a state whose link is in the address bar,
and loading that link again must give the same tape, tubes, readouts and controls. The link is
loaded again in the page through the action the page's start uses; and after the last sequence
the page is reloaded for real (a new worker and a new Python, which is what a reader's reload
does): its own link (the last sequence's) and every fifth sequence's link must show the same
bench in the new session. (One reload rather than one per fifth sequence: each costs a Python
start, which was most of this test's time.)
A second test loads every kind of value each link parameter accepts.
"""

from __future__ import annotations

import random
from urllib.parse import urlparse

import pytest
from helpers.benchpage import LIVE, PYODIDE_TIMEOUT_MS, bench_state, query_of, reset, run, settle, snapshot, soft_reload

pytestmark = [pytest.mark.browser, pytest.mark.long(60)]

# 10 sequences: 300 actions, each of the 12 kinds 12 to 54 times, from each starting link (the
# test checks that its sample holds them all). That a replayed state gives what the actions gave
# is the sim's, checked over random actions in CPython (tests/sim/test_bench_replay.py: extending
# a run gives what a fresh replay gives); here the page's queue, address bar and controls under
# events fired as fast as they come. (It was 20 sequences: each costs about 2 s of CPU.)
SEQUENCES = 10
ACTIONS = 30
START_LINKS = ["", "?gamma=2&batch=9", "?rule=typical&rounds=3", "?greedy=1&draft=unigram"]


def random_actions(rng: random.Random, count: int) -> list[list]:
    """Actions as a reader (or a chapter's button) would do them: [kind, value]."""
    kinds = ["gamma", "gamma", "batch", "batch", "draft", "temperature", "rule", "step", "step", "new", "round",
             "clear", "play", "chapter", "speed"]
    out = []
    for _ in range(count):
        kind = rng.choice(kinds)
        value = {
            "gamma": rng.choice([1, 4, 8]),  # a few values, so that the readouts' measurements are shared
            "batch": rng.choice([1, 64, 256, rng.randint(1, 256)]),
            "draft": rng.choice(["bigram", "unigram", "same"]),
            "rule": rng.choice(["exact", "typical", "replace_from_p"]),
            "temperature": rng.choice([0, 1]),  # greedy and back (readouts shared, as for gamma)
            "speed": rng.choice(["0.5", "1", "3"]),
            "chapter": rng.randint(1, 5),
        }.get(kind)
        out.append([kind, value])
    return out


# Fires the actions as DOM events, one after another without waiting: the page sees them as
# fast as a reader could possibly act, and the queue has to put them in order.
FIRE = """(actions) => {
    const b = document.getElementById("b");
    const q = (sel) => b.querySelector(sel);
    const input = (el, value, type) => { el.value = String(value); el.dispatchEvent(new Event(type, { bubbles: true })); };
    for (const [kind, value] of actions) {
        if (kind === "gamma" || kind === "batch") input(q(`input[name=${kind}]`), value, "input");
        else if (kind === "draft") input(q("select[name=draft]"), value, "change");
        else if (kind === "speed") input(q("select[name=speed]"), value, "change");
        else if (kind === "temperature") input(q("select[name=temperature]"), value, "change");
        else if (kind === "rule") q(`input[name=rule][value=${value}]`).click();
        else if (kind === "step") q("button.b-step").click();
        else if (kind === "new") q("button.b-new").click();
        else if (kind === "round") q("button.b-round").click();
        else if (kind === "clear") q("button.b-clear").click();
        else if (kind === "play") q("button.b-play").click();
        else window.specdecBench.run([{ type: "round", count: value },  // a chapter's "Try it"
            { type: "step", until: value % 2 ? "rejected" : "all_kept", max: 4 }]);
    }
}"""


def stop_playing(page):
    page.evaluate("() => { window.specdecBench.dispatch({ type: 'pause' }); }")  # awaited by settle, which fails a queue held for good
    settle(page)


def test_rapid_actions_leave_a_state_their_link_reproduces(shared_bench):
    page = shared_bench("en")
    errors = page.errors
    errors.clear()
    checkpoints = []  # (sequence, its link, what the bench showed)
    started, fired = set(), set()
    for seq in range(SEQUENCES):
        rng = random.Random(1000 + seq)
        start = rng.choice(START_LINKS)
        reset(page, start)
        done = random_actions(rng, ACTIONS)
        started.add(start)
        fired.update(kind for kind, _ in done)
        page.evaluate(FIRE, done)
        stop_playing(page)
        state = bench_state(page)
        before = snapshot(page)
        # The address bar, the share link and the controls all say the state.
        query = query_of(page)
        assert before["link"] == "?" + page.url.split("?", 1)[1].split("#")[0], seq
        assert int(query["steps"]) == state["steps"] and int(query["rounds"]) == state["rounds"], seq
        for name, value in state["settings"].items():
            assert query[name] == (("1" if value else "0") if isinstance(value, bool) else str(value)), (seq, name)
        shown = before["controls"]
        assert shown["gamma"] == str(state["settings"]["gamma"]) and shown["batch"] == str(state["settings"]["batch"])
        assert shown["draft"] == state["settings"]["draft"] and shown["rule"] == state["settings"]["rule"]
        assert shown["temperature"] == str(state["settings"]["temperature"]) and before["seed"] == str(state["settings"]["seed"])
        # Loading the link again shows the same bench.
        soft_reload(page)
        assert snapshot(page) == before, (seq, done)
        if seq % 5 == 4:
            checkpoints.append((seq, "?" + urlparse(page.url).query, before))
    page.reload()  # the address bar holds the last sequence's link, a checkpoint's
    page.wait_for_selector(LIVE, timeout=PYODIDE_TIMEOUT_MS)
    settle(page)
    assert checkpoints[-1][0] == SEQUENCES - 1 and snapshot(page) == checkpoints[-1][2]
    for seq, query, before in checkpoints[:-1]:
        reset(page, query)
        assert snapshot(page) == before, seq
    assert not errors, errors
    every_kind = {kind for kind, _ in random_actions(random.Random(0), 1000)}
    assert started == set(START_LINKS) and fired == every_kind, (started, fired)  # the sample holds them all


def accepted_values(p: dict) -> list[str]:
    """Values a link accepts for a parameter, as typed: every choice and boolean spelling, every
    value of a small range, and of a wide one (batch, steps, rounds, the seed) both edges, their
    neighbours, a seeded spread and a zero-padded spelling. Which number each spelling of every
    value means is the sim's job, checked for every value of every range in CPython
    (tests/sim/test_bench_settings.py); here the page's glue carries each kind of value through."""
    if p["kind"] == "choice":
        return p["values"] + [v.upper() for v in p["values"]]
    if p["kind"] == "bool":
        return ["", "1", "0", "true", "false", "yes", "no", "on", "off", "TRUE", "Off"]
    if p["kind"] == "level":  # numbers from a fixed set (temperature, top_p)
        return [str(v) for v in p["values"]] + [f"{float(v):.2f}" for v in p["values"]]
    low, high = p["min"], p["max"]
    if high - low <= 16:
        return [str(v) for v in range(low, high + 1)]
    rng = random.Random(f"link values {p['name']}")
    spread = {rng.randint(low, high) for _ in range(12)}
    past_int32 = [v for v in (2**31,) if low <= v <= high]  # a JavaScript int32 would wrap it
    values = sorted({low, low + 1, high - 1, high, *spread, *past_int32})
    return [str(v) for v in values] + [f"00{low + 1}"]


def test_every_kind_of_accepted_value_of_every_link_parameter(shared_bench):
    """Each loads without a page error or a message, the controls show it, the live region names a
    chosen value as the settings form does, and a following control change updates the address
    bar. The loop runs in the page (one round trip per parameter); it loads each value the way the
    page's start does, and gives up on a load or a queue that does not settle in 20 s (a view that
    throws must not leave every later action waiting)."""
    page = shared_bench("en")
    page.console_errors.clear()
    spec = page.evaluate("() => JSON.parse(document.getElementById('bench-state').textContent).spec")
    for p in spec["parameters"]:
        problems = page.evaluate("""async ([p, values]) => {
            const api = window.specdecBench;
            const b = document.getElementById("b");
            const problems = [];
            const settled = (promise, what) => Promise.race([promise, new Promise((_, fail) =>
                setTimeout(() => fail(new Error(`${what} did not settle in 20 s`)), 20000))]);
            for (const value of values) {
                const query = value === "" ? `?${p.name}` : `?${p.name}=${value}`;
                history.replaceState(history.state, "", location.pathname + query);
                try {
                    await settled(api.run([{ type: "load", query: [...new URLSearchParams(query)] }]), "the load");
                } catch (error) {
                    problems.push(`${query}: ${error.message}`);
                    break;
                }
                const state = api.getState().bench;
                const got = p.role === "setting" ? state.settings[p.name] : state[p.name];
                const wanted = p.kind === "int" || p.kind === "level" ? Number(value) : p.kind === "choice" ? value.toLowerCase() : got;
                if (!b.querySelector(".b-urlerr").hidden) problems.push(`${query}: a message`);
                if (got !== wanted) problems.push(`${query}: the bench holds ${got}`);
                const control = b.querySelector(`[data-setting=${p.name}]:not([type=radio])`);
                if (control && control.type !== "checkbox" && control.value !== String(got)) problems.push(`${query}: the control shows ${control.value}`);
                if (p.name === "rule" && !b.querySelector(`input[name=rule][value=${got}]`).checked) problems.push(`${query}: no radio`);
                const label = b.querySelector(`#b-${p.name} option[value="${got}"], label[for="b-${p.name}-${got}"]`);
                const live = b.querySelector(".b-live");
                if (label && ["draft", "temperature", "rule"].includes(p.name)) {
                    const said = await settled(new Promise((done) => {
                        const look = () => (live.textContent.includes(label.textContent.trim()) ? done(true) : setTimeout(look, 20));
                        look();
                    }), "the summary").catch(() => false);
                    if (!said) problems.push(`${query}: the summary does not say ${label.textContent.trim()}`);
                }
                const batch = state.settings.batch === 2 ? 3 : 2;
                const slider = b.querySelector("input[name=batch]");
                slider.value = String(batch);
                slider.dispatchEvent(new Event("input", { bubbles: true }));
                try {
                    await settled(api.idle(), "the queue");
                } catch (error) {
                    problems.push(`${query}: ${error.message}`);
                    break;
                }
                if (new URLSearchParams(location.search).get("batch") !== String(batch)) problems.push(`${query}: the link kept its batch`);
            }
            return problems;
        }""", [p, accepted_values(p)])
        assert problems == [], (p["name"], problems[:5])
    assert not page.console_errors, page.console_errors


def test_the_queue_replaces_a_waiting_slider_value(shared_bench):
    """A slider dragged fast is applied with its last value, once, in its place in the queue."""
    page = shared_bench("zh")
    reset(page)
    applied = page.evaluate("""async () => {
        const api = window.specdecBench;
        const seen = [];
        const slow = api.dispatch({ type: "step" });
        const values = [2, 3, 4, 5, 6, 7, 8].map((g) => api.dispatch({ type: "set", name: "gamma", value: g }));
        const after = api.dispatch({ type: "new_sentence" });
        const results = await Promise.all([slow, ...values, after]);
        for (const r of results) seen.push(r.state.settings.gamma);
        return seen;
    }""")
    # The first set may already have started; every later one waited and was replaced by 8.
    assert applied[-1] == 8 and applied[-2] == 8
    state = bench_state(page)
    assert state["settings"]["gamma"] == 8 and state["settings"]["seed"] == 2 and state["steps"] == 1


# Animation is a view of the state, never a gate on it. Each claim is checked
# against an animation that cannot end first: the speed action (the page's own control, any factor)
# set to HELD makes a pass's animation take days (and keeps its pauses within setTimeout's range),
# so an action that waited for the animation's end would never be applied, drawn or settled, and
# the test would fail waiting for it. How soon each happens at normal speed is printed by
# benchmarks/responsiveness.py.
HELD = 1e-6

# Every change the views hear, in order, from now until the test's listener is switched off
# (a page shared with later tests keeps its subscribers: this one stops recording).
RECORD_CHANGES = """() => {
    const b = document.getElementById("b");
    const count = b.querySelector(".b-tape-count");
    window.rapid = { on: true, seen: [] };
    window.specdecBench.subscribe((change, state) => window.rapid.on && window.rapid.seen.push({
        kind: change.kind, animated: change.animated ?? null, action: change.action ? change.action.type : null,
        skipped: change.skipped ?? null, steps: state.bench.steps, gamma: state.bench.settings.gamma,
        shown: Number(count.textContent.match(/(\\d+)\\D*$/)[1]), drawn: Number(b.dataset.steps),
        burst: b.querySelector(".b-tape-burst").hidden ? "" : b.querySelector(".b-tape-burst").textContent }));
}"""

# The passes the tape counts (the last number of its count) and the bench's steps, now.
SHOWN_AND_STATE = """() => {
    const b = document.getElementById("b");
    return { shown: Number(b.querySelector(".b-tape-count").textContent.match(/(\\d+)\\D*$/)[1]),
             drawn: Number(b.dataset.steps), steps: window.specdecBench.getState().bench.steps,
             animating: b.dataset.animating };
}"""


def behind(seen: list[dict]) -> list[dict]:
    """The drawings (a pass told, a state drawn) whose tape is more than one pass behind the state.
    A pass skipped is drawn in the task that tells the next one, with no paint between: not counted."""
    return [c for c in seen if (c["kind"] == "pass" or c["kind"] == "drawn" and not c["skipped"]) and c["steps"] - c["shown"] > 1]


# 50 clicks on One step, about 36 ms apart (as fast as a reader clicks), then gamma moved to 5
# as the last click lands.
CLICK_50_THEN_GAMMA = """async () => {
    const b = document.getElementById("b");
    const step = b.querySelector("button.b-step");
    await Promise.all(Array.from({ length: 50 }, (_, i) => new Promise((resolve) => setTimeout(() => { step.click(); resolve(); }, i * 36))));
    window.rapid.clicked = window.rapid.seen.length;
    const gamma = b.querySelector("input[name=gamma]");
    gamma.value = "5";
    gamma.dispatchEvent(new Event("input", { bubbles: true }));
}"""

# gamma 5 in the bench, its readouts, the tape and the machine's data: the change is drawn.
GAMMA_5_SHOWN = """() => {
    const b = document.getElementById("b");
    const s = window.specdecBench.getState();
    const ro = s.view.readouts;
    return s.bench.settings.gamma === 5 && ro && ro.settings.gamma === 5 && b.querySelector(".b-measuring").hidden
        && b.dataset.steps === "1" && b.querySelector(".b-tape-count").textContent.endsWith(": 1");
}"""

# Ten clicks, then Pause: the first click's pass is computed, the nine waiting are dropped.
TEN_CLICKS_THEN_PAUSE = """async () => {
    const api = window.specdecBench;
    const b = document.getElementById("b");
    const before = api.getState().bench.steps;
    for (let i = 0; i < 10; i++) b.querySelector("button.b-step").click();
    await api.dispatch({ type: "pause" });
    await api.idle();
    return { passes: api.getState().bench.steps - before, animating: b.dataset.animating };
}"""

# Try-it 04 ("Step until every guess is kept"), pressed: resolves with what the page showed as its
# answer appeared (the pass's animation, the changes the views had heard by then).
TRY_04_ANSWERED = """() => {
    const box = document.querySelector("#verify .try");
    const b = document.getElementById("b");
    window.rapid.from = window.rapid.seen.length;
    window.rapid.answered = new Promise((done) => box.addEventListener("specdec:tryit", () => done({
        state: box.dataset.state, animating: b.dataset.animating,
        changes: window.rapid.seen.slice(window.rapid.from) }), { once: true }));
    box.querySelector(".try__button").click();
}"""

# The answer not shown yet, read in a task after the queue went idle (an answer that did not wait
# for the drawing would be shown by then: it follows the Try-it's last action within its task).
TRY_04_WAITING = """() => new Promise((resolve) => setTimeout(() => {
    const box = document.querySelector("#verify .try");
    resolve({ state: box.dataset.state, hidden: box.querySelector(".try__answer").hidden });
}, 0))"""


def speed(page, value: float):
    page.evaluate("(value) => window.specdecBench.dispatch({ type: 'speed', value })", value)


def test_the_bench_answers_at_once_however_fast_the_reader_clicks(shared_bench):
    """Animation is a view of the state, never a gate on it: with every pass's
    animation held (HELD), 50 fast clicks are each applied and a slider moved as the last lands is
    drawn and the queue goes idle, all while the last pass is still animating; Pause drops what
    waits; a speed chosen while a pass animates applies to that pass, which then ends; Try-it 04 is
    one act whose answer waits until its pass is drawn to its end."""
    page = shared_bench("en")
    # gamma 5's readouts measured once first (the session caches them), as in a reader's session
    reset(page, "?gamma=5")
    reset(page)
    page.emulate_media(reduced_motion="no-preference")
    try:
        page.evaluate(RECORD_CHANGES)
        speed(page, HELD)
        page.evaluate(CLICK_50_THEN_GAMMA)
        page.wait_for_function(GAMMA_5_SHOWN, timeout=PYODIDE_TIMEOUT_MS)
        settle(page)  # the queue goes idle with the pass's animation still held
        seen = page.evaluate("() => window.rapid.seen")
        clicks = seen[:page.evaluate("() => window.rapid.clicked")]
        most = max(c["steps"] for c in seen)
        assert most == 51, seen  # every click's pass was applied (the start's pass and 50)
        assert any(c["kind"] == "pass" and c["animated"] for c in clicks), clicks  # the clicks' passes animate
        assert not behind(seen), behind(seen)  # each skipped to the next: the tape one pass behind at most
        assert not any(c["kind"] == "drawn" and c["animated"] for c in seen), seen  # and none reached its end
        assert page.locator("#b").get_attribute("data-animating") == "false"  # the gamma change cut it short

        paused = page.evaluate(TEN_CLICKS_THEN_PAUSE)
        assert paused == {"passes": 1, "animating": "false"}, paused

        # A speed chosen while a pass animates applies to it: held, the pass ends only once the
        # reader's speed (3) is read by its next frame.
        mark = page.evaluate("() => window.rapid.seen.length")
        page.locator("#b button.b-step").click()
        page.wait_for_selector("#b[data-animating=true]", state="attached", timeout=PYODIDE_TIMEOUT_MS)
        speed(page, 3)
        page.wait_for_selector("#b[data-animating=false]", state="attached", timeout=PYODIDE_TIMEOUT_MS)
        after = [(c["kind"], c["animated"], c["action"]) for c in page.evaluate("() => window.rapid.seen")[mark:]]
        chosen = after.index(("ui", None, "speed"))
        ended = ("drawn", True, None)  # the pass drawn to its end by its animation (not cut short)
        assert ended not in after[:chosen] and ended in after[chosen:], after

        # A Try-it's answer waits for the bench to show what it describes: held, its pass
        # animates, the queue goes idle, and the answer is not there; at the reader's speed (3) the
        # pass ends and then the answer shows.
        speed(page, HELD)
        page.evaluate(TRY_04_ANSWERED)
        page.wait_for_selector("#b[data-animating=true]", state="attached", timeout=PYODIDE_TIMEOUT_MS)
        settle(page)
        assert page.evaluate(TRY_04_WAITING) == {"state": "running", "hidden": True}
        speed(page, 3)
        try04 = page.evaluate("() => window.rapid.answered")
        assert try04["state"] == "done" and try04["animating"] == "false", try04
        acts = [c["action"] for c in try04["changes"] if c["kind"] == "act"]
        assert acts == ["load", "step"], try04  # the until is one act (a link's load comes first)
        passes = [c for c in try04["changes"] if c["kind"] == "pass"]
        assert [p["animated"] for p in passes][-1] is True, passes  # its one pass animated
        assert any(c["kind"] == "drawn" and c["animated"] for c in try04["changes"]), try04  # to its end, first
    finally:
        # the speed back to normal behind whatever is queued (not waited for: a queue held by a
        # failure here is reported by the settle below, not hung on)
        page.evaluate("() => { window.rapid.on = false; window.specdecBench.dispatch({ type: 'speed', value: 1 }); }")
        page.emulate_media(reduced_motion="reduce")
        stop_playing(page)
    assert not page.console_errors, page.console_errors


PRESSES = 4


def test_the_view_keeps_up_with_quick_presses(shared_bench):
    """What is shown is never more than one pass behind the state: each of
    PRESSES presses of One step lands while the pass before it animates (held): that pass is
    skipped to its end at once and the new one animates, the tape and the drawn marks showing the
    state without it; the last, let run (speed 3), ends with the tape at the state. Clicks faster
    than the worker answers (one act of several passes) keep the tape within a pass as well."""
    page = shared_bench("en")
    reset(page)
    page.emulate_media(reduced_motion="no-preference")
    try:
        page.evaluate(RECORD_CHANGES)
        speed(page, HELD)
        start = page.evaluate(SHOWN_AND_STATE)["steps"]
        for i in range(1, PRESSES + 1):
            page.locator("#b button.b-step").click()
            page.wait_for_function(f"""() => window.specdecBench.getState().bench.steps === {start + i}
                && document.getElementById("b").dataset.animating === "true" """, timeout=PYODIDE_TIMEOUT_MS)
            now = page.evaluate(SHOWN_AND_STATE)
            assert now["shown"] == now["drawn"] == now["steps"] - 1, (i, now)
        speed(page, 3)
        page.wait_for_selector("#b[data-animating=false]", state="attached", timeout=PYODIDE_TIMEOUT_MS)
        now = page.evaluate(SHOWN_AND_STATE)
        assert now["shown"] == now["drawn"] == now["steps"] == start + PRESSES, now
        speed(page, HELD)
        page.evaluate("() => { const step = document.querySelector('#b button.b-step'); for (let i = 0; i < 6; i++) step.click(); }")
        page.wait_for_function(f"() => window.specdecBench.getState().bench.steps === {start + PRESSES + 6}", timeout=PYODIDE_TIMEOUT_MS)
        settle(page)
        seen = page.evaluate("() => window.rapid.seen")
        assert not behind(seen), behind(seen)
        assert page.evaluate(SHOWN_AND_STATE)["shown"] == start + PRESSES + 5
    finally:
        page.evaluate("() => { window.rapid.on = false; window.specdecBench.dispatch({ type: 'speed', value: 1 }); }")
        page.emulate_media(reduced_motion="reduce")
        stop_playing(page)
    assert not page.console_errors, page.console_errors


def test_reduced_motion_animates_nothing(shared_bench):
    """Under reduced motion a press, quick presses and a Try-it draw their state at once: no pass is
    told as animated, the page runs no animation or transition, and the tape shows the state."""
    page = shared_bench("en")
    reset(page)
    page.evaluate(RECORD_CHANGES)
    try:
        page.evaluate("() => { const step = document.querySelector('#b button.b-step'); for (let i = 0; i < 3; i++) step.click(); }")
        settle(page)
        page.locator("#verify .try__button").click()
        page.wait_for_selector("#verify .try[data-state=done]", timeout=PYODIDE_TIMEOUT_MS)
        settle(page)
        seen = page.evaluate("() => window.rapid.seen")
        told = [c for c in seen if c["kind"] == "pass"]
        assert told and not any(c["animated"] for c in told), told
        assert page.evaluate("() => document.getAnimations().length") == 0
        now = page.evaluate(SHOWN_AND_STATE)
        assert now["shown"] == now["steps"] and now["animating"] == "false", now
    finally:
        page.evaluate("() => { window.rapid.on = false; }")


def test_a_view_that_throws_is_reported_and_the_bench_goes_on(shared_bench):
    """A listener that throws (say, a summary given a rule it does not know) is reported as the
    page's error, and the actions after it still run: the store's queue never stays 'running' with
    every later action waiting behind it."""
    page = shared_bench("en")
    reset(page)
    page.console_errors.clear()
    steps = page.evaluate("""async () => {
        const api = window.specdecBench;
        let armed = true;
        api.subscribe((change) => {
            if (armed && change.kind === "done") { armed = false; throw new Error("a view's bug"); }
        });
        const within = (p) => Promise.race([p, new Promise((_, no) => setTimeout(() => no(new Error("wedged")), 20000))]);
        await within(api.run([{ type: "step" }]));
        await within(api.run([{ type: "step" }]));
        await within(api.idle());
        return api.getState().bench.steps;
    }""")
    errors, page.console_errors[:] = list(page.console_errors), []
    assert steps == 3
    assert any("a view's bug" in e for e in errors), errors


def test_a_draft_without_a_model_goes_live_steps_and_shows_acceptance_by_position(shared_bench):
    """?draft=lookup with a prompt the text repeats: the link is kept, the prompt is shown, and after
    steps the readouts show, per position 1..gamma, the share of the passes with a guess that kept it
    (the view's so_far, as the sim counted the tape), and the free source's own readouts (c = 0)."""
    page = shared_bench("en")
    reset(page, "?draft=lookup&prompt=echo&gamma=4")
    assert query_of(page)["draft"] == "lookup" and query_of(page)["prompt"] == "echo"
    run(page, [{"type": "step", "count": 12}])
    settle(page)
    state = page.evaluate("() => window.specdecBench.getState()")
    sf, ro = state["view"]["so_far"], state["view"]["readouts"]
    assert state["bench"]["settings"]["draft"] == "lookup" and sf["passes"] == 13 and sf["drafts"] >= 1
    assert ro["free"] and ro["c"] == 0 and ro["settings"]["draft"] == "lookup"
    shown = page.locator(".b-by-position .b-bp:not([hidden]) .b-bp-value").all_inner_texts()
    assert [float(x.rstrip("%")) for x in shown] == pytest.approx([100 * x for x in sf["accepted_by_position"]], abs=0.06)
    assert str(sf["drafts"]) in page.locator(".b-bp-of").inner_text()
    assert page.locator(".b-by-position .b-bp[hidden]").count() == 4  # positions 5..8: gamma is 4
    prompt = page.locator(".b-prompt-text")
    assert prompt.get_attribute("hidden") is None and "chorus again" in prompt.text_content().lower()
    assert page.locator(".b-tabpanel--tubes .b-free-note").get_attribute("hidden") is None
    assert page.locator(".b-tabpanel--readouts .b-speedup-label").inner_text().endswith("c = 0")
    # The prompt menu shows for the drafts its setting names (the spec's "drafts"), and for no other.
    assert page.locator(".b-field--prompt").get_attribute("data-drafts") == "lookup suffix"
    assert page.locator(".b-field--prompt").get_attribute("hidden") is None
    run(page, [{"type": "set", "name": "draft", "value": "bigram"}])
    settle(page)
    assert page.locator(".b-field--prompt").get_attribute("hidden") is not None
    page.console_errors.clear()
