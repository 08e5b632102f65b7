"""What the shim asks of the runtime: the Python side of the callback table.

``_bridge`` calls these functions (by name; the list is in csrc/bridge/bridge.h)
from its C callbacks, with the GIL held. An exception raised here becomes the
TF_Status the plugin sees (``error_status`` picks its code and message), so
errors keep TensorFlow's classes on both sides of the boundary.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from modtensor.framework import dtypes, errors, tensor_proto
from modtensor.framework.protos import config_pb2, function_pb2
from modtensor.framework.shape_inference import DimensionHandle, InferenceContext, ShapeHandle
from modtensor.plugin.native.c_api import registry_query, tensor_from_proto
from modtensor.plugin.native.kernels import register_native_kernel
from modtensor.plugin.native.ops import register_native_op
from modtensor.plugin.native.variables import resource_handle_proto, variable_lock, variable_op
from modtensor.runtime.allocator import CPUAllocator, aligned_copy
from modtensor.runtime.op_kernel import OpKernelConstruction, OpKernelContext

__all__ = [
    "allocate_temp",
    "construction_attr",
    "construction_attr_tensors",
    "construction_node_def",
    "context_buffer",
    "dim_value",
    "error_status",
    "forward_or_allocate",
    "kernel_failure",
    "make_error",
    "numpy_dtype_table",
    "register_kernel",
    "register_op",
    "registry_query",
    "shape_attr",
    "shape_concatenate",
    "shape_dim",
    "shape_input",
    "shape_make",
    "shape_num_inputs",
    "shape_rank",
    "shape_set_output",
    "shape_set_unknown",
    "shape_subshape",
    "shape_with_rank",
    "strings_as_objects",
    "variable_lock",
    "variable_op",
    "tensor_from_proto",
]

# MT_CONTEXT_* and MT_RANK_* of csrc/shim/mt_internal.h.
_FUNCTION_LIBRARY, _CONFIG_PROTO, _RESOURCE_HANDLE = 0, 1, 2
_RANK_EXACTLY, _RANK_AT_LEAST, _RANK_AT_MOST = 0, 1, 2

register_op = register_native_op
register_kernel = register_native_kernel

# Allocations from this allocator class without statistics are plain np.empty, done in C by the bridge.
CPU_ALLOCATOR_TYPE = CPUAllocator


def numpy_dtype_table() -> list[Any]:
    """numpy dtype of every TF_DataType value (index = enum), None where there is no array form."""
    table: list[Any] = [None] * 64
    for enum in range(1, 64):
        try:
            dtype = dtypes.as_dtype(enum)
        except (TypeError, ValueError):
            continue
        if dtype.is_numpy_compatible:
            table[enum] = np.dtype(dtype.as_numpy_dtype)
    return table


# ---------------------------------------------------------------------- errors


def error_status(exc: BaseException) -> tuple[int, str]:
    """The TF_Status (code, message) for an exception raised inside the runtime."""
    if isinstance(exc, errors.OpError):
        return exc.error_code, exc.message
    if isinstance(exc, (ValueError, IndexError, TypeError)):
        return errors.INVALID_ARGUMENT, str(exc)
    return errors.INTERNAL, f"{type(exc).__name__}: {exc}"


def make_error(code: int, message: str) -> errors.OpError:
    """The OpError of a TF_Status a plugin reported."""
    return errors.exception_type_from_error_code(code)(None, None, message)


def kernel_failure(ctx: OpKernelContext, code: int, message: str) -> None:
    """Record a failure a C kernel reported (TF_OpKernelContext_Failure) on its context."""
    ctx.fail(ctx.op_kernel.plugin_error(code, message))


# ---------------------------------------------------------------------- kernel construction


def construction_attr(ctor: OpKernelConstruction, name: str) -> bytes:
    """Attr ``name`` of the node as a serialized AttrValue; NotFoundError naming the node if absent."""
    return ctor.get_attr_proto(name).SerializeToString()


def construction_node_def(ctor: OpKernelConstruction) -> bytes:
    """The node (with default attrs) as a serialized NodeDef."""
    return ctor.node_def.SerializeToString()


def _attr_kind(value: Any) -> str:
    """TensorFlow's name of what an AttrValue holds ("tensor", "list(int)", "list" when empty)."""
    which = value.WhichOneof("value")
    if which != "list":
        return str(which)
    for field, kind in (("s", "string"), ("i", "int"), ("f", "float"), ("b", "bool"), ("type", "type"),
                        ("shape", "shape"), ("tensor", "tensor"), ("func", "func")):  # fmt: skip
        if len(getattr(value.list, field)):
            return f"list({kind})"
    return "list"


def construction_attr_tensors(ctor: OpKernelConstruction, name: str, as_list: bool) -> list[tuple[np.ndarray, int]]:
    """The values of a ``tensor`` (or ``list(tensor)``) attr as (contiguous array, DataType enum) pairs."""
    value = ctor.get_attr_proto(name)
    kind = _attr_kind(value)
    expected = "list(tensor)" if as_list else "tensor"
    if kind not in (expected, "list" if as_list else expected):
        raise errors.InvalidArgumentError(
            None, None, f"AttrValue had value with type '{kind}' when '{expected}' expected\n\t for attr '{name}'"
        )
    protos = list(value.list.tensor) if as_list else [value.tensor]
    return [(aligned_copy(np.asarray(tensor_proto.make_ndarray(p))), int(p.dtype)) for p in protos]  # 0-d stays 0-d


# ---------------------------------------------------------------------- kernel calls


def allocate_temp(ctx: OpKernelContext, dtype: int, shape: tuple[int, ...], on_host: bool) -> Any:
    """TF_AllocateTemp: a scratch buffer from the device's (or the host) allocator."""
    return ctx.allocate_temp(dtypes.as_dtype(dtype).as_numpy_dtype, shape, host_memory=bool(on_host))


def forward_or_allocate(
    ctx: OpKernelContext, candidates: Sequence[int], output_index: int, shape: tuple[int, ...]
) -> tuple[Any, int]:
    """TF_ForwardInputOrAllocateOutput: reuse a candidate input's buffer when nothing else sees it."""
    return ctx.forward_input_or_allocate_output(list(candidates), output_index, shape)


def context_buffer(ctx: OpKernelContext, what: int, index: int) -> bytes:
    """Serialized protos a kernel may ask for: its function library, the session config, resource handles."""
    if what == _FUNCTION_LIBRARY:
        library = getattr(ctx.step, "function_library", None)
        return (library or function_pb2.FunctionDefLibrary()).SerializeToString()
    if what == _CONFIG_PROTO:
        config = getattr(ctx.step, "config_proto", None)
        return (config or config_pb2.ConfigProto()).SerializeToString()
    return resource_handle_proto(ctx, index)


def strings_as_objects(value: Any) -> np.ndarray:
    """A string tensor's value as a C-contiguous object array of bytes."""
    array = np.asarray(value)
    flat = [v if isinstance(v, bytes) else str(v).encode("utf-8") for v in array.reshape(-1).tolist()]
    out = np.empty(len(flat), dtype=object)
    out[:] = flat
    return out.reshape(array.shape)


# ---------------------------------------------------------------------- shape inference


def _shape(ctx: InferenceContext, shape: ShapeHandle | None) -> ShapeHandle:
    """A TF_ShapeHandle that was never set holds nothing: TensorFlow treats it as an unknown shape."""
    return ctx.unknown_shape() if shape is None else shape


def shape_num_inputs(ctx: InferenceContext) -> int:
    """TF_ShapeInferenceContextNumInputs."""
    return ctx.num_inputs()


def shape_input(ctx: InferenceContext, i: int) -> ShapeHandle:
    """TF_ShapeInferenceContextGetInput."""
    return ctx.input(i)


def shape_set_output(ctx: InferenceContext, i: int, shape: ShapeHandle | None) -> None:
    """TF_ShapeInferenceContextSetOutput; an out-of-range index is InvalidArgument, as in TensorFlow."""
    if not 0 <= i < ctx.num_outputs():
        raise errors.InvalidArgumentError(None, None, "output index out of range")
    ctx.set_output(i, _shape(ctx, shape))


def shape_make(ctx: InferenceContext, dims: tuple[int, ...]) -> ShapeHandle:
    """TF_ShapeInferenceContextScalar / VectorFromSize."""
    return ctx.make_shape(dims)


def shape_attr(ctx: InferenceContext, name: str) -> bytes:
    """Attr ``name`` of the node (or the OpDef default) as a serialized AttrValue."""
    attrs = ctx.node_def.attr
    if name in attrs:
        return attrs[name].SerializeToString()
    for attr_def in ctx.op_def.attr:
        if attr_def.name == name and attr_def.HasField("default_value"):
            return attr_def.default_value.SerializeToString()
    raise errors.NotFoundError(None, None, f"No attr named '{name}' in NodeDef:\n\t [[{{{{node {ctx.node_name}}}}}]]")


def shape_rank(shape: ShapeHandle | None) -> int:
    """TF_ShapeInferenceContextRank: -1 for an unknown rank."""
    return -1 if shape is None or shape.rank is None else shape.rank


def shape_with_rank(ctx: InferenceContext, shape: ShapeHandle | None, rank: int, mode: int) -> ShapeHandle:
    """TF_ShapeInferenceContextWithRank / WithRankAtLeast / WithRankAtMost."""
    check = {
        _RANK_EXACTLY: ctx.with_rank,
        _RANK_AT_LEAST: ctx.with_rank_at_least,
        _RANK_AT_MOST: ctx.with_rank_at_most,
    }[mode]
    return check(_shape(ctx, shape), rank)


def shape_dim(ctx: InferenceContext, shape: ShapeHandle | None, i: int) -> DimensionHandle:
    """TF_ShapeInferenceContextDim: an unknown dimension when ``i`` is out of range (as TensorFlow)."""
    if shape is None or shape.rank is None or not -shape.rank <= i < shape.rank:
        return ctx.unknown_dim()
    return ctx.dim(shape, i)


def dim_value(dim: DimensionHandle | None) -> int:
    """TF_DimensionHandleValue: -1 when unknown."""
    return -1 if dim is None or dim.value is None else dim.value


def shape_subshape(ctx: InferenceContext, shape: ShapeHandle | None, start: int, end: int) -> ShapeHandle:
    """TF_ShapeInferenceContextSubshape."""
    return ctx.subshape(_shape(ctx, shape), start, end)


def shape_concatenate(ctx: InferenceContext, a: ShapeHandle | None, b: ShapeHandle | None) -> ShapeHandle:
    """TF_ShapeInferenceContextConcatenateShapes."""
    return ctx.concatenate(_shape(ctx, a), _shape(ctx, b))


def shape_set_unknown(ctx: InferenceContext) -> None:
    """TF_ShapeInferenceContextSetUnknownShape: every output of unknown shape."""
    for i in range(ctx.num_outputs()):
        ctx.set_output(i, ctx.unknown_shape())
