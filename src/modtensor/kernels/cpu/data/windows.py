"""WindowDataset (``Dataset.window``): each element a window of the input, as one small dataset per component.

A window holds the input elements at ``start, start + stride, ...`` (``size`` of them) and the
next window starts ``shift`` elements later. As in TF, the iterator keeps a buffer of the
``(size - 1) * stride + 1`` elements a window spans; at the end of the input the remaining
(shorter) windows follow unless ``drop_remainder``; a shift longer than the buffer skips input.
Each window component is an in-memory dataset of that component's values (TF's WindowDataset).
"""

from __future__ import annotations

import collections
import threading
from typing import Any

import numpy as np

from modtensor.framework import errors
from modtensor.kernels.cpu.data.common import DatasetOpKernel, scalar, unary_input
from modtensor.runtime.data.dataset import (
    INFINITE,
    UNKNOWN,
    DatasetBase,
    IteratorBase,
    IteratorContext,
    variant_value,
)
from modtensor.runtime.op_kernel import OpKernelContext

__all__ = ["WindowDatasetOp"]


class _Window(DatasetBase):
    """One component of one window: a fixed list of values."""

    type_string = "Window"

    def __init__(self, values: list[np.ndarray], *a: Any):
        super().__init__(*a)
        self.values = values

    def cardinality(self) -> int:
        return len(self.values)

    def make_iterator(self, ctx: IteratorContext) -> IteratorBase:
        return _WindowIterator(self.values)


class _WindowIterator(IteratorBase):
    def __init__(self, values: list[np.ndarray]):
        self._values = values
        self._index = 0
        self._lock = threading.Lock()

    def get_next(self) -> list[np.ndarray] | None:
        with self._lock:
            if self._index >= len(self._values):
                return None
            self._index += 1
            return [self._values[self._index - 1]]


class _WindowDataset(DatasetBase):
    type_string = "WindowDatasetOp::Dataset"

    def __init__(self, input_dataset: DatasetBase, size: int, shift: int, stride: int, drop: bool, *a: Any):
        super().__init__(*a)
        self.input = input_dataset
        self.size, self.shift, self.stride, self.drop_remainder = size, shift, stride, drop

    def inputs(self) -> list[DatasetBase]:
        return [self.input]

    def cardinality(self) -> int:
        n = self.input.cardinality()
        if n in (INFINITE, UNKNOWN):
            return n
        if self.drop_remainder:
            rest = n - ((self.size - 1) * self.stride + 1)
            return 0 if rest < 0 else rest // self.shift + 1
        return -(-n // self.shift)

    def make_iterator(self, ctx: IteratorContext) -> IteratorBase:
        return _WindowDatasetIterator(self, ctx)


class _WindowDatasetIterator(IteratorBase):
    def __init__(self, dataset: _WindowDataset, ctx: IteratorContext):
        self._dataset = dataset
        self._input: IteratorBase | None = dataset.input.make_iterator(ctx)
        self._buffer: collections.deque[list[np.ndarray]] = collections.deque()
        self._span = (dataset.size - 1) * dataset.stride + 1
        self._lock = threading.Lock()

    def _read(self) -> list[np.ndarray] | None:
        if self._input is None:
            return None
        element = self._input.get_next()
        if element is None:
            self._input.close()
            self._input = None
        return element

    def get_next(self) -> list[np.ndarray] | None:
        with self._lock:
            ds = self._dataset
            while len(self._buffer) < self._span:
                element = self._read()
                if element is None:
                    break
                self._buffer.append(element)
            if not self._buffer or (ds.drop_remainder and len(self._buffer) < self._span):
                self._buffer.clear()
                return None
            members = list(self._buffer)[: self._span : ds.stride]
            if ds.shift <= len(self._buffer):
                for _ in range(ds.shift):
                    self._buffer.popleft()
            else:
                to_skip = ds.shift - len(self._buffer)
                self._buffer.clear()
                for _ in range(to_skip):
                    if self._read() is None:
                        break
            return [
                variant_value(
                    _Window([m[i] for m in members], [ds.input.output_dtypes[i]], [ds.input.output_shapes[i]])
                )
                for i in range(len(ds.input.output_dtypes))
            ]

    def close(self) -> None:
        if self._input is not None:
            self._input.close()
            self._input = None


class WindowDatasetOp(DatasetOpKernel):
    """WindowDataset: windows of ``size`` elements, ``shift`` apart, every ``stride``-th element."""

    def make_dataset(self, ctx: OpKernelContext) -> DatasetBase:
        values = {}
        for index, name in ((1, "size"), (2, "shift"), (3, "stride")):
            values[name] = int(scalar(ctx, index, name))
            if values[name] <= 0:
                raise errors.InvalidArgumentError(None, None, f"Window {name} must be greater than zero.")
        drop = bool(scalar(ctx, 4, "drop_remainder"))
        return _WindowDataset(
            unary_input(ctx),
            values["size"],
            values["shift"],
            values["stride"],
            drop,
            self.output_dtypes,
            self.output_shapes,
        )
