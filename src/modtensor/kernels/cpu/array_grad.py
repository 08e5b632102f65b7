"""CPU kernels of the array ops gradients use, with TensorFlow's semantics and error texts.

BroadcastGradientArgs (the axes a broadcast gradient sums over), StridedSliceGrad (``dy`` written
into zeros at the slice), MirrorPadGrad (mirrored borders folded back), InvertPermutation, ConcatOffset.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from modtensor.framework.common_shapes import broadcast_gradient_axes
from modtensor.kernels.cpu.errors import invalid_argument, shape_str, unimplemented
from modtensor.kernels.cpu.strided_slice import _plan


def broadcast_gradient_args(s0: np.ndarray, s1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The axes to sum a broadcast result's gradient over for each operand (TF's BCast reduction indices)."""
    try:
        r0, r1 = broadcast_gradient_axes(s0.reshape(-1).tolist(), s1.reshape(-1).tolist())
    except ValueError as e:
        raise invalid_argument(str(e)) from None
    return np.asarray(r0, dtype=s0.dtype), np.asarray(r1, dtype=s0.dtype)


def strided_slice_grad(
    shape: np.ndarray,
    begin: np.ndarray,
    end: np.ndarray,
    strides: np.ndarray,
    dy: np.ndarray,
    begin_mask: int = 0,
    end_mask: int = 0,
    ellipsis_mask: int = 0,
    new_axis_mask: int = 0,
    shrink_axis_mask: int = 0,
) -> np.ndarray:
    """StridedSliceGrad: zeros of ``shape`` with ``dy`` at the elements ``StridedSlice`` with this spec reads."""
    shape = np.asarray(shape)
    if shape.ndim != 1:
        raise invalid_argument(f"shape must be 1-D, got shape.shape = {shape_str(shape.shape)}")
    dims = tuple(int(d) for d in shape)
    if any(d < 0 for d in dims):
        raise invalid_argument(f"Dimension {min(dims)} must be >= 0")
    index, final = _plan(
        dims, np.asarray(begin), np.asarray(end), np.asarray(strides),
        begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask,
    )  # fmt: skip
    dy = np.asarray(dy)
    if tuple(dy.shape) != tuple(final):
        raise invalid_argument(f"shape of dy was {shape_str(dy.shape)} instead of {shape_str(final)}")
    out = np.full(dims, b"", dtype=object) if dy.dtype == object else np.zeros(dims, dtype=dy.dtype)
    target = out[index]
    target[...] = dy.reshape(target.shape)  # a view: writes through to ``out``
    return out


def mirror_pad_grad(input: np.ndarray, paddings: np.ndarray, mode: Any) -> np.ndarray:  # noqa: A002
    """MirrorPadGrad: each padded border added back onto the elements it mirrored (REFLECT: without the edge)."""
    x = np.asarray(input)
    p = np.asarray(paddings)
    if x.ndim > 5:
        raise unimplemented(f"inputs rank not in [0,5]: {x.ndim}")
    if p.ndim != 2 or p.shape[1] != 2:
        raise invalid_argument(f"paddings must be a matrix with 2 columns: {shape_str(p.shape)}")
    if p.shape[0] != x.ndim:
        raise invalid_argument(
            f"The first dimension of paddings must be the rank of inputs{shape_str(p.shape)} {shape_str(x.shape)}"
        )
    reflect = (mode.decode() if isinstance(mode, bytes) else mode) == "REFLECT"
    sizes = []
    for (before, after), size in zip(p.tolist(), x.shape, strict=True):
        if before < 0 or after < 0:
            raise invalid_argument(f"Paddings must be non-negative: {before}, {after}")
        total = before + after
        if not 0 <= total < size:
            raise invalid_argument(
                f"Total paddings must be less than the input dimension size: {total} was not less than {size}"
            )
        n = size - total
        if reflect and (before >= n or after >= n):
            raise invalid_argument(
                f"paddings must be less than the output dimension size: {before}, {after} not less than {n}"
            )
        if not reflect and (before > n or after > n):
            raise invalid_argument(
                f"paddings must be no greater than the output dimension size: {before}, {after} greater than {n}"
            )
        sizes.append(n)
    out = x
    shift = 1 if reflect else 0
    for axis, ((before, after), n) in enumerate(zip(p.tolist(), sizes, strict=True)):
        if before == 0 and after == 0:
            continue

        def part(lo: int, hi: int, step: int = 1, _axis: int = axis) -> tuple[slice, ...]:
            return (slice(None),) * _axis + (slice(lo, hi, step),)

        # The body, then each mirrored border added (reversed) onto the elements it copied.
        folded = out[part(before, before + n)].copy()
        if before:
            folded[part(shift, shift + before)] += out[part(before - 1, None, -1)]
        if after:
            folded[part(n - shift - after, n - shift)] += out[part(out.shape[axis] - 1, before + n - 1, -1)]
        out = folded
    return out if out is not x else x.copy()


def invert_permutation(x: np.ndarray) -> np.ndarray:
    """InvertPermutation: ``y[x[i]] = i`` for a permutation ``x`` of ``0..n-1``."""
    x = np.asarray(x)
    if x.ndim != 1:
        raise invalid_argument("invert_permutation expects a 1D vector.")
    n = x.shape[0]
    y = np.full(n, -1, dtype=x.dtype)
    for i, d in enumerate(x.tolist()):
        if not 0 <= d < n:
            raise invalid_argument(f"{d} is not between 0 and {n}")
        if y[d] != -1:
            raise invalid_argument(f"{d} is duplicated in the input.")
        y[d] = i
    return y


def concat_offset(concat_dim: np.ndarray, shape: list[np.ndarray]) -> tuple[np.ndarray, ...]:
    """ConcatOffset: where each input of a concatenation starts in the result (0 but along ``concat_dim``)."""
    concat_dim = np.asarray(concat_dim)
    if concat_dim.ndim != 0:
        raise invalid_argument(
            f"Concat dim tensor should be a scalar integer, but got shape {shape_str(concat_dim.shape)}"
        )
    shapes = [np.asarray(s) for s in shape]
    for i, s in enumerate(shapes):
        if s.ndim != 1:
            raise invalid_argument(f"input {i + 1} should be a vector, but got shape {shape_str(s.shape)}")
    dims = shapes[0].size
    cdim = int(concat_dim)
    axis = cdim + dims if cdim < 0 else cdim
    if not 0 <= axis < dims:
        raise invalid_argument(f"Concat dim is out of range: {cdim} vs. {dims}")
    first = shapes[0].tolist()
    offset = 0
    outputs = []
    for i, s in enumerate(shapes):
        if s.size != dims:
            raise invalid_argument(f"input {i} should contain {dims} elements, but got {s.size}")
        values = s.tolist()
        out = np.zeros(dims, dtype=s.dtype)
        for j in range(dims):
            if j == axis:
                out[j] = offset
                offset += values[j]
            elif first[j] != values[j]:
                raise invalid_argument(
                    f"All dimensions except {axis} must match. Input {i} has shape [{' '.join(map(str, values))}] "
                    f"and doesn't match input 0 with shape [{' '.join(map(str, first))}]."
                )
        outputs.append(out)
    return tuple(outputs)


OP_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "BroadcastGradientArgs": broadcast_gradient_args,
    "StridedSliceGrad": strided_slice_grad,
    "MirrorPadGrad": mirror_pad_grad,
    "InvertPermutation": invert_permutation,
    "ConcatOffset": concat_offset,
}

CPU_TYPE_CONSTRAINTS: dict[str, dict[str, str]] = {
    "BroadcastGradientArgs": {"T": "int32 int64"},
    "StridedSliceGrad": {"T": "FLOATS INTS UINTS bool COMPLEX string float8_e4m3fn float8_e5m2"},
    "MirrorPadGrad": {"T": "FLOATS INTS UINTS COMPLEX", "Tpaddings": "int32 int64"},
    "InvertPermutation": {"T": "int32 int64"},
    "ConcatOffset": {"shape_type": "int32 int64"},
}
