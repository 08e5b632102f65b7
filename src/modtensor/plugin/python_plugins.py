"""Python plugins: distributions that declare an entry point in the group ``modtensor.plugins``.

The entry point names a module or a callable. Loading imports it and, when it is
callable, calls it with no arguments; either way the plugin registers through the
same Python API the built-in CPU kernels use (``register_op``,
``KernelRegistry.register``/``register_kernel``, ``register_device_factory``).
What it registered is found by comparing the registries before and after, so a
plugin that raises is rolled back like a native one.

    [project.entry-points."modtensor.plugins"]
    my_plugin = "my_package.modtensor_plugin:register"
"""

from __future__ import annotations

import warnings
from importlib import metadata
from typing import Any

from modtensor.framework import errors
from modtensor.plugin.loader import loading, warn_plugin_failure
from modtensor.plugin.registry import REGISTRY, PluginRecord

__all__ = ["ENTRY_POINT_GROUP", "load_entry_point", "load_entry_point_plugins"]

ENTRY_POINT_GROUP = "modtensor.plugins"


def _snapshot() -> tuple[set[str], set[Any], set[tuple[str, int]]]:
    from modtensor.framework.op_registry import global_registry
    from modtensor.runtime.device_factory import registered_factories
    from modtensor.runtime.kernel_registry import global_kernel_registry

    kernels = global_kernel_registry()
    registrations = {reg for op in kernels.ops() for reg in kernels.kernels_for_op(op)}
    factories = {(t, id(e["factory"])) for t, entries in registered_factories().items() for e in entries}
    return set(global_registry().names()), registrations, factories


def _factory_objects() -> dict[tuple[str, int], Any]:
    from modtensor.runtime.device_factory import registered_factories

    return {(t, id(e["factory"])): e["factory"] for t, entries in registered_factories().items() for e in entries}


def load_entry_point(entry_point: metadata.EntryPoint, *, raise_errors: bool = False) -> PluginRecord:
    """Load one Python plugin (once per group and name); returns its record."""
    key = f"entry-point:{entry_point.group}:{entry_point.name}"
    with REGISTRY.lock:
        record = REGISTRY.records.get(key)
        if record is not None:
            if record.error is not None and raise_errors:
                raise record.error
            return record
        dist = getattr(entry_point, "dist", None)
        origin = f"entry point of {dist.name} {dist.version}" if dist is not None else "entry point"
        record = PluginRecord(
            name=entry_point.name, path=entry_point.value, real_path=key, kind="python", origin=origin
        )
        REGISTRY.records[key] = record
        with loading(record) as session:
            before_ops, before_kernels, before_factories = _snapshot()
            try:
                obj = entry_point.load()
                record.handle = obj
                if callable(obj):
                    obj()
                record.entry_points[entry_point.value] = "called" if callable(obj) else "imported"
            except errors.OpError as e:
                session.errors.append(e)
            except Exception as e:  # a plugin's bug must not take the host down
                session.errors.append(errors.UnknownError(None, None, f"{type(e).__name__}: {e}"))
            try:
                after_ops, after_kernels, after_factories = _snapshot()
            except errors.OpError as e:  # e.g. a deferred register_op() whose spec is malformed
                session.errors.append(e)
                after_ops, after_kernels, after_factories = before_ops, before_kernels, before_factories
            session.ops.extend(sorted(after_ops - before_ops))
            session.kernels.extend(k for k in after_kernels - before_kernels)
            objects = _factory_objects()
            session.device_factories.extend((t, objects[(t, i)]) for t, i in after_factories - before_factories)
            error = session.failure("Loading")
            if error is not None:
                session.rollback()
                record.error = error
            else:
                session.commit()
        if record.error is not None:
            if raise_errors:
                raise record.error
            warn_plugin_failure(record)
        return record


def load_entry_point_plugins() -> list[PluginRecord]:
    """Load every plugin of the ``modtensor.plugins`` entry-point group."""
    try:
        entry_points = list(metadata.entry_points(group=ENTRY_POINT_GROUP))
    except Exception as e:  # a broken installed distribution must not stop modtensor
        warnings.warn(f"modtensor: cannot list the '{ENTRY_POINT_GROUP}' entry points: {e}", RuntimeWarning, 2)
        return []
    return [load_entry_point(ep) for ep in sorted(entry_points, key=lambda ep: ep.name)]
