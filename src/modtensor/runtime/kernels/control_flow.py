"""Kernels of the v1 control-flow ops: Switch, Merge, Enter, Exit, NextIteration, LoopCond, ControlTrigger.

Their computations are trivial - forward a value, pick the live input - because the
meaning lives in the executor: an unset Switch output is a *dead* value, an Enter's
output goes into a child frame, and so on (runtime/executor.py). They are registered
for device type DEFAULT, so every device runs them. As in TensorFlow, on a device that
is not the host the predicate, ``value_index`` and every int32 value (loop counters)
stay in host memory, and string/resource/variant values are host-side everywhere.
TF 2.21 also registers some of them for CPU; they stay DEFAULT-only here, as in the TF
2.15 that Intel's ITEX was built for, so a plugin's own CPU Enter/Exit/NextIteration
kernels serve CPU instead of meeting a same-priority duplicate.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.framework import errors
from modtensor.runtime.kernel_registry import DEFAULT_DEVICE_TYPE, KernelRegistration, KernelRegistry
from modtensor.runtime.kernels.memory_types import HOST_MEMORY_TYPES, device_memory_types
from modtensor.runtime.op_kernel import OpKernel, OpKernelContext

__all__ = ["register"]

SOURCE = "modtensor.runtime.kernels.control_flow"

class SwitchKernel(OpKernel):
    """Switch: the data goes to ``output_true`` when ``pred`` is true, else to ``output_false``; the other is dead."""

    allow_unset_outputs = True

    def compute(self, ctx: OpKernelContext) -> None:
        """Forward the data to the output the predicate picks."""
        pred = ctx.inputs[1]
        if np.ndim(pred) != 0:
            raise errors.InvalidArgumentError(
                self.node_def,
                None,
                f"The second input must be a scalar, but it has shape {_shape_text(pred)}",
            )
        ctx.outputs[1 if bool(np.asarray(pred)) else 0] = ctx.inputs[0]


class MergeKernel(OpKernel):
    """Merge: forwards its (first) live input and that input's index; the executor runs it on the first one."""

    def compute(self, ctx: OpKernelContext) -> None:
        """Output the live input and its index as an int32 scalar."""
        for index, value in enumerate(ctx.inputs):
            if value is not None:
                ctx.outputs[0] = value
                ctx.outputs[1] = np.asarray(index, dtype=np.int32)
                return
        raise errors.InternalError(self.node_def, None, f"Merge '{self.name}' ran without a live input")


class ForwardKernel(OpKernel):
    """Enter, Exit, NextIteration: output 0 is input 0 (the executor moves it between frames and iterations)."""

    def compute(self, ctx: OpKernelContext) -> None:
        """Pass the value through."""
        ctx.outputs[0] = ctx.inputs[0]


class LoopCondKernel(OpKernel):
    """LoopCond: forwards the loop's boolean predicate (a scalar), which marks it for the partitioner."""

    def compute(self, ctx: OpKernelContext) -> None:
        """Check the predicate is a scalar and pass it on."""
        value = ctx.inputs[0]
        if np.ndim(value) != 0:
            raise errors.InvalidArgumentError(
                self.node_def, None, f"LoopCond's input must be a scalar boolean, but it has shape {_shape_text(value)}"
            )
        ctx.outputs[0] = value


class ControlTriggerKernel(OpKernel):
    """ControlTrigger: nothing to compute; the executor runs it even when its inputs are dead."""

    def compute(self, ctx: OpKernelContext) -> None:
        """Do nothing."""


def _shape_text(value: Any) -> str:
    return "[" + ",".join(str(d) for d in np.shape(value)) + "]"


def register(registry: KernelRegistry) -> list[KernelRegistration]:
    """Register the control-flow kernels for DEFAULT (host-memory forms for int32, string, resource, variant)."""
    regs: list[KernelRegistration] = []
    on_device = {"T": device_memory_types()}
    on_host = {"T": list(HOST_MEMORY_TYPES)}

    def add(op: str, kernel: type[OpKernel], constraints: dict | None, host_memory: tuple[str, ...]) -> None:
        regs.append(
            registry.register(
                op, DEFAULT_DEVICE_TYPE, kernel, constraints=constraints, host_memory=host_memory, source=SOURCE
            )
        )

    add("Switch", SwitchKernel, on_device, ("pred",))
    add("Switch", SwitchKernel, on_host, ("data", "pred", "output_false", "output_true"))
    add("Merge", MergeKernel, on_device, ("value_index",))
    add("Merge", MergeKernel, on_host, ("inputs", "output", "value_index"))
    for op in ("Enter", "Exit", "NextIteration"):
        add(op, ForwardKernel, on_device, ())
        add(op, ForwardKernel, on_host, ("data", "output"))
    add("LoopCond", LoopCondKernel, None, ("input", "output"))
    add("ControlTrigger", ControlTriggerKernel, None, ())
    return regs
