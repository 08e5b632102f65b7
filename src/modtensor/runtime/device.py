"""Devices: what a kernel runs on and where its tensors live, and the set of a process's devices.

A ``Device`` names itself in TensorFlow's full form
(``/job:localhost/replica:0/task:0/device:CPU:0``), owns an allocator, and moves
values between its memory and the host. The executor and transfers use only this
interface, so a pluggable device (issue 5) fits by subclassing it; its stream
work hides behind ``from_host``/``to_host``/``copy_to``/``synchronize``.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from modtensor.framework.device_spec import DeviceSpec
from modtensor.runtime.allocator import Allocator, as_numpy_dtype

if TYPE_CHECKING:
    from modtensor.runtime.resource_mgr import ResourceMgr

__all__ = ["Device", "DeviceAttributes", "DeviceSet", "new_incarnation", "register_memory_owner_type"]

# Types whose objects own host memory that only the arrays over it use (the native bridge's HostBlock: the
# memory a native kernel's output handed over). An array whose base is such an object that only it holds is
# the only user of that memory.
_memory_owner_types: set[type] = set()


def register_memory_owner_type(owner_type: type) -> None:
    """Count arrays over ``owner_type`` objects as exclusive (see ``Device.buffer_is_exclusive``)."""
    _memory_owner_types.add(owner_type)


def new_incarnation() -> int:
    """A random non-zero 64-bit id telling apart two instances of a device with one name."""
    return random.SystemRandom().getrandbits(64) or 1


@dataclass(frozen=True)
class DeviceAttributes:
    """TensorFlow's DeviceAttributes: the description of a device others see."""

    name: str
    device_type: str
    memory_limit: int
    physical_device_desc: str = ""
    incarnation: int = field(default_factory=new_incarnation)
    locality_bus_id: int = 0


class Device:
    """One device of one process: name, type, ordinal, allocator and the host/device copy interface.

    Values of the base implementation are host numpy arrays; subclasses for other
    memory override ``to_host``, ``from_host``, ``copy_to``, ``synchronize`` and
    ``buffer_is_exclusive``, and set ``compute_stream`` when they are asynchronous.
    """

    is_host: bool = True
    compute_stream: Any = None

    def __init__(
        self,
        attributes: DeviceAttributes,
        allocator: Allocator,
        host_allocator: Allocator | None = None,
    ):
        spec = DeviceSpec.from_string(attributes.name)
        if spec.device_type is None or spec.device_index is None or spec.job is None:
            raise ValueError(
                f"Device name '{attributes.name}' must be fully specified (/job:NAME/replica:N/task:N/device:TYPE:N)"
            )
        if spec.device_type != attributes.device_type:
            raise ValueError(f"Device name '{attributes.name}' does not match device type '{attributes.device_type}'")
        self._attributes = attributes
        self._spec = spec
        self.allocator = allocator
        self.host_allocator = host_allocator if host_allocator is not None else allocator

    # ------------------------------------------------------------------ identity

    @property
    def name(self) -> str:
        """The full TF name, ``/job:localhost/replica:0/task:0/device:CPU:0``."""
        return self._attributes.name

    @property
    def device_type(self) -> str:
        """The device type, "CPU", "GPU" or a plugin's."""
        return self._attributes.device_type

    @property
    def ordinal(self) -> int:
        """The logical index among devices of this type in the process (the N of ``CPU:N``)."""
        return self._spec.device_index  # type: ignore[return-value]

    @property
    def parsed_name(self) -> DeviceSpec:
        """The name as a DeviceSpec."""
        return self._spec

    @property
    def attributes(self) -> DeviceAttributes:
        """TF's DeviceAttributes record of this device."""
        return self._attributes

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"

    @property
    def resource_manager(self) -> ResourceMgr:
        """The resources (variables, ...) this device holds: TF's ``Device::resource_manager()``, made on first use."""
        manager = self.__dict__.get("_resource_manager")
        if manager is None:
            from modtensor.runtime.resource_mgr import ResourceMgr

            manager = self.__dict__.setdefault("_resource_manager", ResourceMgr())
        return manager

    # ------------------------------------------------------------------ memory and copies

    def to_host(self, value: Any) -> np.ndarray:
        """The value as a host numpy array, waiting for pending device work that produces it."""
        return np.asarray(value)

    def to_host_async(self, value: Any, done: Callable[[np.ndarray | None, BaseException | None], None]) -> None:
        """Copy ``value`` to a host array and call ``done(array, None)`` (or ``done(None, error)``) when it is there.

        The executor's receives use this so a device-to-host copy never blocks the step's thread;
        the default copies synchronously. Asynchronous devices enqueue the copy and call back
        from the thread that sees the copy's event complete.
        """
        try:
            array = self.to_host(value)
        except Exception as exc:  # noqa: BLE001 - handed to the caller, which fails the node with it
            done(None, exc)
            return
        done(array, None)

    def from_host(self, array: np.ndarray) -> Any:
        """A device value holding ``array``'s contents (may be enqueued; ordered on the device's streams)."""
        return np.asarray(array)

    def copy_to(self, value: Any, dst: Device) -> Any:
        """``value`` (on this device) as a value of ``dst``; the default goes through host memory."""
        if dst is self:
            return value
        return dst.from_host(self.to_host(value))

    def synchronize(self) -> None:
        """Wait until all work queued on this device is done (no-op for synchronous devices)."""

    def buffer_is_exclusive(self, value: Any) -> bool:
        """True when no other value shares ``value``'s buffer, so a kernel may write it in place.

        The caller has already checked that nothing else references ``value`` itself.
        """
        if not isinstance(value, np.ndarray) or not value.flags.writeable:
            return False
        base = value.base
        if base is None:
            return True
        # An aligned allocation (allocator.aligned_empty) is a view of a raw byte array only it holds;
        # numpy makes any other view of that memory reference the raw array too. A native output's memory
        # is a registered owner object (views of the array reference the array, not the owner). References
        # counted: the view's, the local `base`, getrefcount's argument.
        if type(base) is np.ndarray:
            return base.base is None and sys.getrefcount(base) <= 3
        return type(base) in _memory_owner_types and sys.getrefcount(base) <= 3

    def zeros(self, shape: Sequence[int], dtype: Any) -> Any:
        """A zero-filled value from this device's allocator."""
        return self.from_host(np.zeros(tuple(shape), dtype=as_numpy_dtype(dtype)))


class DeviceSet:
    """The devices of a process, ordered by device-type priority, with name and spec lookups."""

    def __init__(self, devices: Iterable[Device], type_priority: dict[str, int] | None = None):
        priority = type_priority or {}
        self._types = sorted({d.device_type for d in devices}, key=lambda t: (-priority.get(t, 0), t))
        rank = {t: i for i, t in enumerate(self._types)}
        self._devices = sorted(devices, key=lambda d: (rank[d.device_type], d.ordinal))
        self._by_name = {d.name: d for d in self._devices}

    @property
    def devices(self) -> list[Device]:
        """Every device, higher-priority types first, then by ordinal."""
        return list(self._devices)

    def lookup(self, name: str) -> Device | None:
        """The device with exactly this full name, or None."""
        return self._by_name.get(name)

    def find(self, spec: str | DeviceSpec) -> list[Device]:
        """Every device matching a (partial) spec; job/replica/task must match when given."""
        if not isinstance(spec, DeviceSpec):
            spec = DeviceSpec.from_string(spec)
        found = []
        for d in self._devices:
            p = d.parsed_name
            if spec.job is not None and spec.job != p.job:
                continue
            if spec.replica is not None and spec.replica != p.replica:
                continue
            if spec.task is not None and spec.task != p.task:
                continue
            if spec.device_type is not None and spec.device_type.upper() != d.device_type.upper():
                continue
            if spec.device_index is not None and spec.device_index != d.ordinal:
                continue
            found.append(d)
        return found

    def devices_of_type(self, device_type: str) -> list[Device]:
        """The devices of one type, by ordinal."""
        return [d for d in self._devices if d.device_type == device_type]

    def prioritized_device_types(self) -> list[str]:
        """Device types present, highest factory priority first (ties by name), as TF's placer orders them."""
        return list(self._types)

    @property
    def client_device(self) -> Device:
        """The host CPU:0, where feeds and fetches live."""
        for d in self._devices:
            if d.device_type == "CPU" and d.ordinal == 0:
                return d
        raise RuntimeError("The device set has no CPU:0; the CPU device factory must be visible")

    def __iter__(self):
        return iter(self._devices)

    def __len__(self) -> int:
        return len(self._devices)
