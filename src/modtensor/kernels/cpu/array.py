"""Array-manipulation kernels with TensorFlow's semantics: reshape, transpose, concat, pack, slicing, gather, ...

Shape-like inputs (shape, perm, axis, begin, paddings...) arrive as int32 or
int64 numpy arrays, as TF's host-memory arguments do. Errors use TF's kernel
messages. StridedSlice lives in its own module (``strided_slice``).
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np

from modtensor.kernels.cpu.elementwise import as_numpy_dtype
from modtensor.kernels.cpu.errors import invalid_argument, shape_str, unimplemented


def _ints(x: Any) -> list[int]:
    a = x if type(x) is np.ndarray else np.asarray(x)
    if a.dtype.kind in "iu":
        return a.reshape(-1).tolist()  # python ints already
    return [int(v) for v in a.reshape(-1)]


def _scalar(x: Any, what: str) -> int:
    a = np.asarray(x)
    if a.size != 1:
        raise invalid_argument(f"{what} must be a scalar, but got shape {shape_str(a.shape)}")
    return int(a.reshape(-1)[0])


def reshape(tensor: np.ndarray, shape: np.ndarray) -> np.ndarray:
    """Reshape: one -1 entry is inferred; the element count must match."""
    tensor, shape_arr = np.asarray(tensor), np.asarray(shape)
    if shape_arr.ndim > 1:
        raise invalid_argument(f"sizes input must be 1-D, not {shape_str(shape_arr.shape)}")
    dims = _ints(shape_arr)
    unknown = [i for i, d in enumerate(dims) if d == -1]
    if len(unknown) > 1:
        raise invalid_argument(f"Only one input size may be -1, not both {unknown[0]} and {unknown[1]}")
    for i, d in enumerate(dims):
        if d < -1:
            raise invalid_argument(f"Size {i} must be non-negative, not {d}")
    if unknown:
        # As TF: zero sizes count in neither product, so the -1 is still inferred from the non-zero dims ([0] to
        # [0, -1] is [0, 1]; [2, 0] to [0, -1] is [0, 2]).
        sizes_have_zero = 0 in dims
        known = int(np.prod([d for d in dims if d > 0], dtype=np.int64))
        counted = [d for d in tensor.shape if d > 0 or not sizes_have_zero]
        count = int(np.prod(counted, dtype=np.int64))
        missing = count // known
        if len(counted) == tensor.ndim and known * missing != count:
            raise invalid_argument(
                f"Input to reshape is a tensor with {count} values, but the requested shape requires a multiple "
                f"of {known}"
            )
        dims[unknown[0]] = missing
    requested = int(np.prod(dims, dtype=np.int64))
    if requested != tensor.size:
        raise invalid_argument(
            f"Input to reshape is a tensor with {tensor.size} values, but the requested shape has {requested}"
        )
    return tensor.reshape(dims)


def transpose(x: np.ndarray, perm: np.ndarray) -> np.ndarray:
    """Transpose by a permutation vector (negative entries are not allowed, as in TF)."""
    x = np.asarray(x)
    p = _ints(perm)
    if np.asarray(perm).ndim != 1:
        raise invalid_argument(f"perm must be a vector, not {shape_str(np.shape(perm))}")
    if len(p) != x.ndim:
        raise invalid_argument(
            f"transpose expects a vector of size {x.ndim}. But input(1) is a vector of size {len(p)}"
        )
    for d in p:
        if not 0 <= d < x.ndim:
            raise invalid_argument(f"{d} is out of range [0 .. {x.ndim})")
    for d in builtins.range(x.ndim):
        if d not in p:
            raise invalid_argument(f"{d} is missing from {{{','.join(str(v) for v in p)}}}.")
    return np.asarray(x.transpose(p), order="C")


def concat_v2(values: Sequence[np.ndarray], axis: np.ndarray) -> np.ndarray:
    """ConcatV2: join N tensors along axis (negative counts from the end)."""
    vals = [np.asarray(v) for v in values]
    a = _scalar(axis, "axis")
    rank = vals[0].ndim
    if rank == 0:
        raise invalid_argument("Can't concatenate scalars (use tf.stack instead)")
    if not -rank <= a < rank:
        raise invalid_argument(
            f"ConcatOp : Expected concatenating dimensions in the range [{-rank}, {rank}), but got {a}"
        )
    a %= rank
    for i, v in enumerate(vals[1:], start=1):
        if v.ndim != rank:
            raise invalid_argument(
                f"ConcatOp : Ranks of all input tensors should match: shape[0] = {shape_str(vals[0].shape)} "
                f"vs. shape[{i}] = {shape_str(v.shape)}"
            )
        for d in builtins.range(rank):
            if d != a and v.shape[d] != vals[0].shape[d]:
                raise invalid_argument(
                    f"ConcatOp : Dimension {d} in both shapes must be equal: shape[0] = "
                    f"{shape_str(vals[0].shape)} vs. shape[{i}] = {shape_str(v.shape)}"
                )
    return np.concatenate(vals, axis=a)


def pack(values: Sequence[np.ndarray], axis: int = 0) -> np.ndarray:
    """Pack (tf.stack): N same-shaped tensors stacked along a new axis."""
    vals = [np.asarray(v) for v in values]
    rank = vals[0].ndim + 1
    if not -rank <= axis < rank:
        raise invalid_argument(f"axis = {axis} not in [{-rank}, {rank})")
    for i, v in enumerate(vals[1:], start=1):
        if v.shape != vals[0].shape:
            raise invalid_argument(
                f"Shapes of all inputs must match: values[0].shape = {shape_str(vals[0].shape)} != "
                f"values[{i}].shape = {shape_str(v.shape)}"
            )
    # Each value reshaped (a view) to have the new axis, then one concatenate: np.stack's own work, less Python.
    at = axis % rank
    shape = vals[0].shape[:at] + (1,) + vals[0].shape[at:]
    return np.concatenate([v.reshape(shape) for v in vals], axis=at)


def unpack(value: np.ndarray, num: int, axis: int = 0) -> tuple[np.ndarray, ...]:
    """Unpack (tf.unstack): split along axis into ``num`` tensors of rank one less."""
    value = np.asarray(value)
    rank = value.ndim
    if not -rank <= axis < rank:
        raise invalid_argument(f"axis = {axis} not in [{-rank}, {rank})")
    a = axis % rank
    if value.shape[a] != num:
        raise invalid_argument(f"Input shape axis {a} must equal {num}, got shape {shape_str(value.shape)}")
    # take [i] then drop the axis: a 0-d result stays an array of the input's dtype (strings stay objects)
    if rank == 1:
        return tuple(value[i : i + 1].reshape(()) for i in builtins.range(num))
    return tuple(np.ascontiguousarray(np.squeeze(np.take(value, [i], axis=a), axis=a)) for i in builtins.range(num))


def squeeze(input: np.ndarray, squeeze_dims: Sequence[int] = ()) -> np.ndarray:  # noqa: A002 - TF's name
    """Squeeze: drop the listed size-1 dims, or every size-1 dim when none are listed."""
    input = np.asarray(input)
    rank = input.ndim
    dims = set()
    for d in squeeze_dims:
        if not -rank <= d < rank:
            raise invalid_argument(f"Tried to squeeze dim index {d} for tensor with {rank} dimensions.")
        dims.add(d % rank)
    for d in sorted(dims):
        if input.shape[d] != 1:
            raise invalid_argument(f"Can not squeeze dim[{d}], expected a dimension of 1, got {input.shape[d]}")
    if not dims:
        dims = {i for i, s in enumerate(input.shape) if s == 1}
    return input.reshape([s for i, s in enumerate(input.shape) if i not in dims])


def expand_dims(input: np.ndarray, dim: np.ndarray) -> np.ndarray:  # noqa: A002
    """ExpandDims: insert a size-1 axis at dim (negative counts from the end, -1 appends)."""
    input = np.asarray(input)
    if np.asarray(dim).size != 1:
        raise invalid_argument(f"'dim' must be a tensor with a single value, but got shape {shape_str(np.shape(dim))}")
    d = _scalar(dim, "dim")
    rank = input.ndim
    if not -1 - rank <= d <= rank:
        raise invalid_argument(f"Tried to expand dim index {d} for tensor with {rank} dimensions.")
    if d < 0:
        d += rank + 1
    return input.reshape(input.shape[:d] + (1,) + input.shape[d:])


def shape(input: np.ndarray, out_type: Any = np.int32) -> np.ndarray:  # noqa: A002
    """Shape: the dims of input as a vector of out_type."""
    return np.asarray(np.shape(input), dtype=as_numpy_dtype(out_type)).reshape(-1)


def shape_n(input: list[np.ndarray], out_type: Any = np.int32) -> tuple[np.ndarray, ...]:  # noqa: A002
    """ShapeN: the dims of each input as a vector of out_type."""
    return tuple(shape(x, out_type) for x in input)


def size(input: np.ndarray, out_type: Any = np.int32) -> np.ndarray:  # noqa: A002
    """Size: the element count of input as an out_type scalar."""
    return np.asarray(np.size(input), dtype=as_numpy_dtype(out_type))


def rank(input: np.ndarray) -> np.ndarray:  # noqa: A002
    """Rank: the number of dims of input as an int32 scalar."""
    return np.asarray(np.ndim(input), dtype=np.int32)


def fill(dims: np.ndarray, value: np.ndarray) -> np.ndarray:
    """Fill: a tensor of shape dims holding the scalar value everywhere."""
    dims_arr, value = np.asarray(dims), np.asarray(value)
    if dims_arr.ndim != 1:
        raise invalid_argument(f"dims must be a vector, got shape {shape_str(dims_arr.shape)}")
    if value.size != 1:  # TF accepts any one-element value
        raise invalid_argument(f"value must be a scalar, got shape {shape_str(value.shape)}")
    value = value.reshape(())
    d = _ints(dims_arr)
    for v in d:
        if v < 0:
            raise invalid_argument(f"Dimension {v} must be >= 0")
    return np.full(d, value, dtype=value.dtype)


def zeros_like(x: np.ndarray) -> np.ndarray:
    """ZerosLike: zeros of x's shape and dtype (empty strings for a string tensor, as TF)."""
    x = np.asarray(x)
    if x.dtype == object:
        return np.full(x.shape, b"", dtype=object)
    return np.zeros_like(x)


def ones_like(x: np.ndarray) -> np.ndarray:
    """OnesLike: ones of x's shape and dtype."""
    return np.ones_like(np.asarray(x))


def range(start: np.ndarray, limit: np.ndarray, delta: np.ndarray) -> np.ndarray:  # noqa: A001 - TF's name
    """Range: start + i * delta for i while below limit (above, for negative delta), in start's dtype."""
    start_a, limit_a, delta_a = np.asarray(start), np.asarray(limit), np.asarray(delta)
    for name, v in (("start", start_a), ("limit", limit_a), ("delta", delta_a)):
        if v.ndim != 0:
            raise invalid_argument(f"{name} must be a scalar, not shape {shape_str(v.shape)}")
    dtype = start_a.dtype
    s, lim, d = start_a.item(), limit_a.item(), delta_a.item()
    if d == 0:
        raise invalid_argument(f"Requires delta != 0: {_num(d)}")
    if d > 0 and s > lim:
        raise invalid_argument(f"Requires start <= limit when delta > 0: {_num(s)}/{_num(lim)}")
    if d < 0 and s < lim:
        raise invalid_argument(f"Requires start >= limit when delta < 0: {_num(s)}/{_num(lim)}")
    integral = np.issubdtype(dtype, np.integer)
    if integral:
        n = (abs(lim - s) + abs(d) - 1) // abs(d)
    else:  # in the input's float type, as TF: range(0.0, 2.4, 0.1) in float32 has 24 elements, not 25
        with np.errstate(all="ignore"):
            n = int(np.ceil(np.abs((limit_a.astype(dtype) - start_a) / delta_a.astype(dtype))))
    idx = np.arange(n, dtype=dtype)
    with np.errstate(all="ignore"):
        return np.asarray(start_a + idx * delta_a, dtype=dtype)


def _num(v: Any) -> str:
    """A number as TF's messages print it (integral floats without a trailing .0)."""
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def tile(input: np.ndarray, multiples: np.ndarray) -> np.ndarray:  # noqa: A002
    """Tile: repeat input multiples[i] times along dim i."""
    input = np.asarray(input)
    m = _ints(multiples)
    if len(m) != input.ndim:
        raise invalid_argument(
            f"Expected multiples argument to be a vector of length {input.ndim} but got length {len(m)}"
        )
    for i, v in enumerate(m):
        if v < 0:
            raise invalid_argument(f"Expected multiples[{i}] >= 0, but got {v}")
    return np.tile(input, m) if input.ndim else input.copy()


def _padding_pairs(input: np.ndarray, paddings: np.ndarray) -> list[tuple[int, int]]:  # noqa: A002
    """The (before, after) pairs of a [rank, 2] paddings matrix, checked as TF's pad kernels do."""
    p = np.asarray(paddings)
    if p.ndim != 2 or p.shape[1] != 2 or p.shape[0] != input.ndim:
        raise invalid_argument(
            f"The first dimension of paddings must be the rank of inputs{shape_str(p.shape)} {shape_str(input.shape)}"
            if p.ndim == 2 and p.shape[1] == 2
            else f"paddings must be a matrix with 2 columns: {shape_str(p.shape)}"
        )
    return [(int(a), int(b)) for a, b in p.reshape(-1, 2)]


def pad(input: np.ndarray, paddings: np.ndarray) -> np.ndarray:  # noqa: A002
    """Pad with zeros: paddings is [rank, 2] (before, after) per dim."""
    input = np.asarray(input)
    pairs = _padding_pairs(input, paddings)
    for a, b in pairs:
        if a < 0 or b < 0:
            raise invalid_argument(f"Paddings must be non-negative: {a} {b}")
    if not input.ndim:
        return input.copy()
    out = np.zeros(tuple(d + a + b for d, (a, b) in zip(input.shape, pairs, strict=True)), input.dtype)
    out[tuple(builtins.slice(a, a + d) for d, (a, _) in zip(input.shape, pairs, strict=True))] = input
    return out


# Added with tf.pad's constant_values and REFLECT/SYMMETRIC modes (frontend issue).
def pad_v2(input: np.ndarray, paddings: np.ndarray, constant_values: np.ndarray) -> np.ndarray:  # noqa: A002
    """PadV2: Pad with the scalar ``constant_values`` instead of zeros."""
    input = np.asarray(input)
    pairs = _padding_pairs(input, paddings)
    value = np.asarray(constant_values)
    if value.ndim != 0:
        raise invalid_argument(f"constant_values must be a scalar. Found: {shape_str(value.shape)}")
    for a, b in pairs:
        if a < 0 or b < 0:
            raise invalid_argument(f"Paddings must be non-negative: {a} {b}")
    if not input.ndim:
        return input.copy()
    return np.pad(input, pairs, mode="constant", constant_values=value.item() if value.dtype != object else value)


def mirror_pad(input: np.ndarray, paddings: np.ndarray, mode: str) -> np.ndarray:  # noqa: A002
    """MirrorPad: REFLECT mirrors without the edge element (pads < dim), SYMMETRIC with it (pads <= dim)."""
    input = np.asarray(input)
    if input.ndim > 5:
        raise unimplemented(f"inputs rank not in [0,5]: {input.ndim}")
    pairs = _padding_pairs(input, paddings)
    symmetric = (mode.decode() if isinstance(mode, bytes) else mode) == "SYMMETRIC"
    for (a, b), size in zip(pairs, input.shape, strict=True):
        if a < 0 or b < 0:
            raise invalid_argument(f"paddings must be non-negative: {a} {b}")
        if symmetric and (a > size or b > size):
            raise invalid_argument(f"paddings must be no greater than the dimension size: {a}, {b} greater than {size}")
        if not symmetric and (a >= size or b >= size):
            raise invalid_argument(f"paddings must be less than the dimension size: {a}, {b} not less than {size}")
    if not input.ndim:
        return input.copy()
    return np.asarray(np.pad(input, pairs, mode="symmetric" if symmetric else "reflect"), order="C")


def slice(input: np.ndarray, begin: np.ndarray, size: np.ndarray) -> np.ndarray:  # noqa: A001,A002
    """Slice: the block starting at begin of extent size (size -1 means to the end)."""
    input = np.asarray(input)
    b, s = _ints(begin), _ints(size)
    if np.ndim(begin) != 1 or np.ndim(size) != 1 or len(b) != input.ndim or len(s) != input.ndim:
        raise invalid_argument(
            f"Expected begin and size arguments to be 1-D tensors of size {input.ndim}, but got shapes "
            f"{shape_str(np.shape(begin))} and {shape_str(np.shape(size))} instead."
        )
    index = []
    for i, dim in enumerate(input.shape):
        lo, n = b[i], s[i]
        if n == -1:
            n = dim - lo
        if not 0 <= lo <= dim:
            raise invalid_argument(f"Expected begin[{i}] in [0, {dim}], but got {lo}")
        if not 0 <= n <= dim - lo:
            raise invalid_argument(f"Expected size[{i}] in [0, {dim - lo}], but got {s[i]}")
        index.append(np.s_[lo : lo + n])
    return np.asarray(input[tuple(index)], order="C")


def _bad_index_message(indices: np.ndarray, limit: int) -> str:
    bad = np.argwhere((indices < 0) | (indices >= limit))[0]
    where = "" if indices.ndim == 0 else "[" + ",".join(str(int(v)) for v in bad) + "]"
    return f"indices{where} = {int(indices[tuple(bad)])} is not in [0, {limit})"


def gather_v2(params: np.ndarray, indices: np.ndarray, axis: np.ndarray, batch_dims: int = 0) -> np.ndarray:
    """GatherV2: slices of params along axis picked by indices; leading batch_dims are matched, not gathered."""
    params, indices = np.asarray(params), np.asarray(indices)
    a = _scalar(axis, "axis")
    if a >= params.ndim:
        raise invalid_argument(f"Shape must be at least rank {a + 1} but is rank {params.ndim}")
    if a < -params.ndim:
        raise invalid_argument(f"Expected axis in the range [{-params.ndim}, {params.ndim}), but got {a}")
    if a < 0:
        a += params.ndim
    bd = batch_dims + indices.ndim if batch_dims < 0 else batch_dims
    if bd < 0 or bd > indices.ndim:
        raise invalid_argument(
            f"Expected batch_dims in the range [{-indices.ndim}, {indices.ndim}], but got {batch_dims}"
        )
    if bd > a:
        raise invalid_argument(f"batch_dims ({batch_dims}) must be less than or equal to axis ({a}).")
    for i in builtins.range(bd):
        if params.shape[i] != indices.shape[i]:
            raise invalid_argument(
                f"params.shape[{i}]: {params.shape[i]} should be equal to indices.shape[{i}]: {indices.shape[i]}"
            )
    limit = params.shape[a]
    if indices.size and (np.minimum.reduce(indices, axis=None) < 0 or np.maximum.reduce(indices, axis=None) >= limit):
        raise invalid_argument(_bad_index_message(indices, limit))
    if bd == 0:
        return np.take(params, indices, axis=a)
    batch = params.shape[:bd]
    nb = int(np.prod(batch, dtype=np.int64))
    p = params.reshape((nb,) + params.shape[bd:])
    idx = indices.reshape((nb,) + indices.shape[bd:])
    p = np.moveaxis(p, a - bd + 1, 1)  # (B, axis, outer..., inner...)
    rows = np.arange(nb).reshape((nb,) + (1,) * (idx.ndim - 1))
    g = p[rows, idx]  # (B, idx_rest..., outer..., inner...)
    n_idx, n_outer = idx.ndim - 1, a - bd
    order = [0, *builtins.range(1 + n_idx, 1 + n_idx + n_outer), *builtins.range(1, 1 + n_idx)]
    order += list(builtins.range(1 + n_idx + n_outer, g.ndim))
    g = g.transpose(order)
    return np.asarray(g.reshape(batch + g.shape[1:]), order="C")


def one_hot(
    indices: np.ndarray, depth: np.ndarray, on_value: np.ndarray, off_value: np.ndarray, axis: int = -1
) -> np.ndarray:
    """OneHot: on_value where the new axis position equals the index, off_value elsewhere (negative: all off)."""
    indices = np.asarray(indices)
    on, off = np.asarray(on_value), np.asarray(off_value)
    d = _scalar(depth, "depth")
    rank = indices.ndim + 1
    if axis != -1 and not 0 <= axis < rank:
        raise invalid_argument(f"Expected axis to be -1 or between [0, {rank}).  But received: {axis}")
    if d < 0:
        raise invalid_argument(f"depth must be non-negative, got: {d}")
    hot = indices[..., None] == np.arange(d, dtype=np.int64)
    out = np.where(hot, on, off).astype(on.dtype, copy=False)
    if axis != -1:
        out = np.moveaxis(out, -1, axis)
    return np.asarray(out, order="C")


# Added with tf.where (frontend issue): the one-argument form's op.
def where(input: np.ndarray) -> np.ndarray:  # noqa: A002
    """Where: int64 coordinates [num_true, rank] of the nonzero (true) elements, in row-major order."""
    input = np.asarray(input)
    if not 1 <= input.ndim <= 8:
        raise invalid_argument(f"WhereOp : Unhandled input dimensions: {input.ndim}")
    return np.asarray(np.argwhere(input), dtype=np.int64, order="C")


def check_numerics(tensor: np.ndarray, message: str = "") -> np.ndarray:
    """CheckNumerics: the input unchanged, or InvalidArgumentError naming NaN / Inf values (TF's text)."""
    if tensor.size:
        finite = np.isfinite(tensor)
        if not finite.all():
            has_nan = bool(np.isnan(tensor).any())
            has_inf = bool(np.isinf(tensor).any())
            what = "Inf and NaN" if has_nan and has_inf else "NaN" if has_nan else "Inf"
            raise invalid_argument(f"{message} : Tensor had {what} values")
    return tensor


# Added with tf.ensure_shape.
def ensure_shape(x: Any, shape: Any, input_name: str = "input") -> np.ndarray:
    """EnsureShape: ``x`` unchanged if its shape fits ``shape`` (None/-1 dims match any); else TF's error.

    ``shape`` is a list (None for an unknown dim), None (unknown rank) or a TensorShapeProto;
    ``input_name`` is the node's input as TF's message names it.
    """
    if shape is not None and not isinstance(shape, (list, tuple)):
        shape = None if shape.unknown_rank else [int(d.size) for d in shape.dim]
    x = np.asarray(x)
    if shape is not None:
        expected = [-1 if d is None else int(d) for d in shape]
        if x.ndim != len(expected) or any(e >= 0 and e != d for d, e in zip(x.shape, expected, strict=True)):
            want = "[" + ",".join("?" if e < 0 else str(e) for e in expected) + "]"
            raise invalid_argument(
                f"Shape of tensor {input_name} {shape_str(x.shape)} is not compatible with expected shape {want}."
            )
    return x
