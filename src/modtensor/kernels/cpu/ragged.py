"""Ragged-tensor kernels with TensorFlow's semantics: RaggedTensorToTensor, RaggedRange, RaggedGather and
RaggedTensorToSparse.

A ragged tensor is its nested row splits (outermost first) and its flat values. RaggedTensorToTensor follows TF's
ragged_tensor_to_tensor_op.cc: every value gets an output position (-1: cut off by a smaller ``shape``) level by
level; the rest of the output is ``default_value`` broadcast over the values' inner dimensions. Validation and
error texts are TF 2.21's (which checks some malformed partitions and not others).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from modtensor.kernels.cpu.elementwise import as_numpy_dtype
from modtensor.kernels.cpu.errors import invalid_argument
from modtensor.ops.ragged_ops import combine_shapes, validate_default_value_shape

_PARTITION_TYPES = ("FIRST_DIM_SIZE", "VALUE_ROWIDS", "ROW_LENGTHS", "ROW_SPLITS", "ROW_LIMITS", "ROW_STARTS")


def _names(types: Sequence[Any]) -> list[str]:
    names = [t.decode() if isinstance(t, bytes) else str(t) for t in types]
    for name in names:
        if name not in _PARTITION_TYPES:
            raise invalid_argument(f"Unknown string for partition info type: {name}")
    return names


def _shape_from_tensor(shape: np.ndarray) -> list[int] | None:
    """TF's TensorShapeFromTensor into a PartialTensorShape: a scalar -1 is an unknown shape."""
    shape = np.asarray(shape)
    if shape.ndim == 0:
        if int(shape) == -1:
            return None
        raise invalid_argument(f"The only valid scalar shape tensor is the fully unknown shape specified as -1.")  # noqa: F541
    dims = [int(d) for d in shape.reshape(-1)]
    for d in dims:
        if d < -1:
            raise invalid_argument(f"Dimension {d} must be >= -1")
    return dims


def _max_width(kind: str, partition: np.ndarray) -> int:
    """CalculateMaxWidth: the longest row a ROW_SPLITS or VALUE_ROWIDS partition describes."""
    p = np.asarray(partition, np.int64).reshape(-1)
    if kind == "ROW_SPLITS":
        return int(np.max(p[1:] - p[:-1])) if p.size > 1 else 0
    if kind == "VALUE_ROWIDS":
        if p.size == 0:
            return 0
        starts = np.flatnonzero(np.concatenate([[True], p[1:] != p[:-1], [True]]))
        return int(np.max(np.diff(starts)))
    raise invalid_argument(f"Cannot handle partition type {kind}")


def _index_row_split(splits: np.ndarray, parent: np.ndarray, multiplier: int, size: int) -> np.ndarray:
    """CalculateOutputIndexRowSplit: each value's position; past ``size`` in its row or under a cut parent: -1."""
    splits = np.asarray(splits, np.int64).reshape(-1)
    out: list[np.ndarray] = []
    for i in range(splits.size - 1):
        length = int(splits[i + 1] - splits[i])
        if length <= 0:
            continue
        row = np.full(length, -1, np.int64)
        if parent[i] != -1:
            keep = min(size, length)
            row[:keep] = parent[i] + multiplier * np.arange(keep, dtype=np.int64)
        out.append(row)
    result = np.concatenate(out) if out else np.zeros(0, np.int64)
    if splits.size > 0 and result.size != splits[-1]:
        raise invalid_argument("Invalid row split size.")
    return result


def _index_value_rowids(rowids: np.ndarray, parent: np.ndarray, multiplier: int, size: int) -> np.ndarray:
    """CalculateOutputIndexValueRowID: as the row-split form, rows given by each value's (sorted) row id."""
    rowids = np.asarray(rowids, np.int64).reshape(-1)
    result = np.zeros(rowids.size, np.int64)
    if rowids.size == 0:
        return result
    nparents = parent.size

    def start(rowid: int, what: str) -> int:
        if not 0 <= rowid < nparents:
            raise invalid_argument(f"Got {what}={rowid} which is not less than {nparents}")
        return int(parent[rowid])

    current_rowid = int(rowids[0])
    current = start(current_rowid, "current_value_rowid")
    column = 0
    result[0] = current
    for i in range(1, rowids.size):
        rowid = int(rowids[i])
        if rowid == current_rowid:
            if current >= 0:
                column += 1
                current = current + multiplier if column < size else -1
        else:
            column = 0
            current_rowid = rowid
            current = start(rowid, "next_value_rowid")
        result[i] = current
    return result


def ragged_tensor_to_tensor(shape: np.ndarray, values: np.ndarray, default_value: np.ndarray,
                            row_partition_tensors: list[np.ndarray], row_partition_types: Sequence[Any],
                            **_: Any) -> np.ndarray:  # fmt: skip
    """RaggedTensorToTensor: the dense form of a ragged tensor, padded with (or cut to) ``shape``."""
    types = _names(row_partition_types)
    ragged_rank = len(types) - 1 if types and types[0] == "FIRST_DIM_SIZE" else len(types)
    values = np.asarray(values)
    default_value = np.asarray(default_value)
    first = np.asarray(row_partition_tensors[0])
    if first.size == 0:
        raise invalid_argument("Invalid first partition input. Tensor requires at least one element.")
    if types[0] == "FIRST_DIM_SIZE":
        first_dim = int(first.reshape(-1)[0])
    elif types[0] == "ROW_SPLITS":
        first_dim = first.shape[0] - 1
    elif types[0] == "VALUE_ROWIDS":
        raise invalid_argument("Cannot handle VALUE_ROWIDS in first dimension.")
    else:
        raise invalid_argument(f"Cannot handle type {types[0]}")
    validate_default_value_shape(list(default_value.shape), list(values.shape))
    requested = _shape_from_tensor(shape)
    combined = combine_shapes(ragged_rank, requested, list(values.shape))
    assert combined is not None
    sizes = list(combined)
    if sizes[0] < 0:
        sizes[0] = first_dim
    offset = 1 if types[0] == "FIRST_DIM_SIZE" else 0
    for i in range(1, ragged_rank + 1):
        if sizes[i] < 0:
            sizes[i] = _max_width(types[i - 1 + offset], row_partition_tensors[i - 1 + offset])
    for d in sizes:
        if d < 0:
            raise invalid_argument(f"Dimension {d} must be >= 0")
    element_shape = tuple(values.shape[1:])
    default = np.broadcast_to(default_value.astype(values.dtype), element_shape)
    output = np.empty(sizes, values.dtype)
    output[...] = default
    multiplier = [1] * (ragged_rank + 1)
    for i in range(ragged_rank - 1, -1, -1):
        multiplier[i] = multiplier[i + 1] * sizes[i + 1]
    if multiplier[0] * sizes[0] <= 0:
        return output
    keep = min(first_dim, sizes[0])
    index = np.concatenate([multiplier[0] * np.arange(keep, dtype=np.int64),
                            np.full(max(first_dim - keep, 0), -1, np.int64)])  # fmt: skip
    for i in range(1, ragged_rank + 1):
        kind, partition = types[i - 1 + offset], row_partition_tensors[i - 1 + offset]
        if kind == "ROW_SPLITS":
            index = _index_row_split(partition, index, multiplier[i], sizes[i])
        elif kind == "VALUE_ROWIDS":
            index = _index_value_rowids(partition, index, multiplier[i], sizes[i])
        else:
            raise invalid_argument(f"Cannot handle partition type {kind}")
    count = min(index.size, values.shape[0])
    index = index[:count]
    flat = output.reshape((-1, *element_shape))
    keep_mask = index >= 0
    flat[index[keep_mask]] = values[:count][keep_mask]
    return output


def ragged_range(starts: np.ndarray, limits: np.ndarray, deltas: np.ndarray, Tsplits: Any = np.int64,  # noqa: N803
                 **_: Any) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """RaggedRange: row ``i`` is ``range(starts[i], limits[i], deltas[i])`` (scalars broadcast)."""
    inputs = {"starts": np.asarray(starts), "limits": np.asarray(limits), "deltas": np.asarray(deltas)}
    for name, array in inputs.items():
        if array.ndim > 1:
            raise invalid_argument(f"{name} must be a scalar or vector")
    sizes = [a.shape[0] for a in inputs.values() if a.ndim == 1]
    if any(s != sizes[0] for s in sizes):
        raise invalid_argument("starts, limits, and deltas must have the same shape")
    nrows = sizes[0] if sizes else 1
    dtype = inputs["starts"].dtype
    columns = [np.broadcast_to(a.reshape(-1), (nrows,)) if a.ndim == 0 else a for a in inputs.values()]
    splits_dtype = np.dtype(as_numpy_dtype(Tsplits))
    splits = np.zeros(nrows + 1, np.int64)
    rows: list[np.ndarray] = []
    integral = np.issubdtype(dtype, np.integer)
    for row in range(nrows):
        start, limit, delta = (c[row] for c in columns)
        if delta == 0:
            raise invalid_argument("Requires delta != 0")
        if (delta > 0 and limit < start) or (delta < 0 and limit > start):
            size = 0
        elif integral:
            span, step = abs(int(limit) - int(start)), abs(int(delta))
            size = (span + step - 1) // step
        else:
            size = int(np.ceil(np.abs((limit - start) / delta)))
        if size > np.iinfo(splits_dtype).max - splits[row]:
            raise invalid_argument("The total range size overflowed. Consider using int64 instead of int32 for "
                                   "row_splits_dtype.")  # fmt: skip
        splits[row + 1] = splits[row] + size
        if integral:
            with np.errstate(over="ignore"):
                rows.append((start + delta * np.arange(size, dtype=dtype)).astype(dtype))
        else:  # TF adds delta one step at a time
            steps = np.full(size, delta, dtype)
            if size:
                steps[0] = start
            rows.append(np.add.accumulate(steps, dtype=dtype))
    values = np.concatenate(rows).astype(dtype) if rows else np.zeros(0, dtype)
    return splits.astype(splits_dtype), values


def _index_string(shape: tuple[int, ...], i: int) -> str:
    """TF's SliceDebugString: the multi-index of flat position ``i``, ``[i,j]``."""
    if not shape:
        return ""
    return "[" + ",".join(str(int(x)) for x in np.unravel_index(i, shape)) + "]"


def ragged_gather(params_nested_splits: list[np.ndarray], params_dense_values: np.ndarray, indices: np.ndarray,
                  OUTPUT_RAGGED_RANK: int = 1, **_: Any) -> tuple[np.ndarray, ...]:  # noqa: N803  # fmt: skip
    """RaggedGather: rows ``indices`` of a ragged tensor (dense dimensions of ``indices`` become uniform splits)."""
    del OUTPUT_RAGGED_RANK
    nested = [np.asarray(s) for s in params_nested_splits]
    splits_dtype = nested[0].dtype
    values = np.asarray(params_dense_values)
    indices = np.asarray(indices)
    num_params = nested[0].shape[0] - 1
    flat_indices = indices.reshape(-1).astype(np.int64)
    for i, index in enumerate(flat_indices):
        if index < 0 or index >= num_params:
            raise invalid_argument(f"indices{_index_string(indices.shape, i)} = {index} is not in [0, {num_params})")
    if values.ndim == 0:
        raise invalid_argument("params.rank must be nonzero")
    sizes = [s.shape[0] - 1 for s in nested[1:]] + [values.shape[0]]
    for splits, size in zip(nested, sizes, strict=True):
        s = splits.astype(np.int64)
        if s.size and np.any(s[1:] < s[:-1]):
            raise invalid_argument("Ragged splits must be sorted")
        if s.size and s[-1] > size:
            raise invalid_argument("Ragged splits must not point past values")
    out_splits: list[np.ndarray] = []
    nrows = 1
    for dim in range(indices.ndim - 1):
        nrows *= indices.shape[dim]
        out_splits.append(np.arange(nrows + 1, dtype=np.int64) * indices.shape[dim + 1])
    starts, limits = flat_indices, flat_indices + 1
    for level, splits in enumerate(nested):
        s = splits.astype(np.int64)
        row_starts, row_limits = s[starts], s[limits]
        if level > 0 or indices.ndim > 0:
            out_splits.append(np.concatenate([[0], np.cumsum(row_limits - row_starts)]).astype(np.int64))
        # the rows of the next level that these rows span
        spans = [np.arange(a, b, dtype=np.int64) for a, b in zip(row_starts, row_limits, strict=True)]
        starts = np.concatenate(spans) if spans else np.zeros(0, np.int64)
        limits = starts + 1
    pieces = [values[a:b] for a, b in zip(starts, limits, strict=True)]
    out_values = np.concatenate(pieces) if pieces else np.zeros((0, *values.shape[1:]), values.dtype)
    return (*[s.astype(splits_dtype) for s in out_splits], out_values.astype(values.dtype))


def ragged_tensor_to_sparse(rt_nested_splits: list[np.ndarray], rt_dense_values: np.ndarray,
                            **_: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """RaggedTensorToSparse: the COO indices, values (flattened) and dense shape of a ragged tensor."""
    nested = [np.asarray(s, np.int64).reshape(-1) for s in rt_nested_splits]
    values = np.asarray(rt_dense_values)
    for i, s in enumerate(nested):
        if s.size == 0:
            raise invalid_argument("ragged splits may not be empty.")
        if s[0] != 0:
            raise invalid_argument("First value of ragged splits must be 0.")
        for j in range(1, s.size):
            if s[j] < s[j - 1]:
                raise invalid_argument(f"Ragged splits should be non decreasing, but we got {s[j - 1]} followed by "
                                       f"{s[j]}")  # fmt: skip
        if i > 0 and s.size != nested[i - 1][-1] + 1:
            raise invalid_argument("Final value of ragged splits must match the length the corresponding ragged "
                                   "values.")  # fmt: skip
    if values.shape[0] != nested[-1][-1]:
        raise invalid_argument("Final value of ragged splits must match the length the corresponding ragged values.")
    # each item of each level: its row and its position in the row, expanded down to the values
    prefix = np.arange(nested[0].size - 1, dtype=np.int64).reshape(-1, 1)
    dense_shape = [nested[0].size - 1]
    for s in nested:
        lengths = s[1:] - s[:-1]
        rows = np.repeat(np.arange(lengths.size, dtype=np.int64), lengths)
        position = np.arange(s[-1], dtype=np.int64) - s[rows]
        prefix = np.concatenate([prefix[rows], position.reshape(-1, 1)], axis=1)
        dense_shape.append(int(lengths.max()) if lengths.size else 0)
    inner = values.shape[1:]
    if inner:
        grid = np.indices(inner).reshape(len(inner), -1).T
        count = grid.shape[0]
        prefix = np.concatenate([np.repeat(prefix, count, axis=0), np.tile(grid, (prefix.shape[0], 1))], axis=1)
    indices = prefix.astype(np.int64).reshape(-1, 1 + len(nested) + len(inner))
    shape = np.array([*dense_shape, *inner], np.int64)
    return indices, values.reshape(-1), shape


OP_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "RaggedTensorToTensor": ragged_tensor_to_tensor,
    "RaggedRange": ragged_range,
    "RaggedGather": ragged_gather,
    "RaggedTensorToSparse": ragged_tensor_to_sparse,
}
_ALL = "FLOATS INTS UINTS bool COMPLEX string"
# TF 2.21's CPU kernels (tests/golden/ragged/ops/cpu_kernel_constraints.json; quantized types left out).
CPU_TYPE_CONSTRAINTS: dict[str, dict[str, str]] = {
    "RaggedTensorToTensor": {"T": _ALL, "Tindex": "int32 int64"},
    "RaggedRange": {"T": "float32 float64 int32 int64", "Tsplits": "int32 int64"},
    "RaggedGather": {"Tvalues": _ALL, "Tindices": "int32 int64", "Tsplits": "int32 int64"},
    "RaggedTensorToSparse": {"Tsplits": "int32 int64"},
}
