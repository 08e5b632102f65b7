"""Dataset sources: TensorDataset, TensorSliceDataset, RangeDataset, GeneratorDataset (TF's kernels and texts)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from modtensor.framework import dtypes, errors
from modtensor.kernels.cpu.data.common import DatasetOpKernel, scalar
from modtensor.runtime.data.captured_function import CapturedFunction
from modtensor.runtime.data.dataset import DatasetBase, IteratorBase, IteratorContext
from modtensor.runtime.op_kernel import OpKernelContext

__all__ = ["GeneratorDatasetOp", "RangeDatasetOp", "TensorDatasetOp", "TensorSliceDatasetOp"]


class _TensorDataset(DatasetBase):
    type_string = "TensorDatasetOp::Dataset"

    def __init__(self, components: Sequence[np.ndarray], output_dtypes: Any, output_shapes: Any):
        super().__init__(output_dtypes, output_shapes)
        self.components = list(components)

    def cardinality(self) -> int:
        return 1

    def make_iterator(self, ctx: IteratorContext) -> IteratorBase:
        return _OnceIterator(self.components)


class _OnceIterator(IteratorBase):
    def __init__(self, element: list[np.ndarray]):
        self._element: list[np.ndarray] | None = element

    def get_next(self) -> list[np.ndarray] | None:
        element, self._element = self._element, None
        return None if element is None else list(element)


class TensorDatasetOp(DatasetOpKernel):
    """TensorDataset: one element, the inputs."""

    types_attr = "Toutput_types"

    def make_dataset(self, ctx: OpKernelContext) -> DatasetBase:
        return _TensorDataset(list(ctx.inputs), self.output_dtypes, self.output_shapes)


class _TensorSliceDataset(DatasetBase):
    type_string = "TensorSliceDatasetOp::Dataset"

    def __init__(self, components: Sequence[np.ndarray], output_dtypes: Any, output_shapes: Any):
        super().__init__(output_dtypes, output_shapes)
        self.components = [np.asarray(c) for c in components]
        self.count = int(self.components[0].shape[0])

    def cardinality(self) -> int:
        return self.count

    def make_iterator(self, ctx: IteratorContext) -> IteratorBase:
        return _SliceIterator(self)


class _SliceIterator(IteratorBase):
    def __init__(self, dataset: _TensorSliceDataset):
        self._components = dataset.components
        self._count = dataset.count
        self._index = 0

    def get_next(self) -> list[np.ndarray] | None:
        i = self._index
        if i >= self._count:
            return None
        self._index = i + 1
        return [c[i] if c.ndim > 1 else c[i : i + 1].reshape(()) for c in self._components]


class TensorSliceDatasetOp(DatasetOpKernel):
    """TensorSliceDataset: the slices of the inputs along their first dimension (which must agree)."""

    types_attr = "Toutput_types"

    def make_dataset(self, ctx: OpKernelContext) -> DatasetBase:
        components = [np.asarray(c) for c in ctx.inputs]
        for c in components:
            if c.ndim == 0:
                raise errors.InvalidArgumentError(None, None, "All components must be at least 1-dimensional")
        first = components[0].shape[0]
        for c in components[1:]:
            if c.shape[0] != first:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    "All components must have the same size in the 0th dimension",
                )
        return _TensorSliceDataset(components, self.output_dtypes, self.output_shapes)


class _RangeDataset(DatasetBase):
    type_string = "RangeDatasetOp::Dataset"

    def __init__(self, start: int, stop: int, step: int, output_dtypes: Any, output_shapes: Any):
        super().__init__(output_dtypes, output_shapes)
        self.start, self.stop, self.step = start, stop, step
        self._np_dtype = np.dtype(self.output_dtypes[0].as_numpy_dtype)

    def cardinality(self) -> int:
        if self.step > 0:
            return max(0, (self.stop - self.start - 1) // self.step + 1)
        return max(0, (self.start - self.stop - 1) // -self.step + 1)

    def make_iterator(self, ctx: IteratorContext) -> IteratorBase:
        return _RangeIterator(self)


class _RangeIterator(IteratorBase):
    def __init__(self, dataset: _RangeDataset):
        self._next = dataset.start
        self._stop = dataset.stop
        self._step = dataset.step
        self._dtype = dataset._np_dtype

    def get_next(self) -> list[np.ndarray] | None:
        value = self._next
        if (self._step > 0 and value >= self._stop) or (self._step < 0 and value <= self._stop):
            return None
        self._next = value + self._step
        return [np.array(value, dtype=self._dtype)]


class RangeDatasetOp(DatasetOpKernel):
    """RangeDataset: start, start + step, ... up to (excluding) stop."""

    def make_dataset(self, ctx: OpKernelContext) -> DatasetBase:
        start = int(scalar(ctx, 0, "start"))
        stop = int(scalar(ctx, 1, "stop"))
        step = int(scalar(ctx, 2, "step"))
        if step == 0:
            raise errors.InvalidArgumentError(None, None, "step must be a non-zero integer.")
        return _RangeDataset(start, stop, step, self.output_dtypes, self.output_shapes)


class _GeneratorDataset(DatasetBase):
    type_string = "GeneratorDatasetOp::Dataset"

    def __init__(
        self,
        init: CapturedFunction,
        next_fn: CapturedFunction,
        finalize: CapturedFunction,
        output_dtypes: Any,
        output_shapes: Any,
    ):
        super().__init__(output_dtypes, output_shapes)
        self.init, self.next_fn, self.finalize = init, next_fn, finalize

    def make_iterator(self, ctx: IteratorContext) -> IteratorBase:
        return _GeneratorIterator(self)


class _GeneratorIterator(IteratorBase):
    """Runs init_func on the first call, next_func for each element (OutOfRange ends), finalize_func at the end."""

    def __init__(self, dataset: _GeneratorDataset):
        self._dataset = dataset
        self._state: list[np.ndarray] | None = None
        self._finished = False
        self._lock = threading.Lock()

    def get_next(self) -> list[np.ndarray] | None:
        with self._lock:
            if self._finished:
                return None
            if self._state is None:
                self._state = self._dataset.init.run([])
            try:
                return self._dataset.next_fn.run(self._state)
            except errors.OutOfRangeError:
                self._finish()
                return None

    def _finish(self) -> None:
        if not self._finished and self._state is not None:
            self._finished = True
            self._dataset.finalize.run(self._state)
        self._finished = True

    def close(self) -> None:
        with self._lock, contextlib.suppress(errors.OpError):
            self._finish()


class GeneratorDatasetOp(DatasetOpKernel):
    """GeneratorDataset: elements from next_func(init_func(...)) until it raises OutOfRange."""

    def make_dataset(self, ctx: OpKernelContext) -> DatasetBase:
        n_init = self.num_list("Tinit_func_args")
        n_next = self.num_list("Tnext_func_args")
        inputs = list(ctx.inputs)
        init = self.function(ctx, "init_func", inputs[:n_init])
        next_fn = self.function(ctx, "next_func", inputs[n_init : n_init + n_next])
        finalize = self.function(ctx, "finalize_func", inputs[n_init + n_next :])
        return _GeneratorDataset(init, next_fn, finalize, self.output_dtypes, self.output_shapes)


def _int64(value: Any) -> np.ndarray:
    return np.asarray(value, dtype=dtypes.int64.as_numpy_dtype)
