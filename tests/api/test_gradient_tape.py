"""tf.GradientTape, tf.gradients, tf.hessians, tf.custom_gradient and tf.RegisterGradient behave as TensorFlow 2.21's.

The programs of ``gradient_tape_programs.py`` run with ``import modtensor as tf`` and are compared
with what TensorFlow recorded (``tools/make_golden_program_corpus.py gradient_tape``): gradient values and
structures, None for unconnected sources, watched variables, IndexedSlices, error classes and texts.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import modtensor as tf

from .test_function import _assert_same

HERE = Path(__file__).resolve().parent
GOLDEN = json.loads((HERE.parent / "golden" / "gradients" / "tape_programs.json").read_text())["programs"]


def _load_programs() -> Any:
    spec = importlib.util.spec_from_file_location("gradient_tape_programs", HERE / "gradient_tape_programs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PROGRAMS = _load_programs()


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_program_matches_tensorflow(name: str) -> None:
    actual = json.loads(json.dumps(PROGRAMS.PROGRAMS[name](tf)))
    _assert_same(actual, GOLDEN[name], name)


def test_recompute_grad_recomputes_in_the_backward_pass_with_the_plain_gradients() -> None:
    """tf.recompute_grad: the forward keeps no intermediates (f runs again for the gradient, once per call) and the
    gradients of arguments and read variables equal f's own, eagerly and in a tf.function (checked against TF 2.21:
    the same call counts, and 3.906118 / 7.708154 for y and x below)."""
    calls = []
    y = tf.Variable(1.5)

    def f(x: Any) -> Any:
        calls.append(1)
        return tf.sin(x) * y * x

    g = tf.recompute_grad(f)
    assert g.__wrapped__ is f
    x0 = tf.constant(0.7)
    with tf.GradientTape() as tape:
        tape.watch(x0)
        r = x0
        for _ in range(4):
            r = g(r)
    assert len(calls) == 4
    gy, gx = tape.gradient(r, [y, x0])
    assert len(calls) == 8  # each call's f ran again in the backward pass
    with tf.GradientTape() as plain:
        plain.watch(x0)
        r2 = x0
        for _ in range(4):
            r2 = f(r2)
    py, px = plain.gradient(r2, [y, x0])
    np.testing.assert_allclose([float(gy), float(gx)], [float(py), float(px)], rtol=1e-6)
    np.testing.assert_allclose([float(gy), float(gx)], [3.906118, 7.708154], rtol=1e-5)

    def two(a: Any, b: Any) -> Any:
        return a * b + tf.exp(a), tf.reduce_sum(a) * b

    a, b = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    with tf.GradientTape() as t3:
        t3.watch([a, b])
        u, v = tf.recompute_grad(two)(a, b)
        loss = tf.reduce_sum(u) + tf.reduce_sum(v * v)
    ga, gb = t3.gradient(loss, [a, b])
    np.testing.assert_allclose(ga.numpy(), [155.718277, 161.389053], rtol=1e-6)
    assert gb.numpy().tolist() == [55.0, 74.0]
    with tf.GradientTape() as t4:
        t4.watch([a, b])
        out = tf.recompute_grad(lambda p, q: p * 2.0)(a, b)
    assert [gr.numpy().tolist() for gr in t4.gradient(out, [a, b])] == [[2.0, 2.0], [0.0, 0.0]]  # zeros, as TF

    @tf.function
    def step(x: Any) -> Any:
        with tf.GradientTape() as t:
            t.watch(x)
            out = g(g(x))
        return t.gradient(out, [x, y])

    np.testing.assert_allclose([float(z) for z in step(tf.constant(0.3))], [0.346307, 0.052794], rtol=1e-5)


def test_a_variable_first_read_under_stop_recording_in_a_function_still_gets_its_gradient() -> None:
    """The function's capture of the variable's handle is recorded on every use (TF's captured_value record), so a
    tape still reaches a variable whose first read in the function was made while recording stopped."""
    y = tf.Variable(1.5)

    @tf.function
    def step(x: Any) -> Any:
        with tf.GradientTape() as t:
            t.watch(x)
            with t.stop_recording():
                _ = x * y
            out = x * y
        return t.gradient(out, [x, y])

    gx, gy = step(tf.constant(0.3))
    assert float(gx) == 1.5 and abs(float(gy) - 0.3) < 1e-7
