"""Allocators: the interface every device's memory goes through, and the CPU allocator.

Kernels get output and temporary buffers from their device's allocator
(``OpKernelContext.allocate_output`` / ``allocate_temp``), so a device plugin
controls its memory (a BFC allocator, the plugin's own) behind one small contract.
"""

from __future__ import annotations

import dataclasses
import math
import threading
import weakref
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from modtensor.framework import dtypes

__all__ = [
    "ALIGNMENT",
    "Allocator",
    "AllocatorStats",
    "CPUAllocator",
    "aligned_copy",
    "aligned_empty",
    "as_numpy_dtype",
    "is_aligned",
]

# TensorFlow's tensor alignment (Allocator::kAllocatorAlignment): plugins built with Eigen or oneDNN
# check TF_TensorIsAligned and may abort on a host buffer that is not on it.
ALIGNMENT = 64


def as_numpy_dtype(dtype: Any) -> np.dtype:
    """The numpy dtype of a numpy dtype, DType, DataType enum or TF type name."""
    if isinstance(dtype, np.dtype):
        return dtype
    if isinstance(dtype, type) and issubclass(dtype, np.generic):
        return np.dtype(dtype)
    return np.dtype(dtypes.as_dtype(dtype).as_numpy_dtype)


def aligned_empty(shape: Sequence[int], dtype: Any) -> np.ndarray:
    """``np.empty(shape, dtype)`` whose data starts on a 64-byte boundary (object arrays: plain np.empty)."""
    dt = as_numpy_dtype(dtype)
    shape = tuple(shape)
    if dt.hasobject:
        return np.empty(shape, dtype=dt)
    nbytes = math.prod(shape) * dt.itemsize
    raw = np.empty(nbytes + ALIGNMENT, dtype=np.uint8)
    start = -raw.__array_interface__["data"][0] % ALIGNMENT
    return raw[start : start + nbytes].view(dt).reshape(shape)


def is_aligned(array: np.ndarray) -> bool:
    """True when the array's data starts on TensorFlow's 64-byte boundary (or it is empty)."""
    return array.size == 0 or array.__array_interface__["data"][0] % ALIGNMENT == 0


def aligned_copy(array: np.ndarray) -> np.ndarray:
    """``array`` itself when C-contiguous and 64-byte aligned (or of object dtype), else an aligned C-order copy."""
    if array.dtype.hasobject or (array.flags.c_contiguous and is_aligned(array)):
        return array
    out = aligned_empty(array.shape, array.dtype)
    np.copyto(out, array)
    return out


@dataclass
class AllocatorStats:
    """Memory statistics of one allocator, with TensorFlow's AllocatorStats field names."""

    num_allocs: int = 0
    bytes_in_use: int = 0
    peak_bytes_in_use: int = 0
    largest_alloc_size: int = 0
    bytes_limit: int | None = None
    bytes_reserved: int = 0  # bytes held from the device (BFC regions); 0 when not tracked

    def snapshot(self) -> AllocatorStats:
        """A copy, for handing out while the allocator keeps counting."""
        return dataclasses.replace(self)

    def record_alloc(self, num_bytes: int) -> None:
        """Count one allocation of ``num_bytes`` (in use, peak, largest)."""
        self.num_allocs += 1
        self.bytes_in_use += num_bytes
        if self.bytes_in_use > self.peak_bytes_in_use:
            self.peak_bytes_in_use = self.bytes_in_use
        if num_bytes > self.largest_alloc_size:
            self.largest_alloc_size = num_bytes

    def reset_peak(self) -> None:
        """TF's ClearStats: num_allocs and largest allocation to 0, the peak to the bytes now in use."""
        self.num_allocs = 0
        self.peak_bytes_in_use = self.bytes_in_use
        self.largest_alloc_size = 0


class Allocator(ABC):
    """Hands out device buffers of a shape and dtype; optionally keeps statistics."""

    name: str = "allocator"

    @abstractmethod
    def allocate(self, shape: Sequence[int], dtype: Any) -> Any:
        """A new buffer of ``shape`` and ``dtype`` with unspecified contents."""

    def deallocate(self, value: Any) -> None:
        """Free a buffer explicitly (numpy memory is freed by garbage collection: no-op)."""
        del value

    def get_stats(self) -> AllocatorStats | None:
        """Current statistics, or None when this allocator does not track them."""
        return None

    def clear_stats(self) -> None:
        """Reset the counters that accumulate (allocation count, peak, largest); no-op without stats."""
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


class CPUAllocator(Allocator):
    """Host memory from numpy; tracks bytes in use and peak when ``collect_stats`` is on.

    Tracking attaches a finalizer to each buffer (about a microsecond), so it is off
    by default, as TensorFlow's CPU allocator stats are.
    """

    def __init__(self, name: str = "cpu", *, collect_stats: bool = False, bytes_limit: int | None = None):
        self.name = name
        self.collect_stats = collect_stats
        self._lock = threading.Lock()
        self._stats = AllocatorStats(bytes_limit=bytes_limit)

    def allocate(self, shape: Sequence[int], dtype: Any) -> np.ndarray:
        """``np.empty(shape, dtype)`` on TensorFlow's 64-byte alignment, counted in the stats when collecting."""
        array = aligned_empty(shape, dtype)
        if self.collect_stats:
            size = array.nbytes
            with self._lock:
                self._stats.record_alloc(size)
            weakref.finalize(array, self._release, size)
        return array

    def _release(self, size: int) -> None:
        with self._lock:
            self._stats.bytes_in_use -= size

    def get_stats(self) -> AllocatorStats | None:
        """A snapshot of the counters, or None when not collecting."""
        if not self.collect_stats:
            return None
        with self._lock:
            return self._stats.snapshot()

    def clear_stats(self) -> None:
        """Reset num_allocs, peak (to the bytes now in use) and largest allocation."""
        with self._lock:
            self._stats.reset_peak()
