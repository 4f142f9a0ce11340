"""The roofline code reproduces the brief's derived figures (facts.md, "Derived")."""

import pytest

from sim import roofline as rl

H100 = rl.gpu("h100-sxm")
LLAMA = rl.model("llama-3.1-8b")


def test_weights_are_about_16_gb():
    assert LLAMA.weight_bytes == 2 * 8_030_261_248
    assert LLAMA.weight_bytes / 1e9 == pytest.approx(16.06, abs=0.005)


def test_batch_one_is_4_79_ms_and_about_209_tokens_per_second():
    assert round(rl.ms_per_token(H100, LLAMA), 2) == 4.79
    assert round(rl.tokens_per_second(H100, LLAMA)) == 209


def test_batch_one_arithmetic_is_busy_0_34_percent():
    assert rl.arithmetic_seconds(H100, LLAMA) * 1e3 == pytest.approx(0.016, abs=0.0005)
    assert round(rl.busy_fraction(H100, LLAMA) * 100, 2) == 0.34


def test_machine_balance_about_295_and_batch_one_intensity_one():
    assert round(rl.machine_balance(H100)) == 295
    assert rl.intensity(LLAMA) == pytest.approx(1.0)
    assert round(rl.balance_lanes(H100, LLAMA)) == 295


def test_kv_cache_is_131072_bytes_per_token():
    assert LLAMA.kv_bytes_per_token == 131_072


def test_batch_64_weights_only():
    tps = rl.tokens_per_second(H100, LLAMA, batch=64)
    assert round(tps, -1) == 13_350
    assert round(rl.busy_fraction(H100, LLAMA, batch=64) * 100) == 22


def test_batch_64_with_4096_token_cache():
    cache = rl.kv_cache_bytes(LLAMA, 64, 4096)
    assert round(cache / 1e9, 1) == 34.4
    assert round(rl.bytes_per_step(LLAMA, 64, 4096) / 1e9, 1) == 50.4
    assert round(rl.tokens_per_second(H100, LLAMA, 64, 4096), -1) == 4_250


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
