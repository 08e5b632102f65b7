"""CPU kernels of DynamicPartition, DynamicStitch and ParallelDynamicStitch, with TensorFlow's results and errors.

DynamicPartition keeps the order of the elements within each partition; the stitches write the data pieces in
order, so where indices repeat the last write wins (as TF's DynamicStitch; its parallel twin leaves that order
unspecified and gives the same here).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from modtensor.kernels.cpu.errors import invalid_argument, shape_str

__all__ = ["CPU_TYPE_CONSTRAINTS", "OP_FUNCTIONS"]


def dynamic_partition(data: np.ndarray, partitions: np.ndarray, num_partitions: int = 1) -> tuple[np.ndarray, ...]:
    """DynamicPartition: ``data``'s slices sorted into ``num_partitions`` outputs by ``partitions``."""
    data, partitions = np.asarray(data), np.asarray(partitions)
    if data.shape[: partitions.ndim] != partitions.shape:
        raise invalid_argument(
            f"data.shape must start with partitions.shape, got data.shape = {shape_str(data.shape)}, "
            f"partitions.shape = {shape_str(partitions.shape)}"
        )
    flat = partitions.reshape(-1)
    bad = np.flatnonzero((flat < 0) | (flat >= num_partitions))
    if bad.size:
        i = int(bad[0])
        raise invalid_argument(f"partitions{_index(np.unravel_index(i, partitions.shape))} = {int(flat[i])} is not "
                               f"in [0, {num_partitions})")  # fmt: skip
    rows = data.reshape((flat.size, *data.shape[partitions.ndim :]))
    return tuple(rows[flat == p] for p in range(num_partitions))


def _index(position: tuple) -> str:
    return "".join(f"[{int(i)}]" for i in position) if position else ""


def _stitch(indices: list[np.ndarray], data: list[np.ndarray]) -> np.ndarray:
    indices = [np.asarray(i) for i in indices]
    data = [np.asarray(d) for d in data]
    first = int(max((int(i.max()) for i in indices if i.size), default=-1)) + 1
    for m, (idx, values) in enumerate(zip(indices, data, strict=True)):
        if values.shape[: idx.ndim] != idx.shape:
            raise invalid_argument(
                f"data[{m}].shape = {shape_str(values.shape)} does not start with indices[{m}].shape = "
                f"{shape_str(idx.shape)}"
            )
    rest = data[0].shape[indices[0].ndim :]
    for m, (idx, values) in enumerate(zip(indices, data, strict=True)):
        if values.shape[idx.ndim :] != rest:
            raise invalid_argument(
                f"Need data[0].shape[{indices[0].ndim}:] = data[{m}].shape[{idx.ndim}:], got data[0].shape = "
                f"{shape_str(data[0].shape)}, data[{m}].shape = {shape_str(values.shape)}, indices[0].shape = "
                f"{shape_str(indices[0].shape)}, indices[{m}].shape = {shape_str(idx.shape)}"
            )
    out = np.zeros((first, *rest), data[0].dtype)
    for idx, values in zip(indices, data, strict=True):
        flat = idx.reshape(-1)
        bad = np.flatnonzero((flat < 0) | (flat >= first))
        if bad.size:
            raise invalid_argument(f"indices[{int(bad[0])}] is out of range")
        out[flat] = values.reshape((flat.size, *rest))  # later pieces overwrite earlier ones, as TF
    return out


def dynamic_stitch(indices: list[np.ndarray], data: list[np.ndarray]) -> np.ndarray:
    """DynamicStitch: ``merged[indices[m][i]] = data[m][i]`` for every piece, in order."""
    return _stitch(indices, data)


def parallel_dynamic_stitch(indices: list[np.ndarray], data: list[np.ndarray]) -> np.ndarray:
    """ParallelDynamicStitch: DynamicStitch's result (its write order for repeated indices is unspecified)."""
    return _stitch(indices, data)


OP_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "DynamicPartition": dynamic_partition,
    "DynamicStitch": dynamic_stitch,
    "ParallelDynamicStitch": parallel_dynamic_stitch,
}
# TF 2.21's CPU kernels: every type but the quantized and float8 ones (a stitch's int32 indices are a constraint too)
CPU_TYPE_CONSTRAINTS: dict[str, dict[str, str]] = {
    op: {"T": "FLOATS INTS UINTS bool COMPLEX string"}
    for op in ("DynamicPartition", "DynamicStitch", "ParallelDynamicStitch")
}
