"""Behaviour of the numpy CPU kernels beyond the TF golden cases: seeding, accuracy, warnings, dtype attrs."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from modtensor.framework import errors
from modtensor.kernels.cpu import OP_FUNCTIONS, activations, conv, elementwise, random

# The runtime ops of the framework issue's starter set that compute something (Const, Placeholder,
# Identity and friends are the executor's business, not a numeric kernel's).
STARTER_COMPUTE_OPS: (
    str | list[str]
) = """AddV2 Add Sub Mul RealDiv Div FloorDiv FloorMod Maximum Minimum Neg Abs Square Sqrt Rsqrt Exp
Log Tanh Sigmoid Erf Erfc Pow SquaredDifference Less LessEqual Greater GreaterEqual Equal NotEqual LogicalAnd
LogicalOr LogicalNot Select SelectV2 Cast MatMul BatchMatMulV2 BiasAdd Relu Relu6 Elu Softmax LogSoftmax Conv2D
DepthwiseConv2dNative MaxPool AvgPool Sum Mean Max Min Prod All Any ArgMax ArgMin Reshape Transpose ConcatV2 Pack
Unpack Squeeze ExpandDims Shape Size Rank Fill ZerosLike OnesLike Range Tile Pad Slice StridedSlice GatherV2 OneHot
RandomStandardNormal RandomUniform"""
STARTER_COMPUTE_OPS = STARTER_COMPUTE_OPS.split()


def test_every_starter_op_has_a_function() -> None:
    assert sorted(set(STARTER_COMPUTE_OPS) - set(OP_FUNCTIONS)) == []


@pytest.mark.parametrize("fn", [random.random_uniform, random.random_standard_normal])
def test_random_is_deterministic_per_seed_pair(fn) -> None:
    a = fn(np.array([4, 3]), np.float32, seed=3, seed2=4)
    assert a.shape == (4, 3) and a.dtype == np.float32
    np.testing.assert_array_equal(a, fn(np.array([4, 3]), np.float32, seed=3, seed2=4))
    assert not np.array_equal(a, fn(np.array([4, 3]), np.float32, seed=3, seed2=5))
    assert not np.array_equal(a, fn(np.array([4, 3]), np.float32, seed=4, seed2=4))


def test_random_skip_continues_the_stream() -> None:
    whole = random.random_uniform(np.array([12]), np.float32, seed=9, seed2=1)
    tail = random.random_uniform(np.array([8]), np.float32, seed=9, seed2=1, skip=1)  # one block = 4 floats
    np.testing.assert_array_equal(whole[4:], tail)


def test_random_unseeded_gives_fresh_numbers() -> None:
    a = random.random_standard_normal(np.array([64]), np.float64)
    b = random.random_standard_normal(np.array([64]), np.float64)
    assert a.dtype == np.float64 and not np.array_equal(a, b)


def test_random_uniform_range_and_normal_moments() -> None:
    u = random.random_uniform(np.array([20000]), np.float64, seed=1, seed2=2)
    assert u.min() >= 0.0 and u.max() < 1.0
    n = random.random_standard_normal(np.array([20000]), np.float32, seed=1, seed2=2)
    assert abs(float(n.mean())) < 0.05 and abs(float(n.std()) - 1.0) < 0.05


def test_erf_and_erfc_match_libm_in_float64() -> None:
    x = np.concatenate([np.linspace(-7, 7, 20001), np.linspace(0.8, 1.3, 1001), [0.0, 1e-300, 27.0, 30.0]])
    want = np.array([math.erf(v) for v in x])
    wantc = np.array([math.erfc(v) for v in x])
    np.testing.assert_allclose(elementwise.erf(x), want, rtol=1e-15, atol=1e-300)
    np.testing.assert_allclose(elementwise.erfc(x), wantc, rtol=2e-15, atol=1e-300)


def test_no_floating_point_warnings_leak() -> None:
    x = np.array([-1.0, 0.0, np.nan, np.inf], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        elementwise.sqrt(x)
        elementwise.log(x)
        elementwise.real_div(x, np.zeros(4, np.float32))
        elementwise.floor_mod(x, np.zeros(4, np.float32))
        elementwise.cast(x, np.int32)
        activations.sigmoid(np.array([-1e5, 1e5], np.float32))
        activations.softmax(np.array([[-np.inf, -np.inf]], np.float32))


def test_sigmoid_is_stable_for_large_inputs() -> None:
    out = activations.sigmoid(np.array([-1000.0, -50.0, 0.0, 50.0, 1000.0]))
    np.testing.assert_allclose(out, [0.0, 1.9287498479639178e-22, 0.5, 1.0, 1.0], rtol=1e-15)


@pytest.mark.parametrize("dtype_attr", [np.int64, "int64", np.dtype("int64")])
def test_dtype_attrs_accept_numpy_forms(dtype_attr) -> None:
    assert elementwise.cast(np.array([1.7, -1.7]), dtype_attr).dtype == np.int64


def test_dtype_attrs_accept_objects_with_as_numpy_dtype() -> None:
    class FakeDType:
        as_numpy_dtype = np.int16

    assert elementwise.cast(np.array([2.5]), FakeDType()).dtype == np.int16


def test_integer_division_by_zero_is_tf_error() -> None:
    with pytest.raises(errors.InvalidArgumentError, match="^Integer division by zero$"):
        elementwise.floor_div(np.array([1, 2], np.int32), np.array([1, 0], np.int32))


def test_float_floor_div_is_floor_of_quotient() -> None:
    assert elementwise.floor_div(np.array(1.0), np.array(0.1)) == 10.0  # numpy's // gives 9.0


def test_conv_rejects_non_4d_input() -> None:
    with pytest.raises(errors.InvalidArgumentError, match=r"input must be 4-dimensional\[4,4,6\]"):
        conv.conv2d(np.ones((4, 4, 6), np.float32), np.ones((2, 2, 6, 1), np.float32), [1, 1, 1, 1], "VALID")


def test_softmax_rejects_scalars() -> None:
    with pytest.raises(errors.InvalidArgumentError, match=r"logits must have >= 1 dimension, got \[\]"):
        activations.softmax(np.array(1.0, np.float32))


def test_conv_nchw_matches_nhwc() -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 9, 8, 4))
    w = rng.standard_normal((3, 2, 4, 5))
    nhwc = conv.conv2d(x, w, [1, 2, 1, 1], "SAME", dilations=[1, 1, 2, 1])
    nchw = conv.conv2d(x.transpose(0, 3, 1, 2), w, [1, 1, 2, 1], "SAME", data_format="NCHW", dilations=[1, 1, 1, 2])
    np.testing.assert_allclose(nchw, nhwc.transpose(0, 3, 1, 2), rtol=1e-12)


def test_conv_matches_direct_sum() -> None:
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 5, 6, 3))
    w = rng.standard_normal((2, 3, 3, 4))
    out = conv.conv2d(x, w, [1, 1, 1, 1], "VALID")
    want = np.zeros((1, 4, 4, 4))
    for i in range(4):
        for j in range(4):
            want[0, i, j] = np.einsum("hwc,hwco->o", x[0, i : i + 2, j : j + 3], w)
    np.testing.assert_allclose(out, want, rtol=1e-12)


@pytest.mark.parametrize(
    "op, inputs, message",
    [  # TF 2.21's words for each (read from its CPU kernels in a scratch venv)
        ("GatherNd", [np.zeros((3, 3), np.float32), np.int32([0, 5])],
         "indices = [0, 5] does not index into param shape [3,3]"),
        ("ScatterNd", [np.int32([[0, 1, 2]]), np.float32([1]), np.int32([3, 3])],
         "Dimensions [3,2) of input[shape=[3,3]] must match dimensions [1,1) of updates[shape=[1]]"),
        ("ScatterNd", [np.int32([[[0, 1, 2]]]), np.float32([[1]]), np.int32([3, 3])],
         "Dimensions [3,2) of input[shape=[3,3]] must match dimensions [2,2) of updates[shape=[1,1]]"),
        ("TensorScatterAdd", [np.zeros((3, 3), np.float32), np.int32([[0, 1, 2]]), np.float32([1])],
         "Inner dimensions of output shape must match inner dimensions of updates shape. Output: [3,3] updates: [1]"),
        ("TensorScatterUpdate", [np.zeros((3, 3), np.float32), np.int32([[[0, 1, 2]]]), np.float32([[1]])],
         "Inner dimensions of output shape must match inner dimensions of updates shape. Output: [3,3] updates: "
         "[1,1]"),
    ],
)  # fmt: skip
def test_index_errors_read_as_tensorflows(op: str, inputs: list, message: str) -> None:
    """A vector of indices out of range, and an index deeper than the output's rank (once a numpy broadcasting
    ValueError, reported as an internal error), are TF's InvalidArgumentErrors."""
    with pytest.raises(errors.InvalidArgumentError) as raised:
        OP_FUNCTIONS[op](*inputs)
    assert raised.value.message == message


@pytest.mark.parametrize(
    "value,src,dst,message",
    [
        (["1.5"], "string", "float32", "Cast string to float is not supported"),
        ([1], "int32", "string", "Cast int32 to string is not supported"),
        ([True], "bool", "string", "Cast bool to string is not supported"),
        ([1.0], "float64", "string", "Cast double to string is not supported"),
    ],
)
def test_cast_to_or_from_strings_is_unimplemented_as_in_tf(value: list, src: str, dst: str, message: str) -> None:
    """TF's CPU Cast converts strings only to strings (tf.strings.as_string / to_number do the rest)."""
    import modtensor as tf

    with pytest.raises(errors.UnimplementedError, match=message):
        tf.cast(tf.constant(value, dtype=tf.as_dtype(src)), tf.as_dtype(dst))
    g = tf.Graph()
    with g.as_default(), tf.compat.v1.Session() as sess:
        y = tf.cast(tf.constant(value, dtype=tf.as_dtype(src)), tf.as_dtype(dst))
        with pytest.raises(errors.UnimplementedError, match=message):
            sess.run(y)
    assert tf.cast(tf.constant(["a"]), tf.string).numpy().tolist() == [b"a"]  # string to string stays
