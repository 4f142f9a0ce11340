"""The roofline code reproduces the brief's derived figures (facts.md, "Derived")."""

import pytest

from sim import roofline as rl

H100 = rl.gpu("h100-sxm")
LLAMA = rl.model("llama-3.1-8b")
LLAMA_70B = rl.model("llama-3.1-70b")

EMBEDDING_8B = 128_256 * 4_096  # vocabulary x width: 525,336,576 (facts.md)


# --- what a token streams -------------------------------------------------------------------------

def test_streamed_bytes_exclude_the_input_embedding_table_and_equal_the_breakdown():
    p = LLAMA.parameters
    assert p.embedding == EMBEDDING_8B == 525_336_576
    assert not p.tied and p.output == p.embedding  # untied: the output projection is its own matrix
    assert p.streamed == p.layers + p.output == LLAMA.params - p.embedding == 7_504_924_672
    assert LLAMA.streamed_bytes == 2 * p.streamed
    assert rl.bytes_per_step(LLAMA) == LLAMA.streamed_bytes
    assert rl.bytes_per_step(LLAMA) == LLAMA.weight_bytes - 2 * EMBEDDING_8B


def test_a_tied_output_projection_is_stored_once_and_still_streamed():
    untied = LLAMA.parameters
    tied = rl.Parameters(untied.embedding, untied.layers, untied.output, tied=True)
    assert tied.total == untied.total - untied.output
    assert tied.streamed == untied.streamed


@pytest.mark.parametrize("key", sorted(rl.MODELS))
def test_each_breakdown_adds_up_to_the_published_parameter_count(key):
    m = rl.MODELS[key]
    assert m.params == m.published_params
    assert m.flops_per_token == 2 * m.streamed_params
    assert m.sources and m.head_dim * m.heads == m.width


def test_the_breakdown_counts_every_matrix_of_a_llama_layer():
    # Attention Q, K, V, O; gated feed-forward (three matrices); two norms; one final norm.
    per_layer = (4096 * 4096 * 2 + 4096 * 1024 * 2) + 3 * 4096 * 14_336 + 2 * 4096
    assert LLAMA.parameters.layers == 32 * per_layer + 4096


def test_a_wrong_shape_misses_the_published_count():
    """Power check: one wrong number in a row's shape is caught by the published total."""
    wrong = rl.llama_model("x", "X", vocab=128_256, width=4096, layers=32, heads=32, kv_heads=32,
                           ffn=14_336, published_params=8_030_261_248, sources=("llama2024",))
    assert wrong.params != wrong.published_params


def test_another_model_is_one_row_of_data():
    assert LLAMA_70B.params == 70_553_706_496
    assert LLAMA_70B.streamed_bytes / 1e9 == pytest.approx(139.0, abs=0.05)
    assert rl.ms_per_token(H100, LLAMA_70B) > 9 * rl.ms_per_token(H100, LLAMA)


# --- the brief's derived figures (facts.md, corrected) ----------------------------------------------

def test_weights_held_are_16_06_gb_and_streamed_15_01_gb():
    assert LLAMA.weight_bytes == 2 * 8_030_261_248
    assert LLAMA.weight_bytes / 1e9 == pytest.approx(16.06, abs=0.005)
    assert LLAMA.streamed_bytes / 1e9 == pytest.approx(15.01, abs=0.005)


def test_batch_one_is_4_48_ms_and_about_223_tokens_per_second():
    assert round(rl.ms_per_token(H100, LLAMA), 2) == 4.48
    assert round(rl.tokens_per_second(H100, LLAMA)) == 223


def test_batch_one_arithmetic_is_about_15_gflop_and_busy_0_34_percent():
    assert LLAMA.flops_per_token / 1e9 == pytest.approx(15.01, abs=0.005)
    assert rl.arithmetic_seconds(H100, LLAMA) * 1e3 == pytest.approx(0.015, abs=0.0005)
    assert round(rl.busy_fraction(H100, LLAMA) * 100, 2) == 0.34


def test_machine_balance_about_295_and_batch_one_intensity_one():
    assert round(rl.machine_balance(H100)) == 295
    assert rl.intensity(LLAMA) == pytest.approx(1.0)
    assert round(rl.balance_lanes(H100, LLAMA)) == 295


def test_kv_cache_is_131072_bytes_per_token():
    assert LLAMA.kv_bytes_per_token == 131_072


def test_batch_64_weights_only():
    tps = rl.tokens_per_second(H100, LLAMA, batch=64)
    assert round(tps, -1) == 14_280
    assert round(rl.busy_fraction(H100, LLAMA, batch=64) * 100) == 22


def test_batch_64_with_4096_token_cache():
    cache = rl.kv_cache_bytes(LLAMA, 64, 4096)
    assert round(cache / 1e9, 1) == 34.4
    assert round(rl.bytes_per_step(LLAMA, 64, 4096) / 1e9, 1) == 49.4
    assert round(rl.tokens_per_second(H100, LLAMA, 64, 4096), -1) == 4_340


def test_nine_lanes_use_about_three_percent_of_the_mill():
    assert round(rl.lanes_busy_fraction(H100, LLAMA, 9) * 100) == 3


def test_lanes_fraction_matches_busy_fraction_when_weights_only():
    for lanes in (1, 5, 64):
        assert rl.lanes_busy_fraction(H100, LLAMA, lanes) == pytest.approx(
            rl.busy_fraction(H100, LLAMA, batch=lanes)
        )


def test_cache_makes_steps_slower_not_faster():
    assert rl.step_seconds(H100, LLAMA, 64, 4096) > rl.step_seconds(H100, LLAMA, 64)
    assert rl.intensity(LLAMA, 64, 4096) < rl.intensity(LLAMA, 64)


@pytest.mark.parametrize("key", sorted(rl.GPUS))
def test_every_gpu_row_is_complete(key):
    g = rl.GPUS[key]
    assert g.key == key and g.bandwidth > 0 and g.flops > 0 and g.memory > 0 and g.sources
    assert rl.tokens_per_second(g, LLAMA) > 0


def test_another_gpu_is_one_row_of_data():
    fast = rl.GPU("x", "X", 2 * H100.bandwidth, H100.flops, H100.memory, ("nvidia-h100",))
    assert rl.tokens_per_second(fast, LLAMA) == pytest.approx(2 * rl.tokens_per_second(H100, LLAMA))


def test_h200_reads_faster_than_h100_and_a100_slower():
    h200, a100 = rl.gpu("h200-sxm"), rl.gpu("a100-80gb-sxm")
    assert rl.ms_per_token(h200, LLAMA) < rl.ms_per_token(H100, LLAMA) < rl.ms_per_token(a100, LLAMA)


def test_every_row_names_sources_that_exist():
    import tomllib
    from pathlib import Path

    sources = tomllib.loads((Path(__file__).resolve().parents[2] / "site" / "sources.toml").read_text())
    ids = {s["id"] for s in sources["source"]}
    for row in [*rl.GPUS.values(), *rl.MODELS.values()]:
        assert set(row.sources) <= ids, row.key
