"""The runtime's answers to c_api.h's registry questions and TF_TensorFromProto (called through the shim).

``TF_GetAllOpList`` gets every registered OpDef, ``TF_GetRegisteredKernelsForOp`` /
``TF_GetAllRegisteredKernels`` the KernelDefs of the one kernel registry (built-in, Python
and native kernels alike), ``TF_OpIsStateful`` the op's ``is_stateful`` flag (InvalidArgument
for an unknown op, as TensorFlow's lookup), and ``TF_TensorFromProto`` the tensor of a
serialized TensorProto.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.framework import errors, tensor_proto
from modtensor.framework.op_registry import global_registry
from modtensor.framework.protos import op_def_pb2, tensor_pb2
from modtensor.plugin.native.kernel_def import serialize_kernel_list
from modtensor.runtime.kernel_registry import global_kernel_registry

__all__ = ["registry_query", "tensor_from_proto"]

# MT_QUERY_* of csrc/shim/mt_internal.h.
QUERY_OP_LIST, QUERY_KERNEL_LIST, QUERY_OP_IS_STATEFUL = 0, 1, 2


def _op_list() -> bytes:
    registry = global_registry()
    ops = op_def_pb2.OpList()
    for name in registry.names():
        ops.op.add().CopyFrom(registry.get(name).op_def)
    return ops.SerializeToString()


def _kernel_list(op: str | None) -> bytes:
    registry = global_kernel_registry()
    names = registry.ops() if op is None else [op]
    return serialize_kernel_list([r.kernel_def for name in names for r in registry.kernels_for_op(name)])


def _is_stateful(op: str) -> bytes:
    registration = global_registry().lookup(op)
    if registration is None:
        raise errors.NotFoundError(None, None, f"Op type not registered '{op}'")
    return b"1" if registration.op_def.is_stateful else b"0"


def registry_query(what: int, name: str | None) -> bytes:
    """The serialized answer to one registry question (``MT_QUERY_*``)."""
    if what == QUERY_OP_LIST:
        return _op_list()
    if what == QUERY_KERNEL_LIST:
        return _kernel_list(name)
    if what == QUERY_OP_IS_STATEFUL:
        return _is_stateful(name or "")
    raise errors.InternalError(None, None, f"unknown registry question {what}")


def tensor_from_proto(data: bytes) -> tuple[Any, int]:
    """A serialized TensorProto as (contiguous, 64-byte aligned array, DataType enum); InvalidArgument if bad."""
    from modtensor.runtime.allocator import aligned_copy

    proto = tensor_pb2.TensorProto()
    try:
        proto.ParseFromString(data)
        array = tensor_proto.make_ndarray(proto)
    except Exception as e:  # protobuf's DecodeError, or contents that do not match dtype and shape
        raise errors.InvalidArgumentError(None, None, "Could not parse input proto") from e
    return aligned_copy(np.asarray(array, order="C")), int(proto.dtype)
