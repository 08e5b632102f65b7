"""AUTOTUNE parallelism of dataset.map: measured, never losing elements or their order when it switches."""

from __future__ import annotations

import pytest

import modtensor as tf
from modtensor.kernels.cpu.data import autotune


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_tuner_keeps_the_candidate_that_delivers_fastest_and_measures_again_later(monkeypatch) -> None:
    clock = _Clock()
    monkeypatch.setattr(autotune.time, "perf_counter", clock)
    tuner = autotune.ParallelismTuner([4, 0])
    cost = {4: 3.0, 0: 1.0}  # seconds per element: inline is faster
    seen = []
    while tuner.tuning:
        seen.append(tuner.current)
        clock.now += cost[tuner.current]
        tuner.tick()
    assert seen.count(4) == seen.count(0) == autotune.ROUNDS * autotune.WINDOW
    assert tuner.current == 0
    cost = {4: 1.0, 0: 3.0}  # the pipeline changed: parallel is faster now
    for _ in range(autotune.RETUNE_EVERY):
        clock.now += cost[tuner.current]
        tuner.tick()
    assert tuner.tuning
    while tuner.tuning:
        clock.now += cost[tuner.current]
        tuner.tick()
    assert tuner.current == 4


@pytest.mark.parametrize("deterministic", [True, False])
def test_an_autotuned_map_delivers_every_element_across_its_switches(deterministic: bool) -> None:
    """Past two tunings (inline <-> threads several times): every element once, in order when deterministic."""
    n = autotune.RETUNE_EVERY + 8 * autotune.WINDOW * autotune.ROUNDS + 5
    ds = tf.data.Dataset.range(n).map(lambda x: x * 3 + 1, num_parallel_calls=tf.data.AUTOTUNE,
                                      deterministic=deterministic)  # fmt: skip
    got = [int(v) for v in ds]
    want = [3 * i + 1 for i in range(n)]
    assert got == want if deterministic else sorted(got) == want


def test_an_autotuned_map_reports_the_functions_error() -> None:
    ds = tf.data.Dataset.range(100).map(
        lambda x: tf.debugging.check_numerics(1.0 / tf.cast(x - 50, tf.float32), "inverse"),
        num_parallel_calls=tf.data.AUTOTUNE,
    )
    with pytest.raises(tf.errors.InvalidArgumentError, match="inverse"):
        for _ in ds:
            pass
