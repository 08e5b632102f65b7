"""StridedSlice with TensorFlow's full semantics: begin/end/ellipsis/new_axis/shrink_axis masks, negative strides.

The sparse slice spec (one entry per element of begin/end/strides) is first
expanded to a dense spec over the input's dims (the ellipsis, explicit or
implied at the end, covers the dims no entry names), then each dim is
canonicalized and clamped as TF does, and the result is reshaped to insert
new axes and drop shrunk ones.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.kernels.cpu.errors import invalid_argument, shape_str

_NEW_AXIS = -1
_SHRINK = -2


def _dense_spec(
    ndim: int, begin: list[int], end: list[int], strides: list[int], begin_mask: int, end_mask: int,
    ellipsis_mask: int, new_axis_mask: int, shrink_axis_mask: int,
) -> tuple[list[tuple[int, int, int, bool, bool, bool]], list[int]]:  # fmt: skip
    """Per input dim (begin, end, stride, begin_masked, end_masked, shrink), and the final-shape plan."""
    n = len(begin)
    if ellipsis_mask & (ellipsis_mask - 1):
        raise invalid_argument("Multiple ellipses in slice spec not allowed")
    if not ellipsis_mask & ((1 << n) - 1):  # no entry is the ellipsis (mask bits past the entries do not count)
        ellipsis_mask = 1 << n
        n += 1
        begin, end, strides = begin + [0], end + [0], strides + [1]
    ellipsis_at = ellipsis_mask.bit_length() - 1
    new_after_ellipsis = sum(1 for i in range(ellipsis_at + 1, n) if new_axis_mask >> i & 1)
    dense: list[tuple[int, int, int, bool, bool, bool]] = []
    plan: list[int] = []
    for i in range(n):
        if ellipsis_mask >> i & 1:
            stop = min(ndim - (n - i) + 1 + new_after_ellipsis, ndim)
            while len(dense) < stop:
                plan.append(len(dense))
                dense.append((0, 0, 1, True, True, False))
        elif new_axis_mask >> i & 1:
            plan.append(_NEW_AXIS)
        else:
            if len(dense) == ndim:
                if ndim == 0:
                    raise invalid_argument("Attempting to slice scalar input.")
                raise invalid_argument(f"Index out of range using input dim {len(dense)}; input has only {ndim} dims")
            shrink = bool(shrink_axis_mask >> i & 1)
            plan.append(_SHRINK if shrink else len(dense))
            dense.append((begin[i], end[i], strides[i], bool(begin_mask >> i & 1), bool(end_mask >> i & 1), shrink))
    return dense, plan


# (input shape, begin/end/strides bytes and dtype, masks) -> (numpy index, final shape): slicing the same way
# again (a loop body, an eager ``v[1:3]``) skips the spec expansion. Bounded: cleared when it grows past the limit.
_PLANS: dict[tuple[Any, ...], tuple[tuple[slice, ...], tuple[int, ...]]] = {}
_PLANS_LIMIT = 4096


def strided_slice(
    input: np.ndarray,  # noqa: A002 - TF's argument name
    begin: Any,
    end: Any,
    strides: Any,
    begin_mask: int = 0,
    end_mask: int = 0,
    ellipsis_mask: int = 0,
    new_axis_mask: int = 0,
    shrink_axis_mask: int = 0,
) -> np.ndarray:
    """StridedSlice: Python-style extended slicing described by TF's begin/end/strides vectors and bit masks."""
    x = input if type(input) is np.ndarray else np.asarray(input)
    b = begin if type(begin) is np.ndarray else np.asarray(begin)
    e = end if type(end) is np.ndarray else np.asarray(end)
    s = strides if type(strides) is np.ndarray else np.asarray(strides)
    key = (
        x.shape, b.dtype.char, b.shape, b.tobytes(), e.tobytes(), s.tobytes(), e.shape, s.shape,
        begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask,
    )  # fmt: skip
    found = _PLANS.get(key)
    if found is None:
        found = _plan(x.shape, b, e, s, begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)
        if len(_PLANS) >= _PLANS_LIMIT:
            _PLANS.clear()
        _PLANS[key] = found
    index, final = found
    sliced = x[index]
    if sliced.shape != final:
        sliced = sliced.reshape(final)
    return sliced if sliced.flags.c_contiguous else np.ascontiguousarray(sliced)


def _plan(
    shape: tuple[int, ...], b: np.ndarray, e: np.ndarray, s: np.ndarray, begin_mask: int, end_mask: int,
    ellipsis_mask: int, new_axis_mask: int, shrink_axis_mask: int,
) -> tuple[tuple[slice, ...], tuple[int, ...]]:  # fmt: skip
    """The numpy index and the final shape for one slice spec on an input of ``shape`` (TF's checks and errors)."""
    if b.ndim != 1 or b.shape != e.shape or b.shape != s.shape:
        raise invalid_argument(
            "Expected begin, end, and strides to be 1D equal size tensors, but got shapes "
            f"{shape_str(b.shape)}, {shape_str(e.shape)}, and {shape_str(s.shape)} instead."
        )
    dense, plan = _dense_spec(
        len(shape), [int(v) for v in b], [int(v) for v in e], [int(v) for v in s],
        begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask,
    )  # fmt: skip
    index: list[slice] = []
    sizes: list[int] = []
    for i, (lo, hi, step, lo_masked, hi_masked, shrink) in enumerate(dense):
        dim = shape[i]
        if step == 0:
            raise invalid_argument(f"strides[{i}] must be non-zero")
        if shrink:  # TF's kernel checks the stride first and names the index counted from the start
            if step <= 0:
                raise invalid_argument("only stride 1 allowed on non-range indexing.")
            pos = lo + dim if lo < 0 else lo
            if not 0 <= pos < dim:
                raise invalid_argument(f"slice index {pos} of dimension {i} out of bounds.")
            index.append(slice(pos, pos + 1, 1))
            sizes.append(1)
            continue
        lower, upper = (0, dim) if step > 0 else (-1, dim - 1)

        def canonical(v: int, masked: bool, is_begin: bool, _dim: int = dim, _lower=lower, _upper=upper, _s=step):
            if masked:
                return (_lower if _s > 0 else _upper) if is_begin else (_upper if _s > 0 else _lower)
            v = v + _dim if v < 0 else v
            return min(max(v, _lower), _upper)

        start, stop = canonical(lo, lo_masked, True), canonical(hi, hi_masked, False)
        # -1 means "before index 0" here: as a stop numpy spells it None; as a start (a negative step) nothing
        # is selected.
        item = slice(0, 0, 1) if start < 0 else slice(start, None if stop < 0 else stop, step)
        index.append(item)
        sizes.append(len(range(*item.indices(dim))))
    final: list[int] = []
    for p in plan:
        if p == _NEW_AXIS:
            final.append(1)
        elif p != _SHRINK:
            final.append(sizes[p])
    return tuple(index), tuple(final)
