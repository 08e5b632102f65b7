"""``modtensor.nn``: TensorFlow's ``tf.nn`` names (activations, softmax, convolution, pooling)."""

from modtensor.api.losses import (
    l2_loss,
    sigmoid_cross_entropy_with_logits,
    softmax_cross_entropy_with_logits,
    sparse_softmax_cross_entropy_with_logits,
)
from modtensor.api.math_ops import sigmoid, tanh
from modtensor.api.nn_impl import batch_normalization, dropout, moments
from modtensor.api.nn_ops import (
    avg_pool,
    avg_pool2d,
    bias_add,
    conv2d,
    depthwise_conv2d,
    elu,
    gelu,
    leaky_relu,
    log_softmax,
    max_pool,
    max_pool2d,
    relu,
    relu6,
    softmax,
    softplus,
)
from modtensor.api.sort_ops import top_k

__all__ = [
    # moments, batch normalization, dropout, top_k (issue 13)
    "batch_normalization",
    "dropout",
    "moments",
    "top_k",
    "avg_pool",
    "avg_pool2d",
    "bias_add",
    "conv2d",
    "depthwise_conv2d",
    "elu",
    "gelu",
    "leaky_relu",
    "log_softmax",
    "max_pool",
    "max_pool2d",
    "relu",
    "relu6",
    "sigmoid",
    "softmax",
    "softplus",
    "tanh",
    # losses (api/losses.py)
    "l2_loss",
    "sigmoid_cross_entropy_with_logits",
    "softmax_cross_entropy_with_logits",
    "sparse_softmax_cross_entropy_with_logits",
]
