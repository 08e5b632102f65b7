"""``tf.nn.moments``, ``tf.nn.batch_normalization`` and ``tf.nn.dropout``: TF's compositions of elementwise,
reduction and random ops (dropout draws with ``tf.random.uniform`` under TF's seed rules)."""

from __future__ import annotations

import numbers
from typing import Any

from modtensor.api import array_ops, context, random_ops
from modtensor.api import math_ops as math
from modtensor.api.dispatch import apply_op
from modtensor.api.op_scope import constant, convert_to_tensor, is_tensor, op_scope
from modtensor.framework import dtypes, tensor_shape
from modtensor.framework.graph import SymbolicTensor
from modtensor.framework.tensor import Tensor

__all__: list[str] = []


def moments(
    x: Any, axes: Any, shift: Any = None, keepdims: bool = False, name: str | None = None
) -> tuple[Tensor, Tensor]:
    """Mean and variance of ``x`` over ``axes`` (float16 computes in float32, as TF does)."""
    del shift  # unused by TF as well
    with op_scope(name, "moments", [x, axes]):
        x = convert_to_tensor(x)
        y = math.cast(x, dtypes.float32) if x.dtype == dtypes.float16 else x
        mean = math.reduce_mean(y, axes, keepdims=True, name="mean")
        variance = math.reduce_mean(
            math.squared_difference(y, array_ops.stop_gradient(mean)), axes, keepdims=True, name="variance"
        )
        if not keepdims:
            mean = array_ops.squeeze(mean, axes)
            variance = array_ops.squeeze(variance, axes)
        if x.dtype == dtypes.float16:
            return math.cast(mean, dtypes.float16), math.cast(variance, dtypes.float16)
        return mean, variance


def batch_normalization(
    x: Any, mean: Any, variance: Any, offset: Any, scale: Any, variance_epsilon: Any, name: str | None = None
) -> Tensor:
    """``(x - mean) / sqrt(variance + epsilon) * scale + offset``, computed as TF does (``x * inv + shift``)."""
    with op_scope(name, "batchnorm", [x, mean, variance, scale, offset]):
        x = convert_to_tensor(x)
        inv = math.rsqrt(variance + variance_epsilon)
        if scale is not None:
            inv *= scale
        # TF's expression, operators in its order (the node names follow from it: mul_1, mul_2, sub, add_1).
        scaled = x * math.cast(inv, x.dtype)
        shift = offset - mean * inv if offset is not None else -mean * inv
        return scaled + math.cast(shift, x.dtype)


def _noise_shape(x: Tensor, noise_shape: Any) -> Any:
    if noise_shape is None:
        return array_ops.shape(x)
    try:
        static = tensor_shape.as_shape(noise_shape)
    except (TypeError, ValueError):
        return noise_shape
    if x.shape.rank is not None and static.rank is not None and x.shape.rank == static.rank:
        pairs = zip(x.shape.as_list(), static.as_list(), strict=True)
        return [d if n is None and d is not None else n for d, n in pairs]
    return noise_shape


def dropout(x: Any, rate: Any, noise_shape: Any = None, seed: int | None = None, name: str | None = None) -> Tensor:
    """Zero each element with probability ``rate`` and scale the rest by ``1 / (1 - rate)`` (TF's ``tf.nn.dropout``)."""
    with op_scope(name, "dropout", [x]):
        is_rate_number = isinstance(rate, numbers.Real)
        if is_rate_number and (rate < 0 or rate >= 1):
            raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). Received: rate={rate}")
        x = convert_to_tensor(x, name="x")
        x_dtype = x.dtype
        if not x_dtype.is_floating:
            raise ValueError(
                f"`x.dtype` must be a floating point tensor as `x` will be scaled. Received: x_dtype={x_dtype}"
            )
        if is_rate_number and rate == 0:
            random_ops.get_seed(seed)  # TF advances the op-seed counter even then
            return x
        if not is_tensor(rate):
            if not is_rate_number:
                raise ValueError(f"`rate` must be a scalar or scalar tensor. Received: rate={rate}")
            scale = convert_to_tensor(1 / (1 - rate), dtype=x_dtype)
            ret = apply_op("Mul", x=x, y=scale)
        else:
            rate.shape.assert_has_rank(0)
            if rate.dtype != x_dtype:
                rate = apply_op("Cast", x=rate, DstT=x_dtype, name="rate")
            one = constant(1, dtype=x_dtype)
            ret = apply_op("RealDiv", x=x, y=apply_op("Sub", x=one, y=rate))
        random = random_ops.uniform(_noise_shape(x, noise_shape), seed=seed, dtype=x_dtype)
        keep = math.greater_equal(random, rate)
        ret = array_ops.where(keep, ret, constant(0, dtype=x_dtype))
        if isinstance(ret, SymbolicTensor) and not context.executing_eagerly():
            ret.set_shape(x.shape)
        return ret
