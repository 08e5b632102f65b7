"""The pass-through kernels every device has: Const, Placeholder(WithDefault), Identity, StopGradient, IdentityN, NoOp.

They compute nothing device-specific (a constant, a buffer passed through, nothing),
so they live in the runtime and are registered for device type DEFAULT, as TensorFlow
2.21 registers them (DEVICE_DEFAULT): every device - CPU, a pluggable device, a Python
device - has them without registering anything, and a device's own kernel for one of
these ops wins over the DEFAULT one instead of meeting a same-priority duplicate. The
built-in CPU kernels add CPU registrations exactly where TF has them (``CPU_OPS``); TF
has none for NoOp and IdentityN, so a plugin's CPU NoOp (ITEX registers one) serves CPU.
Copies between devices are not kernels here: the executor moves values across partition
edges itself (runtime/rendezvous.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from modtensor.framework import errors, tensor_proto
from modtensor.framework.protos import tensor_shape_pb2, types_pb2
from modtensor.runtime.allocator import aligned_empty
from modtensor.runtime.kernel_registry import DEFAULT_DEVICE_TYPE, KernelRegistration, KernelRegistry
from modtensor.runtime.kernels.memory_types import HOST_MEMORY_TYPES, device_memory_types
from modtensor.runtime.op_kernel import OpKernel, OpKernelConstruction, OpKernelContext

__all__ = [
    "CPU_OPS",
    "ConstKernel",
    "DeviceConstKernel",
    "IdentityKernel",
    "IdentityNKernel",
    "NoOpKernel",
    "PlaceholderKernel",
    "PlaceholderWithDefaultKernel",
    "register",
]

SOURCE = "modtensor.runtime.kernels.plumbing"


class ConstKernel(OpKernel):
    """Const: the ``value`` attr decoded once at construction and output read-only on every call."""

    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        proto = ctx.get_attr_proto("value").tensor
        try:
            value = tensor_proto.make_ndarray(proto)
        except (TypeError, ValueError) as exc:
            raise errors.InvalidArgumentError(ctx.node_def, None, f"Unable to parse tensor proto: {exc}") from exc
        expected = ctx.output_types[0]
        if proto.dtype != expected.as_datatype_enum:
            got = ctx.output_types[0].__class__(proto.dtype).cpp_name
            raise errors.InvalidArgumentError(
                ctx.node_def, None, f"Type mismatch between value ({got}) and dtype ({expected.cpp_name})"
            )
        owned = aligned_empty(np.shape(value), np.asarray(value).dtype)  # TF's 64-byte alignment, for C kernels
        np.copyto(owned, value)  # own the buffer, so read-only is final
        value = owned
        value.flags.writeable = False
        self._value = value

    def compute(self, ctx: OpKernelContext) -> None:
        """Output the constant (a read-only array: never forwarded or written in place)."""
        ctx.outputs[0] = self._value

    def prepared_call(self) -> Callable[[], np.ndarray] | None:
        """``call() -> value`` for a host executor's direct-call path (no kernel context per run); None for
        subclasses that compute differently."""
        if type(self).compute is not ConstKernel.compute:
            return None
        value = self._value
        return lambda: value


def _shape_text(shape: tensor_shape_pb2.TensorShapeProto) -> str:
    return "[" + ",".join("?" if d.size < 0 else str(d.size) for d in shape.dim) + "]"


class PlaceholderKernel(OpKernel):
    """Placeholder: running it means nobody fed it, which is TF's InvalidArgumentError."""

    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        shape = ctx.get_attr_proto("shape").shape
        where = f"You must feed a value for placeholder tensor '{ctx.name}' with dtype {ctx.output_types[0].cpp_name}"
        if not shape.unknown_rank and len(shape.dim) > 0:
            where += f" and shape {_shape_text(shape)}"
        self._message = where

    def compute(self, ctx: OpKernelContext) -> None:
        """Fail: a fed placeholder is replaced by the executor and never computed."""
        ctx.fail(errors.InvalidArgumentError(self.node_def, None, self._message))


class IdentityKernel(OpKernel):
    """Identity, StopGradient, PlaceholderWithDefault: output 0 is input 0 (same buffer)."""

    def compute(self, ctx: OpKernelContext) -> None:
        """Pass the input through."""
        ctx.outputs[0] = ctx.inputs[0]

    def prepared_call(self) -> Callable[[Any], Any] | None:
        """``call(x) -> x`` for a host executor's direct-call path (the buffer passes through unchanged); None
        for subclasses that compute differently and for non-array types (resources, variants), which the
        direct path would wrap in an array."""
        if type(self).compute is not IdentityKernel.compute or self._expected_np[0] is None:
            return None
        return _pass_through


def _pass_through(x: Any) -> Any:
    return x


PlaceholderWithDefaultKernel = IdentityKernel


class IdentityNKernel(OpKernel):
    """IdentityN: each output is the matching input."""

    def compute(self, ctx: OpKernelContext) -> None:
        """Pass every input through."""
        ctx.outputs[:] = ctx.inputs


class NoOpKernel(OpKernel):
    """NoOp: nothing to do (used for control dependencies)."""

    def compute(self, ctx: OpKernelContext) -> None:
        """Do nothing."""


class DeviceConstKernel(ConstKernel):
    """Const on any device but CPU: the value is put on the device at the first call, then the same buffer."""

    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        self._device_value: Any = None

    def compute(self, ctx: OpKernelContext) -> None:
        """Output the device copy of the constant (made once; a race makes two equal copies, both valid)."""
        if self._device_value is None:
            self._device_value = ctx.device.from_host(self._value)
        ctx.outputs[0] = self._device_value


# The ops whose kernels TF 2.21 also registers for CPU (``kernels/cpu`` registers these classes there).
CPU_OPS: dict[str, type[OpKernel]] = {
    "Const": ConstKernel,
    "Placeholder": PlaceholderKernel,
    "PlaceholderWithDefault": PlaceholderWithDefaultKernel,
    "Identity": IdentityKernel,
    "StopGradient": IdentityKernel,
}


_TYPE_ATTR = {"Const": "dtype", "PlaceholderWithDefault": "dtype"}


def register(registry: KernelRegistry) -> list[KernelRegistration]:
    """Register the pass-through kernels for DEFAULT into ``registry`` with TF 2.21's memory types.

    Identity, StopGradient and PlaceholderWithDefault keep int32, string, resource and
    variant values in host memory (``memory_types``); Const's int32 and variant outputs are
    host memory and its other types are copied to the device; Placeholder, IdentityN and NoOp take any type.
    """
    regs: list[KernelRegistration] = []

    def add(op: str, kernel: type[OpKernel], types: list[int] | None = None, host_memory: tuple[str, ...] = ()) -> None:
        constraints = None if types is None else {_TYPE_ATTR.get(op, "T"): types}
        regs.append(
            registry.register(
                op, DEFAULT_DEVICE_TYPE, kernel, constraints=constraints, host_memory=host_memory, source=SOURCE
            )
        )

    on_device, on_host = device_memory_types(), list(HOST_MEMORY_TYPES)
    for op in ("Identity", "StopGradient", "PlaceholderWithDefault"):
        add(op, IdentityKernel, on_device)
        add(op, IdentityKernel, on_host, ("input", "output"))
    add("Const", DeviceConstKernel, on_device)
    add("Const", ConstKernel, [types_pb2.DT_INT32, types_pb2.DT_VARIANT], ("output",))
    add("Placeholder", PlaceholderKernel)
    add("IdentityN", IdentityNKernel)
    add("NoOp", NoOpKernel)
    return regs
