"""Segment reductions (Segment*, UnsortedSegment*) and scans (Cumsum, Cumprod) with TensorFlow's semantics.

Sorted segment reductions give one row per id up to the last; empty rows are 0 (1 for
Prod). Unsorted ones give ``num_segments`` rows, empty ones the reduction's identity
(lowest/highest value for Max/Min), and drop negative ids. Sums accumulate in order,
as TF's CPU kernels do; half types compute in float32.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.kernels.cpu.errors import invalid_argument, shape_str
from modtensor.kernels.cpu.fp_quiet import ignoring_fp_errors
from modtensor.kernels.cpu.precision import HALF_TYPES
from modtensor.kernels.cpu.row_updates import at_rows


def _lowest(dtype: np.dtype) -> Any:
    """TF's ``numeric_limits<T>::lowest()``: what an empty unsorted max holds (finite, not -inf)."""
    return np.iinfo(dtype).min if dtype.kind in "iu" else np.finfo(dtype).min


def _highest(dtype: np.dtype) -> Any:
    return np.iinfo(dtype).max if dtype.kind in "iu" else np.finfo(dtype).max


_UFUNCS = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}


def _reduce_into(kind: str, data: np.ndarray, ids: np.ndarray, rows: int, empty: str) -> np.ndarray:
    """Rows ``0..rows-1``: the reduction of the data rows with that id; ``empty`` says what an empty row holds."""
    work = data.astype(np.float32) if data.dtype in HALF_TYPES else data
    tail = work.shape[ids.ndim :]
    flat = work.reshape(-1, *tail)
    flat_ids = ids.reshape(-1).astype(np.int64)
    keep = flat_ids >= 0
    if not np.all(keep):
        flat, flat_ids = flat[keep], flat_ids[keep]
    identity = {"sum": 0, "prod": 1, "max": _lowest(work.dtype), "min": _highest(work.dtype)}[kind]
    out = np.full((rows, *tail), identity, dtype=work.dtype)
    at_rows(_UFUNCS[kind], out, flat_ids, np.ascontiguousarray(flat))
    if empty == "zero" and kind in ("max", "min"):
        counts = np.bincount(flat_ids, minlength=rows)
        out[counts == 0] = 0
    return out.astype(data.dtype, copy=False)


@ignoring_fp_errors
def _segment(kind: str, data: np.ndarray, segment_ids: np.ndarray) -> np.ndarray:
    data, ids = np.asarray(data), np.asarray(segment_ids)
    if ids.ndim != 1:
        raise invalid_argument("segment_ids should be a vector.")
    if data.ndim < 1 or data.shape[0] != ids.shape[0]:
        raise invalid_argument("segment_ids should be the same size as dimension 0 of input.")
    values = ids.astype(np.int64)
    if values.size and np.any(values[1:] < values[:-1]):
        raise invalid_argument("segment ids are not increasing")
    if values.size and values[0] < 0:
        raise invalid_argument("segment ids must be >= 0")
    rows = int(values[-1]) + 1 if values.size else 0
    if kind == "mean":
        total = _reduce_into("sum", data, ids, rows, "zero")
        counts = np.bincount(values, minlength=rows).reshape(rows, *([1] * (data.ndim - 1)))
        with np.errstate(all="ignore"):
            if data.dtype.kind in "iu":
                return np.where(counts > 0, total // np.maximum(counts, 1), 0).astype(data.dtype)
            work = total.astype(np.float32) if data.dtype in HALF_TYPES else total
            return np.where(counts > 0, work / np.maximum(counts, 1).astype(work.dtype), 0).astype(data.dtype)
    return _reduce_into(kind, data, ids, rows, "zero")


def segment_sum(data: np.ndarray, segment_ids: np.ndarray) -> np.ndarray:
    """SegmentSum: the sum of the rows of each (sorted) segment id."""
    return _segment("sum", data, segment_ids)


def segment_mean(data: np.ndarray, segment_ids: np.ndarray) -> np.ndarray:
    """SegmentMean: the mean of the rows of each (sorted) segment id."""
    return _segment("mean", data, segment_ids)


def segment_prod(data: np.ndarray, segment_ids: np.ndarray) -> np.ndarray:
    """SegmentProd: the product of the rows of each (sorted) segment id."""
    return _segment("prod", data, segment_ids)


def segment_max(data: np.ndarray, segment_ids: np.ndarray) -> np.ndarray:
    """SegmentMax: the maximum of the rows of each (sorted) segment id (0 for an empty one)."""
    return _segment("max", data, segment_ids)


def segment_min(data: np.ndarray, segment_ids: np.ndarray) -> np.ndarray:
    """SegmentMin: the minimum of the rows of each (sorted) segment id (0 for an empty one)."""
    return _segment("min", data, segment_ids)


@ignoring_fp_errors
def _unsorted(kind: str, data: np.ndarray, segment_ids: np.ndarray, num_segments: np.ndarray) -> np.ndarray:
    data, ids, num = np.asarray(data), np.asarray(segment_ids), np.asarray(num_segments)
    if num.ndim != 0:
        raise invalid_argument(f"num_segments should be a scalar, not shape {shape_str(num.shape)}")
    if data.shape[: ids.ndim] != ids.shape:
        raise invalid_argument(
            f"data.shape = {shape_str(data.shape)} does not start with segment_ids.shape = {shape_str(ids.shape)}"
        )
    rows = int(num)
    if rows < 0:
        raise invalid_argument(f"Input num_segments == {rows} must not be negative.")
    flat = ids.reshape(-1).astype(np.int64)
    bad = np.nonzero(flat >= rows)[0]
    if bad.size:
        i = int(bad[0])
        raise invalid_argument(f"segment_ids[{i}] = {int(flat[i])} is out of range [0, {rows})")
    return _reduce_into(kind, data, ids, rows, "identity")


def unsorted_segment_sum(data: np.ndarray, segment_ids: np.ndarray, num_segments: np.ndarray) -> np.ndarray:
    """UnsortedSegmentSum: ``num_segments`` rows, each the sum of the data rows with that id."""
    return _unsorted("sum", data, segment_ids, num_segments)


def unsorted_segment_prod(data: np.ndarray, segment_ids: np.ndarray, num_segments: np.ndarray) -> np.ndarray:
    """UnsortedSegmentProd: ``num_segments`` rows, each the product of the data rows with that id."""
    return _unsorted("prod", data, segment_ids, num_segments)


def unsorted_segment_max(data: np.ndarray, segment_ids: np.ndarray, num_segments: np.ndarray) -> np.ndarray:
    """UnsortedSegmentMax: ``num_segments`` rows, each the maximum of its data rows (lowest value if empty)."""
    return _unsorted("max", data, segment_ids, num_segments)


def unsorted_segment_min(data: np.ndarray, segment_ids: np.ndarray, num_segments: np.ndarray) -> np.ndarray:
    """UnsortedSegmentMin: ``num_segments`` rows, each the minimum of its data rows (highest value if empty)."""
    return _unsorted("min", data, segment_ids, num_segments)


@ignoring_fp_errors
def _scan(ufunc: np.ufunc, x: np.ndarray, axis: np.ndarray, exclusive: bool, reverse: bool) -> np.ndarray:
    x, axis_arr = np.asarray(x), np.asarray(axis)
    if axis_arr.ndim != 0:
        raise invalid_argument(f"ScanOp: axis must be a scalar, not {shape_str(axis_arr.shape)}")
    a = int(axis_arr)
    if not -x.ndim <= a < x.ndim:
        raise invalid_argument(f"ScanOp: Expected scan axis in the range [{-x.ndim}, {x.ndim}), but got {a}")
    a %= x.ndim
    work = x.astype(np.float32) if x.dtype in HALF_TYPES else x
    if reverse:
        work = np.flip(work, axis=a)
    out = ufunc.accumulate(work, axis=a, dtype=work.dtype)
    if exclusive:
        identity = np.full_like(np.take(out, [0], axis=a), 0 if ufunc is np.add else 1)
        out = np.concatenate([identity, np.take(out, range(out.shape[a] - 1), axis=a)], axis=a)
    if reverse:
        out = np.flip(out, axis=a)
    return np.ascontiguousarray(out.astype(x.dtype, copy=False))


def cumsum(x: np.ndarray, axis: np.ndarray, exclusive: bool = False, reverse: bool = False) -> np.ndarray:
    """Cumsum: running sums along ``axis`` (``exclusive``: starting at 0; ``reverse``: from the end)."""
    return _scan(np.add, x, axis, exclusive, reverse)


def cumprod(x: np.ndarray, axis: np.ndarray, exclusive: bool = False, reverse: bool = False) -> np.ndarray:
    """Cumprod: running products along ``axis`` (``exclusive``: starting at 1; ``reverse``: from the end)."""
    return _scan(np.multiply, x, axis, exclusive, reverse)


@ignoring_fp_errors
def cumulative_logsumexp(x: np.ndarray, axis: np.ndarray, exclusive: bool = False, reverse: bool = False) -> np.ndarray:
    """CumulativeLogsumexp: running ``log(sum(exp(x)))`` along ``axis`` (``exclusive``: starting at -inf)."""
    x = np.asarray(x)
    wide = x.astype(np.float64)
    out = _scan(np.logaddexp, wide, axis, False, reverse)
    if exclusive:
        a = int(axis) % x.ndim
        out = np.flip(out, a) if reverse else out
        start = np.full_like(np.take(out, [0], axis=a), -np.inf)
        out = np.concatenate([start, np.take(out, range(out.shape[a] - 1), axis=a)], axis=a)
        out = np.flip(out, a) if reverse else out
    return np.ascontiguousarray(out.astype(x.dtype))


OP_FUNCTIONS: dict[str, Any] = {
    "CumulativeLogsumexp": cumulative_logsumexp,
    "SegmentSum": segment_sum,
    "SegmentMean": segment_mean,
    "SegmentProd": segment_prod,
    "SegmentMax": segment_max,
    "SegmentMin": segment_min,
    "UnsortedSegmentSum": unsorted_segment_sum,
    "UnsortedSegmentProd": unsorted_segment_prod,
    "UnsortedSegmentMax": unsorted_segment_max,
    "UnsortedSegmentMin": unsorted_segment_min,
    "Cumsum": cumsum,
    "Cumprod": cumprod,
}
_WITH_COMPLEX = {"T": "FLOATS INTS UINTS COMPLEX"}
_REAL = {"T": "FLOATS INTS UINTS"}
CPU_TYPE_CONSTRAINTS = {
    "CumulativeLogsumexp": {"T": "FLOATS", "Tidx": "int32 int64"},
    **{op: {**_WITH_COMPLEX, "Tindices": "int32 int64"} for op in ("SegmentSum", "SegmentMean", "SegmentProd")},
    **{op: {**_REAL, "Tindices": "int32 int64"} for op in ("SegmentMax", "SegmentMin")},
    "UnsortedSegmentSum": {**_WITH_COMPLEX, "Tindices": "int16 int32 int64"},
    "UnsortedSegmentProd": {**_WITH_COMPLEX, "Tindices": "int16 int32 int64"},
    "UnsortedSegmentMax": {**_REAL, "Tindices": "int16 int32 int64"},
    "UnsortedSegmentMin": {**_REAL, "Tindices": "int16 int32 int64"},
    "Cumsum": {**_WITH_COMPLEX, "Tidx": "int32 int64"},
    "Cumprod": {**_WITH_COMPLEX, "Tidx": "int32 int64"},
}
