"""The runtime: devices and their factories, allocators, the kernel registry and the kernel API.

Contracts are in docs/runtime.md. Placement, execution, eager and sessions build on these.
"""

from modtensor.runtime.allocator import Allocator, AllocatorStats, CPUAllocator
from modtensor.runtime.device import Device, DeviceAttributes, DeviceSet
from modtensor.runtime.device_factory import (
    DeviceFactory,
    LogicalDevice,
    PhysicalDevice,
    device_set,
    get_device,
    get_visible_devices,
    list_logical_devices,
    list_physical_devices,
    register_device_factory,
    set_visible_devices,
)
from modtensor.runtime.kernel_registry import (
    KernelDef,
    KernelRegistration,
    KernelRegistry,
    global_kernel_registry,
    register_kernel,
    register_kernel_function,
)
from modtensor.runtime.op_kernel import (
    FunctionKernel,
    OpKernel,
    OpKernelConstruction,
    OpKernelContext,
    create_kernel,
    with_node_context,
)

__all__ = [
    "Allocator",
    "AllocatorStats",
    "CPUAllocator",
    "Device",
    "DeviceAttributes",
    "DeviceFactory",
    "DeviceSet",
    "FunctionKernel",
    "KernelDef",
    "KernelRegistration",
    "KernelRegistry",
    "LogicalDevice",
    "OpKernel",
    "OpKernelConstruction",
    "OpKernelContext",
    "PhysicalDevice",
    "create_kernel",
    "device_set",
    "get_device",
    "get_visible_devices",
    "global_kernel_registry",
    "list_logical_devices",
    "list_physical_devices",
    "register_device_factory",
    "register_kernel",
    "register_kernel_function",
    "set_visible_devices",
    "with_node_context",
]
