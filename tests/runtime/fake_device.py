"""A second device type for multi-device tests without an accelerator: ``TESTDEV``.

``TESTDEV`` keeps numpy arrays in what the runtime treats as device memory
(``is_host = False``), counts every copy through its copy interface, and gets
a few kernels: the pass-through ones, Const, float32 AddV2/Mul/MatMul/Relu, a
Reshape whose ``shape`` input is in host memory and a Shape whose output is, and
``ForwardingNeg`` (records whether it reused its input buffer). The
``testdev`` fixture registers it at TF's pluggable-device priority (above CPU)
and removes everything afterwards.
"""

from __future__ import annotations

import collections
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
import pytest

from modtensor.framework import device_spec
from modtensor.framework.op_registry import global_registry
from modtensor.kernels.cpu import OP_FUNCTIONS
from modtensor.runtime import device_factory
from modtensor.runtime.allocator import CPUAllocator
from modtensor.runtime.device import Device, DeviceAttributes
from modtensor.runtime.kernel_registry import KernelRegistration, global_kernel_registry
from modtensor.runtime.kernels.plumbing import ConstKernel
from modtensor.runtime.op_kernel import FunctionKernel, OpKernel, OpKernelContext

TESTDEV = "TESTDEV"
PLUGGABLE_PRIORITY = 220


class CountingDevice(Device):
    """A device whose memory is numpy arrays the runtime must copy in and out through this interface."""

    is_host = False

    def __init__(self, attributes: DeviceAttributes, counts: collections.Counter):
        super().__init__(attributes, CPUAllocator("testdev"))
        self.counts = counts

    def to_host(self, value):
        self.counts["to_host"] += 1
        return np.array(value, copy=True)

    def from_host(self, array):
        self.counts["from_host"] += 1
        return np.array(array, copy=True)

    def copy_to(self, value, dst):
        self.counts["copy_to"] += 1
        return super().copy_to(value, dst)


class CountingFactory(device_factory.DeviceFactory):
    """Two physical TESTDEV devices sharing one copy counter."""

    def __init__(self, counts: collections.Counter):
        self.counts = counts

    def list_physical_devices(self) -> list[str]:
        return ["/physical_device:TESTDEV:0", "/physical_device:TESTDEV:1"]

    def create_devices(self, physical_indices: Sequence[int], name_prefix: str) -> list[Device]:
        return [
            CountingDevice(
                DeviceAttributes(name=f"{name_prefix}/device:TESTDEV:{i}", device_type=TESTDEV, memory_limit=1 << 30),
                self.counts,
            )
            for i, _ in enumerate(physical_indices)
        ]


class ForwardingNeg(OpKernel):
    """Neg that writes into its input's buffer when the runtime lets it; records what happened."""

    forwarded: list[bool] = []

    def compute(self, ctx: OpKernelContext) -> None:
        shape = ctx.inputs[0].shape
        out, index = ctx.forward_input_or_allocate_output((0,), 0, shape)
        ForwardingNeg.forwarded.append(index == 0)
        np.negative(ctx.inputs[0], out=out)


@dataclass
class TestDev:
    """What the fixture hands a test: the copy counter and the kernel registrations it made."""

    counts: collections.Counter
    registrations: list[KernelRegistration] = field(default_factory=list)

    def devices(self) -> list[Device]:
        return device_factory.device_set().devices_of_type(TESTDEV)


def _function_kernel(op: str, **kwargs) -> KernelRegistration:
    return global_kernel_registry().register(
        op, TESTDEV, FunctionKernel.factory_for(OP_FUNCTIONS[op]), source="tests.testdev", **kwargs
    )


@pytest.fixture
def testdev() -> Iterator[TestDev]:
    """Register TESTDEV (2 devices, priority 220) and its kernels; undo it all afterwards."""
    global_registry()  # finalize the standard ops before kernels refer to them
    device_factory.reset_devices_for_testing(keep_factories=False)
    device_spec.register_short_device_type(TESTDEV)
    counts: collections.Counter = collections.Counter()
    factory = CountingFactory(counts)
    device_factory.register_device_factory(TESTDEV, factory, priority=PLUGGABLE_PRIORITY, source="tests.testdev")
    state = TestDev(counts)
    registry = global_kernel_registry()
    floats = {"T": ["float32"]}
    try:
        state.registrations.append(registry.register("Const", TESTDEV, ConstKernel, source="tests.testdev"))
        for op in ("AddV2", "Mul", "MatMul", "Relu"):
            state.registrations.append(_function_kernel(op, constraints=floats))
        state.registrations.append(_function_kernel("Reshape", host_memory=("shape",)))
        state.registrations.append(_function_kernel("Shape", host_memory=("output",)))
        state.registrations.append(
            registry.register("Neg", TESTDEV, ForwardingNeg, constraints=floats, source="tests.testdev")
        )
        ForwardingNeg.forwarded = []
        yield state
    finally:
        for reg in state.registrations:
            registry.remove(reg)
        device_factory.reset_devices_for_testing(keep_factories=False)
