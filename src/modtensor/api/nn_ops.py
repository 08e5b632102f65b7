"""TF-named ``tf.nn`` wrappers: activations, softmax, ``bias_add``, convolutions and pooling over ``apply_op``.

Signatures, defaults and graphs follow TensorFlow 2 (``tf.nn.conv2d`` takes strides
as an int or a list of 1, 2 or 4 ints; ``softmax`` over a non-last axis transposes
that axis last and back, as TF does). TF has none of these at the top level, so
``__all__`` is empty; ``modtensor.nn`` exports them.
"""

from __future__ import annotations

import warnings
from collections.abc import Sized
from typing import Any

import numpy as np

from modtensor.api import array_ops, context
from modtensor.api import math_ops as math
from modtensor.api.array_ops import concat, rank, transpose
from modtensor.api.dispatch import apply_op
from modtensor.api.op_scope import constant_value, convert_to_tensor, is_tensor, op_scope
from modtensor.framework import dtypes, errors, tensor_shape
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
    args = (filters, strides, padding, explicit, data_format, dilations)
    if input_rank is None or input_rank <= 4:
        return _conv2d_op(input, *args, name=name)
    # several batch dims: folded into one around the Conv2D, as TF
    return _squeeze_batch_dims(input, lambda value: _conv2d_op(value, *args), inner_rank=3, name=name)


def _conv2d_op(
    value: Any,
    filters: Any,
    strides: list[int],
    padding: str,
    explicit: list[int],
    data_format: str,
    dilations: list[int],
    name: str | None = None,
) -> Tensor:
    """The ``Conv2D`` op as TF's Python calls it (``use_cudnn_on_gpu`` set)."""
    return apply_op(
        "Conv2D",
        name=name,
        input=value,
        filter=filters,
        strides=strides,
        padding=padding,
        use_cudnn_on_gpu=True,
        explicit_paddings=explicit,
        data_format=data_format,
        dilations=dilations,
    )


def _space_to_batch_base_paddings(filter_shape: Any, num_spatial_dims: int, rate: Any) -> Any:
    """The padding a SAME filter of ``filter_shape`` dilated by ``rate`` needs, the odd one at the end (as conv2d)."""
    filter_spatial_shape = filter_shape[:num_spatial_dims]
    pad_extra_shape = (filter_spatial_shape - 1) * rate
    pad_extra_start = pad_extra_shape // 2
    pad_extra_end = pad_extra_shape - pad_extra_start
    return array_ops.stack([[pad_extra_start[i], pad_extra_end[i]] for i in range(num_spatial_dims)])


def _space_to_batch_adjust(orig: Any, fill_value: int, spatial_dims: list[int]) -> Any:
    """``orig``'s rows (one per spatial dim) placed at ``spatial_dims - 1``, ``fill_value`` rows in the gaps
    (numbers when ``orig`` is known, else a ``concat``)."""
    fill_dims = orig.shape.as_list()[1:]
    known = constant_value(orig)
    source = known if known is not None else orig
    parts: list[Any] = []
    previous = 0
    i = 0
    while i < len(spatial_dims):
        start_i, start_dim = i, spatial_dims[i]
        if start_dim > 1:
            parts.append(np.full([start_dim - 1 - previous, *fill_dims], fill_value, dtype=orig.dtype.as_numpy_dtype))
        while i + 1 < len(spatial_dims) and spatial_dims[i + 1] == spatial_dims[i] + 1:
            i += 1
        parts.append(source[start_i : i + 1])
        previous = spatial_dims[i]
        i += 1
    return np.concatenate(parts) if known is not None else concat(parts, 0)


def with_space_to_batch(
    input: Any,  # noqa: A002
    dilation_rate: Any,
    padding: Any,
    op: Any,
    filter_shape: Any = None,
    spatial_dims: Any = None,
    data_format: str | None = None,
) -> Tensor:
    """``op`` (called as ``op(input, num_spatial_dims, padding)``) run on the input cut into ``dilation_rate``
    interleaved grids (``SpaceToBatchND``, ``op`` with VALID padding, ``BatchToSpaceND``): TF's form of a dilated
    window op. A rate of all ones calls ``op`` directly."""
    input = convert_to_tensor(input, name="input")
    input_shape = input.shape
    dilation_rate = convert_to_tensor(dilation_rate, dtype=dtypes.int32, name="dilation_rate")
    if dilation_rate.shape.rank not in (None, 1):
        raise ValueError(
            f"`dilation_rate.shape.rank` must be 1. Received: dilation_rate={dilation_rate} of rank "
            f"{dilation_rate.shape.rank}"
        )
    if not dilation_rate.shape.is_fully_defined():
        raise ValueError(
            f"`dilation_rate.shape` must be fully defined. Received: dilation_rate={dilation_rate} with shape "
            f"{dilation_rate.shape}"
        )
    num_spatial_dims = dilation_rate.shape.as_list()[0]
    channels_first = data_format is not None and data_format.startswith("NC")
    first_spatial = 2 if channels_first else 1
    if spatial_dims is None:
        spatial_dims = range(first_spatial, num_spatial_dims + first_spatial)
    requested = list(spatial_dims)
    spatial_dims = sorted({int(x) for x in requested})
    if spatial_dims != requested or any(x < 1 for x in spatial_dims):
        raise ValueError(
            "`spatial_dims` must be a monotonically increasing sequence of positive integers. Received: "
            f"spatial_dims={requested}"
        )
    expected_rank = spatial_dims[-1] if channels_first else spatial_dims[-1] + 1
    if input_shape.rank is not None and input_shape.rank < expected_rank:
        raise ValueError(
            f"`input.shape.rank` must be at least {expected_rank}. Received: input.shape={input_shape} with rank "
            f"{input_shape.rank}"
        )
    rate: Any = dilation_rate
    const_rate = constant_value(dilation_rate)
    if const_rate is not None:
        rate = const_rate
        if np.any(const_rate < 1):
            raise ValueError(f"`dilation_rate` must be positive. Received: dilation_rate={const_rate}")
        if np.all(const_rate == 1):
            return op(input, num_spatial_dims, padding)
    padding, explicit = _convert_padding(padding)
    if padding == "SAME":
        if filter_shape is None:
            raise ValueError(
                f"`filter_shape` must be specified for `padding='SAME'`. Received: filter_shape={filter_shape} and "
                f"padding={padding}"
            )
        filter_shape = convert_to_tensor(filter_shape, name="filter_shape")
        const_filter_shape = constant_value(filter_shape)
        source = const_filter_shape if const_filter_shape is not None else filter_shape
        base_paddings: Any = _space_to_batch_base_paddings(source, num_spatial_dims, rate)
    elif padding == "VALID":
        base_paddings = np.zeros([num_spatial_dims, 2], np.int32)
    elif padding == "EXPLICIT":
        pairs = np.array(explicit).reshape([num_spatial_dims + 2, 2])
        base_paddings = pairs[2:] if channels_first else pairs[1:-1]
    else:
        raise ValueError(f"`padding` must be one of 'SAME' or 'VALID'. Received: padding={padding}")
    known_dims = input_shape.as_list() if input_shape.rank is not None else None
    spatial_shape: Any = None if known_dims is None else [known_dims[i] for i in spatial_dims]
    if spatial_shape is None or None in spatial_shape:
        shape_tensor = array_ops.shape(input)
        spatial_shape = array_ops.stack([shape_tensor[i] for i in spatial_dims])
    paddings, crops = array_ops.required_space_to_batch_paddings(
        input_shape=spatial_shape, base_paddings=base_paddings, block_shape=dilation_rate
    )
    block_shape = _space_to_batch_adjust(dilation_rate, 1, spatial_dims)
    paddings = _space_to_batch_adjust(paddings, 0, spatial_dims)
    crops = _space_to_batch_adjust(crops, 0, spatial_dims)
    converted = array_ops.space_to_batch_nd(input=input, block_shape=block_shape, paddings=paddings)
    result = op(converted, num_spatial_dims, "VALID")
    return array_ops.batch_to_space(result, block_shape, crops)


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

    ``strides`` is a list of 4 ints; ``dilations`` (rate) a list of 2. As TF, a dilated call runs the op on the
    input cut into interleaved grids (:func:`with_space_to_batch`); with strides as well TF warns and so does this.
    """
    with op_scope(name, "depthwise", [input, filter]) as scope:
        input = convert_to_tensor(input, name="tensor_in")
        filter = convert_to_tensor(filter, name="filter_in")
        rate = [1, 1] if dilations is None else dilations
        _warn_dilated_strides(rate, strides)
        return depthwise_on_grids(input, filter, strides, padding, rate, data_format, scope)


def depthwise_on_grids(
    input: Any,  # noqa: A002
    filter: Any,  # noqa: A002
    strides: Any,
    padding: Any,
    rate: Any,
    data_format: str | None,
    name: str,
) -> Tensor:
    """``DepthwiseConv2dNative`` (named ``name``) through :func:`with_space_to_batch`: TF's dilated depthwise step
    of ``depthwise_conv2d`` and ``separable_conv2d`` (the filter's shape gives the SAME padding)."""

    def native(value: Any, _: int, pad: Any) -> Tensor:
        return depthwise_conv2d_native(value, filter, strides, pad, data_format=data_format, name=name)

    return with_space_to_batch(input, rate, padding, native, filter_shape=array_ops.shape(filter),
                               data_format=data_format)  # fmt: skip


def _warn_dilated_strides(rate: Any, strides: Any) -> None:
    """TF's warning for a dilated depthwise convolution with strides (it runs, the strides apply to each grid)."""
    if any(r > 1 for r in rate) and any(s != 1 for s in strides):
        warnings.warn(
            "When dilation rate is greater than 1, then all values of strides must be 1. Received: "
            f"`dilation rate` {rate} and `strides` {strides}",
            stacklevel=3,
        )


def depthwise_conv2d_native(
    input: Any,  # noqa: A002
    filter: Any,  # noqa: A002
    strides: Any,
    padding: Any,
    data_format: str | None = None,
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """The ``DepthwiseConv2dNative`` op (``padding`` a string or TF's list of explicit pairs)."""
    padding, explicit = _convert_padding(padding)
    attrs: dict[str, Any] = {}
    if data_format is not None:
        attrs["data_format"] = data_format
    if dilations is not None:
        attrs["dilations"] = list(dilations)
    return apply_op(
        "DepthwiseConv2dNative",
        name=name,
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
        padding, explicit = _convert_padding(padding)
        args = (filters, strides, padding, explicit, data_format, dilations)
        if input.shape.rank in (4, 3, 2, 1, 0, None):
            result = _conv2d_op(input, *args, name=scope)
        else:  # several batch dims: folded into one around the Conv2D, as TF
            result = _squeeze_batch_dims(input, lambda value: _conv2d_op(value, *args), inner_rank=3, name=scope)
        return squeeze(result, [spatial_start_dim])


def _squeeze_batch_dims(inp: Any, op: Any, inner_rank: int, name: str | None = None) -> Tensor:
    """``op`` on ``inp`` with its batch dims (all but the last ``inner_rank``) folded into one, unfolded after
    (TF's ``squeeze_batch_dims``: ``Reshape``, ``op``, ``Reshape`` to the batch dims + the op's inner dims)."""
    with op_scope(name, "squeeze_batch_dims", [inp]):
        inp = convert_to_tensor(inp, name="input")
        shape = inp.shape
        inner_shape: Any = shape[-inner_rank:]
        if not inner_shape.is_fully_defined():
            inner_shape = array_ops.shape(inp)[-inner_rank:]
        batch_shape: Any = shape[:-inner_rank]
        if not batch_shape.is_fully_defined():
            batch_shape = array_ops.shape(inp)[:-inner_rank]
        if isinstance(inner_shape, tensor_shape.TensorShape):
            inp_reshaped = array_ops.reshape(inp, [-1, *inner_shape.as_list()])
        else:
            inp_reshaped = array_ops.reshape(inp, concat(([-1], inner_shape), axis=-1))
        out_reshaped = op(inp_reshaped)
        out_inner_shape: Any = out_reshaped.shape[-inner_rank:]
        if not out_inner_shape.is_fully_defined():
            out_inner_shape = array_ops.shape(out_reshaped)[-inner_rank:]
        out = array_ops.reshape(out_reshaped, concat((batch_shape, out_inner_shape), axis=-1))
        out.set_shape(inp.shape[:-inner_rank].concatenate(out.shape[-inner_rank:]))
        return out


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
