"""Loading native plugins: dlopen, entry points, initialisation, and rollback of a plugin that fails.

A library is loaded once per real path. Its entry points are looked up and run
in TensorFlow's order (``SE_InitPlugin`` first, then ``TF_InitKernel``, then the
graph and profiler entry points); entry points of features modtensor does not
have yet are recorded, not run. Everything a plugin registers while it
initialises is tracked by a ``LoadSession``; if anything fails (a registration
error, even one the plugin ignored), all of it is removed again and the plugin
is reported: a warning for discovered plugins, an exception for explicit loads.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from modtensor.framework import errors
from modtensor.plugin.registry import ENTRY_POINTS, REGISTRY, PluginRecord

__all__ = ["LoadSession", "load_native_library", "loading", "unload_native_library"]

# The load sessions of plugins that loaded, so an unload can undo exactly what each registered.
_COMMITTED: dict[str, LoadSession] = {}


class LoadSession:
    """What one plugin registers while it initialises, so that a failure can be undone exactly."""

    def __init__(self, record: PluginRecord):
        self.record = record
        self.errors: list[errors.OpError] = []
        self.ops: list[str] = []
        self.kernels: list = []
        self.device_factories: list[tuple[str, object]] = []
        self.cleanups: list[Callable[[], None]] = []  # undo native state (a StreamExecutor platform's teardown)
        self.optimizers: list[str] = []  # device types of the graph optimizer registered (TF_InitGraph)

    def rollback(self) -> None:
        """Remove every kernel, op and device factory registered during this load."""
        from modtensor.framework.op_registry import global_registry
        from modtensor.runtime.device_factory import unregister_device_factory
        from modtensor.runtime.kernel_registry import global_kernel_registry

        registry = global_kernel_registry()
        for registration in reversed(self.kernels):
            with suppress(KeyError):
                registry.remove(registration)
        for name in reversed(self.ops):
            with suppress(errors.NotFoundError):
                global_registry().remove(name)
        for device_type, factory in reversed(self.device_factories):
            with suppress(KeyError, ValueError, errors.OpError):
                unregister_device_factory(device_type, factory)
        for cleanup in reversed(self.cleanups):
            cleanup()
        self.kernels.clear()
        self.ops.clear()
        self.device_factories.clear()
        self.cleanups.clear()
        self.optimizers.clear()

    def commit(self) -> None:
        """Record what was registered on the plugin's record."""
        self.record.ops.extend(self.ops)
        self.record.kernels.extend(self.kernels)
        self.record.device_types.extend(t for t, _ in self.device_factories if t not in self.record.device_types)
        self.record.optimizers.extend(t for t in self.optimizers if t not in self.record.optimizers)

    def failure(self, stage: str) -> errors.OpError | None:
        """The error to report for this load (the first recorded, mentioning how many more), or None."""
        if not self.errors:
            return None
        first = self.errors[0]
        more = f" (and {len(self.errors) - 1} more: " + "; ".join(e.message for e in self.errors[1:]) + ")"
        text = f"{stage} of plugin {self.record.path} failed: {first.message}"
        return type(first)(None, None, text + (more if len(self.errors) > 1 else ""))


@contextmanager
def loading(record: PluginRecord) -> Iterator[LoadSession]:
    """Make ``record`` the plugin that registrations are attributed to while the block runs."""
    with REGISTRY.lock:
        session = LoadSession(record)
        previous, REGISTRY.session = REGISTRY.session, session
        try:
            yield session
        finally:
            REGISTRY.session = previous


def _call_void_entry_point(address: int, session: LoadSession) -> None:
    from modtensor.plugin.native import bridge

    bridge().call_entry_point(address, session.record.path, "TF_InitKernel")


def _init_stream_executor(address: int, session: LoadSession) -> None:
    """SE_InitPlugin: build the platform and register its devices (type at priority 220).

    Its pass-through and control-flow kernels are the runtime's DEFAULT ones, as in TF.
    """
    from modtensor.framework.device_spec import register_short_device_type
    from modtensor.plugin.native.stream_executor import init_platform
    from modtensor.runtime.device_factory import register_device_factory
    from modtensor.runtime.pluggable_device import PLUGGABLE_PRIORITY, PluggableDeviceFactory

    record = session.record
    platform = init_platform(record.path, address)
    session.cleanups.append(platform.teardown)
    factory = PluggableDeviceFactory(platform)
    register_device_factory(platform.type, factory, priority=PLUGGABLE_PRIORITY, source=record.path)
    session.device_factories.append((platform.type, factory))
    register_short_device_type(platform.type)  # "/MY_DEVICE:0" parses, as TF allows for pluggable device types
    atexit.register(platform.teardown)


def _init_graph(address: int, session: LoadSession, entry_point: str = "TF_InitGraph") -> None:
    """TF_InitGraph / TF_InitGraphPlugin: register the plugin's optimizer for its device type (one per type)."""
    from modtensor.grappler.plugin_optimizers import (
        PluginOptimizer,
        register_plugin_optimizer,
        unregister_plugin_optimizer,
    )
    from modtensor.plugin.native.graph_optimizer import init_graph_optimizer

    record = session.record
    native = init_graph_optimizer(record.path, address, entry_point)
    session.cleanups.append(native.teardown)  # destroy_func, also when the registration below fails
    atexit.register(native.teardown)
    register_plugin_optimizer(PluginOptimizer(native.device_type, record.path, native.optimize, native.configs))
    session.cleanups.append(lambda: unregister_plugin_optimizer(native.device_type, record.path))
    session.optimizers.append(native.device_type)


def _init_graph_plugin(address: int, session: LoadSession) -> None:
    """TF_InitGraphPlugin (the design document's name): used only when TF_InitGraph is not exported."""
    if hasattr(session.record.handle, "TF_InitGraph"):
        return
    _init_graph(address, session, "TF_InitGraphPlugin")


# Entry points modtensor runs; the others (see registry.ENTRY_POINTS) are only recorded.
_HANDLERS: dict[str, Callable[[int, LoadSession], None]] = {
    "SE_InitPlugin": _init_stream_executor,
    "TF_InitKernel": _call_void_entry_point,
    "TF_InitGraph": _init_graph,
    "TF_InitGraphPlugin": _init_graph_plugin,
}


def _entry_points(library: ctypes.CDLL) -> dict[str, int]:
    found = {}
    for name in ENTRY_POINTS:
        try:
            found[name] = ctypes.cast(getattr(library, name), ctypes.c_void_p).value
        except AttributeError:
            continue
    return found


def _check_c_api_binding(library: ctypes.CDLL | None, record: PluginRecord) -> None:
    """Refuse a plugin whose ``TF_*`` calls would go to another library than modtensor's shim.

    A plugin resolves ``TF_*`` in the process's global scope first, in load order (linked or not):
    if TensorFlow (or another copy of the C API) was loaded globally before modtensor's shim, the
    plugin would register its ops and kernels there, silently. Raises FailedPreconditionError.
    """
    from modtensor.plugin.native import shim_library

    shim = shim_library()
    probe = "TF_NewStatus"
    ours = ctypes.cast(getattr(shim, probe), ctypes.c_void_p).value
    process_scope = ctypes.CDLL(None)
    found = ctypes.cast(getattr(process_scope, probe), ctypes.c_void_p).value
    if found == ours:
        return
    raise errors.FailedPreconditionError(
        None,
        None,
        f"{record.path}: its TF_* C API calls would resolve to another library loaded before modtensor's shim "
        f"({probe} is found at {found:#x}, the shim's is at {ours:#x}; usually TensorFlow imported first). "
        "Import modtensor and load native plugins before importing TensorFlow in the same process.",
    )


def _initialise(record: PluginRecord) -> None:
    """dlopen the library, look up its entry points and run them; raises the OpError of a failure.

    The load session is open from before ``dlopen``: a library that registers ops or kernels from
    a static initializer or ``__attribute__((constructor))`` (the common C++ pattern) has them
    attributed to it, as TensorFlow attributes everything registered while a library loads.
    """
    from modtensor.plugin.native import bridge
    from modtensor.plugin.native.crash_report import enable_crash_reports, plugin_call
    from modtensor.runtime.kernel_registry import global_kernel_registry

    if not os.path.isfile(record.real_path):
        raise errors.NotFoundError(None, None, f"{record.path}: no such file")
    bridge()  # the shim is loaded globally before any plugin, so plugins resolve TF_* from it
    enable_crash_reports()  # a crash inside plugin code names the plugin, the call and the node
    global_kernel_registry()  # built-in kernels first: duplicates of them are detected
    _check_c_api_binding(None, record)  # before dlopen: static initializers call the C API at once
    with loading(record) as session:
        try:
            with plugin_call(record.path, "loading (dlopen: static initializers)"):
                library = ctypes.CDLL(record.real_path, mode=os.RTLD_NOW | os.RTLD_LOCAL)
        except OSError as e:
            session.rollback()
            raise errors.NotFoundError(None, None, f"{record.path} cannot be loaded as a shared library: {e}") from None
        record.handle = library  # never unloaded: kernels and shape functions point into it
        error = session.failure("Loading")
        if error is not None:
            session.rollback()
            raise error
        registered_at_load = bool(session.ops or session.kernels)
        if registered_at_load:
            record.entry_points["<load time>"] = "registered from static initializers"
        found = _entry_points(library)
        if not found and not registered_at_load:
            raise errors.NotFoundError(
                None,
                None,
                f"{record.path} is not a modtensor plugin: it exports none of the entry points "
                f"{', '.join(ENTRY_POINTS)} and registers nothing while it loads",
            )
        for name, address in found.items():
            handler = _HANDLERS.get(name)
            if handler is None:
                record.entry_points[name] = f"recorded, not run ({ENTRY_POINTS[name]} are not supported yet)"
                continue
            try:
                handler(address, session)
            except errors.OpError as e:
                session.errors.append(e)
            except Exception as e:  # a bug on the Python side of a registration: still roll back
                session.errors.append(errors.InternalError(None, None, f"{type(e).__name__}: {e}"))
            record.entry_points[name] = "called"
            error = session.failure(name)
            if error is not None:
                session.rollback()
                raise error
        session.commit()
        _COMMITTED[record.real_path] = session


def load_native_library(path: str | os.PathLike[str], *, origin: str, raise_errors: bool) -> PluginRecord:
    """Load one native plugin (once per real path); returns its record.

    On failure the plugin's registrations are rolled back and the error is raised
    (``raise_errors``, explicit loads) or reported with a RuntimeWarning naming the
    file and the cause (discovery). A library that failed before fails again the
    same way without being re-run.
    """
    real_path = os.path.realpath(path)
    with REGISTRY.lock:
        record = REGISTRY.records.get(real_path)
        if record is None:
            record = PluginRecord(
                name=Path(path).name, path=str(path), real_path=real_path, kind="native", origin=origin
            )
            REGISTRY.records[real_path] = record
            try:
                _initialise(record)
            except errors.OpError as e:
                record.error = e
            except Exception as e:  # never let a plugin take the host down when it can be caught
                record.error = errors.InternalError(None, None, f"{record.path}: {type(e).__name__}: {e}")
            if record.error is not None and not raise_errors:
                warn_plugin_failure(record)
        if record.error is not None and raise_errors:
            raise record.error
        return record


def unload_native_library(path: str | os.PathLike[str]) -> None:
    """Undo a loaded native plugin: tear down its StreamExecutor platform (destroy functions in reverse
    order), remove its device factory, kernels and ops, and forget its record so it can be loaded again.

    The library stays mapped (code may still point into it). Devices of the plugin that were
    already created become unusable: call this before devices are created or reset them after.
    """
    real_path = os.path.realpath(path)
    with REGISTRY.lock:
        session = _COMMITTED.pop(real_path, None)
        if session is not None:
            session.rollback()
        REGISTRY.records.pop(real_path, None)


def warn_plugin_failure(record: PluginRecord) -> None:
    """The warning for a plugin that failed to load: the file, the error class and message."""
    assert record.error is not None
    warnings.warn(
        f"modtensor: plugin {record.path} was not loaded ({type(record.error).__name__}: {record.error.message}); "
        "its registrations were rolled back and modtensor continues without it",
        RuntimeWarning,
        stacklevel=3,
    )
