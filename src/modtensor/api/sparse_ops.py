"""``tf.sparse``: TF's sparse-tensor functions over the ``Sparse*`` ops, and ``tf.nn.embedding_lookup_sparse``.

Each function is TF 2.21's composition (python/ops/sparse_ops.py, embedding_ops.py) of the same ops: a
``SparseTensor`` in, a ``SparseTensor`` (or dense tensor) out. ``transpose`` reorders its result as TF does; the
ops that need row-major order (``to_dense`` with validation, ``add``) expect it from their inputs, as in TF.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.api import array_ops, indexing_ops, math_ops
from modtensor.api.constant_op import constant
from modtensor.api.dispatch import apply_op
from modtensor.api.op_scope import constant_value, convert_to_tensor, op_scope
from modtensor.api.sparse_tensor import SparseTensor
from modtensor.framework import dtypes
from modtensor.framework.tensor import Tensor

__all__ = [
    "SparseTensor", "add", "concat", "expand_dims", "fill_empty_rows", "from_dense", "reduce_sum", "reorder",
    "reshape", "retain", "segment_mean", "segment_sqrt_n", "segment_sum", "slice", "sparse_dense_matmul",
    "to_dense", "to_indicator", "transpose", "embedding_lookup_sparse",
]  # fmt: skip


def _check(sp_input: Any) -> SparseTensor:
    if not isinstance(sp_input, SparseTensor):
        raise TypeError(f"Input must be a SparseTensor, got {type(sp_input).__name__}")
    return sp_input


def _real_dtype(dtype: dtypes.DType) -> dtypes.DType:
    return {dtypes.complex64: dtypes.float32, dtypes.complex128: dtypes.float64}.get(dtype, dtype)


def to_dense(sp_input: SparseTensor, default_value: Any = None, validate_indices: bool = True,
             name: str | None = None) -> Tensor:  # fmt: skip
    """The dense tensor: ``default_value`` (zero) where ``sp_input`` has no entry (``SparseToDense``). With
    ``validate_indices`` the indices must be sorted and unique."""
    sp_input = _check(sp_input)
    default = array_ops.zeros([], dtype=sp_input.dtype) if default_value is None else default_value
    return apply_op("SparseToDense", name=name, sparse_indices=sp_input.indices, output_shape=sp_input.dense_shape,
                    sparse_values=sp_input.values, default_value=default,
                    validate_indices=validate_indices)  # fmt: skip


def from_dense(tensor: Any, name: str | None = None) -> SparseTensor:
    """The non-zero (non-empty) entries of a dense tensor as a ``SparseTensor``."""
    with op_scope(name, "dense_to_sparse", [tensor]):
        tensor = convert_to_tensor(tensor)
        indices = array_ops.where(math_ops.not_equal(tensor, array_ops.zeros_like(tensor)))
        values = indexing_ops.gather_nd(tensor, indices)
        shape = array_ops.shape(tensor, out_type=dtypes.int64)
        return SparseTensor(indices, values, shape)


def reorder(sp_input: SparseTensor, name: str | None = None) -> SparseTensor:
    """The same entries in row-major order (``SparseReorder``)."""
    sp_input = _check(sp_input)
    indices, values = apply_op("SparseReorder", name=name, input_indices=sp_input.indices,
                               input_values=sp_input.values, input_shape=sp_input.dense_shape)  # fmt: skip
    static = sp_input.shape
    dense_shape = static.as_list() if static.is_fully_defined() else array_ops.identity(sp_input.dense_shape)
    return SparseTensor(indices, values, dense_shape)


def reshape(sp_input: SparseTensor, shape: Any, name: str | None = None) -> SparseTensor:
    """The entries in a new dense shape of as many elements (one dimension may be -1; ``SparseReshape``)."""
    sp_input = _check(sp_input)
    shape = math_ops.cast(shape, dtypes.int64)
    with op_scope(name, "SparseReshape", [sp_input]) as scope:
        indices, new_shape = apply_op("SparseReshape", name=scope, input_indices=sp_input.indices,
                                      input_shape=sp_input.dense_shape, new_shape=shape)  # fmt: skip
        static = _static_reshape(sp_input, shape)
        if static is not None:
            new_shape = constant(static, dtype=dtypes.int64)
        return SparseTensor(indices, array_ops.identity(sp_input.values), new_shape)


def _static_reshape(sp_input: SparseTensor, shape: Any) -> list[int] | None:
    """The new shape when the requested one is a constant and the input's shape is known (TF's checks)."""
    requested = constant_value(shape)
    if requested is None or not sp_input.shape.is_fully_defined():
        return None
    dims = [int(d) for d in requested.reshape(-1)]
    if sum(d == -1 for d in dims) > 1:
        raise ValueError(f"At most one dimension can be inferred (-1). Found: {requested}")
    size = int(np.prod(sp_input.shape.as_list()))
    known = [d for d in dims if d != -1]
    if 0 in dims and -1 in dims:
        return None
    if -1 in dims:
        dims[dims.index(-1)] = int(size // np.prod(known))
    if int(np.prod(dims)) != size:
        shown = [None if d == -1 else d for d in requested.reshape(-1).tolist()]
        raise ValueError(f"Cannot reshape a tensor with {size} elements to shape {shown} ({int(np.prod(dims))} "
                         "elements).")  # fmt: skip
    return dims


def fill_empty_rows(sp_input: SparseTensor, default_value: Any,
                    name: str | None = None) -> tuple[SparseTensor, Tensor]:  # fmt: skip
    """Each empty row gets ``default_value`` at column 0; also which rows were empty (``SparseFillEmptyRows``)."""
    sp_input = _check(sp_input)
    with op_scope(name, "SparseFillEmptyRows", [sp_input]):
        default = convert_to_tensor(default_value, dtype=sp_input.dtype)
        out_ind, out_val, empty, _ = apply_op("SparseFillEmptyRows", indices=sp_input.indices,
                                              values=sp_input.values, dense_shape=sp_input.dense_shape,
                                              default_value=default)  # fmt: skip
        return SparseTensor(out_ind, out_val, sp_input.dense_shape), empty


def _axes(sp_input: SparseTensor, axis: Any) -> Any:
    """TF's ``_ReductionDims``: ``axis``, or every axis (a constant for a known rank, else a Range)."""
    if axis is not None:
        return axis
    rank = sp_input.shape.rank
    if rank:
        return constant(np.arange(rank, dtype=np.int32))
    return math_ops.range(0, array_ops.size(sp_input.dense_shape, out_type=dtypes.int32))


def reduce_sum(sp_input: SparseTensor, axis: Any = None, keepdims: bool | None = None,
               output_is_sparse: bool = False, name: str | None = None) -> Any:  # fmt: skip
    """The sum over ``axis`` (all axes when None): a dense tensor (``SparseReduceSum``), or with
    ``output_is_sparse`` a ``SparseTensor`` (``SparseReduceSumSparse``)."""
    sp_input = _check(sp_input)
    keep = bool(keepdims)
    axes = _axes(sp_input, axis)
    if output_is_sparse:
        ind, val, shape = apply_op("SparseReduceSumSparse", name=name, input_indices=sp_input.indices,
                                   input_values=sp_input.values, input_shape=sp_input.dense_shape,
                                   reduction_axes=axes, keep_dims=keep)  # fmt: skip
        return SparseTensor(ind, val, shape)
    return apply_op("SparseReduceSum", name=name, input_indices=sp_input.indices, input_values=sp_input.values,
                    input_shape=sp_input.dense_shape, reduction_axes=axes, keep_dims=keep)  # fmt: skip


def add(a: Any, b: Any, threshold: Any = 0) -> Any:
    """``a + b``: two SparseTensors merge (``SparseAdd``; sums of magnitude below ``threshold`` dropped); a
    SparseTensor and a dense tensor give a dense tensor (``SparseTensorDenseAdd``)."""
    sparse_a, sparse_b = isinstance(a, SparseTensor), isinstance(b, SparseTensor)
    if not (sparse_a or sparse_b):
        raise TypeError("At least one input should be SparseTensor; do you mean to use tf.add()?")
    if sparse_a and sparse_b:
        thresh = convert_to_tensor(threshold, dtype=_real_dtype(a.dtype), name="threshold")
        ind, val, shape = apply_op("SparseAdd", a_indices=a.indices, a_values=a.values, a_shape=a.dense_shape,
                                   b_indices=b.indices, b_values=b.values, b_shape=b.dense_shape,
                                   thresh=thresh)  # fmt: skip
        static = a.shape.merge_with(b.shape)
        if static.is_fully_defined():
            shape = static.as_list()
        return SparseTensor(ind, val, shape)
    sp, dense = (a, b) if sparse_a else (b, a)
    return apply_op("SparseTensorDenseAdd", a_indices=sp.indices, a_values=sp.values, a_shape=sp.dense_shape,
                    b=dense)  # fmt: skip


def concat(axis: int, sp_inputs: list[SparseTensor], expand_nonconcat_dims: bool = False,
           name: str | None = None) -> SparseTensor:  # fmt: skip
    """The inputs side by side along ``axis`` (``SparseConcat``); with ``expand_nonconcat_dims`` the other
    dimensions grow to the largest input's."""
    inputs = [_check(s) for s in sp_inputs]
    if len(inputs) == 1:
        return inputs[0]
    shapes = [s.dense_shape for s in inputs]
    if expand_nonconcat_dims:
        max_shape = math_ops.reduce_max(array_ops.concat([array_ops.reshape(s, [1, -1]) for s in shapes], 0), 0)
        shapes = [
            array_ops.concat(
                [
                    max_shape[:axis],
                    s[-1:] if axis == -1 else s[axis : axis + 1],
                    [] if axis == -1 else max_shape[axis + 1 :],
                ],
                0,
            )  # fmt: skip
            for s in shapes
        ]
    ind, val, shape = apply_op("SparseConcat", name=name, indices=[s.indices for s in inputs],
                               values=[s.values for s in inputs], shapes=shapes, concat_dim=axis)  # fmt: skip
    static = [s.shape for s in inputs]
    if all(s.is_fully_defined() for s in static):
        dims = (
            [max(s[d] for s in static) for d in range(static[0].rank)] if expand_nonconcat_dims else static[0].as_list()
        )
        dims[axis] = sum(s[axis] for s in static)
        shape = convert_to_tensor(dims, dtype=dtypes.int64)
    return SparseTensor(ind, val, shape)


def slice(sp_input: SparseTensor, start: Any, size: Any, name: str | None = None) -> SparseTensor:  # noqa: A001
    """The entries in ``[start, start + size)``, their coordinates from ``start`` (``SparseSlice``)."""
    sp_input = _check(sp_input)
    start = convert_to_tensor(start, dtype=dtypes.int64)
    size = convert_to_tensor(size, dtype=dtypes.int64)
    with op_scope(name, "SparseSlice", [sp_input]) as scope:
        ind, val, shape = apply_op("SparseSlice", name=scope, indices=sp_input.indices, values=sp_input.values,
                                   shape=sp_input.dense_shape, start=start, size=size)  # fmt: skip
        return SparseTensor(ind, val, shape)


def sparse_dense_matmul(sp_a: Any, b: Any, adjoint_a: bool = False, adjoint_b: bool = False,
                        name: str | None = None) -> Tensor:  # fmt: skip
    """``op(sp_a) @ op(b)`` with one operand sparse (``SparseTensorDenseMatMul``; a sparse ``b`` through
    ``(A B)^T = B^T A^T``)."""
    if isinstance(b, SparseTensor):
        if adjoint_a != adjoint_b:
            return array_ops.transpose(sparse_dense_matmul(b, sp_a, adjoint_a, adjoint_b))
        return array_ops.transpose(sparse_dense_matmul(b, sp_a, adjoint_a=not adjoint_a, adjoint_b=not adjoint_b))
    sp_a = _check(sp_a)
    with op_scope(name, "SparseTensorDenseMatMul", [sp_a.indices, sp_a.values, b]):
        b = convert_to_tensor(b, name="b")
        return apply_op("SparseTensorDenseMatMul", a_indices=sp_a.indices, a_values=sp_a.values,
                        a_shape=sp_a.dense_shape, b=b, adjoint_a=adjoint_a, adjoint_b=adjoint_b)  # fmt: skip


def retain(sp_input: SparseTensor, to_retain: Any) -> SparseTensor:
    """The entries where the bool vector ``to_retain`` is true."""
    sp_input = _check(sp_input)
    where_true = array_ops.reshape(array_ops.where(convert_to_tensor(to_retain)), [-1])
    return SparseTensor(
        array_ops.gather(sp_input.indices, where_true),
        array_ops.gather(sp_input.values, where_true),
        array_ops.identity(sp_input.dense_shape),
    )


def transpose(sp_input: SparseTensor, perm: Any = None, name: str | None = None) -> SparseTensor:
    """The dimensions permuted by ``perm`` (reversed by default), the entries reordered."""
    sp_input = _check(sp_input)
    with op_scope(name, "SparseTranspose", [sp_input]):
        if perm is None:
            rank = sp_input.shape.rank
            if rank is not None:
                perm = (rank - 1) - np.arange(0, rank, 1)
            else:
                rank = array_ops.size(sp_input.dense_shape, out_type=dtypes.int32)
                perm = (rank - 1) - math_ops.range(0, rank, 1)
        indices = array_ops.transpose(array_ops.gather(array_ops.transpose(sp_input.indices), perm))
        known_perm = constant_value(convert_to_tensor(perm))
        if known_perm is not None and sp_input.shape.is_fully_defined():
            old = sp_input.shape.as_list()
            shape: Any = [old[int(p)] for p in known_perm]
        else:
            shape = array_ops.gather(sp_input.dense_shape, perm)
        return reorder(SparseTensor(indices, sp_input.values, shape))


def expand_dims(sp_input: SparseTensor, axis: Any = None, name: str | None = None) -> SparseTensor:
    """A length-1 dimension inserted at ``axis`` (the last by default; negative counts from the end)."""
    sp_input = _check(sp_input)
    rank: Any = sp_input.dense_shape.shape[0]
    if rank is None:
        rank = array_ops.shape(sp_input.dense_shape)[0]
    axis = -1 if axis is None else axis
    with op_scope(name, "expand_dims", [sp_input]):
        if isinstance(axis, int):
            axis = convert_to_tensor(axis, name="axis", dtype=dtypes.int32)
        elif not isinstance(axis, Tensor):
            raise TypeError("axis must be an integer value in range [-rank(sp_input) - 1, rank(sp_input)]")
        axis = array_ops.where(axis >= 0, axis, axis + rank + 1)
        column_size = array_ops.shape(sp_input.indices)[0]
        new_index = array_ops.zeros([column_size, 1], dtype=dtypes.int64)
        before = array_ops.slice(sp_input.indices, [0, 0], [-1, axis])
        after = array_ops.slice(sp_input.indices, [0, axis], [-1, -1])
        indices = array_ops.concat([before, new_index, after], axis=1)
        shape_before = array_ops.slice(sp_input.dense_shape, [0], [axis])
        shape_after = array_ops.slice(sp_input.dense_shape, [axis], [-1])
        new_shape = convert_to_tensor([1], name="new_shape", dtype=dtypes.int64)
        shape = array_ops.concat([shape_before, new_shape, shape_after], axis=0)
        return SparseTensor(indices=indices, values=sp_input.values, dense_shape=shape)


def _segment(kind: str) -> Any:
    op = f"SparseSegment{kind}"

    def fn(data: Any, indices: Any, segment_ids: Any, num_segments: Any = None, name: str | None = None,
           sparse_gradient: bool = False) -> Tensor:  # fmt: skip
        if num_segments is not None:
            return apply_op(op + "WithNumSegments", name=name, data=data, indices=indices, segment_ids=segment_ids,
                            num_segments=num_segments, sparse_gradient=sparse_gradient)  # fmt: skip
        return apply_op(op, name=name, data=data, indices=indices, segment_ids=segment_ids,
                        sparse_gradient=sparse_gradient)  # fmt: skip

    fn.__name__ = fn.__qualname__ = {"Sum": "segment_sum", "Mean": "segment_mean", "SqrtN": "segment_sqrt_n"}[kind]
    fn.__doc__ = f"The {kind.lower()} of the rows ``data[indices]`` per sorted segment id (``{op}``)."
    return fn


def to_indicator(sp_input: SparseTensor, vocab_size: Any, name: str | None = None) -> Tensor:
    """A bool tensor ``[..., vocab_size]``: true at each row's ids (``sp_input``'s int values in its last
    dimension)."""
    sp_input = _check(sp_input)
    with op_scope(name, "SparseToIndicator", [sp_input]) as scope:
        ids = sp_input.values
        if ids.dtype != dtypes.int64:
            ids = math_ops.cast(ids, dtypes.int64)
        num = array_ops.shape(sp_input.indices)[0]
        flags = array_ops.fill(array_ops.expand_dims(num, 0), True)
        indices = array_ops.concat([sp_input.indices[:, :-1], array_ops.expand_dims(ids, axis=1)], 1)
        shape = array_ops.concat([sp_input.dense_shape[:-1], [math_ops.cast(vocab_size, dtypes.int64)]], 0)
        merged = reorder(SparseTensor(indices, flags, shape))
        return to_dense(SparseTensor(merged.indices, merged.values, shape), default_value=False,
                        validate_indices=False, name=scope)  # fmt: skip


segment_sum = _segment("Sum")
segment_mean = _segment("Mean")
segment_sqrt_n = _segment("SqrtN")


def embedding_lookup_sparse(params: Any, sp_ids: SparseTensor, sp_weights: SparseTensor | None,
                            combiner: str | None = None, max_norm: Any = None, name: str | None = None,
                            allow_fast_lookup: bool = False) -> Tensor:  # fmt: skip
    """One combined embedding per row of ``sp_ids`` (rows ``0..max(indices[:, 0])``): the sum, mean or
    sqrt(n)-scaled sum (``combiner``, default mean) of the rows of ``params`` at its ids, weighted by
    ``sp_weights``. As TF: without weights the ids index ``params`` directly (``SparseSegment*``); with weights
    the distinct ids are looked up once, gathered back and reduced with ``SegmentSum``."""
    from modtensor.api.embedding_ops import embedding_lookup

    combiner = "mean" if combiner is None else combiner
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner}")
    if isinstance(params, (list, tuple)):
        if len(params) != 1:
            raise NotImplementedError("modtensor's tf.nn.embedding_lookup_sparse takes one params tensor")
        params = params[0]
    if not isinstance(sp_ids, SparseTensor):
        raise TypeError(f"sp_ids must be SparseTensor, got {type(sp_ids)}")
    ignore_weights = sp_weights is None
    if not ignore_weights and not isinstance(sp_weights, SparseTensor):
        raise TypeError(f"sp_weights must be either None or SparseTensor,got {type(sp_weights)}")
    with op_scope(name, "embedding_lookup_sparse", [params, sp_ids]) as scope:
        segment_ids = convert_to_tensor(sp_ids.indices[:, 0], name="segment_ids")
        ids = sp_ids.values
        if not hasattr(params, "sparse_read") and not isinstance(params, Tensor):
            params = convert_to_tensor(params, name="params")
        if max_norm is None and (allow_fast_lookup or ignore_weights):
            idx, embeddings = ids, params
            if hasattr(embeddings, "sparse_read"):
                embeddings = embeddings.read_value()
        else:
            ids, idx = indexing_ops.unique(ids)
            embeddings = embedding_lookup(params, ids, max_norm=max_norm)
        if ignore_weights:
            if segment_ids.dtype not in (dtypes.int32, dtypes.int64):
                segment_ids = math_ops.cast(segment_ids, dtypes.int32)
            reduce = {"sum": segment_sum, "mean": segment_mean, "sqrtn": segment_sqrt_n}[combiner]
            return reduce(embeddings, idx, segment_ids, name=scope, sparse_gradient=not allow_fast_lookup)
        if segment_ids.dtype != dtypes.int32:
            segment_ids = math_ops.cast(segment_ids, dtypes.int32)
        weights = sp_weights.values
        embeddings = array_ops.gather(embeddings, idx)
        original_dtype = embeddings.dtype
        if embeddings.dtype in (dtypes.float16, dtypes.bfloat16):
            embeddings = math_ops.cast(embeddings, dtypes.float32)
        if weights.dtype != embeddings.dtype:
            weights = math_ops.cast(weights, embeddings.dtype)
        ones_shape = array_ops.expand_dims(array_ops.rank(embeddings) - 1, 0)
        weights_shape = array_ops.shape(weights)
        ones = array_ops.ones(ones_shape, dtype=weights_shape.dtype)
        weights = array_ops.reshape(weights, array_ops.concat([weights_shape, ones], 0))
        embeddings = embeddings * weights
        if combiner == "sum":
            embeddings = apply_op("SegmentSum", name=scope, data=embeddings, segment_ids=segment_ids)
        else:
            embeddings = apply_op("SegmentSum", data=embeddings, segment_ids=segment_ids)
            if combiner == "mean":
                total = apply_op("SegmentSum", data=weights, segment_ids=segment_ids)
            else:
                squared = math_ops.pow(weights, 2)
                total = math_ops.sqrt(apply_op("SegmentSum", data=squared, segment_ids=segment_ids))
            embeddings = apply_op("DivNoNan", name=scope, x=embeddings, y=total)
        if embeddings.dtype != original_dtype:
            embeddings = math_ops.cast(embeddings, original_dtype)
        return embeddings
