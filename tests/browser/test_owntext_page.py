"""A reader's own text on the bench, in Chromium: counted in the worker exactly as the build counts,
the whole bench on it, bad input named in the page's language with the models kept, nothing sent,
stored or linked.

Statistics as everywhere (tests/helpers/statistical.py): Pearson's test at false-alarm odds 1e-7, with
a named wrong sampler whose rejection has computed power of at least 0.999, run to see it fail.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
from helpers.benchpage import check_burst, open_bench, paste, reset, run, settle, snapshot, tube_counts
from helpers.owntext_fixtures import own_text
from helpers.statistical import check_fit_and_power

from corpus import tokenize
from sitebuild.counting import model_of_texts

pytestmark = pytest.mark.browser

SITE = Path(__file__).resolve().parents[2] / "site"
TUBE_ROUNDS = 100  # 5,000 draws in each tube (the most a bench state holds)
MESSAGE = ".b-own__message"


def strings(lang: str) -> dict:
    return tomllib.loads((SITE / lang / "strings.toml").read_text(encoding="utf-8"))


def worded_by(message: str, template: str) -> bool:
    """Whether the message is the template with its {placeholders} filled in."""
    pattern = ".+?".join(re.escape(piece) for piece in re.split(r"\{\w+\}", template))
    return re.fullmatch(pattern, message, re.S) is not None


def count_in_page(page, text: str):
    """Paste the text into the box and press Count, as a reader does; returns the message shown."""
    paste(page, text)
    page.evaluate("() => { const m = document.querySelector('.b-own__message'); m.hidden = true; m.textContent = ''; }")
    page.click(".b-own__count")
    page.wait_for_function("() => !document.querySelector('.b-own__message').hidden", timeout=60_000)
    settle(page)
    return page.locator(MESSAGE).inner_text()


def source(page) -> dict:
    return page.evaluate("() => window.specdecBench.getState().source")


@pytest.fixture(scope="module")
def own_bench(shared_bench):
    """The shared bench pages, put back on the book's models after each use."""
    pages = []

    def get(lang: str):
        page = shared_bench(lang)
        pages.append(page)
        reset(page)
        return page

    yield get
    for page in pages:
        run(page, [{"type": "use_book"}])
        reset(page)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_worker_counts_as_the_build_does(own_bench, lang):
    """The worker's count of each fixture, and of the text it runs the bench on, is the build's
    count of the same text, byte for byte (one counter, sim/counting.py: this checks the worker's
    reading of the text and the build's, tokeniser and cleaning included)."""
    page = own_bench(lang)
    for name in ("prose", "refrain"):
        text = own_text(f"{name}.{lang}")
        built = model_of_texts(lang, [text], []).json_text
        counted = page.evaluate("(text) => window.specdecBench.call('count_text', {text})", text)
        assert counted["model"] == built, name
        count_in_page(page, text)
        doc = json.loads(built)
        got = source(page)
        assert got["source"] == "text"
        assert (got["tokens"], got["vocab"]) == (doc["tokens"], len(doc["vocab"]))
        assert (got["bigram_types"], got["trigram_types"]) == (len(doc["bigram"]["next"]), len(doc["trigram"]["next"]))
    assert page.evaluate("() => window.specdecBench.call('python', {})")["platform"] == "emscripten"


def test_the_whole_bench_runs_on_a_pasted_text(own_bench):
    """Tape, pass, tubes, exactness and readouts all come from the text's models."""
    page = own_bench("en")
    message = count_in_page(page, own_text("refrain.en"))
    assert worded_by(message, strings("en")["b_own_done"]), message
    view = page.evaluate("() => window.specdecBench.getState().view")
    vocab = set(tokenize.tokenize("en", own_text("refrain.en")))
    assert {t["text"] for t in view["tape"]["tokens"]} <= vocab
    assert {c["text"] for c in view["tubes"]["categories"] if c["text"]} <= vocab
    assert view["tubes"]["context_text"] == "the boat"
    assert view["readouts"]["measure"]["prefix"] == "the boat"
    run(page, [{"type": "step", "count": 5}, {"type": "set", "name": "draft", "value": "unigram"}, {"type": "round"}])
    shown = snapshot(page)
    assert "row" in shown["tape"] and "the boat" in page.locator("#b").inner_text()
    assert page.locator(".b-own__source-value").inner_text() == "your text (221 tokens)"
    page.click(".b-own__book")
    page.wait_for_function("() => window.specdecBench.getState().source.source === 'book'")
    settle(page)
    assert page.locator(".b-own__source-value").inner_text() == strings("en")["b_own_source_book"]


FOCUSED = "() => document.activeElement && (document.activeElement.className || document.activeElement.tagName)"


def test_enter_on_count_and_on_back_to_the_book_keeps_the_keyboards_focus(own_bench):
    """Enter on Count this text leaves the focus on it while it counts and after; Enter on Back to
    the book, which then has nothing left to do, hands the focus to Count (a disabled button dropped
    it to the page's body)."""
    page = own_bench("en")
    paste(page, own_text("refrain.en"))
    page.focus(".b-own__count")
    page.keyboard.press("Enter")
    assert page.evaluate(FOCUSED) == "b-own__count"  # while it counts
    page.wait_for_function("() => window.specdecBench.getState().source.source === 'text'", timeout=60_000)
    settle(page)
    assert page.evaluate(FOCUSED) == "b-own__count"
    page.focus(".b-own__book")
    page.keyboard.press("Enter")
    page.wait_for_function("() => window.specdecBench.getState().source.source === 'book'", timeout=60_000)
    settle(page)
    assert page.locator(".b-own__book").is_disabled()
    assert page.evaluate(FOCUSED) == "b-own__count"


def test_a_burst_of_changes_on_a_pasted_text_measures_only_the_state_it_ends_in(own_bench):
    """A pasted text's readouts are measured in the page as they are asked for (the build's table
    covers the book's models only), up to a second or two each: three changes queued at once ask
    the worker for readouts once, for the last state, and it is drawn."""
    page = own_bench("zh")
    count_in_page(page, own_text("refrain.zh"))
    check_burst(page, ["act", "act", "act", "readouts"])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_bad_input_is_named_and_the_models_stay(own_bench, lang):
    """Empty, too long, binary junk, the other language and too short: each gets its message in
    the page's language, and the bench (on the book, then on a text) is left as it was."""
    page = own_bench(lang)
    other = "zh" if lang == "en" else "en"
    prose = own_text(f"prose.{lang}")
    bad = {
        "empty": "   \n  ",
        "too_long": (prose * 700)[:200_001],
        "binary": prose[:200] + "\x00\x01\x02" + "\ufffd" * 30,
        "other_language": own_text(f"prose.{other}"),
        "too_short": prose[:40],
    }
    words = strings(lang)
    for models in ("book", "text"):
        if models == "text":
            count_in_page(page, own_text(f"refrain.{lang}"))
        before, state = snapshot(page), source(page)
        for code, text in bad.items():
            message = count_in_page(page, text)
            whole = words["b_own_error_and_kept"].replace("{kept}", words["b_own_kept"])
            assert worded_by(message, whole.replace("{error}", words["b_own_error_" + code])), (code, message)
            assert page.locator(MESSAGE).get_attribute("data-kind") == "error"
            assert source(page) == state, code
            assert snapshot(page) == before, code
    run(page, [{"type": "use_book"}])


def test_tubes_converge_to_p_on_a_pasted_text(own_bench):
    """On a pasted text's models (the prose fixture), both tubes fit p over 5,000 draws each.
    Wrong sampler at the same size: the replace-from-p rule, whose speculative tube is rejected
    (check_fit_and_power asserts a computed power of at least 0.999)."""
    page = own_bench("en")
    count_in_page(page, own_text("prose.en"))
    reset(page, "?seed=11&rounds=0")
    assert source(page)["source"] == "text"  # a link's settings do not change the models
    run(page, [{"type": "round", "count": TUBE_ROUNDS}])
    p, target, spec, _, _ = tube_counts(page)
    assert sum(target) == sum(spec) == TUBE_ROUNDS * 50
    page.locator("#b input[name=rule][value=replace_from_p]").check()
    settle(page)
    wrong_law = [c["spec_p"] for c in page.evaluate("() => window.specdecBench.getState().view.tubes.categories")]
    _, _, wrong_spec, _, _ = tube_counts(page)
    check_fit_and_power(target, p, wrong_law)
    check_fit_and_power(spec, p, wrong_law, wrong_spec)


def test_counting_sends_nothing_keeps_the_page_responsive_and_reports_its_stages(own_bench):
    """The longest text allowed: no request while it is counted (the text never leaves the
    page), the page's thread runs a task queued as the count begins before the count ends, and
    the stages are shown in order. (How long the page's thread is ever kept from running, against
    how long the count takes: benchmarks/owntext_benchmark.py.)"""
    page = own_bench("zh")
    requests = []

    def seen(request):
        requests.append((request.method, request.url, request.post_data))

    page.on("request", seen)
    paste(page, (own_text("prose.zh") * 700)[:200_000])
    # Each stage shown queues a task on the page's thread (a timer of 0 ms), which records how
    # many stages had been shown when it ran. A count on the page's thread would run the task
    # queued as it begins only after its last stage.
    page.evaluate("""() => {
        window.ownProbe = { stages: [], ran: [] };
        const stage = document.querySelector('.b-own__stage');
        new MutationObserver(() => {
            const shown = window.ownProbe.stages.push(stage.textContent);
            setTimeout(() => window.ownProbe.ran.push([shown - 1, window.ownProbe.stages.length]), 0);
        }).observe(stage, { childList: true });
    }""")
    page.click(".b-own__count")
    page.wait_for_function("() => !document.querySelector('.b-own__message').hidden", timeout=60_000)
    settle(page)
    probe = page.evaluate("() => window.ownProbe")
    page.remove_listener("request", seen)
    # The browser may fetch the favicon meanwhile; nothing else, and nothing leaves the site.
    origin = page.evaluate("() => location.origin") + "/"
    assert all(method == "GET" and url.startswith(origin) and body is None and "/static/" in url
               for method, url, body in requests), requests
    assert len([r for r in requests if "favicon" not in r[1]]) == 0, requests
    assert source(page)["characters"] == 200_000
    words = strings("zh")
    names = ("waiting", "tokens", "unigram", "bigram", "trigram", "models", "view")
    expected = [words[f"b_own_stage_{s}"] for s in names]
    assert [s for s in probe["stages"] if s] == expected
    # The worker says "tokens" as it takes the text, then each stage as it begins, and "models"
    # when the counting is done; the page then draws the bench on them ("view"). The task queued
    # as "tokens" was shown ran before "models" was: the page's thread was free during the count.
    # (Not stage by stage: on a busy machine the page's thread may wake to find two stages'
    # messages waiting, queued before its task, and run them first, as it should.)
    shown = {text: index for index, text in enumerate(probe["stages"]) if text}
    ran = dict(probe["ran"])
    assert ran[shown[words["b_own_stage_tokens"]]] <= shown[words["b_own_stage_models"]], probe


def test_the_text_is_not_linked_or_stored_and_a_link_asks_for_it(own_bench, new_page, site_url):
    page = own_bench("en")
    secret = own_text("prose.en")
    count_in_page(page, secret)
    assert "text=own" in page.url
    kept = page.evaluate("""async () => ({
        url: location.href, state: JSON.stringify(history.state), local: localStorage.length,
        session: sessionStorage.length, cookie: document.cookie,
        databases: indexedDB.databases ? (await indexedDB.databases()).length : 0})""")
    for word in ("heron", "Mira", "canal"):
        assert word not in json.dumps(kept) and word.lower() not in json.dumps(kept)
    assert kept["local"] == kept["session"] == kept["databases"] == 0 and kept["cookie"] == ""
    # A page opened from that link, in the same browser context, asks for the text again, and
    # runs on the book meanwhile.
    fresh = new_page()
    open_bench(fresh, page.url)
    assert fresh.locator(".b-own__link-note").is_visible()
    assert fresh.locator("#b-own-text").input_value() == ""
    assert source(fresh) == {"source": "book"}
    fresh.close()
    run(page, [{"type": "use_book"}])
    settle(page)
    assert "text=own" not in page.url


def test_a_worker_started_again_runs_on_the_book_and_says_so(own_bench):
    """Retry after the worker died starts Python on the book's models: the panel says so."""
    page = own_bench("en")  # beside the text
    count_in_page(page, own_text("prose.en"))
    assert source(page)["source"] == "text"
    worker = page.workers[0]
    worker.evaluate("() => { setTimeout(() => { throw new Error('boom in the worker'); }, 0); }")
    page.wait_for_selector("#b .b-status[data-state=failed]", timeout=10_000)
    assert page.locator(".b-own__count").is_disabled()
    page.locator("#b .b-retry").click()
    page.wait_for_function("() => window.specdecBench.getState().source.source === 'book'", timeout=120_000)
    settle(page)
    assert page.locator(MESSAGE).inner_text() == strings("en")["b_own_restarted"]
    assert page.locator(".b-own__source-value").inner_text() == strings("en")["b_own_source_book"]
    assert "text=own" not in page.url
