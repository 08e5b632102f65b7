"""Iterator, optional, reduce and cardinality kernels: how datasets are consumed (TF's texts).

``AnonymousIteratorV3`` makes an iterator resource owned by its handle; ``MakeIterator``
points it at a dataset; ``IteratorGetNext`` raises ``OutOfRangeError("End of sequence")``
at the end. Optionals are variants holding an element or nothing. ``ReduceDataset`` folds
``f`` over the elements; ``DatasetCardinality`` reports TF's cardinality (-1 infinite,
-2 unknown).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.framework import errors
from modtensor.kernels.cpu.data.common import DatasetOpKernel
from modtensor.runtime import resource_mgr
from modtensor.runtime.data.dataset import IteratorContext, dataset_input
from modtensor.runtime.data.iterator_resource import IteratorResource, check_element
from modtensor.runtime.op_kernel import OpKernel, OpKernelContext
from modtensor.runtime.resource_mgr import ANONYMOUS_NAME

__all__ = [
    "AnonymousIteratorOp",
    "DatasetCardinalityOp",
    "DeleteIteratorOp",
    "IteratorGetNextAsOptionalOp",
    "IteratorGetNextOp",
    "MakeIteratorOp",
    "Optional",
    "OptionalFromValueOp",
    "OptionalGetValueOp",
    "OptionalHasValueOp",
    "OptionalNoneOp",
    "ReduceDatasetOp",
]


class Optional:
    """TF's OptionalVariant: an element (a list of tensors) or nothing."""

    def __init__(self, values: list[np.ndarray] | None):
        self.values = values

    def __repr__(self) -> str:
        return "<OptionalVariant>"


def _variant(obj: Any) -> np.ndarray:
    value = np.empty((), dtype=object)
    value[()] = obj
    return value


class AnonymousIteratorOp(DatasetOpKernel):
    """AnonymousIteratorV3 (and V2, with a deleter): a new iterator resource owned by its handle."""

    def compute(self, ctx: OpKernelContext) -> None:
        resource = IteratorResource(self.output_dtypes, self.output_shapes)
        handle = resource_mgr.make_handle(
            ctx.device, "", ANONYMOUS_NAME, IteratorResource, debug_name="Iterator", resource=resource
        )
        ctx.set_output(0, resource_mgr.handle_tensor(handle))
        if ctx.num_outputs > 1:
            ctx.set_output(1, _variant("deleter"))


def _iterator(ctx: OpKernelContext, index: int = 0) -> IteratorResource:
    handle = resource_mgr.handle_from_input(ctx, index)
    return resource_mgr.lookup_resource(ctx, handle, IteratorResource)


class MakeIteratorOp(OpKernel):
    """MakeIterator: a new iteration of ``dataset`` in the iterator resource."""

    def compute(self, ctx: OpKernelContext) -> None:
        dataset = dataset_input(ctx, 0, "dataset")
        _iterator(ctx, 1).set_dataset(dataset)


class DeleteIteratorOp(OpKernel):
    """DeleteIterator: stop the iterator's background work (the handle owns the resource)."""

    def compute(self, ctx: OpKernelContext) -> None:
        _iterator(ctx, 0).close()


class IteratorGetNextOp(DatasetOpKernel):
    """IteratorGetNext (and IteratorGetNextSync): the next element; OutOfRange "End of sequence" at the end."""

    def compute(self, ctx: OpKernelContext) -> None:
        element = _iterator(ctx).get_next()
        if element is None:
            raise errors.OutOfRangeError(None, None, "End of sequence")
        check_element(element, self.output_dtypes, self.output_shapes)
        for i, value in enumerate(element):
            ctx.set_output(i, np.asarray(value))


class IteratorGetNextAsOptionalOp(DatasetOpKernel):
    """IteratorGetNextAsOptional: the next element as an optional (empty at the end)."""

    def compute(self, ctx: OpKernelContext) -> None:
        element = _iterator(ctx).get_next()
        if element is not None:
            check_element(element, self.output_dtypes, self.output_shapes)
        ctx.set_output(0, _variant(Optional(None if element is None else [np.asarray(v) for v in element])))


def _optional(ctx: OpKernelContext) -> Optional:
    value = ctx.inputs[0]
    item = value[()] if isinstance(value, np.ndarray) and value.shape == () and value.dtype == object else None
    if not isinstance(item, Optional):
        raise errors.InvalidArgumentError(None, None, "Input tensor must be a scalar containing an Optional.")
    return item


class OptionalFromValueOp(OpKernel):
    """OptionalFromValue: an optional holding the inputs."""

    def compute(self, ctx: OpKernelContext) -> None:
        ctx.set_output(0, _variant(Optional(list(ctx.inputs))))


class OptionalNoneOp(OpKernel):
    """OptionalNone: an empty optional."""

    def compute(self, ctx: OpKernelContext) -> None:
        ctx.set_output(0, _variant(Optional(None)))


class OptionalHasValueOp(OpKernel):
    """OptionalHasValue: whether the optional holds a value."""

    def compute(self, ctx: OpKernelContext) -> None:
        ctx.set_output(0, np.array(_optional(ctx).values is not None))


class OptionalGetValueOp(DatasetOpKernel):
    """OptionalGetValue: the optional's value; InvalidArgument for an empty one (TF's text)."""

    def compute(self, ctx: OpKernelContext) -> None:
        values = _optional(ctx).values
        if values is None:
            raise errors.InvalidArgumentError(None, None, "The given optional does not have a value.")
        for i, value in enumerate(values):
            ctx.set_output(i, value)


class ReduceDatasetOp(DatasetOpKernel):
    """ReduceDataset: ``state = f(state, element)`` over every element; outputs the final state."""

    def compute(self, ctx: OpKernelContext) -> None:
        n_state = self.num_list("Tstate")
        state = list(ctx.inputs[1 : 1 + n_state])
        fn = self.function(ctx, "f", list(ctx.inputs[1 + n_state :]))
        dataset = dataset_input(ctx, 0)
        context = IteratorContext()
        iterator = dataset.make_iterator(context)
        try:
            while True:
                element = iterator.get_next()
                if element is None:
                    break
                state = fn.run([*state, *element])
        finally:
            context.cancelled.set()
            iterator.close()
        for i, value in enumerate(state):
            ctx.set_output(i, np.asarray(value))


class DatasetCardinalityOp(OpKernel):
    """DatasetCardinality: the number of elements (-1 infinite, -2 unknown)."""

    def compute(self, ctx: OpKernelContext) -> None:
        ctx.set_output(0, np.array(dataset_input(ctx, 0).cardinality(), dtype=np.int64))
