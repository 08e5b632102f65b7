"""``modtensor.optimizers`` follow Keras 3's update sequences and ``compat.v1.train`` TF 1's, step by step.

TF 2.21 / Keras 3.15 sequences (5 steps of random gradients on two variables, one case per
configuration) are in tests/golden/variables/cases.json (tools/make_golden_variables.py).
modtensor applies each update with TF's fused training kernel where Keras 3 writes the rule
as elementwise ops, so the sequences agree to float32 rounding (see modtensor.api.optimizers).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import modtensor as tf

GOLDEN = json.loads((Path(__file__).resolve().parent.parent / "golden" / "variables" / "cases.json").read_text())


def array(entry: dict) -> np.ndarray:
    return np.array(entry["values"], dtype=entry["dtype"]).reshape(entry["shape"])


def keras_id(case: dict) -> str:
    return case["optimizer"] + "-" + ",".join(f"{k}={v}" for k, v in case["kwargs"].items())


def _run_keras_case(case: dict, step: Any) -> list[list[np.ndarray]]:
    variables = [tf.Variable(array(x)) for x in case["init"]]
    opt = getattr(tf.optimizers, case["optimizer"])(**case["kwargs"])
    history = []
    for grads in case["grads"]:
        step(opt, [tf.constant(array(g)) for g in grads], variables)
        history.append([v.numpy() for v in variables])
    assert int(opt.iterations.numpy()) == case["iterations"]
    return history


def _check(case: dict, history: list[list[np.ndarray]]) -> None:
    for i, (got, want) in enumerate(zip(history, case["history"], strict=True)):
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g, array(w), rtol=2e-6, atol=2e-7, err_msg=f"after step {i + 1}")


@pytest.mark.parametrize("case", GOLDEN["keras_optimizers"], ids=keras_id)
def test_keras_optimizer_sequence_eagerly(case: dict) -> None:
    _check(case, _run_keras_case(case, lambda opt, grads, vs: opt.apply_gradients(zip(grads, vs, strict=True))))


@pytest.mark.parametrize("case", GOLDEN["keras_optimizers"], ids=keras_id)
def test_keras_optimizer_sequence_in_a_function(case: dict) -> None:
    traced: list[Any] = []

    def step(opt: Any, grads: list[Any], variables: list[Any]) -> None:
        if not traced:

            @tf.function
            def apply(g0: Any, g1: Any) -> None:
                opt.apply_gradients(zip([g0, g1], variables, strict=True))

            traced.append(apply)
        traced[0](*grads)

    _check(case, _run_keras_case(case, step))
    assert traced[0].experimental_get_tracing_count() == 1  # the slots were created once, outside the trace


def test_sgd_without_momentum_is_bit_exact_with_keras() -> None:
    (case,) = [c for c in GOLDEN["keras_optimizers"] if c["optimizer"] == "SGD" and len(c["kwargs"]) == 1]
    history = _run_keras_case(case, lambda opt, grads, vs: opt.apply_gradients(zip(grads, vs, strict=True)))
    for got, want in zip(history, case["history"], strict=True):
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, array(w))


def test_optimizer_arguments_and_errors_follow_keras() -> None:
    with pytest.raises(ValueError, match="Argument `learning_rate` should be float"):
        tf.optimizers.SGD(learning_rate=1)
    with pytest.raises(ValueError, match=r"`momentum` must be a float between \[0, 1\]"):
        tf.optimizers.SGD(momentum=2.0)
    with pytest.raises(ValueError, match="Only one of `clipnorm`, `clipvalue` and `global_clipnorm`"):
        tf.optimizers.Adam(clipnorm=1.0, clipvalue=1.0)
    with pytest.raises(ValueError, match="Argument\\(s\\) not recognized"):
        tf.optimizers.Adam(lr=0.1)
    opt = tf.optimizers.Adam(0.1)
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        opt.apply_gradients([(None, v)])
    with pytest.raises(ValueError, match="`tape` is required when a `Tensor` loss is passed"):
        opt.minimize(v * v, [v])
    assert opt.learning_rate.numpy() == np.float32(0.1)
    opt.learning_rate = 0.5
    assert opt.learning_rate.numpy() == np.float32(0.5)


def test_a_none_gradient_is_skipped_with_kerass_warning() -> None:
    a, b = tf.Variable([1.0]), tf.Variable([2.0])
    opt = tf.optimizers.SGD(0.5)
    with pytest.warns(UserWarning, match="Gradients do not exist for variables"):
        opt.apply_gradients([(tf.constant([1.0]), a), (None, b)])
    assert a.numpy().tolist() == [0.5] and b.numpy().tolist() == [2.0]


def test_clipping_and_schedules() -> None:
    v = tf.Variable([0.0, 0.0])
    tf.optimizers.SGD(1.0, clipnorm=1.0).apply_gradients([(tf.constant([3.0, 4.0]), v)])
    np.testing.assert_allclose(v.numpy(), [-0.6, -0.8], rtol=1e-6)
    w = tf.Variable([0.0])
    tf.optimizers.SGD(1.0, clipvalue=0.5).apply_gradients([(tf.constant([3.0]), w)])
    assert w.numpy().tolist() == [-0.5]
    rates = []

    def schedule(step: Any) -> Any:
        rates.append(int(step))
        return 0.1 * (int(step) + 1)

    u = tf.Variable([0.0])
    opt = tf.optimizers.SGD(schedule)
    for _ in range(3):
        opt.apply_gradients([(tf.constant([1.0]), u)])
    assert rates == [0, 1, 2]
    np.testing.assert_allclose(u.numpy(), [-0.6], rtol=1e-6)


# ------------------------------------------------------------------------------------------- compat.v1.train


def v1_id(case: dict) -> str:
    return case["optimizer"] + "-" + ",".join(f"{k}={v}" for k, v in case["kwargs"].items())


@pytest.mark.parametrize("case", GOLDEN["v1_optimizers"], ids=v1_id)
def test_v1_train_optimizer_sequence_in_a_session(case: dict) -> None:
    shapes = [tuple(x["shape"]) for x in case["init"]]
    g = tf.Graph()
    with g.as_default():
        variables = [tf.compat.v1.Variable(array(x), name=f"v{i}") for i, x in enumerate(case["init"])]
        placeholders = [tf.compat.v1.placeholder(tf.float32, s) for s in shapes]
        opt = getattr(tf.compat.v1.train, case["optimizer"])(**case["kwargs"])
        train = opt.apply_gradients(list(zip(placeholders, variables, strict=True)))
        assert (train.name, train.type) == (case["train_op"], case["train_op_type"])
        assert opt.get_slot_names() == case["slot_names"]
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            for i, grads in enumerate(case["grads"]):
                sess.run(train, dict(zip(placeholders, [array(x) for x in grads], strict=True)))
                for got, want in zip(sess.run(variables), case["history"][i], strict=True):
                    np.testing.assert_allclose(got, array(want), rtol=1e-6, atol=1e-7, err_msg=f"step {i + 1}")


@pytest.mark.parametrize("case", GOLDEN["v1_optimizers"], ids=v1_id)
def test_v1_train_optimizer_sequence_eagerly(case: dict) -> None:
    variables = [tf.Variable(array(x)) for x in case["init"]]
    opt = getattr(tf.compat.v1.train, case["optimizer"])(**case["kwargs"])
    for i, grads in enumerate(case["grads"]):
        opt.apply_gradients(zip([tf.constant(array(x)) for x in grads], variables, strict=True))
        for got, want in zip(variables, case["history"][i], strict=True):
            np.testing.assert_allclose(got.numpy(), array(want), rtol=1e-6, atol=1e-7, err_msg=f"step {i + 1}")


def test_v1_minimize_eagerly_needs_a_callable_loss() -> None:
    with pytest.raises(RuntimeError, match="should be a function when eager execution is enabled"):
        tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(tf.constant(1.0))
    with pytest.raises(ValueError, match="No variables provided"):
        tf.compat.v1.train.GradientDescentOptimizer(0.1).apply_gradients([])


def test_v1_global_step_counts_applications() -> None:
    g = tf.Graph()
    with g.as_default():
        v = tf.compat.v1.Variable([1.0], name="v")
        step = tf.compat.v1.Variable(0, name="global_step", trainable=False, dtype=tf.int64)
        train = tf.compat.v1.train.GradientDescentOptimizer(0.5).apply_gradients([(tf.constant([1.0]), v)], step)
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            for _ in range(3):
                sess.run(train)
            assert sess.run(step) == 3 and sess.run(v).tolist() == [-0.5]
