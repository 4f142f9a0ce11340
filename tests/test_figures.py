"""Figures the chapters print: the brief's derived numbers, formatting, and the bench's measurements."""

from functools import lru_cache

import pytest

from sitebuild import figures

BRIEF = {
    # facts.md, "Derived", as the page prints them.
    "weights_gb": "16.06 GB",
    "ms_per_token": "4.79 ms",
    "tokens_per_s": "209",
    "gflop_per_token": "16.06 GFLOP",
    "arith_ms_per_token": "0.016 ms",
    "busy_pct": "0.34%",
    "idle_pct": "99.7%",
    "machine_balance": "295",
    "batch1_intensity": "1",
    "batch": "64",
    "batch_tokens_per_s": "13,350",
    "batch_busy_pct": "22%",
    "kv_bytes_per_token": "131,072 B",
    "kv_kb_per_token": "131 KB",
    "context": "4,096",
    "cache_gb": "34.4 GB",
    "step_gb": "50.4 GB",
    "cache_tokens_per_s": "4,250",
    "balance_lanes": "295",
    "lanes_example_pct": "3%",
    "idle_extra_arith_pct": "53%",
    "idle_faster_pct": "96%",
    "gpu_bandwidth_tbs": "3.35 TB/s",
    "gpu_tflops_dense": "989.5 TFLOPS",
    "gpu_tflops_sparse": "1,979 TFLOPS",
    "model_params": "8,030,261,248",
    "model_width": "4,096",
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_roofline_figures_print_as_the_brief_derives_them(lang):
    shown = figures.formatted(lang, figures.roofline_figures())
    for name, text in BRIEF.items():
        assert shown[name] == text, name


def test_parameter_count_in_words_per_language():
    raw = figures.roofline_figures()
    assert figures.formatted("en", raw)["model_params_words"] == "8.03 billion"
    assert figures.formatted("zh", raw)["model_params_words"] == "80.3 亿"


def test_every_figure_has_a_format():
    raw = figures.roofline_figures()
    raw.update({name: 1 for name in figures.FORMATS})
    figures.formatted("en", raw)  # raises KeyError for a figure without a format


def test_unknown_figure_without_format_is_refused():
    with pytest.raises(KeyError, match="no format"):
        figures.format_value("no_such_figure", 1.0)


@pytest.mark.parametrize(
    "fmt, value, text",
    [
        (figures.Format(2, "ms"), 4.7937, "4.79 ms"),
        (figures.Format(0, "%", space=False), 22.4, "22%"),
        (figures.Format(tens=True), 4252.4, "4,250"),
        (figures.Format(0), 131072, "131,072"),
        (figures.Format(2, "×", space=False), 2.345, "2.35×"),
    ],
)
def test_format(fmt, value, text):
    assert fmt(value) == text


def test_strings_pass_through():
    assert figures.format_value("anything", "慢慢") == "慢慢"


# --- The bench's own figures, measured on the real books ---------------------------------------


def _language(lang):
    import corpus_models  # the session's one set of real models (tests/corpus_models.py)

    return corpus_models.language(lang)


@lru_cache(maxsize=1)
def _computed():
    return figures.compute({lang: _language(lang) for lang in ("en", "zh")})


def _needs_sim():
    stats = pytest.importorskip("sim.stats")
    if not hasattr(stats, "measure"):
        pytest.skip("sim.stats.measure not written yet")


def test_both_languages_have_the_same_figure_names():
    _needs_sim()
    computed = _computed()
    assert set(computed) == {"en", "zh"}
    assert set(computed["en"]) == set(computed["zh"])
    assert set(figures.formatted("en", computed["en"])) == set(figures.formatted("zh", computed["zh"]))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_bench_figures_are_plausible(lang):
    _needs_sim()
    raw = _computed()[lang]
    gamma = raw["default_gamma"]
    assert 0 < raw["bench_alpha"] < 1
    assert 0 <= raw["bench_unigram_alpha"] < raw["bench_alpha"]
    assert 1 <= raw["bench_tokens_per_pass"] <= gamma + 1
    assert 1 <= raw["bench_tokens_per_pass_formula"] <= gamma + 1
    assert 1 <= raw["bench_best_gamma"] <= figures.LAB_GAMMA
    assert raw["bench_best_speedup"] >= raw["bench_speedup"]
    assert raw["bench_best_speedup"] >= raw["bench_lab_speedup"]


def test_bench_figures_are_reproducible():
    _needs_sim()
    again = figures.bench_figures(_language("en"))
    assert again == {k: _computed()["en"][k] for k in again}


def test_roofline_figures_are_the_same_on_both_pages():
    _needs_sim()
    computed = _computed()
    for name in figures.roofline_figures():
        assert computed["en"][name] == computed["zh"][name]


# --- The chapters print computed numbers only through {{ fig.* }} -------------------------------

import re
from pathlib import Path

SITE = Path(__file__).resolve().parent.parent / "site"
JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.S)
MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]*\$", re.S)
LINK_TARGET = re.compile(r"\]\([^)]*\)")
NUMBER = re.compile(r"(?<![\w.\-])\d[\d,]*(?:\.\d+)?(?!\w|\.\d)")
# Zero and one are the bounds of every probability; the code computes them too, but typing them is fine.
CONSTANTS = {"0", "1"}
# A number right after one of these words names a place in a paper, not a quantity.
REFERENCE_WORDS = re.compile(
    r"(equation|theorem|table|section|appendix|chapter|eBook|#|定理|公式|式|附录|表|第|节)\s*$", re.I
)


LIST_MARKER = re.compile(r"^\s*\d+[.)]\s", re.M)


def _typed_numbers(text):
    text = LINK_TARGET.sub("]", MATH.sub(" ", JINJA.sub(" ", text)))
    text = LIST_MARKER.sub(" ", text)
    for match in NUMBER.finditer(text):
        if not REFERENCE_WORDS.search(text[max(0, match.start() - 12):match.start()]):
            yield match.group().rstrip(",")


def _chapter_texts(lang):
    from sitebuild.frontmatter import split

    for path in sorted((SITE / lang).glob("[01]*.md")):
        meta, body, _ = split(path, path.read_text(encoding="utf-8"))
        yield path.name, body + "\n" + meta.get("caption", "")


def _figure_numbers(lang):
    raw = figures.roofline_figures()
    try:
        _needs_sim()
    except pytest.skip.Exception:
        pass
    else:
        raw = _computed()[lang]
    shown = figures.formatted(lang, raw)
    numbers = set()
    for text in shown.values():
        numbers.update(m.group() for m in NUMBER.finditer(text))
    return numbers


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_chapters_type_no_number_the_code_computes(lang):
    computed = _figure_numbers(lang)
    typed = {
        (name, n)
        for name, text in _chapter_texts(lang)
        for n in _typed_numbers(text)
        if n in computed and n not in CONSTANTS
    }
    assert not typed, f"numbers typed in site/{lang} that should be {{{{ fig.* }}}}: {sorted(typed)}"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_what_the_prose_says_about_the_measurements_holds(lang):
    """Chapters 7 and 13 describe these outcomes in words; keep the words true."""
    _needs_sim()
    raw = _computed()[lang]
    # Chapter 7: "here the two come out close".
    assert abs(raw["bench_tokens_per_pass"] - raw["bench_tokens_per_pass_formula"]) < 0.15
    # Chapter 13: the unigram draft "brings alpha down"; gamma = lab_gamma is a worse choice.
    assert raw["bench_unigram_alpha"] < raw["bench_alpha"]
    assert raw["bench_lab_speedup"] < raw["bench_speedup"]
