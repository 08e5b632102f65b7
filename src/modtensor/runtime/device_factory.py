"""The device-factory registry, physical/logical device listing, visible devices, the process's devices.

Factories register per device type with a priority; the highest-priority factory
serves the type (so a plugin registering ``GPU`` takes over the name) and the
priority orders device types for placement, as in TensorFlow. Devices are created
once, lazily, from the visible physical devices; after that the set is frozen.
"""

from __future__ import annotations

import collections
import threading
import warnings
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from modtensor.framework import errors
from modtensor.framework.device_spec import DeviceSpec
from modtensor.runtime.device import Device, DeviceSet

__all__ = [
    "LOCAL_NAME_PREFIX",
    "DeviceFactory",
    "LogicalDevice",
    "PhysicalDevice",
    "device_factory",
    "device_set",
    "device_type_priority",
    "device_types",
    "devices_initialized",
    "get_device",
    "get_device_details",
    "get_visible_devices",
    "list_logical_devices",
    "list_physical_devices",
    "register_device_factory",
    "registered_factories",
    "reset_devices_for_testing",
    "set_visible_devices",
    "unregister_device_factory",
]

LOCAL_NAME_PREFIX = "/job:localhost/replica:0/task:0"

# TensorFlow's public records; namedtuples so they print, compare and hash exactly like TF's.
PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])


class DeviceFactory(ABC):
    """Discovers the physical devices of one type and creates Device objects for the visible ones."""

    @abstractmethod
    def list_physical_devices(self) -> list[str]:
        """Names of the physical devices, ``/physical_device:TYPE:N`` (no device created)."""

    def get_device_details(self, index: int) -> dict[str, str]:
        """What the hardware reports about physical device ``index`` (``device_name``, ...)."""
        del index
        return {}

    @abstractmethod
    def create_devices(self, physical_indices: Sequence[int], name_prefix: str) -> list[Device]:
        """Devices for the given physical indices, logical ordinals 0..k-1, named ``{name_prefix}/device:T:i``."""


@dataclass(frozen=True)
class _Entry:
    device_type: str
    factory: DeviceFactory
    priority: int
    source: str


class _State:
    """The process-wide registry and device state, guarded by one lock."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.entries: dict[str, list[_Entry]] = {}
        self.builtins_loaded = False
        self.physical: list[PhysicalDevice] | None = None
        self.physical_owner: dict[PhysicalDevice, tuple[_Entry, int]] = {}
        self.visible: list[PhysicalDevice] | None = None
        self.devices: DeviceSet | None = None


_STATE = _State()


def _ensure_builtins() -> None:
    if _STATE.builtins_loaded:
        return
    with _STATE.lock:
        if _STATE.builtins_loaded:
            return
        _STATE.builtins_loaded = True
        from modtensor.runtime.cpu_device import CPU_PRIORITY, CPUDeviceFactory

        _register(_Entry("CPU", CPUDeviceFactory(), CPU_PRIORITY, "modtensor.runtime.cpu_device"))
    # The runtime's first use: installed device plugins register their factories now (TensorFlow
    # loads them at import), so listing devices shows them without an explicit load_library.
    from modtensor.runtime.kernel_registry import global_kernel_registry

    global_kernel_registry()


def _register(entry: _Entry) -> None:
    with _STATE.lock:
        if _STATE.devices is not None:
            raise RuntimeError(
                f"Cannot register a device factory for device type '{entry.device_type}' from {entry.source}: "
                "devices were already created; register factories before the first use of a device"
            )
        same = _STATE.entries.setdefault(entry.device_type, [])
        for other in same:
            if other.priority == entry.priority:
                raise errors.AlreadyExistsError(
                    None,
                    None,
                    f"Duplicate registration of device factory for type {entry.device_type} with the same "
                    f"priority {entry.priority}: {entry.source} and {other.source}",
                )
        same.append(entry)
        same.sort(key=lambda e: -e.priority)
        _STATE.physical = None


def register_device_factory(
    device_type: str, factory: DeviceFactory, priority: int = 0, source: str | None = None
) -> None:
    """Register ``factory`` for ``device_type``; the highest priority per type serves it.

    Raises AlreadyExistsError when the type already has a factory of this priority,
    RuntimeError once devices were created.
    """
    if not device_type or not isinstance(device_type, str):
        raise ValueError(f"Device type must be a non-empty string, got {device_type!r}")
    if not isinstance(factory, DeviceFactory):
        raise TypeError(
            f"factory for device type '{device_type}' must be a DeviceFactory, got {type(factory).__name__}"
        )
    _ensure_builtins()
    _register(_Entry(device_type, factory, int(priority), source or type(factory).__module__))


def unregister_device_factory(device_type: str, factory: DeviceFactory) -> None:
    """Remove a factory again (plugin rollback); unknown factories are ignored."""
    with _STATE.lock:
        entries = _STATE.entries.get(device_type, [])
        _STATE.entries[device_type] = [e for e in entries if e.factory is not factory]
        if not _STATE.entries[device_type]:
            del _STATE.entries[device_type]
        _STATE.physical = None


def device_factory(device_type: str) -> DeviceFactory | None:
    """The factory serving ``device_type`` (highest priority), or None."""
    _ensure_builtins()
    entries = _STATE.entries.get(device_type)
    return entries[0].factory if entries else None


def device_type_priority(device_type: str) -> int:
    """The priority of the factory serving ``device_type`` (0 when none)."""
    _ensure_builtins()
    entries = _STATE.entries.get(device_type)
    return entries[0].priority if entries else 0


def device_types() -> list[str]:
    """Registered device types, highest priority first (ties by name): TF's placement preference."""
    _ensure_builtins()
    with _STATE.lock:
        return sorted(_STATE.entries, key=lambda t: (-_STATE.entries[t][0].priority, t))


def _warn_factory(entry: _Entry, what: str, exc: BaseException) -> None:
    warnings.warn(
        f"Device factory for device type '{entry.device_type}' from {entry.source} failed to {what}: "
        f"{type(exc).__name__}: {exc}. Its devices are skipped.",
        RuntimeWarning,
        stacklevel=3,
    )


def _physical_devices() -> list[PhysicalDevice]:
    _ensure_builtins()
    with _STATE.lock:
        if _STATE.physical is not None:
            return _STATE.physical
        physical: list[PhysicalDevice] = []
        owner: dict[PhysicalDevice, tuple[_Entry, int]] = {}
        # CPU first, then the other types by priority, as TF's ListAllPhysicalDevices lists them.
        order = sorted(_STATE.entries, key=lambda t: (t != "CPU", -_STATE.entries[t][0].priority, t))
        for device_type in order:
            for entry in _STATE.entries[device_type]:
                try:
                    names = list(entry.factory.list_physical_devices())
                except Exception as exc:  # a plugin's factory must not take the process down
                    _warn_factory(entry, "list physical devices", exc)
                    continue
                for index, name in enumerate(names):
                    pd = PhysicalDevice(name=name, device_type=device_type)
                    physical.append(pd)
                    owner[pd] = (entry, index)
                break  # the highest-priority factory that works serves the type
        _STATE.physical = physical
        _STATE.physical_owner = owner
        return physical


def list_physical_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    """The physical devices of every registered type (or of one), without creating devices."""
    return [d for d in _physical_devices() if device_type is None or d.device_type == device_type]


def get_visible_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    """The physical devices the runtime will create devices for (all, unless set_visible_devices)."""
    physical = _physical_devices()
    visible = physical if _STATE.visible is None else _STATE.visible
    return [d for d in visible if device_type is None or d.device_type == device_type]


def set_visible_devices(devices: PhysicalDevice | Sequence[PhysicalDevice], device_type: str | None = None) -> None:
    """Choose the visible physical devices (of ``device_type`` only, when given), before devices exist.

    ValueError "Unrecognized device: ..." for a device not listed (or not of
    ``device_type``); RuntimeError once devices were created and the choice changes.
    """
    if not isinstance(devices, list):
        devices = list(devices) if isinstance(devices, tuple) and not isinstance(devices, PhysicalDevice) else [devices]
    physical = _physical_devices()
    for d in devices:
        if d not in physical or (device_type is not None and d.device_type != device_type):
            raise ValueError(f"Unrecognized device: {d!r}")
    with _STATE.lock:
        current = physical if _STATE.visible is None else _STATE.visible
        new: list[PhysicalDevice] = []
        if device_type is not None:
            new = [d for d in current if d.device_type != device_type]
        new += devices
        if new == current:
            return
        if _STATE.devices is not None:
            raise RuntimeError("Visible devices cannot be modified after being initialized")
        _STATE.visible = new


def get_device_details(physical_device: PhysicalDevice) -> dict[str, str]:
    """What the device's factory reports about a physical device (TF: config.experimental.get_device_details)."""
    _physical_devices()
    found = _STATE.physical_owner.get(physical_device)
    if found is None:
        raise ValueError(f"Unrecognized device: {physical_device!r}")
    entry, index = found
    return dict(entry.factory.get_device_details(index))


def devices_initialized() -> bool:
    """True once the process's devices were created (visible devices are then fixed)."""
    return _STATE.devices is not None


def device_set() -> DeviceSet:
    """The process's devices, created from the visible physical devices on first call."""
    existing = _STATE.devices
    if existing is not None:
        return existing
    with _STATE.lock:
        if _STATE.devices is not None:
            return _STATE.devices
        visible = get_visible_devices()
        created: list[Device] = []
        for device_type in device_types():
            indices = [_STATE.physical_owner[d][1] for d in visible if d.device_type == device_type]
            if not indices:
                continue
            entry = _STATE.physical_owner[next(d for d in visible if d.device_type == device_type)][0]
            try:
                created.extend(entry.factory.create_devices(indices, LOCAL_NAME_PREFIX))
            except Exception as exc:  # a plugin's factory must not take the process down
                _warn_factory(entry, "create devices", exc)
        priorities = {t: e[0].priority for t, e in _STATE.entries.items()}
        _STATE.devices = DeviceSet(created, priorities)
        return _STATE.devices


def list_logical_devices(device_type: str | None = None) -> list[LogicalDevice]:
    """The devices the runtime created (creating them now if needed), named ``/device:TYPE:N``; CPU first, as TF."""
    devices = sorted(device_set(), key=lambda d: d.device_type != "CPU")  # stable: placement order otherwise
    return [
        LogicalDevice(name=f"/device:{d.device_type}:{d.ordinal}", device_type=d.device_type)
        for d in devices
        if device_type is None or d.device_type == device_type
    ]


def get_device(spec: str | DeviceSpec | Device | None) -> Device:
    """Resolve ``/CPU:0``, ``/device:GPU:1``, ``cpu:0``, ``CPU``, a full name or a Device to a Device.

    An unset index means 0 and an empty spec means CPU:0. Raises InvalidArgumentError
    naming the spec and listing the available devices when none matches.
    """
    if isinstance(spec, Device):
        return spec
    devices = device_set()
    if isinstance(spec, str):
        found = devices.lookup(spec)
        if found is not None:
            return found
    text = str(spec) if spec is not None else ""
    try:
        parsed = spec if isinstance(spec, DeviceSpec) else DeviceSpec.from_string(_normalize(text))
    except ValueError as exc:
        raise errors.InvalidArgumentError(None, None, f"Invalid device specification '{text}': {exc}") from None
    if parsed.device_type is None:
        parsed = parsed.replace(device_type="CPU")
    if parsed.device_index is None:
        parsed = parsed.replace(device_index=0)
    matches = devices.find(parsed)
    if not matches:
        available = ", ".join(d.name for d in devices)
        raise errors.InvalidArgumentError(
            None, None, f"Unknown device '{text}' (parsed as '{parsed}'). Available devices: [{available}]"
        )
    return matches[0]


def _normalize(text: str) -> str:
    """Accept the short forms "cpu:0" / "GPU" without a leading slash."""
    if text and not text.startswith("/"):
        return "/" + text
    return text


_growth_lock = threading.Lock()
_memory_growth: dict[str, bool] = {}  # physical device name -> enabled


def set_memory_growth(physical_device_name: str, enable: bool) -> None:
    """Record whether a device's allocator grows on demand (True) or reserves everything up front (False).

    RuntimeError "Physical devices cannot be modified after being initialized" (TF's text) when
    devices exist and the value changes; ``config.experimental.set_memory_growth`` is the user's door.
    """
    with _growth_lock:
        if _memory_growth.get(physical_device_name) == enable:
            return
        if devices_initialized():
            raise RuntimeError("Physical devices cannot be modified after being initialized")
        _memory_growth[physical_device_name] = enable


def memory_growth_enabled(physical_device_name: str) -> bool | None:
    """The recorded setting for ``/physical_device:TYPE:N``, None when unset; device factories read this."""
    with _growth_lock:
        return _memory_growth.get(physical_device_name)


def reset_memory_growth_for_testing() -> None:
    """Forget every memory-growth setting (tests only)."""
    with _growth_lock:
        _memory_growth.clear()


def reset_devices_for_testing(*, keep_factories: bool = True) -> None:
    """Forget created devices and visible-device choices (tests only; live devices are not released)."""
    with _STATE.lock:
        _STATE.devices = None
        _STATE.visible = None
        _STATE.physical = None
        if not keep_factories:
            _STATE.entries.clear()
            _STATE.builtins_loaded = False


def registered_factories() -> dict[str, list[dict[str, Any]]]:
    """Every registered factory per device type (priority, source, class), for `modtensor plugins`."""
    _ensure_builtins()
    with _STATE.lock:
        return {
            t: [{"priority": e.priority, "source": e.source, "factory": type(e.factory).__name__} for e in entries]
            for t, entries in _STATE.entries.items()
        }
