"""Datasets that call user functions per element: map (sequential and parallel), filter, flat_map, interleave
(sequential and parallel), scan and take_while, with TensorFlow's orders, cardinalities and texts.

Parallel map keeps ``num_parallel_calls`` calls in flight on a thread pool of its iterator; a
deterministic map returns results in input order, a non-deterministic one whichever finishes
first. Parallel interleave produces TF's deterministic interleave order while each open input
element is read ahead by its own thread. User functions run graph kernels, which release the
GIL in numpy, so the threads use both cores.
"""

from __future__ import annotations

import collections
import concurrent.futures
import queue
import threading
from typing import Any

import numpy as np

from modtensor.framework import errors
from modtensor.kernels.cpu.data.autotune import ParallelismTuner
from modtensor.kernels.cpu.data.common import DatasetOpKernel, scalar, unary_input
from modtensor.runtime.data.captured_function import CapturedFunction
from modtensor.runtime.data.dataset import (
    INFINITE,
    UNKNOWN,
    DatasetBase,
    IteratorBase,
    IteratorContext,
    dataset_from_value,
)
from modtensor.runtime.op_kernel import OpKernelContext

__all__ = [
    "FilterDatasetOp",
    "FlatMapDatasetOp",
    "InterleaveDatasetOp",
    "MapDatasetOp",
    "ParallelInterleaveDatasetV4Op",
    "ParallelMapDatasetV2Op",
    "ScanDatasetOp",
    "TakeWhileDatasetOp",
]

AUTOTUNE = -1


def _parallelism(value: int, ctx: IteratorContext) -> int:
    return max(1, ctx.parallelism if value == AUTOTUNE else value)


def _bool_result(result: list[np.ndarray], what: str) -> bool:
    if len(result) != 1 or np.asarray(result[0]).dtype != np.bool_ or np.ndim(result[0]) != 0:
        raise errors.InvalidArgumentError(None, None, f"{what} must return a scalar bool tensor.")
    return bool(result[0])


# ----------------------------------------------------------------------------- map


class _MapDataset(DatasetBase):
    type_string = "MapDatasetOp::Dataset"

    def __init__(self, input_dataset: DatasetBase, fn: CapturedFunction, preserve: bool, dtypes_: Any, shapes: Any):
        super().__init__(dtypes_, shapes)
        self.input, self.fn, self.preserve_cardinality = input_dataset, fn, preserve

    def inputs(self) -> list[DatasetBase]:
        return [self.input]

    def cardinality(self) -> int:
        return self.input.cardinality() if self.preserve_cardinality else UNKNOWN

    def make_iterator(self, ctx: IteratorContext) -> IteratorBase:
        return _MapIterator(self.input.make_iterator(ctx), self.fn, self.preserve_cardinality)


def _call_map(fn: CapturedFunction, element: list[np.ndarray], preserve: bool) -> list[np.ndarray]:
    try:
        return fn.run(element)
    except errors.OutOfRangeError as e:
        if preserve:  # TF: with preserve_cardinality an OutOfRange from the function is an error
            raise errors.InvalidArgumentError(
                None, None, "Function invocation produced OutOfRangeError: " + e.message
            ) from e
        raise


class _MapIterator(IteratorBase):
    def __init__(self, input_iterator: IteratorBase, fn: CapturedFunction, preserve: bool):
        self._input, self._fn, self._preserve = input_iterator, fn, preserve
        self._done = False

    def get_next(self) -> list[np.ndarray] | None:
        if self._done:
            return None
        element = self._input.get_next()
        if element is None:
            self._done = True
            return None
        try:
            return _call_map(self._fn, element, self._preserve)
        except errors.OutOfRangeError:  # without preserve_cardinality: ends the sequence (TF's legacy rule)
            self._done = True
            return None

    def close(self) -> None:
        self._input.close()


class MapDatasetOp(DatasetOpKernel):
    """MapDataset: ``f`` on each element."""

    def make_dataset(self, ctx: OpKernelContext) -> DatasetBase:
        fn = self.function(ctx, "f", list(ctx.inputs[1:]))
        preserve = bool(self.node_def.attr["preserve_cardinality"].b)
        return _MapDataset(unary_input(ctx), fn, preserve, self.output_dtypes, self.output_shapes)


class _ParallelMapDataset(_MapDataset):
    type_string = "ParallelMapDatasetOp::Dataset"

    def __init__(self, input_dataset: Any, fn: Any, preserve: bool, num_parallel: int, deterministic: bool, *a: Any):
        super().__init__(input_dataset, fn, preserve, *a)
        self.num_parallel_calls, self.deterministic = num_parallel, deterministic

    def make_iterator(self, ctx: IteratorContext) -> IteratorBase:
        return _ParallelMapIterator(self, ctx)


class _ParallelMapIterator(IteratorBase):
    """Up to ``num_parallel_calls`` function calls in flight; results in input order when deterministic.

    With AUTOTUNE the number in flight is measured (``ParallelismTuner``): the cores, or none, with the calls
    inline on the consumer's thread, whichever delivers elements faster (a function mostly Python gains nothing
    from threads that contend for the GIL)."""

    def __init__(self, dataset: _ParallelMapDataset, ctx: IteratorContext):
        self._input = dataset.input.make_iterator(ctx)
        self._fn = dataset.fn
        self._preserve = dataset.preserve_cardinality
        self._deterministic = dataset.deterministic
        self._parallel = _parallelism(dataset.num_parallel_calls, ctx)
        autotune = dataset.num_parallel_calls == AUTOTUNE and self._parallel > 1
        self._tuner = ParallelismTuner([self._parallel, 0]) if autotune else None
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None
        self._in_flight: collections.deque[concurrent.futures.Future] = collections.deque()
        self._input_done = False
        self._done = False

    def _limit(self) -> int:
        return self._parallel if self._tuner is None else self._tuner.current

    def _fill(self) -> None:
        limit = self._limit()
        while not self._input_done and len(self._in_flight) < limit:
            element = self._input.get_next()
            if element is None:
                self._input_done = True
                return
            if self._pool is None:
                self._pool = concurrent.futures.ThreadPoolExecutor(self._parallel, thread_name_prefix="tf_data_map")
            self._in_flight.append(self._pool.submit(_call_map, self._fn, element, self._preserve))

    def get_next(self) -> list[np.ndarray] | None:
        if self._done:
            return None
        inline = self._limit() == 0 and not self._in_flight
        result = self._next_inline() if inline else self._next_in_flight()
        if result is not None and self._tuner is not None:
            self._tuner.tick()
        return result

    def _next_inline(self) -> list[np.ndarray] | None:
        element = None if self._input_done else self._input.get_next()
        if element is None:
            self._done = self._input_done = True
            return None
        try:
            return _call_map(self._fn, element, self._preserve)
        except errors.OutOfRangeError:
            self._done = True
            return None

    def _next_in_flight(self) -> list[np.ndarray] | None:
        self._fill()
        if not self._in_flight:
            self._done = True
            return None
        if self._deterministic:
            future = self._in_flight.popleft()
        else:
            done, _ = concurrent.futures.wait(self._in_flight, return_when=concurrent.futures.FIRST_COMPLETED)
            future = next(f for f in self._in_flight if f in done)
            self._in_flight.remove(future)
        try:
            result = future.result()
        except errors.OutOfRangeError:
            self._done = True
            self._drain()
            return None
        self._fill()  # keep the pool busy while the caller uses this element
        return result

    def _drain(self) -> None:
        for future in self._in_flight:
            future.cancel()
        self._in_flight.clear()

    def close(self) -> None:
        self._drain()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
        self._input.close()


def _deterministic(attr: bytes) -> bool:
    return attr != b"false"  # "default" and "true" keep the order (tf.data.Options' default is deterministic)


class ParallelMapDatasetV2Op(DatasetOpKernel):
    """ParallelMapDatasetV2: ``f`` on ``num_parallel_calls`` elements at once (AUTOTUNE: the cores)."""

    def make_dataset(self, ctx: OpKernelContext) -> DatasetBase:
        n = self.num_list("Targuments")
        fn = self.function(ctx, "f", list(ctx.inputs[1 : 1 + n]))
        num_parallel = int(scalar(ctx, 1 + n, "num_parallel_calls"))
        if num_parallel <= 0 and num_parallel != AUTOTUNE:
            raise errors.InvalidArgumentError(
                None, None, "num_parallel_calls must be greater than zero."
            )
        preserve = bool(self.node_def.attr["preserve_cardinality"].b)
        deterministic = _deterministic(self.node_def.attr["deterministic"].s)
        return _ParallelMapDataset(
            unary_input(ctx), fn, preserve, num_parallel, deterministic, self.output_dtypes, self.output_shapes
        )


# ----------------------------------------------------------------------------- filter, take_while, scan


class _FilterDataset(DatasetBase):
    type_string = "FilterDatasetOp::Dataset"

    def __init__(self, input_dataset: DatasetBase, predicate: CapturedFunction, dtypes_: Any, shapes: Any):
        super().__init__(dtypes_, shapes)
        self.input, self.predicate = input_dataset, predicate

    def inputs(self) -> list[DatasetBase]:
        return [self.input]

    def cardinality(self) -> int:
        return UNKNOWN

    def make_iterator(self, ctx: IteratorContext) -> IteratorBase:
        return _FilterIterator(self.input.make_iterator(ctx), self.predicate)


class _FilterIterator(IteratorBase):
    def __init__(self, input_iterator: IteratorBase, predicate: CapturedFunction):
        self._input, self._predicate = input_iterator, predicate

    def get_next(self) -> list[np.ndarray] | None:
        while True:
            element = self._input.get_next()
            if element is None:
                return None
            if _bool_result(self._predicate.run(element), "Filter predicate `f`"):
                return element

    def close(self) -> None:
        self._input.close()


class FilterDatasetOp(DatasetOpKernel):
    """FilterDataset: the elements for which ``predicate`` is true."""

    def make_dataset(self, ctx: OpKernelContext) -> DatasetBase:
        predicate = self.function(ctx, "predicate", list(ctx.inputs[1:]))
        return _FilterDataset(unary_input(ctx), predicate, self.output_dtypes, self.output_shapes)


class _TakeWhileDataset(_FilterDataset):
    type_string = "TakeWhileDatasetOp::Dataset"

    def cardinality(self) -> int:
        return UNKNOWN

    def make_iterator(self, ctx: IteratorContext) -> IteratorBase:
        return _TakeWhileIterator(self.input.make_iterator(ctx), self.predicate)


class _TakeWhileIterator(_FilterIterator):
    def __init__(self, input_iterator: IteratorBase, predicate: CapturedFunction):
        super().__init__(input_iterator, predicate)
        self._done = False

    def get_next(self) -> list[np.ndarray] | None:
        if self._done:
            return None
        element = self._input.get_next()
        if element is None or not _bool_result(self._predicate.run(element), "`predicate`"):
            self._done = True
            return None
        return element


class TakeWhileDatasetOp(DatasetOpKernel):
    """TakeWhileDataset: elements while ``predicate`` holds."""

    def make_dataset(self, ctx: OpKernelContext) -> DatasetBase:
        predicate = self.function(ctx, "predicate", list(ctx.inputs[1:]))
        return _TakeWhileDataset(unary_input(ctx), predicate, self.output_dtypes, self.output_shapes)


class _ScanDataset(DatasetBase):
    type_string = "ScanDatasetOp::Dataset"

    def __init__(self, input_dataset: DatasetBase, fn: CapturedFunction, state: list[np.ndarray], *a: Any):
        super().__init__(*a)
        self.input, self.fn, self.initial_state = input_dataset, fn, state

    def inputs(self) -> list[DatasetBase]:
        return [self.input]

    def cardinality(self) -> int:
        return self.input.cardinality()

    def make_iterator(self, ctx: IteratorContext) -> IteratorBase:
        return _ScanIterator(self.input.make_iterator(ctx), self.fn, list(self.initial_state))


class _ScanIterator(IteratorBase):
    def __init__(self, input_iterator: IteratorBase, fn: CapturedFunction, state: list[np.ndarray]):
        self._input, self._fn, self._state = input_iterator, fn, state

    def get_next(self) -> list[np.ndarray] | None:
        element = self._input.get_next()
        if element is None:
            return None
        result = self._fn.run([*self._state, *element])
        n = len(self._state)
        self._state = result[:n]
        return result[n:]

    def close(self) -> None:
        self._input.close()


class ScanDatasetOp(DatasetOpKernel):
    """ScanDataset: ``f(state, element) -> (new_state, output)`` over the elements."""

    def make_dataset(self, ctx: OpKernelContext) -> DatasetBase:
        n_state = self.num_list("Tstate")
        state = list(ctx.inputs[1 : 1 + n_state])
        fn = self.function(ctx, "f", list(ctx.inputs[1 + n_state :]))
        return _ScanDataset(unary_input(ctx), fn, state, self.output_dtypes, self.output_shapes)


# ----------------------------------------------------------------------------- flat_map and interleave


def _make_inner(fn: CapturedFunction, element: list[np.ndarray], ctx: IteratorContext) -> IteratorBase:
    result = fn.run(element)
    if len(result) != 1:
        raise errors.InvalidArgumentError(
            None, None, "Function must return a single scalar of dtype DT_VARIANT."
        )
    return dataset_from_value(result[0], "the result of the function").make_iterator(ctx)


class _FlatMapDataset(DatasetBase):
    type_string = "FlatMapDatasetOp::Dataset"

    def __init__(self, input_dataset: DatasetBase, fn: CapturedFunction, dtypes_: Any, shapes: Any):
        super().__init__(dtypes_, shapes)
        self.input, self.fn = input_dataset, fn

    def inputs(self) -> list[DatasetBase]:
        return [self.input]

    def cardinality(self) -> int:
        return INFINITE if self.input.cardinality() == INFINITE else UNKNOWN

    def make_iterator(self, ctx: IteratorContext) -> IteratorBase:
        return _InterleaveIterator(self.input.make_iterator(ctx), self.fn, 1, 1, ctx)


class FlatMapDatasetOp(DatasetOpKernel):
    """FlatMapDataset: the elements of ``f(element)``, one dataset after the other."""

    def make_dataset(self, ctx: OpKernelContext) -> DatasetBase:
        fn = self.function(ctx, "f", list(ctx.inputs[1:]))
        return _FlatMapDataset(unary_input(ctx), fn, self.output_dtypes, self.output_shapes)


class _InterleaveIterator(IteratorBase):
    """TF's InterleaveDatasetOp iterator: ``cycle_length`` open datasets, ``block_length`` elements from each."""

    def __init__(self, input_iterator: IteratorBase, fn: CapturedFunction, cycle: int, block: int, ctx: Any):
        self._input, self._fn, self._cycle, self._block, self._ctx = input_iterator, fn, cycle, block, ctx
        self._current: list[Any] = [None] * cycle
        self._cycle_index = 0
        self._block_index = 0
        self._end_of_input = False
        self._num_open = 0

    def _open(self, element: list[np.ndarray]) -> Any:
        return _make_inner(self._fn, element, self._ctx)

    def _advance(self) -> None:
        self._block_index = 0
        self._cycle_index = (self._cycle_index + 1) % self._cycle

    def get_next(self) -> list[np.ndarray] | None:
        while not self._end_of_input or self._num_open > 0:
            current = self._current[self._cycle_index]
            if current is not None:
                element = current.get_next()
                if element is not None:
                    self._block_index += 1
                    if self._block_index == self._block:
                        self._advance()
                    return element
                current.close()
                self._current[self._cycle_index] = None
                self._num_open -= 1
                self._advance()
            elif not self._end_of_input:
                element = self._input.get_next()
                if element is None:
                    self._end_of_input = True
                else:
                    self._current[self._cycle_index] = self._open(element)
                    self._num_open += 1
            else:
                self._advance()
        return None

    def close(self) -> None:
        for current in self._current:
            if current is not None:
                current.close()
        self._current = [None] * self._cycle
        self._input.close()


class _InterleaveDataset(DatasetBase):
    type_string = "InterleaveDatasetOp::Dataset"

    def __init__(self, input_dataset: DatasetBase, fn: CapturedFunction, cycle: int, block: int, *a: Any):
        super().__init__(*a)
        self.input, self.fn, self.cycle_length, self.block_length = input_dataset, fn, cycle, block

    def inputs(self) -> list[DatasetBase]:
        return [self.input]

    def cardinality(self) -> int:
        return INFINITE if self.input.cardinality() == INFINITE else UNKNOWN

    def make_iterator(self, ctx: IteratorContext) -> IteratorBase:
        cycle = _parallelism(self.cycle_length, ctx)
        return _InterleaveIterator(self.input.make_iterator(ctx), self.fn, cycle, self.block_length, ctx)


def _interleave_args(kernel: DatasetOpKernel, ctx: OpKernelContext, extra: int) -> tuple[Any, ...]:
    n = kernel.num_list("Targuments")
    fn = kernel.function(ctx, "f", list(ctx.inputs[1 : 1 + n]))
    cycle = int(scalar(ctx, 1 + n, "cycle_length"))
    block = int(scalar(ctx, 2 + n, "block_length"))
    if cycle <= 0 and cycle != AUTOTUNE:
        raise errors.InvalidArgumentError(None, None, "cycle_length must be greater than zero.")
    if block <= 0:
        raise errors.InvalidArgumentError(None, None, "block_length must be greater than zero.")
    rest = [int(scalar(ctx, 3 + n + i, "argument")) for i in range(extra)]
    return (fn, cycle, block, *rest)


class InterleaveDatasetOp(DatasetOpKernel):
    """InterleaveDataset: ``f(element)`` datasets read round-robin, ``block_length`` elements at a time."""

    def make_dataset(self, ctx: OpKernelContext) -> DatasetBase:
        fn, cycle, block = _interleave_args(self, ctx, 0)
        return _InterleaveDataset(unary_input(ctx), fn, cycle, block, self.output_dtypes, self.output_shapes)


class _ReadAhead(IteratorBase):
    """An inner iterator read by its own thread into a bounded queue (one slot of a parallel interleave)."""

    _END = object()

    def __init__(self, iterator: IteratorBase, buffer: int, ctx: IteratorContext, pool: Any):
        self._iterator = iterator
        self._queue: queue.Queue[Any] = queue.Queue(max(1, buffer))
        self._ctx = ctx
        self._stop = threading.Event()
        self._finished = False
        pool.submit(self._produce)

    def _produce(self) -> None:
        try:
            while not self._stop.is_set() and not self._ctx.cancelled.is_set():
                element = self._iterator.get_next()
                item = self._END if element is None else element
                while not self._put(item):
                    if self._stop.is_set() or self._ctx.cancelled.is_set():
                        return
                if element is None:
                    return
        except BaseException as e:  # noqa: BLE001 - handed to the consumer
            self._put(e)

    def _put(self, item: Any) -> bool:
        try:
            self._queue.put(item, timeout=0.1)
            return True
        except queue.Full:
            return False

    def get_next(self) -> list[np.ndarray] | None:
        if self._finished:
            return None
        item = self._queue.get()
        if item is self._END:
            self._finished = True
            return None
        if isinstance(item, BaseException):
            self._finished = True
            raise item
        return item

    def close(self) -> None:
        self._stop.set()
        self._iterator.close()


class _ParallelInterleaveDataset(_InterleaveDataset):
    type_string = "ParallelInterleaveDatasetOp::Dataset"

    def __init__(self, input_dataset: Any, fn: Any, cycle: int, block: int, buffer: int, parallel: int, *a: Any):
        super().__init__(input_dataset, fn, cycle, block, *a)
        self.buffer_output_elements, self.num_parallel_calls = buffer, parallel

    def make_iterator(self, ctx: IteratorContext) -> IteratorBase:
        cycle = _parallelism(self.cycle_length, ctx)
        parallel = _parallelism(self.num_parallel_calls, ctx)
        buffer = self.buffer_output_elements if self.buffer_output_elements > 0 else self.block_length
        return _ParallelInterleaveIterator(self, cycle, parallel, buffer, ctx)


class _ParallelInterleaveIterator(_InterleaveIterator):
    """The interleave order of TF's deterministic parallel interleave; open inputs are read ahead in threads."""

    def __init__(self, dataset: _ParallelInterleaveDataset, cycle: int, parallel: int, buffer: int, ctx: Any):
        super().__init__(dataset.input.make_iterator(ctx), dataset.fn, cycle, dataset.block_length, ctx)
        self._buffer = buffer
        self._pool = concurrent.futures.ThreadPoolExecutor(max(parallel, cycle), thread_name_prefix="tf_data_il")

    def _open(self, element: list[np.ndarray]) -> Any:
        return _ReadAhead(_make_inner(self._fn, element, self._ctx), self._buffer, self._ctx, self._pool)

    def close(self) -> None:
        super().close()
        self._pool.shutdown(wait=False, cancel_futures=True)


class ParallelInterleaveDatasetV4Op(DatasetOpKernel):
    """ParallelInterleaveDatasetV4: interleave with the open datasets read by ``num_parallel_calls`` threads."""

    def make_dataset(self, ctx: OpKernelContext) -> DatasetBase:
        fn, cycle, block, buffer, _prefetch, parallel = _interleave_args(self, ctx, 3)
        if parallel <= 0 and parallel != AUTOTUNE:
            raise errors.InvalidArgumentError(None, None, "num_parallel_calls must be greater than zero.")
        return _ParallelInterleaveDataset(
            unary_input(ctx), fn, cycle, block, buffer, parallel, self.output_dtypes, self.output_shapes
        )
