"""Gradients of neural-network ops: activations, bias, convolutions, pooling, normalization, losses.

TensorFlow's rules (``tensorflow/python/ops/nn_grad.py`` and ``nn_fused_batch_norm_grad.py``),
through TF's backward ops (``ReluGrad``, ``Conv2DBackpropInput``, ...) where TF uses them. The
backward ops have gradients of their own where TF gives them one, so second derivatives of
activations, convolutions and pooling work as in TF.
"""

from __future__ import annotations

from typing import Any

from modtensor.api import array_ops, math_ops
from modtensor.api.dispatch import apply_op
from modtensor.api.gradients.common import skipped
from modtensor.framework import dtypes
from modtensor.framework.gradient_registry import RegisterGradient


def _attr(op: Any, name: str) -> Any:
    value = op.get_attr(name)
    return value.decode() if isinstance(value, bytes) else value


def _attrs(op: Any, *names: str) -> dict[str, Any]:
    return {name: _attr(op, name) for name in names}


# --------------------------------------------------------------------------- activations


@RegisterGradient("Relu")
def _relu_grad(op: Any, grad: Any) -> Any:
    return apply_op("ReluGrad", gradients=grad, features=op.outputs[0])


@RegisterGradient("ReluGrad")
def _relu_grad_grad(op: Any, grad: Any) -> list[Any]:
    x = op.inputs[1]
    return [apply_op("ReluGrad", gradients=grad, features=x), array_ops.zeros_like(x)]


@RegisterGradient("Relu6")
def _relu6_grad(op: Any, grad: Any) -> Any:
    return apply_op("Relu6Grad", gradients=grad, features=op.outputs[0])


@RegisterGradient("Relu6Grad")
def _relu6_grad_grad(op: Any, grad: Any) -> list[Any]:
    x = op.inputs[1]
    return [apply_op("Relu6Grad", gradients=grad, features=x), array_ops.zeros_like(x)]


@RegisterGradient("LeakyRelu")
def _leaky_relu_grad(op: Any, grad: Any) -> Any:
    return apply_op("LeakyReluGrad", gradients=grad, features=op.inputs[0], alpha=op.get_attr("alpha"))


@RegisterGradient("LeakyReluGrad")
def _leaky_relu_grad_grad(op: Any, grad: Any) -> list[Any]:
    x = op.inputs[1]
    return [apply_op("LeakyReluGrad", gradients=grad, features=x, alpha=op.get_attr("alpha")), array_ops.zeros_like(x)]


@RegisterGradient("Elu")
def _elu_grad(op: Any, grad: Any) -> Any:
    return apply_op("EluGrad", gradients=grad, outputs=op.outputs[0])


@RegisterGradient("EluGrad")
def _elu_grad_grad(op: Any, grad: Any) -> list[Any]:
    # EluGrad(dy, y) = dy * (y + 1) where y < 0: linear in dy, and d/dy of it is dy there.
    y = op.inputs[1]
    negative = math_ops.less(y, array_ops.zeros_like(y))
    d_y = array_ops.where(negative, math_ops.multiply(grad, op.inputs[0]), array_ops.zeros_like(y))
    return [apply_op("EluGrad", gradients=grad, outputs=y), d_y]


@RegisterGradient("Selu")
def _selu_grad(op: Any, grad: Any) -> Any:
    return apply_op("SeluGrad", gradients=grad, outputs=op.outputs[0])


@RegisterGradient("SeluGrad")
def _selu_grad_grad(op: Any, grad: Any) -> list[Any]:
    selu_x = op.inputs[1]
    negative = math_ops.less(selu_x, array_ops.zeros_like(selu_x))
    d_y = array_ops.where(negative, math_ops.multiply(grad, op.inputs[0]), array_ops.zeros_like(selu_x))
    return [apply_op("SeluGrad", gradients=grad, outputs=selu_x), d_y]


@RegisterGradient("LRN")
def _lrn_grad(op: Any, grad: Any) -> Any:
    attrs = _attrs(op, "depth_radius", "bias", "alpha", "beta")
    return apply_op("LRNGrad", input_grads=grad, input_image=op.inputs[0], output_image=op.outputs[0], **attrs)


@RegisterGradient("Softsign")
def _softsign_grad(op: Any, grad: Any) -> Any:
    return apply_op("SoftsignGrad", gradients=grad, features=op.inputs[0])


@RegisterGradient("Softplus")
def _softplus_grad(op: Any, grad: Any) -> Any:
    return math_ops.multiply(grad, math_ops.sigmoid(op.inputs[0]))


@RegisterGradient("SoftplusGrad")
def _softplus_grad_grad(op: Any, grad: Any) -> list[Any]:
    # SoftplusGrad(dy, x) = dy * sigmoid(x): linear in dy; d/dx is dy * sigmoid'(x) = dy / (e^-x + 2 + e^x).
    dy, x = op.inputs
    d_dy = apply_op("SoftplusGrad", gradients=grad, features=x)
    two = array_ops.constant(2.0, dtype=x.dtype)
    denominator = math_ops.add(math_ops.add(math_ops.exp(math_ops.negative(x)), two), math_ops.exp(x))
    return [d_dy, math_ops.truediv(math_ops.multiply(grad, dy), denominator)]


@RegisterGradient("Softmax")
def _softmax_grad(op: Any, grad: Any) -> Any:
    # d softmax = softmax * (grad - <grad, softmax>) along the last axis.
    softmax = op.outputs[0]
    inner = math_ops.reduce_sum(math_ops.multiply(grad, softmax), -1, keepdims=True)
    return math_ops.multiply(math_ops.subtract(grad, inner), softmax)


@RegisterGradient("LogSoftmax")
def _log_softmax_grad(op: Any, grad: Any) -> Any:
    # d log_softmax = grad - sum(grad) * softmax, softmax being exp(log_softmax).
    softmax = math_ops.exp(op.outputs[0])
    return math_ops.subtract(grad, math_ops.multiply(math_ops.reduce_sum(grad, -1, keepdims=True), softmax))


# --------------------------------------------------------------------------- bias


def _data_format(op: Any) -> str | None:
    try:
        return _attr(op, "data_format")
    except ValueError:
        return None


@RegisterGradient("BiasAdd")
def _bias_add_grad(op: Any, grad: Any) -> list[Any]:
    if skipped(op, 1):
        return [grad, None]
    data_format = _data_format(op)
    attrs = {} if data_format is None else {"data_format": data_format}
    return [grad, apply_op("BiasAddGrad", out_backprop=grad, **attrs)]


@RegisterGradient("BiasAddGrad")
def _bias_add_grad_grad(op: Any, grad: Any) -> Any:
    # BiasAddGrad sums over every dim but the channel one: its gradient broadcasts back (reshape, then tile).
    shape = array_ops.shape(op.inputs[0])
    bias_shape = array_ops.shape(grad)
    if _data_format(op) == "NCHW":
        expanded = array_ops.concat([array_ops.ones_like(shape[:1]), bias_shape, array_ops.ones_like(shape[2:])], 0)
        multiples = array_ops.concat([shape[:1], [1], shape[2:]], 0)
    else:
        expanded = array_ops.concat([array_ops.ones_like(shape[:-1]), bias_shape], 0)
        multiples = array_ops.concat([shape[:-1], [1]], 0)
    return array_ops.tile(array_ops.reshape(grad, expanded), multiples)


# --------------------------------------------------------------------------- losses


def _broadcast_mul(vec: Any, mat: Any) -> Any:
    """``vec[:, None] * mat``: a per-row scale."""
    return math_ops.multiply(array_ops.expand_dims(vec, -1), mat)


def _xent_logits_grad(op: Any, grad_loss: Any, grad_grad: Any) -> Any:
    """The logits gradient shared by both cross entropies: the op's backprop output scaled by the loss gradient,
    plus, when the backprop output itself is differentiated (second order), the softmax Jacobian of that."""
    grad = _broadcast_mul(grad_loss, op.outputs[1])
    if grad_grad is not None:
        softmax = apply_op("Softmax", logits=op.inputs[0])
        projected = array_ops.squeeze(
            math_ops.matmul(array_ops.expand_dims(grad_grad, 1), array_ops.expand_dims(softmax, 2)), axis=[1]
        )
        grad = math_ops.add(grad, math_ops.multiply(math_ops.subtract(grad_grad, projected), softmax))
    return grad


@RegisterGradient("SoftmaxCrossEntropyWithLogits")
def _softmax_cross_entropy_grad(op: Any, grad_loss: Any, grad_grad: Any) -> list[Any]:
    logits_grad = _xent_logits_grad(op, grad_loss, grad_grad)
    labels_grad = None
    if not skipped(op, 1):
        log_softmax = apply_op("LogSoftmax", logits=op.inputs[0])
        labels_grad = _broadcast_mul(grad_loss, math_ops.negative(log_softmax))
    return [logits_grad, labels_grad]


@RegisterGradient("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_softmax_cross_entropy_grad(op: Any, grad_loss: Any, grad_grad: Any) -> list[Any]:
    return [_xent_logits_grad(op, grad_loss, grad_grad), None]


@RegisterGradient("L2Loss")
def _l2_loss_grad(op: Any, grad: Any) -> Any:
    return math_ops.multiply(op.inputs[0], grad)


# --------------------------------------------------------------------------- convolutions

_CONV_ATTRS = ("strides", "padding", "explicit_paddings", "data_format", "dilations")


@RegisterGradient("Conv2D")
def _conv2d_grad(op: Any, grad: Any) -> list[Any]:
    x, w = op.inputs
    attrs = _attrs(op, *_CONV_ATTRS, "use_cudnn_on_gpu")
    dx = dw = None
    if not skipped(op, 0):
        dx = apply_op("Conv2DBackpropInput", input_sizes=array_ops.shape(x), filter=w, out_backprop=grad, **attrs)
    if not skipped(op, 1):
        dw = apply_op("Conv2DBackpropFilter", input=x, filter_sizes=array_ops.shape(w), out_backprop=grad, **attrs)
    return [dx, dw]


@RegisterGradient("Conv2DBackpropInput")
def _conv2d_backprop_input_grad(op: Any, grad: Any) -> list[Any]:
    # dx = conv2d^T(dy; w) is bilinear in (w, dy): its gradient is a filter backprop and a forward conv.
    _, w, dy = op.inputs
    attrs = _attrs(op, *_CONV_ATTRS, "use_cudnn_on_gpu")
    dw = None if skipped(op, 1) else apply_op(
        "Conv2DBackpropFilter", input=grad, filter_sizes=array_ops.shape(w), out_backprop=dy, **attrs
    )  # fmt: skip
    ddy = None if skipped(op, 2) else apply_op("Conv2D", input=grad, filter=w, **attrs)
    return [None, dw, ddy]


@RegisterGradient("Conv2DBackpropFilter")
def _conv2d_backprop_filter_grad(op: Any, grad: Any) -> list[Any]:
    x, _, dy = op.inputs
    attrs = _attrs(op, *_CONV_ATTRS, "use_cudnn_on_gpu")
    dx = None if skipped(op, 0) else apply_op(
        "Conv2DBackpropInput", input_sizes=array_ops.shape(x), filter=grad, out_backprop=dy, **attrs
    )  # fmt: skip
    ddy = None if skipped(op, 2) else apply_op("Conv2D", input=x, filter=grad, **attrs)
    return [dx, None, ddy]


@RegisterGradient("DepthwiseConv2dNative")
def _depthwise_conv2d_grad(op: Any, grad: Any) -> list[Any]:
    x, w = op.inputs
    attrs = _attrs(op, *_CONV_ATTRS)
    dx = dw = None
    if not skipped(op, 0):
        dx = apply_op("DepthwiseConv2dNativeBackpropInput", input_sizes=array_ops.shape(x), filter=w,
                      out_backprop=grad, **attrs)  # fmt: skip
    if not skipped(op, 1):
        dw = apply_op("DepthwiseConv2dNativeBackpropFilter", input=x, filter_sizes=array_ops.shape(w),
                      out_backprop=grad, **attrs)  # fmt: skip
    return [dx, dw]


@RegisterGradient("DepthwiseConv2dNativeBackpropInput")
def _depthwise_backprop_input_grad(op: Any, grad: Any) -> list[Any]:
    _, w, dy = op.inputs
    attrs = _attrs(op, *_CONV_ATTRS)
    dw = None if skipped(op, 1) else apply_op(
        "DepthwiseConv2dNativeBackpropFilter", input=grad, filter_sizes=array_ops.shape(w), out_backprop=dy, **attrs
    )  # fmt: skip
    ddy = None if skipped(op, 2) else apply_op("DepthwiseConv2dNative", input=grad, filter=w, **attrs)
    return [None, dw, ddy]


@RegisterGradient("DepthwiseConv2dNativeBackpropFilter")
def _depthwise_backprop_filter_grad(op: Any, grad: Any) -> list[Any]:
    x, _, dy = op.inputs
    attrs = _attrs(op, *_CONV_ATTRS)
    dx = None if skipped(op, 0) else apply_op(
        "DepthwiseConv2dNativeBackpropInput", input_sizes=array_ops.shape(x), filter=grad, out_backprop=dy, **attrs
    )  # fmt: skip
    ddy = None if skipped(op, 2) else apply_op("DepthwiseConv2dNative", input=x, filter=grad, **attrs)
    return [dx, None, ddy]


# --------------------------------------------------------------------------- pooling

_POOL_ATTRS = ("ksize", "strides", "padding", "data_format")


@RegisterGradient("AvgPool")
def _avg_pool_grad(op: Any, grad: Any) -> Any:
    return apply_op("AvgPoolGrad", orig_input_shape=array_ops.shape(op.inputs[0], out_type=dtypes.int32), grad=grad,
                    **_attrs(op, *_POOL_ATTRS))  # fmt: skip


@RegisterGradient("AvgPoolGrad")
def _avg_pool_grad_grad(op: Any, grad: Any) -> list[Any]:
    # AvgPoolGrad is linear in its gradient input, the adjoint of AvgPool: its own gradient is AvgPool. (The
    # shape input is int32: no gradient.)
    return [None, apply_op("AvgPool", value=grad, **_attrs(op, *_POOL_ATTRS))]


@RegisterGradient("MaxPool")
def _max_pool_grad(op: Any, grad: Any) -> Any:
    return apply_op("MaxPoolGrad", orig_input=op.inputs[0], orig_output=op.outputs[0], grad=grad,
                    **_attrs(op, *_POOL_ATTRS, "explicit_paddings"))  # fmt: skip


@RegisterGradient("MaxPoolGrad")
def _max_pool_grad_grad(op: Any, grad: Any) -> list[Any]:
    # The routing (argmax) is piecewise constant in the pooled input: only the routed gradient has a derivative,
    # which gathers ``grad`` at each window's maximum (MaxPoolGradGrad).
    x, y, _ = op.inputs
    gathered = apply_op("MaxPoolGradGrad", orig_input=x, orig_output=y, grad=grad, **_attrs(op, *_POOL_ATTRS))
    return [array_ops.zeros_like(x), array_ops.zeros_like(y), gathered]


@RegisterGradient("MaxPoolGradGrad")
def _max_pool_grad_grad_grad(op: Any, grad: Any) -> list[Any]:
    x, y, _ = op.inputs
    routed = apply_op("MaxPoolGrad", orig_input=x, orig_output=y, grad=grad, **_attrs(op, *_POOL_ATTRS))
    return [array_ops.zeros_like(x), array_ops.zeros_like(y), routed]


# --------------------------------------------------------------------------- batch normalization


def _fused_batch_norm_grad(op: Any, version: int, *grads: Any) -> list[Any]:
    """Gradients of x, scale and offset (TF's _BaseFusedBatchNormGrad): the op's saved batch statistics in
    training; in inference the population statistics, NCHW data transposed to NHWC around the backward op
    (TF's CPU kernel computes inference gradients in NHWC only)."""
    x, scale = op.inputs[0], op.inputs[1]
    grad_y = grads[0]
    epsilon = op.get_attr("epsilon")
    data_format = _attr(op, "data_format")
    is_training = op.get_attr("is_training")
    grad_op = "FusedBatchNormGradV3" if version == 3 else "FusedBatchNormGrad"
    extra = {"reserve_space_3": op.outputs[5]} if version == 3 else {}
    if is_training:
        outs = apply_op(grad_op, y_backprop=grad_y, x=x, scale=scale, reserve_space_1=op.outputs[3],
                        reserve_space_2=op.outputs[4], epsilon=epsilon, data_format=data_format,
                        is_training=is_training, **extra)  # fmt: skip
        return [outs[0], outs[1], outs[2], None, None]
    to_last = {"NCHW": [0, 2, 3, 1], "NCDHW": [0, 2, 3, 4, 1]}.get(data_format)
    if to_last is not None:
        x = array_ops.transpose(x, to_last)
        grad_y = array_ops.transpose(grad_y, to_last)
    target = "NHWC" if data_format in ("NCHW", "NHWC") else "NDHWC"
    outs = apply_op(grad_op, y_backprop=grad_y, x=x, scale=scale, reserve_space_1=op.inputs[3],
                    reserve_space_2=op.inputs[4], epsilon=epsilon, data_format=target, is_training=is_training,
                    **extra)  # fmt: skip
    dx = outs[0]
    if to_last is not None:
        dx = array_ops.transpose(dx, [0, len(to_last) - 1, *range(1, len(to_last) - 1)])
    return [dx, outs[1], outs[2], None, None]


@RegisterGradient("FusedBatchNorm")
def _fused_batch_norm_grad_v1(op: Any, *grads: Any) -> list[Any]:
    return _fused_batch_norm_grad(op, 1, *grads)


@RegisterGradient("FusedBatchNormV3")
def _fused_batch_norm_grad_v3(op: Any, *grads: Any) -> list[Any]:
    return _fused_batch_norm_grad(op, 3, *grads)


def _batch_norm_grad(grad_y: Any, x: Any, scale: Any, pop_mean: Any, pop_var: Any, epsilon: float,
                     data_format: str, is_training: bool) -> tuple[Any, Any, Any]:  # fmt: skip
    """A fused batch norm's x, scale and offset gradients written with differentiable ops (TF's _BatchNormGrad):
    what FusedBatchNormGrad computes, for its own gradient. Half types compute in float32."""
    x_dtype = x.dtype.base_dtype
    if x_dtype in (dtypes.float16, dtypes.bfloat16):
        x = math_ops.cast(x, dtypes.float32)
        grad_y = math_ops.cast(grad_y, dtypes.float32)
    channels_first = data_format in ("NCHW", "NCDHW")
    rank = 5 if data_format in ("NDHWC", "NCDHW") else 4
    axes = [0, *range(2, rank)] if channels_first else list(range(rank - 1))
    eps = array_ops.constant(epsilon, dtype=dtypes.float32)
    if channels_first:
        shape = [1, -1] + [1] * (rank - 2)
        scale = array_ops.reshape(scale, shape)
        if not is_training:
            pop_mean = array_ops.reshape(pop_mean, shape)
            pop_var = array_ops.reshape(pop_var, shape)
    grad_offset = math_ops.reduce_sum(grad_y, axes)
    if is_training:
        keep = channels_first
        mean_grad_y = math_ops.reduce_mean(grad_y, axes, keepdims=keep)
        mean_x = math_ops.reduce_mean(x, axes, keepdims=keep)
        var_x = math_ops.reduce_mean(math_ops.squared_difference(x, array_ops.stop_gradient(mean_x)), axes,
                                     keepdims=keep)  # fmt: skip
        grad_y_offset = math_ops.subtract(grad_y, mean_grad_y)
        x_offset = math_ops.subtract(x, mean_x)
        mean = math_ops.reduce_mean(math_ops.multiply(grad_y, x_offset), axes, keepdims=keep)
        rsqrt = math_ops.rsqrt(math_ops.add(var_x, eps))
        correction = math_ops.multiply(math_ops.multiply(math_ops.reciprocal(math_ops.add(var_x, eps)), mean), x_offset)
        grad_x = math_ops.multiply(math_ops.multiply(scale, rsqrt), math_ops.subtract(grad_y_offset, correction))
        grad_scale = math_ops.multiply(
            rsqrt, math_ops.reduce_sum(math_ops.multiply(grad_y, x_offset), axes, keepdims=keep)
        )
        if channels_first:
            grad_scale = array_ops.squeeze(grad_scale)
    else:
        rsqrt = math_ops.rsqrt(math_ops.add(pop_var, eps))
        grad_scale = math_ops.reduce_sum(
            math_ops.multiply(math_ops.multiply(grad_y, math_ops.subtract(x, pop_mean)), rsqrt), axes
        )
        grad_x = math_ops.multiply(math_ops.multiply(grad_y, scale), rsqrt)
    return math_ops.cast(grad_x, x_dtype), grad_scale, grad_offset


def _fused_batch_norm_grad_grad(op: Any, *grads: Any) -> list[Any]:
    """Gradients of (y_backprop, x, scale) of a FusedBatchNormGrad: the composite's, through a nested tape."""
    from modtensor.api.backprop import GradientTape

    grad_y, x, scale, pop_mean, pop_var = op.inputs[:5]
    epsilon = op.get_attr("epsilon")
    data_format = _attr(op, "data_format")
    is_training = op.get_attr("is_training")
    with GradientTape() as tape:
        tape.watch(grad_y)
        tape.watch(x)
        tape.watch(scale)
        outputs = _batch_norm_grad(grad_y, x, scale, pop_mean, pop_var, epsilon, data_format, is_training)
    initial = list(grads[:3])
    d_grad_y, d_x, d_scale = tape.gradient(list(outputs), [grad_y, x, scale], output_gradients=initial)
    return [d_grad_y, d_x, d_scale, None, None]


@RegisterGradient("FusedBatchNormGrad")
def _fused_batch_norm_grad_grad_v1(op: Any, *grads: Any) -> list[Any]:
    return _fused_batch_norm_grad_grad(op, *grads)


@RegisterGradient("FusedBatchNormGradV3")
def _fused_batch_norm_grad_grad_v3(op: Any, *grads: Any) -> list[Any]:
    return [*_fused_batch_norm_grad_grad(op, *grads), None]
