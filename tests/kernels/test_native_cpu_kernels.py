"""The native CPU kernel library (csrc/cpu_kernels) against TensorFlow's golden values and the numpy kernels.

The library registers its float32 kernels through the kernel C API (TF_InitKernel) at a
priority above the numpy kernels, loaded as a built-in plugin at the runtime's first use.
Every case here runs through the runtime's kernel lookup (``create_kernel`` + ``run``),
checks that the native kernel was the one chosen, and compares it with TF 2.21's golden
outputs and errors (tests/golden/kernels) or with the numpy kernel on the same inputs:
padding SAME/VALID/EXPLICIT, strides, dilations, NCHW, groups, depth multipliers, odd and
empty shapes, every fused epilogue, both GEMM paths (BLAS and the library's own) and one
and two threads.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import modtensor.ops  # noqa: F401  (standard OpDefs)
import modtensor.ops.fused_ops  # noqa: F401
from modtensor.framework import attr_value, errors
from modtensor.framework.node_def import add_default_attrs
from modtensor.framework.op_registry import global_registry
from modtensor.framework.protos import node_def_pb2
from modtensor.kernels.cpu import OP_FUNCTIONS, fused
from modtensor.plugin.native.kernels import NativeKernel
from modtensor.runtime import context, device_factory, intra_op
from modtensor.runtime.kernel_registry import global_kernel_registry
from modtensor.runtime.op_kernel import OpKernelContext, create_kernel

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "kernels"
INDEX = json.loads((GOLDEN / "index.json").read_text())["cases"]
NATIVE_OPS = (
    "Conv2D", "DepthwiseConv2dNative", "MatMul", "BatchMatMulV2", "MaxPool", "AvgPool", "BiasAdd", "Relu", "Relu6",
    "Elu", "LeakyRelu", "Sigmoid", "Tanh", "Pad", "AddV2", "Add", "Sub", "Mul", "RealDiv", "Maximum", "Minimum",
    "SquaredDifference", "ConcatV2", "Neg", "Abs", "Square", "Sqrt", "Rsqrt", "Reciprocal", "Exp", "Log", "Erf", "Erfc",
    "Floor", "Ceil", "Round", "Sum", "Mean", "Max", "Min", "Prod", "Softmax", "LogSoftmax", "Transpose", "StridedSlice",
)  # fmt: skip

@pytest.fixture(scope="module", autouse=True)
def _native_library() -> None:
    global_kernel_registry()  # first use: loads the built-in plugin
    assert intra_op.native_gemm() is not None, "the native CPU kernel library was not loaded"


def _node(op: str, n_inputs: int, attrs: dict[str, Any]) -> node_def_pb2.NodeDef:
    op_def = global_registry().get(op).op_def
    types = {a.name: a.type for a in op_def.attr}
    node = node_def_pb2.NodeDef(name="n", op=op, input=[f"in{i}" for i in range(n_inputs)])
    for key, value in attrs.items():
        node.attr[key].CopyFrom(attr_value.to_attr_value(value, types.get(key), name=key))
    add_default_attrs(node, op_def)
    return node


def run_kernel(op: str, inputs: list[np.ndarray], *, expect_native: bool = True, **attrs: Any) -> np.ndarray:
    """One call through the runtime's kernel lookup; T (and TArgs/num_args for fused ops) from the inputs."""
    (out,) = run_kernel_outputs(op, inputs, expect_native=expect_native, **attrs)
    return out


def run_kernel_outputs(op: str, inputs: list[np.ndarray], *, expect_native: bool = True, **attrs: Any) -> list:
    """run_kernel for an op of several outputs: all of them."""
    attrs = dict(attrs)
    if any(a.name == "T" for a in global_registry().get(op).op_def.attr):
        attrs.setdefault("T", inputs[0].dtype)
    index_attr = {"Sum": "Tidx", "Mean": "Tidx", "Max": "Tidx", "Min": "Tidx", "Prod": "Tidx", "Transpose": "Tperm",
                  "Pad": "Tpaddings", "StridedSlice": "Index"}.get(op)  # fmt: skip
    if index_attr is not None and len(inputs) > 1:
        attrs.setdefault(index_attr, inputs[1].dtype)
    if op == "_FusedConv2D":
        attrs.setdefault("TArgs", [a.dtype for a in inputs[2:]])
        attrs.setdefault("num_args", len(inputs) - 2)
    elif op in ("_FusedMatMul", "_FusedDepthwiseConv2dNative"):
        attrs.setdefault("num_args", len(inputs) - 2)
    node = _node(op, len(inputs), attrs)
    device = device_factory.get_device("CPU:0")
    kernel = create_kernel(node, global_registry().get(op).op_def, device)
    assert isinstance(kernel, NativeKernel) == expect_native, f"{op}: native kernel chosen = {not expect_native}"
    return list(kernel.run(OpKernelContext(kernel, [np.array(a) for a in inputs])))


def assert_same_message(native: errors.OpError, numpy_kernel: errors.OpError) -> None:
    """The native kernel's error reads as the numpy kernel's (a library loaded as a plugin adds context lines)."""
    assert native.message.split("\n\t")[0] == numpy_kernel.message


def close(got: np.ndarray, want: np.ndarray, rtol: float = 1e-5) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    scale = max(1.0, float(np.max(np.abs(want[np.isfinite(want)]), initial=0.0)))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * scale, equal_nan=True)


# ------------------------------------------------------------------ TensorFlow's golden cases

def _golden_arrays(op: str) -> dict[str, np.ndarray]:
    with np.load(GOLDEN / f"{op}.npz") as data:
        return {k: data[k] for k in data.files}


# The cases of a float32 first input (the others run on the numpy kernels, replayed by test_golden_kernels.py); the
# other inputs of these ops (reduction axes, permutations) are integers.
GOLDEN_CASES = [
    c for c in INDEX
    if c["op"] in NATIVE_OPS
    and all("key" in s for s in c["inputs"])
    and _golden_arrays(c["op"])[c["inputs"][0]["key"]].dtype == np.float32
]  # fmt: skip


@pytest.mark.parametrize("case", GOLDEN_CASES, ids=[f"{c['op']}-{c['id']}" for c in GOLDEN_CASES])
def test_golden_case_through_the_runtime(case: dict) -> None:
    data = _golden_arrays(case["op"])
    inputs = [data[spec["key"]] for spec in case["inputs"]]
    attrs = {k: (np.dtype(v["dtype"]) if isinstance(v, dict) and "dtype" in v else v) for k, v in case["attrs"].items()}
    native = True
    where = f"{case['op']} {case['id']} attrs={case['attrs']}"
    if "error" in case:
        cls = getattr(errors, case["error"]["class"])
        with pytest.raises(cls) as info:
            run_kernel(case["op"], inputs, expect_native=native, **attrs)
        assert case["error"]["message"] in str(info.value), where
        return
    got = run_kernel(case["op"], inputs, expect_native=native, **attrs)
    want = data[case["outputs"][0]]
    if "deviation" in case:
        assert got.dtype == want.dtype and got.shape == want.shape, where
        return
    close(got, want)


def test_golden_cases_cover_every_native_op() -> None:
    # TF's golden ConcatV2 cases take a list: it is held to the numpy kernel below.
    assert {c["op"] for c in GOLDEN_CASES} == set(NATIVE_OPS) - {"ConcatV2"}


# ------------------------------------------------------------------ against the numpy kernels

RNG = np.random.default_rng(1234)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


CONV_CASES = [
    # (input NHWC, filter HWIO, strides, padding, dilations, explicit)
    ((1, 7, 7, 3), (3, 3, 3, 8), (1, 1), "SAME", (1, 1), None),
    ((2, 3, 5, 1024), (1, 1, 1024, 40), (1, 1), "VALID", (1, 1), None),  # pointwise, input rows 4 KiB apart
    ((2, 8, 9, 5), (3, 3, 5, 4), (2, 2), "SAME", (1, 1), None),
    ((2, 8, 9, 5), (3, 2, 5, 4), (1, 2), "VALID", (1, 1), None),
    ((1, 10, 11, 4), (3, 3, 4, 6), (1, 1), "SAME", (2, 3), None),
    ((1, 9, 9, 4), (5, 5, 4, 3), (2, 1), "VALID", (1, 2), None),
    ((3, 6, 6, 16), (1, 1, 16, 40), (1, 1), "VALID", (1, 1), None),  # pointwise: no im2col
    ((1, 6, 6, 16), (1, 1, 16, 8), (2, 2), "VALID", (1, 1), None),
    ((1, 7, 5, 8), (3, 3, 2, 12), (1, 1), "SAME", (1, 1), None),  # 4 groups
    ((2, 9, 9, 16), (7, 7, 1, 16), (1, 1), "SAME", (1, 1), None),  # one channel per group: the depthwise path
    ((1, 7, 6, 6), (3, 3, 1, 12), (2, 2), "VALID", (1, 1), None),  # ... with a multiplier of 2
    ((2, 5, 5, 3), (3, 3, 3, 7), (1, 1), "EXPLICIT", (1, 1), (1, 2, 0, 3)),
    ((1, 1, 1, 1), (1, 1, 1, 1), (1, 1), "VALID", (1, 1), None),
    ((0, 5, 5, 3), (3, 3, 3, 2), (1, 1), "SAME", (1, 1), None),  # empty batch
    ((1, 2, 2, 3), (3, 3, 3, 2), (1, 1), "VALID", (1, 1), None),  # empty output
    ((1, 3, 300, 7), (2, 3, 7, 70), (1, 1), "SAME", (1, 1), None),  # many rows: tiled over threads
    ((1, 3, 3, 64), (3, 3, 64, 200), (1, 1), "SAME", (1, 1), None),  # few rows: output channels split
    # 8 channels and more: the implicit GEMM (no patch matrix), its edges, strides, dilations and column tails
    ((1, 10, 11, 16), (3, 3, 16, 40), (1, 1), "SAME", (2, 3), None),
    ((2, 9, 9, 24), (5, 5, 24, 20), (2, 1), "VALID", (1, 2), None),
    ((2, 5, 6, 9), (3, 3, 9, 44), (1, 1), "EXPLICIT", (1, 1), (1, 2, 0, 3)),
    ((1, 7, 7, 64), (3, 3, 64, 70), (1, 1), "SAME", (1, 1), None),
    ((2, 8, 8, 16), (1, 1, 16, 20), (2, 2), "SAME", (1, 1), None),
    ((3, 13, 12, 12), (3, 3, 12, 16), (1, 1), "SAME", (1, 1), None),
    # row tails of 8 and 4 (the micro-kernels of fewer rows) with a last panel of 12 columns
    ((1, 7, 8, 16), (3, 3, 16, 44), (1, 1), "SAME", (1, 1), None),
    ((1, 5, 13, 16), (1, 1, 16, 44), (1, 1), "VALID", (1, 1), None),
    ((2, 4, 5, 10), (3, 3, 10, 76), (1, 1), "SAME", (1, 1), None),
    # the implicit GEMM over whole filter rows (KW * C floats) of a few channels: RGB stems with and without padding
    # (filter rows crossing the left or right edge are copied with zeros), a filter wider than the input, dilation
    # along H only
    ((2, 23, 21, 3), (7, 7, 3, 20), (2, 2), "EXPLICIT", (1, 1), (3, 3, 3, 3)),
    ((1, 31, 29, 3), (3, 3, 3, 32), (2, 2), "VALID", (1, 1), None),
    ((1, 15, 14, 3), (3, 3, 3, 33), (2, 2), "SAME", (1, 1), None),
    ((1, 4, 3, 3), (3, 5, 3, 9), (1, 1), "SAME", (1, 1), None),
    ((1, 12, 10, 3), (3, 3, 3, 10), (1, 1), "SAME", (2, 1), None),
    # padding taps skipped: blocks of pixels with the same filter taps inside the input (one class per border row and
    # column range), 1x7 / 7x1 on 17x17, 3x3 on 8x8 with blocks across images, pixels with no tap inside at all,
    # dilation along both axes with uneven explicit padding (a tap per filter pixel)
    ((2, 17, 17, 40), (1, 7, 40, 36), (1, 1), "SAME", (1, 1), None),
    ((1, 17, 17, 24), (7, 1, 24, 20), (1, 1), "SAME", (1, 1), None),
    ((3, 8, 8, 20), (3, 3, 20, 40), (1, 1), "SAME", (1, 1), None),
    ((2, 4, 5, 8), (2, 2, 8, 12), (1, 1), "EXPLICIT", (1, 1), (3, 3, 2, 4)),
    ((1, 9, 11, 8), (3, 3, 8, 8), (2, 1), "EXPLICIT", (2, 2), (3, 0, 0, 4)),
]


def _explicit(pads: tuple[int, int, int, int] | None, nchw: bool) -> list[int]:
    if pads is None:
        return []
    t, b, left, r = pads
    return [0, 0, 0, 0, t, b, left, r] if nchw else [0, 0, t, b, left, r, 0, 0]


@pytest.mark.parametrize("nchw", [False, True], ids=["NHWC", "NCHW"])
@pytest.mark.parametrize("case", CONV_CASES, ids=[str(i) for i in range(len(CONV_CASES))])
def test_conv2d_matches_numpy(case: tuple, nchw: bool) -> None:
    xs, fs, (sh, sw), padding, (dh, dw), pads = case
    x, f = rand(*xs), rand(*fs)
    fmt = "NCHW" if nchw else "NHWC"
    if nchw:
        x = np.ascontiguousarray(x.transpose(0, 3, 1, 2))
    attrs = dict(
        strides=[1, 1, sh, sw] if nchw else [1, sh, sw, 1],
        dilations=[1, 1, dh, dw] if nchw else [1, dh, dw, 1],
        padding=padding,
        explicit_paddings=_explicit(pads, nchw),
        data_format=fmt,
    )
    want = OP_FUNCTIONS["Conv2D"](x, f, **attrs)
    close(run_kernel("Conv2D", [x, f], **attrs), want)


DEPTHWISE_CASES = [
    ((1, 7, 7, 8), (3, 3, 8, 1), (1, 1), "SAME", (1, 1)),
    ((2, 9, 8, 70), (3, 3, 70, 1), (2, 2), "SAME", (1, 1)),  # channels beyond one register block
    ((1, 9, 9, 5), (5, 5, 5, 1), (2, 1), "VALID", (1, 1)),
    ((1, 10, 10, 4), (3, 3, 4, 1), (1, 1), "SAME", (2, 2)),
    ((2, 6, 6, 3), (3, 3, 3, 2), (1, 1), "SAME", (1, 1)),  # depth multiplier 2
    ((1, 5, 5, 6), (2, 2, 6, 3), (2, 2), "VALID", (1, 1)),
    ((0, 4, 4, 3), (3, 3, 3, 1), (1, 1), "SAME", (1, 1)),
    ((1, 12, 11, 20), (7, 7, 20, 1), (1, 1), "SAME", (1, 1)),  # neither 3x3 nor 5x5
    ((2, 15, 15, 33), (5, 5, 33, 1), (2, 2), "SAME", (1, 1)),
    # the padded-tile kernels: channel tails, 3/5/7-wide rows at strides 1 and 2, maps smaller than the filter,
    # dilations (the tap loop), unequal strides, many row bands, wide rows (16-channel groups)
    ((2, 14, 13, 44), (5, 5, 44, 1), (1, 1), "SAME", (1, 1)),
    ((1, 15, 17, 11), (7, 7, 11, 1), (2, 2), "VALID", (1, 1)),
    ((1, 7, 7, 176), (7, 7, 176, 1), (1, 1), "SAME", (1, 1)),
    ((1, 20, 21, 70), (3, 3, 70, 1), (2, 2), "SAME", (1, 1)),
    ((1, 9, 10, 16), (3, 3, 16, 1), (1, 1), "SAME", (1, 2)),
    ((1, 30, 9, 8), (5, 5, 8, 1), (1, 2), "SAME", (1, 1)),
    ((2, 200, 6, 16), (3, 3, 16, 1), (1, 1), "SAME", (1, 1)),
    ((1, 3, 700, 32), (7, 7, 32, 1), (2, 2), "SAME", (1, 1)),
    ((1, 11, 11, 20), (3, 3, 20, 1), (2, 2), "VALID", (1, 1)),
    # 256 channels and more over 16 output rows or more: the input read in place (channel tails, borders, strides,
    # VALID, maps smaller than the filter); with a dilation the tile's tap loop instead
    ((2, 9, 10, 264), (3, 3, 264, 1), (1, 1), "SAME", (1, 1)),
    ((4, 9, 8, 300), (3, 3, 300, 1), (2, 2), "SAME", (1, 1)),
    ((3, 12, 11, 256), (5, 5, 256, 1), (1, 1), "VALID", (1, 1)),
    ((8, 4, 4, 272), (7, 7, 272, 1), (2, 2), "SAME", (1, 1)),
    ((16, 1, 1, 256), (3, 3, 256, 1), (1, 1), "SAME", (1, 1)),
    ((2, 9, 10, 264), (3, 3, 264, 1), (1, 1), "SAME", (2, 2)),
    # rows of 128 pixels or more with 64 channels or more: read in place too (channel tails, stride 2)
    ((2, 8, 130, 80), (3, 3, 80, 1), (1, 1), "SAME", (1, 1)),
    ((1, 33, 129, 64), (5, 5, 64, 1), (2, 2), "SAME", (1, 1)),
    # more than 256 channels: the interior pixels pixel-major (all channel vectors of a block of pixels in turn)
    ((1, 19, 19, 728), (3, 3, 728, 1), (1, 1), "SAME", (1, 1)),
    ((2, 12, 11, 400), (5, 5, 400, 1), (2, 2), "SAME", (1, 1)),
    ((1, 10, 13, 520), (7, 7, 520, 1), (1, 1), "SAME", (1, 1)),
]


@pytest.mark.parametrize("nchw", [False, True], ids=["NHWC", "NCHW"])
@pytest.mark.parametrize("case", DEPTHWISE_CASES, ids=[str(i) for i in range(len(DEPTHWISE_CASES))])
def test_depthwise_matches_numpy(case: tuple, nchw: bool) -> None:
    xs, fs, (sh, sw), padding, (dh, dw) = case
    x, f = rand(*xs), rand(*fs)
    if nchw:
        x = np.ascontiguousarray(x.transpose(0, 3, 1, 2))
    attrs = dict(
        strides=[1, 1, sh, sw] if nchw else [1, sh, sw, 1],
        dilations=[1, 1, dh, dw] if nchw else [1, dh, dw, 1],
        padding=padding,
        data_format="NCHW" if nchw else "NHWC",
    )
    want = OP_FUNCTIONS["DepthwiseConv2dNative"](x, f, **attrs)
    close(run_kernel("DepthwiseConv2dNative", [x, f], **attrs), want)


@pytest.mark.parametrize("channels", [64, 256, 264], ids=["tile", "in-place", "in-place-pixel-major"])
def test_depthwise_rows_entirely_in_explicit_padding_are_zero(channels: int) -> None:
    """Output rows whose filter rows all fall in the padding are zeros (the in-place path left them unwritten)."""
    x, f = rand(4, 6, 6, channels), rand(3, 3, channels, 1)
    attrs = dict(strides=[1, 1, 1, 1], padding="EXPLICIT", explicit_paddings=[0, 0, 5, 5, 1, 1, 0, 0],
                 dilations=[1, 1, 1, 1], data_format="NHWC")  # fmt: skip
    got = run_kernel("DepthwiseConv2dNative", [x, f], **attrs)
    assert got.shape == (4, 14, 6, channels)
    close(got, OP_FUNCTIONS["DepthwiseConv2dNative"](x, f, **attrs))
    assert not got[:, :3].any() and not got[:, -3:].any()


ACTIVATIONS = [[], ["Relu"], ["Relu6"], ["Elu"], ["LeakyRelu"], ["Sigmoid"], ["Tanh"], ["_MklSwish"]]


@pytest.mark.parametrize("act", ACTIVATIONS, ids=lambda a: "+".join(a) or "none")
@pytest.mark.parametrize("nchw", [False, True], ids=["NHWC", "NCHW"])
def test_fused_conv2d_bias_add_activation_matches_numpy(act: list[str], nchw: bool) -> None:
    x, f, b = rand(2, 9, 8, 6) * 3, rand(3, 3, 6, 10), rand(10)
    if nchw:
        x = np.ascontiguousarray(x.transpose(0, 3, 1, 2))
    attrs = dict(
        strides=[1, 1, 2, 1] if nchw else [1, 2, 1, 1], padding="SAME", data_format="NCHW" if nchw else "NHWC",
        fused_ops=["BiasAdd", *act], leakyrelu_alpha=0.3,
    )  # fmt: skip
    want = fused.fused_conv2d(x, f, [b], [], **attrs)
    close(run_kernel("_FusedConv2D", [x, f, b], **attrs), want)


@pytest.mark.parametrize("act", [[], ["Relu"], ["Relu6"]], ids=lambda a: "+".join(a) or "none")
def test_fused_conv2d_bias_add_add_matches_numpy(act: list[str]) -> None:
    x, f, b = rand(2, 6, 7, 4), rand(3, 3, 4, 9), rand(9)
    attrs = dict(strides=[1, 1, 1, 1], padding="SAME", fused_ops=["BiasAdd", "Add", *act])
    for other in (rand(2, 6, 7, 9), rand(7, 9), rand(1, 1, 1, 9)):  # same shape, and operands that broadcast
        want = fused.fused_conv2d(x, f, [b, other], [], **attrs)
        close(run_kernel("_FusedConv2D", [x, f, b, other], **attrs), want)


@pytest.mark.parametrize("ops", [["BiasAdd", "Add", "Relu"], ["BiasAdd", "Elu"]], ids=["add-relu", "elu"])
def test_fused_conv2d_on_border_blocks_matches_numpy(ops: list[str]) -> None:
    """The epilogue reaches every pixel of blocks gathered from the map's borders: in the micro-kernel's stores
    (bias, residual, Relu) and after them (Elu), over two column panels."""
    x, f, b = rand(2, 9, 10, 16) * 2, rand(3, 3, 16, 40), rand(40)
    args = [b, rand(2, 9, 10, 40)] if "Add" in ops else [b]
    attrs = dict(strides=[1, 1, 1, 1], padding="SAME", fused_ops=ops)
    want = fused.fused_conv2d(x, f, args, [], **attrs)
    close(run_kernel("_FusedConv2D", [x, f, *args], **attrs), want)


@pytest.mark.parametrize("ops", [["BiasAdd", "Add", "Relu"], ["BiasAdd", "Elu"]], ids=["add-relu", "elu"])
def test_fused_pointwise_conv2d_over_rows_4_kib_apart_matches_numpy(ops: list[str]) -> None:
    """1024 input channels: the GEMM reads A in place 8 rows per call (70 rows: 8 x 8 + 6), the epilogue in the
    stores or after them."""
    x, f, b = rand(2, 5, 7, 1024), rand(1, 1, 1024, 48) * 0.05, rand(48)
    args = [b, rand(2, 5, 7, 48)] if "Add" in ops else [b]
    attrs = dict(strides=[1, 1, 1, 1], padding="VALID", fused_ops=ops)
    want = fused.fused_conv2d(x, f, args, [], **attrs)
    close(run_kernel("_FusedConv2D", [x, f, *args], **attrs), want)


def test_fused_conv2d_add_operand_that_does_not_broadcast_is_an_error() -> None:
    x, f, b = rand(1, 4, 4, 2), rand(1, 1, 2, 3), rand(3)
    with pytest.raises(errors.InvalidArgumentError, match="must broadcast to the output"):
        run_kernel("_FusedConv2D", [x, f, b, rand(2, 4, 4, 3)], strides=[1, 1, 1, 1], padding="VALID",
                   fused_ops=["BiasAdd", "Add"])  # fmt: skip


@pytest.mark.parametrize("act", [[], ["Relu"], ["Relu6"]], ids=lambda a: "+".join(a) or "none")
def test_fused_conv2d_batch_norm_matches_numpy(act: list[str]) -> None:
    x, f = rand(1, 6, 6, 3), rand(3, 3, 3, 5)
    scale, offset, mean, var = rand(5), rand(5), rand(5), np.abs(rand(5)) + 0.1
    attrs = dict(strides=[1, 1, 1, 1], padding="VALID", fused_ops=["FusedBatchNorm", *act], epsilon=0.001)
    want = fused.fused_conv2d(x, f, [scale, offset, mean, var], [], **attrs)
    close(run_kernel("_FusedConv2D", [x, f, scale, offset, mean, var], **attrs), want)


@pytest.mark.parametrize("act", [[], ["Relu"], ["Relu6"], ["Elu"], ["LeakyRelu"], ["_MklSwish"]],
                         ids=lambda a: "+".join(a) or "none")  # fmt: skip
def test_fused_depthwise_matches_numpy(act: list[str]) -> None:
    x, f, b = rand(2, 7, 7, 12) * 2, rand(3, 3, 12, 1), rand(12)
    attrs = dict(strides=[1, 2, 2, 1], padding="SAME", fused_ops=["BiasAdd", *act])
    want = fused.fused_depthwise_conv2d_native(x, f, [b], **attrs)
    close(run_kernel("_FusedDepthwiseConv2dNative", [x, f, b], **attrs), want)


@pytest.mark.parametrize("act", [[], ["Relu6"], ["Elu"]], ids=lambda a: "+".join(a) or "none")
def test_fused_depthwise_over_many_channels_matches_numpy(act: list[str]) -> None:
    """The in-place depthwise path (256 channels and more) with its bias and Relu6 in registers, or Elu after."""
    x, f, b = rand(2, 9, 9, 264) * 2, rand(3, 3, 264, 1), rand(264)
    attrs = dict(strides=[1, 1, 1, 1], padding="SAME", fused_ops=["BiasAdd", *act])
    want = fused.fused_depthwise_conv2d_native(x, f, [b], **attrs)
    close(run_kernel("_FusedDepthwiseConv2dNative", [x, f, b], **attrs), want)


# (50, 1024, 40): rows of A 4 KiB apart, packed rather than read in place (they would share an L1 set)
MATMUL_SHAPES = [(1, 7, 5), (3, 4, 2), (64, 33, 17), (2, 300, 129), (129, 1, 64), (0, 3, 4), (4, 0, 3), (50, 1024, 40)]


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
@pytest.mark.parametrize("shape", MATMUL_SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_matmul_matches_numpy(shape: tuple[int, int, int], ta: bool, tb: bool) -> None:
    m, k, n = shape
    a = rand(k, m) if ta else rand(m, k)
    b = rand(n, k) if tb else rand(k, n)
    want = OP_FUNCTIONS["MatMul"](a, b, transpose_a=ta, transpose_b=tb)
    close(run_kernel("MatMul", [a, b], transpose_a=ta, transpose_b=tb), want)


FUSED_MATMUL_OPS = [["BiasAdd"]] + [
    ["BiasAdd", act] for act in ("Relu", "Relu6", "Elu", "LeakyRelu", "Sigmoid", "Tanh", "GeluExact", "GeluApproximate")
]


@pytest.mark.parametrize("fused_ops", FUSED_MATMUL_OPS, ids=lambda a: "+".join(a))
def test_fused_matmul_matches_numpy(fused_ops: list[str]) -> None:
    a, w, b = rand(37, 20) * 2, rand(20, 45), rand(45)
    want = fused.fused_mat_mul(a, w, [b], fused_ops=fused_ops, leakyrelu_alpha=0.1)
    close(run_kernel("_FusedMatMul", [a, w, b], fused_ops=fused_ops, leakyrelu_alpha=0.1), want)


BATCH_CASES = [((2, 3, 4), (2, 4, 5)), ((3, 1, 4, 6), (5, 6, 2)), ((1, 7, 3), (4, 3, 3)), ((5, 2), (3, 2, 4)),
               ((6, 16, 8), (6, 8, 16)), ((0, 2, 3), (3, 4))]  # fmt: skip


@pytest.mark.parametrize("adj", [(False, False), (True, False), (False, True), (True, True)], ids=str)
@pytest.mark.parametrize("shapes", BATCH_CASES, ids=lambda s: str(s))
def test_batch_matmul_matches_numpy(shapes: tuple, adj: tuple[bool, bool]) -> None:
    xs, ys = shapes
    x, y = rand(*xs), rand(*ys)
    if adj[0]:
        x = np.ascontiguousarray(np.swapaxes(x, -1, -2))
    if adj[1]:
        y = np.ascontiguousarray(np.swapaxes(y, -1, -2))
    want = OP_FUNCTIONS["BatchMatMulV2"](x, y, adj_x=adj[0], adj_y=adj[1])
    close(run_kernel("BatchMatMulV2", [x, y], adj_x=adj[0], adj_y=adj[1]), want)


POOL_CASES = [
    ((1, 7, 7, 3), (3, 3), (2, 2), "SAME"),
    ((2, 8, 9, 70), (2, 2), (2, 2), "VALID"),
    ((1, 9, 9, 4), (3, 2), (1, 2), "SAME"),
    ((1, 5, 5, 1), (5, 5), (1, 1), "VALID"),
    ((0, 4, 4, 2), (2, 2), (2, 2), "SAME"),
    ((1, 12, 13, 44), (3, 3), (1, 1), "SAME"),
    ((2, 11, 11, 20), (3, 3), (2, 2), "VALID"),
    ((2, 6, 9, 150), (1, 3), (1, 2), "SAME"),  # one-row windows (the input row reduced in place), channel tails
    ((1, 70, 5, 3), (67, 2), (2, 1), "VALID"),  # windows over 64 rows (reduced 64 rows per pass)
    ((1, 6, 7, 60), (3, 3), (1, 1), "SAME"),  # channel vectors four at a time: the last four with a tail
    ((2, 5, 5, 128), (2, 2), (1, 1), "SAME"),  # ... two whole groups of four
]


@pytest.mark.parametrize("op", ["MaxPool", "AvgPool"])
@pytest.mark.parametrize("nchw", [False, True], ids=["NHWC", "NCHW"])
@pytest.mark.parametrize("case", POOL_CASES, ids=[str(i) for i in range(len(POOL_CASES))])
def test_pooling_matches_numpy(case: tuple, nchw: bool, op: str) -> None:
    xs, (kh, kw), (sh, sw), padding = case
    x = rand(*xs)
    if xs[0]:
        x.flat[::7] = np.nan if op == "MaxPool" else 0.0  # NaN never wins a max window, as in TF
    if nchw:
        x = np.ascontiguousarray(x.transpose(0, 3, 1, 2))
    attrs = dict(
        ksize=[1, 1, kh, kw] if nchw else [1, kh, kw, 1],
        strides=[1, 1, sh, sw] if nchw else [1, sh, sw, 1],
        padding=padding,
        data_format="NCHW" if nchw else "NHWC",
    )
    want = OP_FUNCTIONS[op](x, **attrs)
    close(run_kernel(op, [x], **attrs), want)


def test_max_pool_explicit_padding_and_depth_pooling_match_numpy() -> None:
    x = rand(2, 5, 6, 6)
    pads = [0, 0, 1, 2, 2, 0, 0, 0]
    attrs = dict(ksize=[1, 3, 3, 1], strides=[1, 2, 1, 1], padding="EXPLICIT", explicit_paddings=pads)
    close(run_kernel("MaxPool", [x], **attrs), OP_FUNCTIONS["MaxPool"](x, **attrs))
    attrs = dict(ksize=[1, 1, 1, 3], strides=[1, 1, 1, 3], padding="VALID")
    close(run_kernel("MaxPool", [x], **attrs), OP_FUNCTIONS["MaxPool"](x, **attrs))


@pytest.mark.parametrize("op", ["Relu", "Relu6", "Elu", "LeakyRelu", "Sigmoid", "Tanh"])
def test_activations_match_numpy_with_special_values(op: str) -> None:
    x = np.concatenate([rand(100_003) * 10, np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30, 88.8, -104],
                                                     dtype=np.float32)])  # fmt: skip
    attrs = {"alpha": 0.25} if op == "LeakyRelu" else {}
    want = OP_FUNCTIONS[op](x, **attrs)
    got = run_kernel(op, [x], **attrs)
    close(got, want, rtol=2e-6)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))


@pytest.mark.parametrize("shape,fmt", [((4, 5), "NHWC"), ((2, 3, 4, 5), "NHWC"), ((2, 5, 3, 4), "NCHW"),
                                       ((3, 5), "NCHW"), ((0, 5), "NHWC")])  # fmt: skip
def test_bias_add_matches_numpy(shape: tuple, fmt: str) -> None:
    x = rand(*shape)
    b = rand(shape[1] if fmt == "NCHW" else shape[-1])
    close(run_kernel("BiasAdd", [x, b], data_format=fmt), OP_FUNCTIONS["BiasAdd"](x, b, data_format=fmt))


@pytest.mark.parametrize("shape,pads", [((3, 4), [[1, 2], [0, 3]]), ((2, 5, 5, 3), [[0, 0], [1, 1], [0, 2], [0, 0]]),
                                        ((4,), [[0, 0]]), ((2, 0, 3), [[1, 0], [1, 1], [0, 1]]), ((), np.zeros((0, 2))),
                                        ((1, 2, 1, 2, 1, 2, 1), [[1, 1]] * 7)])  # fmt: skip
@pytest.mark.parametrize("pad_dtype", [np.int32, np.int64])
def test_pad_matches_numpy(shape: tuple, pads: list, pad_dtype: type) -> None:
    x, p = rand(*shape), np.asarray(pads, pad_dtype).reshape(-1, 2)
    close(run_kernel("Pad", [x, p], Tpaddings=p.dtype), OP_FUNCTIONS["Pad"](x, p))


BINARY_SHAPES = [((5,), (5,)), ((2, 3, 4), ()), ((), (7,)), ((4, 1, 3), (1, 5, 1)), ((2, 6, 6, 8), (8,)),
                 ((2, 6, 6, 8), (2, 1, 1, 8)), ((3, 1), (1, 3)), ((100_003,), (100_003,)), ((1, 300, 70), (300, 1)),
                 ((0, 3), (1, 3)), ((2, 1, 2, 1, 2, 1, 2), (1, 2, 1, 2, 1, 2, 1)),
                 ((64, 64, 3), (1, 1, 3)), ((1, 1, 3), (64, 64, 3)), ((1000, 5), (5,)), ((9, 31), (1, 31)),
                 ((3, 1, 7, 2), (3, 5, 7, 2))]  # fmt: skip


@pytest.mark.parametrize("op", ["AddV2", "Add", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "SquaredDifference"])
@pytest.mark.parametrize("shapes", BINARY_SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_broadcasting_binary_ops_match_numpy(op: str, shapes: tuple) -> None:
    x, y = rand(*shapes[0]), rand(*shapes[1])
    if x.size > 4:
        x.flat[::5] = np.nan
        x.flat[1::7] = 0.0
    if y.size > 3:
        y.flat[2::3] = 0.0
    want = OP_FUNCTIONS[op](x, y)
    got = run_kernel(op, [x, y])
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)  # one rounding per element: bit-identical to numpy


def test_binary_ops_reject_shapes_that_do_not_broadcast() -> None:
    with pytest.raises(errors.InvalidArgumentError, match=r"Incompatible shapes: \[2,3\] vs. \[4\]"):
        run_kernel("AddV2", [rand(2, 3), rand(4)])


CONCAT_CASES = [([(2, 3), (2, 5)], 1), ([(2, 3), (4, 3), (1, 3)], 0), ([(2, 4, 4, 3), (2, 4, 4, 5)], -1),
                ([(1, 2, 3)], 2), ([(2, 0, 3), (2, 2, 3)], 1), ([(3, 2, 2), (3, 1, 2)], 1),
                # blocks copied by the inline vector loop (tails of 5 and 6 floats) and, above 1024 floats, by memcpy
                ([(3, 5, 37), (3, 5, 70), (3, 5, 1)], -1), ([(2, 1100), (2, 30)], 1)]  # fmt: skip


@pytest.mark.parametrize("case", CONCAT_CASES, ids=[str(i) for i in range(len(CONCAT_CASES))])
def test_concat_matches_numpy(case: tuple) -> None:
    shapes, axis = case
    values = [rand(*s) for s in shapes]
    want = OP_FUNCTIONS["ConcatV2"](values, np.int32(axis))
    node_inputs = [*values, np.array(axis, np.int32)]
    got = run_kernel("ConcatV2", node_inputs, T=np.float32, N=len(values), Tidx=np.int32)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("shapes,axis", [([(2, 3), (2, 4, 1)], 0), ([(2, 3), (3, 3)], 1), ([(2, 3)], 2)])
def test_concat_errors_match_numpy(shapes: list, axis: int) -> None:
    values = [rand(*s) for s in shapes]
    with pytest.raises(errors.InvalidArgumentError) as numpy_error:
        OP_FUNCTIONS["ConcatV2"](values, np.int32(axis))
    with pytest.raises(errors.InvalidArgumentError) as native_error:
        run_kernel("ConcatV2", [*values, np.array(axis, np.int32)], T=np.float32, N=len(values), Tidx=np.int32)
    assert numpy_error.value.message == native_error.value.message


ERROR_CASES = [
    ("Conv2D", [(1, 5, 5, 4), (3, 3, 3, 2)], dict(strides=[1, 1, 1, 1], padding="SAME")),
    ("Conv2D", [(1, 5, 5, 4), (3, 3, 4, 2)], dict(strides=[1, 1, 1, 2], padding="SAME")),
    ("Conv2D", [(1, 5, 5, 4), (3, 3, 4, 2)], dict(strides=[1, 1, 1], padding="SAME")),
    ("Conv2D", [(5, 5, 4), (3, 3, 4, 2)], dict(strides=[1, 1, 1, 1], padding="SAME")),
    ("Conv2D", [(1, 2, 2, 4), (3, 3, 4, 2)], dict(strides=[1, 3, 3, 1], padding="VALID", dilations=[1, 3, 3, 1])),
    ("Conv2D", [(1, 5, 5, 4), (3, 3, 4, 2)], dict(strides=[1, 1, 1, 1], padding="EXPLICIT",
                                                  explicit_paddings=[0, 0, 1, 1, 1, 1, 1, 0])),
    ("Conv2D", [(1, 5, 5, 4), (3, 3, 4, 2)], dict(strides=[1, 1, 1, 1], padding="EXPLICIT", explicit_paddings=[1])),
    ("DepthwiseConv2dNative", [(1, 5, 5, 4), (3, 3, 3, 1)], dict(strides=[1, 1, 1, 1], padding="SAME")),
    ("MatMul", [(2, 3), (4, 5)], {}),
    ("MatMul", [(2, 3, 1), (3, 5)], {}),
    ("BatchMatMulV2", [(2, 2, 3), (3, 3, 4)], {}),
    ("BatchMatMulV2", [(2, 2, 3), (2, 4, 4)], {}),
    ("MaxPool", [(1, 4, 4, 3)], dict(ksize=[2, 2, 2, 1], strides=[1, 1, 1, 1], padding="SAME")),
    ("MaxPool", [(4, 4, 3)], dict(ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1], padding="SAME")),
    ("AvgPool", [(1, 4, 4, 3)], dict(ksize=[1, 2, 2, 2], strides=[1, 1, 1, 1], padding="SAME")),
    ("BiasAdd", [(2, 3), (4,)], {}),
    ("BiasAdd", [(3,), (3,)], {}),
]
PAD_ERRORS = [((2, 3), [[1, 1]]), ((2, 3), [[1, -1], [0, 0]]), ((2, 3), [1, 1, 0, 0])]


@pytest.mark.parametrize("case", PAD_ERRORS, ids=[str(i) for i in range(len(PAD_ERRORS))])
def test_pad_errors_match_the_numpy_kernel(case: tuple) -> None:
    shape, pads = case
    x, p = rand(*shape), np.asarray(pads, np.int32)
    with pytest.raises(errors.InvalidArgumentError) as numpy_error:
        OP_FUNCTIONS["Pad"](x, p)
    with pytest.raises(errors.InvalidArgumentError) as native_error:
        run_kernel("Pad", [x, p], Tpaddings=p.dtype)
    assert numpy_error.value.message == native_error.value.message


@pytest.mark.parametrize("case", ERROR_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(ERROR_CASES)])
def test_errors_match_the_numpy_kernels(case: tuple) -> None:
    op, shapes, attrs = case
    inputs = [rand(*s) for s in shapes]
    with pytest.raises(errors.OpError) as numpy_error:
        OP_FUNCTIONS[op](*inputs, **attrs)
    with pytest.raises(type(numpy_error.value)) as native_error:
        run_kernel(op, inputs, **attrs)
    assert numpy_error.value.message in native_error.value.message


def test_unsupported_fused_ops_are_unimplemented_at_run_time() -> None:
    x, f, b = rand(1, 4, 4, 2), rand(1, 1, 2, 3), rand(3)
    with pytest.raises(errors.UnimplementedError, match=r"fused_ops \[BiasAdd, Softplus\] is not supported"):
        run_kernel("_FusedConv2D", [x, f, b], strides=[1, 1, 1, 1], padding="VALID", fused_ops=["BiasAdd", "Softplus"])


# ------------------------------------------------------------------ GEMM paths and threads


def test_portable_gemm_gives_the_simd_results() -> None:
    a, b = rand(70, 130), rand(130, 33)
    x, f = rand(2, 9, 9, 5), rand(3, 3, 5, 17)
    conv_attrs = dict(strides=[1, 1, 1, 1], padding="SAME")
    with_simd = run_kernel("MatMul", [a, b], transpose_b=False), run_kernel("Conv2D", [x, f], **conv_attrs)
    best = intra_op.native_gemm()
    intra_op.force_generic_gemm(True)
    try:
        assert intra_op.native_gemm() == "generic"
        for ta, tb in ((False, False), (True, False), (False, True), (True, True)):
            aa = np.ascontiguousarray(a.T) if ta else a
            bb = np.ascontiguousarray(b.T) if tb else b
            close(run_kernel("MatMul", [aa, bb], transpose_a=ta, transpose_b=tb), with_simd[0])
        close(run_kernel("Conv2D", [x, f], **conv_attrs), with_simd[1])
        for case in DEPTHWISE_CASES:  # the depthwise rows' portable loop too
            xs, fs, (sh, sw), padding, (dh, dw) = case
            dx, df = rand(*xs), rand(*fs)
            attrs = dict(strides=[1, sh, sw, 1], dilations=[1, dh, dw, 1], padding=padding)
            close(run_kernel("DepthwiseConv2dNative", [dx, df], **attrs),
                  OP_FUNCTIONS["DepthwiseConv2dNative"](dx, df, **attrs))  # fmt: skip
    finally:
        intra_op.force_generic_gemm(False)
    assert intra_op.native_gemm() == best


def test_intra_op_threads_setting_reaches_the_native_pool_and_results_do_not_depend_on_it() -> None:
    x, f = rand(2, 30, 30, 8), rand(3, 3, 8, 16)
    attrs = dict(strides=[1, 1, 1, 1], padding="SAME")
    before = context.intra_op_parallelism_threads()
    try:
        context.set_intra_op_parallelism_threads(1)
        assert intra_op.native_threads() == 1
        one = run_kernel("Conv2D", [x, f], **attrs)
        context.set_intra_op_parallelism_threads(2)
        assert intra_op.native_threads() == 2
        two = run_kernel("Conv2D", [x, f], **attrs)
    finally:
        context.set_intra_op_parallelism_threads(before)
    np.testing.assert_array_equal(one, two)


def test_concurrent_ops_from_several_threads_give_the_same_results() -> None:
    import threading

    x, f = rand(1, 40, 40, 8), rand(3, 3, 8, 24)
    attrs = dict(strides=[1, 1, 1, 1], padding="SAME")
    want = run_kernel("Conv2D", [x, f], **attrs)
    results: list[np.ndarray] = []
    failures: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(5):
                results.append(run_kernel("Conv2D", [x, f], **attrs))
        except BaseException as e:  # noqa: BLE001 - reported below
            failures.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures and len(results) == 20
    for got in results:
        np.testing.assert_array_equal(got, want)


def test_float64_stays_on_the_numpy_kernels() -> None:
    x, f = rand(1, 5, 5, 2).astype(np.float64), rand(3, 3, 2, 3).astype(np.float64)
    got = run_kernel("Conv2D", [x, f], expect_native=False, strides=[1, 1, 1, 1], padding="SAME")
    assert got.dtype == np.float64


# ---------------------------------------------------------------------- graphs: the executor's direct calls


def _graph_node(op: str, name: str, inputs: list[str], **attrs: Any) -> node_def_pb2.NodeDef:
    node = _node(op, 0, attrs)
    node.name = name
    node.input.extend(inputs)
    return node


def _small_and_large_graph() -> Any:
    """x, c -> a = x + c; m = a * c; r = relu(m); s = r + r; out = s * a (``a`` read twice, ``r`` twice by one node)."""
    from modtensor.framework import tensor_proto
    from modtensor.framework.protos import graph_pb2

    graph = graph_pb2.GraphDef()
    graph.node.extend([
        _graph_node("Placeholder", "x", [], dtype=np.float32),
        _graph_node("Const", "c", [], dtype=np.float32,
                    value=tensor_proto.make_tensor_proto(np.float32(1.5))),
        _graph_node("AddV2", "a", ["x", "c"], T=np.float32),
        _graph_node("Mul", "m", ["a", "c"], T=np.float32),
        _graph_node("Relu", "r", ["m"], T=np.float32),
        _graph_node("AddV2", "s", ["r", "r"], T=np.float32),
        _graph_node("Mul", "out", ["s", "a"], T=np.float32),
    ])  # fmt: skip
    return graph


def _expected(x: np.ndarray) -> np.ndarray:
    c = np.float32(1.5)
    a = x + c
    r = np.maximum(a * c, np.float32(0))
    return (r + r) * a


@pytest.mark.parametrize("size", [10, 200_000])
def test_graph_plan_runs_the_native_kernels_for_small_and_large_inputs(size: int) -> None:
    """In a graph on the CPU the plan calls the native kernels themselves, without a kernel context, for 10 floats
    as for 200k (no small-input fallback to the numpy kernels: the direct call costs less than theirs), writes
    an output into an input's buffer only where no later node reads that input, and leaves the fed array alone."""
    from modtensor.plugin.native.kernels import NativeKernel
    from modtensor.runtime.graph_execution import compile_graph

    compiled = compile_graph(_small_and_large_graph(), ["x"], ["out"])
    try:
        (executor,) = compiled._executors
        items = {item.name: item for item in executor._items}
        plan = {entry[1].name: entry for entry in executor._plan}
        assert executor._fast_plan is not None
        for name in ("a", "m", "r", "s", "out"):
            item = items[name]
            assert type(item.kernel) is NativeKernel and item.kernel.spec.builtin, name
            call, (capsule, target) = item.plan_call
            assert target is item.kernel._native and plan[name][2] == call, name  # the plan's call is the C kernel
        x = np.linspace(-2.0, 2.0, size, dtype=np.float32)
        before = x.copy()
        for _ in range(3):
            (got,) = compiled.run([x])
            np.testing.assert_allclose(got, _expected(before), rtol=1e-6)
        np.testing.assert_array_equal(x, before)  # the caller's array was not written
        # The output comes from the native kernels' own allocation (TensorFlow's 64-byte alignment).
        assert got.ctypes.data % 64 == 0
        executor._fast_plan = None  # the Python plan loop (no C extension): the same calls, nothing forwarded
        (again,) = compiled.run([x])
        np.testing.assert_array_equal(again, got)
        np.testing.assert_array_equal(x, before)
    finally:
        compiled.close()


@pytest.mark.parametrize("size", [0, 1, 10, 4096, 5000, 200_000])
def test_eager_ops_call_the_native_kernels_directly_for_every_size(size: int) -> None:
    """Eager float32 ops on the CPU run the native kernel the registry chose, for scalars as for large inputs (one
    kernel per op, as TF; no small-input numpy fallback): the entry's call is the kernel's direct call (no kernel
    context), through the operators' and wrappers' shortcuts and the front door alike; tensors are never written."""
    import modtensor as tf
    from modtensor.runtime import eager

    eager.clear_kernel_cache()
    shape = () if size == 1 else (size,)
    x_np = np.linspace(-2.0, 2.0, max(size, 1), dtype=np.float32)[:size].reshape(shape)
    y_np = np.float32(1.5) * np.ones(shape, np.float32)
    x, y = tf.constant(x_np), tf.constant(y_np)
    got_add = x + y  # run_cached2 after the miss below
    got_add = x + y
    got_relu = tf.nn.relu(x)
    got_relu = tf.nn.relu(x)
    got_mul = eager.apply_op_eager("Mul", None, {"x": x, "y": y})
    np.testing.assert_array_equal(got_add.numpy(), x_np + y_np)
    np.testing.assert_array_equal(got_relu.numpy(), np.maximum(x_np, np.float32(0)))
    np.testing.assert_array_equal(got_mul.numpy(), x_np * y_np)
    assert got_add.dtype == tf.float32 and got_add.shape == shape
    np.testing.assert_array_equal(x.numpy(), x_np)  # inputs untouched
    np.testing.assert_array_equal(y.numpy(), y_np)
    entries = {key[0]: entry for key, entry in eager._CACHE.items()}
    for op in ("AddV2", "Relu", "Mul"):
        kernel = entries[op].kernel
        assert type(kernel) is NativeKernel and kernel.spec.builtin, op
        assert entries[op].call == kernel.plan_call()[0], op  # the bridge's direct_call of this kernel
    with pytest.raises(errors.InvalidArgumentError, match=r"Incompatible shapes: \[2\] vs. \[3\] \[Op:AddV2\]"):
        _ = tf.constant([1.0, 2.0]) + tf.constant([1.0, 2.0, 3.0])


def test_direct_call_from_python_never_writes_an_argument() -> None:
    from modtensor.runtime.allocator import aligned_empty

    node = _node("AddV2", 2, {"T": np.float32})
    kernel = create_kernel(node, global_registry().get("AddV2").op_def, device_factory.get_device("CPU:0"))
    call, _native = kernel.plan_call()
    x = aligned_empty((8,), np.float32)
    x[:] = 1.0
    out = call(x, np.float32(2.0) * np.ones(8, np.float32))
    np.testing.assert_array_equal(out, np.full(8, 3.0, np.float32))
    np.testing.assert_array_equal(x, np.ones(8, np.float32))
    assert out is not x


def test_context_call_forwards_an_input_only_its_inputs_list_holds() -> None:
    """Through a kernel context the bridge decides forwarding in C, by forward_input's rule: an aligned, writeable
    input whose only reference is the context's inputs list becomes the output; one the caller still holds does
    not."""
    from modtensor.runtime.allocator import aligned_empty

    node = _node("Relu", 1, {"T": np.float32})
    kernel = create_kernel(node, global_registry().get("Relu").op_def, device_factory.get_device("CPU:0"))
    held = aligned_empty((16,), np.float32)
    held[:] = -1.0
    (out,) = kernel.run(OpKernelContext(kernel, [held]))
    assert out is not held and float(held[0]) == -1.0 and float(out[0]) == 0.0
    inputs = [aligned_empty((16,), np.float32)]
    inputs[0][:] = -1.0
    given = id(inputs[0])
    (out,) = kernel.run(OpKernelContext(kernel, inputs))
    assert id(out) == given and float(out[0]) == 0.0


# ------------------------------------------------------------------ unary ops, reductions, softmax, transpose, einsum

SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 3.7, -3.7, 9.0, -9.0, 12.0, -30.0, 88.0, -100.0,
                    1e-40, -1e-40, 1e-20, 1e30, np.inf, -np.inf, np.nan], dtype=np.float32)  # fmt: skip


@pytest.mark.parametrize("op", ["Neg", "Abs", "Square", "Sqrt", "Rsqrt", "Reciprocal", "Exp", "Log", "Erf", "Erfc",
                                "Floor", "Ceil", "Round"])  # fmt: skip
def test_unary_ops_match_numpy(op: str) -> None:
    x = np.concatenate([SPECIAL, rand(5000) * 4, np.abs(rand(3000)) * 50]).astype(np.float32)
    want = OP_FUNCTIONS[op](x)
    got = run_kernel(op, [x])
    assert got.dtype == want.dtype and got.shape == want.shape
    finite = np.isfinite(want)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(got[~finite & ~np.isnan(want)], want[~finite & ~np.isnan(want)])
    # relative to each value (erfc's tail and exp's small results included), with an absolute floor at float's
    # smallest normal: TF's Eigen kernels flush what lies below it differently from libm
    np.testing.assert_allclose(got[finite], want[finite], rtol=2e-6, atol=1.2e-38)


REDUCE_CASES = [
    ((4, 5), [1]), ((4, 5), [0]), ((4, 5), [0, 1]), ((4, 5), []), ((3, 4, 5), [1]), ((3, 4, 5), [0, 2]),
    ((2, 3, 4, 5), [1, 2]), ((2, 3, 4, 5), [0, 3]), ((2, 3, 4, 5), [-1]), ((1, 4, 1, 5), [2]), ((6, 1), [0]),
    ((2, 0, 3), [1]), ((2, 0, 3), [0]), ((3, 2000), [1]), ((2000, 3), [0]), ((7,), [0]), ((), []),
    ((2, 3, 2, 3, 2), [0, 2, 4]), ((32, 32, 3), [0, 1]), ((2, 700, 5), [1]), ((1000, 31), [0]),
]  # fmt: skip


@pytest.mark.parametrize("keep_dims", [False, True])
@pytest.mark.parametrize("op", ["Sum", "Mean", "Max", "Min", "Prod"])
@pytest.mark.parametrize("case", REDUCE_CASES, ids=[f"{c[0]}-{c[1]}" for c in REDUCE_CASES])
def test_reductions_match_numpy(case: tuple, op: str, keep_dims: bool) -> None:
    shape, axes = case
    x = rand(*shape) if shape else np.float32(RNG.standard_normal())
    x = np.asarray(x, dtype=np.float32)
    if op == "Prod":
        x = (1.0 + 0.01 * x).astype(np.float32)
    if x.size > 10 and op in ("Max", "Min"):
        x.flat[3] = np.nan  # propagates, as in TF
    axis = np.array(axes, dtype=np.int32)
    want = OP_FUNCTIONS[op](x, axis, keep_dims=keep_dims)
    got = run_kernel(op, [x, axis], keep_dims=keep_dims)
    assert got.shape == want.shape and got.dtype == want.dtype
    scale = max(1.0, float(np.max(np.abs(want[np.isfinite(want)]), initial=0.0)))
    atol = 1e-6 * scale
    if op in ("Sum", "Mean"):
        # a float32 sum in any order is exact to a few ulps of the sum of the magnitudes, not of the result: 1024
        # terms that cancel to 4.5 differ by 4e-5 between numpy's pairwise order and the kernel's blocked one
        magnitude = OP_FUNCTIONS[op](np.abs(x), axis, keep_dims=keep_dims)
        atol = max(atol, 2.4e-7 * float(np.max(magnitude, initial=0.0)))
    rtol = 2e-6
    if op == "Prod" and want.size:
        # each of n factors rounds once, in whatever order: the relative errors add up as a random walk, about
        # sqrt(n) ulps (3 standard deviations allowed); 1024 factors differed by 4e-6 between the two orders
        rtol = max(rtol, 3 * 1.19e-7 * float(np.sqrt(x.size / want.size)))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize("shape", [(1, 5), (3, 17), (2, 4, 130), (5, 1), (4000,), (0, 3), (2, 0)], ids=str)
def test_softmax_matches_numpy(op: str, shape: tuple) -> None:
    x = rand(*shape) * 8
    if x.size > 3:
        x.flat[1] = 60.0  # large logits: the max shift
    close(run_kernel(op, [x]), OP_FUNCTIONS[op](x))


TRANSPOSE_CASES = [
    ((3, 4), (1, 0)), ((2, 3, 4), (0, 2, 1)), ((2, 3, 4), (2, 0, 1)), ((2, 3, 4), (1, 0, 2)), ((2, 3, 4), (0, 1, 2)),
    ((2, 1, 4, 5), (3, 2, 1, 0)), ((4, 5, 6, 7), (0, 2, 1, 3)), ((40, 33), (1, 0)), ((1, 1), (1, 0)), ((0, 3), (1, 0)),
    ((3, 17, 20, 5), (2, 3, 0, 1)), ((), ()),
]  # fmt: skip


@pytest.mark.parametrize("perm_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("case", TRANSPOSE_CASES, ids=[str(c) for c in TRANSPOSE_CASES])
def test_transpose_matches_numpy(case: tuple, perm_dtype: type) -> None:
    shape, perm = case
    x = np.asarray(rand(*shape) if shape else np.float32(1.5), dtype=np.float32)
    p = np.array(perm, dtype=perm_dtype)
    want = OP_FUNCTIONS["Transpose"](x, p)
    got = run_kernel("Transpose", [x, p])
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("perm", [(0, 0), (0, 2), (1,)], ids=str)
def test_transpose_errors_match_numpy(perm: tuple) -> None:
    x, p = rand(2, 3), np.array(perm, dtype=np.int32)
    with pytest.raises(errors.InvalidArgumentError) as want:
        OP_FUNCTIONS["Transpose"](x, p)
    with pytest.raises(errors.InvalidArgumentError) as got:
        run_kernel("Transpose", [x, p])
    assert_same_message(got.value, want.value)


EINSUM_CASES = [
    ("abc,cde->abde", [(2, 3, 4), (4, 5, 6)]),  # Keras EinsumDense: in place, no copies
    ("aecd,abcd->acbe", [(2, 5, 3, 4), (2, 6, 3, 4)]),  # attention scores
    ("acbe,aecd->abcd", [(2, 3, 6, 5), (2, 5, 3, 4)]),  # attention values
    ("abcd,cde->abe", [(2, 3, 4, 5), (4, 5, 6)]),  # attention output
    ("ij,jk->ik", [(7, 9), (9, 3)]), ("ij,kj->ik", [(7, 9), (3, 9)]), ("ji,jk->ik", [(9, 7), (9, 3)]),
    ("bij,bjk->bik", [(4, 3, 5), (4, 5, 2)]), ("bij,bkj->bki", [(4, 3, 5), (4, 2, 5)]),
    ("...ij,...jk->...ik", [(2, 3, 4, 5), (2, 3, 5, 6)]), ("...ij,...jk->...ik", [(1, 3, 4, 5), (2, 1, 5, 6)]),
    ("i,i->", [(6,), (6,)]), ("i,j->ij", [(3,), (4,)]), ("ij->ji", [(3, 4)]), ("ii->i", [(4, 4)]), ("ij->", [(3, 4)]),
    ("ij,jk->ki", [(3, 4), (4, 5)]), ("aij,jk->aik", [(2, 0, 3), (3, 4)]), ("ij,jk->ik", [(2, 0), (0, 3)]),
    ("ab,bc->cab", [(3, 4), (4, 2)]), ("abc,bd->dca", [(2, 3, 4), (3, 5)]), ("i->ii", [(3,)]),
]  # fmt: skip


@pytest.mark.parametrize("case", EINSUM_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(EINSUM_CASES)])
def test_einsum_matches_numpy(case: tuple) -> None:
    equation, shapes = case
    inputs = [rand(*s) for s in shapes]
    want = OP_FUNCTIONS["Einsum"](inputs, equation)
    got = run_kernel("Einsum", inputs, equation=equation, N=len(inputs))
    assert got.shape == want.shape
    close(got, want)


def test_einsum_errors_match_numpy() -> None:
    cases = (("ij,jk->ik", [(2, 3), (4, 5)]), ("ij,jk", [(2, 3), (3, 5)]), ("ij,jk->iq", [(2, 3), (3, 5)]))
    for equation, shapes in cases:
        inputs = [rand(*s) for s in shapes]
        with pytest.raises(errors.InvalidArgumentError) as want:
            OP_FUNCTIONS["Einsum"](inputs, equation)
        with pytest.raises(errors.InvalidArgumentError) as got:
            run_kernel("Einsum", inputs, equation=equation, N=len(inputs))
        assert_same_message(got.value, want.value)


RESIZE_FLAGS = {"legacy": {}, "align_corners": {"align_corners": True}, "half_pixel": {"half_pixel_centers": True}}
RESIZE_CASES = [(op, mode) for op in ("ResizeBilinear", "ResizeNearestNeighbor", "ResizeBicubic", "ResizeArea")
                for mode in RESIZE_FLAGS if not (op == "ResizeArea" and mode == "half_pixel")]  # no such attr


@pytest.mark.parametrize("op,mode", RESIZE_CASES, ids=[f"{op}-{mode}" for op, mode in RESIZE_CASES])
@pytest.mark.parametrize("sizes", [((2, 7, 9, 3), (13, 5)), ((1, 16, 16, 20), (8, 8)), ((1, 5, 4, 2), (5, 4)),
                                   ((1, 1, 1, 3), (3, 2)), ((1, 30, 20, 1), (7, 45))], ids=str)  # fmt: skip
def test_resize_matches_numpy(op: str, mode: str, sizes: tuple) -> None:
    flags = RESIZE_FLAGS[mode]
    shape, size = sizes
    x, sz = rand(*shape) * 10, np.array(size, dtype=np.int32)
    want = OP_FUNCTIONS[op](x, sz, **flags)
    got = run_kernel(op, [x, sz], **flags)
    assert got.shape == want.shape and got.dtype == want.dtype
    if op == "ResizeNearestNeighbor":
        np.testing.assert_array_equal(got, want)
    else:
        close(got, want)


def test_resize_errors_match_numpy() -> None:
    for x, sz, flags in ((rand(2, 3, 3), [2, 2], {}), (rand(1, 3, 3, 1), [0, 2], {}),
                         (rand(1, 3, 3, 1), [2, 2], dict(align_corners=True, half_pixel_centers=True))):  # fmt: skip
        size = np.array(sz, dtype=np.int32)
        with pytest.raises(errors.InvalidArgumentError) as want:
            OP_FUNCTIONS["ResizeBilinear"](x, size, **flags)
        with pytest.raises(errors.InvalidArgumentError) as got:
            run_kernel("ResizeBilinear", [x, size], **flags)
        assert_same_message(got.value, want.value)


@pytest.mark.parametrize("shapes", [((2, 3), (2, 3), (2, 3)), ((2, 1), (1, 3), (2, 3)), ((), (4, 5), (5,)),
                                    ((3, 1, 4), (1, 2, 1), (4,)), ((0, 3), (1, 3), (3,))], ids=str)  # fmt: skip
def test_select_v2_matches_numpy(shapes: tuple) -> None:
    cs, ts, es = shapes
    c = RNG.random(cs) > 0.5 if cs else np.bool_(True)
    t, e = rand(*ts), rand(*es)
    want = OP_FUNCTIONS["SelectV2"](c, t, e)
    got = run_kernel("SelectV2", [np.asarray(c), t, e], T=np.float32)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_select_v2_error_matches_numpy() -> None:
    c, t, e = np.array([True, False, True]), rand(2), rand(3)
    with pytest.raises(errors.InvalidArgumentError) as want:
        OP_FUNCTIONS["SelectV2"](c, t, e)
    with pytest.raises(errors.InvalidArgumentError) as got:
        run_kernel("SelectV2", [c, t, e], T=np.float32)
    assert_same_message(got.value, want.value)


# ------------------------------------------------------------------ _MklLayerNorm (layer_norm.c)
# The remapper's fused layer normalization: the native float32 kernel against the numpy kernel
# (kernels/cpu/layer_norm.py) on edge shapes, large values, epsilons, and TF's error texts.

from modtensor.kernels.cpu import layer_norm as _numpy_layer_norm  # noqa: E402

LAYER_NORM_CASES = [
    ((2, 3, 64), 1e-6, 1.0), ((5, 4), 1e-3, 1.0), ((7, 1), 1e-3, 1.0), ((0, 8), 1e-3, 1.0), ((3, 0), 1e-3, 1.0),
    ((4, 37), 0.0, 1.0), ((2, 2, 3, 96), 1e-6, 1.0), ((300, 130), 1e-5, 1.0), ((4, 64), 1e-6, 1e4),
    ((4, 64), 1e-6, 1e-4), ((3, 9), 10.0, 1.0), ((16,), 1e-3, 1.0), ((2048, 64), 1e-6, 1.0),
]  # fmt: skip


@pytest.mark.parametrize("case", LAYER_NORM_CASES, ids=[f"{c[0]}-eps{c[1]}-x{c[2]}" for c in LAYER_NORM_CASES])
def test_layer_norm_matches_numpy(case: tuple) -> None:
    shape, epsilon, magnitude = case
    n = shape[-1]
    x = (rand(*shape) * np.float32(magnitude) + np.float32(magnitude * 3)).astype(np.float32)
    scale, offset = rand(n), rand(n)
    want = _numpy_layer_norm.mkl_layer_norm(x, scale, offset, epsilon=epsilon)
    got = run_kernel("_MklLayerNorm", [x, scale, offset], epsilon=epsilon)
    close(got, want, rtol=2e-6)
    if x.size and epsilon > 0:  # the definition, computed in float64
        mean = x.astype(np.float64).mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        exact = (x - mean) / np.sqrt(var + epsilon) * scale + offset
        close(got, exact.astype(np.float32), rtol=1e-4)


def test_layer_norm_of_a_constant_row_is_the_offset() -> None:
    x = np.full((3, 10), 7.5, np.float32)
    scale, offset = rand(10), rand(10)
    got = run_kernel("_MklLayerNorm", [x, scale, offset], epsilon=1e-3)
    np.testing.assert_array_equal(got, np.broadcast_to(offset, (3, 10)))


def test_layer_norm_half_runs_on_the_numpy_kernel() -> None:
    x, scale, offset = rand(3, 8).astype(np.float16), rand(8).astype(np.float16), rand(8).astype(np.float16)
    got = run_kernel("_MklLayerNorm", [x, scale, offset], expect_native=False, epsilon=1e-3)
    want = run_kernel("_MklLayerNorm", [x.astype(np.float32), scale.astype(np.float32), offset.astype(np.float32)],
                      epsilon=1e-3)  # fmt: skip
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.astype(np.float32), want, rtol=2e-3, atol=2e-3)


LAYER_NORM_ERRORS = [
    ((2, 4), (2, 2), (4,), "scale must be 1D tensor[2,2]"),
    ((2, 4), (4,), (2, 2), "offset must be 1D tensor[2,2]"),
    ((2, 4), (4,), (3,), "Number of elements in scale and shifttensors are not same."),
    ((2, 4), (3,), (3,), "scale and offset must have the size of the input's last dimension 4, got 3"),
    ((), (1,), (1,), "input must be at least 1D[]"),
]  # fmt: skip


@pytest.mark.parametrize("case", LAYER_NORM_ERRORS, ids=[c[3][:20] for c in LAYER_NORM_ERRORS])
def test_layer_norm_errors_match_numpy(case: tuple) -> None:
    xs, ss, os_, text = case
    x, scale, offset = np.asarray(rand(*xs)), rand(*ss), rand(*os_)
    with pytest.raises(errors.InvalidArgumentError) as want:
        _numpy_layer_norm.mkl_layer_norm(x, scale, offset)
    with pytest.raises(errors.InvalidArgumentError) as got:
        run_kernel("_MklLayerNorm", [x, scale, offset])
    assert want.value.message.startswith(text)
    assert_same_message(got.value, want.value)


# ---------------------------------------------------------------- random streams (random.c)

RANDOM_STREAMS = GOLDEN.parent / "random_streams"
RANDOM_CASES = json.loads((RANDOM_STREAMS / "index.json").read_text())["cases"]


@pytest.mark.parametrize("case", RANDOM_CASES, ids=lambda c: c["name"])
def test_random_kernels_continue_tensorflows_stream_bit_for_bit(case: dict) -> None:
    """One kernel's consecutive calls (tools/make_golden_random_streams.py: a TF Session's runs of one node) give
    TF's bits, Box-Muller normals included (the numpy kernel's float32 normals differ from TF's in the last bit)."""
    meta = json.loads((RANDOM_STREAMS / "index.json").read_text())
    dtype = np.dtype(case["dtype"])
    node = _node(case["op"], 1, {"dtype": dtype, "T": np.int32, "seed": case["seed"], "seed2": case["seed2"]})
    kernel = create_kernel(node, global_registry().get(case["op"]).op_def, device_factory.get_device("CPU:0"))
    assert isinstance(kernel, NativeKernel)
    with np.load(RANDOM_STREAMS / "streams.npz") as data:
        for call, dims in enumerate(meta["shapes"]):
            (got,) = kernel.run(OpKernelContext(kernel, [np.int32(dims)]))
            want = data[f"{case['name']}/call{call}"]
            assert got.dtype == want.dtype and got.shape == want.shape
            assert got.tobytes() == want.tobytes(), f"{case['name']} call {call}"


def test_random_kernels_check_the_shape_and_leave_half_types_to_numpy() -> None:
    node = _node("RandomUniform", 1, {"dtype": np.float32, "T": np.int64, "seed": 1, "seed2": 2})
    kernel = create_kernel(node, global_registry().get("RandomUniform").op_def, device_factory.get_device("CPU:0"))
    (wide,) = kernel.run(OpKernelContext(kernel, [np.int64([2, 3])]))
    assert wide.shape == (2, 3) and wide.dtype == np.float32 and ((wide >= 0) & (wide < 1)).all()
    for bad, message in ((np.int64([[2]]), "shape must be a vector of {int32,int64}, got shape [1,1]"),
                         (np.int64([2, -1]), "Dimension -1 must be >= 0")):  # fmt: skip
        with pytest.raises(errors.InvalidArgumentError, match=re.escape(message)):
            kernel.run(OpKernelContext(kernel, [bad]))
    half = _node("RandomStandardNormal", 1, {"dtype": np.float16, "T": np.int32, "seed": 1, "seed2": 2})
    numpy_kernel = create_kernel(half, global_registry().get("RandomStandardNormal").op_def,
                                 device_factory.get_device("CPU:0"))  # fmt: skip
    assert not isinstance(numpy_kernel, NativeKernel)
    fresh = [_node("RandomUniform", 1, {"dtype": np.float64, "T": np.int32, "seed": 0, "seed2": 0}) for _ in range(2)]
    draws = []
    for node in fresh:  # seeds 0, 0: each kernel draws its own seeds (TF's nondeterministic default)
        k = create_kernel(node, global_registry().get("RandomUniform").op_def, device_factory.get_device("CPU:0"))
        draws.append(k.run(OpKernelContext(k, [np.int32([64])]))[0])
    assert not np.array_equal(draws[0], draws[1])


@pytest.mark.parametrize("src", [np.uint8, np.int8, np.uint16, np.int16, np.int32, np.int64, np.bool_],
                         ids=lambda t: np.dtype(t).name)  # fmt: skip
def test_cast_to_float32_matches_numpy(src: type) -> None:
    """Cast from the integer and bool types to float32 is native (an image pipeline's first op): numpy's astype
    bit for bit, extremes and large int64 (rounded to nearest even) included; other casts stay numpy's."""
    info = np.iinfo(src) if src is not np.bool_ else None
    rng = np.random.default_rng(3)
    if info is None:
        x = rng.integers(0, 2, size=(3, 7, 5)).astype(np.bool_)
    else:
        x = rng.integers(info.min, info.max, size=(3, 7, 5), endpoint=True, dtype=src)
        x.flat[:2] = [info.min, info.max]
        if src is np.int64:
            x.flat[2:4] = [2**53 + 1, -(2**62) - 3]  # not representable: rounded
    got = run_kernel("Cast", [x], SrcT=x.dtype, DstT=np.float32)
    assert got.dtype == np.float32 and got.tobytes() == x.astype(np.float32).tobytes()
    big = np.resize(x, 300_000)  # split over the pool
    assert run_kernel("Cast", [big], SrcT=big.dtype, DstT=np.float32).tobytes() == big.astype(np.float32).tobytes()
    kept = run_kernel("Cast", [np.float32([1.7, -2.5])], expect_native=False, SrcT=np.float32, DstT=np.int32)
    np.testing.assert_array_equal(kept, [1, -2])


# ------------------------------------------------------------------ gathers, scatters, segment sums, top-k

GATHER_CASES = [  # (params shape, indices), each run for several dtypes and index types
    ((5, 4, 3), [[0, 1], [4, 3], [4, 3], [2, 0]]),  # slices of 3, a duplicate
    ((5, 4, 3), [[[1, 2, 0]], [[4, 3, 2]]]),  # scalars, batch of [2, 1]
    ((6,), [[5], [0], [3]]),
    ((3, 2), np.zeros((4, 0), np.int64)),  # depth 0: every row is all of params
    ((3, 2), np.zeros((0, 1), np.int64)),  # no rows
]


@pytest.mark.parametrize("case", GATHER_CASES, ids=[str(i) for i in range(len(GATHER_CASES))])
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_, np.float16, np.uint8],
                         ids=lambda t: np.dtype(t).name)  # fmt: skip
def test_gather_nd_matches_numpy(case: tuple, dtype: type) -> None:
    """GatherNd is native for every fixed-size dtype (a byte copy per slice): numpy's result byte for byte."""
    shape, index_rows = case
    params = (np.arange(np.prod(shape)) % 7).astype(dtype).reshape(shape)
    for index_type in (np.int16, np.int32, np.int64):
        indices = np.asarray(index_rows).astype(index_type)
        got = run_kernel("GatherNd", [params, indices], Tparams=params.dtype, Tindices=indices.dtype)
        want = OP_FUNCTIONS["GatherNd"](params, indices)
        assert got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()


SCATTER_CASES = [  # (output shape, indices, updates shape): duplicates add (ScatterNd, Add) or the last wins (Update)
    ((6, 3), [[1], [4], [1], [0]], (4, 3)),
    ((4, 5, 2), [[3, 1], [0, 4], [3, 1]], (3, 2)),
    ((4, 5, 2), [[[3, 1, 0], [3, 1, 0]], [[0, 0, 1], [2, 2, 1]]], (2, 2)),
    ((3, 2), np.zeros((0, 1), np.int64), (0, 2)),
]


@pytest.mark.parametrize("case", SCATTER_CASES, ids=[str(i) for i in range(len(SCATTER_CASES))])
@pytest.mark.parametrize("op", ["ScatterNd", "TensorScatterUpdate", "TensorScatterAdd"])
def test_scatter_ops_match_numpy(case: tuple, op: str) -> None:
    """ScatterNd and TensorScatterAdd sum duplicates in index order (float32 bit for bit, int32 wrapping as TF's),
    TensorScatterUpdate keeps the last duplicate; the input tensor is never written."""
    shape, index_rows, updates_shape = case
    rng = np.random.default_rng(5)
    dtypes = [np.float32, np.float64, np.int32, np.int64]
    if op == "TensorScatterUpdate":  # a byte copy: every fixed-size dtype
        dtypes += [np.bool_, np.float16]
    for dtype in dtypes:
        for index_type in (np.int32, np.int64):
            indices = np.asarray(index_rows).astype(index_type)
            if np.dtype(dtype).kind == "f":
                updates = (rng.standard_normal(updates_shape) * 1e3).astype(dtype)
                tensor = (rng.standard_normal(shape) * 1e-3).astype(dtype)
            elif dtype is np.bool_:
                updates, tensor = rng.integers(0, 2, updates_shape).astype(bool), np.zeros(shape, bool)
            else:
                info = np.iinfo(dtype)
                updates = rng.integers(info.max - 10, info.max, updates_shape, dtype=dtype, endpoint=True)  # wraps
                tensor = rng.integers(info.max - 10, info.max, shape, dtype=dtype, endpoint=True)
            if op == "ScatterNd":
                dims = np.asarray(shape, index_type)
                inputs = [indices, updates, dims]
                want = OP_FUNCTIONS[op](indices, updates, dims)
            else:
                inputs = [tensor, indices, updates]
                want = OP_FUNCTIONS[op](tensor, indices, updates)
            before = tensor.copy()
            got = run_kernel(op, inputs, T=updates.dtype, Tindices=indices.dtype)
            assert got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes(), (dtype, op)
            np.testing.assert_array_equal(tensor, before)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64], ids=lambda t: np.dtype(t).name)
def test_unsorted_segment_sum_matches_numpy(dtype: type) -> None:
    """UnsortedSegmentSum adds rows in order (bit-equal to numpy's float sums), drops negative ids, fills empty
    segments with 0; 2-D ids, int16 ids and an int64 num_segments included."""
    rng = np.random.default_rng(9)
    cases = (((40, 3), (40,), 6), ((4, 5, 2), (4, 5), 7), ((6,), (6,), 0), ((0, 2), (0,), 3))
    for data_shape, ids_shape, rows in cases:
        data = (rng.standard_normal(data_shape) * 100).astype(dtype)
        ids = rng.integers(-1, max(rows, 1), ids_shape) if rows else np.full(ids_shape, -1)
        for id_type, num_type in ((np.int32, np.int32), (np.int16, np.int64), (np.int64, np.int32)):
            segment_ids, num = ids.astype(id_type), num_type(rows)
            got = run_kernel("UnsortedSegmentSum", [data, segment_ids, num], Tindices=segment_ids.dtype,
                             Tnumsegments=np.dtype(num_type))  # fmt: skip
            want = OP_FUNCTIONS["UnsortedSegmentSum"](data, segment_ids, num)
            assert got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()


TOP_K_CASES = [((7, 13), 3), ((7, 13), 0), ((7, 13), 13), ((2, 3, 50), 32), ((2, 3, 50), 33), ((40,), 40),
               ((0, 5), 2), ((1500, 24), 4)]  # fmt: skip


@pytest.mark.parametrize("case", TOP_K_CASES, ids=[f"{c[0]}-k{c[1]}" for c in TOP_K_CASES])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64], ids=lambda t: np.dtype(t).name)
def test_top_k_matches_numpy(case: tuple, dtype: type) -> None:
    """TopKV2: values and indices equal to the numpy kernel's (largest first, ties and -0.0/0.0 by index, NaN first),
    by insertion (k <= 32) or a stable sort (larger k), over the pool for many rows; int16/int64 indices too."""
    shape, k = case
    rng = np.random.default_rng(11)
    x = rng.integers(-5, 5, shape).astype(dtype)  # many ties
    if np.dtype(dtype).kind == "f" and x.size:
        x.flat[::7] = np.nan
        x.flat[1::5] = -0.0
        x.flat[2::11] = np.inf
    elif x.size:
        x.flat[::9] = np.iinfo(dtype).min
    for index_type in (np.int32, np.int16, np.int64):
        values, indices = run_kernel_outputs("TopKV2", [x, np.int32(k)], index_type=np.dtype(index_type))
        want_values, want_indices = OP_FUNCTIONS["TopKV2"](x, np.int32(k), index_type=np.dtype(index_type))
        assert values.dtype == want_values.dtype and values.tobytes() == want_values.tobytes(), (index_type, shape)
        assert indices.dtype == want_indices.dtype and indices.tobytes() == want_indices.tobytes()
        assert values.shape == want_values.shape and indices.shape == want_indices.shape


def _int(values: Any, dtype: type = np.int32) -> np.ndarray:
    return np.asarray(values, dtype)


INDEXING_ERRORS = [  # (op, inputs, attrs): the native kernel's error reads as the numpy kernel's
    ("GatherNd", [rand(3, 3), _int([[0, 5]])], {}),
    ("GatherNd", [rand(3, 3), _int([0, 5])], {}),
    ("GatherNd", [rand(3, 3), _int([[[1], [7]]], np.int64)], {}),
    ("GatherNd", [rand(3, 3), _int(1)], {}),
    ("GatherNd", [rand(3), _int([[0, 0]])], {}),
    ("ScatterNd", [_int([[0, 5], [1, 1]]), rand(2), _int([3, 3])], {}),
    ("ScatterNd", [_int([[0, 1, 2]]), rand(1), _int([3, 3])], {}),
    ("ScatterNd", [_int([[0]]), rand(1, 4), _int([3, 3])], {}),
    ("ScatterNd", [_int([[0]]), rand(1, 3), _int([[3, 3]])], {}),
    ("ScatterNd", [_int([[0]]), rand(1, 3), _int([3, -3])], {}),
    ("ScatterNd", [_int([[0]]), rand(1, 0), _int([3, 0])], {}),
    ("TensorScatterUpdate", [rand(3, 3), _int([[0, 5]]), rand(1)], {}),
    ("TensorScatterAdd", [rand(3, 3), _int([[0, 1, 2]]), rand(1)], {}),
    ("TensorScatterAdd", [rand(3, 3), _int(0), rand(3)], {}),
    ("UnsortedSegmentSum", [rand(3), _int([0, 5, 1]), _int(2)], {}),
    ("UnsortedSegmentSum", [rand(3), _int([0, 1]), _int(2)], {}),
    ("UnsortedSegmentSum", [rand(3), _int([0, 1, 1]), _int(-2)], {}),
    ("UnsortedSegmentSum", [rand(3), _int([0, 1, 1]), _int([2])], {}),
    ("TopKV2", [rand(3, 4), _int(5)], {}),
    ("TopKV2", [rand(3, 4), _int(-1)], {}),
    ("TopKV2", [rand(3, 4), _int([1])], {}),
    ("TopKV2", [np.float32(1.0), _int(1)], {}),
]


@pytest.mark.parametrize("case", INDEXING_ERRORS, ids=[f"{c[0]}-{i}" for i, c in enumerate(INDEXING_ERRORS)])
def test_indexing_errors_match_the_numpy_kernels(case: tuple) -> None:
    op, inputs, attrs = case
    with pytest.raises(errors.InvalidArgumentError) as numpy_error:
        OP_FUNCTIONS[op](*inputs, **attrs)
    types = {"GatherNd": {"Tparams": inputs[0].dtype, "Tindices": inputs[1].dtype},
             "ScatterNd": {"T": inputs[1].dtype, "Tindices": inputs[0].dtype},
             "TensorScatterUpdate": {"Tindices": inputs[1].dtype}, "TensorScatterAdd": {"Tindices": inputs[1].dtype},
             "UnsortedSegmentSum": {"Tindices": inputs[1].dtype}, "TopKV2": {}}[op]  # fmt: skip
    with pytest.raises(errors.InvalidArgumentError) as native_error:
        run_kernel_outputs(op, inputs, **types, **attrs)
    assert_same_message(native_error.value, numpy_error.value)


def test_native_kernels_of_several_outputs_have_a_context_free_plan_call() -> None:
    """TopKV2 (two outputs) is called by the executor's plan like a numpy kernel of several outputs: without a
    kernel context, through the bridge's direct_call_all, with the context call's results."""
    node = _node("TopKV2", 2, {"T": np.float32})
    kernel = create_kernel(node, global_registry().get("TopKV2").op_def, device_factory.get_device("CPU:0"))
    assert isinstance(kernel, NativeKernel)
    call = kernel.prepared_multi_call()
    assert call is not None
    x = rand(5, 9)
    values, indices = call(x, np.int32(4))
    want_values, want_indices = run_kernel_outputs("TopKV2", [x, np.int32(4)])
    np.testing.assert_array_equal(values, want_values)
    np.testing.assert_array_equal(indices, want_indices)
    with pytest.raises(errors.InvalidArgumentError, match="input must have at least k columns. Had 9, needed 10"):
        call(x, np.int32(10))
    single = create_kernel(_node("Relu", 1, {"T": np.float32}), global_registry().get("Relu").op_def,
                           device_factory.get_device("CPU:0"))  # fmt: skip
    assert single.prepared_multi_call() is None  # one output: plan_call's direct call instead


# ------------------------------------------------------------------ StridedSlice (strided_slice.c)

SLICE_GOLDEN = json.loads((GOLDEN.parent / "strided_slice" / "cases.json").read_text())["cases"]


def _slice_case(case: dict, dtype: type) -> tuple[list[np.ndarray], dict[str, int]]:
    x = np.arange(int(np.prod(case["shape"])), dtype=dtype).reshape(case["shape"])
    spec = [np.array(case[k], case["index"]) for k in ("begin", "end", "strides")]
    names = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")
    return [x, *spec], dict(zip(names, case["masks"], strict=True))


@pytest.mark.parametrize("native", [True, False], ids=["native-float32", "numpy-int32"])
def test_strided_slice_replays_tensorflow(native: bool) -> None:
    """600 random slice specs (tools/make_golden_strided_slice.py: every mask, zero and negative strides, specs
    longer or shorter than the rank, mask bits past the entries) give TF's shapes, values and errors, on the native
    kernel (float32) and on the numpy kernel (int32)."""
    failures = []
    for n, case in enumerate(SLICE_GOLDEN):
        inputs, masks = _slice_case(case, np.float32 if native else np.int32)
        try:
            got = run_kernel("StridedSlice", inputs, expect_native=native, **masks)
        except errors.InvalidArgumentError as e:
            if e.message.split("\n\t")[0] != case.get("error"):
                failures.append((n, case, e.message))
            continue
        want = np.array(case.get("out", []), dtype=got.dtype).reshape(case.get("out_shape", [0]))
        if "error" in case or got.shape != want.shape or not np.array_equal(got, want):
            failures.append((n, case, got))
    assert not failures, failures[:5]


def test_strided_slice_identity_and_large_slices_on_one_and_two_threads() -> None:
    x = rand(2, 40, 41, 33)
    same = run_kernel("StridedSlice", [x, np.zeros(4, np.int32), np.zeros(4, np.int32), np.ones(4, np.int32)],
                      begin_mask=15, end_mask=15)  # fmt: skip
    np.testing.assert_array_equal(same, x)
    cases = [  # (begin, end, strides): a crop (rows of H and W), every other column, a reversed last dim
        ([0, 1, 1, 0], [2, 40, 41, 33], [1, 1, 1, 1]),
        ([0, 0, 0, 0], [2, 40, 41, 33], [1, 1, 2, 1]),
        ([1, 3, 0, 32], [2, 30, 41, 0], [1, 2, 1, -3]),
    ]
    before = context.intra_op_parallelism_threads()
    try:
        for threads in (1, 2):
            context.set_intra_op_parallelism_threads(threads)
            for b, e, s in cases:
                spec = [np.array(v, np.int64) for v in (b, e, s)]
                got = run_kernel("StridedSlice", [x, *spec])
                np.testing.assert_array_equal(got, x[tuple(slice(*t) for t in zip(b, e, s, strict=True))])
    finally:
        context.set_intra_op_parallelism_threads(before)


@pytest.mark.parametrize("spec", [(0, 10, 2**63 - 1), (9, -11, -(2**63)), (-(2**63), 2**63 - 1, 3),
                                  (2**63 - 1, -(2**63), -1)], ids=str)  # fmt: skip
def test_strided_slice_extreme_int64_specs_match_the_numpy_kernel(spec: tuple[int, int, int]) -> None:
    x = rand(10)
    inputs = [x, *(np.array([v], np.int64) for v in spec)]
    np.testing.assert_array_equal(run_kernel("StridedSlice", inputs), OP_FUNCTIONS["StridedSlice"](*inputs))
