"""TensorList: the value a ``variant`` tensor of the TensorList ops holds, as TensorFlow's ``TensorList``.

A list tensor is a 0-d numpy ``object`` array whose one element is a :class:`TensorList`
(element dtype, partial element shape, the element values, an optional size bound).
Element values are device values of the device that made them (numpy arrays on CPU);
``None`` stands for TF's uninitialized (``DT_INVALID``) element, read as zeros.

A TensorList is immutable once a tensor holds it, as in TF: kernels that "change" a list
build a new one, or reuse the input's when nothing else can see it (the input array and
its TensorList referenced only by the kernel's inputs: TF's forwarding of the variant
buffer). Partial shapes are ``None`` (unknown rank) or tuples of ints with -1 for an
unknown dimension, printed and merged with the texts of TF's ``PartialTensorShape``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from modtensor.framework import dtypes, errors

__all__ = [
    "PartialShape",
    "TensorList",
    "is_compatible",
    "is_fully_defined",
    "list_value",
    "merge_shapes",
    "shape_string",
]

PartialShape = tuple[int, ...] | None


class TensorList:
    """A list of tensors of one dtype whose shapes agree with a partial element shape."""

    __slots__ = ("element_dtype", "element_shape", "max_num_elements", "tensors")

    def __init__(
        self,
        element_dtype: dtypes.DType,
        element_shape: PartialShape,
        tensors: list[Any] | None = None,
        max_num_elements: int = -1,
    ):
        self.element_dtype = element_dtype
        self.element_shape = element_shape
        self.tensors: list[Any] = [] if tensors is None else tensors
        self.max_num_elements = max_num_elements

    def copy(self) -> TensorList:
        """A new list with the same elements (the values themselves are shared: they never change)."""
        return TensorList(self.element_dtype, self.element_shape, list(self.tensors), self.max_num_elements)

    def __len__(self) -> int:
        return len(self.tensors)

    def __repr__(self) -> str:
        return (
            f"TensorList(element_dtype={self.element_dtype.name}, element_shape={shape_string(self.element_shape)}, "
            f"length={len(self.tensors)})"
        )


def list_value(tensor_list: TensorList) -> np.ndarray:
    """The 0-d variant value holding ``tensor_list``."""
    value = np.empty((), dtype=object)
    value[()] = tensor_list
    return value


def exclusive_list(value: np.ndarray) -> TensorList | None:
    """The TensorList of a 0-d variant ``value`` when the caller's container holds the only reference to ``value``
    and ``value`` the only one to its list (so it may be changed in place), else None.

    References counted: the caller's container (a kernel context's inputs), the ``value``
    argument and getrefcount's own argument; for the list, the array slot, the local and
    getrefcount's argument.
    """
    if sys.getrefcount(value) > 3 or value.shape != ():
        return None
    found = value[()]
    if type(found) is not TensorList or sys.getrefcount(found) > 3:
        return None
    return found


# ------------------------------------------------------------------------------ partial shapes


def shape_string(shape: PartialShape) -> str:
    """TF's ``PartialTensorShape::DebugString``: ``<unknown>``, ``[]``, ``[?,3]``."""
    if shape is None:
        return "<unknown>"
    return "[" + ",".join("?" if d < 0 else str(d) for d in shape) + "]"


def is_fully_defined(shape: PartialShape) -> bool:
    """Known rank and every dimension known."""
    return shape is not None and all(d >= 0 for d in shape)


def is_compatible(a: PartialShape, b: PartialShape) -> bool:
    """TF's ``IsCompatibleWith``: unknown ranks or dims match anything."""
    if a is None or b is None:
        return True
    if len(a) != len(b):
        return False
    return all(x < 0 or y < 0 or x == y for x, y in zip(a, b, strict=True))


def merge_shapes(a: PartialShape, b: PartialShape) -> PartialShape:
    """TF's ``PartialTensorShape::MergeWith``; InvalidArgumentError when the shapes conflict."""
    if a is None:
        return b
    if b is None:
        return a
    if len(a) != len(b):
        raise errors.InvalidArgumentError(
            None, None, f"PartialTensorShape: Incompatible ranks during merge: {len(a)} vs. {len(b)}"
        )
    merged = []
    for x, y in zip(a, b, strict=True):
        if x >= 0 and y >= 0 and x != y:
            raise errors.InvalidArgumentError(
                None, None, f"Incompatible shapes during merge: {shape_string(a)} vs. {shape_string(b)}"
            )
        merged.append(x if x >= 0 else y)
    return tuple(merged)


def as_partial_shape(dims: Sequence[int]) -> tuple[int, ...]:
    """A tuple of ints (a concrete shape) as a partial shape."""
    return tuple(int(d) for d in dims)
