"""Datasets that batch, reorder, repeat, cut, join or buffer their inputs: batch, padded_batch, unbatch, zip,
concatenate, repeat, take, skip, shuffle, prefetch, cache, options (TF's kernels, cardinalities and texts).

Shuffle reproduces TensorFlow's order for given seeds: a Philox4x32-10 stream keyed by the
iterator's seeds (TF's ``SingleSampleAdapter<PhiloxRandom>``) picks ``sample % size`` from the
buffer of the current epoch; the seeds of each new iterator come from the dataset's seed
generator (a fixed one when ``reshuffle_each_iteration`` is False, else a Philox stream keyed by
the op's seeds, two 32-bit samples per iterator), as TF's ShuffleDatasetV3 does.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from modtensor.framework import errors, tensor_proto
from modtensor.framework.record_io import RecordReader, RecordWriter
from modtensor.kernels.cpu.data.common import DatasetOpKernel, scalar, unary_input
from modtensor.kernels.cpu.random import philox_blocks
from modtensor.runtime.data.dataset import (
    INFINITE,
    UNKNOWN,
    DatasetBase,
    IteratorBase,
    IteratorContext,
    dataset_input,
)
from modtensor.runtime.op_kernel import OpKernel, OpKernelContext
from modtensor.runtime.resource_mgr import ANONYMOUS_NAME, ResourceBase, handle_tensor, make_handle

__all__ = [
    "BatchDatasetV2Op",
    "CacheDatasetV2Op",
    "ConcatenateDatasetOp",
    "DummyResourceOp",
    "OptionsDatasetOp",
    "PaddedBatchDatasetV2Op",
    "PhiloxSamples",
    "PrefetchDatasetOp",
    "RepeatDatasetOp",
    "ShuffleDatasetV3Op",
    "SkipDatasetOp",
    "TakeDatasetOp",
    "UnbatchDatasetOp",
    "ZipDatasetOp",
]


class _Unary(DatasetBase):
    """A dataset over one input with the same element types (or the op's)."""

    def __init__(self, input_dataset: DatasetBase, dtypes_: Any, shapes: Any):
        super().__init__(dtypes_, shapes)
        self.input = input_dataset

    def inputs(self) -> list[DatasetBase]:
        return [self.input]


def _shape_text(shape: Sequence[int]) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


# ----------------------------------------------------------------------------- batch


def _stack(elements: list[list[np.ndarray]], component: int) -> np.ndarray:
    first = np.shape(elements[0][component])
    for i, element in enumerate(elements[1:], start=1):
        if np.shape(element[component]) != first:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Cannot batch tensors with different shapes in component {component}. First element had shape "
                f"{_shape_text(first)} and element {i} had shape {_shape_text(np.shape(element[component]))}.",
            )
    return np.stack([np.asarray(e[component]) for e in elements])


class _BatchDataset(_Unary):
    type_string = "BatchDatasetOp::Dataset"

    def __init__(self, input_dataset: DatasetBase, batch_size: int, drop_remainder: bool, *a: Any):
        super().__init__(input_dataset, *a)
        self.batch_size, self.drop_remainder = batch_size, drop_remainder

    def cardinality(self) -> int:
        n = self.input.cardinality()
        if n in (INFINITE, UNKNOWN):
            return n
        return n // self.batch_size + (0 if self.drop_remainder or n % self.batch_size == 0 else 1)

    def make_iterator(self, ctx: IteratorContext) -> IteratorBase:
        return _BatchIterator(self, ctx)

    def combine(self, elements: list[list[np.ndarray]]) -> list[np.ndarray]:
        return [_stack(elements, i) for i in range(len(elements[0]))]


class _BatchIterator(IteratorBase):
    def __init__(self, dataset: _BatchDataset, ctx: IteratorContext):
        self._dataset = dataset
        self._input: IteratorBase | None = dataset.input.make_iterator(ctx)

    def get_next(self) -> list[np.ndarray] | None:
        if self._input is None:
            return None
        elements = []
        for _ in range(self._dataset.batch_size):
            element = self._input.get_next()
            if element is None:
                self._input.close()
                self._input = None
                break
            elements.append(element)
        if not elements or (self._dataset.drop_remainder and len(elements) < self._dataset.batch_size):
            return None
        return self._dataset.combine(elements)

    def close(self) -> None:
        if self._input is not None:
            self._input.close()


class BatchDatasetV2Op(DatasetOpKernel):
    """BatchDatasetV2: ``batch_size`` consecutive elements stacked (the last batch may be smaller)."""

    def make_dataset(self, ctx: OpKernelContext) -> DatasetBase:
        batch_size = int(scalar(ctx, 1, "batch_size"))
        if batch_size <= 0:
            raise errors.InvalidArgumentError(None, None, "Batch size must be greater than zero.")
        drop = bool(scalar(ctx, 2, "drop_remainder"))
        return _BatchDataset(unary_input(ctx), batch_size, drop, self.output_dtypes, self.output_shapes)


class _PaddedBatchDataset(_BatchDataset):
    type_string = "PaddedBatchDatasetOp::Dataset"

    def __init__(self, input_dataset: DatasetBase, batch_size: int, drop: bool, padded_shapes: Any, values: Any, *a):
        super().__init__(input_dataset, batch_size, drop, *a)
        self.padded_shapes, self.padding_values = padded_shapes, values

    def combine(self, elements: list[list[np.ndarray]]) -> list[np.ndarray]:
        out = []
        for i, (padded, pad_value) in enumerate(zip(self.padded_shapes, self.padding_values, strict=True)):
            shapes = [np.shape(e[i]) for e in elements]
            rank = len(padded)
            for shape in shapes:
                if len(shape) != rank:
                    raise errors.InvalidArgumentError(
                        None,
                        None,
                        f"All elements in a batch must have the same rank as the padded shape for component{i}: "
                        f"expected rank {rank} but got element with rank {len(shape)}",
                    )
            target = []
            for d, size in enumerate(padded):
                longest = max((s[d] for s in shapes), default=0)
                if size < 0:
                    target.append(longest)
                else:
                    if longest > size:
                        bad = next(s for s in shapes if s[d] > size)
                        raise errors.InvalidArgumentError(
                            None,
                            None,
                            f"Attempted to pad to a smaller size than the input element. Component {i} has shape "
                            f"{_shape_text(bad)} but padded shape is {_shape_text(padded)}",
                        )
                    target.append(size)
            value = np.asarray(pad_value)
            batch = np.full((len(elements), *target), value, dtype=value.dtype if value.dtype != object else object)
            for b, element in enumerate(elements):
                array = np.asarray(element[i])
                batch[(b, *tuple(slice(0, n) for n in array.shape))] = array
            out.append(batch)
        return out


class PaddedBatchDatasetV2Op(DatasetOpKernel):
    """PaddedBatchDatasetV2: batches whose components are padded to ``padded_shapes`` (-1: the batch's longest)."""

    types_attr = "Toutput_types"

    def make_dataset(self, ctx: OpKernelContext) -> DatasetBase:
        n = int(self.node_def.attr["N"].i)
        batch_size = int(scalar(ctx, 1, "batch_size"))
        if batch_size <= 0:
            raise errors.InvalidArgumentError(None, None, "Batch size must be greater than zero.")
        padded = [tuple(int(d) for d in np.asarray(ctx.inputs[2 + i]).reshape(-1)) for i in range(n)]
        values = list(ctx.inputs[2 + n : 2 + 2 * n])
        for i, v in enumerate(values):
            if np.ndim(v) != 0:
                raise errors.InvalidArgumentError(
                    None, None, f"All padding values must be scalars; but at index {i} got shape {list(np.shape(v))}"
                )
        drop = bool(scalar(ctx, 2 + 2 * n, "drop_remainder"))
        return _PaddedBatchDataset(
            unary_input(ctx), batch_size, drop, padded, values, self.output_dtypes, self.output_shapes
        )


class _UnbatchDataset(_Unary):
    type_string = "UnbatchDatasetOp::Dataset"

    def cardinality(self) -> int:
        n = self.input.cardinality()
        return n if n == INFINITE else UNKNOWN

    def make_iterator(self, ctx: IteratorContext) -> IteratorBase:
        return _UnbatchIterator(self.input.make_iterator(ctx))


class _UnbatchIterator(IteratorBase):
    def __init__(self, input_iterator: IteratorBase):
        self._input = input_iterator
        self._current: list[np.ndarray] | None = None
        self._index = 0
        self._size = 0

    def get_next(self) -> list[np.ndarray] | None:
        while self._current is None or self._index >= self._size:
            element = self._input.get_next()
            if element is None:
                return None
            arrays = [np.asarray(c) for c in element]
            if any(a.ndim == 0 for a in arrays):
                raise errors.InvalidArgumentError(
                    None, None, "Input element must have a non-scalar value in each component."
                )
            sizes = {a.shape[0] for a in arrays}
            if len(sizes) != 1:
                raise errors.InvalidArgumentError(
                    None, None, "Input element must have the same batch size in each component."
                )
            self._current, self._index, self._size = arrays, 0, sizes.pop()
        i = self._index
        self._index += 1
        return [a[i] if a.ndim > 1 else a[i : i + 1].reshape(()) for a in self._current]

    def close(self) -> None:
        self._input.close()


class UnbatchDatasetOp(DatasetOpKernel):
    """UnbatchDataset: the rows of each element's components."""

    def make_dataset(self, ctx: OpKernelContext) -> DatasetBase:
        return _UnbatchDataset(unary_input(ctx), self.output_dtypes, self.output_shapes)


# ----------------------------------------------------------------------------- zip, concatenate


class _ZipDataset(DatasetBase):
    type_string = "ZipDatasetOp::Dataset"

    def __init__(self, datasets: list[DatasetBase], *a: Any):
        super().__init__(*a)
        self.datasets = datasets

    def inputs(self) -> list[DatasetBase]:
        return list(self.datasets)

    def cardinality(self) -> int:
        result = INFINITE
        for d in self.datasets:
            n = d.cardinality()
            if n == UNKNOWN:
                return UNKNOWN
            if n != INFINITE:
                result = n if result == INFINITE else min(result, n)
        return result

    def make_iterator(self, ctx: IteratorContext) -> IteratorBase:
        return _ZipIterator([d.make_iterator(ctx) for d in self.datasets])


class _ZipIterator(IteratorBase):
    def __init__(self, iterators: list[IteratorBase]):
        self._iterators = iterators
        self._done = False

    def get_next(self) -> list[np.ndarray] | None:
        if self._done:
            return None
        out: list[np.ndarray] = []
        for it in self._iterators:
            element = it.get_next()
            if element is None:
                self._done = True
                return None
            out.extend(element)
        return out

    def close(self) -> None:
        for it in self._iterators:
            it.close()


class ZipDatasetOp(DatasetOpKernel):
    """ZipDataset: elements of the inputs side by side, until the shortest ends."""

    def make_dataset(self, ctx: OpKernelContext) -> DatasetBase:
        datasets = [dataset_input(ctx, i, "input_datasets") for i in range(len(ctx.inputs))]
        return _ZipDataset(datasets, self.output_dtypes, self.output_shapes)


class _ConcatenateDataset(DatasetBase):
    type_string = "ConcatenateDatasetOp::Dataset"

    def __init__(self, first: DatasetBase, second: DatasetBase, *a: Any):
        super().__init__(*a)
        self.first, self.second = first, second

    def inputs(self) -> list[DatasetBase]:
        return [self.first, self.second]

    def cardinality(self) -> int:
        a, b = self.first.cardinality(), self.second.cardinality()
        if INFINITE in (a, b):
            return INFINITE
        if UNKNOWN in (a, b):
            return UNKNOWN
        return a + b

    def make_iterator(self, ctx: IteratorContext) -> IteratorBase:
        return _ConcatenateIterator(self, ctx)


class _ConcatenateIterator(IteratorBase):
    def __init__(self, dataset: _ConcatenateDataset, ctx: IteratorContext):
        self._dataset, self._ctx = dataset, ctx
        self._current: IteratorBase | None = dataset.first.make_iterator(ctx)
        self._second = False

    def get_next(self) -> list[np.ndarray] | None:
        while self._current is not None:
            element = self._current.get_next()
            if element is not None:
                return element
            self._current.close()
            if self._second:
                self._current = None
            else:
                self._second = True
                self._current = self._dataset.second.make_iterator(self._ctx)
        return None

    def close(self) -> None:
        if self._current is not None:
            self._current.close()


class ConcatenateDatasetOp(DatasetOpKernel):
    """ConcatenateDataset: the input's elements, then another dataset's."""

    def make_dataset(self, ctx: OpKernelContext) -> DatasetBase:
        first = dataset_input(ctx, 0)
        second = dataset_input(ctx, 1, "another_dataset")
        if tuple(first.output_dtypes) != tuple(second.output_dtypes):
            raise errors.InvalidArgumentError(
                None, None, "input dataset and dataset to concatenate have different types."
            )
        return _ConcatenateDataset(first, second, self.output_dtypes, self.output_shapes)


# ----------------------------------------------------------------------------- repeat, take, skip


class _RepeatDataset(_Unary):
    type_string = "RepeatDatasetOp::Dataset"

    def __init__(self, input_dataset: DatasetBase, count: int, *a: Any):
        super().__init__(input_dataset, *a)
        self.count = count

    def cardinality(self) -> int:
        n = self.input.cardinality()
        if self.count < 0:
            return 0 if n == 0 else (UNKNOWN if n == UNKNOWN else INFINITE)
        if n in (INFINITE, UNKNOWN):
            return n if self.count > 0 else 0
        return n * self.count

    def make_iterator(self, ctx: IteratorContext) -> IteratorBase:
        return _RepeatIterator(self, ctx)


class _RepeatIterator(IteratorBase):
    def __init__(self, dataset: _RepeatDataset, ctx: IteratorContext):
        self._dataset, self._ctx = dataset, ctx
        self._epoch = 0
        self._first_call = True
        self._current: IteratorBase | None = dataset.input.make_iterator(ctx) if dataset.count != 0 else None

    def get_next(self) -> list[np.ndarray] | None:
        count = self._dataset.count
        while self._current is not None:
            element = self._current.get_next()
            first, self._first_call = self._first_call, False
            if element is not None:
                return element
            self._current.close()
            self._epoch += 1
            if (count >= 0 and self._epoch >= count) or (count < 0 and first):
                self._current = None  # TF: an input that is empty at the first call, repeated forever, ends at once
                return None
            self._current = self._dataset.input.make_iterator(self._ctx)
        return None

    def close(self) -> None:
        if self._current is not None:
            self._current.close()


class RepeatDatasetOp(DatasetOpKernel):
    """RepeatDataset: the input ``count`` times (-1: forever)."""

    def make_dataset(self, ctx: OpKernelContext) -> DatasetBase:
        count = int(scalar(ctx, 1, "count"))
        return _RepeatDataset(unary_input(ctx), count, self.output_dtypes, self.output_shapes)


class _TakeDataset(_Unary):
    type_string = "TakeDatasetOp::Dataset"

    def __init__(self, input_dataset: DatasetBase, count: int, *a: Any):
        super().__init__(input_dataset, *a)
        self.count = count

    def cardinality(self) -> int:
        n = self.input.cardinality()
        if self.count < 0:
            return n
        if n == UNKNOWN:
            return UNKNOWN
        return self.count if n == INFINITE else min(n, self.count)

    def make_iterator(self, ctx: IteratorContext) -> IteratorBase:
        return _TakeIterator(self.input.make_iterator(ctx), self.count)


class _TakeIterator(IteratorBase):
    def __init__(self, input_iterator: IteratorBase, count: int):
        self._input: IteratorBase | None = input_iterator
        self._left = count

    def get_next(self) -> list[np.ndarray] | None:
        if self._input is None or self._left == 0:
            self.close()
            return None
        element = self._input.get_next()
        if element is None:
            self.close()
            return None
        if self._left > 0:
            self._left -= 1
        return element

    def close(self) -> None:
        if self._input is not None:
            self._input.close()
            self._input = None


class TakeDatasetOp(DatasetOpKernel):
    """TakeDataset: at most ``count`` elements (-1: all)."""

    def make_dataset(self, ctx: OpKernelContext) -> DatasetBase:
        return _TakeDataset(unary_input(ctx), int(scalar(ctx, 1, "count")), self.output_dtypes, self.output_shapes)


class _SkipDataset(_TakeDataset):
    type_string = "SkipDatasetOp::Dataset"

    def cardinality(self) -> int:
        n = self.input.cardinality()
        if n in (INFINITE, UNKNOWN):
            return n
        if self.count < 0:
            return 0
        return max(0, n - self.count)

    def make_iterator(self, ctx: IteratorContext) -> IteratorBase:
        return _SkipIterator(self.input.make_iterator(ctx), self.count)


class _SkipIterator(IteratorBase):
    def __init__(self, input_iterator: IteratorBase, count: int):
        self._input = input_iterator
        self._to_skip = count

    def get_next(self) -> list[np.ndarray] | None:
        while self._to_skip != 0:
            if self._input.get_next() is None:
                self._to_skip = 0
                return None
            if self._to_skip > 0:
                self._to_skip -= 1
        return self._input.get_next()

    def close(self) -> None:
        self._input.close()


class SkipDatasetOp(DatasetOpKernel):
    """SkipDataset: all but the first ``count`` elements (-1: none)."""

    def make_dataset(self, ctx: OpKernelContext) -> DatasetBase:
        return _SkipDataset(unary_input(ctx), int(scalar(ctx, 1, "count")), self.output_dtypes, self.output_shapes)


# ----------------------------------------------------------------------------- shuffle


class PhiloxSamples:
    """TF's ``SingleSampleAdapter<PhiloxRandom>(seed, seed2)``: successive 32-bit samples, 4 per Philox block."""

    _BLOCKS = 64  # blocks computed at a time

    def __init__(self, seed: int, seed2: int):
        self._seed, self._seed2 = seed & (2**64 - 1), seed2 & (2**64 - 1)
        self._block = 0
        self._samples: list[int] = []
        self._position = 0

    def next(self) -> int:
        """The next uint32 sample."""
        if self._position >= len(self._samples):
            words = philox_blocks(self._seed, self._seed2, self._BLOCKS, self._block)
            self._samples = words.reshape(-1).tolist()
            self._block += self._BLOCKS
            self._position = 0
        value = self._samples[self._position]
        self._position += 1
        return value


def _random_seeds(seed: int, seed2: int) -> tuple[int, int]:
    """TF's RandomSeeds: (0, 0) asks for nondeterministic seeds."""
    if seed == 0 and seed2 == 0:
        return int.from_bytes(os.urandom(8), "little"), int.from_bytes(os.urandom(8), "little")
    return seed, seed2


class _SeedGenerator:
    """TF's FixedSeedGenerator (``reshuffle`` False) or RandomSeedGenerator: seeds for each new iterator."""

    def __init__(self, seed: int, seed2: int, reshuffle: bool):
        self.seed, self.seed2 = seed, seed2
        self._samples = PhiloxSamples(seed, seed2) if reshuffle else None
        self._lock = threading.Lock()

    def generate(self) -> tuple[int, int]:
        if self._samples is None:
            return self.seed, self.seed2
        with self._lock:
            return self._samples.next(), self._samples.next()


class _ShuffleDataset(_Unary):
    type_string = "ShuffleDatasetOp::Dataset"

    def __init__(self, input_dataset: DatasetBase, buffer_size: int, generator: _SeedGenerator, *a: Any):
        super().__init__(input_dataset, *a)
        self.buffer_size, self.generator = buffer_size, generator

    def cardinality(self) -> int:
        return self.input.cardinality()

    def make_iterator(self, ctx: IteratorContext) -> IteratorBase:
        return _ShuffleIterator(self, ctx)


class _ShuffleIterator(IteratorBase):
    """TF's shuffle buffer, a ring of ``buffer_size`` slots holding positions [start, end): fill it, then emit the
    slot ``start + sample % (end - start)``, which takes the element at ``start`` before ``start`` moves on."""

    def __init__(self, dataset: _ShuffleDataset, ctx: IteratorContext):
        self._input: IteratorBase | None = dataset.input.make_iterator(ctx)
        self._size = dataset.buffer_size
        self._slots: list[Any] = [None] * min(self._size, 1 << 16)
        self._start = 0
        self._end = 0
        seed, seed2 = dataset.generator.generate()
        self._random = PhiloxSamples(seed, seed2)

    def get_next(self) -> list[np.ndarray] | None:
        slots, size = self._slots, self._size
        while self._input is not None and self._end - self._start < size:
            element = self._input.get_next()
            if element is None:
                self._input.close()
                self._input = None
                break
            index = self._end % size
            if index >= len(slots):  # large buffers grow as they fill
                slots.extend([None] * min(len(slots), size - len(slots)))
            slots[index] = element
            self._end += 1
        count = self._end - self._start
        if count == 0:
            return None
        index = (self._start + self._random.next() % count) % size
        first = self._start % size
        element = slots[index]
        slots[index] = slots[first]
        slots[first] = None
        self._start += 1
        return element

    def close(self) -> None:
        if self._input is not None:
            self._input.close()


class ShuffleDatasetV3Op(DatasetOpKernel):
    """ShuffleDatasetV3: a ``buffer_size`` shuffle buffer seeded by ``seed``/``seed2`` (seed generator: dummy)."""

    def __init__(self, ctx: Any):
        super().__init__(ctx)
        self._reshuffle = bool(ctx.get_attr("reshuffle_each_iteration"))

    def make_dataset(self, ctx: OpKernelContext) -> DatasetBase:
        buffer_size = int(scalar(ctx, 1, "buffer_size"))
        if buffer_size <= 0 and buffer_size != -2:
            raise errors.InvalidArgumentError(
                None, None, "buffer_size must be greater than zero or UNKNOWN_CARDINALITY"
            )
        seed, seed2 = _random_seeds(int(scalar(ctx, 2, "seed")), int(scalar(ctx, 3, "seed2")))
        input_dataset = unary_input(ctx)
        if buffer_size == -2:  # TF's "unknown": the whole input
            buffer_size = max(1, input_dataset.cardinality())
        generator = _SeedGenerator(seed, seed2, self._reshuffle)
        return _ShuffleDataset(input_dataset, buffer_size, generator, self.output_dtypes, self.output_shapes)


# ----------------------------------------------------------------------------- prefetch


class _PrefetchDataset(_Unary):
    type_string = "PrefetchDatasetOp::Dataset"

    def __init__(self, input_dataset: DatasetBase, buffer_size: int, *a: Any):
        super().__init__(input_dataset, *a)
        self.buffer_size = buffer_size

    def cardinality(self) -> int:
        return self.input.cardinality()

    def make_iterator(self, ctx: IteratorContext) -> IteratorBase:
        if self.buffer_size == 0:
            return self.input.make_iterator(ctx)
        size = self.buffer_size if self.buffer_size > 0 else max(2, ctx.parallelism)
        return _PrefetchIterator(self.input.make_iterator(ctx), size, ctx)


class _PrefetchIterator(IteratorBase):
    """A background thread reads the input ahead into a buffer of ``buffer_size`` elements."""

    _END = object()

    def __init__(self, input_iterator: IteratorBase, size: int, ctx: IteratorContext):
        self._input = input_iterator
        self._queue: queue.Queue[Any] = queue.Queue(size)
        self._ctx = ctx
        self._stop = threading.Event()
        self._finished = False
        self._thread: threading.Thread | None = None

    def _produce(self) -> None:
        stop, cancelled = self._stop, self._ctx.cancelled
        try:
            while not stop.is_set() and not cancelled.is_set():
                element = self._input.get_next()
                item = self._END if element is None else element
                while True:
                    try:
                        self._queue.put(item, timeout=0.1)
                        break
                    except queue.Full:
                        if stop.is_set() or cancelled.is_set():
                            return
                if element is None:
                    return
        except BaseException as e:  # noqa: BLE001 - handed to the consumer
            self._queue.put(e)

    def get_next(self) -> list[np.ndarray] | None:
        if self._finished:
            return None
        if self._thread is None:
            self._thread = threading.Thread(target=self._produce, name="tf_data_prefetch", daemon=True)
            self._thread.start()
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
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            while thread.is_alive():  # unblock a producer waiting on a full buffer
                with contextlib.suppress(queue.Empty):
                    self._queue.get_nowait()
                thread.join(0.05)
        self._input.close()


class PrefetchDatasetOp(DatasetOpKernel):
    """PrefetchDataset: the input read ahead by a background thread (AUTOTUNE: a buffer per core, at least 2)."""

    def make_dataset(self, ctx: OpKernelContext) -> DatasetBase:
        size = int(scalar(ctx, 1, "buffer_size"))
        if size < 0 and size != -1:
            raise errors.InvalidArgumentError(
                None, None, "buffer_size must be >= 0 or set buffer_size to be -1 for dynamic."
            )
        return _PrefetchDataset(unary_input(ctx), size, self.output_dtypes, self.output_shapes)


# ----------------------------------------------------------------------------- cache


class _MemoryCache:
    def __init__(self) -> None:
        self.elements: list[list[np.ndarray]] | None = None
        self.lock = threading.Lock()


class _CacheDataset(_Unary):
    type_string = "CacheDatasetOp::MemoryDataset"

    def __init__(self, input_dataset: DatasetBase, filename: str, *a: Any):
        super().__init__(input_dataset, *a)
        self.filename = filename
        self.memory = _MemoryCache()
        if filename:
            self.type_string = "CacheDatasetOp::FileDataset"

    def cardinality(self) -> int:
        return self.input.cardinality()

    def make_iterator(self, ctx: IteratorContext) -> IteratorBase:
        if self.filename:
            path = self.filename + _CACHE_SUFFIX
            if os.path.exists(path):
                return _FileCacheReader(path, len(self.output_dtypes))
            return _CacheWriter(self, ctx, _FileCacheSink(self.filename, path))
        with self.memory.lock:
            elements = self.memory.elements
        if elements is not None:
            return _ListIterator(elements)
        return _CacheWriter(self, ctx, None)


_CACHE_SUFFIX = ".modtensor-cache.tfrecord"


class _ListIterator(IteratorBase):
    def __init__(self, elements: list[list[np.ndarray]]):
        self._elements = elements
        self._index = 0

    def get_next(self) -> list[np.ndarray] | None:
        if self._index >= len(self._elements):
            return None
        self._index += 1
        return list(self._elements[self._index - 1])


class _FileCacheSink:
    """Writes cached elements as TFRecords of TensorProtos to a temporary file, renamed when complete."""

    def __init__(self, filename: str, path: str):
        self._final = path
        self._temp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
        lock = filename + ".lockfile"
        if os.path.exists(lock):
            raise errors.AlreadyExistsError(
                None,
                None,
                f"There appears to be a concurrent caching iterator running - cache lockfile already exists "
                f"('{lock}'). If you are sure no other running TF computations are using this cache prefix, "
                "delete the lockfile and re-initialize the iterator.",
            )
        self._lock = lock
        open(lock, "w").close()
        self._writer = RecordWriter(self._temp)

    def add(self, element: list[np.ndarray]) -> None:
        for component in element:
            self._writer.write(tensor_proto.make_tensor_proto(np.asarray(component)).SerializeToString())

    def finish(self) -> None:
        self._writer.close()
        os.replace(self._temp, self._final)
        self._release()

    def abandon(self) -> None:
        self._writer.close()
        for path in (self._temp,):
            if os.path.exists(path):
                os.remove(path)
        self._release()

    def _release(self) -> None:
        if os.path.exists(self._lock):
            os.remove(self._lock)


class _FileCacheReader(IteratorBase):
    def __init__(self, path: str, num_components: int):
        from modtensor.framework.protos import tensor_pb2

        self._reader = RecordReader(path)
        self._n = num_components
        self._proto = tensor_pb2.TensorProto

    def get_next(self) -> list[np.ndarray] | None:
        element = []
        for _ in range(self._n):
            record = self._reader.read()
            if record is None:
                return None
            element.append(tensor_proto.make_ndarray(self._proto.FromString(record)))
        return element

    def close(self) -> None:
        self._reader.close()


class _CacheWriter(IteratorBase):
    """Reads the input and records its elements; a complete pass fills the cache."""

    def __init__(self, dataset: _CacheDataset, ctx: IteratorContext, sink: _FileCacheSink | None):
        self._dataset = dataset
        self._input: IteratorBase | None = dataset.input.make_iterator(ctx)
        self._elements: list[list[np.ndarray]] = []
        self._sink = sink

    def get_next(self) -> list[np.ndarray] | None:
        if self._input is None:
            return None
        element = self._input.get_next()
        if element is None:
            self._input.close()
            self._input = None
            if self._sink is not None:
                self._sink.finish()
                self._sink = None
            else:
                with self._dataset.memory.lock:
                    if self._dataset.memory.elements is None:
                        self._dataset.memory.elements = self._elements
            return None
        if self._sink is not None:
            self._sink.add(element)
        else:
            self._elements.append(list(element))
        return element

    def close(self) -> None:
        if self._input is not None:
            self._input.close()
            self._input = None
        if self._sink is not None:
            self._sink.abandon()
            self._sink = None


class CacheDatasetV2Op(DatasetOpKernel):
    """CacheDatasetV2: the input's elements, kept in memory (``filename`` ""), or in a file, after a full pass."""

    def make_dataset(self, ctx: OpKernelContext) -> DatasetBase:
        filename = scalar(ctx, 1, "filename")
        filename = filename.decode("utf-8") if isinstance(filename, bytes) else str(filename)
        return _CacheDataset(unary_input(ctx), filename, self.output_dtypes, self.output_shapes)


# ----------------------------------------------------------------------------- options, rewrite


class _PassThrough(_Unary):
    def __init__(self, input_dataset: DatasetBase, type_string: str, *a: Any):
        super().__init__(input_dataset, *a)
        self.type_string = type_string

    def cardinality(self) -> int:
        return self.input.cardinality()

    def make_iterator(self, ctx: IteratorContext) -> IteratorBase:
        return self.input.make_iterator(ctx)


class OptionsDatasetOp(DatasetOpKernel):
    """OptionsDataset: the input with options attached (``serialized_options``)."""

    def make_dataset(self, ctx: OpKernelContext) -> DatasetBase:
        dataset = _PassThrough(unary_input(ctx), "OptionsDatasetOp::Dataset", self.output_dtypes, self.output_shapes)
        dataset.serialized_options = bytes(self.node_def.attr["serialized_options"].s)  # type: ignore[attr-defined]
        return dataset


class RewriteDatasetOp(DatasetOpKernel):
    """RewriteDataset: TF applies a named graph rewrite; the rewrites change no elements, so the input as is."""

    def make_dataset(self, ctx: OpKernelContext) -> DatasetBase:
        return _PassThrough(unary_input(ctx), "RewriteDatasetOp::Dataset", self.output_dtypes, self.output_shapes)


class _DummyResource(ResourceBase):
    type_name = "N10tensorflow4data13DummyResourceE"


class DummyResourceOp(OpKernel):
    """DummySeedGenerator / DummyMemoryCache: a handle to nothing (the dataset op makes its own state)."""

    def compute(self, ctx: OpKernelContext) -> None:
        handle = make_handle(ctx.device, "", ANONYMOUS_NAME, _DummyResource, resource=_DummyResource())
        ctx.set_output(0, handle_tensor(handle))

