"""The race and the GPU and model pickers in the page.

One page per language, in a context that lets the test inject axe-core. The race's numbers come
from the worker (Pyodide); the tests check them against sim.roofline recomputed here in CPython
from what the page's tape shows, and against the same state replayed by the CPython sim.
"""

from __future__ import annotations

import json
import re

import pytest
from helpers.benchpage import PYODIDE_TIMEOUT_MS, bench_state, query_of, reset, settle

from sim import roofline as rl
from sim.bench import DRAFT_COST
from sim.session import Session

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def race_page(live_pages):
    """Live pages with axe-core in them (the session's: conftest.LivePages), the race's tab open
    (a tab beside the machine)."""
    return live_pages.for_module("axe", prepare=show_race)


def show_race(page):
    """Settings open their own part's tab (the draft opens the readouts): the race tab is opened again."""
    page.click("#b-tab-race")


def reset_race(page, query: str = ""):
    reset(page, query)  # which opens the readouts tab
    show_race(page)


def run_race(page):
    show_race(page)
    page.click("#b .r-go")
    page.wait_for_selector('#b[data-steps="40"][data-busy="false"]', timeout=PYODIDE_TIMEOUT_MS)
    settle(page)


def race_of(page) -> dict:
    return page.evaluate("() => window.specdecBench.getState().view.race")


def shown_finish(page) -> dict:
    cells = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('#b .r-table tbody tr')]
        .map((tr) => [tr.dataset.lane, tr.querySelector('.r-finish').textContent]))""")
    return {lane: float(re.sub(r"[^0-9.]", "", text)) for lane, text in cells.items()}


def roofline_finish(settings: dict, tokens: int, passes: int) -> tuple[float, float]:
    """Plain and speculative finishing times (ms) from sim.roofline alone."""
    g, m, batch, gamma = rl.gpu(settings["gpu"]), rl.model(settings["model"]), settings["batch"], settings["gamma"]

    def pass_ms(lanes):
        return max(rl.step_seconds(g, m, batch), lanes * m.flops_per_token / g.flops) * 1e3

    return tokens * pass_ms(batch), passes * pass_ms(batch * (gamma + 1)) * (1 + gamma * DRAFT_COST)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("query, winner", [("?gamma=4", "speculative"), ("?draft=unigram&gamma=8", "plain")])
def test_the_race_finishes_at_the_rooflines_times(race_page, sim_languages, lang, query, winner):
    page = race_page(lang)
    reset_race(page, query + "&steps=3")
    run_race(page)
    state = bench_state(page)
    assert state["steps"] == 40  # "Run the race" stepped the tape to 40 passes
    race = race_of(page)
    tape = page.evaluate("() => window.specdecBench.getState().view.tape")
    assert race["tokens"] == tape["written"] and race["spec"]["passes"] == tape["passes"] == 40
    plain, spec = roofline_finish(state["settings"], tape["written"], tape["passes"])
    assert race["plain"]["finish_ms"] == pytest.approx(plain, rel=1e-12)
    assert race["spec"]["finish_ms"] == pytest.approx(spec, rel=1e-12)
    assert shown_finish(page) == {"plain": round(plain, 1), "spec": round(spec, 1)}
    assert race["winner"] == winner
    # The worker's race is the CPython sim's for the same state.
    cpython = json.loads(Session(sim_languages[lang]).handle("view", json.dumps({"state": state, "measure": False})))
    assert cpython["result"]["race"] == race
    # Both lanes show the same text at the end, and the summary and the live region say who won.
    texts = page.locator("#b .r-text").all_text_contents()
    assert texts[0] == texts[1] and texts[0]
    summary = page.locator("#b .r-summary")
    assert summary.get_attribute("data-winner") == winner
    speedup = race["speedup"] if winner == "speculative" else 1 / race["speedup"]
    number = f"{speedup:.2f}"
    assert number in summary.text_content()
    page.wait_for_function("(n) => document.querySelector('#b .b-live').textContent.includes(n)", arg=number)
    assert page.locator("#b .r-flag--plain").get_attribute("class").split().count("b-off") == 0
    assert not page.errors


def test_switching_gpu_and_model_updates_readouts_race_and_link(race_page):
    page = race_page("en")
    reset_race(page, "?steps=10")
    before = race_of(page)
    hardware = page.locator("#b .b-rf-hardware")
    assert hardware.text_content() == "Llama 3.1 8B on NVIDIA H100 SXM"
    page.select_option("#r-gpu", "a100-80gb-sxm")
    settle(page)
    assert query_of(page)["gpu"] == "a100-80gb-sxm" and bench_state(page)["steps"] == 10
    assert hardware.text_content() == "Llama 3.1 8B on NVIDIA A100 80GB SXM"
    a100, m8 = rl.gpu("a100-80gb-sxm"), rl.model("llama-3.1-8b")
    assert page.locator("#b .b-tps-plain-weights").text_content() == f"{rl.tokens_per_second(a100, m8):,.0f}"
    after = race_of(page)
    assert after["tokens"] == before["tokens"]  # the same text, priced on another GPU
    assert after["plain"]["finish_ms"] == pytest.approx(before["plain"]["finish_ms"] * 3.35 / 2.039, rel=1e-12)
    assert page.locator("#b .r-gpus tr.r-picked").get_attribute("data-key") == "a100-80gb-sxm"
    assert page.locator("#b .r-fit").is_hidden()

    page.select_option("#r-model", "llama-3.1-70b")
    settle(page)
    assert query_of(page)["model"] == "llama-3.1-70b"
    assert hardware.text_content() == "Llama 3.1 70B on NVIDIA A100 80GB SXM"
    assert page.locator("#b .r-fit").is_visible()  # 141 GB of weights, 80 GB of memory
    m70 = rl.model("llama-3.1-70b")
    plain, _ = roofline_finish(bench_state(page)["settings"], after["tokens"], 10)
    assert shown_finish(page)["plain"] == round(plain, 1)
    assert page.locator("#b .b-tps-plain-weights").text_content() == f"{rl.tokens_per_second(a100, m70):,.0f}"
    page.wait_for_function("() => document.querySelector('#b .b-live').textContent.includes('Llama 3.1 70B')")

    # A link carries both, and the pickers show them.
    reset_race(page, "?gpu=h200-sxm&model=llama-3.1-70b")
    assert page.locator("#r-gpu").input_value() == "h200-sxm"
    assert page.locator("#r-model").input_value() == "llama-3.1-70b"
    assert page.locator("#b .r-fit").is_visible()  # 141.1 GB do not fit in 141 GB either
    assert "141.1 GB" in page.locator("#b .r-fit").text_content()
    reset_race(page, "?gpu=h200-sxm&model=llama-3.1-8b")
    assert page.locator("#b .r-fit").is_hidden()
    assert not page.errors


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_row_is_shown_with_its_figures_and_source(race_page, lang):
    page = race_page(lang)
    reset_race(page)
    page.click("#b .r-rows summary")
    for key, g in rl.GPUS.items():
        row = page.locator(f'#b .r-gpus tr[data-key="{key}"]')
        cells = row.locator("td").all_text_contents()
        assert row.locator("th").text_content().endswith(g.name)
        assert float(cells[0]) == float(f"{g.bandwidth / 1e12:.3g}") and float(cells[1]) == round(g.flops / 1e12, 1)
        assert cells[3] == f"{rl.ms_per_token(g, rl.model(rl.DEFAULT_MODEL)):.2f}"
        for source in g.sources:
            assert row.locator(f'a[href="#src-{source}"]').count() == 1
            assert page.locator(f"#src-{source}").count() == 1
    for key, m in rl.MODELS.items():
        row = page.locator(f'#b .r-models tr[data-key="{key}"]')
        cells = row.locator("td").all_text_contents()
        assert cells[0] == f"{m.parameters.embedding / 1e9:,.2f}" and cells[2] == f"{m.parameters.output / 1e9:,.2f}"
        assert cells[3] == f"{m.published_params:,}"
        for source in m.sources:
            assert row.locator(f'a[href="#src-{source}"]').count() == 1 and page.locator(f"#src-{source}").count() == 1
    assert page.locator("#r-gpu option").count() == len(rl.GPUS)
    assert page.locator("#r-model option").count() == len(rl.MODELS)


def test_the_clock_runs_with_motion_and_axe_is_clean(race_page):
    page = race_page("zh")
    reset_race(page, "?steps=40&model=llama-3.1-70b")
    page.click("#b .r-rows summary")
    page.emulate_media(reduced_motion="no-preference")
    try:
        page.click("#b .r-go")
        page.wait_for_selector("#b .r-hand:not(.b-off)", state="attached", timeout=10_000)
        tokens = race_of(page)["tokens"]
        counts = page.locator("#b .r-count").all_text_contents()
        assert all(int(c) < tokens for c in counts)  # mid-race: neither lane is done
        page.wait_for_selector("#b .r-hand.b-off", state="attached", timeout=30_000)
        assert page.locator("#b .r-count").all_text_contents() == [str(tokens)] * 2
    finally:
        page.emulate_media(reduced_motion="reduce")
    violations = page.evaluate("""async () => (await axe.run(document.querySelector('#b .r-panel'), {
        resultTypes: ['violations'] })).violations
        .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)""")
    assert not violations
    assert not page.errors
