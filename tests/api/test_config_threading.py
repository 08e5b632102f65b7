"""``tf.config.threading``: TensorFlow's names and defaults; the intra-op setting drives the native kernels' pool."""

from __future__ import annotations

import pytest

import modtensor as tf
from modtensor.runtime import inter_op, intra_op
from modtensor.runtime.kernel_registry import global_kernel_registry


@pytest.fixture(autouse=True)
def _restore():
    intra, inter = (tf.config.threading.get_intra_op_parallelism_threads(),
                    tf.config.threading.get_inter_op_parallelism_threads())  # fmt: skip
    yield
    tf.config.threading.set_intra_op_parallelism_threads(intra)
    tf.config.threading.set_inter_op_parallelism_threads(inter)


def test_defaults_are_zero_as_in_tensorflow() -> None:
    assert tf.config.threading.get_intra_op_parallelism_threads() == 0
    assert tf.config.threading.get_inter_op_parallelism_threads() == 0


def test_settings_round_trip_and_reach_the_native_pool() -> None:
    global_kernel_registry()
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(3)
    assert tf.config.threading.get_intra_op_parallelism_threads() == 1
    assert tf.config.threading.get_inter_op_parallelism_threads() == 3
    assert inter_op.get_inter_op_parallelism_threads() == 3  # the executor's pool reads it
    assert intra_op.native_threads() == 1
    x = tf.constant([[1.0, 2.0]])
    assert (tf.matmul(x, x, transpose_b=True).numpy() == [[5.0]]).all()
    tf.config.threading.set_intra_op_parallelism_threads(0)  # every core again
    assert intra_op.native_threads() >= 1


def test_negative_thread_counts_are_refused() -> None:
    with pytest.raises(ValueError, match="must be >= 0"):
        tf.config.threading.set_intra_op_parallelism_threads(-1)
    with pytest.raises(ValueError, match="must be >= 0"):
        tf.config.threading.set_inter_op_parallelism_threads(-2)
