"""Sparse kernels with TensorFlow's semantics and error texts: SparseToDense, SparseTensorDenseMatMul,
SparseReorder, SparseReshape, SparseFillEmptyRows(+Grad), SparseReduceSum(+Sparse), SparseAdd(+Grad),
SparseConcat, SparseSlice(+Grad) and the SparseSegment{Sum,Mean,SqrtN} reductions (with num_segments and grads).

A sparse tensor is COO: ``indices`` int64 [N, rank], ``values`` [N], ``dense_shape`` int64 [rank]. The kernels
that need TF's canonical (row-major) order sort with a stable lexicographic sort, as TF's reorder does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from modtensor.kernels.cpu.errors import invalid_argument, shape_str


def _idx(t: Any) -> str:
    return "[" + ",".join(str(int(v)) for v in np.atleast_1d(t)) + "]"


def _lex_order(indices: np.ndarray) -> np.ndarray:
    """The stable row-major order of the index rows."""
    if indices.shape[0] == 0 or indices.shape[1] == 0:
        return np.arange(indices.shape[0])
    return np.lexsort(indices.T[::-1])


def _check_matrix(t: np.ndarray, what: str) -> None:
    if t.ndim != 2:
        raise invalid_argument(f"{what} should be a matrix but received shape {shape_str(t.shape)}")


# --------------------------------------------------------------------------- SparseToDense


def sparse_to_dense(sparse_indices: np.ndarray, output_shape: np.ndarray, sparse_values: np.ndarray,
                    default_value: np.ndarray, validate_indices: bool = True) -> np.ndarray:  # fmt: skip
    """SparseToDense: ``default_value`` everywhere but at ``sparse_indices`` (a scalar, vector or matrix of
    coordinates), which take ``sparse_values`` (a scalar: the same value at all). With ``validate_indices`` the
    indices must be in bounds, sorted and unique; without, a later duplicate wins."""
    indices, shape = np.asarray(sparse_indices), np.asarray(output_shape)
    values, default = np.asarray(sparse_values), np.asarray(default_value)
    if indices.ndim > 2:
        raise invalid_argument(
            f"sparse_indices should be a scalar, vector, or matrix, got shape {shape_str(indices.shape)}"
        )
    if shape.ndim != 1:
        raise invalid_argument(f"output_shape must be rank 1, got shape {shape_str(shape.shape)}")
    num_elems = indices.shape[0] if indices.ndim > 0 else 1
    num_dims = indices.shape[1] if indices.ndim > 1 else 1
    if not (values.ndim == 0 or (values.ndim == 1 and values.shape[0] == num_elems)):
        raise invalid_argument(
            f"sparse_values has incorrect shape {shape_str(values.shape)}, should be [] or [{num_elems}]"
        )
    if default.ndim != 0:
        raise invalid_argument("default_value should be a scalar.")
    if shape.size != num_dims:
        raise invalid_argument(f"output_shape has incorrect number of elements: {shape.size} should be: {num_dims}")
    dims = [int(d) for d in shape]
    coords = indices.reshape(num_elems, num_dims).astype(np.int64)
    vals = np.broadcast_to(values, (num_elems,))
    if validate_indices:
        _validate_sorted(coords, dims)
    elif num_elems and ((coords < 0).any() or (coords >= np.array(dims, np.int64)).any()):
        raise invalid_argument(f"Indices are not valid (out of bounds).  Shape: {shape_str(dims)}")
    out = np.full(dims, default, dtype=default.dtype if values.dtype == object else values.dtype)
    for n in range(num_elems):
        out[tuple(coords[n])] = vals[n]
    return out


def _validate_sorted(coords: np.ndarray, dims: list[int]) -> None:
    """TF's SparseTensor::ValidateIndices: in bounds, in row-major order, no repeats."""
    for n in range(coords.shape[0]):
        row = coords[n]
        if any(v < 0 or v >= d for v, d in zip(row, dims, strict=True)):
            raise invalid_argument(f"indices[{n}] = {_idx(row)} is out of bounds: need 0 <= index < {shape_str(dims)}")
        if n > 0:
            prev = tuple(int(v) for v in coords[n - 1])
            cur = tuple(int(v) for v in row)
            if cur < prev:
                raise invalid_argument(
                    f"indices[{n}] = {_idx(row)} is out of order. Many sparse ops require sorted indices.\n"
                    "    Use `tf.sparse.reorder` to create a correctly ordered copy."
                )
            if cur == prev:
                raise invalid_argument(f"indices[{n}] = {_idx(row)} is repeated")


# --------------------------------------------------------------------------- SparseTensorDenseMatMul


def sparse_tensor_dense_mat_mul(a_indices: np.ndarray, a_values: np.ndarray, a_shape: np.ndarray, b: np.ndarray,
                                adjoint_a: bool = False, adjoint_b: bool = False) -> np.ndarray:  # fmt: skip
    """SparseTensorDenseMatMul: ``op(A) @ op(B)`` for a sparse matrix A (duplicate entries add up)."""
    ind, val, shp, b = np.asarray(a_indices), np.asarray(a_values), np.asarray(a_shape), np.asarray(b)
    if ind.ndim != 2:
        raise invalid_argument("Tensor 'a_indices' is not a matrix")
    if val.ndim != 1:
        raise invalid_argument("Tensor 'a_values' is not a vector")
    if shp.ndim != 1:
        raise invalid_argument("Tensor 'a_shape' is not a vector")
    if shp.size != 2:
        raise invalid_argument("Tensor 'a_shape' must have 2 elements")
    if b.ndim != 2:
        raise invalid_argument("Tensor 'b' is not a matrix")
    if ind.shape[0] != val.shape[0]:
        raise invalid_argument("Number of rows of a_indices does not match number of entries in a_values")
    if ind.shape[1] != shp.size:
        raise invalid_argument("Number of columns of a_indices does not match number of entries in a_shape")
    outer_left, inner_left = (int(shp[1]), int(shp[0])) if adjoint_a else (int(shp[0]), int(shp[1]))
    outer_right, inner_right = (b.shape[0], b.shape[1]) if adjoint_b else (b.shape[1], b.shape[0])
    if inner_left != inner_right:
        raise invalid_argument(
            f"Cannot multiply A and B because inner dimension does not match: {inner_left} vs. {inner_right}.  "
            f"Did you forget a transpose?  Dimensions of A: [{int(shp[0])}, {int(shp[1])}).  "
            f"Dimensions of B: {shape_str(b.shape)}"
        )
    lhs, rhs = (1, 0) if adjoint_a else (0, 1)
    bm = np.conj(b.T) if adjoint_b and np.iscomplexobj(b) else (b.T if adjoint_b else b)
    out = np.zeros((outer_left, outer_right), dtype=b.dtype)
    for i in range(ind.shape[0]):
        m, k = int(ind[i, lhs]), int(ind[i, rhs])
        if not 0 <= k < inner_left:
            raise invalid_argument(f"k ({k}) from index[{i},{rhs}] out of bounds (>={inner_left})")
        if not 0 <= m < outer_left:
            raise invalid_argument(f"m ({m}) from index[{i},{lhs}] out of bounds (>={outer_left})")
        v = np.conj(val[i]) if adjoint_a and np.iscomplexobj(val) else val[i]
        out[m] += (v * bm[k]).astype(out.dtype)
    return out


def sparse_tensor_dense_add(a_indices: np.ndarray, a_values: np.ndarray, a_shape: np.ndarray,
                            b: np.ndarray) -> np.ndarray:  # fmt: skip
    """SparseTensorDenseAdd: ``b`` plus the sparse tensor's values at their coordinates (duplicates add up)."""
    ind, val, shp, b = (np.asarray(x) for x in (a_indices, a_values, a_shape, b))
    if ind.ndim != 2:
        raise invalid_argument(f"Input a_indices should be a matrix but received shape: {shape_str(ind.shape)}")
    if val.ndim != 1 or shp.ndim != 1:
        raise invalid_argument(
            "Inputs a_values and a_shape should be vectors but received shapes: "
            f"{shape_str(val.shape)} and {shape_str(shp.shape)}"
        )
    nnz, ndims = ind.shape
    if val.shape[0] != nnz:
        raise invalid_argument(f"Dimensions {nnz} and {val.shape[0]} are not compatible")
    if shp.shape[0] != ndims:
        raise invalid_argument(f"Dimensions {ndims} and {shp.shape[0]} are not compatible")
    if shp.size != b.ndim:
        raise invalid_argument(f"Two operands have different ranks; received: {shp.size} and {b.ndim}")
    for d in range(b.ndim):
        if int(shp[d]) != b.shape[d]:
            raise invalid_argument(
                f"Dimension {d} does not equal (no broadcasting is supported): sparse side {int(shp[d])} vs "
                f"dense side {b.shape[d]}"
            )
    out = b.copy()
    for i in range(nnz):
        for d in range(ndims):
            if not 0 <= int(ind[i, d]) < b.shape[d]:
                raise invalid_argument(
                    f"Sparse tensor has an invalid index on dimension {d}: a_indices({i},{d}) = {int(ind[i, d])}, "
                    f"dense tensor shape: {' '.join(str(s) for s in b.shape)}"
                )
        out[tuple(int(v) for v in ind[i])] += val[i]
    return out


# --------------------------------------------------------------------------- SparseReorder / SparseReshape


def _check_sparse(indices: np.ndarray, values: np.ndarray, shape: np.ndarray) -> None:
    _check_matrix(indices, "Input indices")
    if values.ndim != 1:
        raise invalid_argument(f"Input values should be a vector but received shape {shape_str(values.shape)}")
    if shape.ndim != 1:
        raise invalid_argument(f"Input shape should be a vector but received shape {shape_str(shape.shape)}")


def sparse_reorder(input_indices: np.ndarray, input_values: np.ndarray,
                   input_shape: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """SparseReorder: the entries in row-major order (equal indices keep their order)."""
    ind, val, shp = np.asarray(input_indices), np.asarray(input_values), np.asarray(input_shape)
    _check_sparse(ind, val, shp)
    if ind.shape[0] != val.shape[0]:
        raise invalid_argument(
            f"Number of elements in indices ({ind.shape[0]}) and values ({val.shape[0]}) do not match"
        )
    if ind.shape[1] != shp.shape[0]:
        raise invalid_argument(f"Index rank ({ind.shape[1]}) and shape rank ({shp.shape[0]}) do not match")
    order = _lex_order(ind)
    return ind[order].astype(np.int64), val[order]


def sparse_reshape(input_indices: np.ndarray, input_shape: np.ndarray,
                   new_shape: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """SparseReshape: the entries' coordinates in the new shape (one -1 dimension inferred)."""
    ind, shp, new = np.asarray(input_indices), np.asarray(input_shape), np.asarray(new_shape)
    _check_matrix(ind, "Input indices")
    if shp.ndim != 1:
        raise invalid_argument(f"Input shape should be a vector but received shape {shape_str(shp.shape)}")
    if new.ndim != 1:
        raise invalid_argument(f"Target shape should be a vector but received shape {shape_str(new.shape)}")
    if ind.shape[1] != shp.shape[0]:
        raise invalid_argument("Input tensor rank must match input shape length.")
    in_dims = [int(d) for d in shp]
    dense_size = int(np.prod(in_dims, dtype=np.int64)) if in_dims else 1
    out_dims, unknown, product = [], -1, 1
    for d, size in enumerate(int(s) for s in new):
        if size == -1:
            if unknown != -1:
                raise invalid_argument(f"only one output dimension may be -1, not both {unknown} and {d}")
            unknown = d
            out_dims.append(1)
        else:
            if size < 0:
                raise invalid_argument(f"size {d} must be non-negative, not {size}")
            product *= size
            out_dims.append(size)
    if unknown != -1:
        if product <= 0:
            raise invalid_argument(
                "reshape cannot infer the missing input size for an empty tensor unless all specified input "
                "sizes are non-zero"
            )
        missing = dense_size // product
        if product * missing != dense_size:
            raise invalid_argument(
                f"Input to reshape is a SparseTensor with {dense_size} dense values, but the requested shape "
                f"requires a multiple of {product}. input_shape={shape_str(in_dims)} "
                f"output_shape={shape_str(out_dims)}"
            )
        out_dims[unknown] = missing
    total = int(np.prod(out_dims, dtype=np.int64)) if out_dims else 1
    if total != dense_size:
        raise invalid_argument(
            f"Input to reshape is a tensor with {dense_size} dense values, but the requested shape has {total}. "
            f"input_shape={shape_str(in_dims)} output_shape={shape_str(out_dims)}"
        )
    out_shape = np.array(out_dims, np.int64)
    if in_dims == out_dims:
        return ind.astype(np.int64), out_shape
    linear = np.zeros(ind.shape[0], np.int64)
    for d, size in enumerate(in_dims):
        linear = linear * size + ind[:, d].astype(np.int64)
    out = np.zeros((ind.shape[0], len(out_dims)), np.int64)
    for d in range(len(out_dims) - 1, -1, -1):
        size = out_dims[d]
        out[:, d] = linear % size if size else 0
        linear = linear // size if size else linear
    return out, out_shape


# --------------------------------------------------------------------------- SparseFillEmptyRows


def sparse_fill_empty_rows(
    indices: np.ndarray, values: np.ndarray, dense_shape: np.ndarray, default_value: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """SparseFillEmptyRows: each empty row gets one ``default_value`` at ``[row, 0, ...]``; entries are grouped
    by row (in their order within a row). Also the empty-row indicator and each input entry's output position."""
    ind, val, shp, default = (np.asarray(x) for x in (indices, values, dense_shape, default_value))
    if shp.ndim != 1:
        raise invalid_argument(f"dense_shape must be a vector, saw: {shape_str(shp.shape)}")
    if ind.ndim != 2:
        raise invalid_argument(f"indices must be a matrix, saw: {shape_str(ind.shape)}")
    if val.ndim != 1:
        raise invalid_argument(f"values must be a vector, saw: {shape_str(val.shape)}")
    if default.ndim != 0:
        raise invalid_argument(f"default_value must be a scalar, saw: {shape_str(default.shape)}")
    if val.shape[0] != ind.shape[0]:
        raise invalid_argument(
            f"The length of `values` ({val.shape[0]}) must match the first dimension of `indices` ({ind.shape[0]})."
        )
    if shp.shape[0] != ind.shape[1]:
        raise invalid_argument(
            f"The length of `dense_shape` ({shp.shape[0]}) must match the second dimension of `indices` "
            f"({ind.shape[1]})."
        )
    if shp.shape[0] == 0:
        raise invalid_argument("Dense shape cannot be empty.")
    n, rank, rows = ind.shape[0], ind.shape[1], int(shp[0])
    if rows == 0 and n > 0:
        raise invalid_argument(f"Received SparseTensor with dense_shape[0] = 0 but indices.shape[0] = {n}")
    counts = np.zeros(max(rows, 0), np.int64)
    for i in range(n):
        row = int(ind[i, 0])
        if row < 0 or row >= rows:
            raise invalid_argument(f"indices({i}, 0) is invalid: {row} >= {rows}")
        counts[row] += 1
    empty = counts == 0
    sizes = np.where(empty, 1, counts)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    total = int(offsets[-1]) if rows else 0
    out_ind = np.zeros((total, rank), np.int64)
    out_val = np.empty(total, dtype=val.dtype)
    filled = np.zeros(max(rows, 0), np.int64)
    reverse = np.zeros(n, np.int64)
    for i in range(n):
        row = int(ind[i, 0])
        pos = offsets[row] + filled[row]
        filled[row] += 1
        out_ind[pos] = ind[i]
        out_val[pos] = val[i]
        reverse[i] = pos
    for row in np.flatnonzero(empty):
        out_ind[offsets[row]] = 0
        out_ind[offsets[row], 0] = row
        out_val[offsets[row]] = default[()]
    return out_ind, out_val, empty, reverse


def sparse_fill_empty_rows_grad(reverse_index_map: np.ndarray,
                                grad_values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """SparseFillEmptyRowsGrad: each input entry's gradient, and the sum of the filled entries' for the default."""
    rim, grad = np.asarray(reverse_index_map), np.asarray(grad_values)
    if rim.ndim != 1:
        raise invalid_argument(f"reverse_index_map must be a vector, saw: {shape_str(rim.shape)}")
    if grad.ndim != 1:
        raise invalid_argument(f"grad_values must be a vector, saw: {shape_str(grad.shape)}")
    used = np.zeros(grad.shape[0], bool)
    for r in rim:
        if not 0 <= int(r) < grad.shape[0]:
            raise invalid_argument(f"Elements in reverse index must be in [0, {grad.shape[0]}) but got {int(r)}")
        used[int(r)] = True
    d_values = grad[rim.astype(np.int64)] if rim.size else np.zeros(0, grad.dtype)
    d_default = np.sum(grad[~used], dtype=grad.dtype)
    return d_values.astype(grad.dtype), np.asarray(d_default, grad.dtype)


# --------------------------------------------------------------------------- SparseReduceSum


def _reduce_prepare(ind: np.ndarray, val: np.ndarray, shp: np.ndarray, axes: np.ndarray) -> tuple[list[int], set]:
    _check_sparse(ind, val, shp)
    if ind.shape[0] != val.shape[0]:
        raise invalid_argument(
            "indices and values rows (indexing dimension) must match. "
            f"(indices = {ind.shape[0]}, values = {val.shape[0]})"
        )
    dims = [int(d) for d in shp]
    rank = len(dims)
    reduced = set()
    for a in np.asarray(axes).reshape(-1):
        a = int(a)
        if not -rank <= a < rank:
            raise invalid_argument(f"Invalid reduction dimension {a}, for input with {rank} dimensions.")
        reduced.add(a % rank)
    return dims, reduced


def _reduce_groups(ind: np.ndarray, val: np.ndarray, dims: list[int], reduced: set,
                   keep_dims: bool) -> tuple[np.ndarray, np.ndarray, list[int]]:  # fmt: skip
    """The sums per kept coordinate (sorted), and the output's dense shape."""
    kept = [d for d in range(len(dims)) if d not in reduced]
    groups: dict[tuple[int, ...], Any] = {}
    for i in range(ind.shape[0]):
        key = tuple(int(ind[i, d]) for d in kept)
        groups[key] = groups[key] + val[i] if key in groups else val[i]
    keys = sorted(groups)
    out_dims = [1 if d in reduced else dims[d] for d in range(len(dims))] if keep_dims else [dims[d] for d in kept]
    if keep_dims:
        coords = np.zeros((len(keys), len(dims)), np.int64)
        for n, key in enumerate(keys):
            coords[n, kept] = key
    else:
        coords = np.array(keys, np.int64).reshape(len(keys), len(kept))
    values = np.array([groups[k] for k in keys], dtype=val.dtype).reshape(len(keys))
    return coords, values, out_dims


def sparse_reduce_sum(input_indices: np.ndarray, input_values: np.ndarray, input_shape: np.ndarray,
                      reduction_axes: np.ndarray, keep_dims: bool = False) -> np.ndarray:  # fmt: skip
    """SparseReduceSum: the dense sum over ``reduction_axes`` (negative axes count from the end)."""
    ind, val, shp = np.asarray(input_indices), np.asarray(input_values), np.asarray(input_shape)
    dims, reduced = _reduce_prepare(ind, val, shp, reduction_axes)
    coords, values, out_dims = _reduce_groups(ind, val, dims, reduced, keep_dims)
    out = np.zeros(out_dims, val.dtype)
    for n in range(coords.shape[0]):
        out[tuple(coords[n])] += values[n]
    return out


def sparse_reduce_sum_sparse(input_indices: np.ndarray, input_values: np.ndarray, input_shape: np.ndarray,
                             reduction_axes: np.ndarray,
                             keep_dims: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """SparseReduceSumSparse: the sums as a sparse tensor (one entry per kept coordinate present)."""
    ind, val, shp = np.asarray(input_indices), np.asarray(input_values), np.asarray(input_shape)
    dims, reduced = _reduce_prepare(ind, val, shp, reduction_axes)
    coords, values, out_dims = _reduce_groups(ind, val, dims, reduced, keep_dims)
    return coords, values, np.array(out_dims, np.int64)


# --------------------------------------------------------------------------- SparseAdd


def sparse_add(a_indices: np.ndarray, a_values: np.ndarray, a_shape: np.ndarray, b_indices: np.ndarray,
               b_values: np.ndarray, b_shape: np.ndarray,
               thresh: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """SparseAdd: the merge of two sorted sparse tensors; a sum of coinciding entries is kept only when its
    magnitude is at least ``thresh`` (entries of one operand alone are always kept)."""
    ai, av, ash, bi, bv, bsh, th = (np.asarray(x) for x in (a_indices, a_values, a_shape, b_indices, b_values,
                                                             b_shape, thresh))  # fmt: skip
    for t, what in ((ai, "Input indices"), (bi, "Input indices")):
        _check_matrix(t, what)
    if av.ndim != 1 or bv.ndim != 1:
        raise invalid_argument(
            f"Inputs a_values and b_values should be vectors but received shapes: {shape_str(av.shape)} and "
            f"{shape_str(bv.shape)}"
        )
    if av.shape[0] != ai.shape[0] or bv.shape[0] != bi.shape[0]:
        raise invalid_argument(
            f"Expected {ai.shape[0]} and {bi.shape[0]} non-empty input values, got {av.shape[0]} and {bv.shape[0]}"
        )
    if ash.shape != bsh.shape:
        raise invalid_argument(f"Operands do not have the same ranks; got shapes: {_idx(ash)} and {_idx(bsh)}")
    for d in range(ash.shape[0]):
        if int(ash[d]) != int(bsh[d]):
            raise invalid_argument(
                f"Operands' shapes do not match: got {int(ash[d])} and {int(bsh[d])} for dimension {d}"
            )
    if th.ndim != 0:
        raise invalid_argument(f"The magnitude threshold must be a scalar: got shape {shape_str(th.shape)}")
    limit = th.item()
    out_ind, out_val = [], []
    i = j = 0
    na, nb = ai.shape[0], bi.shape[0]
    while i < na and j < nb:
        ka, kb = tuple(int(v) for v in ai[i]), tuple(int(v) for v in bi[j])
        if ka < kb:
            out_ind.append(ai[i])
            out_val.append(av[i])
            i += 1
        elif ka > kb:
            out_ind.append(bi[j])
            out_val.append(bv[j])
            j += 1
        else:
            s = av[i] + bv[j]
            if limit <= abs(s):
                out_ind.append(ai[i])
                out_val.append(s)
            i += 1
            j += 1
    out_ind += list(ai[i:]) + list(bi[j:])
    out_val += list(av[i:]) + list(bv[j:])
    rank = ai.shape[1]
    indices = np.array(out_ind, np.int64).reshape(len(out_ind), rank)
    return indices, np.array(out_val, dtype=av.dtype).reshape(len(out_val)), ash.astype(np.int64)


def sparse_add_grad(backprop_val_grad: np.ndarray, a_indices: np.ndarray, b_indices: np.ndarray,
                    sum_indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """SparseAddGrad: each operand entry gets the gradient of the sum entry at its coordinates (zero if dropped)."""
    grad = np.asarray(backprop_val_grad)
    ai, bi, si = (np.asarray(x) for x in (a_indices, b_indices, sum_indices))
    where = {tuple(int(v) for v in row): k for k, row in enumerate(si)}

    def pick(ind: np.ndarray) -> np.ndarray:
        out = np.zeros(ind.shape[0], grad.dtype)
        for n, row in enumerate(ind):
            k = where.get(tuple(int(v) for v in row))
            if k is not None:
                out[n] = grad[k]
        return out

    return pick(ai), pick(bi)


# --------------------------------------------------------------------------- SparseConcat / SparseSlice


def sparse_concat(indices: list[np.ndarray], values: list[np.ndarray], shapes: list[np.ndarray],
                  concat_dim: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """SparseConcat: the inputs side by side along ``concat_dim`` (their coordinates offset), in row-major order."""
    inds = [np.asarray(x) for x in indices]
    vals = [np.asarray(x) for x in values]
    shps = [np.asarray(x) for x in shapes]
    for n, (ind, val, shp) in enumerate(zip(inds, vals, shps, strict=True)):
        if ind.ndim != 2:
            raise invalid_argument(f"Input indices should be a matrix but received shape {shape_str(ind.shape)} "
                                   f"at position {n}")  # fmt: skip
        if val.ndim != 1:
            raise invalid_argument(f"Input values should be a vector but received shape {shape_str(val.shape)} "
                                   f"at position {n}")  # fmt: skip
        if shp.ndim != 1:
            raise invalid_argument(f"Input shapes should be a vector but received shape {shape_str(shp.shape)} "
                                   f"at position {n}")  # fmt: skip
    rank = shps[0].shape[0]
    for n, shp in enumerate(shps):
        if shp.shape[0] != rank:
            raise invalid_argument(
                f"Ranks of all input tensors must match: expected {rank} but got {shp.shape[0]} at position {n}"
            )
    if not -rank <= concat_dim < rank:
        raise invalid_argument(f"Concat dimension must be in range [{-rank}, {rank}), got {concat_dim}")
    dim = concat_dim % rank
    for n, shp in enumerate(shps[1:], 1):
        for d in range(rank):
            if d != dim and int(shp[d]) != int(shps[0][d]):
                raise invalid_argument(
                    f"Input shapes must match: expected {int(shps[0][d])} for dimension {d} but got "
                    f"{int(shp[d])} at position {n}"
                )
    offset = 0
    parts = []
    for ind, shp in zip(inds, shps, strict=True):
        shifted = ind.astype(np.int64).copy()
        shifted[:, dim] += offset
        offset += int(shp[dim])
        parts.append(shifted)
    all_ind = np.concatenate(parts, axis=0) if parts else np.zeros((0, rank), np.int64)
    all_val = np.concatenate(vals)
    order = _lex_order(all_ind)
    out_shape = shps[0].astype(np.int64).copy()
    out_shape[dim] = offset
    return all_ind[order], all_val[order], out_shape


def sparse_slice(indices: np.ndarray, values: np.ndarray, shape: np.ndarray, start: np.ndarray,
                 size: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """SparseSlice: the entries in ``[start, start + size)`` (in their order), their coordinates from ``start``; the
    output shape is ``size`` clipped to the input's extent."""
    ind, val, shp, st, sz = (np.asarray(x) for x in (indices, values, shape, start, size))
    _check_sparse(ind, val, shp)
    rank = shp.shape[0]
    if st.ndim != 1:
        raise invalid_argument(f"Input start should be a vector but received shape {shape_str(st.shape)}")
    if sz.ndim != 1:
        raise invalid_argument(f"Input size should be a vector but received shape {shape_str(sz.shape)}")
    if st.shape[0] != rank:
        raise invalid_argument(f"Expected start to be a vector of length {rank} but got length {st.shape[0]}")
    if sz.shape[0] != rank:
        raise invalid_argument(f"Expected size to be a vector of length {rank} but got length {sz.shape[0]}")
    for d in range(rank):
        if int(sz[d]) < 0:
            raise invalid_argument(f"Expected a non-negative size, got {int(sz[d])}")
    lo = st.astype(np.int64)
    hi = lo + sz.astype(np.int64)
    keep = np.all((ind >= lo) & (ind < hi), axis=1) if ind.shape[0] else np.zeros(0, bool)
    out_shape = np.maximum(np.minimum(lo + sz, shp) - lo, 0).astype(np.int64)
    return (ind[keep] - lo).astype(np.int64).reshape(-1, rank), val[keep], out_shape


def sparse_slice_grad(backprop_val_grad: np.ndarray, input_indices: np.ndarray, input_start: np.ndarray,
                      output_indices: np.ndarray) -> np.ndarray:  # fmt: skip
    """SparseSliceGrad: each input entry the gradient of its entry in the slice (zero when sliced away)."""
    grad, ind, start, out = (np.asarray(x) for x in (backprop_val_grad, input_indices, input_start, output_indices))
    result = np.zeros(ind.shape[0], grad.dtype)
    j = 0
    for i in range(ind.shape[0]):
        if j < out.shape[0] and np.array_equal(ind[i] - start, out[j]):
            result[i] = grad[j]
            j += 1
    if j != out.shape[0]:
        from modtensor.framework.errors import InternalError

        raise InternalError(None, None, f"Elements of backprop_val_grad aren't all propagated. Num elements: "
                            f"{out.shape[0]}, used: {j}")  # fmt: skip
    return result


# --------------------------------------------------------------------------- SparseSegment*


def _segment_reduce(kind: str, data: np.ndarray, indices: np.ndarray, segment_ids: np.ndarray,
                    num_segments: np.ndarray | None) -> np.ndarray:  # fmt: skip
    data, idx, ids = np.asarray(data), np.asarray(indices), np.asarray(segment_ids)
    if idx.ndim != 1:
        raise invalid_argument("indices should be a vector.")
    if ids.ndim != 1:
        raise invalid_argument("segment_ids should be a vector.")
    n = idx.shape[0]
    if ids.shape[0] != n:
        raise invalid_argument("segment_ids and indices should have same size.")
    last = int(ids[-1]) if n else 0
    if num_segments is not None:
        rows = int(np.asarray(num_segments))
        if n and last >= rows:
            raise invalid_argument("segment ids must be < num_segments")
    else:
        rows = last + 1 if n else 0
    if rows < 0:
        raise invalid_argument("segment ids must be >= 0")
    out = np.zeros((rows, *data.shape[1:]), data.dtype)
    start = 0
    while start < n:
        seg = int(ids[start])
        end = start + 1
        while end < n and int(ids[end]) == seg:
            end += 1
        if end < n and not seg < int(ids[end]):
            raise invalid_argument("segment ids are not increasing")
        if not 0 <= seg < rows:
            raise invalid_argument(
                f"Segment id {seg} out of range [0, {rows}), possibly because 'segment_ids' input is not sorted."
            )
        for k in range(start, end):
            if not 0 <= int(idx[k]) < data.shape[0]:
                raise invalid_argument(f"Bad: indices[{k}] == {int(idx[k])} out of range [0, {data.shape[0]})")
        acc = np.zeros(data.shape[1:], np.float64 if data.dtype.kind == "f" else data.dtype)
        for k in range(start, end):
            acc = acc + data[int(idx[k])]
        count = end - start
        if kind == "mean":
            acc = acc / count
        elif kind == "sqrtn":
            acc = acc / np.sqrt(count)
        out[seg] = acc
        start = end
    return out


def _segment_grad(kind: str, grad: np.ndarray, indices: np.ndarray, segment_ids: np.ndarray,
                  output_dim0: np.ndarray) -> np.ndarray:  # fmt: skip
    grad, idx, ids = np.asarray(grad), np.asarray(indices), np.asarray(segment_ids)
    rows = int(np.asarray(output_dim0))
    if idx.shape[0] != ids.shape[0]:
        raise invalid_argument("segment_ids and indices should have same size.")
    counts: dict[int, int] = {}
    for s in ids:
        s = int(s)
        if not 0 <= s < grad.shape[0]:
            raise invalid_argument(f"Segment id {s} out of range [0, {grad.shape[0]}).")
        counts[s] = counts.get(s, 0) + 1
    out = np.zeros((rows, *grad.shape[1:]), np.float64)
    for k in range(idx.shape[0]):
        i, s = int(idx[k]), int(ids[k])
        if not 0 <= i < rows:
            raise invalid_argument(f"Index {i} out of range [0, {rows}).")
        scale = 1.0 if kind == "sum" else (1.0 / counts[s] if kind == "mean" else 1.0 / np.sqrt(counts[s]))
        out[i] += grad[s].astype(np.float64) * scale
    return out.astype(grad.dtype)


def _make(kind: str, with_num: bool) -> Callable[..., np.ndarray]:
    if with_num:

        def fn(data: np.ndarray, indices: np.ndarray, segment_ids: np.ndarray, num_segments: np.ndarray,
               sparse_gradient: bool = False) -> np.ndarray:  # fmt: skip
            return _segment_reduce(kind, data, indices, segment_ids, num_segments)
    else:

        def fn(data: np.ndarray, indices: np.ndarray, segment_ids: np.ndarray,
               sparse_gradient: bool = False) -> np.ndarray:  # fmt: skip
            return _segment_reduce(kind, data, indices, segment_ids, None)

    fn.__doc__ = f"SparseSegment {kind} of the rows ``data[indices]`` per sorted segment id."
    return fn


def _make_grad(kind: str) -> Callable[..., np.ndarray]:
    def fn(grad: np.ndarray, indices: np.ndarray, segment_ids: np.ndarray, output_dim0: np.ndarray) -> np.ndarray:
        return _segment_grad(kind, grad, indices, segment_ids, output_dim0)

    fn.__doc__ = f"The gradient of SparseSegment {kind} with respect to its data ([output_dim0] + grad.shape[1:])."
    return fn


OP_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "SparseToDense": sparse_to_dense,
    "SparseTensorDenseMatMul": sparse_tensor_dense_mat_mul,
    "SparseTensorDenseAdd": sparse_tensor_dense_add,
    "SparseReorder": sparse_reorder,
    "SparseReshape": sparse_reshape,
    "SparseFillEmptyRows": sparse_fill_empty_rows,
    "SparseFillEmptyRowsGrad": sparse_fill_empty_rows_grad,
    "SparseReduceSum": sparse_reduce_sum,
    "SparseReduceSumSparse": sparse_reduce_sum_sparse,
    "SparseAdd": sparse_add,
    "SparseAddGrad": sparse_add_grad,
    "SparseConcat": sparse_concat,
    "SparseSlice": sparse_slice,
    "SparseSliceGrad": sparse_slice_grad,
}
for _kind, _name in (("sum", "Sum"), ("mean", "Mean"), ("sqrtn", "SqrtN")):
    OP_FUNCTIONS[f"SparseSegment{_name}"] = _make(_kind, False)
    OP_FUNCTIONS[f"SparseSegment{_name}WithNumSegments"] = _make(_kind, True)
    OP_FUNCTIONS[f"SparseSegment{_name}Grad"] = _make_grad(_kind)

_ALL = "FLOATS INTS UINTS COMPLEX bool string"
_NUM = "FLOATS INTS UINTS COMPLEX"
_IDX = "int32 int64"
# TF 2.21's CPU kernels (tests/golden/sparse_ops/ops/cpu_kernel_constraints.json).
CPU_TYPE_CONSTRAINTS: dict[str, dict[str, str]] = {
    "SparseToDense": {"T": _ALL, "Tindices": _IDX},
    "SparseTensorDenseMatMul": {"T": "FLOATS int32 COMPLEX", "Tindices": _IDX},
    "SparseTensorDenseAdd": {"T": _NUM, "Tindices": _IDX},
    **{op: {"T": _ALL} for op in ("SparseReorder", "SparseFillEmptyRows", "SparseConcat", "SparseSlice")},
    **{
        op: {"T": _NUM}
        for op in ("SparseFillEmptyRowsGrad", "SparseReduceSum", "SparseReduceSumSparse", "SparseSliceGrad")
    },  # fmt: skip
    **{op: {"T": "float32 float64 INTS COMPLEX"} for op in ("SparseAdd", "SparseAddGrad")},
    **{
        f"SparseSegment{k}{s}": {"T": "FLOATS", "Tidx": _IDX, "Tsegmentids": _IDX}
        for k in ("Sum", "Mean", "SqrtN")
        for s in ("", "WithNumSegments", "Grad")
    },  # fmt: skip
}
CPU_TYPE_CONSTRAINTS["SparseSegmentSum"]["T"] = "FLOATS INTS UINTS"
CPU_TYPE_CONSTRAINTS["SparseSegmentSumWithNumSegments"]["T"] = "FLOATS INTS UINTS"
