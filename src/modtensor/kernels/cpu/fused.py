"""CPU kernels for the remapper's fused ops: ``_FusedMatMul``, ``_FusedConv2D``, ``_FusedDepthwiseConv2dNative``.

Each computes the base op, then the fused ops in TensorFlow's order with the same
numpy code as the separate kernels, so a fused graph gives the numbers of the unfused
one: ``BiasAdd`` (one arg) or ``FusedBatchNorm`` (scale, offset, mean, variance; conv
only), then an optional ``Add`` of a same-shaped arg, then an optional activation
(Relu, Relu6, Elu, LeakyRelu, Sigmoid, Tanh, _MklSwish; GeluExact/GeluApproximate for MatMul).
These are the fallback for dtypes the native kernels (csrc/cpu_kernels) do not cover.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import modtensor.ops.fused_ops  # noqa: F401  (registers the OpDefs)
from modtensor.framework import errors
from modtensor.kernels.cpu import activations, conv, elementwise, matmul
from modtensor.runtime.kernel_registry import KernelRegistration, KernelRegistry
from modtensor.runtime.op_kernel import FunctionKernel

__all__ = ["fused_conv2d", "fused_depthwise_conv2d_native", "fused_mat_mul", "register_fused_kernels"]


def _gelu_exact(x: np.ndarray) -> np.ndarray:
    half = x.dtype.type(0.5)
    return half * x * (x.dtype.type(1) + elementwise.erf(x * x.dtype.type(1 / math.sqrt(2))))


def _gelu_approximate(x: np.ndarray) -> np.ndarray:
    c = x.dtype.type(math.sqrt(2 / math.pi))
    return x.dtype.type(0.5) * x * (x.dtype.type(1) + np.tanh(c * (x + x.dtype.type(0.044715) * x * x * x)))


def _swish(x: np.ndarray) -> np.ndarray:
    return x * activations.sigmoid(x)


_ACTIVATIONS: dict[str, Callable[..., np.ndarray]] = {
    "_MklSwish": _swish,  # x * sigmoid(x): TF's name for the fused swish
    "Relu": activations.relu,
    "Relu6": activations.relu6,
    "Elu": activations.elu,
    "Sigmoid": activations.sigmoid,
    "Tanh": activations.tanh,
}
_GELU: dict[str, Callable[..., np.ndarray]] = {"GeluExact": _gelu_exact, "GeluApproximate": _gelu_approximate}


def _names(fused_ops: Sequence[Any]) -> list[str]:
    return [op.decode() if isinstance(op, bytes) else str(op) for op in fused_ops]


def _unsupported(what: str, names: list[str], args: Sequence[np.ndarray]) -> errors.UnimplementedError:
    return errors.UnimplementedError(
        None,
        None,
        f"{what} with fused_ops {names} and {len(args)} args is not supported on CPU by modtensor; supported: "
        "BiasAdd or FusedBatchNorm, then optionally Add, then optionally Relu, Relu6, Elu, LeakyRelu, Sigmoid, "
        "Tanh (GeluExact, GeluApproximate for _FusedMatMul)",
    )


def _apply(
    value: np.ndarray,
    fused_ops: Sequence[Any],
    args: Sequence[np.ndarray],
    data_format: str,
    leakyrelu_alpha: float,
    what: str,
    *,
    epsilon: float = 1e-4,
    allow_bn: bool = False,
    allow_gelu: bool = False,
) -> np.ndarray:
    names = _names(fused_ops)
    rest, used = list(names), 0
    if rest and rest[0] == "BiasAdd" and len(args) >= 1:
        out = activations.bias_add(value, args[0], data_format=data_format)
        rest, used = rest[1:], 1
    elif rest and rest[0] == "FusedBatchNorm" and allow_bn and len(args) >= 4:
        scale, offset, mean, variance = (np.asarray(a, dtype=value.dtype) for a in args[:4])
        factor = scale / np.sqrt(variance + value.dtype.type(epsilon))
        shape = (-1, 1, 1) if data_format.startswith("NC") else (-1,)
        out = (value - mean.reshape(shape)) * factor.reshape(shape) + offset.reshape(shape)
        rest, used = rest[1:], 4
    else:
        raise _unsupported(what, names, args)
    if rest and rest[0] == "Add" and names[0] == "BiasAdd":
        if len(args) <= used:
            raise _unsupported(what, names, args)
        other = np.asarray(args[used])
        try:
            fits = np.broadcast_shapes(out.shape, other.shape) == out.shape
        except ValueError:
            fits = False
        if not fits:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"the operand of the fused Add must broadcast to the output's shape {list(out.shape)}, "
                f"got {list(other.shape)}",
            )
        out = np.add(out, other, dtype=out.dtype)
        rest, used = rest[1:], used + 1
    if rest:
        name = rest.pop(0)
        if name == "LeakyRelu":
            out = activations.leaky_relu(out, alpha=leakyrelu_alpha)
        elif name in _ACTIVATIONS:
            out = _ACTIVATIONS[name](out)
        elif allow_gelu and name in _GELU:
            out = _GELU[name](out)
        else:
            raise _unsupported(what, names, args)
    if rest or used != len(args):
        raise _unsupported(what, names, args)
    return np.asarray(out, dtype=value.dtype)


def fused_mat_mul(
    a: np.ndarray,
    b: np.ndarray,
    args: Sequence[np.ndarray],
    transpose_a: bool = False,
    transpose_b: bool = False,
    fused_ops: Sequence[Any] = (),
    epsilon: float = 1e-4,
    leakyrelu_alpha: float = 0.2,
) -> np.ndarray:
    """_FusedMatMul: MatMul, then BiasAdd and an optional activation."""
    product = matmul.mat_mul(a, b, transpose_a=transpose_a, transpose_b=transpose_b)
    return _apply(product, fused_ops, args, "NHWC", leakyrelu_alpha, "_FusedMatMul", epsilon=epsilon, allow_gelu=True)


def fused_conv2d(
    input: np.ndarray,  # noqa: A002 - TF's argument name
    filter: np.ndarray,  # noqa: A002
    args: Sequence[np.ndarray],
    host_args: Sequence[np.ndarray],
    strides: Sequence[int],
    padding: str,
    explicit_paddings: Sequence[int] = (),
    data_format: str = "NHWC",
    filter_format: str = "HWIO",
    dilations: Sequence[int] = (1, 1, 1, 1),
    fused_ops: Sequence[Any] = (),
    epsilon: float = 1e-4,
    leakyrelu_alpha: float = 0.2,
) -> np.ndarray:
    """_FusedConv2D: Conv2D (HWIO filter), then the fused ops."""
    del host_args
    if filter_format != "HWIO" or data_format not in ("NHWC", "NCHW"):
        raise errors.UnimplementedError(
            None,
            None,
            f"_FusedConv2D with data_format {data_format} and filter_format {filter_format} "
            "is not supported on CPU; use NHWC or NCHW with HWIO",
        )
    out = conv.conv2d(
        input,
        filter,
        strides=strides,
        padding=padding,
        explicit_paddings=explicit_paddings,
        data_format=data_format,
        dilations=dilations,
    )
    return _apply(out, fused_ops, args, data_format, leakyrelu_alpha, "_FusedConv2D", epsilon=epsilon, allow_bn=True)


def fused_depthwise_conv2d_native(
    input: np.ndarray,  # noqa: A002 - TF's argument name
    filter: np.ndarray,  # noqa: A002
    args: Sequence[np.ndarray],
    strides: Sequence[int],
    padding: str,
    data_format: str = "NHWC",
    dilations: Sequence[int] = (1, 1, 1, 1),
    fused_ops: Sequence[Any] = (),
    epsilon: float = 1e-4,
    leakyrelu_alpha: float = 0.2,
) -> np.ndarray:
    """_FusedDepthwiseConv2dNative: DepthwiseConv2dNative, then BiasAdd and an optional activation."""
    out = conv.depthwise_conv2d_native(
        input, filter, strides=strides, padding=padding, data_format=data_format, dilations=dilations
    )
    return _apply(out, fused_ops, args, data_format, leakyrelu_alpha, "_FusedDepthwiseConv2dNative", epsilon=epsilon)


def register_fused_kernels(registry: KernelRegistry, source: str, priority: int = -1) -> list[KernelRegistration]:
    """Register the fused-op CPU kernels into ``registry`` (TensorFlow's CPU types: float, and double for conv).

    ``priority`` is below the native kernels' (0): these serve the dtypes the native library does not.
    """
    return [
        registry.register(
            "_FusedMatMul",
            "CPU",
            FunctionKernel.factory_for(fused_mat_mul),
            constraints={"T": ["float32", "bfloat16", "float16"]},
            priority=priority,
            source=source,
        ),
        registry.register(
            "_FusedConv2D",
            "CPU",
            FunctionKernel.factory_for(fused_conv2d),
            constraints={"T": ["float32", "float64", "float16"]},
            priority=priority,
            source=source,
        ),
        registry.register(
            "_FusedDepthwiseConv2dNative",
            "CPU",
            FunctionKernel.factory_for(fused_depthwise_conv2d_native),
            constraints={"T": ["float32", "float64", "float16", "bfloat16"]},
            priority=priority,
            source=source,
        ),
    ]
