"""CPU kernels for the remapper's fused ops: ``_FusedMatMul`` and ``_FusedConv2D``.

Each computes the base op, then the fused ops in order (``BiasAdd`` with the one
argument, then an optional activation), with the same numpy code as the separate
kernels, so a fused graph gives the numbers of the unfused one. Fusions TensorFlow's
CPU kernels support but modtensor does not (FusedBatchNorm, Add) raise Unimplemented.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import modtensor.ops.fused_ops  # noqa: F401  (registers the OpDefs)
from modtensor.framework import errors
from modtensor.kernels.cpu import activations, conv, matmul
from modtensor.runtime.kernel_registry import KernelRegistration, KernelRegistry
from modtensor.runtime.op_kernel import FunctionKernel

__all__ = ["fused_conv2d", "fused_mat_mul", "register_fused_kernels"]

_ACTIVATIONS: dict[str, Callable[..., np.ndarray]] = {
    "Relu": activations.relu,
    "Relu6": activations.relu6,
    "Elu": activations.elu,
}


def _names(fused_ops: Sequence[Any]) -> list[str]:
    return [op.decode() if isinstance(op, bytes) else str(op) for op in fused_ops]


def _apply(
    value: np.ndarray,
    fused_ops: Sequence[Any],
    args: Sequence[np.ndarray],
    data_format: str,
    leakyrelu_alpha: float,
    what: str,
) -> np.ndarray:
    names = _names(fused_ops)
    if not names or names[0] != "BiasAdd" or len(names) > 2 or len(args) != 1:
        raise errors.UnimplementedError(
            None,
            None,
            f"{what} with fused_ops {names} and {len(args)} args is not supported on CPU by modtensor; "
            "supported: ['BiasAdd'] optionally followed by Relu, Relu6, Elu or LeakyRelu",
        )
    out = activations.bias_add(value, args[0], data_format=data_format)
    if len(names) == 2:
        if names[1] == "LeakyRelu":
            return activations.leaky_relu(out, alpha=leakyrelu_alpha)
        fn = _ACTIVATIONS.get(names[1])
        if fn is None:
            raise errors.UnimplementedError(None, None, f"{what}: fused activation '{names[1]}' is not supported")
        out = fn(out)
    return out


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
    del epsilon
    product = matmul.mat_mul(a, b, transpose_a=transpose_a, transpose_b=transpose_b)
    return _apply(product, fused_ops, args, "NHWC", leakyrelu_alpha, "_FusedMatMul")


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
    leakyrelu_alpha: float = 0.2,
) -> np.ndarray:
    """_FusedConv2D: Conv2D (HWIO filter), then BiasAdd and an optional activation."""
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
    return _apply(out, fused_ops, args, data_format, leakyrelu_alpha, "_FusedConv2D")


def register_fused_kernels(registry: KernelRegistry, source: str) -> list[KernelRegistration]:
    """Register the fused-op CPU kernels into ``registry`` (TensorFlow's CPU types: float, and double for conv)."""
    return [
        registry.register(
            "_FusedMatMul",
            "CPU",
            FunctionKernel.factory_for(fused_mat_mul),
            constraints={"T": ["float32", "bfloat16", "float16"]},
            source=source,
        ),
        registry.register(
            "_FusedConv2D",
            "CPU",
            FunctionKernel.factory_for(fused_conv2d),
            constraints={"T": ["float32", "float64", "float16"]},
            source=source,
        ),
    ]
