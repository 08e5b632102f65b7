"""The iterator resource (TF's ``IteratorResource``): the iterator tree a ``MakeIterator`` made, behind a handle.

``AnonymousIteratorV3`` makes one owned by its handle; ``MakeIterator`` makes the
iterator of a dataset and stores it (checking the dataset's element types and shapes
against the iterator's); ``IteratorGetNext`` takes elements from it under its lock.
When the resource is freed (the last handle gone) its iterators' background work stops.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from modtensor.framework import dtypes, errors, tensor_shape
from modtensor.runtime.data.dataset import DatasetBase, IteratorBase, IteratorContext
from modtensor.runtime.resource_mgr import ResourceBase

__all__ = ["IteratorResource", "check_element"]


def _types_text(types: Sequence[dtypes.DType]) -> str:
    return ", ".join(t.name for t in types)


def _shapes_text(shapes: Sequence[tensor_shape.TensorShape]) -> str:
    return ", ".join(_shape_text(s) for s in shapes)


def _shape_text(shape: tensor_shape.TensorShape) -> str:
    if shape.rank is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


class IteratorResource(ResourceBase):
    """The state of one ``tf.data`` iterator: element types/shapes and the current iterator tree."""

    type_name: ClassVar[str] = "N10tensorflow4data16IteratorResourceE"

    def __init__(self, output_dtypes: Sequence[dtypes.DType], output_shapes: Sequence[tensor_shape.TensorShape]):
        self.output_dtypes = tuple(output_dtypes)
        self.output_shapes = tuple(output_shapes)
        self._lock = threading.Lock()
        self._iterator: IteratorBase | None = None
        self._context: IteratorContext | None = None
        self.dataset: DatasetBase | None = None

    def set_dataset(self, dataset: DatasetBase) -> None:
        """MakeIterator: a new iterator over ``dataset`` replaces the current one (TF's types/shapes check first)."""
        if tuple(dataset.output_dtypes) != self.output_dtypes:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"The iterator has type {_types_text(self.output_dtypes)}, but dataset has type "
                f"{_types_text(dataset.output_dtypes)}",
            )
        if len(dataset.output_shapes) != len(self.output_shapes) or not all(
            a.is_compatible_with(b) for a, b in zip(self.output_shapes, dataset.output_shapes, strict=False)
        ):
            raise errors.InvalidArgumentError(
                None,
                None,
                f"The iterator has shape {_shapes_text(self.output_shapes)}, but dataset has shape "
                f"{_shapes_text(dataset.output_shapes)}",
            )
        context = IteratorContext()
        iterator = dataset.make_iterator(context)
        with self._lock:
            old, old_context = self._iterator, self._context
            self._iterator, self._context, self.dataset = iterator, context, dataset
        if old is not None:
            _close(old, old_context)

    def get_next(self) -> list[np.ndarray] | None:
        """The next element, None at the end; FailedPrecondition before MakeIterator (TF's text)."""
        iterator = self._iterator
        if iterator is None:
            raise errors.FailedPreconditionError(
                None,
                None,
                "GetNext() failed because the iterator has not been initialized. Ensure that you have run the "
                "initializer operation for this iterator before getting the next element.",
            )
        with self._lock:
            return iterator.get_next()

    def close(self) -> None:
        """Stop the current iterator's background work."""
        with self._lock:
            iterator, context = self._iterator, self._context
            self._iterator = self._context = None
        if iterator is not None:
            _close(iterator, context)

    def debug_string(self) -> str:
        return "Iterator resource"

    def __del__(self) -> None:
        iterator, context = self.__dict__.get("_iterator"), self.__dict__.get("_context")
        if iterator is not None:
            _close(iterator, context)


def _close(iterator: IteratorBase, context: IteratorContext | None) -> None:
    if context is not None:
        context.cancelled.set()
    iterator.close()


def check_element(
    element: Sequence[np.ndarray],
    output_dtypes: Sequence[dtypes.DType],
    output_shapes: Sequence[tensor_shape.TensorShape],
) -> None:
    """TF's VerifyTypesMatch/VerifyShapesCompatible on an element leaving an iterator."""
    if len(element) != len(output_dtypes):
        raise errors.InvalidArgumentError(
            None, None, f"Number of components does not match: expected {len(output_dtypes)} types but got "
            f"{len(element)}."
        )
    for i, (value, shape) in enumerate(zip(element, output_shapes, strict=True)):
        if not shape.is_compatible_with(tensor_shape.TensorShape(np.shape(value))):
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Incompatible shapes at component {i}: expected {_shape_text(shape)} but got "
                f"{_shape_text(tensor_shape.TensorShape(np.shape(value)))}.",
            )
