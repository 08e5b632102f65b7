"""``tf.data.Iterator`` (TF's OwnedIterator) and ``tf.experimental.Optional`` over the iterator ops.

Made eagerly or inside ``tf.function`` by ``iter(dataset)``: an ``AnonymousIteratorV3`` resource
pointed at the dataset with ``MakeIterator``. ``next`` is ``IteratorGetNext``; eagerly its
OutOfRangeError at the end becomes StopIteration, in a graph the op's outputs are returned
(the error happens when the graph runs). Without AutoGraph, more than 32 ``next`` calls in one
graph raise TF's ValueError (a Python loop over a dataset in a function unrolls it).
"""

from __future__ import annotations

from typing import Any

from modtensor.api import dispatch
from modtensor.api.data import structure
from modtensor.framework import errors

__all__ = ["GET_NEXT_CALL_ERROR_MESSAGE", "Optional", "OwnedIterator"]

GET_NEXT_CALL_ERROR_THRESHOLD = 32
GET_NEXT_CALL_ERROR_MESSAGE = (
    "An unusually high number of `tf.data.Iterator.get_next()` calls was detected. This suggests that the "
    "`for elem in dataset: ...` idiom is used within tf.function with AutoGraph disabled. This idiom is only "
    "supported when AutoGraph is enabled."
)


def _executing_eagerly() -> bool:
    from modtensor.api.context import executing_eagerly

    return executing_eagerly()


class OwnedIterator:
    """An iterator over a dataset's elements that owns its iterator resource (``iter(dataset)``)."""

    def __init__(self, dataset: Any):
        self._dataset = dataset
        self._element_spec = dataset.element_spec
        self._flat_types = structure.flat_types(self._element_spec)
        self._flat_shapes = structure.flat_shapes(self._element_spec)
        self._iterator_resource = dispatch.apply_op(
            "AnonymousIteratorV3", output_types=self._flat_types, output_shapes=self._flat_shapes
        )
        dispatch.apply_op("MakeIterator", dataset=dataset._variant_tensor, iterator=self._iterator_resource)
        self._get_next_call_count = 0

    @property
    def element_spec(self) -> Any:
        """The structure of the elements."""
        return self._element_spec

    def __iter__(self) -> OwnedIterator:
        return self

    def _next_internal(self) -> Any:
        eager = _executing_eagerly()
        if not eager:
            self._get_next_call_count += 1
            if self._get_next_call_count > GET_NEXT_CALL_ERROR_THRESHOLD:
                raise ValueError(GET_NEXT_CALL_ERROR_MESSAGE)
        flat = dispatch.apply_op(
            "IteratorGetNext",
            iterator=self._iterator_resource,
            output_types=self._flat_types,
            output_shapes=self._flat_shapes,
        )
        if not isinstance(flat, list):
            flat = [flat]
        if not eager:
            for tensor, shape in zip(flat, self._flat_shapes, strict=True):
                tensor.set_shape(shape)
        return structure.pack(self._element_spec, flat)

    def __next__(self) -> Any:
        try:
            return self._next_internal()
        except errors.OutOfRangeError:
            raise StopIteration from None

    next = __next__

    def get_next(self) -> Any:
        """The next element; OutOfRangeError ("End of sequence") at the end."""
        return self._next_internal()

    def get_next_as_optional(self) -> Optional:
        """The next element as an Optional (empty at the end)."""
        variant = dispatch.apply_op(
            "IteratorGetNextAsOptional",
            iterator=self._iterator_resource,
            output_types=self._flat_types,
            output_shapes=self._flat_shapes,
        )
        return Optional(variant, self._element_spec)

    def __repr__(self) -> str:
        return f"<tensorflow.python.data.ops.iterator_ops.OwnedIterator object at 0x{id(self):x}>"


class Optional:
    """``tf.experimental.Optional``: a value of a known structure, or nothing."""

    def __init__(self, variant: Any, element_spec: Any):
        self._variant_tensor = variant
        self._element_spec = element_spec

    @staticmethod
    def from_value(value: Any) -> Optional:
        """An optional holding ``value``."""
        element = structure.normalize_element(value)
        spec = structure.spec_from_value(element)
        variant = dispatch.apply_op("OptionalFromValue", components=structure.flatten(element))
        return Optional(variant, spec)

    @staticmethod
    def empty(element_spec: Any) -> Optional:
        """An empty optional of ``element_spec``."""
        return Optional(dispatch.apply_op("OptionalNone"), element_spec)

    @property
    def element_spec(self) -> Any:
        """The structure of the value."""
        return self._element_spec

    def has_value(self, name: str | None = None) -> Any:
        """A bool scalar tensor: whether there is a value."""
        return dispatch.apply_op("OptionalHasValue", optional=self._variant_tensor, name=name)

    def get_value(self, name: str | None = None) -> Any:
        """The value; InvalidArgumentError when empty."""
        flat = dispatch.apply_op(
            "OptionalGetValue",
            optional=self._variant_tensor,
            output_types=structure.flat_types(self._element_spec),
            output_shapes=structure.flat_shapes(self._element_spec),
            name=name,
        )
        if not isinstance(flat, list):
            flat = [flat]
        return structure.pack(self._element_spec, flat)
