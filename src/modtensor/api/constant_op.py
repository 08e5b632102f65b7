"""``constant`` and ``convert_to_tensor``: values to tensors in the current mode, and ``TensorSpec``.

Eagerly a constant is an EagerTensor made directly (no kernel runs); while building
a graph it is a ``Const`` node. Conversion follows TensorFlow: tensors pass through
(a requested dtype must match), other values become constants of ``dtype``, else of
``dtype_hint`` when they fit it, else of their natural type.
"""

from __future__ import annotations

from typing import Any

from modtensor.api import context
from modtensor.api.dispatch import refuse_eager_tensor
from modtensor.framework import dtypes, op_def_library
from modtensor.framework import graph as graph_lib
from modtensor.framework.tensor import Tensor, TensorSpec, tensor_like

__all__ = ["TensorSpec", "constant", "convert_to_tensor"]


def _eager_module() -> Any:
    from modtensor.runtime import eager

    return eager


def _graph_value(value: Any) -> Any:
    """An eager tensor's value for a graph Const (nested lists too); other values unchanged."""
    eager = _eager_module()
    if isinstance(value, eager.EagerTensor):
        return value.numpy()
    if isinstance(value, (list, tuple)):
        return [_graph_value(v) for v in value]
    return value


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str = "Const") -> Tensor:
    """A constant tensor of ``value`` (python, numpy or an eager tensor), of ``dtype`` and ``shape`` if given.

    ``shape`` fills it with a single value or reshapes a value with as many elements;
    anything else is TensorFlow's TypeError. Eagerly the tensor lands on the scoped device.
    """
    if context.executing_eagerly():
        return _eager_module().constant(value, dtype=dtype, shape=shape)
    if isinstance(shape, _eager_module().EagerTensor):
        shape = shape.numpy().tolist()
    return op_def_library.constant(_graph_value(value), dtype=dtype, shape=shape, name=name)


def convert_to_tensor(value: Any, dtype: Any = None, dtype_hint: Any = None, name: str | None = None) -> Tensor:
    """``value`` as a tensor of the current mode.

    Tensors pass through (ValueError "Tensor conversion requested dtype ..." when
    ``dtype`` differs); other values become constants of ``dtype`` (TypeError when
    they do not fit), else of ``dtype_hint`` when they fit it, else of their own type.
    """
    dtype = None if dtype is None else dtypes.as_dtype(dtype).base_dtype
    if context.executing_eagerly():
        if getattr(type(value), "__tf_tensor__", None) is not None and not isinstance(value, Tensor):
            value = tensor_like(value, dtype, name)  # a variable converts to a read of it (gradients follow it)
        eager = _eager_module()
        if isinstance(value, Tensor):
            if isinstance(value, eager.EagerTensor):
                return eager.convert_to_eager_tensor(value, dtype)
            _check_dtype(value, dtype)
            return value
        if dtype is None and dtype_hint is not None:
            try:
                return eager.constant(value, dtype=dtype_hint)
            except (TypeError, ValueError):
                pass
        return eager.constant(value, dtype=dtype)
    if not graph_lib.get_default_graph().building_function:
        refuse_eager_tensor(value, name)
    return op_def_library.convert_to_tensor(
        _graph_value(value), dtype=dtype, name=name or "Const", preferred_dtype=dtype_hint
    )


def _check_dtype(value: Tensor, dtype: dtypes.DType | None) -> None:
    if dtype is not None and value.dtype.base_dtype != dtype:
        raise ValueError(
            f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype {value.dtype.name}: {value!r}"
        )
