"""Gradients of array ops: identities, reshapes, joins and splits, slices, pads, gathers and scatters, diagonals.

TensorFlow's rules (``tensorflow/python/ops/array_grad.py``; TopKV2's from ``nn_grad.py``), with the
same results, and which gradients are ``IndexedSlices`` (GatherV2 along axis 0, GatherNd with
``[N, 1]`` indices). Where shapes and index values are static (always in eager mode) the
gradients are built from constants computed here instead of shape ops, so an eager gradient
runs few ops; otherwise the same ops as TF's are added to the graph (``ConcatOffset``,
``InvertPermutation``, ``BroadcastGradientArgs``, ...).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.api import array_ops, context, indexing_ops, linalg_ops, math_ops, segment_ops
from modtensor.api.dispatch import apply_op
from modtensor.api.gradients.common import reduce_to, skipped, static_dims
from modtensor.api.indexed_slices import IndexedSlices
from modtensor.api.op_scope import constant_value
from modtensor.framework import dtypes
from modtensor.framework.gradient_registry import RegisterGradient, no_gradient

for _op in ("StopGradient", "Const", "Placeholder", "OneHot", "InvertPermutation", "ConcatOffset"):
    no_gradient(_op)


# --------------------------------------------------------------------------- helpers


def dense(grad: Any) -> Any:
    """``grad`` as a dense tensor: an IndexedSlices summed into zeros of its dense shape (TF's
    ``_IndexedSlicesToTensorNoWarning``), anything else unchanged."""
    if not isinstance(grad, IndexedSlices):
        return grad
    if grad.dense_shape is None:
        raise ValueError(f"Tensor conversion requested for IndexedSlices without dense_shape: {grad}")
    return segment_ops.unsorted_segment_sum(grad.values, grad.indices, grad.dense_shape[0])


def _static(t: Any) -> np.ndarray | None:
    """The value of ``t`` when known without running anything (eager tensors, constants), else None."""
    return None if t is None else constant_value(t)


def _ints(value: np.ndarray) -> list[int]:
    return [int(v) for v in np.asarray(value).reshape(-1)]


def _shape(x: Any, out_type: Any = dtypes.int32) -> Any:
    """The shape of ``x`` as a constant when static, else a ``Shape`` op."""
    dims = static_dims(x)
    if dims is not None:
        return array_ops.constant(dims, dtype=out_type)
    return array_ops.shape(x, out_type=out_type)


def _reshape(x: Any, dims: list[int]) -> Any:
    """``x`` in the static shape ``dims``; eagerly no op when it has that shape already (graphs get TF's op)."""
    if context.executing_eagerly() and static_dims(x) == dims:
        return x
    return array_ops.reshape(x, dims)


def _transpose(x: Any, perm: list[int]) -> Any:
    """``x`` with its dims permuted by the static ``perm``; eagerly no op for the identity (graphs get TF's op)."""
    if context.executing_eagerly() and perm == sorted(perm):
        return x
    return array_ops.transpose(x, perm)


def _reshape_to_input(op: Any, grad: Any) -> Any:
    """``grad`` in the shape of the op's first input (its static shape when known)."""
    x = op.inputs[0]
    dims = static_dims(x)
    return array_ops.reshape(dense(grad), dims if dims is not None else array_ops.shape(x))


# --------------------------------------------------------------------------- identities


@RegisterGradient("Identity")
@RegisterGradient("EnsureShape")
@RegisterGradient("Snapshot")
@RegisterGradient("PlaceholderWithDefault")
def _identity_grad(op: Any, grad: Any) -> Any:
    return grad


@RegisterGradient("IdentityN")
def _identity_n_grad(op: Any, *grads: Any) -> list[Any]:
    return list(grads)


@RegisterGradient("PreventGradient")
def _prevent_gradient_grad(op: Any, grad: Any) -> Any:
    raise LookupError(f"Gradient explicitly disabled. Reason: {op.get_attr('message')}")


@RegisterGradient("CheckNumerics")
def _check_numerics_grad(op: Any, grad: Any) -> Any:
    message = op.get_attr("message")
    message = message.decode() if isinstance(message, bytes) else message
    return apply_op(
        "CheckNumerics",
        tensor=dense(grad),
        message=f"Not a number (NaN) or infinity (Inf) values detected in gradient. {message}",
    )


# --------------------------------------------------------------------------- reshapes


@RegisterGradient("Reshape")
def _reshape_grad(op: Any, grad: Any) -> list[Any]:
    shape = op.inputs[0].shape
    if shape.rank is not None and not shape.is_fully_defined():
        # One unknown dim (and no zero-size dim, which would make -1 ambiguous) becomes -1: no Shape op.
        dims = shape.as_list()
        unknown = [i for i, d in enumerate(dims) if d is None]
        if len(unknown) == 1 and 0 not in dims:
            dims[unknown[0]] = -1
            return [array_ops.reshape(dense(grad), dims), None]
    return [_reshape_to_input(op, grad), None]


@RegisterGradient("ExpandDims")
def _expand_dims_grad(op: Any, grad: Any) -> list[Any]:
    return [_reshape_to_input(op, grad), None]


@RegisterGradient("Squeeze")
def _squeeze_grad(op: Any, grad: Any) -> Any:
    return _reshape_to_input(op, grad)


@RegisterGradient("Transpose")
def _transpose_grad(op: Any, grad: Any) -> list[Any]:
    """The gradient transposed back by the inverse permutation (eagerly computed here, in graphs TF's
    ``InvertPermutation``)."""
    perm = op.inputs[1]
    value = _static(perm) if context.executing_eagerly() else None
    if value is not None:
        inverse: Any = np.argsort(np.asarray(value).reshape(-1)).astype(perm.dtype.as_numpy_dtype)
    else:
        inverse = apply_op("InvertPermutation", x=perm)
    return [array_ops.transpose(dense(grad), inverse), None]


# --------------------------------------------------------------------------- joining and splitting


@RegisterGradient("Pack")
def _pack_grad(op: Any, grad: Any) -> list[Any]:
    return array_ops.unstack(dense(grad), num=op.get_attr("N"), axis=op.get_attr("axis"))


@RegisterGradient("Unpack")
def _unpack_grad(op: Any, *grads: Any) -> Any:
    return array_ops.stack([dense(g) for g in grads], axis=op.get_attr("axis"))


@RegisterGradient("ConcatV2")
def _concat_grad(op: Any, grad: Any) -> list[Any]:
    values = list(op.inputs[:-1])
    axis = op.inputs[-1]
    if isinstance(grad, IndexedSlices):
        return [*_concat_grad_indexed_slices(values, axis, grad), None]
    axis_value = _static(axis)
    rank = values[0].shape.rank
    if axis_value is not None and rank is not None:
        a = int(axis_value) % rank
        sizes = [v.shape.as_list()[a] if v.shape.rank is not None else None for v in values]
        if all(s is not None for s in sizes):  # the sizes along the axis are static: one SplitV
            return [*indexing_ops.split(grad, sizes, a), None]
    # TF's graph form: the offset of each input (ConcatOffset), then one Slice per input.
    dim = math_ops.floormod(math_ops.cast(axis, dtypes.int32), array_ops.rank(values[0]))
    shapes = [array_ops.shape(v) for v in values]
    offsets = apply_op("ConcatOffset", concat_dim=dim, shape=shapes)
    return [*(array_ops.slice(grad, begin, size) for begin, size in zip(offsets, shapes, strict=True)), None]


def _concat_grad_indexed_slices(values: list[Any], axis: Any, grad: IndexedSlices) -> list[Any]:
    """ConcatV2's gradient for an IndexedSlices: its rows split among the inputs (axis 0), else its values sliced."""
    axis_value = _static(axis)
    if axis_value is None:
        raise ValueError("Can only compute IndexedSlices gradient with statically-known concat_dim")
    a = int(axis_value)
    if a < 0:
        rank = values[0].shape.rank
        if rank is None:
            raise ValueError(
                "Can only compute IndexedSlices gradient with negative concat_dim when first value rank is "
                "statically-known."
            )
        a %= rank
    sizes = [_shape(v) for v in values]
    out = []
    if a > 0:  # every input gets all the rows, with the columns of its part of the values
        rank = values[0].shape.rank
        start = 0
        for v, size in zip(values, sizes, strict=True):
            dims = static_dims(v)
            if dims is not None and rank is not None:
                begin = [0] * rank
                begin[a] = start
                part = array_ops.slice(grad.values, begin, [-1] + dims[1:])
                start += dims[a]
            else:
                part = _slice_along(grad.values, v, a, start)
                start = math_ops.add(start, array_ops.gather(array_ops.shape(v), a))
            out.append(IndexedSlices(part, grad.indices, size))
        return out
    # axis 0: each input gets the rows that fall into its range, renumbered from 0
    start: Any = array_ops.constant(0, dtype=grad.indices.dtype)
    for size in sizes:
        rows = math_ops.cast(array_ops.gather(size, 0), grad.indices.dtype)
        end = math_ops.add(start, rows)
        mine = math_ops.logical_and(math_ops.greater_equal(grad.indices, start), math_ops.less(grad.indices, end))
        selected = array_ops.squeeze(array_ops.where(mine), axis=[1])
        indices = math_ops.subtract(array_ops.gather(grad.indices, selected), start)
        out.append(IndexedSlices(array_ops.gather(grad.values, selected), indices, size))
        start = end
    return out


def _slice_along(values: Any, like: Any, axis: int, start: Any) -> Any:
    """``values[..., start:start + like.shape[axis], ...]`` along ``axis`` (all rows), shapes known at run time."""
    shape = array_ops.shape(like)
    rank = array_ops.rank(like)
    mask = array_ops.one_hot(axis, rank, dtype=dtypes.int32)
    begin = math_ops.multiply(mask, math_ops.cast(start, dtypes.int32))
    size = array_ops.concat([[-1], shape[1:]], 0)
    return array_ops.slice(values, begin, size)


@RegisterGradient("Split")
def _split_grad(op: Any, *grads: Any) -> list[Any]:
    return [None, array_ops.concat([dense(g) for g in grads], op.inputs[0])]


@RegisterGradient("SplitV")
def _split_v_grad(op: Any, *grads: Any) -> list[Any]:
    return [array_ops.concat([dense(g) for g in grads], op.inputs[2]), None, None]


# --------------------------------------------------------------------------- slicing


@RegisterGradient("Slice")
def _slice_grad(op: Any, grad: Any) -> list[Any]:
    """The gradient padded back to the input's shape: ``begin`` zeros before, the rest after."""
    x, begin = op.inputs[0], op.inputs[1]
    index_dtype = begin.dtype
    x_dims, out_dims, begin_value = static_dims(x), static_dims(op.outputs[0]), _static(begin)
    if x_dims is not None and out_dims is not None and begin_value is not None:
        b = _ints(begin_value)
        paddings: Any = np.asarray(
            [[lo, n - k - lo] for lo, n, k in zip(b, x_dims, out_dims, strict=True)],
            dtype=index_dtype.as_numpy_dtype,
        ).reshape(-1, 2)
    else:
        rank = array_ops.rank(x)
        column = array_ops.stack([rank, 1])
        before = array_ops.reshape(begin, column)
        after = array_ops.reshape(
            math_ops.subtract(
                math_ops.subtract(array_ops.shape(x, out_type=index_dtype), _shape(op.outputs[0], index_dtype)),
                begin,
            ),
            column,
        )
        paddings = array_ops.concat([before, after], 1)
    return [array_ops.pad(dense(grad), paddings), None, None]


def _mask_attrs(op: Any) -> dict[str, int]:
    names = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")
    return {name: op.get_attr(name) for name in names}


@RegisterGradient("StridedSlice")
def _strided_slice_grad(op: Any, grad: Any) -> list[Any]:
    """``StridedSliceGrad``: the gradient written into zeros of the input's shape where the slice read."""
    x, begin, end, strides = op.inputs
    index_type = begin.dtype.as_numpy_dtype

    def static_or(t: Any) -> Any:
        value = _static(t)
        return t if value is None else np.asarray(value, dtype=index_type)

    dims = static_dims(x)
    shape = np.asarray(dims, dtype=index_type) if dims is not None else array_ops.shape(x, out_type=begin.dtype)
    result = apply_op(
        "StridedSliceGrad",
        shape=shape,
        begin=static_or(begin),
        end=static_or(end),
        strides=static_or(strides),
        dy=dense(grad),
        **_mask_attrs(op),
    )
    return [result, None, None, None]


@RegisterGradient("StridedSliceGrad")
def _strided_slice_grad_grad(op: Any, grad: Any) -> list[Any]:
    _, begin, end, strides, _ = op.inputs
    return [None, None, None, None, array_ops.strided_slice(dense(grad), begin, end, strides, **_mask_attrs(op))]


# --------------------------------------------------------------------------- tiling and padding


@RegisterGradient("Tile")
def _tile_grad(op: Any, grad: Any) -> list[Any]:
    """The tiles summed: the gradient seen as [m0, d0, m1, d1, ...] reduced over the multiples' axes."""
    x, multiples = op.inputs
    x_dims, m_value = static_dims(x), _static(multiples)
    if x_dims is not None and m_value is not None:
        input_shape: Any = np.asarray(x_dims, dtype=multiples.dtype.as_numpy_dtype)
        split_shape: Any = [d for pair in zip(_ints(m_value), x_dims, strict=True) for d in pair]
        axes: Any = list(range(0, 2 * len(x_dims), 2))
    else:
        input_shape = array_ops.shape(x, out_type=multiples.dtype)
        split_shape = array_ops.reshape(array_ops.transpose(array_ops.stack([multiples, input_shape])), [-1])
        axes = math_ops.range(0, array_ops.size(split_shape), 2)
    if isinstance(grad, IndexedSlices):  # rows of a tiled first dim add up first
        rows = math_ops.cast(input_shape[0], grad.indices.dtype)
        grad = segment_ops.unsorted_segment_sum(grad.values, math_ops.floormod(grad.indices, rows), rows)
        if isinstance(split_shape, list):
            split_shape = [1, *split_shape[1:]]
        else:
            split_shape = array_ops.concat([[1], split_shape[1:]], axis=0)
    result = math_ops.reduce_sum(array_ops.reshape(grad, split_shape), axes)
    if x_dims is None and x.shape.rank is not None and hasattr(result, "set_shape"):
        result.set_shape(x.shape)
    return [result, None]


@RegisterGradient("Pad")
@RegisterGradient("PadV2")
def _pad_grad(op: Any, grad: Any) -> list[Any]:
    """The input's block cut out of the gradient (no gradient for PadV2's constant_values, as TF)."""
    x, paddings = op.inputs[0], op.inputs[1]
    pad_value, x_dims = _static(paddings), static_dims(x)
    if pad_value is not None and x_dims is not None:
        begin: Any = np.asarray(pad_value).reshape(-1, 2)[:, 0]
        size: Any = np.asarray(x_dims, dtype=begin.dtype)
    else:
        begin = array_ops.reshape(array_ops.slice(paddings, [0, 0], array_ops.stack([array_ops.rank(x), 1])), [-1])
        size = array_ops.shape(x, out_type=begin.dtype)
    x_grad = array_ops.slice(dense(grad), begin, size)
    return [x_grad, None] if len(op.inputs) == 2 else [x_grad, None, None]


@RegisterGradient("MirrorPad")
def _mirror_pad_grad(op: Any, grad: Any) -> list[Any]:
    folded = apply_op("MirrorPadGrad", input=dense(grad), paddings=op.inputs[1], mode=op.get_attr("mode"))
    return [folded, None]


@RegisterGradient("MirrorPadGrad")
def _mirror_pad_grad_grad(op: Any, grad: Any) -> list[Any]:
    padded = apply_op("MirrorPad", input=dense(grad), paddings=op.inputs[1], mode=op.get_attr("mode"))
    return [padded, None]


@RegisterGradient("BroadcastTo")
def _broadcast_to_grad(op: Any, grad: Any) -> list[Any]:
    return [reduce_to(dense(grad), op.inputs[0]), None]


def _depth_space_grad(op: Any, grad: Any, inverse: str) -> Any:
    block_size, data_format = op.get_attr("block_size"), op.get_attr("data_format")
    data_format = data_format.decode() if isinstance(data_format, bytes) else data_format
    if data_format == "NCHW_VECT_C":
        raise ValueError(f"Cannot compute {op.type} gradient with NCHW_VECT_C. NCHW_VECT_C requires qint8 data type.")
    return apply_op(inverse, input=grad, block_size=block_size, data_format=data_format)


@RegisterGradient("SpaceToBatchND")
def _space_to_batch_nd_grad(op: Any, grad: Any) -> list[Any]:
    # Its gradient is the opposite op: BatchToSpaceND.
    return [apply_op("BatchToSpaceND", input=grad, block_shape=op.inputs[1], crops=op.inputs[2]), None, None]


@RegisterGradient("BatchToSpaceND")
def _batch_to_space_nd_grad(op: Any, grad: Any) -> list[Any]:
    # Its gradient is the opposite op: SpaceToBatchND.
    return [apply_op("SpaceToBatchND", input=grad, block_shape=op.inputs[1], paddings=op.inputs[2]), None, None]


@RegisterGradient("SpaceToDepth")
def _space_to_depth_grad(op: Any, grad: Any) -> Any:
    # Its gradient is the opposite op: DepthToSpace.
    return _depth_space_grad(op, grad, "DepthToSpace")


@RegisterGradient("DepthToSpace")
def _depth_to_space_grad(op: Any, grad: Any) -> Any:
    # Its gradient is the opposite op: SpaceToDepth.
    return _depth_space_grad(op, grad, "SpaceToDepth")


@RegisterGradient("Roll")
def _roll_grad(op: Any, grad: Any) -> list[Any]:
    # The gradient is the roll reversed.
    shift, axis = op.inputs[1], op.inputs[2]
    return [apply_op("Roll", input=grad, shift=math_ops.negative(shift), axis=axis), None, None]


@RegisterGradient("ReverseV2")
def _reverse_grad(op: Any, grad: Any) -> list[Any]:
    return [indexing_ops.reverse(dense(grad), op.inputs[1]), None]


@RegisterGradient("Fill")
def _fill_grad(op: Any, grad: Any) -> list[Any]:
    return [None, math_ops.reduce_sum(dense(grad))]


# --------------------------------------------------------------------------- gathers and scatters


@RegisterGradient("GatherV2")
def _gather_v2_grad(op: Any, grad: Any) -> list[Any]:
    """Along axis 0 an IndexedSlices (the gathered rows); otherwise the rows summed back (UnsortedSegmentSum)."""
    params, indices, axis = op.inputs
    batch_dims = int(op.get_attr("batch_dims"))
    if batch_dims < 0:
        if indices.shape.rank is None:
            raise ValueError(
                "Currently, it is unsupported to take the gradient of tf.gather when batch_dims < 0 and the rank "
                "of the indices is unknown. Please pass a positive batch_dims or use tf.ensure_shape to update "
                f"the shape of indices when calling tf.gather. Got batch_dims={batch_dims} and indices={indices}"
            )
        batch_dims += indices.shape.rank
    axis_value = _static(axis)
    params_dims = static_dims(params)
    if axis_value is not None and int(axis_value) == 0:
        index_dims = static_dims(indices)
        if params_dims is not None and index_dims is not None:
            count = int(np.prod(index_dims, dtype=np.int64))
            values = _reshape(dense(grad), [count, *params_dims[1:]])
            flat = _reshape(indices, [count])
            dense_shape = array_ops.constant(params_dims, dtype=dtypes.int32, name="Shape")
            return [IndexedSlices(values, flat, dense_shape), None, None]
        params_shape = array_ops.shape(params)
        size = array_ops.expand_dims(array_ops.size(indices), 0)
        values = array_ops.reshape(dense(grad), array_ops.concat([size, params_shape[1:]], 0))
        return [IndexedSlices(values, array_ops.reshape(indices, size), params_shape), None, None]
    if axis_value is not None and params_dims is not None and static_dims(indices) is not None:
        result = _gather_grad_static(grad, indices, params_dims, int(axis_value) % len(params_dims), batch_dims)
    else:
        result = _gather_grad_dynamic(grad, params, indices, axis, batch_dims)
    return [result, None, None]


def _gather_grad_static(grad: Any, indices: Any, params_dims: list[int], axis: int, batch_dims: int) -> Any:
    """GatherV2's dense gradient with every shape static: the gathered axis moved after the batch dims, the rows
    summed by (batch-offset) index, and moved back."""
    outer, inner = params_dims[:axis], params_dims[axis + 1 :]
    index_dims = static_dims(indices)
    count = int(np.prod(index_dims, dtype=np.int64))
    per_batch = count // max(int(np.prod(index_dims[:batch_dims], dtype=np.int64)), 1)
    values = _reshape(dense(grad), [*outer, per_batch, *inner])
    rank = len(params_dims)
    perm = [*range(batch_dims), axis, *range(batch_dims, axis), *range(axis + 1, rank)]
    values = _transpose(values, perm)
    moved = [params_dims[p] for p in perm]  # the params' shape with the gathered axis at batch_dims
    gather_size = params_dims[axis]
    if batch_dims:
        batch = moved[:batch_dims]
        rest = moved[batch_dims + 1 :]
        # Each batch element's rows go to their own block of gather_size segments.
        offsets = np.zeros(index_dims[:batch_dims], dtype=np.int64)
        stride = gather_size
        for dim in range(batch_dims - 1, -1, -1):
            shape = [1] * batch_dims
            shape[dim] = batch[dim]
            offsets = offsets + np.arange(batch[dim]).reshape(shape) * stride
            stride *= batch[dim]
        offsets = offsets.reshape(offsets.shape + (1,) * (len(index_dims) - batch_dims))
        indices = math_ops.add(indices, offsets.astype(indices.dtype.as_numpy_dtype))
        values = array_ops.reshape(values, [-1, *rest])  # the batch dims flattened into the rows
        gather_size *= int(np.prod(batch, dtype=np.int64))
    summed = segment_ops.unsorted_segment_sum(values, _reshape(indices, [count]), gather_size)
    summed = _reshape(summed, moved)
    inverse = [*range(batch_dims), *range(batch_dims + 1, axis + 1), batch_dims, *range(axis + 1, rank)]
    return _reshape(_transpose(summed, inverse), params_dims)


def _gather_grad_dynamic(grad: Any, params: Any, indices: Any, axis: Any, batch_dims: int) -> Any:
    """GatherV2's dense gradient with shapes known only at run time (TF's graph)."""
    params_shape = array_ops.shape(params)
    outer_shape = params_shape[:axis]
    inner_shape = params_shape[axis:][1:]
    values_shape = array_ops.concat([outer_shape, [-1], inner_shape], 0)
    values_dims = array_ops.size(values_shape)
    axis_dims = array_ops.size(outer_shape)
    outer_batches = math_ops.range(batch_dims)
    batch_axis = math_ops.range(batch_dims, axis_dims)
    inner_axes = math_ops.range(axis_dims + 1, values_dims)
    values = array_ops.reshape(dense(grad), values_shape)
    perm = array_ops.concat([outer_batches, [axis_dims], batch_axis, inner_axes], 0)
    values = array_ops.transpose(values, perm)
    moved_shape = array_ops.gather(params_shape, perm)
    gather_size = array_ops.gather(params_shape, axis)
    count = array_ops.expand_dims(array_ops.size(indices), 0)
    if batch_dims:
        values_shape = array_ops.shape(values)
        outer = values_shape[:batch_dims]
        inner = values_shape[batch_dims:][1:]
        gather_size = math_ops.multiply(gather_size, math_ops.reduce_prod(outer, [0]))
        indices = _batch_indices(moved_shape, indices, batch_dims)
        flat_shape = array_ops.concat([[-1], inner], 0)
        values = array_ops.reshape(values, flat_shape)
    summed = segment_ops.unsorted_segment_sum(values, array_ops.reshape(indices, count), gather_size)
    if batch_dims:
        summed = array_ops.reshape(summed, array_ops.concat([outer, flat_shape], 0))
    inverse = array_ops.concat([outer_batches, math_ops.add(batch_axis, 1), [batch_dims], inner_axes], 0)
    return array_ops.reshape(array_ops.transpose(summed, inverse), params_shape)


def _batch_indices(params_shape: Any, indices: Any, batch_dims: int) -> Any:
    """``indices`` plus each batch element's offset into the flattened batch of gathered rows (TF's)."""
    dtype = indices.dtype
    shape = math_ops.cast(params_shape, dtype)
    stride = array_ops.ones((), dtype=dtype)
    for dim in range(batch_dims, 0, -1):
        size = shape[dim - 1]
        stride = math_ops.multiply(stride, shape[dim])
        steps = math_ops.multiply(math_ops.range(array_ops.zeros((), dtype), size, array_ops.ones((), dtype)), stride)
        dims = array_ops.concat(
            [array_ops.ones([dim - 1], dtypes.int32), array_ops.reshape(math_ops.cast(size, dtypes.int32), [1]),
             array_ops.ones(array_ops.reshape(math_ops.subtract(array_ops.rank(indices), dim), [1]), dtypes.int32)],
            axis=0,
        )  # fmt: skip
        indices = math_ops.add(indices, array_ops.reshape(steps, dims))
    return indices


def _gather_nd_grad_of(grad: Any, indices: Any, ref_shape: Any, policy: str = "") -> Any:
    """GatherNd's gradient: an IndexedSlices for ``[N, 1]`` indices (whole rows), else a ``ScatterNd``."""
    shape = indices.shape
    if shape.rank == 2 and shape.as_list()[-1] == 1:
        return IndexedSlices(dense(grad), array_ops.squeeze(indices, axis=-1), ref_shape)
    return apply_op("ScatterNd", indices=indices, updates=dense(grad), shape=ref_shape, bad_indices_policy=policy)


@RegisterGradient("GatherNd")
def _gather_nd_grad(op: Any, grad: Any) -> list[Any]:
    ref, indices = op.inputs
    policy = op.get_attr("bad_indices_policy")
    policy = policy.decode() if isinstance(policy, bytes) else policy
    return [_gather_nd_grad_of(grad, indices, _shape(ref, indices.dtype), policy), None]


@RegisterGradient("ScatterNd")
def _scatter_nd_grad(op: Any, grad: Any) -> list[Any]:
    return [None, indexing_ops.gather_nd(dense(grad), op.inputs[0]), None]


@RegisterGradient("TensorScatterUpdate")
def _tensor_scatter_update_grad(op: Any, grad: Any) -> list[Any]:
    """The tensor's gradient without the overwritten slices; the updates' gathered from the gradient."""
    _, indices, updates = op.inputs
    grad = dense(grad)
    updates_grad = None if skipped(op, 2) else indexing_ops.gather_nd(grad, indices)
    tensor_grad = None
    if not skipped(op, 0):
        zeros = array_ops.zeros_like(updates, dtype=grad.dtype)
        tensor_grad = indexing_ops.tensor_scatter_nd_update(array_ops.identity(grad), indices, zeros)
    return [tensor_grad, None, updates_grad]


@RegisterGradient("TensorScatterAdd")
def _tensor_scatter_add_grad(op: Any, grad: Any) -> list[Any]:
    grad = dense(grad)
    updates_grad = None if skipped(op, 2) else indexing_ops.gather_nd(grad, op.inputs[1])
    return [None if skipped(op, 0) else array_ops.identity(grad), None, updates_grad]


@RegisterGradient("TopKV2")
def _top_k_grad(op: Any, grad: Any, _: Any) -> list[Any]:
    """The values' gradient scattered to the positions of the top k elements (TF's rule, from nn_grad.py)."""
    x, indices = op.inputs[0], op.outputs[1]
    in_dims, ind_dims = static_dims(x), static_dims(indices)
    grad = dense(grad)
    if in_dims is not None and ind_dims is not None:
        last = in_dims[-1] if in_dims else 1
        k = ind_dims[-1] if ind_dims else 1
        rows = int(np.prod(ind_dims[:-1], dtype=np.int64))
        offsets = (np.arange(rows, dtype=np.int64) * last).astype(indices.dtype.as_numpy_dtype).reshape(rows, 1)
        flat = array_ops.reshape(math_ops.add(array_ops.reshape(indices, [rows, k]), offsets), [-1, 1])
        total = int(np.prod(in_dims, dtype=np.int64))
        scattered = indexing_ops.scatter_nd(flat, array_ops.reshape(grad, [-1]), np.asarray([total], np.int32))
        return [array_ops.reshape(scattered, in_dims), None]
    in_shape = array_ops.shape(x)
    ind_shape = array_ops.shape(indices)
    ind_last = array_ops.gather(math_ops.cast(ind_shape, dtypes.int64), math_ops.subtract(array_ops.size(ind_shape), 1))
    ind_2d = array_ops.reshape(indices, array_ops.stack([math_ops.cast(-1, dtypes.int64), ind_last]))
    in_last = array_ops.gather(math_ops.cast(in_shape, dtypes.int64), math_ops.subtract(array_ops.size(in_shape), 1))
    outer = math_ops.cast(array_ops.shape(ind_2d)[0], dtypes.int64)
    starts = array_ops.expand_dims(math_ops.range(0, math_ops.multiply(outer, in_last), in_last), -1)
    flat = array_ops.reshape(math_ops.add(ind_2d, math_ops.cast(starts, indices.dtype)), [-1])
    total = array_ops.reshape(math_ops.reduce_prod(in_shape), [1])
    scattered = indexing_ops.scatter_nd(array_ops.expand_dims(flat, -1), array_ops.reshape(grad, [-1]), total)
    return [array_ops.reshape(scattered, in_shape), None]


# --------------------------------------------------------------------------- diagonals and bands


def _align(op: Any) -> str:
    align = op.get_attr("align")
    return align.decode() if isinstance(align, bytes) else align


@RegisterGradient("MatrixBandPart")
def _matrix_band_part_grad(op: Any, grad: Any) -> list[Any]:
    return [linalg_ops.band_part(dense(grad), op.inputs[1], op.inputs[2]), None, None]


@RegisterGradient("MatrixDiagV3")
def _matrix_diag_v3_grad(op: Any, grad: Any) -> list[Any]:
    part = linalg_ops.diag_part(dense(grad), k=op.inputs[1], align=_align(op))
    return [part, None, None, None, None]


@RegisterGradient("MatrixDiagPartV3")
def _matrix_diag_part_v3_grad(op: Any, grad: Any) -> list[Any]:
    """The diagonals' gradient placed on the diagonals of zero matrices of the input's shape."""
    x, k = op.inputs[0], op.inputs[1]
    matrix = x.shape[-2:] if x.shape.rank is not None else None
    grad = dense(grad)
    if matrix is not None and matrix.is_fully_defined():
        rows, cols = matrix.as_list()
        return [linalg_ops.diag(grad, k=k, num_rows=rows, num_cols=cols, align=_align(op)), None, None]
    return [linalg_ops.set_diag(array_ops.zeros_like(x), grad, k=k, align=_align(op)), None, None]


@RegisterGradient("MatrixSetDiagV3")
def _matrix_set_diag_v3_grad(op: Any, grad: Any) -> list[Any]:
    """The input's gradient with the replaced diagonals zeroed; the diagonals' gradient read off them."""
    diagonal, k = op.inputs[1], op.inputs[2]
    grad = dense(grad)
    diag_dims = static_dims(diagonal)
    zeros = array_ops.zeros(diag_dims, dtype=grad.dtype) if diag_dims is not None else array_ops.zeros_like(diagonal)
    grad_input = linalg_ops.set_diag(grad, zeros, k=k, align=_align(op))
    grad_diag = linalg_ops.diag_part(grad, k=k, align=_align(op))
    return [grad_input, grad_diag, None]


@RegisterGradient("ExtractImagePatches")
def _extract_image_patches_grad(op: Any, grad: Any) -> list[Any]:
    """TF's rule: the patches of an image of input positions (1-based, 0 where a patch reads padding) say where
    each patch value came from; the patch gradients are summed back into those positions (UnsortedSegmentSum, the
    padding's -1 dropped) and laid out as the image again."""
    batch, rows_in, cols_in, channels = array_ops.unstack(array_ops.shape(op.inputs[0], out_type=dtypes.int64))
    rows_out, cols_out = array_ops.unstack(array_ops.shape(op.outputs[0], out_type=dtypes.int64)[1:3])
    _, ksize_r, ksize_c, _ = op.get_attr("ksizes")
    positions = rows_in * cols_in
    index_image = array_ops.reshape(math_ops.range(1, positions + 1, dtype=dtypes.float32), (1, rows_in, cols_in, 1))
    patched = apply_op(
        "ExtractImagePatches", images=index_image, ksizes=op.get_attr("ksizes"), strides=op.get_attr("strides"),
        rates=op.get_attr("rates"), padding=op.get_attr("padding"),
    )  # fmt: skip
    patched = math_ops.cast(patched, dtypes.int64)
    by_position = array_ops.transpose(
        array_ops.reshape(dense(grad), (batch, rows_out, cols_out, ksize_r, ksize_c, channels)), (1, 2, 3, 4, 0, 5)
    )
    flat = array_ops.reshape(by_position, (-1, batch * channels))
    summed = segment_ops.unsorted_segment_sum(flat, array_ops.reshape(patched, [-1]) - 1, num_segments=positions)
    return [array_ops.transpose(array_ops.reshape(summed, (rows_in, cols_in, batch, channels)), (2, 0, 1, 3))]


@RegisterGradient("ReverseSequence")
def _reverse_sequence_grad(op: Any, grad: Any) -> list[Any]:
    """The same reversal of the gradient (it is its own inverse)."""
    reversed_grad = indexing_ops.reverse_sequence(
        dense(grad), op.inputs[1], seq_axis=op.get_attr("seq_dim"), batch_axis=op.get_attr("batch_dim")
    )
    return [reversed_grad, None]


@RegisterGradient("DynamicPartition")
def _dynamic_partition_grad(op: Any, *grads: Any) -> list[Any]:
    """TF's rule: the element positions partitioned the same way say where each partition's gradient goes back."""
    data, partitions = op.inputs
    prefix = array_ops.shape(partitions)
    positions = array_ops.reshape(math_ops.range(math_ops.reduce_prod(prefix)), prefix)
    partitioned = indexing_ops.dynamic_partition(positions, partitions, op.get_attr("num_partitions"))
    merged = apply_op("ParallelDynamicStitch", indices=partitioned, data=[dense(g) for g in grads])
    return [array_ops.reshape(merged, array_ops.shape(data)), None]


@RegisterGradient("DynamicStitch")
@RegisterGradient("ParallelDynamicStitch")
def _dynamic_stitch_grad(op: Any, grad: Any) -> list[Any]:
    """Each data piece's gradient gathered from the merged gradient at its indices."""
    n = len(op.inputs) // 2
    if isinstance(grad, IndexedSlices):
        grad = segment_ops.unsorted_segment_sum(grad.values, grad.indices, array_ops.shape(op.outputs[0])[0])
    return [None] * n + [array_ops.gather(grad, op.inputs[i]) for i in range(n)]
