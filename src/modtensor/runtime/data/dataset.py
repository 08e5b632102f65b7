"""DatasetBase and IteratorBase (TensorFlow's ``core/framework/dataset.h``), variant values, element checks.

An element is a list of numpy arrays (host memory), one per component, in the order of
the dataset's ``output_dtypes``. ``IteratorBase.get_next`` returns the next element or
None at the end of the sequence (TF's ``end_of_sequence``); errors are ``OpError``s.
Iterators may be used from several threads: each implementation guards its own state.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from modtensor.framework import dtypes, errors, tensor_shape
from modtensor.framework.protos import tensor_shape_pb2

__all__ = [
    "INFINITE",
    "UNKNOWN",
    "DatasetBase",
    "IteratorBase",
    "IteratorContext",
    "dataset_from_value",
    "dataset_input",
    "shapes_from_attr",
    "variant_value",
]

INFINITE = -1  # TF's kInfiniteCardinality
UNKNOWN = -2  # TF's kUnknownCardinality


def shapes_from_attr(protos: Sequence[Any]) -> tuple[tensor_shape.TensorShape, ...]:
    """The ``output_shapes`` attr (TensorShapeProtos) as TensorShapes."""
    out = []
    for proto in protos:
        if isinstance(proto, tensor_shape_pb2.TensorShapeProto):
            out.append(tensor_shape.TensorShape(proto))
        else:
            out.append(tensor_shape.as_shape(proto))
    return tuple(out)


class IteratorContext:
    """What iterators are made with: the thread count hint and a cancellation flag shared by the tree.

    ``cancelled`` is set when the root iterator is closed (the iterator resource freed): background
    threads (prefetch, parallel map) stop.
    """

    def __init__(self, parallelism: int | None = None):
        import os

        self.parallelism = parallelism or os.cpu_count() or 1
        self.cancelled = threading.Event()


class IteratorBase:
    """One pass over a dataset. Subclasses implement :meth:`get_next` and may override :meth:`close`."""

    def get_next(self) -> list[np.ndarray] | None:
        """The next element, or None when the sequence has ended (and on every call after that)."""
        raise NotImplementedError

    def close(self) -> None:
        """Stop background work and release inputs (idempotent)."""


class DatasetBase:
    """An immutable dataset: element dtypes and shapes, cardinality, and a way to make iterators.

    ``type_string`` is TF's debug name (``TensorSliceDatasetOp::Dataset``), which is how a
    dataset variant tensor prints.
    """

    type_string: ClassVar[str] = "DatasetBase"

    def __init__(self, output_dtypes: Sequence[dtypes.DType], output_shapes: Sequence[tensor_shape.TensorShape]):
        self.output_dtypes = tuple(output_dtypes)
        self.output_shapes = tuple(output_shapes)

    def make_iterator(self, ctx: IteratorContext) -> IteratorBase:
        """A new iterator positioned at the first element."""
        raise NotImplementedError

    def cardinality(self) -> int:
        """The number of elements, INFINITE or UNKNOWN (TF's Cardinality)."""
        return UNKNOWN

    def inputs(self) -> list[DatasetBase]:
        """The datasets this one reads."""
        return []

    def __repr__(self) -> str:
        return f"<{self.type_string}>"

    __str__ = __repr__


def variant_value(dataset: Any) -> np.ndarray:
    """The device value of a scalar variant tensor holding ``dataset`` (a read-only 0-d object array)."""
    value = np.empty((), dtype=object)
    value[()] = dataset
    value.flags.writeable = False
    return value


def dataset_from_value(value: Any, what: str = "input_dataset") -> DatasetBase:
    """The DatasetBase in a variant value; InvalidArgumentError (TF's text) for anything else."""
    item = value[()] if isinstance(value, np.ndarray) and value.shape == () and value.dtype == object else None
    if not isinstance(item, DatasetBase):
        raise errors.InvalidArgumentError(
            None, None, f"Tensor must be a Dataset variant object, but got {_describe(value)} for {what}"
        )
    return item


def dataset_input(ctx: Any, index: int, what: str = "input_dataset") -> DatasetBase:
    """The dataset of kernel input ``index`` (TF's GetDatasetFromVariantTensor)."""
    return dataset_from_value(ctx.inputs[index], what)


def _describe(value: Any) -> str:
    shape = getattr(value, "shape", None)
    if isinstance(value, np.ndarray) and value.dtype == object and value.shape == ():
        return type(value[()]).__name__
    return f"a tensor of shape {list(shape) if shape is not None else '?'}"
