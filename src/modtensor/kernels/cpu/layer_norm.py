"""CPU kernel of ``_MklLayerNorm`` (the remapper's fused layer normalization over the last axis).

``y = (x - mean) * (rsqrt(variance + epsilon) * scale) + offset`` per row of the last axis, with the
mean and the (biased) variance summed in float64 and rounded to float32 as the native kernel
(``csrc/cpu_kernels/layer_norm.c``) does, so the two agree to an ulp or two. This numpy kernel is the
fallback (priority -1) that serves float16/bfloat16 (computed in float32) and runs when the native
library is not loaded. Errors are TF's texts; TF's oneDNN kernel also requires a 2-D or 3-D input,
this one takes any rank >= 1 (the remapper fuses Keras's LayerNormalization of rank-4 inputs too).
"""

from __future__ import annotations

import numpy as np

import modtensor.ops.fused_ops  # noqa: F401  (registers the OpDef)
from modtensor.kernels.cpu.errors import invalid_argument, shape_str
from modtensor.runtime.kernel_registry import KernelRegistration, KernelRegistry
from modtensor.runtime.op_kernel import FunctionKernel

__all__ = ["check_layer_norm_args", "mkl_layer_norm", "register_layer_norm_kernels"]


def check_layer_norm_args(
    x_shape: tuple[int, ...], scale_shape: tuple[int, ...], offset_shape: tuple[int, ...]
) -> None:
    """TF's checks (input rank, 1-D scale and offset of equal size) and the last-dimension size check."""
    if len(x_shape) < 1:
        raise invalid_argument(f"input must be at least 1D{shape_str(x_shape)}")
    if len(scale_shape) != 1:
        raise invalid_argument(f"scale must be 1D tensor{shape_str(scale_shape)}")
    if len(offset_shape) != 1:
        raise invalid_argument(f"offset must be 1D tensor{shape_str(offset_shape)}")
    if scale_shape[0] != offset_shape[0]:
        raise invalid_argument("Number of elements in scale and shifttensors are not same.")  # TF's text
    if scale_shape[0] != x_shape[-1]:
        raise invalid_argument(
            f"scale and offset must have the size of the input's last dimension {x_shape[-1]}, "
            f"got {scale_shape[0]} (input shape {shape_str(x_shape)})"
        )


def mkl_layer_norm(x: np.ndarray, scale: np.ndarray, offset: np.ndarray, epsilon: float = 0.001) -> np.ndarray:
    """_MklLayerNorm: layer normalization of ``x`` over its last axis, then ``* scale + offset``."""
    x, scale, offset = np.asarray(x), np.asarray(scale), np.asarray(offset)
    check_layer_norm_args(x.shape, scale.shape, offset.shape)
    out_dtype = x.dtype
    f32 = np.float32
    xf = x.astype(f32, copy=False)
    n = xf.shape[-1]
    if xf.size == 0:
        return np.empty(x.shape, dtype=out_dtype)
    count = f32(n)
    mean = (xf.sum(axis=-1, keepdims=True, dtype=np.float64).astype(f32) / count).astype(f32)
    diff = xf - mean
    d64 = diff.astype(np.float64)
    var = (np.einsum("...i,...i->...", d64, d64)[..., None].astype(f32) / count).astype(f32)
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = (f32(1) / np.sqrt(var + f32(epsilon))).astype(f32)
    y = diff * (inv * scale.astype(f32, copy=False)) + offset.astype(f32, copy=False)
    return y.astype(out_dtype, copy=False)


def register_layer_norm_kernels(registry: KernelRegistry, source: str, priority: int = -1) -> list[KernelRegistration]:
    """Register the numpy ``_MklLayerNorm`` CPU kernel (below the native float32 kernel's priority 0)."""
    return [
        registry.register(
            "_MklLayerNorm",
            "CPU",
            FunctionKernel.factory_for(mkl_layer_norm),
            constraints={"T": ["float32", "bfloat16", "float16"]},
            priority=priority,
            source=source,
        )
    ]
