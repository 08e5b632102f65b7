"""The registry of plugins: every plugin modtensor tried to load, what it registered, and why it failed.

One record per native library (keyed by real path, so a library reached through
two paths or loaded twice is loaded once) and per Python entry point. The loader
fills records while a plugin initialises (``LoadSession``); ``modtensor plugins``
prints them.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from modtensor.framework.errors import OpError
    from modtensor.runtime.kernel_registry import KernelRegistration

__all__ = [
    "ENTRY_POINTS",
    "PluginRecord",
    "active_session",
    "find_record",
    "loaded_plugins",
]

# Entry points a native plugin may export, in the order modtensor runs them (devices before
# their kernels, as TensorFlow does), and the issue that implements each (None: implemented).
ENTRY_POINTS: dict[str, str | None] = {
    "SE_InitPlugin": None,
    "TF_InitKernel": None,
    "TF_InitGraph": None,
    "TF_InitGraphPlugin": None,
    "TF_InitProfiler": "profiler plugins",
}


@dataclass
class PluginRecord:
    """One plugin: where it came from, what it exports, what it registered, and its load error if any."""

    name: str
    path: str  # as found or given; for Python plugins the entry point's "module:attr"
    real_path: str  # the key: realpath of a library, "entry-point:<group>:<name>" for Python plugins
    kind: str  # "native" or "python"
    origin: str  # "site-packages", "MODTENSOR_PLUGIN_PATH", "load_library", "entry point", ...
    entry_points: dict[str, str] = field(default_factory=dict)  # symbol -> "called" | "recorded: ..."
    ops: list[str] = field(default_factory=list)
    kernels: list[KernelRegistration] = field(default_factory=list)
    device_types: list[str] = field(default_factory=list)
    optimizers: list[str] = field(default_factory=list)
    error: OpError | None = None
    handle: Any = None  # the ctypes library (kept so the code stays mapped) or the loaded Python object

    @property
    def loaded(self) -> bool:
        """True when the plugin initialised without error (its registrations are live)."""
        return self.error is None

    def kernels_by_device(self) -> dict[str, list[str]]:
        """Registered kernels grouped by device type: ``{"CPU": ["MyOp (T in [DT_FLOAT])", ...]}``."""
        out: dict[str, list[str]] = {}
        for reg in self.kernels:
            kd = reg.kernel_def
            constraints = "; ".join(kd.describe().split("; ")[1:])
            out.setdefault(kd.device_type, []).append(f"{kd.op} ({constraints})" if constraints else kd.op)
        return out

    def summary(self) -> dict[str, Any]:
        """A JSON-friendly description (used by ``modtensor plugins --json``)."""
        return {
            "name": self.name,
            "path": self.path,
            "kind": self.kind,
            "origin": self.origin,
            "entry_points": dict(self.entry_points),
            "ops": list(self.ops),
            "kernels": self.kernels_by_device(),
            "device_types": list(self.device_types),
            "optimizers": list(self.optimizers),
            "error": None if self.error is None else f"{type(self.error).__name__}: {self.error.message}",
        }


class _Registry:
    """Records by key, in load order, plus the load in progress (one at a time, process-wide)."""

    def __init__(self) -> None:
        self.lock = threading.RLock()  # held for a whole load, so registrations are attributed correctly
        self.records: dict[str, PluginRecord] = {}
        self.session: Any = None


REGISTRY = _Registry()


def loaded_plugins() -> list[PluginRecord]:
    """Every plugin modtensor tried to load in this process, in load order (failed ones included)."""
    with REGISTRY.lock:
        return list(REGISTRY.records.values())


def find_record(key: str) -> PluginRecord | None:
    """The record of a library's real path (or a Python plugin's key), or None."""
    with REGISTRY.lock:
        return REGISTRY.records.get(key)


def active_session() -> Any:
    """The LoadSession of the plugin being initialised right now, or None (registration outside a load)."""
    return REGISTRY.session
