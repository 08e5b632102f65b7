"""Which value types the runtime's DEFAULT kernels keep in host memory on every device.

TensorFlow registers its DEVICE_DEFAULT pass-through and control-flow kernels with
HostMemory for int32 (shapes, loop counters), string and resource values; modtensor
keeps variant values (TensorLists, datasets) host-side too, as Python objects.
"""

from __future__ import annotations

from modtensor.framework.protos import types_pb2

__all__ = ["HOST_MEMORY_TYPES", "device_memory_types"]

HOST_MEMORY_TYPES = (types_pb2.DT_INT32, types_pb2.DT_STRING, types_pb2.DT_RESOURCE, types_pb2.DT_VARIANT)


def device_memory_types() -> list[int]:
    """Every non-reference DataType except the host-memory ones."""
    return [
        value
        for value in types_pb2.DataType.values()
        if value not in HOST_MEMORY_TYPES and value != types_pb2.DT_INVALID and value < 100
    ]
