"""Gather/scatter, broadcast, reverse and split kernels with TensorFlow's semantics and errors.

GatherNd, ScatterNd (duplicates add), TensorScatterUpdate (later duplicates win) and
TensorScatterAdd index by the last dim of ``indices``; out-of-range indices are TF's
InvalidArgumentError on CPU. BroadcastTo, ReverseV2, Split and SplitV follow TF's kernels.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.kernels.cpu.errors import invalid_argument, shape_str
from modtensor.kernels.cpu.row_updates import at_rows


def _ints(x: Any) -> list[int]:
    return [int(v) for v in np.asarray(x).reshape(-1).tolist()]


def _index_str(index: np.ndarray) -> str:
    return ", ".join(str(int(v)) for v in index)


def _flat_indices(indices: np.ndarray, shape: tuple[int, ...], what: str) -> tuple[np.ndarray, int]:
    """indices ``[..., r]`` as row-major offsets into the first r dims of ``shape``; TF's error for a bad one."""
    r = indices.shape[-1]
    flat = indices.reshape(-1, r).astype(np.int64, copy=False)
    bounds = np.asarray(shape[:r], dtype=np.int64)
    outside = (flat < 0) | (flat >= bounds)
    if outside.any():
        i = int(np.nonzero(outside.any(axis=1))[0][0])
        position = np.unravel_index(i, indices.shape[:-1]) if indices.ndim > 1 else ()
        # TF names the row's position; GatherNd names a vector of indices (one row) without one.
        where = "" if indices.ndim == 1 and what == "param shape" else f"[{','.join(str(int(p)) for p in position)}]"
        raise invalid_argument(
            f"indices{where} = [{_index_str(flat[i])}] does not index into {what} {shape_str(shape)}"
        )
    if r == 0:
        return np.zeros(len(flat), np.int64), r
    strides = np.cumprod((*shape[1:r], 1)[::-1], dtype=np.int64)[::-1]  # row-major strides of the first r dims
    return (flat[:, 0] if r == 1 else flat @ strides), r


def gather_nd(params: np.ndarray, indices: np.ndarray, bad_indices_policy: Any = "") -> np.ndarray:
    """GatherNd: ``params[indices[..., 0], ..., indices[..., r-1]]`` for each leading index of ``indices``."""
    params, indices = np.asarray(params), np.asarray(indices)
    if params.ndim < 1 and indices.shape[-1:] != (0,):
        raise invalid_argument(f"params must be at least a vector{shape_str(params.shape)}")
    if indices.ndim < 1:
        raise invalid_argument(f"indices must be at least a vector{shape_str(indices.shape)}")
    r = indices.shape[-1]
    if r > params.ndim:
        raise invalid_argument(f"index innermost dimension length must be <= params rank; saw: {r} vs. {params.ndim}")
    out_shape = indices.shape[:-1] + params.shape[r:]
    if int(np.prod(out_shape, dtype=np.int64)) == 0:
        return np.zeros(out_shape, params.dtype)
    if r == 0:  # every index row selects all of params
        return np.ascontiguousarray(np.broadcast_to(params, out_shape))
    offsets, _ = _flat_indices(indices, params.shape, "param shape")
    slices = params.reshape(-1, *params.shape[r:]) if params.size else params.reshape(0, *params.shape[r:])
    return np.ascontiguousarray(slices[offsets].reshape(out_shape))


def _check_updates(indices: np.ndarray, updates: np.ndarray, shape: tuple[int, ...], scatter_nd: bool) -> None:
    if indices.ndim < 1:
        raise invalid_argument(f"Indices shape must have rank at least one. Found:{shape_str(indices.shape)}")
    r = indices.shape[-1]
    want = indices.shape[:-1] + tuple(shape[r:])
    if updates.shape != want:
        raise invalid_argument(
            "Dimensions [0,"
            f"{indices.ndim - 1}) of indices[shape={shape_str(indices.shape)}] must match dimensions [0,"
            f"{updates.ndim - len(shape) + r}) of updates[shape={shape_str(updates.shape)}]"
        )
    if r > len(shape):  # an index deeper than the output's rank: TF's words for each op
        if scatter_nd:
            raise invalid_argument(
                f"Dimensions [{r},{len(shape)}) of input[shape={shape_str(shape)}] must match dimensions "
                f"[{max(indices.ndim - 1, 1)},{updates.ndim}) of updates[shape={shape_str(updates.shape)}]"
            )
        raise invalid_argument(
            "Inner dimensions of output shape must match inner dimensions of updates shape. Output: "
            f"{shape_str(shape)} updates: {shape_str(updates.shape)}"
        )


def _scatter(tensor: np.ndarray, indices: np.ndarray, updates: np.ndarray, add: bool, what: str) -> np.ndarray:
    indices, updates = np.asarray(indices), np.asarray(updates)
    out = np.array(tensor, copy=True)
    if indices.size == 0 or updates.size == 0:
        return out
    offsets, r = _flat_indices(indices, out.shape, what)
    target = out.reshape(-1, *out.shape[r:])
    values = updates.reshape(len(offsets), *out.shape[r:])
    if add:
        at_rows(np.add, target, offsets, np.ascontiguousarray(values))
    else:
        target[offsets] = values  # numpy assigns in order: a later duplicate wins, as TF's CPU loop
    return out


def scatter_nd(indices: np.ndarray, updates: np.ndarray, shape: np.ndarray, bad_indices_policy: Any = "") -> np.ndarray:
    """ScatterNd: zeros of ``shape`` with ``updates`` added at ``indices`` (duplicates add up)."""
    indices, updates, shape_arr = np.asarray(indices), np.asarray(updates), np.asarray(shape)
    if shape_arr.ndim != 1:
        raise invalid_argument(f"Shape must be a vector{shape_str(shape_arr.shape)}")
    dims = tuple(_ints(shape_arr))
    if any(d < 0 for d in dims):
        raise invalid_argument(f"Shape must be non-negative{shape_str(dims)}")
    if int(np.prod(dims, dtype=np.int64)) == 0 and (indices.size or updates.size):
        raise invalid_argument("Indices and updates specified for empty output shape")
    _check_updates(indices, updates, dims, True)
    return _scatter(np.zeros(dims, updates.dtype), indices, updates, True, "shape")


def tensor_scatter_update(
    tensor: np.ndarray, indices: np.ndarray, updates: np.ndarray, bad_indices_policy: Any = ""
) -> np.ndarray:
    """TensorScatterUpdate: a copy of ``tensor`` with the slices at ``indices`` replaced by ``updates``."""
    tensor = np.asarray(tensor)
    _check_updates(np.asarray(indices), np.asarray(updates), tensor.shape, False)
    return _scatter(tensor, indices, updates, False, "shape")


def tensor_scatter_add(
    tensor: np.ndarray, indices: np.ndarray, updates: np.ndarray, bad_indices_policy: Any = ""
) -> np.ndarray:
    """TensorScatterAdd: a copy of ``tensor`` with ``updates`` added at ``indices``."""
    tensor = np.asarray(tensor)
    _check_updates(np.asarray(indices), np.asarray(updates), tensor.shape, False)
    return _scatter(tensor, indices, updates, True, "shape")


def broadcast_to(input: np.ndarray, shape: np.ndarray) -> np.ndarray:
    """BroadcastTo: ``input`` broadcast (numpy rules) to ``shape``."""
    x, shape_arr = np.asarray(input), np.asarray(shape)
    if shape_arr.ndim != 1:
        raise invalid_argument(f"Shape must be a 1-D tensor, got shape {shape_str(shape_arr.shape)}")
    dims = tuple(_ints(shape_arr))
    if any(d < 0 for d in dims):
        raise invalid_argument(f"Shape {shape_str(dims)} must be non-negative")
    try:
        return np.ascontiguousarray(np.broadcast_to(x, dims)).reshape(dims)  # (ascontiguousarray makes 0-d 1-d)
    except ValueError:
        if x.ndim > len(dims):
            raise invalid_argument(
                f"Rank of input ({x.ndim}) must be no greater than rank of output shape ({len(dims)})."
            ) from None
        raise invalid_argument(f"Incompatible shapes: {shape_str(x.shape)} vs. {shape_str(dims)}") from None


def reverse_v2(tensor: np.ndarray, axis: np.ndarray) -> np.ndarray:
    """ReverseV2: ``tensor`` with the given axes reversed."""
    x, axes = np.asarray(tensor), np.asarray(axis)
    if axes.ndim != 1:
        raise invalid_argument(f"'dims' must be 1-dimension, not {axes.ndim}")
    rank = x.ndim
    seen: set[int] = set()
    for i, a in enumerate(_ints(axes)):
        canonical = a + rank if a < 0 else a
        if not 0 <= canonical < rank:
            raise invalid_argument(f"'axis'[{i}] = {a} is out of valid range [0, {rank - 1}")
        if canonical in seen:
            raise invalid_argument(f"axis {canonical} specified more than once.")
        seen.add(canonical)
    if rank > 8:
        raise invalid_argument(f"ReverseV2 doesn't support tensors of rank > 8: {rank}")
    return np.ascontiguousarray(np.flip(x, axis=tuple(sorted(seen)))) if seen else x.copy()


def _split_dim(value: np.ndarray, split_dim: np.ndarray, what: str) -> int:
    d = int(np.asarray(split_dim).reshape(-1)[0])
    rank = value.ndim
    canonical = d + rank if d < 0 else d
    if not 0 <= canonical < max(rank, 1) or rank == 0:
        raise invalid_argument(f"-input rank(-{rank}) <= split_dim < input rank ({rank}), but got {d}")
    return canonical


def split(split_dim: np.ndarray, value: np.ndarray, num_split: int) -> tuple[np.ndarray, ...]:
    """Split: ``value`` cut into ``num_split`` equal pieces along ``split_dim``."""
    value = np.asarray(value)
    axis = _split_dim(value, split_dim, "Split")
    size = value.shape[axis]
    if size % num_split:
        raise invalid_argument(
            f"Number of ways to split should evenly divide the split dimension, but got split_dim {axis} "
            f"(size = {size}) and num_split {num_split}"
        )
    return _pieces(value, axis, [size // num_split] * num_split)


def _pieces(value: np.ndarray, axis: int, sizes: list[int]) -> tuple[np.ndarray, ...]:
    """``value`` cut along ``axis`` into contiguous pieces of ``sizes`` (basic slicing: np.split costs ~10x)."""
    lead = (slice(None),) * axis
    pieces = []
    start = 0
    for size in sizes:
        pieces.append(np.ascontiguousarray(value[(*lead, slice(start, start + size))]))
        start += size
    return tuple(pieces)


def split_v(
    value: np.ndarray, size_splits: np.ndarray, split_dim: np.ndarray, num_split: int
) -> tuple[np.ndarray, ...]:
    """SplitV: ``value`` cut along ``split_dim`` into pieces of ``size_splits`` (one -1 takes the rest)."""
    value = np.asarray(value)
    axis = _split_dim(value, split_dim, "SplitV")
    sizes = _ints(size_splits)
    if len(sizes) != num_split:
        raise invalid_argument(f"Number of split sizes ({len(sizes)}) must equal num_split ({num_split})")
    dim = value.shape[axis]
    unknown = [i for i, s in enumerate(sizes) if s == -1]
    if len(unknown) > 1:
        raise invalid_argument("There can only be one -1 in the input.")
    known = sum(s for s in sizes if s != -1)
    if unknown:
        sizes[unknown[0]] = dim - known
    if (unknown and known > dim) or (not unknown and known != dim) or any(s < 0 for s in sizes):
        raise invalid_argument(
            "Determined shape must either match input shape along split_dim exactly if fully specified, or be "
            f"less than the size of the input along split_dim if not fully specified.  Got: {known}"
        )
    return _pieces(value, axis, sizes)


def reverse_sequence(input: np.ndarray, seq_lengths: np.ndarray, seq_dim: int = 0,  # noqa: A002 - TF's name
                     batch_dim: int = 0) -> np.ndarray:  # fmt: skip
    """ReverseSequence: along ``seq_dim``, the first ``seq_lengths[b]`` entries of each batch entry ``b`` (along
    ``batch_dim``) reversed, the rest left in place."""
    x, lengths = np.asarray(input), np.asarray(seq_lengths)
    if lengths.ndim != 1:
        raise invalid_argument(f"seq_lengths must be 1-dim, not {lengths.ndim}")
    if batch_dim == seq_dim:
        raise invalid_argument(f"batch_dim == seq_dim == {seq_dim}")
    if seq_dim >= x.ndim:
        raise invalid_argument(f"seq_dim must be < input rank ( {seq_dim} vs. {x.ndim})")
    if batch_dim >= x.ndim:
        raise invalid_argument(f"batch_dim must be < input rank ( {batch_dim} vs. {x.ndim})")
    if lengths.size != x.shape[batch_dim]:
        raise invalid_argument(
            f"Length of seq_lengths != input.dims({batch_dim}), ({lengths.size} vs. {x.shape[batch_dim]})"
        )
    for d, n in enumerate(lengths.tolist()):
        if n < 0:
            raise invalid_argument(f"seq_lens({d}) < 0")
        if n > x.shape[seq_dim]:
            raise invalid_argument(f"seq_lens({d}) > input.dims({seq_dim})")
    out = x.copy()
    moved = np.moveaxis(out, (batch_dim, seq_dim), (0, 1))  # a view: writes land in out
    source = np.moveaxis(x, (batch_dim, seq_dim), (0, 1))
    for b, n in enumerate(lengths.tolist()):
        moved[b, :n] = source[b, :n][::-1]
    return out


OP_FUNCTIONS: dict[str, Any] = {
    "ReverseSequence": reverse_sequence,
    "GatherNd": gather_nd,
    "ScatterNd": scatter_nd,
    "TensorScatterUpdate": tensor_scatter_update,
    "TensorScatterAdd": tensor_scatter_add,
    "BroadcastTo": broadcast_to,
    "ReverseV2": reverse_v2,
    "Split": split,
    "SplitV": split_v,
}
_ALL = "FLOATS INTS UINTS bool COMPLEX string"
CPU_TYPE_CONSTRAINTS = {
    "GatherNd": {"Tparams": _ALL + " float8_e4m3fn float8_e5m2", "Tindices": "int16 int32 int64"},
    "ScatterNd": {"T": _ALL, "Tindices": "int32 int64"},
    "TensorScatterUpdate": {"T": _ALL, "Tindices": "int32 int64"},
    "TensorScatterAdd": {"T": "FLOATS INTS UINTS COMPLEX", "Tindices": "int32 int64"},
    "BroadcastTo": {"T": _ALL + " float8_e4m3fn float8_e5m2"},
    "ReverseV2": {"T": _ALL, "Tidx": "int32 int64"},
    "ReverseSequence": {"T": _ALL, "Tlen": "int32 int64"},
    "Split": {"T": _ALL + " float8_e4m3fn float8_e5m2"},
    "SplitV": {"T": _ALL + " float8_e4m3fn float8_e5m2", "Tlen": "int8 int32 int64"},
}
