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

# tf.nn's everyday compositions (namespace-math work: api/nn_ops.py, api/nn_impl.py)
from modtensor.api.nn_impl import (  # noqa: E402
    l2_normalize,
    log_poisson_loss,
    separable_conv2d,
    silu,
    swish,
    weighted_cross_entropy_with_logits,
)
from modtensor.api.nn_ops import conv1d, conv2d_transpose, max_pool1d, with_space_to_batch  # noqa: E402

__all__ += [
    "conv1d",
    "conv2d_transpose",
    "l2_normalize",
    "log_poisson_loss",
    "max_pool1d",
    "separable_conv2d",
    "silu",
    "swish",
    "weighted_cross_entropy_with_logits",
    "with_space_to_batch",
]

# tf.nn's SELU and softsign activations (their own ops)
from modtensor.api.nn_ops import selu, softsign  # noqa: E402

__all__ += ["selu", "softsign"]

# tf.nn.in_top_k (api/counting_ops.py)
from modtensor.api.counting_ops import in_top_k  # noqa: E402

__all__ += ["in_top_k"]

# tf.nn.space_to_depth and depth_to_space (api/array_ops.py)
from modtensor.api.array_ops import depth_to_space, space_to_batch, space_to_depth  # noqa: E402

__all__ += ["depth_to_space", "space_to_batch", "space_to_depth"]

# tf.nn.embedding_lookup (api/embedding_ops.py)
from modtensor.api.embedding_ops import embedding_lookup  # noqa: E402

__all__ += ["embedding_lookup"]
__all__ += ["embedding_lookup_sparse"]  # noqa: F822 - loaded on first use (module __getattr__), with tf.sparse

# tf.nn.local_response_normalization / lrn (their own op, LRN)
from modtensor.api.nn_ops import local_response_normalization  # noqa: E402

lrn = local_response_normalization
__all__ += ["local_response_normalization", "lrn"]


def __getattr__(name: str) -> object:
    if name == "embedding_lookup_sparse":
        from modtensor.api.sparse_ops import embedding_lookup_sparse

        globals()[name] = embedding_lookup_sparse
        return embedding_lookup_sparse
    raise AttributeError(f"module 'modtensor.nn' has no attribute '{name}'")


def __dir__() -> list[str]:
    return sorted({*globals(), "embedding_lookup_sparse"})
