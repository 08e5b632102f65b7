"""Loss ops and the ``tf.nn`` / ``tf.math`` losses give TensorFlow 2.21's values and errors, eagerly and in graphs.

Inputs are regenerated with the generator's seeded RNG; TF's outputs and error texts are in
tests/golden/variables/cases.json (tools/make_golden_variables.py). TF's CPU kernels use
Eigen's vectorized exp/log and tree reductions, so values agree to float rounding (rtol 2e-6).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import modtensor as tf
from modtensor.framework import errors

GOLDEN = json.loads((Path(__file__).resolve().parent.parent / "golden" / "variables" / "cases.json").read_text())
LOSSES = {c["name"]: c for c in GOLDEN["losses"]}


def _inputs() -> dict[str, np.ndarray]:
    """The inputs the generator used (recorded beside TF's results)."""
    recorded = LOSSES["inputs"]["inputs"]
    return {k: np.array(v["values"], dtype=v["dtype"]).reshape(v["shape"]) for k, v in recorded.items()}


def _cases(x: dict[str, np.ndarray]) -> dict[str, Any]:
    logits, probs, labels, x3, p3, big = x["logits"], x["probs"], x["labels"], x["x3"], x["p3"], x["big"]
    return {
        "op_softmax_xent": lambda: tf.raw_ops.SoftmaxCrossEntropyWithLogits(features=logits, labels=probs),
        "op_softmax_xent_broadcast": lambda: tf.raw_ops.SoftmaxCrossEntropyWithLogits(
            features=logits, labels=probs[:1]
        ),
        "op_softmax_xent_f64": lambda: tf.raw_ops.SoftmaxCrossEntropyWithLogits(
            features=logits.astype(np.float64), labels=probs.astype(np.float64)
        ),
        "op_softmax_xent_bad": lambda: tf.raw_ops.SoftmaxCrossEntropyWithLogits(features=logits, labels=probs[:, :3]),
        "op_softmax_xent_rank": lambda: tf.raw_ops.SoftmaxCrossEntropyWithLogits(features=x3, labels=p3),
        "op_sparse_xent": lambda: tf.raw_ops.SparseSoftmaxCrossEntropyWithLogits(features=logits, labels=labels),
        "op_sparse_xent_int64": lambda: tf.raw_ops.SparseSoftmaxCrossEntropyWithLogits(
            features=logits, labels=labels.astype(np.int64)
        ),
        "op_sparse_xent_bad_label": lambda: tf.raw_ops.SparseSoftmaxCrossEntropyWithLogits(
            features=logits, labels=np.array([0, 7, 2, 1], np.int32)
        ),
        "op_sparse_xent_batch": lambda: tf.raw_ops.SparseSoftmaxCrossEntropyWithLogits(
            features=logits, labels=labels[:3]
        ),
        "op_l2_loss": lambda: tf.raw_ops.L2Loss(t=logits),
        "op_l2_loss_f64": lambda: tf.raw_ops.L2Loss(t=x3.astype(np.float64)),
        "op_is_finite": lambda: tf.raw_ops.IsFinite(x=big),
        "nn_softmax_xent": lambda: tf.nn.softmax_cross_entropy_with_logits(labels=probs, logits=logits),
        "nn_softmax_xent_axis0": lambda: tf.nn.softmax_cross_entropy_with_logits(
            labels=probs.T, logits=logits.T, axis=0
        ),
        "nn_softmax_xent_rank3": lambda: tf.nn.softmax_cross_entropy_with_logits(labels=p3, logits=x3),
        "nn_softmax_xent_rank1": lambda: tf.nn.softmax_cross_entropy_with_logits(labels=probs[0], logits=logits[0]),
        "nn_softmax_xent_shapes": lambda: tf.nn.softmax_cross_entropy_with_logits(labels=probs[:, :3], logits=logits),
        "nn_sparse_xent": lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits),
        "nn_sparse_xent_rank3": lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=np.array([[0, 3, 1], [2, 2, 0]], np.int64), logits=x3
        ),
        "nn_sparse_xent_rank_mismatch": lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=labels[:, None], logits=logits
        ),
        "nn_sigmoid_xent": lambda: tf.nn.sigmoid_cross_entropy_with_logits(labels=probs, logits=logits),
        "nn_sigmoid_xent_extreme": lambda: tf.nn.sigmoid_cross_entropy_with_logits(
            labels=np.array([0.0, 1.0, 0.5, 1.0], np.float32), logits=np.array([100.0, -100.0, 0.0, 3.0], np.float32)
        ),
        "nn_sigmoid_xent_shapes": lambda: tf.nn.sigmoid_cross_entropy_with_logits(
            labels=probs[:, :3], logits=logits
        ),
        "nn_l2_loss": lambda: tf.nn.l2_loss(x3),
        "logsumexp": lambda: tf.math.reduce_logsumexp(logits),
        "logsumexp_axis": lambda: tf.math.reduce_logsumexp(logits, axis=1),
        "logsumexp_keepdims": lambda: tf.math.reduce_logsumexp(x3, axis=[0, 2], keepdims=True),
        "logsumexp_inf": lambda: tf.math.reduce_logsumexp(big, axis=1),
        "logsumexp_f64": lambda: tf.math.reduce_logsumexp(x3.astype(np.float64), axis=-1),
    }


def _check(name: str, run: Any) -> None:
    want = LOSSES[name]
    if "error" in want:
        with pytest.raises((errors.OpError, ValueError)) as info:
            run()
        assert type(info.value).__name__ == want["error"]["type"], name
        got = str(getattr(info.value, "message", info.value))
        assert got.split("}} ", 1)[-1].split(" [Op:")[0] == want["error"]["message"].split("}} ", 1)[-1].split(
            " [Op:"
        )[0], name
        return
    got = run()
    got = list(got) if isinstance(got, (list, tuple)) else [got]
    assert len(got) == len(want["values"]), name
    for value, expected in zip(got, want["values"], strict=True):
        expected_array = np.array(expected["values"], dtype=expected["dtype"]).reshape(expected["shape"])
        assert value.dtype.name == expected["dtype"], name
        np.testing.assert_allclose(value.numpy(), expected_array, rtol=2e-6, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("name", sorted(n for n in LOSSES if n != "inputs"))
def test_loss_matches_tensorflow_eagerly(name: str) -> None:
    _check(name, _cases(_inputs())[name])


@pytest.mark.parametrize(
    "name", sorted(n for n in LOSSES if n.startswith(("nn_", "logsumexp")) and "error" not in LOSSES[n])
)
def test_loss_matches_tensorflow_in_a_function(name: str) -> None:
    fn = _cases(_inputs())[name]
    _check(name, lambda: tf.function(fn)())


def test_losses_in_a_v1_graph_keep_static_shapes() -> None:
    g = tf.Graph()
    with g.as_default():
        logits = tf.compat.v1.placeholder(tf.float32, [None, 3, 5])
        probs = tf.compat.v1.placeholder(tf.float32, [None, 3, 5])
        loss = tf.nn.softmax_cross_entropy_with_logits(labels=probs, logits=logits)
        assert loss.shape.as_list() == [None, 3]
        labels = tf.compat.v1.placeholder(tf.int32, [None, 3])
        sparse = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        assert sparse.shape.as_list() == [None, 3]
        with tf.compat.v1.Session() as sess:
            x = np.zeros((2, 3, 5), np.float32)
            out = sess.run([loss, sparse], {logits: x, probs: np.full((2, 3, 5), 0.2, np.float32),
                                            labels: np.zeros((2, 3), np.int32)})  # fmt: skip
            np.testing.assert_allclose(out[0], np.full((2, 3), np.log(5.0)), rtol=1e-6)
            np.testing.assert_allclose(out[1], np.full((2, 3), np.log(5.0)), rtol=1e-6)


def test_half_precision_logits_are_computed_in_float32_and_cast_back() -> None:
    logits = np.array([[1.0, 2.0, 3.0]], np.float16)
    loss = tf.nn.softmax_cross_entropy_with_logits(labels=[[0.0, 0.0, 1.0]], logits=logits)
    assert loss.dtype == tf.float16
    np.testing.assert_allclose(loss.numpy().astype(np.float32), [0.40760596], rtol=1e-3)
