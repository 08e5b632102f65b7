"""The host CPU device (values are numpy arrays) and its factory.

The factory registers through the same device-factory registry a plugin uses,
at TensorFlow's CPU priority (70), so a plugin may outrank it for placement.
"""

from __future__ import annotations

from collections.abc import Sequence

from modtensor.runtime.allocator import CPUAllocator
from modtensor.runtime.device import Device, DeviceAttributes
from modtensor.runtime.device_factory import DeviceFactory

__all__ = ["CPU_MEMORY_LIMIT", "CPU_PRIORITY", "CPUDevice", "CPUDeviceFactory"]

CPU_PRIORITY = 70  # TensorFlow's priority of its CPU device factory
CPU_MEMORY_LIMIT = 268435456  # TensorFlow's DeviceAttributes.memory_limit for CPU (256 MiB)


class CPUDevice(Device):
    """The host CPU: synchronous, host memory, numpy arrays as values."""

    is_host = True
    compute_stream = None


class CPUDeviceFactory(DeviceFactory):
    """Makes the one CPU device of the process (``/physical_device:CPU:0``)."""

    def list_physical_devices(self) -> list[str]:
        """One physical CPU, as TensorFlow reports."""
        return ["/physical_device:CPU:0"]

    def create_devices(self, physical_indices: Sequence[int], name_prefix: str) -> list[Device]:
        """A CPUDevice per visible physical index, numbered from 0, sharing one host allocator."""
        allocator = CPUAllocator("cpu")
        devices: list[Device] = []
        for ordinal, _index in enumerate(physical_indices):
            attrs = DeviceAttributes(
                name=f"{name_prefix}/device:CPU:{ordinal}",
                device_type="CPU",
                memory_limit=CPU_MEMORY_LIMIT,
            )
            devices.append(CPUDevice(attrs, allocator))
        return devices
