"""The same seed gives the same speculative trace in CPython and in Pyodide,
on both ways the worker starts Python: from the language's memory snapshot, and the
fallback without it (trimmed precompiled stdlib, sim's wheel through loadPackage). The fallback is
taken on a first visit whose snapshot is blocked: it says so (a warning, its stage's mark), fetches
the wheel and the model, and the bench's own step then runs on it.

The readouts too: the snapshot's session opens with the build's table (CPython's measurements
of the default settings' readouts, the page's first picture), the fallback's measures in Pyodide
as it goes; every other setting is measured in Pyodide on first use. All give CPython's
numbers; only the snapshot's answers the default settings without having measured them, and
neither answers a setting it has not been asked before without measuring. The readouts are
compared on one language per start path (en from the snapshot, zh on the fallback): measuring
them is most of this module's time, and the code that measures is the same for both languages."""

import json

import pytest

from helpers.benchpage import DEBUG_MODULE
from sim.session import open_session

pytestmark = [pytest.mark.browser, pytest.mark.long(30),
              pytest.mark.adapter("restoreSnapshot", "startPython", "installPackage", "withPrecompiledWasm", "watchFetches")]

CASES = [
    {"draft": draft, "gamma": gamma, "temperature": temperature, "seed": seed}
    for draft, gamma, temperature, seed in [
        ("bigram", 4, 1, 1), ("bigram", 8, 1, 2024), ("unigram", 3, 1, 7),
        ("same", 4, 1, 11), ("bigram", 4, 0, 5), ("unigram", 1, 1, 99),
    ]
] + [{"candidates": 3, "temperature": 0.7, "top_p": 0.9, "seed": 3}]  # a tree, tempered

# The default settings (the build's table), then settings the page has not measured at start
# (a new draft, gamma and mode each: measured in Pyodide).
READOUT_CASES = [{}, {"draft": "unigram", "gamma": 7}, {"draft": "same", "gamma": 2, "temperature": 0},
                 {"gamma": 5, "rule": "typical"}]

READOUTS_ON = {("en", "snapshot"), ("zh", "wheel")}  # (language, start path)

# Runs in the page, through the page's own worker (the bench's public API passes a raw call on);
# `via` is how that worker started Python (sim-start.js holds the page's one client; the debug hooks' module exports it). `unasked`:
# the readouts a view may give without measuring (measure: false) at settings not asked before.
RUN_IN_PYODIDE = """async ([cases, prefix, readoutCases]) => {
  const api = window.specdecBench;
  await api.idle();
  const start = await import(DEBUG_MODULE);
  const python = await api.call('python', {});
  const traces = [];
  for (const c of cases) traces.push(await api.call('step', { ...c, prefix }));
  const state = api.getState().bench;
  const unasked = [], readouts = [];
  for (const c of readoutCases) {
    const view = await api.call('view', { state: { ...state, settings: { ...state.settings, ...c } }, measure: false });
    unasked.push(view.readouts);
    readouts.push(await api.call('readouts', { ...state.settings, ...c }));
  }
  return { python, via: start.simClient().via, traces, settings: state.settings, unasked, readouts };
}""".replace("DEBUG_MODULE", DEBUG_MODULE)

# The page's own client's answer to the start command.
CLIENT_START = """async ([prefix]) => (await import(DEBUG_MODULE)).simClient().call('start', { prefix })""".replace(
    "DEBUG_MODULE", DEBUG_MODULE)


def model_text(built_site, lang) -> str:
    return (built_site / "models" / f"{lang}.json").read_text(encoding="utf-8")


@pytest.mark.parametrize("via", ["snapshot", "wheel"])
@pytest.mark.parametrize("lang,prefix", [("en", "said the"), ("zh", "慢慢")])
def test_same_seed_same_trace_in_cpython_and_pyodide(new_page, shared_bench, site_url, built_site, lang, prefix, via):
    readout_cases = READOUT_CASES if (lang, via) in READOUTS_ON else []
    if via == "snapshot" and not readout_cases:
        page = shared_bench(lang)  # the session's live page: it started from the snapshot
    else:  # a first visit: the readouts a page has not measured yet, or a start on the fallback
        page = new_page()
        requests, warnings = [], []
        page.on("request", lambda r: requests.append(r.url))
        page.on("console", lambda m: m.type == "warning" and warnings.append(m.text))
        if via == "wheel":  # no snapshot: the page's worker takes the fallback
            page.route("**/*.snapshot.xz", lambda route: route.abort())
        page.goto(f"{site_url}{lang}/specdec/")
        page.wait_for_selector("#b[data-mode=live]", timeout=120_000)
        if via == "wheel":  # what the blocked snapshot's fallback says and fetches on its way
            assert any(u.endswith(".whl") for u in requests) and any(f"/models/{lang}.json" in u for u in requests)
            assert page.evaluate("performance.getEntriesByName('specdec:stage-fallback').length") == 1
            assert any("installing the sim wheel instead" in w for w in warnings), warnings
            assert not page.console_errors, page.console_errors
            if lang == "en":  # the start command and the bench's own step (below): one language is enough
                start = page.evaluate(CLIENT_START, [prefix])
                in_cpython = open_session(model_text(built_site, lang)).handle("start", json.dumps({"prefix": prefix}))
                assert start == json.loads(in_cpython)["result"]
    got = page.evaluate(RUN_IN_PYODIDE, [CASES, prefix, readout_cases])
    assert got["via"] == via
    assert got["python"]["platform"] == "emscripten"
    session = open_session(model_text(built_site, lang))
    for case, in_browser in zip(CASES, got["traces"]):
        in_cpython = json.loads(json.dumps(session.step({**case, "prefix": prefix})))
        assert in_browser.pop("python")["platform"] == "emscripten"
        assert in_cpython.pop("python")["platform"] != "emscripten"
        assert in_browser == in_cpython, case
    assert len(got["readouts"]) == len(readout_cases)
    for case, unasked, in_browser in zip(readout_cases, got["unasked"], got["readouts"]):
        in_cpython = json.loads(json.dumps(session.bench.readouts({**got["settings"], **case})))  # measured here
        assert in_browser == in_cpython, case
        if case:
            assert unasked is None, case  # not in the table: measured in Pyodide, below
        elif via == "snapshot":
            assert unasked == in_cpython  # from the table, though the live page never measured them
    if (lang, via) == ("en", "wheel"):  # the bench works on the fallback: its own step runs in Pyodide
        page.locator("#b button.b-step").click()
        page.wait_for_selector("#b[data-platform=emscripten][data-steps='2']")
        assert not page.console_errors, page.console_errors
