"""examples/plugins/custom_op built with the README's command, loaded both ways, run in eager, function and session."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import modtensor as tf
from modtensor import sysconfig
from modtensor.framework import errors
from modtensor.plugin import load_op_library

from .support import REPO

EXAMPLE = REPO / "examples" / "plugins" / "custom_op"


@pytest.fixture(scope="module")
def custom_op_library(tmp_path_factory) -> str:
    """custom_op.so, compiled exactly as README.md says (g++ with the SDK's compile flags)."""
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed (scripts/bootstrap.sh installs it)")
    out = tmp_path_factory.mktemp("custom_op") / "custom_op.so"
    cmd = ["g++", "-std=c++17", "-shared", "-fPIC", "-O2", "custom_op.cc", "-o", str(out)]
    done = subprocess.run(cmd + sysconfig.get_compile_flags(), cwd=EXAMPLE, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return str(out)


@pytest.fixture(scope="module")
def custom(custom_op_library):
    return load_op_library(custom_op_library)


def test_eager(custom):
    x = np.array([[3.0, 4.0, 0.5], [1.0, -2.0, 2.0]], np.float32)
    y = custom.polyval(tf.constant(x), coeffs=[1.0, 0.0, -1.0])
    np.testing.assert_allclose(y.numpy(), np.polyval([1.0, 0.0, -1.0], x), rtol=1e-6)
    assert y.dtype == tf.float32
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(custom.row_norm(tf.constant(x64)).numpy(), np.linalg.norm(x64, axis=-1))
    np.testing.assert_allclose(custom.row_norm(tf.constant(x64), ord=1).numpy(), np.abs(x64).sum(-1))


def test_function(custom):
    @tf.function
    def f(a):
        return custom.row_norm(custom.polyval(a, coeffs=[2.0, 1.0]), ord=1)

    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    np.testing.assert_allclose(f(tf.constant(x)).numpy(), np.abs(2 * x + 1).sum(-1))


def test_session(custom):
    v1 = tf.compat.v1
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float64, [None, 4])
        y = custom.row_norm(custom.polyval(x, coeffs=[1.0, 1.0]))
    assert y.shape.as_list() == [None]  # RowNorm's C shape function
    feed = np.arange(8, dtype=np.float64).reshape(2, 4)
    with v1.Session(graph=g) as session:
        np.testing.assert_allclose(session.run(y, {x: feed}), np.linalg.norm(feed + 1, axis=-1))


def test_errors_name_the_plugin(custom, custom_op_library):
    with pytest.raises(errors.InvalidArgumentError) as info:
        custom.row_norm(tf.constant([1.0, 2.0]), ord=3)
    assert "RowNorm: ord must be 1 or 2, got 3" in info.value.message
    assert custom_op_library in info.value.message
    g = tf.Graph()
    with g.as_default(), pytest.raises(ValueError, match="Shape must be at least rank 1 but is rank 0"):
        custom.row_norm(tf.compat.v1.placeholder(tf.float32, []))


def test_installed_in_a_plugin_folder_it_loads_by_itself(custom_op_library, tmp_path):
    site = tmp_path / "site-packages"
    (site / "modtensor-plugins").mkdir(parents=True)
    shutil.copy(custom_op_library, site / "modtensor-plugins" / "custom_op.so")
    script = (
        "import numpy as np, modtensor as tf\n"
        "import modtensor.plugin  # installs discovery; a no-op once modtensor/__init__ imports it\n"
        "from modtensor.api.dispatch import apply_op\n"
        "y = apply_op('Polyval', x=tf.constant([2.0, 3.0]), coeffs=[1.0, 1.0])\n"
        "print(y.numpy().tolist())\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]))
    env.pop("MODTENSOR_NO_PLUGINS", None)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[3.0, 4.0]"


def test_a_plugin_op_gets_its_gradient_from_python(custom):
    """tf.RegisterGradient gives a C plugin's op a gradient (TF's way): tapes, tf.function and tf.gradients use it."""
    x = tf.constant([1.5, -2.0, 0.5])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = custom.polyval(x, coeffs=[3.0, 2.0, 1.0])
    with pytest.raises(LookupError, match=r"No gradient defined for operation'Polyval' \(op type: Polyval\)"):
        tape.gradient(y, x)

    @tf.RegisterGradient("Polyval")
    def _polyval_grad(op, grad):
        coeffs = op.get_attr("coeffs")
        n = len(coeffs) - 1
        derivative = [c * (n - i) for i, c in enumerate(coeffs[:-1])]
        return grad * custom.polyval(op.inputs[0], coeffs=derivative)

    try:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = custom.polyval(x, coeffs=[3.0, 2.0, 1.0])  # 3x^2 + 2x + 1: derivative 6x + 2
        want = 6 * x.numpy() + 2
        np.testing.assert_allclose(tape.gradient(y, x).numpy(), want, rtol=1e-6)

        @tf.function
        def in_function(a):
            with tf.GradientTape() as t:
                t.watch(a)
                b = tf.reduce_sum(custom.polyval(a, coeffs=[3.0, 2.0, 1.0]))
            return t.gradient(b, a)

        np.testing.assert_allclose(in_function(x).numpy(), want, rtol=1e-6)
        g = tf.Graph()
        with g.as_default():
            a = tf.compat.v1.placeholder(tf.float32, [3])
            (ga,) = tf.compat.v1.gradients(custom.polyval(a, coeffs=[3.0, 2.0, 1.0]), [a])
            with tf.compat.v1.Session(graph=g) as session:
                np.testing.assert_allclose(session.run(ga, {a: x.numpy()}), want, rtol=1e-6)
    finally:
        from modtensor.framework import gradient_registry

        gradient_registry.remove("Polyval")
