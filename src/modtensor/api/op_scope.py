"""Name scopes and argument conversion for the hand-written op wrappers, alike in eager and graph mode.

TensorFlow's wrappers (``tf.add``, ``tf.nn.softmax``, ...) open ``name_scope(name,
default_name)``, convert python arguments to tensors inside it, and give the scope to
the op so the node takes the scope's name (``Add``, with its constant ``Add/y``).
:func:`op_scope` does that while a graph is being built and nothing when executing
eagerly (eager ops have no names). :func:`convert_to_tensor` and :func:`constant`
make tensors in the current mode, including TF's "autopacking" of lists that hold
tensors into a ``Pack``; :func:`constant_value` reads a value known before running.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

import numpy as np

import modtensor.ops  # noqa: F401  (registers the standard ops the wrappers build)
from modtensor.api import context
from modtensor.framework import dtypes, op_def_library, shape_refiner
from modtensor.framework.graph import Graph, Operation, SymbolicTensor, get_default_graph
from modtensor.framework.tensor import Tensor

__all__ = ["constant", "constant_value", "convert_to_tensor", "is_tensor", "op_scope", "static_rank"]


def is_tensor(value: Any) -> bool:
    """True for graph and eager tensors (TF's ``tensor_util.is_tf_type`` for dense tensors)."""
    return isinstance(value, Tensor)


def _graph_of(values: Sequence[Any]) -> Graph:
    """The graph the op goes into: a function being traced (it captures outside tensors), else the inputs'."""
    default = get_default_graph()
    if default.building_function:
        return default
    for v in values:
        if isinstance(v, (SymbolicTensor, Operation)):
            return v.graph
    return default


class _EagerScope:
    """The scope of an eager op: nothing to name, so entering it costs almost nothing."""

    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


_EAGER_SCOPE = _EagerScope()


def op_scope(name: str | None, default_name: str, values: Sequence[Any] = ()) -> AbstractContextManager[str | None]:
    """TF's ``ops.name_scope(name, default_name, values)``: yields the scope ("Add/") to pass as the op name.

    ``name`` wins over ``default_name`` and is made unique like any scope; a name ending
    in "/" re-enters that scope. Eagerly this yields None (eager ops have no names).
    """
    if context.executing_eagerly():
        return _EAGER_SCOPE
    graph = _graph_of(values)
    return graph.name_scope(name if name is not None else default_name)


def _first_tensor_dtype(values: Any) -> dtypes.DType | None:
    """The dtype of the first tensor in a nested list (TF's ``_get_dtype_from_nested_lists``)."""
    for v in values:
        if is_tensor(v):
            return v.dtype.base_dtype
        if isinstance(v, (list, tuple)):
            found = _first_tensor_dtype(v)
            if found is not None:
                return found
    return None


def _holds_tensor(values: Any) -> bool:
    return any(is_tensor(v) or (isinstance(v, (list, tuple)) and _holds_tensor(v)) for v in values)


def _autopack(values: Sequence[Any], dtype: dtypes.DType | None, name: str) -> Any:
    """TF's ``_autopacking_helper``: a (nested) list holding tensors becomes one ``Pack`` per level.

    Python elements of a level that is packed become constants named by their index.
    """
    from modtensor.api.dispatch import apply_op

    must_pack = False
    converted: list[Any] = []
    with op_scope(name, name) as scope:
        for i, elem in enumerate(values):
            if is_tensor(elem):
                if dtype is not None and elem.dtype.base_dtype != dtype:
                    raise TypeError(
                        f"Cannot convert a list containing a tensor of dtype {elem.dtype} to {dtype} "
                        f"(Tensor is: {elem!r})"
                    )
                must_pack = True
                converted.append(elem)
            elif isinstance(elem, (list, tuple)):
                packed = _autopack(elem, dtype, str(i))
                must_pack = must_pack or is_tensor(packed)
                converted.append(packed)
            else:
                converted.append(elem)
        if not must_pack:
            return converted
        tensors = [e if is_tensor(e) else constant(e, dtype=dtype, name=str(i)) for i, e in enumerate(converted)]
        return apply_op("Pack", name=scope, values=tensors)


def convert_to_tensor(value: Any, dtype: Any = None, name: str | None = None, dtype_hint: Any = None) -> Tensor:
    """``value`` as a tensor of the current mode (TF's ``ops.convert_to_tensor``).

    Tensors pass through (a different ``dtype`` is a ValueError); lists holding tensors
    are packed; other values become constants of ``dtype``, else of ``dtype_hint`` when
    they fit it, else of their natural type.
    """
    eager = context.executing_eagerly()
    if (
        eager
        and isinstance(value, Tensor)
        and not isinstance(value, SymbolicTensor)
        and (dtype is None or dtypes.as_dtype(dtype).base_dtype == value.dtype.base_dtype)
    ):
        return value  # the common case, kept cheap: an eager tensor of the right dtype
    dtype = dtypes.as_dtype(dtype).base_dtype if dtype is not None else None
    if isinstance(value, (list, tuple)) and _holds_tensor(value):
        return _autopack(value, dtype or _first_tensor_dtype(value), name or "packed")
    if eager:
        from modtensor.api import constant_op

        return constant_op.convert_to_tensor(value, dtype=dtype, dtype_hint=dtype_hint, name=name)
    return op_def_library.convert_to_tensor(value, dtype=dtype, name=name or "Const", preferred_dtype=dtype_hint)


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str = "Const") -> Tensor:
    """A constant tensor in the current mode (a ``Const`` node when building a graph)."""
    if context.executing_eagerly():
        from modtensor.api import constant_op

        return constant_op.constant(value, dtype=dtype, shape=shape, name=name)
    return op_def_library.constant(value, dtype=dtype, shape=shape, name=name)


def constant_value(value: Any) -> np.ndarray | None:
    """The value of ``value`` when known without running a graph (TF's ``tensor_util.constant_value``)."""
    if isinstance(value, SymbolicTensor):
        return shape_refiner.constant_value(value)
    if is_tensor(value):
        return np.asarray(value.numpy())  # type: ignore[attr-defined]
    if value is None:
        return None
    try:
        return np.asarray(value)
    except (TypeError, ValueError):
        return None


def static_rank(value: Any) -> int | None:
    """The rank of a tensor's static shape (or a numpy/python value's), None when unknown."""
    if is_tensor(value):
        return value.shape.rank
    return np.ndim(value)
