"""A pluggable-style device for front-end tests: type FAKE at priority 220, non-numpy buffers, an AddV2 kernel."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import pytest

from modtensor.framework import dtypes
from modtensor.runtime import device_factory, eager
from modtensor.runtime.allocator import CPUAllocator
from modtensor.runtime.device import Device, DeviceAttributes
from modtensor.runtime.device_factory import DeviceFactory
from modtensor.runtime.kernel_registry import global_kernel_registry
from modtensor.runtime.op_kernel import OpKernel, OpKernelContext


class FakeBuffer:
    """A device value that is not a numpy array (as a pluggable device's buffers are)."""

    def __init__(self, array: np.ndarray):
        self.array = array
        self.shape = array.shape
        self.dtype = array.dtype


class FakeDevice(Device):
    """A non-host device whose memory is FakeBuffers; counts the copies made to and from it."""

    is_host = False
    copies_in = 0
    copies_out = 0

    def to_host(self, value: FakeBuffer) -> np.ndarray:
        FakeDevice.copies_out += 1
        return value.array

    def from_host(self, array: np.ndarray) -> FakeBuffer:
        FakeDevice.copies_in += 1
        return FakeBuffer(np.array(array))

    def buffer_is_exclusive(self, value: object) -> bool:
        return False


class FakeFactory(DeviceFactory):
    def list_physical_devices(self) -> list[str]:
        return ["/physical_device:FAKE:0"]

    def create_devices(self, physical_indices: Sequence[int], name_prefix: str) -> list[Device]:
        return [
            FakeDevice(DeviceAttributes(f"{name_prefix}/device:FAKE:{i}", "FAKE", 1 << 20), CPUAllocator("fake"))
            for i, _ in enumerate(physical_indices)
        ]


class FakeAdd(OpKernel):
    """AddV2 on the fake device, float32 only."""

    def compute(self, ctx: OpKernelContext) -> None:
        ctx.set_output(0, FakeBuffer(ctx.input(0).array + ctx.input(1).array))


@pytest.fixture
def fake_device() -> Iterator[None]:
    """A FAKE device type at a priority above CPU (as a plugin's), with an AddV2 kernel; removed afterwards."""
    device_factory.reset_devices_for_testing(keep_factories=True)
    eager.clear_kernel_cache()
    factory = FakeFactory()
    device_factory.register_device_factory("FAKE", factory, priority=220, source="test_eager")
    registration = global_kernel_registry().register(
        "AddV2", "FAKE", FakeAdd, constraints={"T": [dtypes.float32]}, source="test_eager"
    )
    FakeDevice.copies_in = FakeDevice.copies_out = 0
    yield
    global_kernel_registry().remove(registration)
    device_factory.unregister_device_factory("FAKE", factory)
    device_factory.reset_devices_for_testing(keep_factories=True)
    eager.clear_kernel_cache()
