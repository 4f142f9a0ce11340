"""Chapter 14's figures: experts an MoE pass touches (exact, against enumeration), the memory
cap on the batch, the ratios of quoted figures, and that the build's checks read the chapter."""

import itertools
import re
import shutil
from fractions import Fraction
from pathlib import Path

import pytest
from helpers.typed_figures import content_texts, figure_numbers, typed_figures

from sitebuild import figures
from sitebuild.content import check_all_parity, check_names, load_all
from sitebuild.errors import BuildError
from sitebuild.figures import moe, serving
from sitebuild.figures.roofline import CONTEXT, GPU, MODEL
from sitebuild.references import Sources

SITE = Path(__file__).resolve().parents[2] / "site"
CHAPTER = "14-serving.md"


def _enumerated(experts: int, active: int, tokens: int) -> Fraction:
    """Expected distinct experts by listing every way `tokens` tokens can each pick `active`."""
    picks = list(itertools.combinations(range(experts), active))
    total = sum(len(set().union(*ways)) for ways in itertools.product(picks, repeat=tokens))
    return Fraction(total, len(picks) ** tokens)


@pytest.mark.parametrize("experts,active,tokens", [(4, 2, 1), (4, 2, 3), (5, 2, 3), (6, 3, 2), (8, 2, 3)])
def test_experts_touched_is_the_enumerated_expectation(experts, active, tokens):
    small = moe.MoE("tiny", experts, active, ())
    assert moe.experts_touched(small, tokens) == _enumerated(experts, active, tokens)


def test_a_with_replacement_count_would_fail_the_enumeration():
    """Power check: picking the `active` experts of a token one by one with replacement (a
    plausible slip) gives another number, which the enumeration rejects."""
    experts, active, tokens = 4, 2, 3
    slip = experts * (1 - (1 - Fraction(1, experts)) ** (active * tokens))
    assert slip != _enumerated(experts, active, tokens)


def test_one_token_touches_exactly_its_own_experts():
    for model in (moe.DEEPSEEK_V3, moe.MIXTRAL):
        assert moe.experts_touched(model, 1) == model.active
        assert moe.weights_ratio(model, moe.DEEPSEEK_V3_WEIGHTS, 1) == 1
    with pytest.raises(ValueError, match="at least one token"):
        moe.experts_touched(moe.MIXTRAL, 0)


def test_uneven_routing_touches_fewer_experts_so_the_figures_are_upper_estimates():
    """The chapter calls the uniform counts upper estimates: with the same number of picks per
    token, any uneven share of the experts touches fewer on average (independent tokens)."""
    experts, active, tokens = 8, 2, 5
    uniform = moe.experts_touched(moe.MoE("u", experts, active, ()), tokens)
    for shares in ([Fraction(1, 2)] * 2 + [Fraction(1, 6)] * 6,
                   [Fraction(9, 10), Fraction(3, 5), Fraction(1, 2)] + [Fraction(0)] * 5):
        assert sum(shares) == active and all(0 <= s <= 1 for s in shares)
        uneven = sum(1 - (1 - s) ** tokens for s in shares)
        assert uneven < uniform


def _shown(lang):
    return figures.formatted(lang, serving.serving_figures())


def test_the_serving_figures_print_as_computed():
    en, zh = _shown("en"), _shown("zh")
    assert (en["moe_ds_experts"], en["moe_ds_active"], en["moe_ds_moe_layers"]) == ("256", "8", "58")
    assert en["moe_ds_pass_experts"] == "37.6" and en["moe_ds_pass_gain"] == "4.7×"
    assert en["moe_ds_pass_weights"] == "3×"  # an estimate: 37B is rounded in the abstract
    assert (en["moe_ds_batch_experts"], en["moe_ds_batch_spec_experts"], en["moe_ds_batch_gain"]) == (
        "222", "256", "1.15×")
    assert (en["moe_mx_pass_experts"], en["moe_mx_pass_gain"]) == ("6.1", "3.1×")
    assert zh["moe_ds_pass_gain"] == "4.7 倍" and zh["moe_ds_activated"] == "370 亿"
    assert en["moe_ds_activated"] == "37 billion"
    assert (en["serve_seq_cache_gb"], en["serve_free_gb"], en["serve_max_batch"]) == ("0.537 GB", "63.94 GB", "119")
    assert (en["sglang_eagle2_gain"], en["sglang_eagle3_gain"]) == ("1.54×", "2.36×")
    assert (en["sglang_plain_share_pct"], en["sglang_eagle3_over_ceiling"]) == ("71%", "1.67×")
    assert en["eagle3_batch64_cost_cut_pct"] == "28%"


def test_the_capacity_batch_is_the_most_that_fits():
    most = serving.capacity_batch()
    cache = MODEL.kv_bytes_per_token * CONTEXT
    assert MODEL.weight_bytes + most * cache <= GPU.memory < MODEL.weight_bytes + (most + 1) * cache


def test_what_the_chapter_says_about_its_figures_holds():
    raw = serving.serving_figures().raw()
    # "In a batch the penalty fades", and the batch's speculative pass touches (almost) every expert.
    assert raw["moe_ds_batch_gain"] < raw["moe_ds_pass_gain"]
    assert raw["moe_ds_batch_experts"] < raw["moe_ds_batch_spec_experts"] <= raw["moe_ds_experts"]
    # "Up to ... the bytes of a one-token step": more than one step, fewer than the experts' own gain.
    assert 1 < raw["moe_ds_pass_weights"] < raw["moe_ds_pass_gain"]
    # The capacity batch's speculative pass lights more lanes than the arithmetic serves (weights only).
    assert raw["serve_max_batch_lanes"] > figures.roofline_figures()["balance_lanes"]
    # SGLang's plain figure is below the roofline's ceiling, EAGLE-3's above it.
    assert raw["sglang_plain_share_pct"] < 100 < 100 * raw["sglang_eagle3_over_ceiling"]


def test_deepseeks_mtp_acceptance_becomes_this_pages_alpha_and_tokens_per_pass():
    """One MTP module guesses once a pass (gamma = 1), so its acceptance is alpha and a pass writes
    1 + alpha; the reported 1.8x TPS is below that, the rest being the speculative pass's extra cost."""
    raw, en, zh = serving.serving_figures().raw(), _shown("en"), _shown("zh")
    assert (en["mtp_alpha_low"], en["mtp_alpha_high"]) == ("0.85", "0.90")
    assert (en["mtp_tpp_low"], en["mtp_tpp_high"]) == ("1.85", "1.90")
    assert (en["mtp_pass_cost_low_pct"], en["mtp_pass_cost_high_pct"]) == ("3%", "6%")
    assert (en["mtp_chain_tpp_low"], en["mtp_chain_tpp_high"]) == ("3.19", "3.44")
    gain = serving.quoted_number("deepseek_mtp_tps_gain")
    # "The reported speed-up is a little below that": below 1 + alpha, above 1.
    assert 1 < gain < raw["mtp_tpp_low"] < raw["mtp_tpp_high"]
    assert raw["mtp_tpp_low"] == 1 + serving.quoted_number("deepseek_mtp_accept_low")
    assert zh["held_back_complement_pct"] == en["held_back_complement_pct"] == "90%"


def test_decoding_after_the_prompt_reads_its_cache():
    """Chapter 14's table: each step after the prompt reads the prompt's cache too, so it is slower
    than the weights alone and grows along the answer; the answer's sum is the steps' own sum."""
    raw = figures.roofline_figures()
    assert raw["ms_per_token"] < raw["ms_per_token_after_prompt"] < raw["ms_per_token_answer_end"]
    steps = [raw["ms_per_token_after_prompt"], raw["ms_per_token_answer_end"]]
    assert raw["answer_tokens"] * steps[0] < (raw["answer_plain_cache_s"] - raw["prefill_ms"] / 1e3) * 1e3
    assert (raw["answer_plain_cache_s"] - raw["prefill_ms"] / 1e3) * 1e3 < raw["answer_tokens"] * steps[1]
    assert raw["answer_plain_s"] < raw["answer_plain_cache_s"]
    # At half the dense peak the prefill takes twice as long (it is bound by arithmetic).
    assert raw["prefill_ms_at_share"] == pytest.approx(raw["prefill_ms"] / (raw["prefill_share_example_pct"] / 100))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_sglangs_rate_counts_the_targets_token_and_the_root(lang):
    """The spec_accept_rate of SGLang's older releases = length / (gamma + 1); for the same passes it
    stays above vLLM's accepted / gamma (current SGLang's count too), as the chapter says."""
    from helpers.typed_figures import computed_figures
    raw = computed_figures()[lang].raw()
    gamma = raw["default_gamma"]
    assert raw["bench_sglang_rate_pct"] == pytest.approx(100 * raw["bench_mal"] / (gamma + 1))
    assert raw["bench_sglang_rate_pct"] > 100 * raw["bench_dar"]
    assert raw["bench_dar"] == pytest.approx((raw["bench_mal"] - 1) / gamma)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_chapter_quotes_the_readouts_rates_as_they_print_them(lang):
    """The chapter sets the bench's draft acceptance rate (and the formula's) beside the readouts
    that print them: it writes them by the readouts' rule (sitebuild.numbers.pct, "36.6%"), not
    at another precision ("37%", which a reader then finds as "36.6%" beside alpha)."""
    from helpers.typed_figures import computed_figures

    from sitebuild import numbers
    figs = computed_figures()[lang]
    raw, texts = figs.raw(), figs.texts(lang)
    for name in ("bench_dar", "bench_dar_formula"):
        assert texts[name] == numbers.pct(raw[name])
    # Power: written in whole percents, the figure differs from the readout's at the bench's defaults.
    assert texts["bench_dar"] != f"{raw['bench_dar'] * 100:.0f}%"


def test_a_quoted_figure_without_its_number_is_refused(tmp_path):
    quoted = tmp_path / "quoted.toml"
    quoted.write_text('[with]\nvalue = "1.5×"\nnumber = 1.5\nsource = "x"\n\n[without]\nvalue = "2×"\nsource = "x"\n')
    assert serving.quoted_number("with", quoted) == 1.5
    with pytest.raises(ValueError, match=r"quoted\.toml: \[without\] needs number"):
        serving.quoted_number("without", quoted)


# --- the build's checks read chapter 14 like every other chapter -----------------------------------


def _site_copy(tmp_path):
    copy = tmp_path / "site"
    shutil.copytree(SITE, copy, ignore=shutil.ignore_patterns("static"))
    return copy


def test_the_chapter_is_a_chapter_in_both_languages():
    contents = load_all(SITE)
    for lang in ("en", "zh"):
        (section,) = [s for s in contents[lang].chapters if s.path.name == CHAPTER]
        assert section.anchor == "serving" and section.meta["part"] == "cabinet" and "try" in section.meta


def test_parity_catches_a_citation_missing_from_one_language(tmp_path):
    site = _site_copy(tmp_path)
    zh = site / "zh" / CHAPTER
    zh.write_text(zh.read_text(encoding="utf-8").replace(' {{ cite("mixtral2024") }}', "", 1), encoding="utf-8")
    with pytest.raises(BuildError, match=re.escape(f'en/{CHAPTER}') + r":\d+: uses cite\(\"mixtral2024\"\)"):
        check_all_parity(load_all(site))


def test_an_unknown_source_in_the_chapter_is_named(tmp_path):
    site = _site_copy(tmp_path)
    for lang in ("en", "zh"):
        path = site / lang / CHAPTER
        path.write_text(path.read_text(encoding="utf-8").replace('"mixtral2024"', '"mixtral2023"'), encoding="utf-8")
    contents = load_all(site)
    sources = Sources.load(site / "sources.toml")
    with pytest.raises(BuildError, match=r"unknown source 'mixtral2023' \(nearest known: mixtral2024\)"):
        check_names(contents, {"citations": sources.ids})


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_typed_number_scan_reads_the_chapter(lang):
    """The scan (tests/helpers/typed_figures.py) covers chapter 14 (front matter and Try-it included), and a
    computed figure typed into it is caught (power check)."""
    texts = dict(content_texts(lang))
    assert "{batch}" in texts[CHAPTER]  # the Try-it's answer is scanned with the prose
    most = _shown(lang)["serve_max_batch"]
    assert most in figure_numbers(lang)
    typed = texts[CHAPTER].replace("{{ fig.serve_max_batch }}", most)
    assert (CHAPTER, most) in typed_figures(lang, [(CHAPTER, typed)])
    assert not typed_figures(lang, [(CHAPTER, texts[CHAPTER])])


def test_editing_a_quoted_number_changes_the_key_the_kept_figures_are_stored_under(tmp_path):
    """serve keeps the figures between rebuilds; their key must move when a quoted number does."""
    quoted = tmp_path / "quoted.toml"
    quoted.write_text('[x]\nvalue = "1.38×"\nnumber = 1.38\nsource = "s"\n')
    before = serving.quoted_numbers_digest(quoted)
    quoted.write_text('[x]\nvalue = "1.40×"\nnumber = 1.40\nsource = "s"\n')
    assert serving.quoted_numbers_digest(quoted) != before
