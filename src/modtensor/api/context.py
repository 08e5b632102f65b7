"""Execution mode and scopes of the front end: ``executing_eagerly``, ``device``, ``name_scope``.

Ops run eagerly by default; they build a graph inside ``Graph.as_default()`` (and
function traces) or everywhere after ``compat.v1.disable_eager_execution()``.
``device`` and ``name_scope`` act on the eager thread state when executing eagerly
and on the default graph's scopes otherwise, decided when they are called, as in TF.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from modtensor.framework import graph as graph_lib
from modtensor.framework.device_spec import DeviceSpec
from modtensor.runtime import context as runtime_context

__all__ = [
    "device",
    "device_v1",
    "disable_eager_execution",
    "enable_eager_execution",
    "executing_eagerly",
    "executing_eagerly_outside_functions",
    "name_scope",
]

_graph_stack = graph_lib._default_graph_stack


def executing_eagerly() -> bool:
    """True when ops run immediately: eager is enabled and no graph is being built on this thread."""
    return runtime_context._eager_enabled and not _graph_stack()


def executing_eagerly_outside_functions() -> bool:
    """True when eager is enabled and every graph being built on this thread is a function body.

    TF uses it for ``==`` on tensors: elementwise in eager code and functions, identity in v1 graphs.
    """
    return runtime_context._eager_enabled and all(g.building_function for g in _graph_stack())


def enable_eager_execution() -> None:
    """Run ops eagerly outside graph-building blocks (the default)."""
    runtime_context.enable_eager_execution()


def disable_eager_execution() -> None:
    """Build the default graph with every op, TensorFlow 1 style (run it with ``compat.v1.Session``)."""
    runtime_context.disable_eager_execution()


# ----------------------------------------------------------------------------- device scopes


class _EagerDeviceScope:
    """``with device(...)`` while executing eagerly: sets this thread's eager device scope."""

    __slots__ = ("_name", "_saved")

    def __init__(self, name: str | DeviceSpec | None):
        if name is not None and not isinstance(name, (str, DeviceSpec)):
            raise ValueError(f"Expecting a string device name. Got {type(name)}({name})")
        self._name = name.to_string() if isinstance(name, DeviceSpec) else name
        self._saved: list[runtime_context.EagerScope | None] = []

    def __enter__(self) -> None:
        from modtensor.runtime import eager

        previous = runtime_context.eager_device_scope()
        name = self._name
        if name is None:
            new = None
        else:
            given = DeviceSpec.from_string(name)
            if previous is None:
                new = eager.scope_for_device(given)
            else:
                spec = previous.spec.make_merged_spec(given)
                new = runtime_context.EagerScope(spec.to_string(), spec)
        self._saved.append(previous)
        runtime_context.set_eager_device_scope(new)

    def __exit__(self, *exc_info: Any) -> None:
        runtime_context.set_eager_device_scope(self._saved.pop())


def device(device_name: str | DeviceSpec | None) -> Any:
    """Place the ops created in the ``with`` block on ``device_name`` (``"/CPU:0"``, ``"/GPU:1"``, a DeviceSpec).

    Eagerly, a device type that lacks a kernel for an op (or is absent) falls back to
    one that has it (soft placement, as TF eager); in a graph the placer decides.
    ``None`` clears the outer scopes. Functions of ops are refused, as by ``tf.device``.
    """
    if callable(device_name) and not isinstance(device_name, (str, DeviceSpec)):
        raise RuntimeError("tf.device does not support functions.")
    return device_v1(device_name)


def device_v1(device_name_or_function: str | DeviceSpec | Callable[..., Any] | None) -> Any:
    """``tf.compat.v1.device``: like :func:`device`, but a function of the Operation is allowed in graphs."""
    if executing_eagerly():
        if callable(device_name_or_function) and not isinstance(device_name_or_function, (str, DeviceSpec)):
            raise RuntimeError("tf.device does not support functions when eager execution is enabled.")
        return _EagerDeviceScope(device_name_or_function)
    return graph_lib.get_default_graph().device(device_name_or_function)


# ----------------------------------------------------------------------------- name scopes


class name_scope:  # noqa: N801 - TensorFlow's name
    """``tf.name_scope(name)``: prefix the names of ops created inside with ``name/``; yields the scope string.

    In a graph this is the default graph's name scope (made unique: ``name_1/``);
    eagerly it only records the prefix (eager ops have no names), as TF does.
    """

    __slots__ = ("_graph_scope", "_name", "_saved")

    def __init__(self, name: str):
        if not isinstance(name, str):
            raise ValueError("name for name_scope must be a string.")
        self._name = name
        self._graph_scope: Any = None
        self._saved = ""

    @property
    def name(self) -> str:
        """The name given."""
        return self._name

    def __enter__(self) -> str:
        if executing_eagerly():
            self._saved = runtime_context.eager_name_scope()
            name = self._name
            if not name:
                scope = ""
            elif name.endswith("/"):
                scope = name
            else:
                scope = f"{self._saved}{name}/"
            runtime_context.set_eager_name_scope(scope)
            return scope
        self._graph_scope = graph_lib.get_default_graph().name_scope(self._name)
        return self._graph_scope.__enter__()

    def __exit__(self, *exc_info: Any) -> Any:
        if self._graph_scope is not None:
            scope, self._graph_scope = self._graph_scope, None
            return scope.__exit__(*exc_info)
        runtime_context.set_eager_name_scope(self._saved)
        return None
