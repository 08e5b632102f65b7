"""The runtime's side of the variable functions of ``kernels_experimental.h`` (called through the C bridge).

``variable_op`` does the bookkeeping of ``TF_AssignVariable``, ``TF_AssignUpdateVariable``,
``TF_GetInputTensorFromVariable`` and the sparse access of
``TF_MaybeLockVariableInputMutexesInOrder``: find (or create) the ``Var`` of a resource input,
check dtypes and shapes with TF's texts, and decide copy-on-write. When the variable's
buffer is shared (a read still holds it) or does not own writable memory, a fresh buffer is
allocated from the kernel's device and made the variable's value; the shim then copies the
old buffer into it with the plugin's own ``copyFunc`` (on the device, on its stream) before
the plugin writes. ``variable_lock`` takes the variables' locks in one global order.

Each returns values with their ``DataType`` enum, which the bridge turns into TF_Tensors
over the same memory (numpy arrays or pluggable-device buffers).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from modtensor.framework import dtypes, errors
from modtensor.framework.protos import types_pb2
from modtensor.runtime import resource_mgr
from modtensor.runtime.op_kernel import OpKernelContext
from modtensor.runtime.resource_variable import Var

__all__ = ["VariableLock", "resource_handle_proto", "variable_lock", "variable_op"]

# MT_VAR_* and MT_VARF_* of csrc/shim/mt_internal.h.
ASSIGN, UPDATE, INPUT, SPARSE_ACCESS = 0, 1, 2, 3
LOCK_HELD, SPARSE, VALIDATE_SHAPE, VARIANT = 1, 2, 4, 8

Result = tuple[Any, Any, Any, Any]


class VariableLock:
    """Locks of some variables, taken in one global order (TF's VariableInputLockHolder); ``release`` once."""

    __slots__ = ("_held",)

    def __init__(self, variables: Sequence[Var]):
        held: list[Var] = []
        try:
            for var in sorted({id(v): v for v in variables}.values(), key=id):
                var.mu.acquire()
                held.append(var)
        except BaseException:
            for var in reversed(held):
                var.mu.release()
            raise
        self._held = held

    def release(self) -> None:
        """Release every lock (later calls do nothing)."""
        held, self._held = self._held, []
        for var in reversed(held):
            var.mu.release()


def _dims(shape: Any) -> str:
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


def _pair(value: Any, dtype: dtypes.DType) -> tuple[Any, int]:
    return value, dtype.as_datatype_enum


def _lookup(ctx: OpKernelContext, index: int) -> Var:
    return resource_mgr.lookup_resource(ctx, resource_mgr.handle_from_input(ctx, index), Var)


def _shared(ctx: OpKernelContext, var: Var) -> bool:
    """True when the plugin must not write the value in place: someone else holds it, or it is not contiguous,
    writable memory of its own."""
    value = var.tensor
    # References: var.tensor, the local `value`, getrefcount's argument.
    if sys.getrefcount(value) > 3 or not ctx.device.buffer_is_exclusive(value):
        return True
    return isinstance(value, np.ndarray) and not value.flags.c_contiguous


def _fresh_copy_target(ctx: OpKernelContext, var: Var) -> tuple[Any, Any]:
    """(new buffer now holding the variable's value slot, old value to copy from): TF's copy-on-write."""
    old = var.tensor
    fresh = ctx.allocate_temp(var.dtype.as_numpy_dtype, tuple(old.shape))
    var.tensor = fresh
    return fresh, old


def _prepare(ctx: OpKernelContext, var: Var, sparse: bool) -> Any:
    """The copy source when the value must be copied before the plugin writes it, else None.

    Dense access copies a shared value (TF's PrepareToUpdateVariable); sparse access also
    switches the variable to copy-on-read mode (TF's EnsureSparseVariableAccess), so later
    reads copy instead of the plugin's sparse writes copying the whole variable.
    """
    if sparse and var.copy_on_read_mode:
        return None
    source = None
    if var.copy_on_read_mode or _shared(ctx, var):
        _, source = _fresh_copy_target(ctx, var)
    if sparse:
        var.copy_on_read_mode = True
    return source


def variable_op(ctx: OpKernelContext, what: int, index: int, value_index: int, flags: int) -> Result:
    """See the module docstring; returns ((tensor, dtype) | None) * 3 and the lock the caller must release."""
    if what == ASSIGN:
        return _assign(ctx, index, value_index, bool(flags & VALIDATE_SHAPE))
    var = _lookup(ctx, index)
    take_lock = what in (UPDATE, SPARSE_ACCESS) or not flags & LOCK_HELD
    lock = VariableLock([var]) if take_lock else None
    try:
        if var.tensor is None:
            name = resource_mgr.handle_from_input(ctx, index).name
            raise errors.FailedPreconditionError(None, None, f"Attempting to use uninitialized variables: {name}")
        if what == UPDATE:
            value = ctx.inputs[value_index]
            if tuple(var.tensor.shape) != tuple(value.shape):
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Cannot update variable with shape {_dims(var.tensor.shape)} using a Tensor with shape "
                    f"{_dims(value.shape)}, shapes must be equal.",
                )
            source = _prepare(ctx, var, sparse=False)
            value_dtype = ctx.op_kernel.input_types[value_index].base_dtype
            return (_pair(var.tensor, var.dtype), _copy_source(source, var), _pair(value, value_dtype), lock)
        source = _prepare(ctx, var, sparse=bool(flags & SPARSE))
        return (_pair(var.tensor, var.dtype), _copy_source(source, var), None, lock)
    except BaseException:
        if lock is not None:
            lock.release()
        raise


def _copy_source(source: Any, var: Var) -> tuple[Any, int] | None:
    return None if source is None else _pair(source, var.dtype)


def _assign(ctx: OpKernelContext, index: int, value_index: int, validate_shape: bool) -> Result:
    handle = resource_mgr.handle_from_input(ctx, index)
    value = ctx.inputs[value_index]
    dtype = ctx.op_kernel.input_types[value_index].base_dtype
    var = resource_mgr.lookup_or_create(ctx, handle, Var, lambda: Var(dtype))
    lock = VariableLock([var])
    try:
        if var.dtype != dtype:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Trying to assign variable with wrong dtype. Expected {var.dtype.cpp_name} got {dtype.cpp_name}",
            )
        if validate_shape and var.is_initialized and tuple(var.tensor.shape) != tuple(value.shape):
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Trying to assign to variable with tensor with wrong shape. Expected {_dims(var.tensor.shape)} "
                f"got {_dims(value.shape)}",
            )
        var.is_initialized = True
        if var.copy_on_read_mode:  # sparse writers update in place: the variable gets its own copy of value
            var.tensor = ctx.allocate_temp(dtype.as_numpy_dtype, tuple(value.shape))
            return (_pair(var.tensor, dtype), _pair(value, dtype), None, lock)
        var.tensor = value
        lock.release()
        return (None, None, None, None)
    except BaseException:
        lock.release()
        raise


def variable_lock(ctx: OpKernelContext, inputs: Sequence[int]) -> VariableLock:
    """Lock the variables of the resource inputs listed (others are ignored), in one global order."""
    variables = []
    for index in inputs:
        if 0 <= index < len(ctx.inputs) and ctx.op_kernel.input_types[index].base_dtype == dtypes.resource:
            variables.append(_lookup(ctx, index))
    return VariableLock(variables)


def resource_handle_proto(ctx: OpKernelContext, index: int) -> bytes:
    """TF_GetSerializedResourceHandleProto: the handle of resource input ``index`` as a ResourceHandleProto."""
    if ctx.op_kernel.input_types[index].as_datatype_enum != types_pb2.DT_RESOURCE:
        raise errors.InvalidArgumentError(
            None, None, f"Input {index} of '{ctx.op_kernel.name}' is not a resource (it is "
            f"{ctx.op_kernel.input_types[index].name})"
        )  # fmt: skip
    return resource_mgr.handle_from_input(ctx, index).to_proto().SerializeToString()
