"""TF-named ``tf.nn`` wrappers: activations, softmax, ``bias_add``, convolutions and pooling over ``apply_op``.

Signatures, defaults and graphs follow TensorFlow 2 (``tf.nn.conv2d`` takes strides
as an int or a list of 1, 2 or 4 ints; ``softmax`` over a non-last axis transposes
that axis last and back, as TF does). TF has none of these at the top level, so
``__all__`` is empty; ``modtensor.nn`` exports them.
"""

from __future__ import annotations

from collections.abc import Sized
from typing import Any

import numpy as np

from modtensor.api import context
from modtensor.api import math_ops as math
from modtensor.api.array_ops import concat, rank, transpose
from modtensor.api.dispatch import apply_op
from modtensor.api.op_scope import constant_value, convert_to_tensor, is_tensor, op_scope
from modtensor.framework import dtypes, errors
from modtensor.framework import graph as _graph_lib
from modtensor.framework.graph import SymbolicTensor
from modtensor.framework.tensor import Tensor
from modtensor.runtime import context as _runtime_context
from modtensor.runtime.eager import EagerTensor, run_cached1

_graph_stack = _graph_lib._default_graph_stack
_run_cached1 = run_cached1

__all__: list[str] = []

# --------------------------------------------------------------------------- activations


def relu(features: Any, name: str | None = None) -> Tensor:
    """``max(features, 0)`` (``Relu``)."""
    if type(features) is EagerTensor and _runtime_context._eager_enabled and not _graph_stack():
        out = _run_cached1("Relu", (), features, name)  # eager hot path: the cached kernel, no kwargs
        if out is not None:
            return out
    return apply_op("Relu", name=name, features=features)


def relu6(features: Any, name: str | None = None) -> Tensor:
    """``min(max(features, 0), 6)`` (``Relu6``)."""
    with op_scope(name, "Relu6", [features]) as scope:
        features = convert_to_tensor(features, name="features")
        return apply_op("Relu6", name=scope, features=features)


def elu(features: Any, name: str | None = None) -> Tensor:
    """``features`` where positive, else ``exp(features) - 1`` (``Elu``)."""
    return apply_op("Elu", name=name, features=features)


def leaky_relu(features: Any, alpha: float = 0.2, name: str | None = None) -> Tensor:
    """``features`` where positive, else ``alpha * features`` (``LeakyRelu``; integers are cast to float32)."""
    with op_scope(name, "LeakyRelu", [features, alpha]) as scope:
        features = convert_to_tensor(features, name="features")
        if features.dtype.is_integer:
            features = math.cast(features, dtypes.float32)
        if isinstance(alpha, np.ndarray):
            alpha = alpha.item()
        return apply_op("LeakyRelu", name=scope, features=features, alpha=alpha)


def softplus(features: Any, name: str | None = None) -> Tensor:
    """``log(exp(features) + 1)`` (``Softplus``)."""
    return apply_op("Softplus", name=name, features=features)


def selu(features: Any, name: str | None = None) -> Tensor:
    """Scaled exponential linear unit (``Selu``)."""
    return apply_op("Selu", name=name, features=features)


def softsign(features: Any, name: str | None = None) -> Tensor:
    """``features / (|features| + 1)`` (``Softsign``); also ``tf.math.softsign``."""
    return apply_op("Softsign", name=name, features=features)


def local_response_normalization(
    input: Any,  # noqa: A002  (TF's arg name)
    depth_radius: int = 5,
    bias: float = 1.0,
    alpha: float = 1.0,
    beta: float = 0.5,
    name: str | None = None,
) -> Tensor:
    """Each value divided by the (scaled) sum of squares over its depth window (``LRN``); also ``tf.nn.lrn``."""
    return apply_op("LRN", name=name, input=input, depth_radius=depth_radius, bias=bias, alpha=alpha, beta=beta)


def _scalar_times(op_type: str, scope_name: str, scalar: float, tensor: Tensor) -> Tensor:
    """``scalar <op> tensor`` as TF's reflected operators build it: the scalar is ``<scope>/x``, of tensor's dtype."""
    with op_scope(None, scope_name, [tensor]) as scope:
        x = convert_to_tensor(scalar, dtype=tensor.dtype.base_dtype, name="x")
        return apply_op(op_type, name=scope, x=x, y=tensor)


def gelu(features: Any, approximate: bool = False, name: str | None = None) -> Tensor:
    """Gaussian error linear unit: ``0.5 * x * erfc(-x / sqrt(2))``, or TF's tanh approximation."""
    with op_scope(name, "Gelu", [features]):
        features = convert_to_tensor(features, name="features")
        if not features.dtype.is_floating:
            raise ValueError(
                f"`features.dtype` must be a floating point tensor.Received:features.dtype={features.dtype}"
            )
        if approximate:
            coeff = math.cast(0.044715, features.dtype)
            half = _scalar_times("Mul", "mul", 0.5, features)
            cubic = math.multiply(coeff, math.pow(features, 3), name="mul")
            inner = _scalar_times("Mul", "mul", 0.7978845608028654, math.add(features, cubic, name="add"))
            one_plus = _scalar_times("AddV2", "add", 1.0, math.tanh(inner))
            return math.multiply(half, one_plus, name="mul")
        half = _scalar_times("Mul", "mul", 0.5, features)
        scaled = math.multiply(math.negative(features), math.cast(0.7071067811865476, features.dtype), name="mul")
        return math.multiply(half, math.erfc(scaled), name="mul")


def _swap_axis(value: Tensor, dim_index: Any, last_index: Tensor, name: str | None = None) -> Tensor:
    """Transpose ``value`` so that dims ``dim_index`` and ``last_index`` trade places (perm built in the graph)."""
    perm = concat(
        [
            math.range(dim_index),
            [last_index],
            math.range(math.add(dim_index, 1, name="add") if is_tensor(dim_index) else dim_index + 1, last_index),
            [dim_index],
        ],
        0,
    )
    return transpose(value, perm, name=name or "transpose")


def _wrap_2d_function(inputs: Any, op_type: str, dim: Any, name: str | None) -> Tensor:
    """TF's ``_wrap_2d_function``: run a last-axis op over axis ``dim`` by moving that axis last and back.

    A tensor ``dim`` must have a value known before running (TF also accepts a
    computed one; modtensor then asks for a python int).
    """
    inputs = convert_to_tensor(inputs)
    shape = inputs.shape
    if is_tensor(dim):
        value = constant_value(dim)
        if value is None:
            raise NotImplementedError(f"{op_type} over a computed axis tensor is not implemented; pass a python int")
        dim = int(value)
    if dim == -1 or (shape.rank is not None and dim == shape.rank - 1):
        return apply_op(op_type, name=name, logits=inputs)
    if shape.rank is None:
        raise NotImplementedError(f"{op_type} over axis {dim} of a tensor of unknown rank is not implemented")
    if not -shape.rank <= dim < shape.rank:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"`dim` must be in the range [{-shape.rank}, {shape.rank}) where {shape.rank} is the number of "
            f"dimensions in the input. Received: dim={dim}",
        )
    ndims = rank(inputs)
    dim_axis: Any = dim
    if dim < 0:
        # TF adds the rank as a tensor, so the axis becomes a (constant-foldable) graph value.
        dim_axis = math.floormod(math.add(dim, ndims, name="add"), shape.rank, name="mod")
    input_rank = rank(inputs)
    inputs = _swap_axis(inputs, dim_axis, math.subtract(input_rank, 1))
    output = apply_op(op_type, logits=inputs)
    output = _swap_axis(output, dim_axis, math.subtract(input_rank, 1), name=name)
    if isinstance(output, SymbolicTensor):
        output.set_shape(shape)
    return output


def softmax(logits: Any, axis: Any = None, name: str | None = None) -> Tensor:
    """``exp(logits) / reduce_sum(exp(logits), axis)`` over ``axis`` (default last) (``Softmax``)."""
    return _wrap_2d_function(logits, "Softmax", -1 if axis is None else axis, name)


def log_softmax(logits: Any, axis: Any = None, name: str | None = None) -> Tensor:
    """``logits - log(reduce_sum(exp(logits), axis))`` over ``axis`` (default last) (``LogSoftmax``)."""
    return _wrap_2d_function(logits, "LogSoftmax", -1 if axis is None else axis, name)


def bias_add(value: Any, bias: Any, data_format: str | None = None, name: str | None = None) -> Tensor:
    """``value + bias`` with the 1-D ``bias`` along the channel dim (last for ``N...C``, 1 for ``NC...``)."""
    with op_scope(name, "BiasAdd", [value, bias]) as scope:
        if data_format is not None:
            if data_format.startswith("NC"):
                data_format = "NCHW"
            elif data_format.startswith("N") and data_format.endswith("C"):
                data_format = "NHWC"
            else:
                raise ValueError(
                    f"`data_format` must be of the form `N...C` or `NC...`. Received: data_format={data_format}"
                )
        if not context.executing_eagerly():
            value = convert_to_tensor(value, name="input")
            bias = convert_to_tensor(bias, dtype=value.dtype, name="bias")
        attrs = {} if data_format is None else {"data_format": data_format}
        return apply_op("BiasAdd", name=scope, value=value, bias=bias, **attrs)


# --------------------------------------------------------------------------- convolution and pooling


def _get_sequence(value: Any, n: int, channel_index: int, name: str) -> list[int]:
    """TF's ``_get_sequence``: an int or a list of 1, ``n`` or ``n + 2`` ints as the ``n + 2`` per-dim list."""
    if value is None:
        return [1] * (n + 2)
    if isinstance(value, list):
        pass
    elif isinstance(value, (tuple, Sized)) and not isinstance(value, str):
        value = list(value)
    else:
        value = [value]
    if len(value) == n + 2:
        return value
    if len(value) == 1:
        value = value * n
    elif len(value) != n:
        raise ValueError(
            f"{name} should be of length 1, {n} or {n + 2}. Received: {name}={value} of length {len(value)}"
        )
    return [1, 1, *value] if channel_index == 1 else [1, *value, 1]


def _convert_padding(padding: Any, expected_length: int = 4) -> tuple[Any, list[int]]:
    """TF's ``convert_padding``: a list of ``[before, after]`` pairs means ``EXPLICIT`` padding."""
    explicit: list[int] = []
    if padding == "EXPLICIT":
        raise ValueError(
            "'EXPLICIT' is not a valid value for `padding`. To use explicit padding, `padding` must be a list."
        )
    if isinstance(padding, (list, tuple)):
        for i, pair in enumerate(padding):
            if not isinstance(pair, (list, tuple)):
                raise ValueError(
                    "When `padding` is a list, each element of `padding` must be a list/tuple of size 2. Received: "
                    f"padding={padding} with element at index {i} of type {type(pair)}"
                )
            if len(pair) != 2:
                raise ValueError(
                    "When `padding` is a list, each element of `padding` must be a list/tuple of size 2. Received: "
                    f"padding={padding} with element at index {i} of size {len(pair)}"
                )
            explicit.extend(pair)
        if len(padding) != expected_length:
            raise ValueError(
                f"When padding is a list, it must be of size {expected_length}. Received: padding={padding} of "
                f"size {len(padding)}"
            )
        padding = "EXPLICIT"
    return padding, explicit


def conv2d(
    input: Any,
    filters: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """2-D convolution of NHWC/NCHW ``input`` with ``[h, w, in, out]`` ``filters`` (``Conv2D``).

    ``padding`` is "SAME", "VALID" or a list of 4 ``[before, after]`` pairs; ``strides``
    and ``dilations`` an int or a list of 1, 2 or 4 ints.
    """
    padding, explicit = _convert_padding(padding)
    if data_format is None:
        data_format = "NHWC"
    channel_index = 1 if data_format.startswith("NC") else 3
    strides = _get_sequence(strides, 2, channel_index, "strides")
    dilations = _get_sequence(dilations, 2, channel_index, "dilations")
    input_rank = input.shape.rank if is_tensor(input) else np.ndim(input)
    if input_rank is not None and input_rank > 4:
        raise NotImplementedError("conv2d of inputs with more than one batch dimension is not implemented yet")
    return apply_op(
        "Conv2D",
        name=name,
        input=input,
        filter=filters,
        strides=strides,
        padding=padding,
        use_cudnn_on_gpu=True,
        explicit_paddings=explicit,
        data_format=data_format,
        dilations=dilations,
    )


def depthwise_conv2d(
    input: Any,
    filter: Any,
    strides: Any,
    padding: Any,
    data_format: str | None = None,
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """Depthwise 2-D convolution: each input channel with its own ``[h, w, in, multiplier]`` filters.

    ``strides`` is a list of 4 ints; ``dilations`` (rate) a list of 2. TF rewrites a
    dilated call with space-to-batch ops; modtensor sets the op's ``dilations`` attr
    instead (same numbers).
    """
    with op_scope(name, "depthwise", [input, filter]) as scope:
        input = convert_to_tensor(input, name="tensor_in")
        filter = convert_to_tensor(filter, name="filter_in")
        rate = [1, 1] if dilations is None else list(dilations)
        if any(r < 1 for r in rate):
            raise ValueError(f"`dilation_rate` must be positive. Received: dilation_rate={np.asarray(rate)}")
        attrs: dict[str, Any] = {}
        if data_format is not None:
            attrs["data_format"] = data_format
        if any(r != 1 for r in rate):
            attrs["dilations"] = [1, 1, *rate] if (data_format or "NHWC").startswith("NC") else [1, *rate, 1]
        padding, explicit = _convert_padding(padding)
        return apply_op(
            "DepthwiseConv2dNative",
            name=scope,
            input=input,
            filter=filter,
            strides=list(strides),
            padding=padding,
            explicit_paddings=explicit,
            **attrs,
        )


def max_pool2d(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    name: str | None = None,
) -> Tensor:
    """Max pooling over 2-D windows ``ksize`` moved by ``strides`` (int or list of 1, 2 or 4) (``MaxPool``)."""
    with op_scope(name, "MaxPool2d", [input]) as scope:
        if data_format is None:
            data_format = "NHWC"
        channel_index = 1 if data_format.startswith("NC") else 3
        ksize = _get_sequence(ksize, 2, channel_index, "ksize")
        strides = _get_sequence(strides, 2, channel_index, "strides")
        if isinstance(padding, (list, tuple)) and data_format == "NCHW_VECT_C":
            raise ValueError(
                f"`data_format='NCHW_VECT_C'` is not supported with explicit padding. Received: padding={padding}"
            )
        padding, explicit = _convert_padding(padding)
        return apply_op(
            "MaxPool",
            name=scope,
            input=input,
            ksize=ksize,
            strides=strides,
            padding=padding,
            explicit_paddings=explicit,
            data_format=data_format,
        )


def avg_pool2d(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: str,
    data_format: str = "NHWC",
    name: str | None = None,
) -> Tensor:
    """Average pooling over 2-D windows (padding cells are not counted) (``AvgPool``)."""
    with op_scope(name, "AvgPool2D", [input]) as scope:
        if data_format is None:
            data_format = "NHWC"
        channel_index = 1 if data_format.startswith("NC") else 3
        ksize = _get_sequence(ksize, 2, channel_index, "ksize")
        strides = _get_sequence(strides, 2, channel_index, "strides")
        return apply_op(
            "AvgPool", name=scope, value=input, ksize=ksize, strides=strides, padding=padding, data_format=data_format
        )


def _pool_rank(input: Any, data_format: str | None, what: str) -> int:
    static = input.shape.rank if is_tensor(input) else np.ndim(input)
    if static is not None:
        n = static - 2
    elif data_format is not None:
        n = len(data_format) - 2
    else:
        raise ValueError(
            f"`input` must have a static shape or `data_format` must be given. Received: input.shape="
            f"{getattr(input, 'shape', None)} and data_format={data_format}"
        )
    if not 1 <= n <= 3:
        raise ValueError(
            f"`input.shape.rank` must be 3, 4 or 5. Received: input.shape={getattr(input, 'shape', None)} of rank "
            f"{n + 2}."
        )
    if n != 2:
        raise NotImplementedError(f"{what} of {n}-D windows is not implemented yet (only 2-D: rank-4 inputs)")
    return n


def max_pool(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str | None = None,
    name: str | None = None,
) -> Tensor:
    """``tf.nn.max_pool``: :func:`max_pool2d` for rank-4 inputs (1-D and 3-D windows are not implemented)."""
    _pool_rank(input, data_format, "max_pool")
    return max_pool2d(input, ksize, strides, padding, data_format=data_format or "NHWC", name=name)


def avg_pool(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: str,
    data_format: str | None = None,
    name: str | None = None,
) -> Tensor:
    """``tf.nn.avg_pool``: ``AvgPool`` for rank-4 inputs (1-D and 3-D windows are not implemented)."""
    n = _pool_rank(input, data_format, "avg_pool")
    channel_index = n + 1 if data_format is None else (1 if data_format.startswith("NC") else n + 1)
    ksize = _get_sequence(ksize, n, channel_index, "ksize")
    strides = _get_sequence(strides, n, channel_index, "strides")
    attrs = {} if data_format is None else {"data_format": data_format}
    return apply_op("AvgPool", name=name, value=input, ksize=ksize, strides=strides, padding=padding, **attrs)



# --------------------------------------------------------------------------- 1-D convolution and pooling, transpose


def conv1d(
    input: Any,
    filters: Any,
    stride: Any,
    padding: Any,
    data_format: str = "NWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """1-D convolution as TF builds it: ``ExpandDims`` of input and filters, ``Conv2D``, ``Squeeze``."""
    from modtensor.api.array_ops import expand_dims, squeeze

    with op_scope(name, "conv1d", [input, filters]) as scope:
        if data_format is None or data_format in ("NHWC", "NWC"):
            data_format, spatial_start_dim, channel_index = "NHWC", -3, 2
        elif data_format in ("NCHW", "NCW"):
            data_format, spatial_start_dim, channel_index = "NCHW", -2, 1
        else:
            raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={data_format}")
        strides = [1, *_get_sequence(stride, 1, channel_index, "stride")]
        dilations = [1, *_get_sequence(dilations, 1, channel_index, "dilations")]
        input = expand_dims(input, spatial_start_dim)
        filters = expand_dims(filters, 0)
        if input.shape.rank not in (4, 3, 2, 1, 0, None):
            raise NotImplementedError("conv1d of inputs with more than one batch dimension is not implemented yet")
        padding, explicit = _convert_padding(padding)
        result = apply_op(
            "Conv2D",
            name=scope,
            input=input,
            filter=filters,
            strides=strides,
            padding=padding,
            use_cudnn_on_gpu=True,
            explicit_paddings=explicit,
            data_format=data_format,
            dilations=dilations,
        )
        return squeeze(result, [spatial_start_dim])


def conv2d_transpose(
    input: Any,
    filters: Any,
    output_shape: Any,
    strides: Any,
    padding: Any = "SAME",
    data_format: str = "NHWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """The gradient of ``conv2d`` with respect to its input (``Conv2DBackpropInput``), TF's "deconvolution"."""
    with op_scope(name, "conv2d_transpose", [input, filters, output_shape]) as scope:
        if data_format is None:
            data_format = "NHWC"
        channel_index = 1 if data_format.startswith("NC") else 3
        strides = _get_sequence(strides, 2, channel_index, "strides")
        dilations = _get_sequence(dilations, 2, channel_index, "dilations")
        padding, explicit = _convert_padding(padding)
        return apply_op(
            "Conv2DBackpropInput",
            name=scope,
            input_sizes=output_shape,
            filter=filters,
            out_backprop=input,
            strides=strides,
            padding=padding,
            explicit_paddings=explicit,
            data_format=data_format,
            dilations=dilations,
        )


def max_pool1d(
    input: Any, ksize: Any, strides: Any, padding: Any, data_format: str = "NWC", name: str | None = None
) -> Tensor:
    """Max pooling over 1-D windows as TF builds it: ``ExpandDims``, ``MaxPool``, ``Squeeze``."""
    from modtensor.api.array_ops import expand_dims, squeeze

    with op_scope(name, "MaxPool1d", [input]) as scope:
        if isinstance(padding, (list, tuple)) and data_format == "NCHW_VECT_C":
            raise ValueError(
                f"`data_format='NCHW_VECT_C'` is not supported with explicit padding. Received: padding={padding}"
            )
        if data_format is None:
            data_format = "NWC"
        channel_index = 1 if data_format.startswith("NC") else 2
        ksize = [1, *_get_sequence(ksize, 1, channel_index, "ksize")]
        strides = [1, *_get_sequence(strides, 1, channel_index, "strides")]
        padding, explicit = _convert_padding(padding, 3)
        if padding == "EXPLICIT":
            explicit = [0, 0, *explicit]
        expanding_dim = 1 if data_format == "NWC" else 2
        data_format = "NHWC" if data_format == "NWC" else "NCHW"
        input = expand_dims(input, expanding_dim)
        result = apply_op(
            "MaxPool",
            name=scope,
            input=input,
            ksize=ksize,
            strides=strides,
            padding=padding,
            explicit_paddings=explicit,
            data_format=data_format,
        )
        return squeeze(result, expanding_dim)


sigmoid = math.sigmoid
tanh = math.tanh
