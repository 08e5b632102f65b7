"""The pass-through kernels every device has: Const, Placeholder(WithDefault), Identity, StopGradient, IdentityN, NoOp.

They compute nothing device-specific (a constant, a buffer passed through, nothing),
so they live in the runtime, as TensorFlow's common-runtime kernels do: the built-in
CPU kernels register them for CPU, and a pluggable or Python device registers them
for its own type (``register_device_agnostic_kernels``) so graphs need no copies to
the host around them. Copies between devices are not kernels here: the executor moves
values across partition edges itself (runtime/rendezvous.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from modtensor.framework import errors, tensor_proto
from modtensor.framework.protos import tensor_shape_pb2
from modtensor.runtime.allocator import aligned_empty
from modtensor.runtime.kernel_registry import KernelRegistration, KernelRegistry, global_kernel_registry
from modtensor.runtime.op_kernel import OpKernel, OpKernelConstruction, OpKernelContext

__all__ = [
    "DEVICE_AGNOSTIC_OPS",
    "PLUMBING_KERNELS",
    "ConstKernel",
    "IdentityKernel",
    "IdentityNKernel",
    "NoOpKernel",
    "PlaceholderKernel",
    "PlaceholderWithDefaultKernel",
    "register_device_agnostic_kernels",
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


PLUMBING_KERNELS: dict[str, type[OpKernel]] = {
    "Const": ConstKernel,
    "Placeholder": PlaceholderKernel,
    "PlaceholderWithDefault": PlaceholderWithDefaultKernel,
    "Identity": IdentityKernel,
    "StopGradient": IdentityKernel,
    "IdentityN": IdentityNKernel,
    "NoOp": NoOpKernel,
}
# Const is not among them: its value must be put on the device (a pluggable device registers its own Const).
DEVICE_AGNOSTIC_OPS = ("Placeholder", "PlaceholderWithDefault", "Identity", "StopGradient", "IdentityN", "NoOp")


def register_device_agnostic_kernels(
    device_type: str, registry: KernelRegistry | None = None
) -> list[KernelRegistration]:
    """Register the kernels that only pass values through (Identity, NoOp, ...) for ``device_type``.

    TensorFlow registers these for every device; a pluggable device calls this so graphs
    need no copies to CPU for them. Returns the registrations (for rollback).
    """
    target = registry if registry is not None else global_kernel_registry()
    return [target.register(op, device_type, PLUMBING_KERNELS[op], source=SOURCE) for op in DEVICE_AGNOSTIC_OPS]
