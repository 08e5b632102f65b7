"""Record what TensorFlow's trigonometric, hyperbolic and C-division math functions build and compute.

    /work/tfvenv/bin/python tools/make_golden_math_ops.py

Writes ``tests/golden/math_ops/``: ``graph_cases.json`` and ``eager_cases.json`` (snippets of ``tf.math``'s
``tan``, ``asin``, ``acos``, ``atan``, ``atan2``, ``sinh``, ``cosh``, ``asinh``, ``acosh``, ``atanh``, ``rint``,
``nextafter``, ``multiply_no_nan``, ``reciprocal_no_nan`` and ``tf.truncatediv`` / ``tf.truncatemod``: values, TF's
graphs, placeholders, gradients through ``tf.GradientTape`` and TF's errors, ids ``mathop_...``, read by
``tests/api/test_math_ops_golden.py``), and in ``ops/`` the files ``tools/make_golden_op_breadth.py`` writes (OpDefs,
CPU kernel constraints, shape and kernel cases) for Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh, Rint,
Atan2, TruncateDiv, TruncateMod, MulNoNan and NextAfter: every float and complex dtype, signed zeros, infinities,
NaN, the domain edges, halves for Rint, negative operands and zero divisors for the C divisions, broadcasting.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import make_golden_frontend_breadth  # noqa: E402, F401  (its scalar-bytes encoding of eager values)
import make_golden_frontend_ops as base  # noqa: E402
import make_golden_op_breadth as breadth  # noqa: E402
import numpy as np  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "math_ops"

TRIG = ["Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh"]
OPS = [*TRIG, "Rint", "Atan2", "TruncateDiv", "TruncateMod", "MulNoNan", "NextAfter"]

X = "tf.constant([-0.75, -0.1, 0.0, 0.3, 0.9])"
BIG = "tf.constant([1.0, 1.5, 3.0, 10.0])"
X64 = "tf.constant([-0.6, 0.25, 0.5], tf.float64)"
Z = "tf.complex(tf.constant([0.5, -1.5, 2.0]), tf.constant([0.25, 1.0, -0.5]))"


def tape(setup: str, expr: str, wrt: str = "x") -> str:
    """A snippet returning the gradient of ``reduce_sum(expr)`` with respect to ``wrt`` (eager)."""
    body = f"with tf.GradientTape() as t:\n    t.watch({wrt})\n    y = tf.reduce_sum({expr})"
    return f"{setup}\n{body}\nt.gradient(y, {wrt})"


CASES: list[tuple[str, str, str]] = [
    *[(f"mathop_{f}", f"tf.math.{f}({X})", "ge") for f in ("tan", "asin", "acos", "atan", "sinh", "cosh", "asinh",
                                                        "atanh")],  # fmt: skip
    ("mathop_acosh", f"tf.math.acosh({BIG})", "ge"),
    *[(f"mathop_{f}_top_level", f"tf.{f}({X64}, name='{f}_op')", "ge") for f in ("tan", "asin", "acos", "atan", "sinh",
                                                                                "cosh", "asinh", "atanh")],  # fmt: skip
    *[(f"mathop_{f}_complex", f"tf.math.{f}({Z})", "e") for f in ("tan", "asin", "acos", "atan", "sinh", "cosh",
                                                                "asinh", "acosh", "atanh")],  # fmt: skip
    ("mathop_trig_ph", "tf.math.atan(ph(tf.float32, [None, 3]))", "g"),
    ("mathop_trig_int", "tf.math.tan(tf.constant([1, 2]))", "ge"),
    ("mathop_domain_edges",
     "[tf.math.asin(tf.constant([1.5, -1.0])), tf.math.acos(tf.constant([-1.0, 2.0])), "
     "tf.math.atanh(tf.constant([1.0, -1.0, 2.0])), tf.math.acosh(tf.constant([0.5, 1.0]))]", "e"),
    ("mathop_atan2",
     "tf.math.atan2(tf.constant([1.0, -1.0, 0.0, -0.0, 2.0]), tf.constant([0.0, -1.0, -1.0, -1.0, 3.0]))", "ge"),
    ("mathop_atan2_broadcast",
     "tf.atan2(tf.constant([[1.0], [-2.0]]), tf.constant([0.5, -0.5, 2.0]), name='a2')", "ge"),
    ("mathop_atan2_ph", "tf.math.atan2(ph(tf.float64, [None, 1]), ph(tf.float64, [4]))", "g"),
    ("mathop_atan2_mismatch", "tf.math.atan2(tf.constant([1.0]), tf.constant([1.0], tf.float64))", "ge"),
    ("mathop_rint", "tf.math.rint(tf.constant([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.6, -0.4]))", "ge"),
    ("mathop_rint_f64", "tf.math.rint(tf.constant([0.5, 3.5, -7.5], tf.float64), name='r')", "ge"),
    ("mathop_truncatediv", "tf.truncatediv(tf.constant([-7, 7, -7, 7, 0]), tf.constant([2, -2, -2, 2, 5]))", "ge"),
    ("mathop_truncatediv_float", "tf.truncatediv(tf.constant([-7.5, 7.5, 1.0]), tf.constant([2.0, -2.0, 0.0]))", "ge"),
    ("mathop_truncatediv_uint8", "tf.truncatediv(tf.constant([200, 7], tf.uint8), tf.constant([3, 2], tf.uint8))",
     "e"),
    ("mathop_truncatediv_zero", "tf.truncatediv(tf.constant([1, 2]), tf.constant([1, 0]))", "e"),
    ("mathop_truncatemod", "tf.truncatemod(tf.constant([-7, 7, -7, 7]), tf.constant([2, -2, -2, 2]))", "ge"),
    ("mathop_truncatemod_float",
     "tf.truncatemod(tf.constant([-7.5, 7.5, -1.0], tf.float64), tf.constant([2.0, -2.0, 0.0], tf.float64))", "ge"),
    ("mathop_truncatemod_zero", "tf.truncatemod(tf.constant([3], tf.int64), tf.constant([0], tf.int64))", "e"),
    ("mathop_truncatemod_broadcast", "tf.truncatemod(tf.reshape(tf.range(-6, 6), [3, 4]), tf.constant([3, -4, 5, 7]))",
     "e"),
    ("mathop_multiply_no_nan",
     "tf.math.multiply_no_nan(tf.constant([float('nan'), float('inf'), 2.0, 0.0]), tf.constant([0.0, 0.0, 3.0, "
     "float('nan')]))", "ge"),
    ("mathop_multiply_no_nan_broadcast",
     "tf.math.multiply_no_nan(tf.constant([[1.0, 2.0]]), tf.constant([[0.0], [4.0]]), name='mnn')", "ge"),
    ("mathop_multiply_no_nan_int", "tf.math.multiply_no_nan(tf.constant([1, 2]), tf.constant([0, 3]))", "e"),
    ("mathop_multiply_no_nan_mixed",
     "tf.math.multiply_no_nan(tf.constant([1.0]), tf.constant([1.0], tf.float64))", "e"),
    ("mathop_reciprocal_no_nan", "tf.math.reciprocal_no_nan(tf.constant([0.0, 4.0, -0.5]))", "ge"),
    ("mathop_reciprocal_no_nan_f64",
     "tf.math.reciprocal_no_nan(tf.constant([2.0, 0.0], tf.float64), name='rnn')", "ge"),
    ("mathop_nextafter", "tf.math.nextafter(tf.constant([1.0, 1.0, 0.0, -0.0]), tf.constant([2.0, 0.0, 1.0, -1.0]))",
     "ge"),
    ("mathop_nextafter_f64", "tf.math.nextafter(tf.constant([1.0], tf.float64), tf.constant([2.0], tf.float64))", "ge"),
    ("mathop_nextafter_half", "tf.math.nextafter(tf.constant([1.0], tf.float16), tf.constant([2.0], tf.float16))", "e"),
    # gradients
    *[(f"mathop_grad_{f}", tape(f"x = {X64}", f"tf.math.{f}(x) * tf.constant([1.0, 2.0, 3.0], tf.float64)"), "e")
      for f in ("tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "atanh")],  # fmt: skip
    ("mathop_grad_acosh", tape("x = tf.constant([1.5, 4.0], tf.float64)", "tf.math.acosh(x)"), "e"),
    ("mathop_grad_complex_tan", tape(f"x = {Z}", "tf.abs(tf.math.tan(x))"), "e"),
    ("mathop_grad_atan2",
     "y = tf.constant([[1.0], [-2.0]], tf.float64)\nx = tf.constant([0.5, -0.5, 2.0], tf.float64)\n"
     "with tf.GradientTape() as t:\n    t.watch([y, x])\n    z = tf.reduce_sum(tf.math.atan2(y, x) * "
     "tf.constant([1.0, 2.0, 3.0], tf.float64))\nt.gradient(z, [y, x])", "e"),
    ("mathop_grad_multiply_no_nan",
     "a = tf.constant([[1.0, float('nan')]], tf.float64)\nb = tf.constant([[0.0], [2.0]], tf.float64)\n"
     "with tf.GradientTape() as t:\n    t.watch([a, b])\n    z = tf.reduce_sum(tf.math.multiply_no_nan(a, b))\n"
     "t.gradient(z, [a, b])", "e"),
    ("mathop_grad_nextafter",
     "a = tf.constant([1.0, 2.0], tf.float64)\nb = tf.constant([3.0], tf.float64)\n"
     "with tf.GradientTape() as t:\n    t.watch([a, b])\n    z = tf.reduce_sum(tf.math.nextafter(a, b) * a)\n"
     "t.gradient(z, [a, b])", "e"),
    ("mathop_grad_rint", tape("x = tf.constant([0.4, 1.6])", "tf.math.rint(x) + x"), "e"),
    ("mathop_grad_truncatediv", tape("x = tf.constant([3.0, -4.0])", "tf.truncatediv(x, 2.0) + x"), "e"),
    ("mathop_grad_reciprocal_no_nan", tape("x = tf.constant([0.0, 2.0], tf.float64)", "tf.math.reciprocal_no_nan(x)"),
     "e"),
]  # fmt: skip


def write_op_goldens() -> int:
    """The op-breadth goldens (OpDefs, CPU constraints, shape and kernel cases) of these ops."""
    P, U, shape_case, kernel_case = breadth.P, breadth.U, breadth.shape_case, breadth.kernel_case
    breadth.begin(OUT / "ops", "tools/make_golden_math_ops.py", OPS)
    rng = np.random.default_rng(20261206)
    edges = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -2.5, 1e-30, 20.0, -30.0, 100.0, np.inf, -np.inf, np.nan])
    for op in TRIG:
        for dtype in (np.float16, np.float32, np.float64):
            kernel_case(op, edges.astype(dtype))
            kernel_case(op, (rng.uniform(-3, 3, (3, 7))).astype(dtype))
        for dtype in (np.complex64, np.complex128):
            kernel_case(op, (rng.uniform(-2, 2, (2, 5)) + 1j * rng.uniform(-2, 2, (2, 5))).astype(dtype))
        kernel_case(op, np.zeros((0, 3), np.float32))
        shape_case(op, P([2, U, 3], "float32"))
    halves = np.array([-2.5, -1.5, -0.5, -0.0, 0.5, 1.5, 2.5, 3.5, 2.4999, 1e20, -np.inf, np.nan])
    for dtype in (np.float32, np.float64):
        kernel_case("Rint", halves.astype(dtype))
    pairs_y = np.array([1.0, -1.0, 0.0, -0.0, 0.0, -0.0, np.inf, -np.inf, np.inf, 2.0, np.nan])
    pairs_x = np.array([0.0, 0.0, 1.0, 1.0, -1.0, -1.0, np.inf, np.inf, -np.inf, -np.inf, 1.0])
    for dtype in (np.float16, np.float32, np.float64):
        kernel_case("Atan2", pairs_y.astype(dtype), pairs_x.astype(dtype))
    kernel_case("Atan2", rng.uniform(-2, 2, (3, 1)).astype(np.float32), rng.uniform(-2, 2, (4,)).astype(np.float32))
    kernel_case("Atan2", np.ones((2, 3), np.float32), np.ones((4,), np.float32))  # shapes do not broadcast
    ints_x, ints_y = np.array([-7, 7, -7, 7, 0, -1, 9]), np.array([2, -2, -2, 2, 5, 3, -4])
    for dtype in (np.int8, np.int16, np.int32, np.int64):
        kernel_case("TruncateDiv", ints_x.astype(dtype), ints_y.astype(dtype))
    for dtype in (np.int32, np.int64):
        kernel_case("TruncateMod", ints_x.astype(dtype), ints_y.astype(dtype))
        kernel_case("TruncateMod", ints_x.astype(dtype), np.array([0], dtype))
    kernel_case("TruncateDiv", np.array([200, 7, 0], np.uint8), np.array([3, 2, 9], np.uint8))
    kernel_case("TruncateDiv", np.array([1, 2], np.int32), np.array([1, 0], np.int32))
    floats_x = np.array([-7.5, 7.5, -7.5, 1.0, -1.0, 0.0, np.inf, 5.0])
    floats_y = np.array([2.0, -2.0, -2.0, 0.0, 0.0, 0.0, 2.0, np.inf])
    for dtype in (np.float16, np.float32, np.float64):
        kernel_case("TruncateDiv", floats_x.astype(dtype), floats_y.astype(dtype))
    for dtype in (np.float32, np.float64):
        kernel_case("TruncateMod", floats_x.astype(dtype), floats_y.astype(dtype))
    kernel_case("TruncateDiv", rng.integers(-50, 50, (3, 4)).astype(np.int32), np.array([3, -4, 5, 7], np.int32))
    nan_x = np.array([np.nan, np.inf, -np.inf, 2.0, 0.0, 3.0])
    nan_y = np.array([0.0, 0.0, -0.0, 3.0, np.nan, np.inf])
    for dtype in (np.float16, np.float32, np.float64):
        kernel_case("MulNoNan", nan_x.astype(dtype), nan_y.astype(dtype))
    for dtype in (np.complex64, np.complex128):
        kernel_case("MulNoNan", np.array([1 + 2j, np.nan + 0j], dtype), np.array([0j, 2 - 1j], dtype))
    kernel_case("MulNoNan", rng.normal(size=(2, 1)).astype(np.float32), rng.normal(size=(3,)).astype(np.float32))
    after_x = np.array([1.0, 1.0, 0.0, -0.0, 0.0, np.inf, np.nan, 3.0, -1e-45])
    after_y = np.array([2.0, 0.0, 1.0, -1.0, -0.0, 0.0, 1.0, np.nan, 0.0])
    for dtype in (np.float32, np.float64):
        kernel_case("NextAfter", after_x.astype(dtype), after_y.astype(dtype))
    for op in ("Atan2", "TruncateDiv", "TruncateMod", "MulNoNan", "NextAfter"):
        shape_case(op, P([2, U, 1], "float32"), P([4], "float32"))
        shape_case(op, P([2, 3], "float32"), P([4], "float32"))
        shape_case(op, P(None, "float64"), P([3], "float64"))
    shape_case("Rint", P([U, 5], "float64"))
    breadth.write_op_defs()
    breadth.write_shape_cases()
    return breadth.kernel_gen.write_cases(breadth.KERNEL_CASES, breadth.OUT / "kernels")


def main() -> int:
    base.record_snippets(CASES, OUT, "tools/make_golden_math_ops.py")
    return write_op_goldens()


if __name__ == "__main__":
    sys.exit(main())
