"""The registry of plugin graph optimizers: at most one per device type (TF_InitGraph's rule).

A plugin optimizer is a callable ``(graph_def, item) -> graph_def`` plus the optimizer
configs it recommends (``TP_OptimizerConfigs`` tri-states by field name). The
meta-optimizer runs the optimizers of the device types present after the built-in
passes and validates each like a pass. Native plugins register here through
``TF_InitGraph`` (plugin/loader.py, plugin/native/graph_optimizer.py).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from modtensor.framework import errors
from modtensor.framework.protos import graph_pb2

__all__ = ["PluginOptimizer", "plugin_optimizers", "register_plugin_optimizer", "unregister_plugin_optimizer"]


@dataclass(frozen=True)
class PluginOptimizer:
    """One plugin's optimizer for one device type."""

    device_type: str
    plugin: str
    optimize: Callable[[graph_pb2.GraphDef, Any], graph_pb2.GraphDef]
    configs: Mapping[str, Any] = field(default_factory=dict)


_lock = threading.Lock()
_by_device: dict[str, PluginOptimizer] = {}


def register_plugin_optimizer(optimizer: PluginOptimizer) -> None:
    """Register ``optimizer``; AlreadyExistsError naming both plugins if its device type has one."""
    with _lock:
        other = _by_device.get(optimizer.device_type)
        if other is not None:
            raise errors.AlreadyExistsError(
                None,
                None,
                f"The graph optimizer for device_type {optimizer.device_type} is already registered by plugin "
                f"'{other.plugin}'; plugin '{optimizer.plugin}' cannot register another",
            )
        _by_device[optimizer.device_type] = optimizer


def unregister_plugin_optimizer(device_type: str, plugin: str | None = None) -> None:
    """Remove the optimizer of ``device_type`` (plugin unload, tests); only ``plugin``'s when it is given."""
    with _lock:
        current = _by_device.get(device_type)
        if current is not None and (plugin is None or current.plugin == plugin):
            del _by_device[device_type]


def plugin_optimizers(device_types: Iterable[str]) -> list[PluginOptimizer]:
    """The registered optimizers of ``device_types``, in device-type order."""
    with _lock:
        return [_by_device[t] for t in sorted(set(device_types)) if t in _by_device]
