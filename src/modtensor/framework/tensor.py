"""The base ``Tensor`` class shared by graph (symbolic) tensors and eager tensors, and ``TensorSpec``.

``Tensor`` holds what every tensor has (dtype, static shape, device) and the
operator-overload hook table: the public API layer installs ``__add__``,
``__matmul__``, ... once with :meth:`Tensor._override_operator`, so the framework
layer never imports the ops that implement them.
"""

from __future__ import annotations

from typing import Any

from modtensor.framework import dtypes, tensor_shape

__all__ = ["OVERLOADABLE_OPERATORS", "Tensor", "TensorSpec", "tensor_like"]

# TensorFlow's set of operators that ops may overload on tensors.
OVERLOADABLE_OPERATORS: frozenset[str] = frozenset(
    {
        "__add__",
        "__radd__",
        "__sub__",
        "__rsub__",
        "__mul__",
        "__rmul__",
        "__div__",
        "__rdiv__",
        "__truediv__",
        "__rtruediv__",
        "__floordiv__",
        "__rfloordiv__",
        "__mod__",
        "__rmod__",
        "__lt__",
        "__le__",
        "__gt__",
        "__ge__",
        "__ne__",
        "__eq__",
        "__and__",
        "__rand__",
        "__or__",
        "__ror__",
        "__xor__",
        "__rxor__",
        "__getitem__",
        "__pow__",
        "__rpow__",
        "__invert__",
        "__neg__",
        "__abs__",
        "__matmul__",
        "__rmatmul__",
    }
)


def tensor_like(value: Any, dtype: Any = None, name: str | None = None) -> Any:
    """``value.__tf_tensor__(dtype, name)`` when ``value``'s type implements TF's tensor protocol, else ``value``.

    Objects that stand for a tensor without being one (``Variable``: its current value)
    implement ``__tf_tensor__``; every place that turns arguments into tensors calls this first.
    """
    convert = getattr(type(value), "__tf_tensor__", None)
    if convert is None or isinstance(value, Tensor):
        return value
    return convert(value, dtype, name)


class Tensor:
    """A multi-dimensional value of one dtype; subclasses say where the value lives (a graph or a device)."""

    # numpy defers binary operators with a tensor on the right to the tensor's reflected operator.
    __array_priority__ = 100

    @property
    def dtype(self) -> dtypes.DType:
        """The element type."""
        raise NotImplementedError

    @property
    def shape(self) -> tensor_shape.TensorShape:
        """The static shape (possibly partially known)."""
        raise NotImplementedError

    def get_shape(self) -> tensor_shape.TensorShape:
        """Alias of :attr:`shape` (TensorFlow v1 name)."""
        return self.shape

    @property
    def ndim(self) -> int | None:
        """The rank of the static shape, None when unknown."""
        return self.shape.rank

    @property
    def device(self) -> str:
        """The device name of the tensor ("" when not placed)."""
        raise NotImplementedError

    @classmethod
    def _override_operator(cls, operator: str, func: Any) -> None:
        """Install ``func`` as operator ``operator`` (e.g. ``"__add__"``) of every tensor class.

        Raises ValueError for names outside TensorFlow's overloadable set.
        """
        if operator not in OVERLOADABLE_OPERATORS:
            raise ValueError(
                f"Overriding {operator} is disallowed: only these operators can be overloaded on tensors: "
                f"{', '.join(sorted(OVERLOADABLE_OPERATORS))}"
            )
        setattr(cls, operator, func)


class TensorSpec:
    """Describes a tensor by shape, dtype and an optional name (as ``tf.TensorSpec``)."""

    __slots__ = ("_dtype", "_name", "_shape")

    def __init__(self, shape: Any, dtype: Any = dtypes.float32, name: str | None = None):
        self._shape = tensor_shape.as_shape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._name = name

    @classmethod
    def from_tensor(cls, tensor: Tensor, name: str | None = None) -> TensorSpec:
        """The spec of an existing tensor; the name defaults to the op name of a graph tensor."""
        if name is None:
            op = getattr(tensor, "op", None)
            name = getattr(op, "name", None)
        return cls(tensor.shape, tensor.dtype, name)

    @property
    def shape(self) -> tensor_shape.TensorShape:
        """The (possibly partial) static shape."""
        return self._shape

    @property
    def dtype(self) -> dtypes.DType:
        """The element type."""
        return self._dtype

    @property
    def name(self) -> str | None:
        """The optional name."""
        return self._name

    def is_compatible_with(self, other: Any) -> bool:
        """True when ``other`` (a spec or a tensor) has the same dtype and a compatible shape."""
        return self._dtype == other.dtype and self._shape.is_compatible_with(other.shape)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TensorSpec):
            return NotImplemented
        return (self._shape, self._dtype, self._name) == (other._shape, other._dtype, other._name)

    def __hash__(self) -> int:
        return hash((self._shape, self._dtype, self._name))

    def __repr__(self) -> str:
        name = None if self._name is None else repr(self._name)
        return f"TensorSpec(shape={self._shape}, dtype={self._dtype!r}, name={name})"
