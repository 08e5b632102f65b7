"""``tf.control_dependencies``, ``tf.group``, ``tf.tuple`` and ``tf.no_op`` as TF 2.21 builds them.

Eagerly ops run in program order, so these only matter while building a graph or tracing a
``tf.function``: there ``control_dependencies`` is the default graph's scope, ``group`` a ``NoOp``
(named ``group_deps``) after its inputs and ``tuple`` gates each tensor through an ``Identity``
that runs after all of them (TF's ``control_flow_ops``). Eagerly ``control_dependencies`` calls
the callables among its inputs, ``group`` returns None and ``tuple`` its tensors.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Sequence
from typing import Any

from modtensor.api import context
from modtensor.api.check_ops import with_dependencies
from modtensor.api.logging_ops import apply_stateful_op
from modtensor.api.op_scope import convert_to_tensor, op_scope
from modtensor.framework.func_graph import flatten_structure
from modtensor.framework.graph import Operation, get_default_graph
from modtensor.framework.tensor import Tensor

__all__ = ["control_dependencies", "group", "no_op", "tuple"]

_builtin_tuple = tuple


def control_dependencies(control_inputs: Iterable[Any] | None) -> contextlib.AbstractContextManager[None]:
    """A scope whose ops run after ``control_inputs`` (TF's ``ops.control_dependencies``): the default graph's
    scope while building a graph; eagerly a no-op context that first calls the callables among the inputs."""
    if context.executing_eagerly():
        if control_inputs:
            for control in control_inputs:
                if callable(control):
                    control()
        return contextlib.nullcontext()
    return get_default_graph().control_dependencies(control_inputs)


def no_op(name: str | None = None) -> Operation | None:
    """An op that does nothing (a ``NoOp``), to hang control dependencies on; None eagerly."""
    if context.executing_eagerly():
        return None
    return apply_stateful_op("NoOp", name)


def _group_control_deps(device: str | None, deps: Sequence[Any], name: str | None = None) -> Operation:
    """A NoOp after ``deps``, placed on ``device`` when given (TF's ``_GroupControlDeps``)."""
    graph = get_default_graph()
    with graph.control_dependencies(deps):
        if device is None:
            return apply_stateful_op("NoOp", name)
        with graph.device(device):
            return apply_stateful_op("NoOp", name)


def group(*inputs: Any, **kwargs: Any) -> Operation | None:
    """One ``NoOp`` that runs after all of ``inputs`` (nested tensors or ops), a NoOp per device under it when
    the inputs are on several devices; None eagerly."""
    if context.executing_eagerly():
        return None
    name = kwargs.pop("name", None)
    if kwargs:
        raise ValueError("Unknown keyword arguments: " + ", ".join(kwargs.keys()))
    with op_scope(name, "group_deps", list(inputs)) as scope:
        if not inputs:
            return apply_stateful_op("NoOp", scope)
        on_device: dict[str | None, list[Any]] = {}
        for inp in flatten_structure(list(inputs)):
            if not hasattr(inp, "device"):
                raise TypeError(
                    f"'inputs' should be zero or more (nested) Tensors. Received '{inp}' with type '{type(inp)}'."
                )
            on_device.setdefault(inp.device, []).append(inp)
        if len(on_device) == 1:
            ((device, deps),) = on_device.items()
            return _group_control_deps(device, deps, name=scope)
        deps = [_group_control_deps(d, on_device[d]) for d in sorted(on_device, key=lambda d: d or "")]
        with get_default_graph().control_dependencies(deps):
            return apply_stateful_op("NoOp", scope)


def tuple(  # noqa: A001 - TensorFlow's name
    tensors: Sequence[Any], control_inputs: Sequence[Any] | None = None, name: str | None = None
) -> Any:
    """``tensors`` (None entries kept) each gated to run after all of them and ``control_inputs`` (TF 2's
    ``tf.tuple``); eagerly ``tensors`` unchanged."""
    if context.executing_eagerly():
        return tensors
    with op_scope(name, "tuple", list(tensors)):
        tensors = [t if isinstance(t, (Operation, Tensor)) or t is None else convert_to_tensor(t) for t in tensors]
        gating = [t if isinstance(t, Operation) else t.op for t in tensors if t is not None]
        for c in control_inputs or ():
            if isinstance(c, Tensor):
                c = c.op
            elif not isinstance(c, Operation):
                raise TypeError(f"'control_inputs' must only contain Operation or Tensor. Received: {type(c)}")
            gating.append(c)
        gating = sorted(set(gating), key=lambda op: op._id)
        if not gating:
            raise ValueError(f"'tensors' must have at least one Tensor. Received: {tensors}.")
        gate = group(*gating)
        result: list[Any] = []
        for t in tensors:
            if isinstance(t, Tensor):
                result.append(with_dependencies([gate], t))
            elif isinstance(t, Operation):
                with get_default_graph().control_dependencies([gate]):
                    result.append(group(t))
            else:
                result.append(None)
        return result
