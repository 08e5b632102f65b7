"""``modtensor.config.experimental``: TensorFlow's ``tf.config.experimental`` names.

Memory statistics of a device's allocator (``get_memory_info``, ``reset_memory_stats``),
per-physical-device memory growth (recorded here before devices are created; a
device factory reads it through ``memory_growth_enabled``), device details, and the
device-listing functions TensorFlow also exports under ``experimental``.
"""

from __future__ import annotations

from modtensor.framework.device_spec import DeviceSpec
from modtensor.runtime import device_factory
from modtensor.runtime.device import Device
from modtensor.runtime.device_factory import PhysicalDevice

__all__ = [
    "get_device_details",
    "get_memory_growth",
    "get_memory_info",
    "get_visible_devices",
    "list_logical_devices",
    "list_physical_devices",
    "memory_growth_enabled",
    "reset_memory_stats",
    "set_memory_growth",
    "set_visible_devices",
]

# Re-exported (the same objects as tf.config's): TensorFlow has these under tf.config.experimental too.
# modtensor.config imports this module after defining them, so they exist by now.
from modtensor.config import (  # noqa: E402
    get_device_details,
    get_visible_devices,
    list_logical_devices,
    list_physical_devices,
    set_visible_devices,
)

# The setting lives in the runtime, which device factories read it from; these are the user's doors.
memory_growth_enabled = device_factory.memory_growth_enabled
reset_memory_growth_for_testing = device_factory.reset_memory_growth_for_testing


def _find_device(device: str) -> Device:
    """The created device a TF-style name ("GPU:0", "/device:MY_DEVICE:1") names, with TF's ValueErrors."""
    text = str(device)
    spec = None
    for candidate in (text if text.startswith("/") else "/" + text, "/device:" + text):
        try:
            spec = DeviceSpec.from_string(candidate)
            break
        except ValueError:
            continue
    if spec is None or spec.device_type is None or spec.device_index is None:
        raise ValueError(
            f"Failed parsing device name: '{text}'. Note a valid device string should at least contain a device "
            'type and a device index, like "GPU:0".'
        )
    found = device_factory.device_set().find(spec)
    if not found:
        raise ValueError(f"No matching devices found for '{text}'")
    return found[0]


def get_memory_info(device: str) -> dict[str, int]:
    """``{"current": bytes in use, "peak": peak bytes in use}`` of a device's allocator.

    ValueError (TF's texts) when the name does not parse, names no device, or the
    device's allocator keeps no statistics (CPU: "Allocator stats not available for device 'CPU:0'").
    """
    found = _find_device(device)
    stats = found.allocator.get_stats()
    if stats is None:
        raise ValueError(f"Allocator stats not available for device '{device}'")
    return {"current": stats.bytes_in_use, "peak": stats.peak_bytes_in_use}


def reset_memory_stats(device: str) -> None:
    """Reset the device allocator's peak to its current use (and its allocation counters)."""
    found = _find_device(device)
    if found.allocator.get_stats() is None:
        raise ValueError(f"Cannot reset memory stats for device '{device}'")
    found.allocator.clear_stats()


def _check_physical(device: PhysicalDevice) -> None:
    if device not in device_factory.list_physical_devices():
        raise ValueError(f"Unrecognized device: {device!r}")


def set_memory_growth(device: PhysicalDevice, enable: bool) -> None:
    """Whether ``device``'s allocator reserves memory as needed (True) or all of it at creation (False).

    TF's errors: ValueError for an unknown device or a CPU; RuntimeError "Physical
    devices cannot be modified after being initialized" once devices exist and the value changes.
    """
    _check_physical(device)
    if device.device_type == "CPU":
        raise ValueError("Cannot set memory growth on non-GPU and non-Pluggable devices")
    device_factory.set_memory_growth(device.name, bool(enable))


def get_memory_growth(device: PhysicalDevice) -> bool | None:
    """The memory-growth setting of ``device``: True/False when set, None when left to the device's default."""
    _check_physical(device)
    return memory_growth_enabled(device.name)
