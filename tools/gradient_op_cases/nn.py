"""Backward ops of nn gradients: activation gradients, BiasAddGrad, convolution backprops, pooling
gradients, fused batch norm gradients (and the forward Softplus, whose kernel came with SoftplusGrad).

NCHW kernel cases: TF's CPU kernels take NHWC only; their reference is the NHWC case transposed
(tools/make_golden_kernel_cases.py, run_nchw_as_nhwc).
"""

from __future__ import annotations

import numpy as np

OPS = [
    "ReluGrad", "Relu6Grad", "EluGrad", "LeakyReluGrad", "Softplus", "SoftplusGrad", "BiasAddGrad",
    "Conv2DBackpropInput", "Conv2DBackpropFilter", "DepthwiseConv2dNativeBackpropInput",
    "DepthwiseConv2dNativeBackpropFilter", "MaxPoolGrad", "MaxPoolGradGrad", "AvgPoolGrad", "FusedBatchNormGrad",
    "FusedBatchNormGradV3",
]  # fmt: skip

F32, F64, F16, I32 = np.float32, np.float64, np.float16, np.int32


def _nchw(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


def _nchw_attr(values: list[int]) -> list[int]:
    return [values[0], values[3], values[1], values[2]]


def _nchw_explicit(pads: list[int]) -> list[int]:
    return pads[0:2] + pads[6:8] + pads[2:6]


def _out_size(size: int, k: int, s: int, d: int, padding: str, pads: tuple[int, int] = (0, 0)) -> int:
    eff = (k - 1) * d + 1
    if padding == "SAME":
        return -(-size // s)
    return (size + pads[0] + pads[1] - eff + s) // s


def _activation_cases(shape_case, kernel_case, rnd, P) -> None:  # noqa: ANN001, N803
    special = np.array([-2.0, -1e-3, 0.0, 1e-3, 3.0, 5.9, 6.0, 6.5, np.nan, np.inf, -np.inf, 40.0], np.float32)
    grads = np.array([1.5, -2.0, 3.0, np.inf, np.nan, 0.5, -1.0, 2.0, 1.0, 2.0, 3.0, 4.0], np.float32)
    for op in ("ReluGrad", "Relu6Grad", "SoftplusGrad"):
        kernel_case(op, grads, special)
    kernel_case("EluGrad", grads, np.array([-1.0, -0.5, 0.0, 0.2, 3.0, -0.999, -1e-3, 1.0, np.nan, np.inf, -1.0,
                                            2.0], np.float32))  # fmt: skip
    kernel_case("LeakyReluGrad", grads, special)
    kernel_case("LeakyReluGrad", grads, special, alpha=0.3)
    for dt in (F32, F64, F16):
        x, g = rnd((3, 4), dt), rnd((3, 4), dt)
        for op in ("ReluGrad", "Relu6Grad", "SoftplusGrad"):
            kernel_case(op, g, (x * 4).astype(dt))
        kernel_case("EluGrad", g, np.where(x < 0, np.expm1(x), x).astype(dt))
        kernel_case("LeakyReluGrad", g, x, alpha=0.1)
        kernel_case("Softplus", (x * 10).astype(dt))
    for dt in (I32, np.int64, np.uint8):
        kernel_case("ReluGrad", rnd((5,), dt), rnd((5,), dt))
        kernel_case("Relu6Grad", rnd((5,), dt), rnd((5,), dt))
    kernel_case("Softplus", np.array([-100, -40, -20, -15.9, -15, -1e-8, 0, 3, 13, 15, 16, 20, 100, np.nan, np.inf,
                                      -np.inf], np.float32))  # fmt: skip
    kernel_case("Softplus", np.array([-800, -40, -35, -30, -1, 0, 1, 30, 36, 40, 800], np.float64))
    kernel_case("ReluGrad", rnd((3,)), rnd((4,)))
    kernel_case("ReluGrad", rnd((0, 3)), rnd((0, 3)))
    for op in ("ReluGrad", "Relu6Grad", "EluGrad", "SoftplusGrad", "LeakyReluGrad"):
        shape_case(op, P([2, None]), P([None, 3]))
        shape_case(op, P(None), P([4]))
        shape_case(op, P([2]), P([3]))
    shape_case("Softplus", P([2, None]))


def _bias_cases(shape_case, kernel_case, rnd, P) -> None:  # noqa: ANN001, N803
    for dt in (F32, F64, F16, I32, np.complex64):
        kernel_case("BiasAddGrad", rnd((2, 3, 4, 5), dt))
        kernel_case("BiasAddGrad", rnd((2, 3, 4, 5), dt), data_format="NCHW")
    kernel_case("BiasAddGrad", rnd((4, 3)))
    kernel_case("BiasAddGrad", rnd((4, 3)), data_format="NCHW")
    kernel_case("BiasAddGrad", rnd((2, 3, 4)), data_format="NCHW")
    kernel_case("BiasAddGrad", rnd((2, 3, 2, 2, 2)), data_format="NCHW")
    kernel_case("BiasAddGrad", rnd((0, 3)))
    kernel_case("BiasAddGrad", rnd((3,)))
    shape_case("BiasAddGrad", P([2, 3, 4, 5]))
    shape_case("BiasAddGrad", P([2, 3, 4, 5]), data_format="NCHW")
    shape_case("BiasAddGrad", P([2, 3]), data_format="NCHW")
    shape_case("BiasAddGrad", P([3]))
    shape_case("BiasAddGrad", P(None))
    shape_case("BiasAddGrad", P([None, None, 7]))


CONV_FORMS = [  # x NHWC, filter, strides (H, W), padding, explicit NHWC pairs (H, W), dilations (H, W)
    ((2, 5, 5, 3), (3, 3, 3, 4), (1, 1), "SAME", None, (1, 1)),
    ((2, 5, 5, 3), (3, 3, 3, 4), (1, 1), "VALID", None, (1, 1)),
    ((1, 7, 6, 2), (3, 2, 2, 3), (2, 2), "SAME", None, (1, 1)),
    ((1, 7, 6, 2), (3, 2, 2, 3), (2, 3), "VALID", None, (1, 1)),
    ((1, 6, 6, 2), (2, 2, 2, 3), (2, 2), "SAME", None, (1, 1)),
    ((2, 5, 4, 3), (3, 3, 3, 2), (1, 1), "EXPLICIT", ((1, 2), (0, 1)), (1, 1)),
    ((1, 6, 5, 2), (3, 3, 2, 2), (2, 1), "EXPLICIT", ((2, 1), (1, 1)), (1, 1)),
    ((2, 4, 4, 3), (1, 1, 3, 5), (1, 1), "VALID", None, (1, 1)),
    ((1, 8, 7, 2), (3, 3, 2, 2), (1, 1), "VALID", None, (2, 2)),
]


def _conv_attrs(strides, padding, explicit, dilations, nchw: bool) -> dict:  # noqa: ANN001
    attrs = {"strides": [1, *strides, 1], "padding": padding}
    if explicit:
        attrs["explicit_paddings"] = [0, 0, *explicit[0], *explicit[1], 0, 0]
    if dilations != (1, 1):
        attrs["dilations"] = [1, *dilations, 1]
    if nchw:
        attrs = {k: _nchw_explicit(v) if k == "explicit_paddings" else _nchw_attr(v) if isinstance(v, list) else v
                 for k, v in attrs.items()}  # fmt: skip
        attrs["data_format"] = "NCHW"
    return attrs


def _conv_cases(shape_case, kernel_case, rnd, P, C) -> None:  # noqa: ANN001, N803, C901
    for x_shape, w_shape, strides, padding, explicit, dil in CONV_FORMS:
        pads = explicit or ((0, 0), (0, 0))
        oh = _out_size(x_shape[1], w_shape[0], strides[0], dil[0], padding, pads[0])
        ow = _out_size(x_shape[2], w_shape[1], strides[1], dil[1], padding, pads[1])
        x, w, dy = rnd(x_shape), rnd(w_shape), rnd((x_shape[0], oh, ow, w_shape[3]))
        dw_filter = rnd(w_shape[:3] + (2,))
        dw_dy = rnd((x_shape[0], oh, ow, w_shape[2] * 2))
        sizes, fsizes = np.array(x_shape, np.int32), np.array(w_shape, np.int32)
        dw_sizes = np.array(w_shape[:3] + (2,), np.int32)
        if dil == (1, 1):  # TF's CPU conv backprops refuse dilations
            for nchw in (False, True):
                attrs = _conv_attrs(strides, padding, explicit, dil, nchw)
                cx, cdy = (_nchw(x), _nchw(dy)) if nchw else (x, dy)
                csizes = np.array(_nchw_attr(list(x_shape)), np.int32) if nchw else sizes
                kernel_case("Conv2DBackpropInput", csizes, w, cdy, **attrs)
                kernel_case("Conv2DBackpropFilter", cx, fsizes, cdy, **attrs)
                cdw = _nchw(dw_dy) if nchw else dw_dy
                kernel_case("DepthwiseConv2dNativeBackpropInput", csizes, dw_filter, cdw, **attrs)
                kernel_case("DepthwiseConv2dNativeBackpropFilter", cx, dw_sizes, cdw, **attrs)
        attrs = _conv_attrs(strides, padding, explicit, dil, False)
        shape_case("Conv2DBackpropInput", C(list(x_shape)), P(list(w_shape)), P([None, oh, ow, None]), **attrs)
        shape_case("Conv2DBackpropFilter", P(list(x_shape)), C(list(w_shape)), P([None, oh, ow, None]), **attrs)
    # float64, float16, int32 (Conv2DBackpropInput only)
    x, w = rnd((1, 5, 5, 2)), rnd((3, 3, 2, 3))
    dy = rnd((1, 3, 3, 3))
    for dt in (F64, F16):
        attrs = {"strides": [1, 2, 2, 1], "padding": "SAME"}
        kernel_case("Conv2DBackpropInput", np.array([1, 5, 5, 2], np.int32), w.astype(dt), dy.astype(dt), **attrs)
        kernel_case("Conv2DBackpropFilter", x.astype(dt), np.array([3, 3, 2, 3], np.int32), dy.astype(dt), **attrs)
        kernel_case("DepthwiseConv2dNativeBackpropInput", np.array([1, 5, 5, 2], np.int32), w[..., :2].astype(dt),
                    rnd((1, 3, 3, 4), dt), **attrs)  # fmt: skip
        kernel_case("DepthwiseConv2dNativeBackpropFilter", x.astype(dt), np.array([3, 3, 2, 2], np.int32),
                    rnd((1, 3, 3, 4), dt), **attrs)  # fmt: skip
    kernel_case("Conv2DBackpropInput", np.array([1, 5, 5, 2], np.int32), rnd((3, 3, 2, 3), I32),
                rnd((1, 5, 5, 3), I32), strides=[1, 1, 1, 1], padding="SAME")  # fmt: skip
    # input_sizes with only the spatial dims
    kernel_case("Conv2DBackpropInput", np.array([5, 5], np.int32), w, rnd((1, 5, 5, 3)), strides=[1, 1, 1, 1],
                padding="SAME")  # fmt: skip
    # errors: sizes that do not match, bad depths and batch, strides on the batch
    ones = np.ones
    kernel_case("Conv2DBackpropInput", np.array([1, 5, 5, 2], np.int32), w, rnd((1, 4, 5, 3)), strides=[1, 1, 1, 1],
                padding="SAME")  # fmt: skip
    kernel_case("Conv2DBackpropInput", np.array([1, 5, 5, 2], np.int32), w, rnd((1, 5, 5, 4)), strides=[1, 1, 1, 1],
                padding="SAME")  # fmt: skip
    kernel_case("Conv2DBackpropInput", np.array([2, 5, 5, 2], np.int32), w, rnd((1, 5, 5, 3)), strides=[1, 1, 1, 1],
                padding="SAME")  # fmt: skip
    kernel_case("Conv2DBackpropInput", np.array([1, 5, 5], np.int32), w, rnd((1, 5, 5, 3)), strides=[1, 1, 1, 1],
                padding="SAME")  # fmt: skip
    kernel_case("Conv2DBackpropFilter", x, np.array([3, 3, 2, 3], np.int32), rnd((1, 5, 4, 3)),
                strides=[1, 1, 1, 1], padding="SAME")  # fmt: skip
    kernel_case("DepthwiseConv2dNativeBackpropInput", np.array([1, 5, 5, 2], np.int32), ones((3, 3, 2, 2), F32),
                rnd((1, 4, 5, 4)), strides=[1, 1, 1, 1], padding="SAME")  # fmt: skip
    kernel_case("DepthwiseConv2dNativeBackpropInput", np.array([1, 5, 5, 2], np.int32), ones((3, 3, 2, 2), F32),
                rnd((1, 5, 5, 3)), strides=[1, 1, 1, 1], padding="SAME")  # fmt: skip
    kernel_case("DepthwiseConv2dNativeBackpropFilter", x, np.array([3, 3, 2, 2], np.int32), rnd((1, 5, 4, 4)),
                strides=[1, 1, 1, 1], padding="SAME")  # fmt: skip
    kernel_case("DepthwiseConv2dNativeBackpropInput", np.array([1, 5, 5, 3], np.int32), ones((3, 3, 2, 2), F32),
                rnd((1, 5, 5, 4)), strides=[1, 1, 1, 1], padding="SAME")  # fmt: skip
    kernel_case("DepthwiseConv2dNativeBackpropInput", np.array([2, 5, 5, 2], np.int32), ones((3, 3, 2, 2), F32),
                rnd((1, 5, 5, 4)), strides=[1, 1, 1, 1], padding="SAME")  # fmt: skip
    kernel_case("Conv2DBackpropFilter", x, np.array([3, 3, 2], np.int32), rnd((1, 5, 5, 3)),
                strides=[1, 1, 1, 1], padding="SAME")  # fmt: skip
    kernel_case("Conv2DBackpropInput", np.array([1, 5, 5, 2], np.int32), rnd((3, 3, 2)), rnd((1, 5, 5, 3)),
                strides=[1, 1, 1, 1], padding="SAME")  # fmt: skip
    kernel_case("Conv2DBackpropInput", np.array([1, 5, 5, 2], np.int32), w, rnd((1, 5, 5, 3)),
                strides=[2, 1, 1, 1], padding="SAME")  # fmt: skip
    kernel_case("Conv2DBackpropInput", np.array([0, 5, 5, 2], np.int32), w, rnd((0, 5, 5, 3)),
                strides=[1, 1, 1, 1], padding="SAME")  # fmt: skip
    # shapes
    U = None  # noqa: N806
    s1 = {"strides": [1, 1, 1, 1], "padding": "SAME"}
    shape_case("Conv2DBackpropInput", P([4], "int32"), P([3, 3, 2, 5]), P([U, 7, 7, U]), **s1)
    shape_case("Conv2DBackpropInput", C([6, 6]), P([3, 3, 2, 5]), P([3, U, U, U]), **s1)
    shape_case("Conv2DBackpropInput", C([1, 2, 6, 6]), P([3, 3, 2, 5]), P([1, 5, 6, 6]), **s1, data_format="NCHW")
    shape_case("Conv2DBackpropInput", C([1, 6, 6]), P([3, 3, 2, 5]), P([1, 6, 6, 5]), **s1)
    shape_case("Conv2DBackpropInput", C([1, 6, 6, 2]), P([3, 3, 2, 5]), P([1, 6, 6, 4]), **s1)
    shape_case("Conv2DBackpropInput", C([2, 6, 6, 2]), P([3, 3, 2, 5]), P([1, 6, 6, 5]), **s1)
    shape_case("Conv2DBackpropInput", P([U], "int32"), P(None), P(None), **s1)
    shape_case("Conv2DBackpropInput", C([1, 6, 6, 2]), P([3, 3, 2]), P([1, 6, 6, 5]), **s1)
    shape_case("Conv2DBackpropFilter", P([1, 6, 6, 2]), P([4], "int32"), P([1, 6, 6, 5]), **s1)
    shape_case("Conv2DBackpropFilter", P([1, 6, 6, 2]), C([3, 3, 2]), P([1, 6, 6, 5]), **s1)
    for op, sizes_first in (
        ("DepthwiseConv2dNativeBackpropInput", True),
        ("DepthwiseConv2dNativeBackpropFilter", False),
    ):
        for size in (C([1, 6, 6, 2]) if sizes_first else C([3, 3, 2, 2]), P([4], "int32"), P([U], "int32"),
                     C([1, 2, 3])):  # fmt: skip
            args = (size, P([3, 3, 2, 2]), P([1, 6, 6, 4])) if sizes_first else (P([1, 6, 6, 2]), size, P([1, 6, 6, 4]))
            shape_case(op, *args, **s1)


POOL_FORMS = [  # x NHWC, ksize (H, W), strides (H, W), padding, explicit pairs (MaxPool only)
    ((2, 4, 4, 3), (2, 2), (2, 2), "VALID", None),
    ((1, 5, 5, 2), (3, 3), (2, 2), "SAME", None),
    ((1, 5, 6, 2), (3, 2), (1, 2), "VALID", None),
    ((2, 5, 4, 2), (2, 3), (2, 1), "SAME", None),
    ((1, 6, 6, 1), (3, 3), (3, 3), "SAME", None),
    ((1, 5, 5, 2), (2, 2), (2, 2), "EXPLICIT", ((1, 0), (0, 1))),
]


def _pool_attrs(k, s, padding, explicit, nchw: bool) -> dict:  # noqa: ANN001
    attrs = {"ksize": [1, *k, 1], "strides": [1, *s, 1], "padding": padding}
    if explicit:
        attrs["explicit_paddings"] = [0, 0, *explicit[0], *explicit[1], 0, 0]
    if nchw:
        attrs = {key: _nchw_explicit(v) if key == "explicit_paddings" else _nchw_attr(v) if isinstance(v, list) else v
                 for key, v in attrs.items()}  # fmt: skip
        attrs["data_format"] = "NCHW"
    return attrs


def _max_pool_windows(x: np.ndarray, k, s, padding, explicit) -> np.ndarray:  # noqa: ANN001
    """MaxPool's output in numpy (the grad-grad cases need orig_output): windows over the real elements."""
    n, h, w, c = x.shape
    pads = explicit or ((0, 0), (0, 0))
    outs = []
    for size, kk, ss, pp in ((h, k[0], s[0], pads[0]), (w, k[1], s[1], pads[1])):
        o = _out_size(size, kk, ss, 1, padding, pp)
        before = max(0, ((o - 1) * ss + kk - size) // 2) if padding == "SAME" else pp[0]
        outs.append((o, before))
    (oh, ph), (ow, pw) = outs
    y = np.empty((n, oh, ow, c), x.dtype)
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * s[0] - ph, j * s[1] - pw
            win = x[:, max(r0, 0) : r0 + k[0], max(c0, 0) : c0 + k[1], :]
            y[:, i, j, :] = win.max(axis=(1, 2))
    return y


def _pool_cases(shape_case, kernel_case, rnd, P, C) -> None:  # noqa: ANN001, N803
    for x_shape, k, s, padding, explicit in POOL_FORMS:
        x = rnd(x_shape)
        y = _max_pool_windows(x, k, s, padding, explicit)
        dy = rnd(y.shape)
        for nchw in (False, True):
            attrs = _pool_attrs(k, s, padding, explicit, nchw)
            t = _nchw if nchw else (lambda a: a)
            kernel_case("MaxPoolGrad", t(x), t(y), t(dy), **attrs)
            if padding != "EXPLICIT":
                kernel_case("MaxPoolGradGrad", t(x), t(y), t(rnd(x_shape)), **attrs)
                sizes = np.array(_nchw_attr(list(x_shape)) if nchw else x_shape, np.int32)
                kernel_case("AvgPoolGrad", sizes, t(dy), **attrs)
        attrs = _pool_attrs(k, s, padding, explicit, False)
        shape_case("MaxPoolGrad", P(list(x_shape)), P(list(y.shape)), P(list(y.shape)), **attrs)
        if padding != "EXPLICIT":
            shape_case("MaxPoolGradGrad", P(list(x_shape)), P(list(y.shape)), P(list(x_shape)), **attrs)
            shape_case("AvgPoolGrad", C(list(x_shape)), P(list(y.shape)), **attrs)
    # ties: the first maximum in row-major order takes the gradient
    tied = np.array([[1, 3, 3, 0], [3, 2, 3, 3], [0, 0, 5, 5], [5, 1, 5, 5]], np.float32).reshape(1, 4, 4, 1)
    pooled = np.array([[3, 3], [5, 5]], np.float32).reshape(1, 2, 2, 1)
    attrs = {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "VALID"}
    kernel_case("MaxPoolGrad", tied, pooled, rnd((1, 2, 2, 1)), **attrs)
    kernel_case("MaxPoolGradGrad", tied, pooled, rnd((1, 4, 4, 1)), **attrs)
    # orig_output of the wrong shape
    kernel_case("MaxPoolGrad", tied, pooled, rnd((1, 3, 3, 1)), ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1],
                padding="VALID")  # fmt: skip
    overlapping = _max_pool_windows(tied, (2, 2), (1, 1), "VALID", None)
    kernel_case("MaxPoolGrad", tied, overlapping, rnd((1, 3, 3, 1)), ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1],
                padding="VALID")  # fmt: skip
    kernel_case("MaxPoolGradGrad", tied, overlapping, rnd((1, 4, 4, 1)), ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1],
                padding="VALID")  # fmt: skip
    kernel_case("MaxPoolGradGrad", tied, np.full((1, 2, 2, 1), 9, np.float32), rnd((1, 4, 4, 1)), **attrs)
    # NaN: TF's scan keeps a NaN only where it comes first in its window; -inf and padding
    inf = np.inf
    nan = np.array([[np.nan, 1, 2, np.nan], [0, 3, np.nan, -inf], [-inf, -inf, 4, 4], [-inf, -inf, 1, 5]], F32)
    nan = nan.reshape(1, 4, 4, 1)
    kernel_case("MaxPoolGrad", nan, np.zeros((1, 2, 2, 1), F32), rnd((1, 2, 2, 1)), **attrs)
    kernel_case("MaxPoolGrad", nan, np.zeros((1, 2, 2, 1), F32), rnd((1, 2, 2, 1)), ksize=[1, 3, 3, 1],
                strides=[1, 2, 2, 1], padding="SAME")  # fmt: skip
    kernel_case("MaxPoolGrad", np.full((1, 3, 3, 1), -inf, F32), np.zeros((1, 2, 2, 1), F32),
                rnd((1, 2, 2, 1)), ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")  # fmt: skip
    for dt in (F64, F16, I32, np.int64, np.uint8):
        xd = rnd((1, 4, 4, 2), dt)
        yd = _max_pool_windows(xd, (2, 2), (2, 2), "VALID", None)
        kernel_case("MaxPoolGrad", xd, yd, rnd((1, 2, 2, 2), dt), **attrs)
        kernel_case("MaxPoolGradGrad", xd, yd, rnd((1, 4, 4, 2), dt), **attrs)
    for dt in (F64, F16):
        kernel_case("AvgPoolGrad", np.array([1, 5, 5, 2], np.int32), rnd((1, 3, 3, 2), dt), ksize=[1, 3, 3, 1],
                    strides=[1, 2, 2, 1], padding="SAME")  # fmt: skip
    # errors
    kernel_case("MaxPoolGrad", rnd((1, 4, 4, 1)), rnd((1, 2, 2, 1)), rnd((1, 3, 2, 1)), **attrs)
    kernel_case("MaxPoolGrad", rnd((1, 2, 2, 4)), rnd((1, 2, 2, 2)), rnd((1, 2, 2, 2)), ksize=[1, 1, 1, 2],
                strides=[1, 1, 1, 2], padding="VALID")  # fmt: skip
    kernel_case("AvgPoolGrad", np.array([1, 4, 4], np.int32), rnd((1, 2, 2, 1)), **attrs)
    kernel_case("AvgPoolGrad", np.array([1, 4, 4, 1], np.int32), rnd((2, 2, 1)), **attrs)
    x4, y4 = rnd((1, 4, 4, 1)), rnd((1, 2, 2, 1))
    kernel_case("MaxPoolGrad", rnd((4, 4, 1)), y4, y4, **attrs)
    kernel_case("MaxPoolGrad", x4, rnd((2, 2, 1)), y4, **attrs)
    kernel_case("MaxPoolGrad", x4, y4, rnd((2, 2, 1)), **attrs)
    kernel_case("MaxPoolGradGrad", rnd((4, 4, 1)), y4, x4, **attrs)
    kernel_case("MaxPoolGradGrad", x4, rnd((2, 2, 1)), x4, **attrs)
    kernel_case("MaxPoolGradGrad", x4, y4, rnd((4, 4, 1)), **attrs)
    kernel_case("MaxPoolGradGrad", x4, rnd((1, 3, 2, 1)), x4, **attrs)
    kernel_case("MaxPoolGradGrad", x4, y4, rnd((1, 4, 3, 1)), **attrs)
    U = None  # noqa: N806
    shape_case("MaxPoolGrad", P(None), P(None), P(None), **attrs)
    shape_case("MaxPoolGrad", P([1, 4, 4]), P(None), P(None), **attrs)
    shape_case("MaxPoolGradGrad", P([U, 4, 4, U]), P(None), P([2, U, U, 3]), **attrs)
    shape_case("MaxPoolGradGrad", P([1, 4, 4, 1]), P([1, 3, 3, 1]), P(None), **attrs)
    shape_case("MaxPoolGradGrad", P([1, 4, 4, 1]), P(None), P([1, 4, 5, 1]), **attrs)
    shape_case("AvgPoolGrad", P([4], "int32"), P(None), **attrs)
    shape_case("AvgPoolGrad", P([U], "int32"), P(None), **attrs)
    shape_case("AvgPoolGrad", C([1, 4, 4]), P(None), **attrs)


def _batch_norm_cases(shape_case, kernel_case, rnd, P) -> None:  # noqa: ANN001, N803
    for data_format, shape in (("NHWC", (2, 3, 3, 4)), ("NCHW", (2, 4, 3, 3)), ("NDHWC", (1, 2, 3, 2, 4)),
                               ("NCDHW", (1, 4, 2, 3, 2))):  # fmt: skip
        x, dy = rnd(shape), rnd(shape)
        scale, mean = rnd((4,)), rnd((4,))
        var = (np.abs(rnd((4,))) + 0.5).astype(F32)
        empty = np.zeros((0,), F32)
        for training in (True, False):
            attrs = {"data_format": data_format, "is_training": training, "epsilon": 0.001}
            kernel_case("FusedBatchNormGradV3", dy, x, scale, mean, var, empty, **attrs)
            if data_format in ("NHWC", "NCHW"):
                kernel_case("FusedBatchNormGrad", dy, x, scale, mean, var, **attrs)
        kernel_case("FusedBatchNormGradV3", dy.astype(F16), x.astype(F16), scale, mean, var, empty,
                    data_format=data_format)  # fmt: skip
    x = rnd((2, 2, 2, 3))
    kernel_case("FusedBatchNormGradV3", x, x, rnd((2,)), rnd((3,)), rnd((3,)), np.zeros((0,), F32))
    kernel_case("FusedBatchNormGrad", x, x, rnd((3,)), rnd((2,)), rnd((3,)))
    kernel_case("FusedBatchNormGrad", x, rnd((2, 2, 3)), rnd((3,)), rnd((3,)), rnd((3,)))
    kernel_case("FusedBatchNormGrad", x, x, rnd((3, 1)), rnd((3,)), rnd((3,)))
    kernel_case("FusedBatchNormGrad", x, rnd((2, 2, 3, 3)), rnd((3,)), rnd((3,)), rnd((3,)))
    kernel_case("FusedBatchNormGradV3", rnd((0, 2, 2, 3)), rnd((0, 2, 2, 3)), rnd((3,)), rnd((3,)), rnd((3,)),
                np.zeros((0,), F32))  # fmt: skip
    kernel_case("FusedBatchNormGrad", x, x, rnd((3,)), rnd((3,)), rnd((3,)), data_format="NHWC", epsilon=1e-5)
    U = None  # noqa: N806
    v = P([4])
    shape_case("FusedBatchNormGradV3", P([2, 3, 3, 4]), P([2, 3, 3, U]), v, v, v, P(None))
    shape_case("FusedBatchNormGradV3", P([2, U, 3, 3]), P([2, 4, 3, 3]), P([U]), v, v, P(None), data_format="NCHW")
    shape_case("FusedBatchNormGradV3", P([2, 3, 3, 3, 4]), P(None), v, v, v, P(None), data_format="NDHWC")
    shape_case("FusedBatchNormGradV3", P([2, 3, 3, 4]), P(None), P([5]), v, v, P(None))
    shape_case("FusedBatchNormGradV3", P([2, 3, 3]), P(None), v, v, v, P(None))
    shape_case("FusedBatchNormGrad", P(None), P(None), P([U]), v, P(None))
    shape_case("FusedBatchNormGrad", P([2, 3, 3, 4]), P([2, 3, 3, 4]), v, v, v, data_format="NCHW")


def cases(shape_case, kernel_case, rnd, P, C) -> None:  # noqa: ANN001, N803 - the tool's case makers
    _activation_cases(shape_case, kernel_case, rnd, P)
    _bias_cases(shape_case, kernel_case, rnd, P)
    _conv_cases(shape_case, kernel_case, rnd, P, C)
    _pool_cases(shape_case, kernel_case, rnd, P, C)
    _batch_norm_cases(shape_case, kernel_case, rnd, P)
