"""Static tensor shapes: ``Dimension`` and ``TensorShape`` with TensorFlow 2's behaviour.

A shape may have unknown rank (``TensorShape(None)``) or unknown dimensions
(``None`` entries). Indexing gives ``int | None`` as in TensorFlow 2, shapes
print as ``(2, None)`` and ``TensorShape([2, None])``, and errors use
TensorFlow's wording so messages read the same under ``import modtensor as tf``.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Iterator
from typing import Any

from modtensor.framework.protos import tensor_shape_pb2


class Dimension:
    """One dimension of a static shape: a non-negative int, or unknown (``value is None``)."""

    __slots__ = ("_value",)

    def __init__(self, value: Any):
        if isinstance(value, Dimension):
            self._value = value._value
            return
        if value is None:
            self._value = None
            return
        if isinstance(value, (bytes, str, float)) or not hasattr(value, "__index__"):
            raise TypeError(
                "Dimension value must be integer or None or have an __index__ method, "
                f"got value '{value!r}' with type '{type(value)}'"
            )
        self._value = operator.index(value)
        if self._value < 0:
            raise ValueError(f"Dimension {self._value} must be >= 0")

    @property
    def value(self) -> int | None:
        """The size, or None when unknown."""
        return self._value

    def __repr__(self) -> str:
        return f"Dimension({self._value!r})"

    def __str__(self) -> str:
        return "?" if self._value is None else str(self._value)

    def __int__(self) -> int:
        if self._value is None:
            raise TypeError("Cannot convert an unknown Dimension to int")
        return self._value

    def __index__(self) -> int:
        return self.__int__()

    def __hash__(self) -> int:
        return hash(self._value)

    def __reduce__(self) -> tuple[Any, tuple[int | None]]:
        return (Dimension, (self._value,))

    def __eq__(self, other: object) -> bool | None:  # type: ignore[override]
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other._value is None:
            return None
        return self._value == other._value

    def __ne__(self, other: object) -> bool | None:  # type: ignore[override]
        result = self.__eq__(other)
        return result if result is None or result is NotImplemented else not result

    def is_compatible_with(self, other: Any) -> bool:
        """Whether the two dimensions could be the same size (unknown is compatible with anything)."""
        other = as_dimension(other)
        return self._value is None or other._value is None or self._value == other._value

    def assert_is_compatible_with(self, other: Any) -> None:
        """Raise ValueError if the dimensions cannot be the same size."""
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {as_dimension(other)} are not compatible")

    def merge_with(self, other: Any) -> Dimension:
        """The most specific dimension compatible with both; ValueError if they differ."""
        other = as_dimension(other)
        self.assert_is_compatible_with(other)
        return Dimension(self._value if self._value is not None else other._value)

    def _binary(self, other: Any, fn: Any, reverse: bool = False) -> Dimension:
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other._value is None:
            return Dimension(None)
        a, b = (other._value, self._value) if reverse else (self._value, other._value)
        return Dimension(fn(a, b))

    def __add__(self, other: Any) -> Dimension:
        return self._binary(other, operator.add)

    def __radd__(self, other: Any) -> Dimension:
        return self._binary(other, operator.add, reverse=True)

    def __sub__(self, other: Any) -> Dimension:
        return self._binary(other, operator.sub)

    def __rsub__(self, other: Any) -> Dimension:
        return self._binary(other, operator.sub, reverse=True)

    def __mul__(self, other: Any) -> Dimension:
        return self._binary(other, operator.mul)

    def __rmul__(self, other: Any) -> Dimension:
        return self._binary(other, operator.mul, reverse=True)

    def __floordiv__(self, other: Any) -> Dimension:
        return self._binary(other, operator.floordiv)

    def __rfloordiv__(self, other: Any) -> Dimension:
        return self._binary(other, operator.floordiv, reverse=True)

    def __mod__(self, other: Any) -> Dimension:
        return self._binary(other, operator.mod)

    def __rmod__(self, other: Any) -> Dimension:
        return self._binary(other, operator.mod, reverse=True)

    def _compare(self, other: Any, fn: Any) -> bool | None:
        other = as_dimension(other)
        if self._value is None or other._value is None:
            return None
        return fn(self._value, other._value)

    def __lt__(self, other: Any) -> bool | None:
        return self._compare(other, operator.lt)

    def __le__(self, other: Any) -> bool | None:
        return self._compare(other, operator.le)

    def __gt__(self, other: Any) -> bool | None:
        return self._compare(other, operator.gt)

    def __ge__(self, other: Any) -> bool | None:
        return self._compare(other, operator.ge)


def as_dimension(value: Any) -> Dimension:
    """``value`` as a Dimension (a Dimension passes through)."""
    return value if isinstance(value, Dimension) else Dimension(value)


def dimension_value(dimension: Any) -> int | None:
    """The int (or None) of a Dimension, int or None: code that works with both shape styles."""
    return dimension.value if isinstance(dimension, Dimension) else dimension


def _dim_value(value: Any) -> int | None:
    return Dimension(value)._value


class TensorShape:
    """A static shape: unknown rank (``dims is None``) or a tuple of ``int | None`` sizes."""

    __slots__ = ("_dims",)

    def __init__(self, dims: Any):
        if type(dims) is tuple and all(type(d) is int and d >= 0 for d in dims):
            self._dims: tuple[int | None, ...] | None = dims  # a numpy shape: the common, fast case
        elif dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif isinstance(dims, tensor_shape_pb2.TensorShapeProto) or _looks_like_shape_proto(dims):
            if dims.unknown_rank:
                self._dims = None
            else:
                self._dims = tuple(None if d.size == -1 else _dim_value(d.size) for d in dims.dim)
        elif isinstance(dims, (str, bytes)):
            raise TypeError(f"Cannot build a TensorShape from the string {dims!r}; pass a list of ints or None")
        elif isinstance(dims, Iterable):
            self._dims = tuple(_dim_value(d) for d in dims)
        else:
            self._dims = (_dim_value(dims),)

    # ------------------------------------------------------------------ views
    @property
    def rank(self) -> int | None:
        """Number of dimensions, or None when the rank is unknown."""
        return None if self._dims is None else len(self._dims)

    @property
    def ndims(self) -> int | None:
        """Alias of ``rank``."""
        return self.rank

    @property
    def dims(self) -> list[Dimension] | None:
        """The dimensions as ``Dimension`` objects (None when the rank is unknown), as TensorFlow returns them."""
        return None if self._dims is None else [Dimension(d) for d in self._dims]

    def as_list(self) -> list[int | None]:
        """Sizes as a list (None for unknown dims); ValueError when the rank is unknown."""
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def as_proto(self) -> tensor_shape_pb2.TensorShapeProto:
        """The TensorShapeProto (unknown dims as -1, unknown rank as ``unknown_rank: true``)."""
        if self._dims is None:
            return tensor_shape_pb2.TensorShapeProto(unknown_rank=True)
        return tensor_shape_pb2.TensorShapeProto(
            dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=-1 if d is None else d) for d in self._dims]
        )

    def num_elements(self) -> int | None:
        """Product of the sizes, or None unless the shape is fully defined."""
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:  # type: ignore[union-attr]
            n *= d  # type: ignore[operator]
        return n

    def is_fully_defined(self) -> bool:
        """Whether the rank and every dimension are known."""
        return self._dims is not None and all(d is not None for d in self._dims)

    def assert_is_fully_defined(self) -> None:
        """Raise ValueError unless the shape is fully defined."""
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    # ------------------------------------------------------------------ compatibility
    def is_compatible_with(self, other: Any) -> bool:
        """Whether some concrete shape matches both (unknown rank/dims match anything)."""
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims, strict=True))

    def assert_is_compatible_with(self, other: Any) -> None:
        """Raise ValueError if the shapes are incompatible."""
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are incompatible")

    def merge_with(self, other: Any) -> TensorShape:
        """The most specific shape compatible with both; ValueError naming both when they conflict."""
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape([a if a is not None else b for a, b in zip(self._dims, other._dims, strict=True)])

    def most_specific_compatible_shape(self, other: Any) -> TensorShape:
        """The most specific shape that both shapes are compatible with (differing dims become None)."""
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return unknown_shape()
        return TensorShape([a if a == b else None for a, b in zip(self._dims, other._dims, strict=True)])

    def is_subtype_of(self, other: Any) -> bool:
        """Whether every shape this one describes is also described by ``other``."""
        other = as_shape(other)
        if other._dims is None:
            return True
        if self._dims is None or len(self._dims) != len(other._dims):
            return False
        return all(b is None or a == b for a, b in zip(self._dims, other._dims, strict=True))

    def most_specific_common_supertype(self, others: Iterable[Any]) -> TensorShape:
        """The most specific shape of which this one and every one of ``others`` are subtypes."""
        result = self
        for other in others:
            result = result.most_specific_compatible_shape(other)
        return result

    def concatenate(self, other: Any) -> TensorShape:
        """This shape's dims followed by ``other``'s (unknown rank if either is)."""
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return unknown_shape()
        return TensorShape(self._dims + other._dims)

    # ------------------------------------------------------------------ rank checks
    def assert_same_rank(self, other: Any) -> None:
        """Raise ValueError if both ranks are known and differ."""
        other = as_shape(other)
        if self.rank is not None and other.rank is not None and self.rank != other.rank:
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def assert_has_rank(self, rank: int) -> None:
        """Raise ValueError if the rank is known and is not ``rank``."""
        if self.rank not in (None, rank):
            raise ValueError(f"Shape {self} must have rank {rank}")

    def with_rank(self, rank: int) -> TensorShape:
        """This shape narrowed to ``rank`` dims; ValueError if its rank is known and different."""
        try:
            return self.merge_with(unknown_shape(rank=rank))
        except ValueError:
            raise ValueError(f"Shape {self} must have rank {rank}") from None

    def with_rank_at_least(self, rank: int) -> TensorShape:
        """This shape, checked to have at least ``rank`` dims."""
        if self.rank is not None and self.rank < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank: int) -> TensorShape:
        """This shape, checked to have at most ``rank`` dims."""
        if self.rank is not None and self.rank > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    # ------------------------------------------------------------------ python protocol
    def __getitem__(self, key: Any) -> Any:
        if self._dims is not None:
            if isinstance(key, slice):
                return TensorShape(self._dims[key])
            return self._dims[operator.index(key)]
        if isinstance(key, slice):
            start, stop = key.start, key.stop
            if key.step is not None or stop is None:
                return unknown_shape()
            start = 0 if start is None else start
            if start < 0 or stop < 0:
                return unknown_shape()
            return unknown_shape(rank=max(stop - start, 0))
        operator.index(key)
        return None

    def __len__(self) -> int:
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __iter__(self) -> Iterator[int | None]:
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __bool__(self) -> bool:
        return self._dims is not None

    def __add__(self, other: Any) -> TensorShape:
        return self.concatenate(other)

    def __radd__(self, other: Any) -> TensorShape:
        return as_shape(other).concatenate(self)

    def __eq__(self, other: object) -> bool:
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __hash__(self) -> int:
        return hash((TensorShape, self._dims))

    def __reduce__(self) -> tuple[Any, tuple[Any]]:
        return (TensorShape, (None if self._dims is None else list(self._dims),))

    def __repr__(self) -> str:
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape({list(self._dims)!r})"

    def __str__(self) -> str:
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return f"({self._dims[0]},)"
        return "(" + ", ".join(str(d) for d in self._dims) + ")"


def _looks_like_shape_proto(value: Any) -> bool:
    """A TensorShapeProto of another package (e.g. TensorFlow's) read through its fields."""
    return hasattr(value, "unknown_rank") and hasattr(value, "dim") and hasattr(value, "DESCRIPTOR")


def as_shape(shape: Any) -> TensorShape:
    """``shape`` as a TensorShape: a TensorShape passes through; None, lists, tuples and protos convert."""
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def unknown_shape(rank: int | None = None) -> TensorShape:
    """A shape of unknown rank, or of ``rank`` unknown dims."""
    return TensorShape(None) if rank is None else TensorShape([None] * rank)


def dimension_at_index(shape: Any, index: int) -> Dimension:
    """Dimension ``index`` of ``shape`` as a Dimension (unknown when the rank is unknown)."""
    shape = as_shape(shape)
    if shape.rank is None:
        return Dimension(None)
    return Dimension(shape[index])


def shape_conversion_dims(shape: TensorShape, dtype: Any = None) -> tuple[list[int], Any]:
    """A TensorShape converted to a tensor as TF converts one: its dims and dtype (int32, int64 when a dim
    needs it, or the requested int dtype); TF's ValueError for a partially known shape and TypeError for
    other dtypes."""
    from modtensor.framework import dtypes

    if not shape.is_fully_defined():
        raise ValueError(f"Cannot convert a partially known TensorShape {shape} to a Tensor.")
    dims = shape.as_list()
    if dtype is None:
        return dims, dtypes.int64 if any(d >= 2**31 for d in dims) else dtypes.int32
    dtype = dtypes.as_dtype(dtype)
    if dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"Cannot convert TensorShape {shape} to dtype {dtype}. Allowed dtypes: tf.int32, tf.int64.")
    return dims, dtype
