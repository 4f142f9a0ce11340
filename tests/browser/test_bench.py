"""The bench, used the way a reader uses it: controls, keyboard, links, and the test tubes."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest

from sim.stats import chi_square_critical, chi_square_statistic

pytestmark = pytest.mark.browser

PYODIDE_TIMEOUT_MS = 90_000
FALSE_FAILURE = 1e-6  # chance that a correct sampler fails the chi-square check below
TUBE_ROUNDS = 40  # 40 x 50 = 2,000 draws in each tube


def open_bench(page, url):
    page.goto(url)
    page.wait_for_selector("#b[data-mode=live][data-busy=false]", timeout=PYODIDE_TIMEOUT_MS)


def settle(page, timeout=60_000):
    """Wait until the bench has done everything asked of it (debounced sliders included)."""
    page.wait_for_timeout(400)
    page.wait_for_selector("#b[data-busy=false]", timeout=timeout)


def number(page, selector):
    text = page.locator(selector).inner_text()
    return float(re.sub(r"[^0-9.]", "", text.replace(",", "")))


def tape_text(page):
    return page.locator("#b .b-tape .b-tok__text").all_inner_texts()


def tube_counts(page):
    rows = page.locator("#b .b-tube-table tbody tr")
    p, target, spec, kept, written = [], [], [], [], []
    for i in range(rows.count()):
        row = rows.nth(i)
        p.append(float(row.get_attribute("data-p")))
        target.append(int(row.locator(".b-n-target").inner_text()))
        k = int(row.locator(".b-n-kept").inner_text())
        w = int(row.locator(".b-n-written").inner_text())
        kept.append(k)
        written.append(w)
        spec.append(k + w)
    return p, target, spec, kept, written


def chi_square_passes(observed, p):
    statistic, df = chi_square_statistic(observed, p)
    return statistic <= chi_square_critical(df, FALSE_FAILURE), statistic, df


def test_unigram_draft_lowers_alpha(page, site_url):
    open_bench(page, f"{site_url}en/specdec/")
    bigram = number(page, "#b .b-alpha")
    page.select_option("#b select[name=draft]", "unigram")
    settle(page)
    assert "draft=unigram" in page.url
    unigram = number(page, "#b .b-alpha")
    assert unigram < bigram, (unigram, bigram)
    assert not page.console_errors, page.console_errors


def test_gamma_eight_raises_tokens_per_pass(page, site_url):
    open_bench(page, f"{site_url}zh/specdec/")
    at_four = number(page, "#b .b-tpp-counted")
    page.locator("#b input[name=gamma]").fill("8")
    settle(page)
    assert page.locator("#b output[name=gamma_out]").inner_text() == "8"
    assert "gamma=8" in page.url
    assert number(page, "#b .b-tpp-counted") > at_four
    assert number(page, "#b .b-tpp-formula") > 0
    # the machine lights gamma + 1 lanes in the pass it just drew
    assert page.locator("#b .b-lane.b-lit").count() == 9


def test_greedy_with_the_same_seed_repeats_the_tape(page, site_url):
    url = f"{site_url}en/specdec/?greedy=1&seed=7"
    tapes = []
    for _ in range(2):
        open_bench(page, url)
        for _ in range(4):
            page.locator("#b button.b-step").click()
            settle(page)
        tapes.append(tape_text(page))
    assert tapes[0] == tapes[1]
    assert len(tapes[0]) >= 2 + 5  # the sentence start and at least one token per pass


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_tubes_converge_to_p(page, site_url, lang):
    open_bench(page, f"{site_url}{lang}/specdec/?seed=11&rounds={TUBE_ROUNDS}")
    p, target, spec, kept, written = tube_counts(page)
    assert sum(target) == sum(spec) == TUBE_ROUNDS * 50
    assert sum(kept) > 0 and sum(written) > 0  # the tube marks both kinds of draw
    for observed in (target, spec):
        ok, statistic, df = chi_square_passes(observed, p)
        assert ok, (lang, observed, p, statistic, df)


def test_relaxed_rule_drifts(page, site_url):
    open_bench(page, f"{site_url}en/specdec/?seed=11&rounds={TUBE_ROUNDS}&rule=typical")
    assert page.locator("#b .b-rule-warning").is_visible()
    assert "NOT exact" in page.locator("#b form.b-controls").inner_text()
    p, target, spec, _, _ = tube_counts(page)
    assert chi_square_passes(target, p)[0]
    ok, statistic, df = chi_square_passes(spec, p)
    assert not ok, (spec, p, statistic, df)


def test_bench_works_from_the_keyboard_alone(page, site_url):
    open_bench(page, f"{site_url}en/specdec/")
    wanted = {
        "button.b-play", "button.b-step", "button.b-new", "select[name=draft]", "input[name=gamma]",
        "input[name=batch]", "select[name=speed]", "input[name=greedy]", "input[name=rule]",
        "button.b-round", "button.b-clear",
    }
    page.locator("#b .b-title").click()  # start tabbing from the bench's heading
    reached = set()
    for _ in range(60):
        page.keyboard.press("Tab")
        hit = page.evaluate(
            "(names) => names.find((n) => document.activeElement && document.activeElement.matches('#b ' + n))",
            sorted(wanted),
        )
        if hit:
            reached.add(hit)
        if hit == "button.b-step":
            page.keyboard.press("Enter")
            settle(page)
            assert page.locator("#b").get_attribute("data-steps") == "2"
        elif hit == "input[name=gamma]":
            page.keyboard.press("ArrowRight")
            settle(page)
            assert page.locator("#b output[name=gamma_out]").inner_text() == "5"
        elif hit == "input[name=greedy]":
            page.keyboard.press("Space")
            settle(page)
            assert "greedy=1" in page.url
        elif hit == "button.b-round":
            page.keyboard.press("Enter")
            settle(page)
        if reached == wanted:
            break
    assert reached == wanted, wanted - reached
    assert "rounds=2" in page.url
    # the readouts reach screen readers through a live region
    live = page.locator("#b [aria-live=polite]")
    assert live.count() == 1
    page.wait_for_function("() => document.querySelector('#b [aria-live=polite]').textContent.length > 0")


def test_url_state_survives_a_reload(page, site_url):
    open_bench(page, f"{site_url}zh/specdec/")
    page.select_option("#b select[name=draft]", "same")
    settle(page)
    page.locator("#b input[name=gamma]").fill("6")
    settle(page)
    page.locator("#b input[name=batch]").fill("64")
    settle(page)
    for _ in range(2):
        page.locator("#b button.b-step").click()
        settle(page)
    page.locator("#b button.b-round").click()
    settle(page)
    page.locator("#b button.b-new").click()  # a new seed: new sentence, tubes redrawn under it
    settle(page)
    page.locator("#b button.b-step").click()
    settle(page)
    query = parse_qs(urlparse(page.url).query)
    assert query["seed"] == ["2"] and query["rounds"] == ["2"] and query["steps"] == ["2"]
    assert query["draft"] == ["same"] and query["gamma"] == ["6"] and query["batch"] == ["64"]
    before = (tape_text(page), tube_counts(page), page.locator("#b .b-readouts").inner_text())
    page.reload()
    page.wait_for_selector("#b[data-mode=live][data-busy=false]", timeout=PYODIDE_TIMEOUT_MS)
    after = (tape_text(page), tube_counts(page), page.locator("#b .b-readouts").inner_text())
    assert before == after
    assert page.locator("#b select[name=draft]").input_value() == "same"
    assert page.locator("#b input[name=batch]").input_value() == "64"
    assert page.locator("#b .b-urlerr").is_hidden()
    # alpha is 1 with the target as its own draft
    assert number(page, "#b .b-alpha") == 1.0


def test_bad_url_parameters_are_named_and_defaults_used(page, site_url):
    open_bench(page, f"{site_url}en/specdec/?gamma=99&draft=trigram&batch=12")
    box = page.locator("#b .b-urlerr")
    assert box.is_visible()
    text = box.inner_text()
    assert "gamma" in text and "99" in text
    assert "draft" in text and "trigram" in text
    assert page.locator("#b input[name=gamma]").input_value() == "4"
    assert page.locator("#b select[name=draft]").input_value() == "bigram"
    assert page.locator("#b input[name=batch]").input_value() == "12"  # the good one is kept
    assert not page.console_errors, page.console_errors


@pytest.mark.parametrize("breakage", ["no-webassembly", "no-worker"])
def test_without_python_the_picture_stays_with_a_message(page, site_url, breakage):
    if breakage == "no-webassembly":
        page.add_init_script("delete window.WebAssembly")
    else:
        page.route("**/sim-worker.js*", lambda route: route.abort())
    page.goto(f"{site_url}en/specdec/")
    page.wait_for_selector("#b .b-status[data-state=failed]", timeout=PYODIDE_TIMEOUT_MS)
    assert "could not start" in page.locator("#b .b-status").inner_text()
    assert page.locator("#b").get_attribute("data-platform") == "linux"
    assert page.locator("#b .b-tape .b-tok").count() >= 3
    assert page.locator("#b .b-meter:not(.b-off)").count() == 4
    assert page.locator("#b .b-tube-table tbody tr").count() == 9
    assert page.locator("#b button.b-step").is_disabled()


def test_parts_can_be_looked_at_alone(page, site_url):
    page.emulate_media(reduced_motion="reduce")
    open_bench(page, f"{site_url}zh/specdec/")
    part = page.locator("#b .b-part[data-part-name=cabinet]")
    part.focus()
    page.keyboard.press("Enter")
    assert part.get_attribute("aria-pressed") == "true"
    assert page.locator("#b .b-part-info").is_visible()
    assert "抽屉" in page.locator("#b .b-part-info").inner_text()
    page.keyboard.press("Enter")
    assert part.get_attribute("aria-pressed") == "false"
    assert page.locator("#b .b-part-info").is_hidden()
