"""Resource variables in the runtime: the ``Var`` resource and the device-agnostic variable kernels.

A ``Var`` holds one device value (``tensor``), its dtype, whether it was assigned, and
a lock. Reads hand out the value itself and writers replace it or, for in-place
updates, first copy it when anything else still references it (TF's copy-on-write:
a value once read never changes under its reader).

The kernels here only move values and handles, so they serve every device type:
they are registered for CPU and for ``DEFAULT`` (TF's DEVICE_DEFAULT, any device
type without a kernel of its own) with the resource in host memory:
VarHandleOp, ReadVariableOp, AssignVariableOp, VarIsInitializedOp, VariableShape,
DestroyResourceOp. Arithmetic updates (AssignAdd, the optimizers' ResourceApply*)
are per device: numpy ones in ``kernels/cpu``, a plugin's through the C API.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

import numpy as np

from modtensor.framework import dtypes, errors, tensor_shape
from modtensor.runtime import resource_mgr
from modtensor.runtime.kernel_registry import DEFAULT_DEVICE_TYPE, KernelRegistration, KernelRegistry
from modtensor.runtime.op_kernel import OpKernel, OpKernelConstruction, OpKernelContext
from modtensor.runtime.resource_mgr import ANONYMOUS_NAME, ResourceBase

__all__ = [
    "DEFAULT_DEVICE",
    "DEVICE_AGNOSTIC_OPS",
    "Var",
    "lookup_variable",
    "prepare_to_update",
    "register_variable_kernels",
    "variable_for_update",
]

DEFAULT_DEVICE = DEFAULT_DEVICE_TYPE  # TF's DEVICE_DEFAULT kernels serve device types without a kernel of their own
SOURCE = "modtensor.runtime.resource_variable"


class Var(ResourceBase):
    """TF's ``Var``: a variable's current value, its dtype, whether it was initialized, its lock."""

    type_name = "N10tensorflow3VarE"

    def __init__(self, dtype: dtypes.DType, debug_name: str = "", tensor: Any = None):
        self.dtype = dtype
        self.tensor: Any = tensor
        self.is_initialized = False
        self.debug_name = debug_name
        self.mu = threading.RLock()
        self.copy_on_read_mode = False

    @property
    def shape(self) -> tuple[int, ...] | None:
        """The value's shape (None before the first assignment)."""
        return None if self.tensor is None else tuple(self.tensor.shape)

    def debug_string(self) -> str:
        """TF's Var::DebugString: ``float/[2,3]``."""
        dims = "<unknown>" if self.tensor is None else "[" + ",".join(str(d) for d in self.tensor.shape) + "]"
        return f"{self.dtype.name}/{dims}"

    def memory_used(self) -> int:
        """Bytes of the value (0 before assignment)."""
        value = self.tensor
        return 0 if value is None else int(getattr(value, "nbytes", 0))


def lookup_variable(ctx: OpKernelContext, index: int) -> Var:
    """The Var of resource input ``index``; FailedPreconditionError in TF's words when it does not exist."""
    handle = resource_mgr.handle_from_input(ctx, index)
    try:
        return resource_mgr.lookup_resource(ctx, handle, Var)
    except errors.NotFoundError as exc:
        raise _not_found(handle, exc) from None


def _not_found(handle: resource_mgr.ResourceHandle, exc: errors.OpError) -> errors.FailedPreconditionError:
    return errors.FailedPreconditionError(
        None,
        None,
        f"Could not find variable {handle.name}. This could mean that the variable has been deleted. In TF1, it can "
        f"also mean the variable is uninitialized. Debug info: container={handle.container}, status error "
        f"message={exc.message}",
    )


def _initialized_value(var: Var, handle_name: str) -> Any:
    if var.tensor is None:
        raise errors.FailedPreconditionError(
            None,
            None,
            f"Could not find variable {handle_name}. This could mean that the variable has been deleted. In TF1, "
            "it can also mean the variable is uninitialized. Debug info: the variable was never assigned",
        )
    return var.tensor


def variable_for_update(ctx: OpKernelContext, index: int) -> Var:
    """The initialized Var of resource input ``index`` (an update needs a value to update)."""
    var = lookup_variable(ctx, index)
    if var.tensor is None:
        handle = resource_mgr.handle_from_input(ctx, index)
        raise _not_found(
            handle, errors.NotFoundError(None, None, f"Resource {handle.container}/{handle.name} is uninitialized.")
        )
    return var


def prepare_to_update(ctx: OpKernelContext, var: Var) -> Any:
    """Make ``var.tensor`` safe to write in place (TF's PrepareToUpdateVariable); returns it. Hold ``var.mu``.

    The value is copied first when anything else references it (a read's output, the
    tensor it was assigned from) or it does not own writable memory.
    """
    value = var.tensor
    # References: var.tensor, the local `value`, getrefcount's argument.
    if sys.getrefcount(value) > 3 or not ctx.device.buffer_is_exclusive(value):
        value = np.array(value, copy=True) if isinstance(value, np.ndarray) else ctx.device.copy_to(value, ctx.device)
        var.tensor = value
    return value


# ----------------------------------------------------------------------------- kernels


class VarHandleOpKernel(OpKernel):
    """VarHandleOp: a handle to the variable ``container``/``shared_name`` (made once per kernel), or, for
    TF's anonymous name, a new variable owned by the handle on every call (eager variables)."""

    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        self._dtype = ctx.get_attr("dtype")
        shape = ctx.get_attr("shape")
        self._shape = tensor_shape.TensorShape(shape)
        self._container = ctx.get_attr("container").decode("utf-8")
        self._name = ctx.get_attr("shared_name").decode("utf-8")
        self._debug_name = ctx.get_attr("debug_name").decode("utf-8")
        self._handle_value = None
        if self._name != ANONYMOUS_NAME:
            manager = resource_mgr.manager_for(ctx.device, resource_mgr.current_session_managers())
            name = self._name or ctx.name  # TF1 graphs: an empty shared_name means the node's name
            handle = resource_mgr.make_handle(
                ctx.device, self._container, name, Var, ((self._dtype, self._shape),), manager=manager
            )
            self._handle_value = resource_mgr.handle_tensor(handle)

    def compute(self, ctx: OpKernelContext) -> None:
        """Output the handle."""
        if self._handle_value is not None:
            ctx.outputs[0] = self._handle_value
            return
        # TF's Var starts with an empty [0] tensor of its dtype: reading it before assignment gives that.
        empty = np.empty((0,), dtype=self._dtype.as_numpy_dtype) if self._dtype.is_numpy_compatible else None
        if empty is not None and not ctx.device.is_host:
            empty = ctx.device.from_host(empty)
        var = Var(self._dtype, self._debug_name, empty)
        handle = resource_mgr.make_handle(
            ctx.device,
            self._container,
            ANONYMOUS_NAME,
            Var,
            ((self._dtype, self._shape),),
            debug_name=self._debug_name,
            resource=var,
        )
        ctx.outputs[0] = resource_mgr.handle_tensor(handle)


class ReadVariableOpKernel(OpKernel):
    """ReadVariableOp: the variable's value (the same buffer; writers copy before changing a read value)."""

    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        self._dtype = ctx.get_attr("dtype")

    def compute(self, ctx: OpKernelContext) -> None:
        """Output the current value."""
        var = lookup_variable(ctx, 0)
        with var.mu:
            if var.dtype != self._dtype:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Trying to read variable with wrong dtype. Expected {self._dtype.cpp_name} got "
                    f"{var.dtype.cpp_name}",
                )
            value = _initialized_value(var, resource_mgr.handle_from_input(ctx, 0).name)
            if var.copy_on_read_mode:
                value = np.array(value, copy=True) if isinstance(value, np.ndarray) else ctx.device.copy_to(
                    value, ctx.device
                )
            ctx.outputs[0] = value


class AssignVariableOpKernel(OpKernel):
    """AssignVariableOp: the variable takes the value (created on first assignment; dtype and, with
    ``validate_shape``, shape must match)."""

    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        self._dtype = ctx.get_attr("dtype")
        self._validate_shape = bool(ctx.get_attr("validate_shape"))

    def compute(self, ctx: OpKernelContext) -> None:
        """Store the value."""
        handle = resource_mgr.handle_from_input(ctx, 0)
        value = ctx.inputs[1]
        dtype = self._dtype
        var = resource_mgr.lookup_or_create(ctx, handle, Var, lambda: Var(dtype))
        with var.mu:
            if var.dtype != dtype:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Trying to assign variable with wrong dtype. Expected {var.dtype.cpp_name} got {dtype.cpp_name}",
                )
            if self._validate_shape and var.tensor is not None and tuple(var.tensor.shape) != tuple(value.shape):
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Trying to assign to variable with tensor with wrong shape. Expected "
                    f"{_dims(var.tensor.shape)} got {_dims(value.shape)}",
                )
            var.tensor = value
            var.is_initialized = True


def _dims(shape: Any) -> str:
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


class VarIsInitializedOpKernel(OpKernel):
    """VarIsInitializedOp: whether the variable exists and was assigned."""

    def compute(self, ctx: OpKernelContext) -> None:
        """Output a bool scalar."""
        try:
            var = lookup_variable(ctx, 0)
        except errors.OpError:
            ctx.outputs[0] = np.array(False)
            return
        ctx.outputs[0] = np.array(bool(var.is_initialized))


class VariableShapeKernel(OpKernel):
    """VariableShape: the shape of the variable's value as a vector of ``out_type``."""

    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        self._np = ctx.get_attr("out_type").as_numpy_dtype

    def compute(self, ctx: OpKernelContext) -> None:
        """Output the shape."""
        var = lookup_variable(ctx, 0)
        with var.mu:
            value = _initialized_value(var, resource_mgr.handle_from_input(ctx, 0).name)
            ctx.outputs[0] = np.array(value.shape, dtype=self._np)


class DestroyResourceOpKernel(OpKernel):
    """DestroyResourceOp: remove the resource from its manager (a no-op for a handle owning its resource)."""

    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        self._ignore = bool(ctx.get_attr("ignore_lookup_error"))

    def compute(self, ctx: OpKernelContext) -> None:
        """Delete the resource."""
        handle = resource_mgr.handle_from_input(ctx, 0)
        try:
            resource_mgr.delete_resource(ctx, handle)
        except errors.NotFoundError:
            if not self._ignore:
                raise


# TF 2.21's DEFAULT kernels: VarHandleOp for TF_CALL_GPU_ALL_TYPES + int64, variant, uint32 and the other
# small integers (not int32: TF keeps int32 variables in host memory), AssignVariableOp for every type.
_DEVICE_VARIABLE_TYPES = ["half", "bfloat16", "float32", "float64", "complex64", "complex128", "bool", "int8",
                          "uint8", "int16", "uint16", "uint32", "int64", "uint64", "variant"]  # fmt: skip
_ASSIGN_TYPES = [*_DEVICE_VARIABLE_TYPES, "int32", "string", "resource", "qint8", "quint8", "qint32"]

# (op, kernel class, HostMemory args on devices other than CPU, DEFAULT type constraints)
_KERNELS: tuple[tuple[str, type[OpKernel], tuple[str, ...], dict[str, list[str]] | None], ...] = (
    ("VarHandleOp", VarHandleOpKernel, ("resource",), {"dtype": _DEVICE_VARIABLE_TYPES}),
    ("ReadVariableOp", ReadVariableOpKernel, ("resource",), None),
    ("AssignVariableOp", AssignVariableOpKernel, ("resource",), {"dtype": _ASSIGN_TYPES}),
    ("VarIsInitializedOp", VarIsInitializedOpKernel, ("resource", "is_initialized"), None),
    ("VariableShape", VariableShapeKernel, ("input", "output"), {"out_type": ["int32", "int64"]}),
    ("DestroyResourceOp", DestroyResourceOpKernel, ("resource",), None),
)


DEVICE_AGNOSTIC_OPS = tuple(op for op, _, _, _ in _KERNELS)


def register_variable_kernels(registry: KernelRegistry) -> list[KernelRegistration]:
    """Register the device-agnostic variable kernels for CPU and for DEFAULT (any other device type)."""
    regs = []
    for op, cls, host, constraints in _KERNELS:
        regs.append(registry.register(op, "CPU", cls, source=SOURCE))
        regs.append(
            registry.register(op, DEFAULT_DEVICE, cls, constraints=constraints, host_memory=host, source=SOURCE)
        )
    return regs
