"""``tf.random.categorical`` / ``stateless_categorical`` / ``compat.v1.multinomial``: TensorFlow's samples.

The Session replay runs each seeded Multinomial node of tools/make_golden_random_categorical.py's graph
as many times as TF did: the k-th run must give TF's k-th samples (the kernel's stream advances per call).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import modtensor as tf
from modtensor.framework import errors
from modtensor.kernels.cpu import random as cpu_random

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "random_categorical"
INDEX = json.loads((GOLDEN / "index.json").read_text())


@pytest.fixture(autouse=True)
def _no_global_seed():
    tf.random.set_seed(None)
    yield
    tf.random.set_seed(None)


def test_session_runs_replay_tensorflows_streams() -> None:
    data = np.load(GOLDEN / "streams.npz")
    graph = tf.Graph()
    with graph.as_default():
        n = tf.compat.v1.placeholder(tf.int32, [], name="num_samples")
        dtypes = ("float32", "float64", "float16")
        inputs = {d: tf.compat.v1.placeholder(d, [None, None], name=f"logits_{d}") for d in dtypes}
        nodes = [
            (c["name"], inputs[c["dtype"]], tf.raw_ops.Multinomial(
                logits=inputs[c["dtype"]], num_samples=n, seed=c["seed"], seed2=c["seed2"],
                output_dtype=c["output_dtype"], name=c["name"]))
            for c in INDEX["cases"]
        ]  # fmt: skip
    with tf.compat.v1.Session(graph=graph) as session:
        for call, samples in enumerate(INDEX["num_samples"]):
            feeds = {x: data[f"logits_{d}"] for d, x in inputs.items()} | {n: samples}
            values = session.run([y for _, _, y in nodes], feeds)
            for (name, _, _), got in zip(nodes, values, strict=True):
                want = data[f"{name}/call{call}"]
                assert got.dtype == want.dtype and got.shape == want.shape, name
                np.testing.assert_array_equal(got, want, err_msg=f"{name} call {call}")


def test_eager_api_matches_recorded_first_calls() -> None:
    data = np.load(GOLDEN / "streams.npz")
    x = data["logits_float64"]
    want = data["Multinomial_float64_int32_7_3/call0"]
    got = tf.raw_ops.Multinomial(logits=x, num_samples=5, seed=7, seed2=3, output_dtype=tf.int32)
    np.testing.assert_array_equal(got.numpy(), want)


def test_categorical_seeds_as_tensorflow() -> None:
    logits = np.log([[0.1, 0.2, 0.7], [0.5, 0.5, 1e-9]]).astype(np.float32)
    tf.random.set_seed(5)
    # recorded with TF 2.21: tf.random.set_seed(5); tf.random.categorical(logits, 6); then with seed=3, int32
    a = tf.random.categorical(logits, 6)
    b = tf.random.categorical(logits, 6, seed=3, dtype=tf.int32)
    assert a.dtype == tf.int64 and b.dtype == tf.int32
    np.testing.assert_array_equal(a.numpy(), [[0, 0, 2, 2, 1, 1], [0, 0, 0, 0, 1, 0]])
    np.testing.assert_array_equal(b.numpy(), [[2, 2, 2, 2, 2, 2], [1, 1, 1, 0, 0, 1]])
    np.testing.assert_array_equal(tf.random.stateless_categorical(logits, 6, seed=[1, 2]).numpy(),
                                  [[2, 2, 1, 2, 2, 2], [1, 0, 1, 1, 1, 0]])  # fmt: skip
    np.testing.assert_array_equal(tf.compat.v1.multinomial(logits, 4, seed=9).numpy(), [[2, 2, 2, 0], [0, 1, 1, 0]])


def test_categorical_in_a_function_graph_and_errors() -> None:
    @tf.function
    def draw(x):
        return tf.random.stateless_categorical(x, 3, seed=[4, 5], dtype=tf.int32)

    x = np.zeros((2, 4), np.float32)
    np.testing.assert_array_equal(draw(x).numpy(), tf.random.stateless_categorical(x, 3, seed=[4, 5], dtype=tf.int32))
    with pytest.raises(ValueError, match="Argument `dtype` got invalid value"):
        tf.random.categorical(x, 2, dtype=tf.float32)
    with pytest.raises(errors.InvalidArgumentError, match="num_samples should be non-negative, got -1"):
        tf.raw_ops.Multinomial(logits=x, num_samples=-1, seed=1, seed2=1)


def test_row_shards_follow_eigens_partition() -> None:
    # Checked against TF 2.21 on a 2-core machine: these sizes split the batch as below.
    assert cpu_random._multinomial_shards(64, 1000, 100, 2) == [(i, i + 8) for i in range(0, 64, 8)]
    assert cpu_random._multinomial_shards(7, 3000, 50, 2) == [(0, 2), (2, 4), (4, 6), (6, 7)]
    assert cpu_random._multinomial_shards(3, 10, 5, 16) == [(0, 3)]
    assert cpu_random._multinomial_shards(64, 1000, 100, 1) == [(0, 64)]


def test_samples_follow_the_distribution() -> None:
    probs = np.array([0.1, 0.2, 0.3, 0.4])
    got = tf.random.categorical(np.log(probs)[None, :].astype(np.float32), 20000, seed=11).numpy()[0]
    freq = np.bincount(got, minlength=4) / got.size
    assert np.all(np.abs(freq - probs) < 5 * np.sqrt(probs * (1 - probs) / got.size))
