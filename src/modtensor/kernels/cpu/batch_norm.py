"""Fused batch normalization kernels (FusedBatchNorm, FusedBatchNormV3) with TensorFlow's CPU semantics.

Inference (``is_training=False``) normalizes with the given mean and variance:
``(x - mean) * (rsqrt(variance + epsilon) * scale) + offset``. Training normalizes with the
batch statistics and returns the batch mean and the Bessel-corrected batch variance
(blended with the given ones by ``exponential_avg_factor``), as TF's CPU kernel does.
Half inputs compute in float32.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.kernels.cpu.errors import invalid_argument, shape_str
from modtensor.kernels.cpu.fp_quiet import ignoring_fp_errors
from modtensor.kernels.cpu.precision import HALF_TYPES


def _str(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


@ignoring_fp_errors
def _fused_batch_norm(
    x: np.ndarray,
    scale: np.ndarray,
    offset: np.ndarray,
    mean: np.ndarray,
    variance: np.ndarray,
    epsilon: float,
    exponential_avg_factor: float,
    data_format: Any,
    is_training: bool,
) -> tuple[np.ndarray, ...]:
    x = np.asarray(x)
    data_format = _str(data_format)
    rank = 5 if data_format in ("NDHWC", "NCDHW") else 4
    if x.ndim != rank:
        raise invalid_argument(f"input must be {rank}-dimensional{shape_str(x.shape)}")
    for name, vec in (("scale", scale), ("offset", offset)):
        if np.ndim(vec) != 1:
            raise invalid_argument(f"{name} must be 1-dimensional{shape_str(np.shape(vec))}")
    channel_axis = 1 if data_format.startswith("NC") else rank - 1
    channels = x.shape[channel_axis]
    stats = [np.asarray(v, dtype=np.float32) for v in (scale, offset, mean, variance)]
    if stats[0].shape[0] != channels:
        raise invalid_argument(
            f"scale must have the same number of elements as the channels of x, got {stats[0].shape[0]} and {channels}"
        )
    if stats[1].shape[0] != channels:
        raise invalid_argument(
            f"offset must have the same number of elements as the channels of x, got {stats[1].shape[0]} and {channels}"
        )
    work = np.moveaxis(x, channel_axis, -1).astype(np.float32, copy=False)
    scale_f, offset_f, mean_f, var_f = stats
    eps = np.float32(epsilon)
    if is_training:
        count = work.size // channels if channels else 0
        axes = tuple(range(work.ndim - 1))
        batch_mean = np.mean(work, axis=axes, dtype=np.float64).astype(np.float32)
        centered = work - batch_mean
        batch_var = np.mean(np.square(centered, dtype=np.float64), axis=axes).astype(np.float32)
        y = centered * (scale_f / np.sqrt(batch_var + eps)) + offset_f
        corrected = batch_var * np.float32(count / max(count - 1, 1))
        factor = np.float32(exponential_avg_factor)
        if factor == 1:
            out_mean, out_var = batch_mean, corrected
        else:
            out_mean = (np.float32(1) - factor) * mean_f + factor * batch_mean
            out_var = (np.float32(1) - factor) * var_f + factor * corrected
        reserve = (batch_mean, batch_var)
    else:
        if stats[2].shape[0] != channels or stats[3].shape[0] != channels:
            raise invalid_argument(
                "When is_training=false, mean and variance must have the same number of elements as the channels "
                f"of x, got {stats[2].shape[0]} and {stats[3].shape[0]} and {channels}"
            )
        factor_scale = (np.float32(1) / np.sqrt(var_f + eps)) * scale_f
        y = (work - mean_f) * factor_scale + offset_f
        out_mean, out_var = mean_f, var_f
        reserve = (mean_f, var_f)
    y = np.moveaxis(y, -1, channel_axis).astype(x.dtype if x.dtype not in HALF_TYPES else x.dtype)
    return np.ascontiguousarray(y), out_mean, out_var, reserve[0].copy(), reserve[1].copy()


def fused_batch_norm(
    x: np.ndarray,
    scale: np.ndarray,
    offset: np.ndarray,
    mean: np.ndarray,
    variance: np.ndarray,
    epsilon: float = 0.0001,
    exponential_avg_factor: float = 1.0,
    data_format: Any = "NHWC",
    is_training: bool = True,
) -> tuple[np.ndarray, ...]:
    """FusedBatchNorm: y, batch_mean, batch_variance, reserve_space_1, reserve_space_2."""
    return _fused_batch_norm(x, scale, offset, mean, variance, epsilon, exponential_avg_factor, data_format,
                             is_training)  # fmt: skip


def fused_batch_norm_v3(
    x: np.ndarray,
    scale: np.ndarray,
    offset: np.ndarray,
    mean: np.ndarray,
    variance: np.ndarray,
    epsilon: float = 0.0001,
    exponential_avg_factor: float = 1.0,
    data_format: Any = "NHWC",
    is_training: bool = True,
) -> tuple[np.ndarray, ...]:
    """FusedBatchNormV3: FusedBatchNorm's outputs plus reserve_space_3 (empty, shape [0], as TF's CPU kernel)."""
    outs = _fused_batch_norm(x, scale, offset, mean, variance, epsilon, exponential_avg_factor, data_format,
                             is_training)  # fmt: skip
    return (*outs, np.zeros((0,), np.float32))


OP_FUNCTIONS: dict[str, Any] = {"FusedBatchNorm": fused_batch_norm, "FusedBatchNormV3": fused_batch_norm_v3}
CPU_TYPE_CONSTRAINTS = {
    "FusedBatchNorm": {"T": "float32"},
    "FusedBatchNormV3": {"T": "bfloat16 float16 float32", "U": "float32"},
}
