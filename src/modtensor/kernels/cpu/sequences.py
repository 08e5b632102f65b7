"""CPU kernels that generate or rearrange index sequences: LinSpace, Roll, UnravelIndex, BroadcastArgs (the
broadcast of two shape vectors), SpaceToDepth and DepthToSpace (NHWC blocks moved between space and depth),
SpaceToBatchND and BatchToSpaceND (spatial blocks moved between space and batch), with TF's checks and texts.

LinSpace steps in its own dtype as TF's kernel does (``start + step * i``, the last element ``stop``);
Roll sums the shifts of a repeated axis; UnravelIndex divides with C++'s truncation, as TF's Eigen
expression does, so a negative index (which TF lets through) gives TF's numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from modtensor.kernels.cpu.errors import invalid_argument, shape_str
from modtensor.kernels.cpu.fp_quiet import ignoring_fp_errors

__all__ = ["CPU_TYPE_CONSTRAINTS", "OP_FUNCTIONS"]


@ignoring_fp_errors
def lin_space(start: np.ndarray, stop: np.ndarray, num: np.ndarray) -> np.ndarray:
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive."""
    for arg, value in (("start", start), ("stop", stop), ("num", num)):
        if np.ndim(value) != 0:
            raise invalid_argument(f"{arg} must be a scalar, not shape {shape_str(np.shape(value))}")
    n = int(num)
    if n <= 0:
        raise invalid_argument(f"Requires num > 0: {n}")
    dtype = np.asarray(start).dtype
    first, last = dtype.type(start), dtype.type(stop)
    if n == 1:
        return np.array([first], dtype)
    step = (last - first) / dtype.type(n - 1)
    out = np.empty(n, dtype)
    out[:-1] = first + step * np.arange(n - 1).astype(dtype)
    out[-1] = last
    return out


def roll(input: np.ndarray, shift: np.ndarray, axis: np.ndarray) -> np.ndarray:  # noqa: A002  (TF's arg name)
    """Elements shifted cyclically by ``shift`` along each ``axis`` (shifts of a repeated axis add up)."""
    if input.ndim < 1:
        raise invalid_argument("input must be 1-D or higher")
    if shift.ndim > 1:
        raise invalid_argument(f"shift must be a scalar or a 1-D vector. Found: {shape_str(shift.shape)}")
    if axis.ndim > 1:
        raise invalid_argument(f"axis must be a scalar or a 1-D vector. Found: {shape_str(axis.shape)}")
    if shift.shape != axis.shape:
        raise invalid_argument("shift and axis must have the same size")
    shifts = [0] * input.ndim
    for s, a in zip(shift.reshape(-1).tolist(), axis.reshape(-1).tolist(), strict=True):
        a = a + input.ndim if a < 0 else a
        if not 0 <= a < input.ndim:
            raise invalid_argument(f"axis {a} is out of range")
        shifts[a] += s
    if input.size == 0:
        return input.copy()
    return np.roll(input, shifts, axis=tuple(range(input.ndim)))


def unravel_index(indices: np.ndarray, dims: np.ndarray) -> np.ndarray:
    """The coordinates of flat ``indices`` in an array of shape ``dims``: ``[len(dims)]`` or ``[len(dims), n]``."""
    if indices.ndim > 1:
        raise invalid_argument(f'The indices can only be scalar or vector, got "{shape_str(indices.shape)}"')
    if dims.ndim != 1:
        raise invalid_argument(f'The indices can only be 1-D, got "{shape_str(dims.shape)}"')
    limit = np.iinfo(dims.dtype).max
    prod = 1.0
    for i, d in enumerate(dims.tolist()):
        if d == 0:
            raise invalid_argument(f"Input dims cannot contain a dim of zero, but dims contains zero at index {i}")
        if d < 0:
            raise invalid_argument(f"Input dims cannot be negative. Got dim = {d} at index {i}")
        if prod > limit / d:
            raise invalid_argument(f"Input dims product is causing integer overflow: ({dims.tolist()})")
        prod *= d
    if indices.size == 0:
        raise invalid_argument(
            f"received empty tensor indices: Tensor<type: {indices.dtype.name} shape: {shape_str(indices.shape)} "
            "values: >"
        )
    if not (indices < np.prod(dims, dtype=dims.dtype)).all():
        raise invalid_argument("index is out of bound as with dims")
    strides = np.ones_like(dims)
    strides[:-1] = np.cumprod(dims[::-1], dtype=dims.dtype)[::-1][1:]
    flat = indices.reshape(1, -1)
    quotient = np.sign(flat) * (np.abs(flat) // strides[:, None])  # C++ division truncates toward zero
    out = np.fmod(quotient, dims[:, None]).astype(dims.dtype)
    return out[:, 0] if indices.ndim == 0 else out


def broadcast_args(s0: np.ndarray, s1: np.ndarray) -> np.ndarray:
    """The shape that shapes ``s0`` and ``s1`` broadcast to."""
    for i, s in enumerate((s0, s1)):
        if s.ndim != 1:
            raise invalid_argument(f"In[{i}] must be a vector.{shape_str(s.shape)}")
    try:
        shape = np.broadcast_shapes(tuple(s0.tolist()), tuple(s1.tolist()))
    except ValueError:
        raise invalid_argument(f"Incompatible shapes: {shape_str(s0.tolist())} vs. {shape_str(s1.tolist())}") from None
    return np.array(shape, s0.dtype)


def _nhwc_only(data_format: Any) -> None:
    fmt = data_format.decode() if isinstance(data_format, bytes) else str(data_format)
    if fmt != "NHWC":
        raise invalid_argument(f"Only NHWC data_format supported on CPU. Got {fmt}")


def space_to_depth(input: np.ndarray, block_size: int, data_format: Any = "NHWC") -> np.ndarray:  # noqa: A002
    """Each ``block_size`` x ``block_size`` spatial block of an NHWC batch moved into the depth dim."""
    _nhwc_only(data_format)
    if input.ndim != 4:
        raise invalid_argument(f"Input rank should be 4 instead of {input.ndim}")
    n, h, w, c = input.shape
    b = int(block_size)
    if h % b or w % b:
        raise invalid_argument(f"Image width {w} and height {h} should be divisible by block_size: {b}")
    out = input.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5)
    return np.ascontiguousarray(out.reshape(n, h // b, w // b, b * b * c))


def depth_to_space(input: np.ndarray, block_size: int, data_format: Any = "NHWC") -> np.ndarray:  # noqa: A002
    """The depth dim of an NHWC batch spread into ``block_size`` x ``block_size`` spatial blocks."""
    _nhwc_only(data_format)
    if input.ndim != 4:
        raise invalid_argument(f"Input rank should be: 4 instead of: {input.ndim}")
    n, h, w, c = input.shape
    b = int(block_size)
    if c % (b * b):
        raise invalid_argument(f"Input depth dimension {c} should be divisible by: {b * b}")
    out = input.reshape(n, h, w, b, b, c // (b * b)).transpose(0, 1, 3, 2, 4, 5)
    return np.ascontiguousarray(out.reshape(n, h * b, w * b, c // (b * b)))


def _space_batch_args(x: np.ndarray, block_shape: np.ndarray, amounts: np.ndarray, what: str) -> tuple[list, list]:
    """TF's SpaceToBatch/BatchToSpace argument checks; the block sizes and the (start, end) amounts per dim."""
    if block_shape.ndim != 1:
        raise invalid_argument(f"block_shape rank should be 1 instead of {block_shape.ndim}")
    m = block_shape.shape[0]
    if x.ndim < 1 + m:
        raise invalid_argument(f"input rank should be >= {1 + m} instead of {x.ndim}")
    if amounts.ndim != 2 or amounts.shape != (m, 2):
        raise invalid_argument(f"{what} should have shape [{m}, 2] instead of {shape_str(amounts.shape)}")
    block = [int(v) for v in block_shape.tolist()]
    pairs = [(int(a), int(b)) for a, b in amounts.reshape(m, 2).tolist()]
    return block, pairs


def _removed_prefix(block: list, pairs: list) -> int:
    """How many leading block dims TF folds into the batch (block 1, no padding or cropping)."""
    n = 0
    while n < len(block) and block[n] == 1 and pairs[n] == (0, 0):
        n += 1
    return n


def space_to_batch_nd(input: np.ndarray, block_shape: np.ndarray, paddings: np.ndarray) -> np.ndarray:  # noqa: A002
    """The padded spatial dims cut into blocks of ``block_shape``, each block's offset moved into the batch."""
    block, pairs = _space_batch_args(input, block_shape, paddings, "paddings")
    for i, b in enumerate(block):
        if b < 1:
            raise invalid_argument(f"All values in block_shape must be positive, got value, {b} at index {i}.")
    prefix = _removed_prefix(block, pairs)
    for i in range(prefix, len(block)):
        start, end = pairs[i]
        if start < 0 or end < 0:
            raise invalid_argument("Paddings must be non-negative")
        padded = input.shape[i + 1] + start + end
        if padded % block[i]:
            j = i - prefix
            raise invalid_argument(f"padded_shape[{j}]={padded} is not divisible by block_shape[{j}]={block[i]}")
    m = len(block)
    padded = np.pad(input, [(0, 0), *pairs] + [(0, 0)] * (input.ndim - 1 - m))
    batch, rest = input.shape[0], padded.shape[1 + m :]
    split = [batch]
    for i, b in enumerate(block):
        split += [padded.shape[1 + i] // b, b]
    out = padded.reshape(*split, *rest)
    order = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)]
    out = out.transpose(*order, *range(1 + 2 * m, out.ndim))
    return np.ascontiguousarray(out).reshape(batch * int(np.prod(block)), *split[1::2], *rest)


def batch_to_space_nd(input: np.ndarray, block_shape: np.ndarray, crops: np.ndarray) -> np.ndarray:  # noqa: A002
    """The inverse of SpaceToBatchND: batch entries moved back into spatial blocks, then ``crops`` cut off."""
    block, pairs = _space_batch_args(input, block_shape, crops, "crops")
    product = int(np.prod(block)) if block else 1
    if product <= 0:
        raise invalid_argument(f"Product of block sizes must be positive, got {product}")
    if input.shape[0] % product:
        raise invalid_argument(
            f"Input batch dimension ({input.shape[0]}) is not divisible by product of block sizes ({product})"
        )
    prefix = _removed_prefix(block, pairs)
    for i in range(prefix, len(block)):
        start, end = pairs[i]
        if start < 0 or end < 0:
            raise invalid_argument("Crops must be non-negative")
        cropped = input.shape[i + 1] * block[i] - start - end
        if cropped < 0:
            raise invalid_argument(f"cropped_shape[{i - prefix}]={cropped} must be non-negative")
    m = len(block)
    batch = input.shape[0] // product
    spatial, rest = input.shape[1 : 1 + m], input.shape[1 + m :]
    out = input.reshape(*block, batch, *spatial, *rest)
    order = [m] + [x for i in range(m) for x in (m + 1 + i, i)]
    out = out.transpose(*order, *range(1 + 2 * m, out.ndim))
    out = np.ascontiguousarray(out).reshape(batch, *[s * b for s, b in zip(spatial, block, strict=True)], *rest)
    index = (slice(None), *[slice(a, out.shape[1 + i] - b) for i, (a, b) in enumerate(pairs)])
    return np.ascontiguousarray(out[index])


OP_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "SpaceToBatchND": space_to_batch_nd,
    "BatchToSpaceND": batch_to_space_nd,
    "SpaceToDepth": space_to_depth,
    "DepthToSpace": depth_to_space,
    "BroadcastArgs": broadcast_args,
    "LinSpace": lin_space,
    "Roll": roll,
    "UnravelIndex": unravel_index,
}

# TF 2.21's CPU kernels (tests/golden/op_breadth/cpu_kernel_constraints.json).
CPU_TYPE_CONSTRAINTS: dict[str, dict[str, str]] = {
    "SpaceToBatchND": {"T": "FLOATS INTS UINTS"},
    "BatchToSpaceND": {"T": "FLOATS INTS UINTS"},
    "SpaceToDepth": {"T": "FLOATS INTS UINTS bool COMPLEX string resource variant qint8"},
    "DepthToSpace": {"T": "FLOATS INTS UINTS bool COMPLEX string resource variant"},
    "BroadcastArgs": {"T": "int32 int64"},
    "LinSpace": {"T": "float32 float64", "Tidx": "int32 int64"},
    "Roll": {
        "T": "FLOATS INTS UINTS bool COMPLEX string resource variant",
        "Tshift": "int32 int64",
        "Taxis": "int32 int64",
    },
    "UnravelIndex": {"Tidx": "int32 int64"},
}
