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
from modtensor.framework.graph import SymbolicTensor, get_default_graph
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


# --------------------------------------------------------------------------- normalization, activations, losses


def l2_normalize(
    x: Any, axis: Any = None, epsilon: float = 1e-12, name: str | None = None, dim: Any = None
) -> Tensor:
    """``x / sqrt(max(sum(x**2, axis), epsilon))`` as TF composes it (``Square``, ``Sum``, ``Maximum``, ``Rsqrt``)."""
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim'")
        axis = dim
    with op_scope(name, "l2_normalize", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if x.dtype.is_complex:
            raise NotImplementedError("l2_normalize of complex tensors is not implemented yet (no Real/Imag ops)")
        square_sum = math.reduce_sum(math.square(x), axis, keepdims=True)
        x_inv_norm = math.rsqrt(math.maximum(square_sum, epsilon))
        return math.multiply(x, x_inv_norm, name=scope)


def swish(features: Any, beta: Any = 1.0) -> Tensor:
    """``features * sigmoid(beta * features)`` with TF's custom gradient (``tf.nn.silu`` / ``tf.nn.swish``)."""
    from modtensor.api.custom_gradient import custom_gradient

    features = convert_to_tensor(features, name="features")
    beta = math.cast(convert_to_tensor(beta, name="beta"), features.dtype)

    @custom_gradient
    def swish_impl(features: Tensor, beta: Tensor) -> Any:
        def grad(dy: Tensor) -> tuple[Tensor, Tensor]:
            if context.executing_eagerly():
                sigmoid_features = math.sigmoid(beta * features)
            else:
                with get_default_graph().control_dependencies([dy]):
                    sigmoid_features = math.sigmoid(beta * features)
            activation_grad = sigmoid_features * (1.0 + beta * features * (1.0 - sigmoid_features))
            beta_grad = math.reduce_sum(dy * math.square(features) * sigmoid_features * (1.0 - sigmoid_features))
            return dy * activation_grad, beta_grad

        return features * math.sigmoid(beta * features), grad

    return swish_impl(features, beta)


silu = swish


def _assert_same_shape(a: Tensor, b: Tensor, what: str) -> None:
    """TF's same-shape check of a loss's two inputs (a ValueError naming both static shapes)."""
    if not a.shape.is_compatible_with(b.shape):
        raise ValueError(what.format(a=a.shape, b=b.shape))


def log_poisson_loss(targets: Any, log_input: Any, compute_full_loss: bool = False, name: str | None = None) -> Tensor:
    """Poisson negative log likelihood ``exp(log_input) - log_input * targets`` (+ Stirling's term when full)."""
    import math as pymath

    with op_scope(name, "log_poisson_loss", [log_input, targets]):
        log_input = convert_to_tensor(log_input, name="log_input")
        targets = convert_to_tensor(targets, name="targets")
        if not targets.shape.is_compatible_with(log_input.shape):
            raise ValueError(
                f"`log_input` and `targets` must have the same shape, received ({log_input.shape} vs "
                f"{targets.shape})."
            )
        result = math.exp(log_input) - log_input * targets
        if compute_full_loss:
            point_five = constant(0.5, dtype=targets.dtype)
            two_pi = constant(2 * pymath.pi, dtype=targets.dtype)
            stirling_approx = targets * math.log(targets) - targets + point_five * math.log(two_pi * targets)
            zeros = array_ops.zeros_like(targets, dtype=targets.dtype)
            ones = array_ops._ones_like_v1(targets)  # TF 1's ones_like (Shape + Fill), as nn_impl uses
            cond = math.logical_and(targets >= zeros, targets <= ones)
            result += apply_op("Select", condition=cond, t=zeros, e=stirling_approx)
        return result


def weighted_cross_entropy_with_logits(labels: Any, logits: Any, pos_weight: Any, name: str | None = None) -> Tensor:
    """Sigmoid cross entropy with positives weighted by ``pos_weight``, TF's numerically stable composition."""
    from modtensor.api.nn_ops import relu

    with op_scope(name, "logistic_loss", [logits, labels]) as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        if not labels.shape.is_compatible_with(logits.shape):
            raise ValueError(
                f"`logits` and `labels` must have the same shape, received ({logits.shape} vs {labels.shape})."
            )
        log_weight = 1 + (pos_weight - 1) * labels
        return math.add(
            (1 - labels) * logits,
            log_weight * (math.log1p(math.exp(-math.abs(logits))) + relu(-logits)),
            name=scope,
        )


def separable_conv2d(
    input: Any,
    depthwise_filter: Any,
    pointwise_filter: Any,
    strides: Any,
    padding: Any,
    data_format: str | None = None,
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """A depthwise convolution then a 1x1 ``Conv2D`` mixing channels (TF's ``depthwise`` + ``Conv2D`` graph; dilated,
    the depthwise one runs on the input cut into interleaved grids, as TF's ``with_space_to_batch``)."""
    from modtensor.api.nn_ops import conv2d, depthwise_on_grids

    with op_scope(name, "separable_conv2d", [input, depthwise_filter, pointwise_filter]) as scope:
        input = convert_to_tensor(input, name="tensor_in")
        depthwise_filter = convert_to_tensor(depthwise_filter, name="depthwise_filter")
        pointwise_filter = convert_to_tensor(pointwise_filter, name="pointwise_filter")
        pointwise_filter_shape = pointwise_filter.shape.with_rank(4)
        pointwise_filter_shape.dims[0].assert_is_compatible_with(1)
        pointwise_filter_shape.dims[1].assert_is_compatible_with(1)
        rate = [1, 1] if dilations is None else dilations
        depthwise = depthwise_on_grids(input, depthwise_filter, strides, padding, rate, data_format, "depthwise")
        return conv2d(depthwise, pointwise_filter, [1, 1, 1, 1], padding="VALID", data_format=data_format,
                      name=scope)  # fmt: skip
