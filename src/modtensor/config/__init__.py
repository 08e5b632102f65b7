"""``modtensor.config``: TensorFlow's ``tf.config`` device functions over the device-factory registry.

``list_physical_devices`` lists without creating devices; ``list_logical_devices``
creates them (after which ``set_visible_devices`` may no longer change the set).
Results print like TensorFlow's: ``PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')``.
"""

from __future__ import annotations

from collections.abc import Sequence

from modtensor.runtime import device_factory
from modtensor.runtime.device_factory import LogicalDevice, PhysicalDevice

__all__ = [
    "LogicalDevice",
    "PhysicalDevice",
    "experimental",
    "get_visible_devices",
    "list_logical_devices",
    "list_physical_devices",
    "optimizer",
    "set_visible_devices",
    "threading",
]


def list_physical_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    """The physical devices of every registered device type, or of ``device_type`` ("CPU", "GPU", ...)."""
    return device_factory.list_physical_devices(device_type)


def list_logical_devices(device_type: str | None = None) -> list[LogicalDevice]:
    """The devices the runtime uses (created now if needed), named ``/device:TYPE:N``."""
    return device_factory.list_logical_devices(device_type)


def get_visible_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    """The physical devices the runtime creates devices for (all of them unless ``set_visible_devices``)."""
    return device_factory.get_visible_devices(device_type)


def set_visible_devices(devices: PhysicalDevice | Sequence[PhysicalDevice], device_type: str | None = None) -> None:
    """Restrict the runtime to ``devices`` (of ``device_type`` only, when given) before devices are created.

    ValueError ``Unrecognized device: ...`` for a device not listed; RuntimeError
    ``Visible devices cannot be modified after being initialized`` once they exist.
    """
    device_factory.set_visible_devices(devices, device_type)


def get_device_details(device: PhysicalDevice) -> dict[str, str]:
    """What the device's factory reports about a physical device (``{}`` for CPU, as TensorFlow)."""
    return device_factory.get_device_details(device)


from modtensor.config import experimental, optimizer, threading  # noqa: E402 - after the functions experimental re-exports
