"""Generate TensorFlow golden cases for the numpy CPU kernels (run with a Python that has TensorFlow).

Every case is (op, inputs, attrs). TensorFlow runs it eagerly on CPU through
``tf.raw_ops``; its outputs, or its error class and message, are written to
``tests/golden/kernels/<Op>.npz`` plus one ``index.json`` that
``tests/kernels/test_golden_kernels.py`` replays against ``modtensor.kernels.cpu``.
Cases TensorFlow has no CPU kernel for are reported and dropped.

    /tmp/tfvenv/bin/python tools/make_golden_kernel_cases.py
"""

from __future__ import annotations

import collections
import inspect
import json
import os
import re
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT_DIR = Path(__file__).resolve().parent.parent / "tests" / "golden" / "kernels"
RNG = np.random.default_rng(20240601)

F16, F32, F64 = np.float16, np.float32, np.float64
I32, I64 = np.int32, np.int64
FLOATS = (F32, F64, F16)
NUMERIC = (F32, F64, F16, I32, I64)

CASES: list[dict] = []


def case(op: str, *inputs, deviation: str | None = None, **attrs) -> None:
    """Queue one case: inputs positional (arrays, or lists of arrays), attrs as keywords.

    ``deviation`` marks a case where modtensor deliberately differs from TF (a TF bug); the test
    then checks only dtype and shape and reports the reason.
    """
    CASES.append({"op": op, "inputs": list(inputs), "attrs": attrs, "deviation": deviation})


def a(values, dtype) -> np.ndarray:
    return np.asarray(values, dtype=dtype)


def rnd(shape, dtype, scale=1.0) -> np.ndarray:
    if np.issubdtype(np.dtype(dtype), np.integer):
        return RNG.integers(-9, 10, size=shape).astype(dtype)
    if dtype == np.bool_:
        return RNG.random(shape) < 0.5
    return (RNG.standard_normal(shape) * scale).astype(dtype)


FLOAT_EDGES = [np.nan, np.inf, -np.inf, -0.0, 0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 1e-8, -1e-8, 3.0, -3.0, 6.0, 7.5,
               20.0, -20.0, 88.0, -88.0, 100.0, -100.0, 1e30, -1e30, 0.1, 0.7, -0.7, 1.0, -1.0, 4.0]  # fmt: skip
INT_EDGES = [-7, -3, -2, -1, 0, 1, 2, 3, 7, 100, -100]


def edges(dtype) -> np.ndarray:
    if np.issubdtype(np.dtype(dtype), np.integer):
        return a(INT_EDGES, dtype)
    with np.errstate(over="ignore"):
        return a(FLOAT_EDGES, dtype)


# ------------------------------------------------------------------ elementwise


def elementwise_cases() -> None:
    binary = ["AddV2", "Add", "Sub", "Mul", "Maximum", "Minimum", "SquaredDifference", "Pow", "RealDiv", "Div",
              "FloorDiv", "FloorMod"]  # fmt: skip
    divs = {"RealDiv", "Div", "FloorDiv", "FloorMod"}
    for op in binary:
        for dt in NUMERIC:
            e = edges(dt)
            if np.issubdtype(np.dtype(dt), np.integer):
                x = e.reshape(-1, 1)
                y = e[e != 0] if op in divs else e
                if op == "Pow":
                    y = a([0, 1, 2, 3, 5], dt)
                case(op, x, y)
                big = np.iinfo(dt).max
                if op in ("AddV2", "Mul", "Sub"):
                    case(op, a([big, big - 1, -big], dt), a([1, 2, -3], dt))
            else:
                case(op, e.reshape(-1, 1), e)
            case(op, rnd((2, 1, 3), dt) + (3 if op in divs or op == "Pow" else 0), rnd((4, 1), dt) + 10)
            case(op, rnd((), dt) + 2, rnd((2, 2), dt) + 5)
        case(op, rnd((2, 3), F32), rnd((4,), F32))  # incompatible shapes
    for op in ("FloorDiv", "Div", "FloorMod"):
        for dt in (I32, I64):
            case(op, a([4, 5, 6], dt), a([1, 0, 2], dt))
    case("Pow", a([2, 3], I32), a([2, -1], I32))
    case("Pow", a([2, 3], I64), a([-2, 1], I64))

    unary_float = ["Sqrt", "Rsqrt", "Exp", "Log", "Log1p", "Expm1", "Tanh", "Sigmoid", "Erf", "Erfc", "Round",
                   "Floor", "Ceil", "Sin", "Cos", "Reciprocal", "Elu", "Relu", "Relu6", "Neg", "Abs", "Square",
                   "Sign"]  # fmt: skip
    for op in unary_float:
        for dt in FLOATS:
            quirk = "TF 2.21's float64 Erf kernel gives NaN for +-inf; modtensor gives +-1" if (
                op == "Erf" and dt == F64) else None  # fmt: skip
            case(op, edges(dt), deviation=quirk)
            case(op, rnd((3, 4), dt, 3.0))
    for op in ("Neg", "Abs", "Square", "Sign", "Relu", "Relu6", "Round"):
        for dt in (I32, I64):
            quirk = "TF 2.21's integer Round kernel returns 0; modtensor returns x (tf.round's result)" if (
                op == "Round") else None  # fmt: skip
            case(op, a(INT_EDGES + [9, 8, -8], dt).reshape(2, 7), deviation=quirk)
    x = np.linspace(-6, 6, 97)
    for dt in (F32, F64):
        for op in ("Erf", "Erfc", "Sigmoid", "Tanh"):
            case(op, x.astype(dt))
        case("Erfc", np.linspace(5, 26, 40).astype(F64))
        case("Erfc", np.linspace(4, 9, 11).astype(F32))

    for op in ("Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual"):
        for dt in (F32, F64, F16, I32, I64):
            e = edges(dt)
            case(op, e.reshape(-1, 1), e)
        case(op, rnd((2, 3), F32), rnd((3,), F32))
        case(op, rnd((2, 3), I32), rnd((2,), I32))
    for op in ("Equal", "NotEqual"):
        case(op, a([True, False], bool).reshape(2, 1), a([True, False], bool))
        case(op, rnd((2, 3), F32), rnd((2,), F32), incompatible_shape_error=False)
    bools = a([True, False], bool)
    for op in ("LogicalAnd", "LogicalOr"):
        case(op, bools.reshape(2, 1), bools)
        case(op, a(True, bool), rnd((2, 3), np.bool_))
        case(op, rnd((2, 3), np.bool_), rnd((2,), np.bool_))
    case("LogicalNot", rnd((3, 4), np.bool_))

    for dt in (F32, I32, np.bool_):
        case("Select", rnd((2, 3), np.bool_), rnd((2, 3), dt), rnd((2, 3), dt))
        case("Select", rnd((4,), np.bool_), rnd((4, 2), dt), rnd((4, 2), dt))
        case("SelectV2", rnd((2, 1), np.bool_), rnd((1, 3), dt), rnd((), dt))
    case("Select", a(True, bool), a(1.0, F32), a(2.0, F32))
    case("Select", rnd((3,), np.bool_), rnd((4, 2), F32), rnd((4, 2), F32))
    case("Select", rnd((4, 2, 1), np.bool_), rnd((4, 2), F32), rnd((4, 2), F32))
    case("Select", rnd((4,), np.bool_), rnd((4, 2), F32), rnd((4, 3), F32))
    case("Select", a(True, bool), rnd((4, 2), F32), rnd((4, 2), F32))
    case("SelectV2", rnd((3,), np.bool_), rnd((2, 3), F32), rnd((2, 3), F32))
    case("SelectV2", rnd((4,), np.bool_), rnd((2, 3), F32), rnd((2, 3), F32))
    case("SelectV2", rnd((3,), np.bool_), rnd((2, 3), F32), rnd((2, 4), F32))

    cast_src = {
        F32: a(
            [
                np.nan,
                np.inf,
                -np.inf,
                -0.0,
                0.5,
                1.5,
                -1.5,
                2.7,
                -2.7,
                1e20,
                -1e20,
                65519.0,
                65520.0,
                1e-7,
                1.0000001,
                3.0e38,
                2147483520.0,
                -2147483648.0,
                255.9,
                127.0,
            ],
            F32,
        ),  # fmt: skip
        F64: a(
            [
                np.nan,
                np.inf,
                -np.inf,
                -0.0,
                0.5,
                -1.5,
                2.7,
                -2.7,
                1e20,
                1e300,
                1e-300,
                1.0000000001,
                65519.0,
                3.4028235e38,
                3.5e38,
                2147483647.0,
                9.2e18,
                127.0,
            ],
            F64,
        ),  # fmt: skip
        F16: a([np.nan, np.inf, -np.inf, -0.0, 0.5, -1.5, 2.7, 65504.0, 1e-7, 255.0], F16),
        I32: a([0, 1, -1, 127, 128, 255, 256, -129, 2**31 - 1, -(2**31), 16777217], I32),
        I64: a([0, 1, -1, 255, 2**31, -(2**31) - 1, 2**53 + 1, 2**63 - 1, -(2**63)], I64),
        np.bool_: a([True, False], bool),
    }
    for src, values in cast_src.items():
        for dst in (F32, F64, F16, I32, I64, np.bool_, np.uint8):
            if dst == np.uint8 and np.issubdtype(np.dtype(src), np.floating):
                values = a([0.0, 1.5, 254.9, 3.0], src)
            case("Cast", values, DstT=dst)
    for src, dst in ((F32, F16), (F64, F32), (F64, F16)):
        case("Cast", cast_src[src], DstT=dst, Truncate=True)
    case("Cast", rnd((50,), F32), DstT=F16, Truncate=True)
    case("Cast", rnd((50,), F64), DstT=F32, Truncate=True)
    # CheckNumerics: the input back, or the error naming what it found
    case("CheckNumerics", rnd((3, 4), F32), message="fine")
    case("CheckNumerics", a([1.0, np.inf], F32), message="has inf")
    case("CheckNumerics", a([np.nan, 2.0], F64), message="has nan")
    case("CheckNumerics", a([np.nan, -np.inf], F16), message="both")


# ------------------------------------------------------------------ activations, matmul


def activation_cases() -> None:
    for op in ("Softmax", "LogSoftmax"):
        for dt in FLOATS:
            case(op, rnd((5,), dt))
            case(op, rnd((3, 4), dt, 3.0))
            case(op, rnd((2, 2, 3), dt))
            case(op, a([[1000.0, 1001.0, 999.0], [-1000.0, -1001.0, -1002.0], [0.0, -np.inf, 1.0]], dt))
        case(op, a(1.0, F32))
        case(op, np.zeros((2, 0), F32))
    for dt in FLOATS:
        case("BiasAdd", rnd((2, 3), dt), rnd((3,), dt))
        case("BiasAdd", rnd((2, 3, 4, 5), dt), rnd((5,), dt))
        case("BiasAdd", rnd((2, 3, 4, 5), dt), rnd((3,), dt), data_format="NCHW")
    case("BiasAdd", rnd((2, 3, 4), I32), rnd((4,), I32))
    case("BiasAdd", rnd((2, 3, 4), F32), rnd((3,), F32), data_format="NCHW")
    case("BiasAdd", rnd((2, 3, 4, 5, 6), F32), rnd((3,), F32), data_format="NCHW")
    case("BiasAdd", rnd((3,), F32), rnd((3,), F32))
    case("BiasAdd", rnd((2, 3), F32), rnd((4,), F32))
    case("BiasAdd", rnd((2, 3), F32), rnd((1, 3), F32))

    for dt in (F32, F64, F16, I32, I64):
        for ta in (False, True):
            for tb in (False, True):
                x = rnd((4, 3) if ta else (3, 4), dt)
                y = rnd((5, 4) if tb else (4, 5), dt)
                case("MatMul", x, y, transpose_a=ta, transpose_b=tb)
    case("MatMul", rnd((2, 3), F32), rnd((4, 5), F32))
    case("MatMul", rnd((2, 3, 1), F32), rnd((3, 5), F32))
    case("MatMul", a([[np.nan, 1.0], [np.inf, 2.0]], F32), a([[1.0, 0.0], [0.0, 1.0]], F32))
    for dt in (F32, F64, F16, I32):
        case("BatchMatMulV2", rnd((2, 3, 4), dt), rnd((2, 4, 5), dt))
        case("BatchMatMulV2", rnd((2, 1, 3, 4), dt), rnd((3, 4, 5), dt))
        case("BatchMatMulV2", rnd((3, 4), dt), rnd((2, 2, 4, 2), dt))
        case("BatchMatMulV2", rnd((2, 4, 3), dt), rnd((2, 5, 4), dt), adj_x=True, adj_y=True)
        case("BatchMatMulV2", rnd((1, 4, 3), dt), rnd((3, 4, 5), dt), adj_x=True)
    case("BatchMatMulV2", rnd((2, 3, 4), F32), rnd((3, 4, 5), F32))
    case("BatchMatMulV2", rnd((2, 3, 4), F32), rnd((2, 5, 6), F32))
    case("BatchMatMulV2", rnd((3,), F32), rnd((3, 4), F32))


# ------------------------------------------------------------------ conv, pooling


def conv_cases() -> None:
    nchw = lambda x: np.ascontiguousarray(x.transpose(0, 3, 1, 2))  # noqa: E731
    for dt in (F32, F64, F16):
        x = rnd((1, 7, 7, 3), dt)
        for k in (1, 2, 3):
            f = rnd((k, k, 3, 4), dt)
            for padding in ("SAME", "VALID"):
                for s in (1, 2):
                    case("Conv2D", x, f, strides=[1, s, s, 1], padding=padding)
        f = rnd((3, 3, 3, 4), dt)
        d = rnd((3, 2, 3, 2), dt)
        for padding in ("SAME", "VALID"):
            case("Conv2D", x, f, strides=[1, 1, 1, 1], padding=padding, dilations=[1, 2, 2, 1])
            case("Conv2D", nchw(x), f, strides=[1, 1, 2, 2], padding=padding, data_format="NCHW")
            case("DepthwiseConv2dNative", x, d, strides=[1, 1, 1, 1], padding=padding)
            case("DepthwiseConv2dNative", x, d, strides=[1, 2, 2, 1], padding=padding)
            case("DepthwiseConv2dNative", x, d, strides=[1, 1, 1, 1], padding=padding, dilations=[1, 2, 2, 1])
            case("DepthwiseConv2dNative", nchw(x), d, strides=[1, 1, 2, 2], padding=padding, data_format="NCHW")
        case("Conv2D", x, f, strides=[1, 2, 1, 1], padding="EXPLICIT", explicit_paddings=[0, 0, 1, 2, 0, 1, 0, 0])
        case("Conv2D", nchw(x), f, strides=[1, 1, 1, 1], padding="EXPLICIT",
             explicit_paddings=[0, 0, 0, 0, 2, 0, 1, 1], data_format="NCHW")  # fmt: skip
        case("DepthwiseConv2dNative", x, d, strides=[1, 1, 1, 1], padding="EXPLICIT",
             explicit_paddings=[0, 0, 1, 1, 2, 0, 0, 0])  # fmt: skip
    x = rnd((2, 6, 5, 4), F32)
    case("Conv2D", x, rnd((3, 3, 2, 6), F32), strides=[1, 1, 1, 1], padding="SAME")  # grouped
    case("Conv2D", x, rnd((3, 3, 3, 6), F32), strides=[1, 1, 1, 1], padding="SAME")
    case("Conv2D", x, rnd((3, 3, 4, 2), F32), strides=[2, 1, 1, 1], padding="SAME")
    case("Conv2D", x, rnd((3, 3, 4, 2), F32), strides=[1, 2, 3, 1], padding="VALID", dilations=[1, 2, 1, 1])
    case("DepthwiseConv2dNative", x, rnd((3, 3, 3, 2), F32), strides=[1, 1, 1, 1], padding="SAME")

    for dt in (F32, F64, F16):
        x = rnd((1, 7, 7, 3), dt)
        for op in ("MaxPool", "AvgPool"):
            for k, s in ((2, 2), (3, 2), (3, 1), (2, 3)):
                for padding in ("SAME", "VALID"):
                    case(op, x, ksize=[1, k, k, 1], strides=[1, s, s, 1], padding=padding)
            case(op, nchw(x), ksize=[1, 1, 3, 2], strides=[1, 1, 2, 1], padding="SAME", data_format="NCHW")
            case(op, x, ksize=[1, 3, 1, 1], strides=[1, 1, 2, 1], padding="SAME")
    x = rnd((1, 6, 5, 4), F32)
    x[0, 0, 0, 0] = np.nan
    case("MaxPool", x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
    case("MaxPool", rnd((1, 5, 5, 2), I32), ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
    case("MaxPool", rnd((1, 5, 5, 2), F32), ksize=[1, 3, 3, 1], strides=[1, 1, 1, 1], padding="EXPLICIT",
         explicit_paddings=[0, 0, 1, 1, 2, 0, 0, 0])  # fmt: skip
    case("MaxPool", x, ksize=[1, 1, 1, 2], strides=[1, 1, 1, 2], padding="VALID")
    case("MaxPool", x, ksize=[1, 2, 2, 2], strides=[1, 1, 1, 2], padding="VALID")
    case("MaxPool", x, ksize=[1, 1, 1, 3], strides=[1, 1, 1, 3], padding="VALID")
    case("MaxPool", x, ksize=[1, 1, 1, 2], strides=[1, 1, 1, 1], padding="VALID")
    case("MaxPool", x, ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1], padding="EXPLICIT",
         explicit_paddings=[0, 0, 1, 1, 1, 1, 1, 0])  # fmt: skip
    case("MaxPool", rnd((4, 4, 6), F32), ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1], padding="VALID")
    case("Conv2D", x, rnd((2, 2, 4, 1), F32), strides=[1, 1, 1, 1], padding="VALID", dilations=[2, 1, 1, 1])
    case("MaxPool", x, ksize=[2, 2, 2, 1], strides=[1, 1, 1, 1], padding="VALID")
    case("AvgPool", x, ksize=[1, 7, 2, 1], strides=[1, 1, 1, 1], padding="VALID")
    case("AvgPool", x, ksize=[1, 2, 2, 1], strides=[1, 1, 1, 2], padding="VALID")


# ------------------------------------------------------------------ reductions


def reduction_cases() -> None:
    axes_variants = [a([], I32), a(0, I32), a([1], I32), a([-1], I64), a([0, 2], I32), a([0, 1, 2], I64)]
    for op, dtypes in (("Sum", NUMERIC), ("Mean", NUMERIC), ("Max", NUMERIC), ("Min", NUMERIC), ("Prod", NUMERIC),
                       ("All", (np.bool_,)), ("Any", (np.bool_,))):  # fmt: skip
        for dt in dtypes:
            x = rnd((2, 3, 4), dt)
            for ax in axes_variants:
                for keep in (False, True):
                    case(op, x, ax, keep_dims=keep)
            case(op, np.zeros((0, 3), dt), a([0], I32))
            case(op, np.zeros((0, 3), dt), a([1], I32), keep_dims=True)
            case(op, np.zeros((2, 0), dt), a([0, 1], I32))
            case(op, a(5, dt) if dt != np.bool_ else a(True, bool), a([], I32))
            case(op, a(5, dt) if dt != np.bool_ else a(True, bool), a(0, I32))
        case(op, rnd((2, 3), dtypes[0]), a([2], I32))
        case(op, rnd((2, 3), dtypes[0]), a([0, -2], I32))
    for op in ("Sum", "Mean", "Max", "Min", "Prod"):
        case(op, a([[1.0, np.nan, 2.0], [np.inf, -np.inf, 3.0]], F32), a([1], I32))
    case("Mean", a([[-7, 3], [-1, -2]], I32), a([1], I32))
    case("Mean", a([7, 8], I64), a([0], I32))
    case("Sum", a([2**31 - 1, 1], I32), a([0], I32))
    case("Sum", rnd((1000,), F16), a([0], I32))
    case("Mean", (RNG.random(2000) * 100).astype(F16), a([0], I32))
    for op in ("ArgMax", "ArgMin"):
        for dt in (F32, F64, F16, I32, I64):
            x = rnd((3, 4), dt)
            x[1, 1] = x[1, 2] = x.max() if op == "ArgMax" else x.min()  # ties pick the first index
            for d in (0, 1, -1):
                case(op, x, a(d, I32))
            case(op, x, a(1, I64), output_type=I32)
        case(op, a([1.0, 3.0, 3.0, -1.0], F32), a(0, I32))
        case(op, rnd((0, 3), F32), a(0, I32))
        case(op, rnd((2, 3), F32), a(2, I32))
        case(op, rnd((2, 0), F32), a(0, I32))


# ------------------------------------------------------------------ array ops


def array_cases() -> None:
    x = rnd((2, 3, 4), F32)
    for shape in ([24], [4, -1], [-1, 2, 3], [2, 3, 4], [1, 24, 1]):
        case("Reshape", x, a(shape, I32))
    case("Reshape", rnd((2, 3), I64), a([3, 2], I64))
    case("Reshape", a(5, F32), a([1, 1], I32))
    case("Reshape", rnd((1,), F32), a([], I32))
    case("Reshape", np.zeros((0, 3), F32), a([-1, 3], I32))
    case("Reshape", x, a([5, -1], I32))
    case("Reshape", x, a([5, 5], I32))
    case("Reshape", x, a([-1, -1], I32))
    for dt in (F32, I32, np.bool_, F16):
        case("Transpose", rnd((2, 3, 4), dt), a([2, 0, 1], I32))
    case("Transpose", rnd((2, 3), F32), a([1, 0], I64))
    case("Transpose", a(3.0, F32), a([], I32))
    case("Transpose", rnd((2, 3), F32), a([0, 1, 2], I32))
    case("Transpose", rnd((2, 3), F32), a([0, 0], I32))
    case("Transpose", rnd((2, 3), F32), a([0, 2], I32))

    for dt in (F32, I32, np.bool_):
        case("ConcatV2", [rnd((2, 3), dt), rnd((2, 1), dt), rnd((2, 2), dt)], a(1, I32))
        case("ConcatV2", [rnd((2, 3), dt), rnd((1, 3), dt)], a(-2, I64))
    case("ConcatV2", [rnd((2, 3), F32), rnd((2, 4), F32)], a(0, I32))
    case("ConcatV2", [rnd((2, 3), F32), rnd((2, 4), F32)], a(2, I32))
    case("ConcatV2", [rnd((2, 3), F32), rnd((2, 3, 1), F32)], a(0, I32))
    for ax in (0, 1, 2, -1, -3):
        case("Pack", [rnd((2, 3), F32), rnd((2, 3), F32), rnd((2, 3), F32)], axis=ax)
    case("Pack", [a(1, I32), a(2, I32)], axis=0)
    case("Pack", [rnd((2, 3), F32), rnd((3, 2), F32)], axis=0)
    case("Pack", [rnd((2, 3), F32)], axis=3)
    for ax, num in ((0, 2), (1, 3), (-1, 4), (2, 4)):
        case("Unpack", rnd((2, 3, 4), F32), num=num, axis=ax)
    case("Unpack", rnd((2, 3), I32), num=2, axis=0)
    case("Unpack", rnd((2, 3), F32), num=3, axis=0)
    case("Unpack", rnd((2, 3), F32), num=2, axis=2)

    y = rnd((1, 3, 1, 2), F32)
    for dims in ([], [0], [2], [-2], [0, 2]):
        case("Squeeze", y, squeeze_dims=dims)
    case("Squeeze", y, squeeze_dims=[1])
    case("Squeeze", y, squeeze_dims=[4])
    for d in (0, 1, 2, -1, -3):
        case("ExpandDims", rnd((2, 3), F32), a(d, I32))
    case("ExpandDims", a(7, I32), a(0, I64))
    case("ExpandDims", rnd((2, 3), F32), a(3, I32))
    case("ExpandDims", rnd((2, 3), F32), a(-4, I32))
    for dt in (I32, I64):
        case("Shape", rnd((2, 0, 3), F32), out_type=dt)
        case("Size", rnd((2, 5, 3), F32), out_type=dt)
    case("Shape", a(1.0, F32))
    case("Rank", rnd((2, 5, 3), F32))
    case("Rank", a(True, bool))
    for dt in (F32, I32, np.bool_, F64):
        case("Fill", a([2, 3], I32), a(7, dt) if dt != np.bool_ else a(True, bool))
        case("ZerosLike", rnd((2, 3), dt))
        case("OnesLike", rnd((2, 3), dt))
    case("Fill", a([], I64), a(1.5, F32))
    case("Fill", a([2, 0], I32), a(1.5, F32))
    case("Fill", a([2, -1], I32), a(1.5, F32))
    case("Fill", a([2, 3], I32), a([1.5], F32))

    for args in ((0, 10, 1), (0, 10, 3), (10, 0, -3), (5, 5, 1), (-3, 4, 2)):
        for dt in (I32, I64, F32, F64):
            case("Range", *(a(v, dt) for v in args))
    case("Range", a(0.1, F32), a(10.0, F32), a(0.1, F32))
    case("Range", a(1.0, F64), a(-1.0, F64), a(-0.3, F64))
    case("Range", a(0, I32), a(5, I32), a(0, I32))
    case("Range", a(5, I32), a(0, I32), a(1, I32))
    case("Range", a(0.0, F32), a(5.0, F32), a(-1.0, F32))
    case("Range", a(0.5, F32), a(5.0, F32), a(0.0, F32))

    for dt in (F32, I32, np.bool_):
        case("Tile", rnd((2, 3), dt), a([2, 1], I32))
        case("Tile", rnd((2, 1, 3), dt), a([1, 3, 2], I64))
    case("Tile", a(1.0, F32), a([], I32))
    case("Tile", rnd((2, 3), F32), a([0, 2], I32))
    case("Tile", rnd((2, 3), F32), a([2], I32))
    case("Tile", rnd((2, 3), F32), a([2, -1], I32))
    for dt in (F32, I32, np.bool_, F16):
        case("Pad", rnd((2, 3), dt), a([[1, 0], [2, 1]], I32))
    case("Pad", rnd((1, 2, 3), F32), a([[0, 0], [1, 1], [0, 3]], I64))
    case("Pad", a(1.0, F32), np.zeros((0, 2), I32))
    case("Pad", rnd((2, 3), F32), a([[1, 0]], I32))
    case("Pad", rnd((2, 3), F32), a([[1, 0], [-1, 0]], I32))

    z = rnd((3, 4, 5), F32)
    for b, s in (([0, 0, 0], [3, 4, 5]), ([1, 2, 3], [2, 1, 2]), ([1, 0, 0], [-1, -1, 2]), ([3, 0, 0], [0, 4, 5])):
        case("Slice", z, a(b, I32), a(s, I32))
    case("Slice", rnd((4,), I64), a([1], I64), a([2], I64))
    case("Slice", z, a([1, 0, 0], I32), a([3, 1, 1], I32))
    case("Slice", z, a([4, 0, 0], I32), a([0, 1, 1], I32))
    case("Slice", z, a([1, 0], I32), a([1, 1], I32))

    w = np.arange(3 * 4 * 5, dtype=F32).reshape(3, 4, 5)
    ss = [
        ([0, 0, 0], [3, 4, 5], [1, 1, 1], {}),
        ([1, -1, 0], [3, 0, 5], [1, -1, 2], {}),
        ([0, 0, 0], [0, 0, 0], [1, 1, 1], {"begin_mask": 7, "end_mask": 7}),
        ([-1, 0, 0], [0, 0, 0], [-1, 1, 1], {"end_mask": 7, "begin_mask": 6}),
        ([0, 0, 0], [0, 0, 0], [-1, -2, -3], {"begin_mask": 7, "end_mask": 7}),
        ([1], [2], [1], {"shrink_axis_mask": 1}),
        ([-1, 2], [0, 3], [1, 1], {"shrink_axis_mask": 3}),
        ([0, 1], [0, 3], [1, 1], {"ellipsis_mask": 1}),
        ([1, 0, 1], [2, 0, 3], [1, 1, 1], {"ellipsis_mask": 2}),
        ([0, 0, 0], [1, 0, 2], [1, 1, 1], {"new_axis_mask": 2}),
        ([0, 0], [0, 0], [1, 1], {"new_axis_mask": 1, "ellipsis_mask": 2}),
        ([0, 0, 0], [0, 0, 0], [1, 1, 1], {"ellipsis_mask": 1, "new_axis_mask": 6}),
        ([0, 0, 1], [0, 0, 2], [1, 1, 1], {"ellipsis_mask": 1, "new_axis_mask": 2, "shrink_axis_mask": 4}),
        ([-100, 100], [100, -100], [1, -1], {}),
        ([10, -10], [-10, 10], [-1, 1], {}),
        ([2, 1], [0, 3], [-1, 1], {"begin_mask": 1}),
        ([0, 0, 0, 0], [1, 1, 1, 1], [1, 1, 1, 1], {"new_axis_mask": 8}),
        ([0], [1], [2], {"shrink_axis_mask": 1, "new_axis_mask": 1}),
        ([3], [4], [1], {"shrink_axis_mask": 1}),
        ([0], [1], [-1], {"shrink_axis_mask": 1}),
        ([0, 0], [1, 1], [1, 0], {}),
        ([0, 0], [1, 1], [1, 1], {"ellipsis_mask": 3}),
        ([0, 0, 0, 0], [1, 1, 1, 1], [1, 1, 1, 1], {}),
        ([0, 0], [1, 1, 1], [1, 1], {}),
    ]
    for b, e, s, masks in ss:
        case("StridedSlice", w, a(b, I32), a(e, I32), a(s, I32), **masks)
    case("StridedSlice", rnd((5,), I64), a([4], I64), a([0], I64), a([-2], I64))
    case("StridedSlice", a(3.0, F32), a([0], I32), a([0], I32), a([1], I32), new_axis_mask=1)

    p = rnd((5, 4), F32)
    for ax in (0, 1, -1):
        case("GatherV2", p, a([[4, 0], [1, 1]], I32), a(ax, I32) if ax != 1 else a(ax, I64))
    case("GatherV2", p, a(3, I64), a(0, I32))
    case("GatherV2", rnd((5,), I32), a([], I32), a(0, I32))
    q = rnd((2, 3, 4, 2), F32)
    case("GatherV2", q, a([[0, 2], [1, 1]], I32), a(1, I32), batch_dims=1)
    case("GatherV2", q, a([[0, 3, 3], [1, 1, 2]], I32), a(2, I32), batch_dims=1)
    case("GatherV2", q, a([[[0], [1], [1]], [[1], [0], [1]]], I32), a(3, I32), batch_dims=2)
    case("GatherV2", q, a([[0, 2], [1, 1]], I32), a(2, I32), batch_dims=-1)
    case("GatherV2", rnd((5,), I32), a([[1, 7]], I32), a(0, I32))
    case("GatherV2", rnd((5,), I32), a(-1, I32), a(0, I32))
    case("GatherV2", rnd((5, 3), F32), a([1], I32), a(2, I32))
    case("GatherV2", q, a([[0, 2], [1, 1]], I32), a(1, I32), batch_dims=2)

    idx = a([[0, 2, -1], [3, 1, 5]], I32)
    for ax in (-1, 0, 1, 2):
        case("OneHot", idx, a(4, I32), a(1.0, F32), a(0.0, F32), axis=ax)
    case("OneHot", a([1, 0, 3], I64), a(3, I32), a(5, I32), a(-1, I32))
    case("OneHot", a(2, I32), a(3, I32), a(True, bool), a(False, bool))
    case("OneHot", idx, a(-1, I32), a(1.0, F32), a(0.0, F32))
    case("OneHot", idx, a(3, I32), a(1.0, F32), a(0.0, F32), axis=3)


def random_cases() -> None:
    for op in ("RandomStandardNormal", "RandomUniform"):
        for dt in (F32, F64, F16):
            case(op, a([3, 5], I32), dtype=dt, seed=7, seed2=3)
            case(op, a([7], I64), dtype=dt, seed=1, seed2=0)
            case(op, a([2, 3, 2], I32), dtype=dt, seed=2**40 + 5, seed2=2**35 + 9)
        case(op, a([0, 4], I32), dtype=F32, seed=5, seed2=0)
        case(op, a([], I32), dtype=F32, seed=5, seed2=6)


def frontend_extra_cases() -> None:
    """AddN, LeakyRelu and Where, added with the front end (generated last: earlier cases keep their inputs)."""
    case("AddN", [rnd([2, 3], F32), rnd([2, 3], F32), rnd([2, 3], F32)])
    case("AddN", [rnd([4], F64), rnd([4], F64)])
    case("AddN", [rnd([3], F16, 100.0) for _ in range(5)])
    case("AddN", [a([1, 2], I32), a([2**31 - 1, 5], I32)])
    case("AddN", [rnd([2, 2], I64)])
    case("AddN", [rnd([2], F32), rnd([3], F32)])
    for dt in FLOATS:
        case("LeakyRelu", edges(dt))
    case("LeakyRelu", rnd([2, 3], F32), alpha=0.01)
    case("LeakyRelu", rnd([4], F64), alpha=-1.5)
    case("Where", a([[True, False, True], [False, False, True]], bool))
    case("Where", a([0.0, np.nan, -0.0, 2.0], F32))
    case("Where", rnd([2, 3, 2], I32))
    case("Where", a([[0j, 1j], [2, 0]], np.complex64))
    case("Where", np.zeros([0, 3], F64))
    case("Where", a(True, bool))
    for dt in (I32, I64):
        case("RandomUniformInt", a([3, 5], I32), a(-7, dt), a(20, dt), seed=7, seed2=3)
        case("RandomUniformInt", a([9], I64), a(0, dt), a(3, dt), seed=1, seed2=0)
        case("RandomUniformInt", a([0], I32), a(5, dt), a(5, dt), seed=1, seed2=2)
        case("RandomUniformInt", a([2], I32), a(5, dt), a(5, dt), seed=1, seed2=2)
        case("RandomUniformInt", a([2], I32), a([1, 2], dt), a(5, dt), seed=1, seed2=2)
    case("RandomUniformInt", a([5], I32), a(-(2**31), I32), a(2**31 - 1, I32), seed=3, seed2=4)
    case("RandomUniformInt", a([5], I32), a(-(2**62), I64), a(2**62, I64), seed=3, seed2=4)
    x = np.arange(6, dtype=I32).reshape(2, 3)
    case("PadV2", x, a([[1, 0], [0, 2]], I32), a(7, I32))
    case("PadV2", x.astype(F32), a([[0, 1], [1, 1]], I64), a(-0.5, F32))
    case("PadV2", a([True, False], bool), a([[2, 1]], I32), a(True, bool))
    case("PadV2", x, a([[1, 0], [0, 2]], I32), a([1, 2], I32))
    case("PadV2", x, a([[1, 0], [0, -2]], I32), a(1, I32))
    for mode in ("REFLECT", "SYMMETRIC"):
        case("MirrorPad", x, a([[1, 1], [2, 2]], I32), mode=mode)
        case("MirrorPad", np.arange(24, dtype=F32).reshape(2, 3, 4), a([[0, 1], [2, 0], [1, 3]], I64), mode=mode)
        case("MirrorPad", x, a([[2, 0], [0, 0]], I32), mode=mode)
        case("MirrorPad", x, a([[0, 0], [0, 4]], I32), mode=mode)
        case("MirrorPad", x, a([[-1, 0], [0, 0]], I32), mode=mode)


# ------------------------------------------------------------------ running and writing

_PREFIX = re.compile(r"^\{\{function_node [^}]*\}\}\s*")
_SUFFIX = re.compile(r"\s*\[Op:\w+\]( name:.*)?$", re.S)
_NODE_NAME = re.compile(r", node name: \w+$")


def clean_message(message: str) -> str:
    """TF's kernel message without the eager wrapper's function-node prefix and [Op:X] suffix, and without the
    ", node name: X" some kernels append (modtensor's errors carry the node separately)."""
    return _NODE_NAME.sub("", _SUFFIX.sub("", _PREFIX.sub("", message.strip())))


def to_tf_attr(value):
    if isinstance(value, type) and issubclass(value, np.generic):
        return tf.as_dtype(value)
    return value


def to_json_attr(value):
    if isinstance(value, type) and issubclass(value, np.generic):
        return {"dtype": np.dtype(value).name}
    return value


_PY_NAMES = {("Squeeze", "squeeze_dims"): "axis"}  # raw_ops renames of OpDef attrs


def run_case(c: dict):
    """TF's outputs for a case; NCHW / dilated-depthwise forms TF's CPU lacks are computed from supported ones."""
    try:
        return run_raw(c)
    except (tf.errors.UnimplementedError, tf.errors.InvalidArgumentError) as e:
        nhwc_only = isinstance(e, tf.errors.UnimplementedError) or "only supports NHWC" in e.message
        if c["attrs"].get("data_format") == "NCHW" and nhwc_only:
            return run_nchw_as_nhwc(c)
        dilated = c["attrs"].get("dilations", [1, 1, 1, 1]) != [1, 1, 1, 1]
        if c["op"] == "DepthwiseConv2dNative" and dilated and isinstance(e, tf.errors.UnimplementedError):
            at = c["attrs"]
            return tf.nn.depthwise_conv2d(c["inputs"][0], c["inputs"][1], at["strides"], at["padding"],
                                          dilations=at["dilations"][1:3]).numpy()  # fmt: skip
        raise


def _to_nhwc_attr(v):
    return [v[0], v[2], v[3], v[1]]


# Backward ops (tools/make_golden_gradient_ops.py): per input, "t" an NCHW tensor to transpose, "s" a 4-value NCHW
# shape to reorder, "-" as is; then whether the output is an NCHW tensor to transpose back (not a filter).
_NCHW_LAYOUTS = {
    "Conv2DBackpropInput": ("s-t", True),
    "Conv2DBackpropFilter": ("t-t", False),
    "DepthwiseConv2dNativeBackpropInput": ("s-t", True),
    "DepthwiseConv2dNativeBackpropFilter": ("t-t", False),
    "MaxPoolGrad": ("ttt", True),
    "MaxPoolGradGrad": ("ttt", True),
    "AvgPoolGrad": ("st", True),
}


def run_nchw_as_nhwc(c: dict):
    """Reference for an NCHW case: transpose to NHWC, run TF there, transpose the result back."""
    attrs = dict(c["attrs"], data_format="NHWC")
    for k in ("strides", "ksize", "dilations"):
        if k in attrs:
            attrs[k] = _to_nhwc_attr(attrs[k])
    if attrs.get("explicit_paddings"):
        e = attrs["explicit_paddings"]
        attrs["explicit_paddings"] = e[0:2] + e[4:8] + e[2:4]
    layout, image_out = _NCHW_LAYOUTS.get(c["op"], ("t" + "-" * (len(c["inputs"]) - 1), True))
    inputs = [
        np.ascontiguousarray(v.transpose(0, 2, 3, 1)) if how == "t" else np.asarray(_to_nhwc_attr(list(v)), v.dtype)
        if how == "s" else v
        for how, v in zip(layout, c["inputs"], strict=True)
    ]  # fmt: skip
    out = run_raw({"op": c["op"], "inputs": inputs, "attrs": attrs})
    return np.ascontiguousarray(out.transpose(0, 3, 1, 2)) if image_out else out


def run_raw(c: dict):
    fn = getattr(tf.raw_ops, c["op"])
    names = list(inspect.signature(fn).parameters)
    kwargs = {}
    for name, value in zip(names, c["inputs"], strict=False):
        kwargs[name] = [tf.constant(v) for v in value] if isinstance(value, list) else tf.constant(value)
    kwargs.update({_PY_NAMES.get((c["op"], k), k): to_tf_attr(v) for k, v in c["attrs"].items()})
    with tf.device("/CPU:0"):
        out = fn(**kwargs)
    if isinstance(out, (list, tuple)):  # a list output (RaggedGather's splits) counts as its tensors, in order
        return [t.numpy() for item in out for t in (item if isinstance(item, list) else [item])]
    return out.numpy()


def _storable(value) -> np.ndarray:
    """An array npz can hold without pickling: string tensors (objects holding bytes) as fixed-width bytes."""
    array = np.asarray(value)
    if array.dtype == object:
        return np.array([bytes(v) for v in array.reshape(-1)], dtype=bytes).reshape(array.shape)
    return array


def write_cases(cases: list[dict], out_dir: Path) -> int:
    """Run every case with TF and write ``out_dir/index.json`` plus one npz per op (replacing the old ones).

    A case may carry ``check`` (how the test compares, e.g. "up_to_sign" for decompositions
    whose vectors TF and LAPACK may sign differently); it is copied into the index.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    arrays: dict[str, dict[str, np.ndarray]] = collections.defaultdict(dict)
    index = []
    counts: collections.Counter = collections.Counter()
    skipped = []
    for c in cases:
        op = c["op"]
        cid = f"c{counts[op]}"
        try:
            result = run_case(c)
            error = None
        except (tf.errors.InvalidArgumentError, tf.errors.UnimplementedError) as e:
            result, error = None, {"class": type(e).__name__, "message": clean_message(e.message)}
        except (tf.errors.OpError, TypeError, ValueError) as e:  # no CPU kernel, or a oneDNN-only message
            skipped.append(f"{op} {[np.shape(x) for x in c['inputs']]} {c['attrs']}: {type(e).__name__}: "
                           f"{str(e).splitlines()[0][:150]}")  # fmt: skip
            continue
        counts[op] += 1
        entry: dict = {"op": op, "id": cid, "inputs": [], "attrs": {k: to_json_attr(v) for k, v in c["attrs"].items()}}
        if c.get("deviation"):
            entry["deviation"] = c["deviation"]
        if c.get("check"):
            entry["check"] = c["check"]
        for j, value in enumerate(c["inputs"]):
            if isinstance(value, list):
                keys = [f"{cid}_in{j}_{k}" for k in range(len(value))]
                for key, v in zip(keys, value, strict=True):
                    arrays[op][key] = _storable(v)
                entry["inputs"].append({"list": keys})
            else:
                arrays[op][f"{cid}_in{j}"] = _storable(value)
                entry["inputs"].append({"key": f"{cid}_in{j}"})
        if error is not None:
            entry["error"] = error
        else:
            outs = result if isinstance(result, list) else [result]
            if (c.get("check") or "").startswith("values_of_outputs:"):  # the others are uninitialized: store zeros
                kept = {int(i) for i in c["check"].split(":")[1].split(",")}
                outs = [v if k in kept else np.zeros_like(v) for k, v in enumerate(outs)]
            for k, shape in c.get("output_shapes", {}).items():  # an uninitialized output's shape as TF ships it
                outs[k] = np.zeros(shape, outs[k].dtype)
            entry["outputs"] = []
            for k, v in enumerate(outs):
                arrays[op][f"{cid}_out{k}"] = _storable(v)
                entry["outputs"].append(f"{cid}_out{k}")
            entry["multi_output"] = isinstance(result, list)
        index.append(entry)
    for f in out_dir.glob("*.npz"):
        f.unlink()
    for op, arrs in arrays.items():
        np.savez_compressed(out_dir / f"{op}.npz", **arrs)
    (out_dir / "index.json").write_text(json.dumps({"tensorflow": tf.__version__, "cases": index}, indent=0) + "\n")
    print(f"{len(index)} cases over {len(counts)} ops ({sum('error' in e for e in index)} error cases); "
          f"{len(skipped)} dropped (no TF CPU kernel or rejected before running):")  # fmt: skip
    for s in skipped:
        print("  dropped:", s)
    return 0


def main() -> int:
    makers = (elementwise_cases, activation_cases, conv_cases, reduction_cases, array_cases, random_cases)
    for make in (*makers, frontend_extra_cases):
        make()
    return write_cases(CASES, OUT_DIR)


if __name__ == "__main__":
    sys.exit(main())
