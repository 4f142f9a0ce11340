"""Figures the chapters print: the brief's derived numbers, formatting, the worked example, the
bench's measurements, and the rule that chapters never type a number the code computes."""

from fractions import Fraction

import pytest
from helpers.typed_figures import SITE, computed_figures, content_texts, real_language, typed_figures

from sitebuild import figures
from sitebuild.figures import cache, measured, multicand, worked
from sitebuild.figures.formats import ExactDecimal, Figures, Format, Words, sig

BRIEF = {
    # facts.md, "Derived" (corrected), as the page prints them: three significant digits for
    # anything divided by the 3.35 TB/s bandwidth, four for exact counts of bytes.
    "weights_gb": "16.06 GB",
    "streamed_gb": "15.01 GB",
    "embedding_params": "525,336,576",
    "ms_per_token": "4.48 ms",
    "tokens_per_s": "223",
    "gflop_per_token": "15.01 GFLOP",
    "arith_ms_per_token": "0.015 ms",
    "busy_pct": "0.34%",
    "idle_pct": "99.7%",
    "machine_balance": "295",
    "batch1_intensity": "1",
    "batch": "64",
    "batch_tokens_per_s": "14,300",
    "batch_busy_pct": "22%",
    "kv_bytes_per_token": "131,072 B",
    "context": "4,096",
    "cache_gb": "34.36 GB",
    "step_gb": "49.37 GB",
    "cache_step_ms": "14.7 ms",
    "cache_tokens_per_s": "4,340",
    "balance_lanes": "295",
    "lanes_example_pct": "3%",
    "idle_extra_arith_pct": "53%",
    "idle_faster_pct": "96%",
    "idle_bench_faster_pct": "63%",
    "gpu_bandwidth_tbs": "3.35 TB/s",
    "gpu_tflops_dense": "989.5 TFLOPS",
    "gpu_tflops_sparse": "1,979 TFLOPS",
    "model_params": "8,030,261,248",
    "model_width": "4,096",
    "model_vocab": "128,256",
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_roofline_figures_print_as_the_brief_derives_them(lang):
    shown = figures.formatted(lang, figures.shared())
    for name, text in BRIEF.items():
        assert shown[name] == text, name


def test_parameter_count_in_words_perreal_language():
    shared = figures.shared()
    assert figures.formatted("en", shared)["model_params_words"] == "8.03 billion"
    assert figures.formatted("zh", shared)["model_params_words"] == "80.3 亿"


def test_a_figure_name_is_computed_once():
    f = Figures()
    f.add("x", 1)
    with pytest.raises(ValueError, match="computed twice"):
        f.add("x", 2)
    other = Figures()
    other.add("x", 3)
    with pytest.raises(ValueError, match="computed twice"):
        f.merge(other)


def test_every_module_adds_disjoint_names():
    """shared() merges the modules; a name defined in two of them would raise there."""
    names = set(figures.shared())
    assert {"ms_per_token", "default_gamma", "ex_total_a"} <= names


@pytest.mark.parametrize(
    "fmt, value, text",
    [
        (Format(2, "ms"), 4.7937, "4.79 ms"),
        (Format(0, "%", space=False), 22.4, "22%"),
        (Format(0), 131072, "131,072"),
        (Format(2, "×", space=False), 2.345, "2.35×"),
        (sig(3), 14_283.95, "14,300"),
        (sig(3), 4_342.75, "4,340"),
        (sig(3, "ms"), 4.48055, "4.48 ms"),
        (sig(4, "GB"), 15.009849, "15.01 GB"),
        (sig(2, "ms"), 0.0151693, "0.015 ms"),
        (sig(3), 9.996, "10.0"),
        (sig(3), 0, "0"),
        (ExactDecimal(), Fraction(3, 4), "0.75"),
        (ExactDecimal(), Fraction(0), "0"),
        (ExactDecimal(), Fraction(8, 25), "0.32"),
    ],
)
def test_format(fmt, value, text):
    assert fmt.text(value, "en") == text


def test_a_ratio_reads_times_in_english_and_bei_in_chinese():
    from sitebuild.figures.formats import times
    assert (times().text(1.745, "en"), times().text(1.745, "zh")) == ("1.75×", "1.75 倍")
    assert (times(1).text(4.7, "en"), times(1).text(4.7, "zh")) == ("4.7×", "4.7 倍")


def test_exact_decimal_refuses_a_repeating_fraction():
    with pytest.raises(ValueError, match="no short exact decimal"):
        ExactDecimal().text(Fraction(1, 3), "en")


def test_words_differ_byreal_language():
    words = Words(lambda v: f"{v} en", lambda v: f"{v} zh")
    assert words.text(1, "en") == "1 en" and words.text(1, "zh") == "1 zh"


# --- chapter 6's worked example, in exact arithmetic ------------------------------------------------

def test_worked_example_adds_up_to_p_exactly():
    ex = worked.worked_example()
    p, q = ex["p"], ex["q"]
    assert sum(p) == 1 and sum(q) == 1
    assert ex["kept"] == [min(a, b) for a, b in zip(p, q)]
    assert ex["beta"] == sum(ex["kept"]) and ex["rejected"] == 1 - ex["beta"]
    assert ex["replaced"] == ex["excess"] == [max(Fraction(0), a - b) for a, b in zip(p, q)]
    assert sum(ex["residual"]) == 1
    assert ex["total"] == p
    assert all(isinstance(v, Fraction) for v in ex["total"])


def test_worked_example_shows_the_broken_rule_failing():
    """Power check: drawing the replacement from p gives a different, still normalised, law."""
    ex = worked.worked_example()
    assert ex["wrong"] != ex["p"] and sum(ex["wrong"]) == 1


def test_worked_example_table_prints_total_equal_to_p():
    shown = figures.formatted("en", worked.worked_figures())
    for token in worked.TOKENS:
        assert shown[f"ex_total_{token}"] == shown[f"ex_p_{token}"]
    # The draft over-proposes c, so the residual gives c nothing (chapter 6 says so).
    assert shown["ex_excess_c"] == shown["ex_residual_c"] == "0"


# --- the closing notes' two-token example of several candidates, in exact arithmetic -------------


def test_several_candidates_checked_in_turn_against_the_residual_give_p_exactly():
    ex = multicand.multicand_example()
    assert sum(ex["p"]) == 1 and sum(ex["q"]) == 1
    assert ex["exact"] == ex["p"]
    assert all(isinstance(v, Fraction) for v in ex["exact"])


def test_several_candidates_each_checked_against_p_bias_the_output():
    """Power check: the naive rule (each candidate against p, keep the first survivor) is off p,
    and off it the way the page says: a, which the draft over-proposes, comes out too often."""
    ex = multicand.multicand_example()
    assert sum(ex["naive"]) == 1
    assert ex["naive"] != ex["p"]
    assert ex["naive"][0] > ex["p"][0]
    assert ex["naive"][0] - ex["p"][0] == ex["extra_a"]  # the second chance is the whole bias


@pytest.mark.parametrize("p, q", [
    ((Fraction(1, 4), Fraction(3, 4)), (Fraction(1, 2), Fraction(1, 2))),
    ((Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)), (Fraction(1, 6), Fraction(1, 6), Fraction(2, 3))),
    ((Fraction(3, 5), Fraction(2, 5)), (Fraction(3, 5), Fraction(2, 5))),  # q = p: nothing is rejected
])
@pytest.mark.parametrize("candidates", [1, 2, 3])
def test_the_exact_multi_candidate_rule_keeps_p_for_other_laws(p, q, candidates):
    assert multicand.output_law(list(p), list(q), candidates, exact=True) == list(p)
    if candidates == 1:  # one candidate: both rules are the ordinary rule
        assert multicand.output_law(list(p), list(q), 1, exact=False) == list(p)


def test_the_page_prints_both_rules():
    shown = figures.formatted("en", multicand.multicand_figures())
    assert [shown["mc_exact_a"], shown["mc_exact_b"]] == [shown["mc_p_a"], shown["mc_p_b"]]
    assert [shown["mc_naive_a"], shown["mc_naive_b"]] != [shown["mc_p_a"], shown["mc_p_b"]]
    for lang in ("en", "zh"):
        text = (SITE / lang / "20-further.md").read_text(encoding="utf-8")
        for name in ("mc_naive_a", "mc_naive_b", "mc_exact_a", "mc_exact_b"):
            assert f"fig.{name} " in text or f"fig.{name}}}" in text, (lang, name)


# --- the bench's own figures, measured on the real books --------------------------------------------


def _raw(lang):
    return computed_figures()[lang].raw()


def test_both_languages_have_the_same_figure_names():
    computed = computed_figures()
    assert set(computed) == {"en", "zh"}
    assert set(computed["en"]) == set(computed["zh"])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_bench_figures_are_plausible(lang):
    raw = _raw(lang)
    gamma = raw["default_gamma"]
    assert 0 < raw["bench_alpha"] < 1
    assert 0 <= raw["bench_unigram_alpha"] < raw["bench_alpha"]
    assert 1 <= raw["bench_tokens_per_pass"] <= gamma + 1
    assert 1 <= raw["bench_tokens_per_pass_formula"] <= gamma + 1
    assert 1 <= raw["bench_best_gamma"] <= figures.LAB_GAMMA
    assert raw["bench_best_speedup"] >= raw["bench_speedup"]
    assert raw["bench_best_speedup"] >= raw["bench_lab_speedup"]
    assert 0 < raw["coverage_one_pct"] <= raw["coverage_top_pct"] <= 100
    assert raw["noise_alpha_low"] <= raw["bench_alpha"] <= raw["noise_alpha_high"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_first_seed_is_the_chapters_run(lang):
    assert measured.alpha_by_seed(real_language(lang))[0] == _raw(lang)["bench_alpha"]


def test_bench_figures_are_reproducible():
    again = measured.bench_figures(real_language("en")).raw()
    assert again == {k: _raw("en")[k] for k in again}


def test_measurements_are_cached_by_what_they_read(tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "CACHE_DIR", tmp_path)
    calls = []

    def measure():
        calls.append(1)
        return {"value": 0.5}

    language = real_language("zh")
    assert cache.cached("probe", language, {"n": 1}, measure) == {"value": 0.5}
    assert cache.cached("probe", language, {"n": 1}, measure) == {"value": 0.5}
    assert len(calls) == 1
    cache.cached("probe", language, {"n": 2}, measure)  # other parameters: measured again
    assert len(calls) == 2
    (stored,) = tmp_path.glob("probe-zh-*.json")
    stored.write_text("{broken")  # a damaged entry is measured again, never trusted
    cache.cached("probe", language, {"n": 2}, measure)
    assert len(calls) == 3


def test_a_measurement_asked_for_twice_at_once_is_made_once(tmp_path, monkeypatch):
    """A second caller (a test process beside the build) that finds no stored entry while the
    first is measuring waits for it and reads its result: it never measures. The second caller
    is a thread with a file of its own open (flock holds between two opens as between two
    processes); the first measurement ends once the second has either measured (the failure)
    or is waiting on the lock (Linux lists a waiting flock in /proc/locks with "->")."""
    import os
    import threading
    import time

    monkeypatch.setattr(cache, "CACHE_DIR", tmp_path)
    language = real_language("zh")
    measuring = threading.Event()
    second_measured = []

    def someone_waits_on(path):
        inode = f":{os.stat(path).st_ino} "
        with open("/proc/locks") as locks:
            return any("->" in line and inode in line for line in locks)

    def first_measure():
        measuring.set()
        lock = next(tmp_path.glob("probe-zh.lock"))
        deadline = time.monotonic() + 60
        while not (second_measured or someone_waits_on(lock)):
            if time.monotonic() > deadline:  # never seen waiting: the test proves nothing, so it fails
                raise AssertionError("the second caller was not seen waiting on the lock in 60 s")
            time.sleep(0.01)
        return {"by": "first"}

    results = {}
    first = threading.Thread(target=lambda: results.update(
        first=cache.cached("probe", language, {"n": 1}, first_measure)))
    second = threading.Thread(target=lambda: results.update(
        second=cache.cached("probe", language, {"n": 1}, lambda: second_measured.append(1) or {"by": "second"})))
    first.start()
    assert measuring.wait(60)
    second.start()
    first.join(60)
    second.join(60)
    assert not second_measured
    assert results == {"first": {"by": "first"}, "second": {"by": "first"}}


def test_the_cache_key_reads_every_module_of_sim_subpackages_included(tmp_path, monkeypatch):
    """The readouts live in sim/bench/: an edit there must miss the cache (it once read sim/*.py only)."""
    import shutil

    sim = tmp_path / "sim"
    shutil.copytree(cache.REPO / "sim", sim, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(cache, "CODE", (sim, cache.CODE[1]))
    before = cache.code_digest()
    with (sim / "bench" / "readouts.py").open("a", encoding="utf-8") as f:
        f.write("\n# an edit\n")
    assert cache.code_digest() != before


def test_roofline_figures_are_the_same_on_both_pages():
    computed = computed_figures()
    for name in figures.roofline_figures():
        assert computed["en"][name] == computed["zh"][name]


# --- the chapters print computed numbers only through {{ fig.* }} -------------------------------

@pytest.mark.parametrize("lang", ["en", "zh"])
def test_content_types_no_number_the_code_computes(lang):
    typed = typed_figures(lang, content_texts(lang))
    assert not typed, f"numbers typed in site/{lang} that should be {{{{ fig.* }}}}: {sorted(typed)}"


def test_the_scan_catches_a_typed_figure():
    """Power check: the computed 4.48 ms typed by hand, and a computed figure in an FAQ answer."""
    shown = figures.formatted("en", computed_figures()["en"])
    typed = typed_figures("en", [("x.md", f"streaming takes {shown['ms_per_token']}"),
                                  ("y.md", f"a = \"about {shown['batch_tokens_per_s']} tokens\"")])
    assert ("x.md", shown["ms_per_token"].split()[0]) in typed
    assert ("y.md", shown["batch_tokens_per_s"]) in typed


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_scan_reads_the_try_it_words(lang):
    """Power check: a Try-it's button typing the lab's gamma by hand is caught (it must be {{ fig.lab_gamma }})."""
    texts = dict(content_texts(lang))
    assert "{alpha@start}" in texts["07-alpha.md"]  # the answers are scanned
    lab_gamma = figures.formatted(lang, computed_figures()[lang])["lab_gamma"]
    typed_button = texts["08-speedup.md"].replace("{{ fig.lab_gamma }}", lab_gamma)
    assert ("08-speedup.md", lab_gamma) in typed_figures(lang, [("08-speedup.md", typed_button)])


# --- what the prose says about the figures stays true ---------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_what_the_prose_says_about_the_measurements_holds(lang):
    raw = _raw(lang)
    # Chapter 7: "here the two come out close".
    assert abs(raw["bench_tokens_per_pass"] - raw["bench_tokens_per_pass_formula"]) < 0.15
    # Chapter 13 and "going further": the unigram draft brings alpha and the speed-up down;
    # gamma = lab_gamma is a worse choice.
    assert raw["bench_unigram_alpha"] < raw["bench_alpha"]
    assert raw["bench_unigram_speedup"] < raw["bench_speedup"]
    assert raw["bench_lab_speedup"] < raw["bench_speedup"]
    # Chapter 8: the best and the default gamma are two different choices, and "the gap between
    # the two is smaller than that spread" (of either speed-up across seeds).
    assert raw["bench_best_gamma"] != raw["default_gamma"]
    assert raw["noise_gap"] < raw["noise_best_high"] - raw["noise_best_low"]
    assert raw["noise_gap"] < raw["noise_default_high"] - raw["noise_default_low"]
    # "Going further": the bench's own draft is well below the break-even cost, and offering
    # more candidates covers more positions.
    assert raw["draft_cost"] < raw["break_even_cost"]
    assert raw["coverage_one_pct"] < raw["coverage_top_pct"]
    # "Going further": the unigram draft is "slower than plain decoding" (en) / "几乎等于没有加速" (zh).
    assert raw["bench_unigram_speedup"] < {"en": 1, "zh": 1.01}[lang]
    # Chapter 8: the comparison is paired, "all 8 seeds rank" the best gamma first; the gap is
    # under a percent; and the best gamma lights a small share of the lanes ("nearly all of the
    # idle arithmetic stays idle").
    assert raw["noise_same_best"] == raw["noise_runs"]
    assert raw["noise_gap_pct"] < 1
    assert raw["bench_best_lanes"] == raw["bench_best_gamma"] + 1
    assert raw["bench_best_lanes_pct"] < 5
    # "Going further" (p and q): "from 0.5 upwards alpha rises with the temperature", greedy is
    # below temperature 1, and the row at temperature 1 is the readouts' alpha.
    assert raw["alpha_temp_05"] <= raw["alpha_temp_07"] < raw["alpha_temp_1"] < raw["alpha_temp_13"]
    assert raw["alpha_temp_0"] < raw["alpha_temp_1"]
    assert raw["alpha_temp_1"] == raw["bench_alpha"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_alpha_against_temperature_is_the_readouts_alpha_at_each_temperature(lang):
    """The readouts panel's row (the build's, on the book) is what the bench's readouts say at each
    temperature; so the value marked at the temperature in use is the alpha shown above it."""
    from sim.bench import Bench

    curve = measured.alpha_temperature(real_language(lang))
    bench = Bench(real_language(lang))
    assert curve["temperatures"] == [0, 0.5, 0.7, 1, 1.3]
    for draft in ("unigram", "same"):  # the bigram draft's row is checked against the figures above
        for t, alpha in zip(curve["temperatures"][::4], curve["drafts"][draft][::4]):  # greedy and 1.3
            assert bench.readouts({"draft": draft, "temperature": t})["alpha"] == alpha
    assert curve["drafts"]["same"] == [1.0] * 5  # a copy of the target keeps every guess


def test_what_the_prose_says_about_the_roofline_holds():
    raw = figures.roofline_figures()
    # Chapter 9: a draft that costs something takes a bite out of the c = 0 figure.
    assert raw["idle_bench_faster_pct"] < raw["idle_faster_pct"]
    # Closing notes: the 70B model streams more than one H100 holds.
    assert raw["big_streamed_gb"] > raw["gpu_memory_gb"]
    # Closing notes: the bench's largest batch at its context holds more cache than one H100.
    assert raw["max_batch_cache_gb"] > raw["gpu_memory_gb"]
    # Chapter 9: at EAGLE's batch of 4, "a few dozen" candidates per sequence (say 60) light
    # fewer lanes than the H100's balance.
    assert 4 * 60 < raw["balance_lanes"]
    # Chapter 1: the embedding table is what separates the weights held from those streamed.
    assert raw["weights_gb"] - raw["streamed_gb"] == pytest.approx(raw["embedding_gb"])
