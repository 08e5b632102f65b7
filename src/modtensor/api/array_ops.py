"""TF-named array wrappers (``tf.reshape``, ``tf.concat``, ``tf.zeros``, ``tf.gather``, ``tf.where``, ...).

Each function has TensorFlow 2's signature, defaults and semantics and builds the
graph TF builds for the same call, including TF's graph-mode shortcuts: ``tf.shape``,
``tf.size`` and ``tf.rank`` of statically known shapes are constants, and ``tf.zeros``/
``tf.ones`` of fewer than 1000 elements are one ``Const``. ``__all__`` lists TF's
top-level names.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.api import context
from modtensor.api.dispatch import apply_op
from modtensor.api.op_scope import constant, constant_value, convert_to_tensor, is_tensor, op_scope
from modtensor.framework import dtypes, tensor_shape
from modtensor.framework.graph import SymbolicTensor
from modtensor.framework.tensor import Tensor

__all__ = [
    "batch_to_space",
    "boolean_mask",
    "meshgrid",
    "required_space_to_batch_paddings",
    "roll",
    "sequence_mask",
    "space_to_batch",
    "space_to_batch_nd",
    "unravel_index",
    "concat",
    "expand_dims",
    "fill",
    "gather",
    "identity",
    "identity_n",
    "one_hot",
    "ones",
    "ones_like",
    "pad",
    "rank",
    "reshape",
    "shape",
    "shape_n",
    "size",
    "slice",
    "squeeze",
    "stack",
    "stop_gradient",
    "strided_slice",
    "tile",
    "transpose",
    "unstack",
    "where",
    "zeros",
    "zeros_like",
]


def _graph_mode() -> bool:
    return not context.executing_eagerly()


# --------------------------------------------------------------------------- shape queries


def shape(input: Any, out_type: Any = None, name: str | None = None) -> Tensor:
    """The shape of ``input`` as a 1-D ``out_type`` (int32) tensor; a constant when statically known in a graph."""
    out_type = dtypes.int32 if out_type is None else dtypes.as_dtype(out_type)
    with op_scope(name, "Shape", [input]) as scope:
        if _graph_mode():
            input = convert_to_tensor(input)
            if input.shape.is_fully_defined():
                return constant(input.shape.as_list(), out_type, name=scope)
        return apply_op("Shape", name=scope, input=input, out_type=out_type)


def shape_internal(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """TF's ``array_ops.shape_internal`` (no ``out_type``): a fully known graph shape is ``Shape/shape_as_tensor``."""
    with op_scope(name, "Shape", [input]) as scope:
        if _graph_mode():
            input = convert_to_tensor(input)
            if input.shape.is_fully_defined():
                return _shape_as_tensor(input.shape)
        return apply_op("Shape", name=scope, input=input, out_type=dtypes.int32)


def shape_n(input: Any, out_type: Any = dtypes.int32, name: str | None = None) -> list[Tensor]:
    """The shapes of the tensors of ``input`` as 1-D ``out_type`` tensors, by one ``ShapeN`` op."""
    return list(apply_op("ShapeN", name=name, input=list(input), out_type=out_type))


def size(input: Any, out_type: Any = None, name: str | None = None) -> Tensor:
    """The number of elements of ``input`` as a 0-D ``out_type`` (int32) tensor."""
    out_type = dtypes.int32 if out_type is None else dtypes.as_dtype(out_type)
    if context.executing_eagerly() and not isinstance(input, SymbolicTensor):
        input = convert_to_tensor(input)
        count = np.prod(input.shape.as_list(), dtype=out_type.as_numpy_dtype)
        return convert_to_tensor(count.item(), dtype=out_type)
    with op_scope(name, "Size", [input]) as scope:
        input = convert_to_tensor(input)
        static = input.shape
        if static.is_fully_defined():
            return constant(static.num_elements(), out_type, name=scope)
        if static.rank is not None and any(d == 0 for d in static.as_list()):
            return constant(0, out_type, name=scope)
        return apply_op("Size", name=scope, input=input, out_type=out_type)


def rank(input: Any, name: str | None = None) -> Tensor:
    """The number of dimensions of ``input`` as a 0-D int32 tensor (a constant when known)."""
    with op_scope(name, "Rank", [input]) as scope:
        input = convert_to_tensor(input)
        if input.shape.rank is not None:
            return constant(input.shape.rank, dtypes.int32, name=scope)
        return apply_op("Rank", name=scope, input=input)


# --------------------------------------------------------------------------- reshaping


def reshape(tensor: Any, shape: Any, name: str | None = None) -> Tensor:
    """``tensor`` with the same elements in ``shape`` (one entry may be -1) (``Reshape``)."""
    return apply_op("Reshape", name=name, tensor=tensor, shape=shape)


def transpose(a: Any, perm: Any = None, conjugate: bool = False, name: str = "transpose") -> Tensor:
    """``a`` with its dimensions permuted by ``perm`` (default: reversed) (``Transpose``)."""
    with op_scope(name, "transpose", [a]) as scope:
        if not is_tensor(a):
            a = convert_to_tensor(a, name="a")
        if conjugate and a.dtype.is_complex:
            raise NotImplementedError(
                "transpose with conjugate=True of a complex tensor needs 'ConjugateTranspose', which modtensor "
                "does not implement yet"
            )
        if perm is None:
            static_rank = a.shape.rank
            if static_rank is None:
                from modtensor.api.math_ops import range as range_
                from modtensor.api.math_ops import subtract

                perm = range_(subtract(apply_op("Rank", input=a), 1, name="sub"), -1, -1, name="Range")
            else:
                perm = np.arange(static_rank - 1, -1, -1, dtype=np.int32)
        return apply_op("Transpose", name=scope, x=a, perm=perm)


def expand_dims(input: Any, axis: Any, name: str | None = None) -> Tensor:
    """``input`` with a new size-1 dimension at ``axis`` (``ExpandDims``)."""
    return apply_op("ExpandDims", name=name, input=input, dim=axis)


def squeeze(input: Any, axis: Any = None, name: str | None = None) -> Tensor:
    """``input`` without its size-1 dimensions (those in ``axis`` when given) (``Squeeze``)."""
    if np.isscalar(axis):
        axis = [axis]
    return apply_op("Squeeze", name=name, input=input, squeeze_dims=list(axis) if axis is not None else [])


# --------------------------------------------------------------------------- joining and splitting


def _convert_list_items(values: list[Any], arg_name: str) -> list[Any]:
    """List items that are lists holding tensors are packed first (``<arg>_<i>``), as TF's op helper does."""
    out = []
    for i, v in enumerate(values):
        if isinstance(v, (list, tuple)) and any(is_tensor(e) or isinstance(e, (list, tuple)) for e in v):
            v = convert_to_tensor(v, name=f"{arg_name}_{i}")
        out.append(v)
    return out


def concat(values: Any, axis: Any, name: str = "concat") -> Tensor:
    """``values`` joined along ``axis`` (``ConcatV2``; one value: an ``Identity``)."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    if len(values) == 1:
        with op_scope(name, name):
            axis_t = convert_to_tensor(axis, name="concat_dim", dtype=dtypes.int32)
            axis_t.shape.assert_has_rank(0)
            return identity(values[0], name=name)
    with op_scope(name, "ConcatV2", values) as scope:
        items = _convert_list_items(list(values), "values")
        return apply_op("ConcatV2", name=scope, values=items, axis=axis)


def stack(values: Any, axis: int = 0, name: str = "stack") -> Tensor:
    """Tensors of one shape stacked into a tensor of rank + 1 along ``axis`` (``Pack``; constants fold)."""
    if axis == 0:
        try:
            return convert_to_tensor(values, name=name)
        except (TypeError, ValueError, NotImplementedError):
            pass
    value_shape = convert_to_tensor(values[0], name=name).shape
    if value_shape.rank is not None:
        expanded = value_shape.rank + 1
        if axis < -expanded or axis >= expanded:
            raise ValueError(f"Argument `axis` = {axis} not in range [{-expanded}, {expanded})")
    return apply_op("Pack", name=name, values=list(values), axis=axis)


def unstack(value: Any, num: int | None = None, axis: int = 0, name: str = "unstack") -> list[Tensor]:
    """The slices of ``value`` along ``axis`` as a list (``Unpack``); ``num`` is inferred from the static shape."""
    if num is None:
        value = convert_to_tensor(value)
        value_shape = value.shape
        if value_shape.rank is not None:
            if axis < -value_shape.rank or axis >= value_shape.rank:
                raise ValueError(f"Argument `axis` = {axis} not in range [{-value_shape.rank}, {value_shape.rank})")
            num = value_shape.as_list()[axis]
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {value_shape}")
    return apply_op("Unpack", name=name, value=value, num=num, axis=axis)


def tile(input: Any, multiples: Any, name: str | None = None) -> Tensor:
    """``input`` repeated ``multiples[i]`` times along each dimension ``i`` (``Tile``)."""
    return apply_op("Tile", name=name, input=input, multiples=multiples)


def pad(
    tensor: Any, paddings: Any, mode: str = "CONSTANT", constant_values: Any = 0, name: str | None = None
) -> Tensor:
    """``tensor`` padded by ``paddings[i] = [before, after]`` per dimension.

    ``CONSTANT`` fills with ``constant_values`` (``Pad`` for 0, else ``PadV2``); ``REFLECT``
    mirrors without the edge element and ``SYMMETRIC`` with it (``MirrorPad``).
    """
    mode = mode.upper()
    if mode == "CONSTANT":
        if not is_tensor(constant_values) and np.ndim(constant_values) == 0 and constant_values == 0:
            return apply_op("Pad", name=name, input=tensor, paddings=paddings)
        return apply_op("PadV2", name=name, input=tensor, paddings=paddings, constant_values=constant_values)
    if mode in ("REFLECT", "SYMMETRIC"):
        return apply_op("MirrorPad", name=name, input=tensor, paddings=paddings, mode=mode)
    raise ValueError(
        'Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", or "SYMMETRIC". '
        f"Received `mode` = {mode}"
    )


# --------------------------------------------------------------------------- slicing and gathering


def slice(input_: Any, begin: Any, size: Any, name: str | None = None) -> Tensor:
    """The block of ``input_`` starting at ``begin`` of extent ``size`` (-1: to the end) (``Slice``)."""
    return apply_op("Slice", name=name, input=input_, begin=begin, size=size)


def strided_slice(
    input_: Any,
    begin: Any,
    end: Any,
    strides: Any = None,
    begin_mask: int = 0,
    end_mask: int = 0,
    ellipsis_mask: int = 0,
    new_axis_mask: int = 0,
    shrink_axis_mask: int = 0,
    var: Any = None,
    name: str | None = None,
) -> Tensor:
    """Python-style slicing by ``begin:end:strides`` with TF's masks (``StridedSlice``)."""
    if var is not None:
        raise NotImplementedError("strided_slice with var= (sliced assignment) needs variables, not implemented yet")
    if strides is None:
        strides = _ones_like_v1(begin)
    return apply_op(
        "StridedSlice",
        name=name,
        input=input_,
        begin=begin,
        end=end,
        strides=strides,
        begin_mask=begin_mask,
        end_mask=end_mask,
        ellipsis_mask=ellipsis_mask,
        new_axis_mask=new_axis_mask,
        shrink_axis_mask=shrink_axis_mask,
    )


def gather(
    params: Any,
    indices: Any,
    validate_indices: Any = None,
    axis: Any = None,
    batch_dims: int = 0,
    name: str | None = None,
) -> Tensor:
    """Slices of ``params`` along ``axis`` (default ``batch_dims``) at ``indices`` (``GatherV2``)."""
    del validate_indices
    if axis is None:
        axis = batch_dims
    value = constant_value(axis)
    if value is None or value.size != 1 or int(value.reshape(-1)[0]) != 0:
        return apply_op("GatherV2", name=name, params=params, indices=indices, axis=axis, batch_dims=batch_dims)
    sparse_read = getattr(params, "sparse_read", None)
    if sparse_read is not None and _gathers_on_its_device(params):
        return sparse_read(indices, name=name)  # TF: a variable gathers its rows (ResourceGather; sparse gradient)
    return apply_op("GatherV2", name=name, params=params, indices=indices, axis=axis)


def _gathers_on_its_device(variable: Any) -> bool:
    """Whether the variable's device has ``ResourceGather`` (else ``tf.gather`` reads the value and gathers from it,
    soft-placed, where TF would fail)."""
    from modtensor.api import device_kernels

    device = getattr(variable, "device", "")
    dtype = getattr(variable, "dtype", None)
    return dtype is None or device_kernels.has_kernel("ResourceGather", device or "", dtype, "dtype")


def one_hot(
    indices: Any,
    depth: Any,
    on_value: Any = None,
    off_value: Any = None,
    axis: Any = None,
    dtype: Any = None,
    name: str | None = None,
) -> Tensor:
    """A one-hot tensor: ``on_value`` (1) where ``indices`` point, ``off_value`` (0) elsewhere (``OneHot``).

    ``dtype`` defaults to the dtype of ``on_value``/``off_value``, else float32;
    the new axis is ``axis`` (default last).
    """
    with op_scope(name, "one_hot", [indices, depth, on_value, off_value, axis, dtype]) as scope:
        dtype = dtypes.as_dtype(dtype) if dtype is not None else None
        on_exists, off_exists = on_value is not None, off_value is not None
        if on_exists:
            on_value = convert_to_tensor(on_value, dtype_hint=dtype)
        if off_exists:
            off_value = convert_to_tensor(off_value, dtype_hint=dtype)
        on_dtype = on_value.dtype.base_dtype if on_exists else None
        off_dtype = off_value.dtype.base_dtype if off_exists else None
        if on_exists or off_exists:
            if dtype is not None:
                if on_exists and on_dtype != dtype:
                    raise TypeError(f"dtype {on_dtype} of on_value does not match dtype parameter {dtype}")
                if off_exists and off_dtype != dtype:
                    raise TypeError(f"dtype {off_dtype} of off_value does not match dtype parameter {dtype}")
            else:
                dtype = on_dtype if on_exists else off_dtype
        elif dtype is None:
            dtype = dtypes.float32
        if not on_exists:
            on_value = convert_to_tensor(1, dtype, name="on_value")
            on_dtype = dtype
        if not off_exists:
            off_value = convert_to_tensor(0, dtype, name="off_value")
            off_dtype = dtype
        if on_dtype != off_dtype:
            raise TypeError(f"dtype {on_dtype} of on_value does not match dtype {off_dtype} of off_value")
        return apply_op(
            "OneHot",
            name=scope,
            indices=indices,
            depth=depth,
            on_value=on_value,
            off_value=off_value,
            axis=-1 if axis is None else axis,
        )


def where(condition: Any, x: Any = None, y: Any = None, name: str | None = None) -> Tensor:
    """With ``x`` and ``y``: elements of ``x`` where ``condition`` else of ``y``, all broadcast (``SelectV2``).

    Alone: the int64 coordinates ``[num_true, rank]`` of the true (nonzero) elements (``Where``).
    """
    if x is None and y is None:
        with op_scope(name, "Where", [condition]) as scope:
            condition = convert_to_tensor(condition, dtype_hint=dtypes.bool, name="condition")
            return apply_op("Where", name=scope, input=condition)
    if x is not None and y is not None:
        return apply_op("SelectV2", name=name, condition=condition, t=x, e=y)
    raise ValueError("x and y must both be non-None or both be None.")


def boolean_mask(tensor: Any, mask: Any, axis: Any = None, name: str = "boolean_mask") -> Tensor:
    """The entries of ``tensor`` where the boolean ``mask`` is true, ``mask`` covering dims ``axis..axis+k``.

    TF's composition: the masked dims are reshaped into one, then ``Where`` finds the
    true positions and ``GatherV2`` takes them (so the graph is the one TF builds).
    """
    with op_scope(name, "boolean_mask", [tensor, mask]):
        tensor = convert_to_tensor(tensor, name="tensor")
        mask = convert_to_tensor(mask, name="mask")
        shape_mask = mask.get_shape()
        ndims_mask = shape_mask.ndims
        shape_tensor = tensor.get_shape()
        if ndims_mask == 0:
            raise ValueError("mask cannot be scalar.")
        if ndims_mask is None:
            raise ValueError(
                "Number of mask dimensions must be specified, even if some dimensions are None.  "
                "E.g. shape=[None] is ok, but shape=None is not."
            )
        axis = 0 if axis is None else axis
        axis_value = constant_value(axis)
        if axis_value is not None:
            axis = int(axis_value)
            shape_tensor[axis : axis + ndims_mask].assert_is_compatible_with(shape_mask)
        leading_size = apply_op("Prod", input=shape(tensor)[axis : axis + ndims_mask], reduction_indices=[0])
        tensor = reshape(tensor, concat([shape(tensor)[:axis], [leading_size], shape(tensor)[axis + ndims_mask :]], 0))
        if axis_value is not None and isinstance(tensor, SymbolicTensor):  # what Reshape's shape fn may not see
            first_dim = shape_tensor[axis : axis + ndims_mask].num_elements()
            tensor.set_shape(
                tensor_shape.as_shape(shape_tensor[:axis])
                .concatenate([first_dim])
                .concatenate(shape_tensor[axis + ndims_mask :])
            )
        mask = reshape(mask, [-1])
        indices = squeeze(where(mask), axis=[1])
        return gather(tensor, indices, axis=axis)


# --------------------------------------------------------------------------- creation


def fill(dims: Any, value: Any, name: str | None = None) -> Tensor:
    """A tensor of shape ``dims`` with every element ``value`` (``Fill``)."""
    return apply_op("Fill", name=name, dims=dims, value=value)


def _shape_as_tensor(shape_value: Any) -> Tensor:
    """A fully known shape as an int32 (int64 when a dim needs it) constant named ``shape_as_tensor``."""
    static = tensor_shape.as_shape(shape_value)
    if not static.is_fully_defined():
        raise ValueError(f"Cannot convert a partially known TensorShape {static} to a Tensor.")
    dims = static.as_list()
    dtype = dtypes.int64 if any(d >= 2**31 for d in dims) else dtypes.int32
    return constant(dims, dtype=dtype, name="shape_as_tensor")


def _filled(kind: str, value: Any, shape: Any, dtype: dtypes.DType, name: str | None) -> Tensor:
    """``tf.zeros``/``tf.ones``: a ``Const`` when small and static in a graph, else ``Fill``."""
    if context.executing_eagerly() and isinstance(shape, (list, tuple)) and dtype.is_numpy_compatible:
        dims = [tensor_shape.dimension_value(d) for d in shape]
        if all(isinstance(d, int) for d in dims):  # fast path: numpy inputs need no constant ops
            index_type = np.int64 if any(d >= 2**31 for d in dims) else np.int32
            fill = np.asarray(value, dtype=dtype.as_numpy_dtype)
            return apply_op("Fill", dims=np.asarray(dims, dtype=index_type).reshape(-1), value=fill)
    with op_scope(name, kind, [shape]) as scope:
        if not is_tensor(shape):
            try:
                if _graph_mode():
                    try:
                        small = np.prod(shape) < 1000
                    except (TypeError, ValueError, NotImplementedError):
                        small = False
                    if small:
                        return constant(value, shape=shape, dtype=dtype, name=scope)
                shape = _shape_as_tensor(shape)
            except (TypeError, ValueError):
                shape = convert_to_tensor(shape, dtype=dtypes.int32)
        if shape.shape.rank == 0:
            shape = reshape(shape, [-1])
        output = apply_op("Fill", name=scope, dims=shape, value=constant(value, dtype=dtype))
    return output


def _fill_value(kind: str, dtype: dtypes.DType) -> Any:
    if dtype == dtypes.bool:
        return kind == "ones"
    if dtype == dtypes.string and kind == "zeros":
        return ""
    return 0 if kind == "zeros" else 1


def zeros(shape: Any, dtype: Any = dtypes.float32, name: str | None = None) -> Tensor:
    """A tensor of ``shape`` (list, tuple, TensorShape or 1-D tensor) filled with zeros of ``dtype``."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    return _filled("zeros", _fill_value("zeros", dtype), shape, dtype, name)


def ones(shape: Any, dtype: Any = dtypes.float32, name: str | None = None) -> Tensor:
    """A tensor of ``shape`` filled with ones of ``dtype`` (True for bool)."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    return _filled("ones", _fill_value("ones", dtype), shape, dtype, name)


def _array_like(kind: str, like_op: str, input: Any, dtype: Any, scope: str | None) -> Tensor:
    """TF's ``array_like_impl``: statically shaped graph inputs give ``zeros``/``ones``, others ``ZerosLike``/..."""
    make = zeros if kind == "zeros" else ones
    if not is_tensor(input):
        input = convert_to_tensor(input, name="tensor")
    dtype = dtypes.as_dtype(dtype).base_dtype if dtype is not None else None
    if _graph_mode() and input.shape.is_fully_defined():
        return make(input.shape, dtype=dtype or input.dtype, name=scope)
    if dtype is not None and dtype != input.dtype.base_dtype:
        return make(shape(input), dtype=dtype, name=scope)
    return apply_op(like_op, name=scope, x=input)


def zeros_like(input: Any, dtype: Any = None, name: str | None = None) -> Tensor:
    """Zeros with the shape of ``input`` and its dtype (or ``dtype``)."""
    with op_scope(name, "zeros_like", [input]) as scope:
        return _array_like("zeros", "ZerosLike", input, dtype, scope)


def ones_like(input: Any, dtype: Any = None, name: str | None = None) -> Tensor:
    """Ones with the shape of ``input`` and its dtype (or ``dtype``)."""
    with op_scope(name, "ones_like", [input]) as scope:
        return _array_like("ones", "OnesLike", input, dtype, scope)


def _ones_like_v1(value: Any, dtype: Any = None) -> Tensor:
    """TF 1's ``ones_like`` (what ``strided_slice`` uses for default strides): ``ones`` of the value's shape."""
    with op_scope(None, "ones_like", [value]) as scope:
        value = convert_to_tensor(value, name="tensor")
        with op_scope(None, "Shape", [value]) as shape_scope:
            if _graph_mode() and value.shape.is_fully_defined():
                ones_shape = _shape_as_tensor(value.shape)
            else:
                ones_shape = apply_op("Shape", name=shape_scope, input=value, out_type=dtypes.int32)
        result = ones(ones_shape, dtype=value.dtype if dtype is None else dtype, name=scope)
        if isinstance(result, SymbolicTensor):
            result.set_shape(value.shape)
        return result


# --------------------------------------------------------------------------- identity


def identity(input: Any, name: str | None = None) -> Tensor:
    """A tensor with the value of ``input`` (``Identity``)."""
    if context.executing_eagerly() and not isinstance(input, SymbolicTensor):
        input = convert_to_tensor(input)
    return apply_op("Identity", name=name, input=input)


def identity_n(input: Any, name: str | None = None) -> list[Tensor]:
    """Each of a list of tensors unchanged, as one op (``IdentityN``): what ``tf.identity_n`` returns."""
    result = apply_op("IdentityN", name=name, input=list(input))
    return list(result) if isinstance(result, (list, tuple)) else [result]


def stop_gradient(input: Any, name: str | None = None) -> Tensor:
    """``input`` unchanged, as a constant for gradient computation (``StopGradient``)."""
    return apply_op("StopGradient", name=name, input=input)


# --------------------------------------------------------------------------- grids, masks, matrix transpose


def meshgrid(*args: Any, **kwargs: Any) -> list[Tensor]:
    """N-D coordinate grids of 1-D ``args`` (``indexing`` "xy" or "ij"), as TF's reshape-times-ones composition."""
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    if kwargs:
        key = list(kwargs.keys())[0]
        raise TypeError(f"'{key}' is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Argument `indexing` parameter must be either 'xy' or 'ij', got '{indexing}'")
    with op_scope(name, "meshgrid", list(args)):
        ndim = len(args)
        s0 = (1,) * ndim
        if not ndim:
            return []
        output = [reshape(stack(x), s0[:i] + (-1,) + s0[i + 1 :]) for i, x in enumerate(args)]
        shapes = [size(x) for x in args]
        output_dtype = convert_to_tensor(args[0]).dtype.base_dtype
        if indexing == "xy" and ndim > 1:
            output[0] = reshape(output[0], (1, -1) + (1,) * (ndim - 2))
            output[1] = reshape(output[1], (-1, 1) + (1,) * (ndim - 2))
            shapes[0], shapes[1] = shapes[1], shapes[0]
        mult_fact = ones(shapes, output_dtype)
        return [x * mult_fact for x in output]


def sequence_mask(lengths: Any, maxlen: Any = None, dtype: Any = dtypes.bool, name: str | None = None) -> Tensor:
    """``mask[i..., j] = j < lengths[i...]`` up to ``maxlen`` (default: the largest length), TF's Range/Less mask."""
    with op_scope(name, "SequenceMask", [lengths, maxlen]):
        lengths = convert_to_tensor(lengths)
        if maxlen is None:
            if lengths.shape.rank is not None:
                axes: Any = constant(np.arange(lengths.shape.rank), dtype=dtypes.int32)
            else:
                axes = apply_op("Range", start=0, limit=rank(lengths), delta=1)
            maxlen = apply_op("Max", input=lengths, reduction_indices=axes, keep_dims=False)
            maxlen = apply_op("Maximum", x=constant(0, maxlen.dtype), y=maxlen)
        else:
            maxlen = convert_to_tensor(maxlen)
        if maxlen.shape.rank is not None and maxlen.shape.rank != 0:
            raise ValueError(
                f"Argument `maxlen` must be scalar for sequence_mask, received `maxlen` = {maxlen} with shape "
                f"'{maxlen.shape}' instead"
            )
        row_vector = apply_op(
            "Range", start=constant(0, maxlen.dtype), limit=maxlen, delta=constant(1, maxlen.dtype)
        )
        matrix = apply_op("Cast", x=expand_dims(lengths, -1), DstT=maxlen.dtype)
        result = row_vector < matrix
        if dtype is None or result.dtype.is_compatible_with(dtypes.as_dtype(dtype)):
            return result
        return apply_op("Cast", x=result, DstT=dtypes.as_dtype(dtype))


def matrix_transpose(a: Any, name: str = "matrix_transpose", conjugate: bool = False) -> Tensor:
    """The last two dimensions of ``a`` swapped (``Transpose`` with TF's permutation, computed from ``Rank`` if
    needed)."""
    with op_scope(name, "matrix_transpose", [a]):
        a = convert_to_tensor(a, name="a")
        ndims = a.shape.rank
        if ndims is not None:
            if ndims < 2:
                raise ValueError(
                    f"Argument `a` should be a (batch) matrix with rank >= 2.  Received `a` = {a} with shape: {a.shape}"
                )
            perm: Any = list(range(ndims - 2)) + [ndims - 1] + [ndims - 2]
        else:
            a_rank = rank(a)
            perm = concat((apply_op("Range", start=0, limit=a_rank - 2, delta=1), [a_rank - 1, a_rank - 2]), 0)
        return transpose(a, perm=perm, conjugate=conjugate)


def roll(input: Any, shift: Any, axis: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """Elements shifted cyclically by ``shift`` along each ``axis`` (``Roll``)."""
    return apply_op("Roll", name=name, input=input, shift=shift, axis=axis)


def unravel_index(indices: Any, dims: Any, name: str | None = None) -> Tensor:
    """The coordinates of flat ``indices`` in an array of shape ``dims`` (``UnravelIndex``)."""
    return apply_op("UnravelIndex", name=name, indices=indices, dims=dims)


def space_to_depth(input: Any, block_size: int, data_format: str = "NHWC", name: str | None = None) -> Tensor:  # noqa: A002
    """Spatial blocks of ``block_size`` x ``block_size`` moved into the depth dim (``SpaceToDepth``)."""
    return apply_op("SpaceToDepth", name=name, input=input, block_size=block_size, data_format=data_format)


def depth_to_space(input: Any, block_size: int, data_format: str = "NHWC", name: str | None = None) -> Tensor:  # noqa: A002
    """The depth dim spread into spatial blocks of ``block_size`` x ``block_size`` (``DepthToSpace``)."""
    return apply_op("DepthToSpace", name=name, input=input, block_size=block_size, data_format=data_format)


def space_to_batch_nd(input: Any, block_shape: Any, paddings: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """The padded spatial dims cut into ``block_shape`` blocks whose offsets go into the batch (``SpaceToBatchND``)."""
    return apply_op("SpaceToBatchND", name=name, input=input, block_shape=block_shape, paddings=paddings)


def space_to_batch(input: Any, block_shape: Any, paddings: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """TF 2's ``tf.space_to_batch``: :func:`space_to_batch_nd`."""
    return space_to_batch_nd(input, block_shape, paddings, name)


def required_space_to_batch_paddings(
    input_shape: Any, block_shape: Any, base_paddings: Any = None, name: str | None = None
) -> tuple[Tensor, Tensor]:
    """The ``paddings`` and ``crops`` that make ``block_shape`` divide ``input_shape`` (at least ``base_paddings``).

    As TF: ``paddings[i] = [base[i, 0], base[i, 1] + extra[i]]`` with the smallest ``extra[i] >= 0`` that makes the
    padded size a multiple of ``block_shape[i]``, ``crops[i] = [0, extra[i]]``; numbers when every input is known
    without running the graph, else the same arithmetic as graph ops.
    """
    with op_scope(name, "required_space_to_batch_paddings", [input_shape, block_shape]):
        input_shape = convert_to_tensor(input_shape, dtype=dtypes.int32, name="input_shape")
        block_shape = convert_to_tensor(block_shape, dtype=dtypes.int32, name="block_shape")
        if not block_shape.shape.is_fully_defined() or block_shape.shape.rank != 1:
            raise ValueError(f"Shape {block_shape.shape} must be fully defined and of rank 1 (block_shape)")
        num_block_dims = block_shape.shape.as_list()[0]
        if num_block_dims == 0:
            return zeros([0, 2], dtypes.int32), zeros([0, 2], dtypes.int32)
        input_shape.shape.assert_is_compatible_with([num_block_dims])
        if base_paddings is not None:
            base_paddings = convert_to_tensor(base_paddings, dtype=dtypes.int32, name="base_paddings")
            base_paddings.shape.assert_is_compatible_with([num_block_dims, 2])
        else:
            base_paddings = zeros([num_block_dims, 2], dtypes.int32)
        known = [constant_value(t) for t in (block_shape, input_shape, base_paddings)]
        if all(v is not None for v in known):
            block_shape, input_shape, base_paddings = (np.asarray(v, dtype=np.int32) for v in known)
        pad_start = base_paddings[:, 0]
        orig_pad_end = base_paddings[:, 1]
        full_input_shape = input_shape + pad_start + orig_pad_end
        pad_end_extra = (block_shape - full_input_shape % block_shape) % block_shape
        pad_end = orig_pad_end + pad_end_extra
        paddings = stack([[pad_start[i], pad_end[i]] for i in range(num_block_dims)], name="paddings")
        crops = stack([[0, pad_end_extra[i]] for i in range(num_block_dims)], name="crops")
        return paddings, crops


def batch_to_space(input: Any, block_shape: Any, crops: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """The inverse of :func:`space_to_batch_nd`, then ``crops`` cut off (``BatchToSpaceND``; an int block is 2-D)."""
    if isinstance(block_shape, int):
        block_shape = np.array([block_shape, block_shape], dtype=np.int64)
    return apply_op("BatchToSpaceND", name=name, input=input, block_shape=block_shape, crops=crops)
