"""Static shape inference for new graph nodes, with the constant and partial-shape facts TF supplies.

For each input of a node the refiner hands the shape function three things, as
TensorFlow's ShapeRefiner does: the input's static shape; its value when it is a
small constant (a ``Const``, a ``Shape``/``Size``/``Rank`` of a known shape, a
scalar ``StridedSlice`` of a ``Shape`` whose dim is known, or a few shape-computing
ops of such values, evaluated here with numpy); and, for int vectors, the partial
shape the value is known to describe (``Shape`` of a partially known shape, ``Pack``
of scalars some unknown, ``ConcatV2`` and simple ``StridedSlice`` of those, ``Cast``).
That is what gives ``Reshape(x, Pack([Shape(x)[0], -1, 64]))`` TF's static shape.

The evaluator knows only those shape-computing ops; it is no kernel library.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from modtensor.framework import dtypes, errors, tensor_proto, tensor_shape
from modtensor.framework.op_registry import global_registry
from modtensor.framework.shape_inference import InferenceContext, ShapeAndType, ShapeHandle, run_shape_fn

if TYPE_CHECKING:  # pragma: no cover
    from modtensor.framework.graph import Operation, SymbolicTensor

__all__ = [
    "HandleData",
    "constant_partial_shape",
    "constant_value",
    "infer_output_shapes",
    "infer_output_shapes_and_handle_data",
    "merge_shapes",
]

# A tensor's handle data as graphs keep it: ((shape, dtype), ...) per entry, None when it has none.
HandleData = tuple[tuple[tensor_shape.TensorShape, dtypes.DType], ...]

# Largest result (in elements) the evaluator computes from other constants.
MAX_EVALUATED_ELEMENTS = 1024
# Largest Const whose value shape functions see; bigger ones (weights) are never parsed here, which keeps
# graph building fast and memory flat. Shape-valued constants are far smaller.
MAX_CONST_ELEMENTS = 1 << 16

_INT_DTYPES = ("int32", "int64")


def merge_shapes(a: tensor_shape.TensorShape, b: tensor_shape.TensorShape) -> tensor_shape.TensorShape:
    """The merge of two compatible static shapes; ValueError with TF's message when they conflict."""
    try:
        merged = InferenceContext.merge(_handle(a), _handle(b))
    except errors.InvalidArgumentError as e:
        raise ValueError(e.message) from None
    return InferenceContext.to_tensor_shape(merged)


def _handle(shape: tensor_shape.TensorShape) -> ShapeHandle:
    return InferenceContext.make_shape_from_tensor_shape(shape)


def infer_output_shapes(op: Operation, unknown_inputs: frozenset[int] = frozenset()) -> list[tensor_shape.TensorShape]:
    """Run the registered shape function of ``op``; raises InvalidArgumentError with TF's context.

    Ops without a shape function (or not in the registry) get unknown output shapes. Inputs
    at ``unknown_inputs`` are taken as of unknown shape and value (a loop's back edge).
    """
    return infer_output_shapes_and_handle_data(op, unknown_inputs)[0]


def _handle_data_in(data: HandleData | None) -> list[ShapeAndType] | None:
    if data is None:
        return None
    return [ShapeAndType(_handle(shape), dtype.as_datatype_enum) for shape, dtype in data]


def _handle_data_out(data: list[ShapeAndType] | None) -> HandleData | None:
    if data is None:
        return None
    return tuple((InferenceContext.to_tensor_shape(e.shape), dtypes.as_dtype(e.dtype)) for e in data)


def infer_output_shapes_and_handle_data(
    op: Operation, unknown_inputs: frozenset[int] = frozenset()
) -> tuple[list[tensor_shape.TensorShape], list[HandleData | None]]:
    """:func:`infer_output_shapes`, plus each output's handle data (from its inputs' handle data, as in TF)."""
    registration = global_registry().lookup(op.type)
    shape_fn = registration.shape_fn if registration is not None else None
    inputs = op._inputs
    num_outputs = len(op._outputs)
    if shape_fn is None:
        return [tensor_shape.TensorShape(None) for _ in range(num_outputs)], [None] * num_outputs
    input_tensors = [None if i in unknown_inputs else constant_value(t) for i, t in enumerate(inputs)]
    as_shapes = [
        None if value is not None or i in unknown_inputs else constant_partial_shape(t)
        for i, (t, value) in enumerate(zip(inputs, input_tensors, strict=True))
    ]
    unknown = tensor_shape.TensorShape(None)
    ctx = InferenceContext(
        op._node_def,
        op.op_def,
        [unknown if i in unknown_inputs else t.shape for i, t in enumerate(inputs)],
        input_tensors,
        as_shapes,
        [None if i in unknown_inputs else _handle_data_in(t._handle_data) for i, t in enumerate(inputs)],
    )
    outputs = run_shape_fn(shape_fn, ctx)
    if len(outputs) != num_outputs:  # pragma: no cover - guarded by InferenceContext
        raise errors.InternalError(None, None, f"Shape function of {op.type} set {len(outputs)} outputs")
    shapes = [InferenceContext.to_tensor_shape(s) for s in outputs]
    return shapes, [_handle_data_out(ctx.output_handle_shapes_and_types(i)) for i in range(num_outputs)]


# ============================================================================ constants


def constant_value(tensor: SymbolicTensor) -> np.ndarray | None:
    """The value of ``tensor`` when it is a constant the refiner can compute, else None (memoized per op)."""
    op = tensor.op
    key = tensor.value_index
    cache = op._constant_cache
    if key in cache:
        return cache[key]
    cache[key] = None  # also stops any cycle through a malformed graph
    try:
        with np.errstate(all="raise"):
            value = _evaluate(op, key)
    except (ValueError, TypeError, IndexError, ArithmeticError, FloatingPointError, errors.OpError):
        value = None
    if value is not None:
        value = np.asarray(value)
        if op.type != "Const":
            if value.size > MAX_EVALUATED_ELEMENTS:
                value = None
            else:
                value = value.astype(tensor.dtype.as_numpy_dtype, copy=False)
    cache[key] = value
    return value


def _attr(op: Operation, name: str, default: Any = None) -> Any:
    value = op._get_attr_value(name)
    if value is None:
        return default
    kind = value.WhichOneof("value")
    if kind == "list":
        return list(value.list.i)
    return getattr(value, kind) if kind else default


def _inputs_constant(op: Operation) -> list[np.ndarray] | None:
    values = []
    for t in op._inputs:
        v = constant_value(t)
        if v is None:
            return None
        values.append(v)
    return values


def _shape_op_dims(op: Operation, index: int) -> list[int | None] | None:
    """The static shape whose Shape/ShapeN output ``index`` of ``op`` holds, or None."""
    if op.type == "Shape":
        source = op._inputs[0]
    elif op.type == "ShapeN":
        source = op._inputs[index]
    else:
        return None
    return None if source.shape.rank is None else source.shape.as_list()


def _evaluate(op: Operation, index: int) -> Any:
    kind = op.type
    if kind == "Const":
        proto = op._node_def.attr["value"].tensor
        if int(np.prod([d.size for d in proto.tensor_shape.dim], dtype=np.int64)) > MAX_CONST_ELEMENTS:
            return None
        return tensor_proto.make_ndarray(proto)
    if kind in ("Shape", "ShapeN"):
        dims = _shape_op_dims(op, index)
        return None if dims is None or None in dims else np.array(dims)
    if kind == "Size":
        shape = op._inputs[0].shape
        return np.array(shape.num_elements()) if shape.is_fully_defined() else None
    if kind == "Rank":
        rank = op._inputs[0].shape.rank
        return None if rank is None else np.array(rank)
    if kind == "StridedSlice":
        dim = _slice_of_partial_shape(op)
        if dim is not None:
            return np.array(dim)
    fn = _EVALUATORS.get(kind)
    if fn is None:
        return None
    values = _inputs_constant(op)
    if values is None:
        return None
    return fn(op, values, index)


def _slice_of_partial_shape(op: Operation) -> int | None:
    """``Shape(x)[i]`` (a scalar StridedSlice) when dim i of x is known though x's shape is not."""
    source = op._inputs[0]
    dims = _shape_op_dims(source.op, source.value_index)
    if dims is None or _attr(op, "shrink_axis_mask", 0) != 1:
        return None
    if any(_attr(op, m, 0) for m in ("ellipsis_mask", "new_axis_mask")):
        return None
    begin, strides = constant_value(op._inputs[1]), constant_value(op._inputs[3])
    if begin is None or strides is None or begin.shape != (1,) or strides.shape != (1,) or strides[0] == 0:
        return None
    i = int(begin[0])
    if _attr(op, "begin_mask", 0) & 1:
        i = 0 if strides[0] > 0 else -1
    if not -len(dims) <= i < len(dims):
        return None
    return dims[i]


def _strided_slice(op: Operation, values: list[np.ndarray], index: int) -> Any:
    x, begin, end, strides = values
    begin_mask, end_mask = _attr(op, "begin_mask", 0), _attr(op, "end_mask", 0)
    ellipsis_mask, new_axis_mask = _attr(op, "ellipsis_mask", 0), _attr(op, "new_axis_mask", 0)
    shrink_mask = _attr(op, "shrink_axis_mask", 0)
    key: list[Any] = []
    for i in range(len(begin)):
        bit = 1 << i
        if ellipsis_mask & bit:
            key.append(Ellipsis)
        elif new_axis_mask & bit:
            key.append(np.newaxis)
        elif shrink_mask & bit:
            key.append(int(begin[i]))
        else:
            start = None if begin_mask & bit else int(begin[i])
            stop = None if end_mask & bit else int(end[i])
            key.append(slice(start, stop, int(strides[i])))
    return x[tuple(key)]


def _reduce(fn: Callable[..., Any]) -> Callable[[Operation, list[np.ndarray], int], Any]:
    def evaluate(op: Operation, values: list[np.ndarray], index: int) -> Any:
        x, axis = values
        axes = tuple(int(a) for a in np.atleast_1d(axis))
        return fn(x, axis=axes, keepdims=bool(_attr(op, "keep_dims", False)))

    return evaluate


def _binary(fn: Callable[[Any, Any], Any]) -> Callable[[Operation, list[np.ndarray], int], Any]:
    def evaluate(op: Operation, values: list[np.ndarray], index: int) -> Any:
        x, y = values
        return fn(x, y)

    return evaluate


def _slice(op: Operation, values: list[np.ndarray], index: int) -> Any:
    x, begin, size = values
    key = tuple(slice(int(b), None if int(s) == -1 else int(b) + int(s)) for b, s in zip(begin, size, strict=True))
    return x[key]


def _squeeze(op: Operation, values: list[np.ndarray], index: int) -> Any:
    dims = _attr(op, "squeeze_dims", [])
    return np.squeeze(values[0], axis=tuple(dims)) if dims else np.squeeze(values[0])


def _cast(op: Operation, values: list[np.ndarray], index: int) -> Any:
    return values[0].astype(op._outputs[0].dtype.as_numpy_dtype)


def _int_division_ok(x: np.ndarray, y: np.ndarray) -> bool:
    return not (np.issubdtype(np.asarray(y).dtype, np.integer) and np.any(np.asarray(y) == 0))


def _floor_div(x: np.ndarray, y: np.ndarray) -> Any:
    return np.floor_divide(x, y) if _int_division_ok(x, y) else None


def _floor_mod(x: np.ndarray, y: np.ndarray) -> Any:
    return np.mod(x, y) if _int_division_ok(x, y) else None


_EVALUATORS: dict[str, Callable[[Operation, list[np.ndarray], int], Any]] = {
    "Identity": lambda op, v, i: v[0],
    "StopGradient": lambda op, v, i: v[0],
    "Snapshot": lambda op, v, i: v[0],
    "Cast": _cast,
    "Pack": lambda op, v, i: np.stack(v, axis=_attr(op, "axis", 0)),
    "ConcatV2": lambda op, v, i: np.concatenate(v[:-1], axis=int(v[-1])),
    "Concat": lambda op, v, i: np.concatenate(v[1:], axis=int(v[0])),
    "StridedSlice": _strided_slice,
    "Slice": _slice,
    "GatherV2": lambda op, v, i: np.take(v[0], v[1], axis=int(v[2])) if _attr(op, "batch_dims", 0) == 0 else None,
    "ExpandDims": lambda op, v, i: np.expand_dims(v[0], int(v[1])),
    "Squeeze": _squeeze,
    "Reshape": lambda op, v, i: v[0].reshape([int(d) for d in np.atleast_1d(v[1])]),
    "Fill": lambda op, v, i: np.full([int(d) for d in v[0]], v[1]) if np.prod(v[0]) <= MAX_EVALUATED_ELEMENTS else None,
    "Range": lambda op, v, i: np.arange(v[0], v[1], v[2]),
    "Add": _binary(np.add),
    "AddV2": _binary(np.add),
    "Sub": _binary(np.subtract),
    "Mul": _binary(np.multiply),
    "RealDiv": _binary(lambda x, y: np.true_divide(x, y) if np.asarray(x).dtype.kind == "f" else None),
    "Floor": lambda op, v, i: np.floor(v[0]),
    "FloorDiv": _binary(_floor_div),
    "FloorMod": _binary(_floor_mod),
    "Maximum": _binary(np.maximum),
    "Minimum": _binary(np.minimum),
    "Greater": _binary(np.greater),  # tf.math.bincount's "size > 0"
    "SelectV2": lambda op, v, i: np.where(v[0], v[1], v[2]),  # tf.linspace's axis
    "BroadcastArgs": lambda op, v, i: np.array(np.broadcast_shapes(tuple(v[0].tolist()), tuple(v[1].tolist())),
                                               v[0].dtype),  # fmt: skip
    "GreaterEqual": _binary(np.greater_equal),
    "Less": _binary(np.less),
    "LessEqual": _binary(np.less_equal),
    "Neg": lambda op, v, i: np.negative(v[0]),
    "Sum": _reduce(np.sum),
    "Prod": _reduce(np.prod),
    "Max": _reduce(np.max),
    "Min": _reduce(np.min),
}


# ============================================================================ partial shapes


def constant_partial_shape(tensor: SymbolicTensor) -> list[int | None] | None:
    """The partial shape an int32/int64 vector is known to hold (-1 entries of constants: unknown), else None.

    E.g. ``Shape(x)`` with x of shape (?, 10) -> ``[None, 10]``; ``Pack([Shape(x)[0], -1, 8])``
    -> ``[None, None, 8]``.
    """
    if tensor.dtype.name not in _INT_DTYPES or tensor.shape.rank not in (None, 1):
        return None
    try:
        return _partial_or_constant(tensor)
    except (ValueError, TypeError, IndexError, errors.OpError):
        return None


def _partial_or_constant(tensor: SymbolicTensor) -> list[int | None] | None:
    value = constant_value(tensor)
    if value is not None:
        if value.ndim != 1 or value.dtype.name not in _INT_DTYPES or np.any(value < -1):
            return None
        return [None if int(v) == -1 else int(v) for v in value]
    return _partial(tensor)


def _partial(tensor: SymbolicTensor) -> list[int | None] | None:
    op = tensor.op
    kind = op.type
    if kind in ("Shape", "ShapeN"):
        return _shape_op_dims(op, tensor.value_index)
    if kind == "Cast":
        source = op._inputs[0]
        return _partial_or_constant(source) if source.dtype.name in _INT_DTYPES else None
    if kind == "Pack":
        if _attr(op, "axis", 0) != 0:
            return None
        dims: list[int | None] = []
        for t in op._inputs:
            value = constant_value(t)
            if value is None or value.ndim != 0 or int(value) < 0:
                dims.append(None)
            else:
                dims.append(int(value))
        return dims
    if kind == "ConcatV2":
        result: list[int | None] = []
        for t in op._inputs[:-1]:
            part = _partial_or_constant(t)
            if part is None:
                if t.shape.rank == 1 and t.shape.as_list()[0] is not None:
                    part = [None] * t.shape.as_list()[0]
                else:
                    return None
            result.extend(part)
        return result
    if kind == "StridedSlice":
        return _partial_strided_slice(op)
    return None


def _partial_strided_slice(op: Operation) -> list[int | None] | None:
    if any(_attr(op, m, 0) for m in ("ellipsis_mask", "new_axis_mask", "shrink_axis_mask")):
        return None
    source = _partial_or_constant(op._inputs[0])
    if source is None:
        return None
    begin, end, strides = (constant_value(t) for t in op._inputs[1:4])
    if begin is None or end is None or strides is None:
        return None
    if begin.shape != (1,) or end.shape != (1,) or strides.shape != (1,) or int(strides[0]) == 0:
        return None
    start = None if _attr(op, "begin_mask", 0) & 1 else int(begin[0])
    stop = None if _attr(op, "end_mask", 0) & 1 else int(end[0])
    return source[slice(start, stop, int(strides[0]))]
