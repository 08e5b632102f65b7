"""TensorFlow's Python operators on tensors: ``+ - * / // % ** @``, unary ``- abs ~``, ``& | ^``,
comparisons, ``==``/``!=`` and indexing, installed on ``framework.tensor.Tensor`` with ``_override_operator``.

Each operator does what TensorFlow's does, in both modes, through ``dispatch.apply_op``:
the same ops (``x / y`` on int32 casts both to float64 and runs RealDiv), the same
conversion of python operands (``x + 1.5`` converts 1.5 with x's dtype as a hint,
``1.5 - x`` requires x's dtype), the same node names in graphs (``add``, ``add/y``,
``truediv/Cast``, ``strided_slice/stack``). ``==`` is elementwise ``Equal`` eagerly and
in functions, object identity in v1 graphs. Indexing builds one ``StridedSlice`` from
ints, slices, ``...``, ``None`` and scalar integer tensors, as TF's ``_slice_helper``.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from modtensor.api import array_ops, constant_op, context, math_ops
from modtensor.api.dispatch import apply_op
from modtensor.framework import dtypes, op_def_library, tensor_shape
from modtensor.framework import graph as graph_lib
from modtensor.framework.graph import SymbolicTensor
from modtensor.framework.tensor import Tensor, tensor_like
from modtensor.runtime import context as runtime_context
from modtensor.runtime import eager
from modtensor.runtime.eager import EagerTensor

__all__ = ["install"]

_graph_stack = graph_lib._default_graph_stack
_eager_op = eager.apply_op_eager
_run_cached = eager.run_cached
_run_cached2 = eager.run_cached2
_run_python = eager.run_with_python_operand
_EQUALITY_ATTRS = eager.frozen_attrs(incompatible_shape_error=False)

# Dtypes for which an operator on two tensors of that dtype is exactly one op (no casts; no Add for strings).
_FLOATS = frozenset(
    {dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128}
)
_NUMBERS = _FLOATS | {dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8, dtypes.uint16}

# ============================================================================= conversion and scopes


def _executing_eagerly() -> bool:
    return runtime_context._eager_enabled and not _graph_stack()


def _graph_for(values: tuple[Any, ...]) -> graph_lib.Graph:
    """The graph new ops of these operands go into (the function being traced, else the operands')."""
    default = graph_lib.get_default_graph()
    if default.building_function:
        return default
    for v in values:
        if isinstance(v, SymbolicTensor):
            return v.graph
    return default


def _convert(value: Any, dtype: dtypes.DType | None = None, hint: dtypes.DType | None = None, name: str = "x") -> Any:
    """TF's ``ops.convert_to_tensor(value, dtype, dtype_hint=hint, name=name)`` in the current mode."""
    if _executing_eagerly():
        if not isinstance(value, Tensor) and getattr(type(value), "__tf_tensor__", None) is not None:
            value = tensor_like(value, dtype)  # a variable: its read (recorded on a tape), as convert_to_tensor
        if isinstance(value, Tensor):
            if isinstance(value, EagerTensor):
                return eager.convert_to_eager_tensor(value, dtype)
            return value
        if dtype is None and hint is not None:
            try:
                return eager.constant(value, dtype=hint)
            except (TypeError, ValueError):
                pass
        return eager.constant(value, dtype=dtype)
    return constant_op.convert_to_tensor(value, dtype=dtype, dtype_hint=hint, name=name)


def _binary(
    fn: Callable[[Any, Any, str], Any],
    scope_name: str,
    fast_op: str | None = None,
    fast_dtypes: frozenset[dtypes.DType] = frozenset(),
) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """``__op__`` and ``__rop__`` around ``fn(x, y, name)``, as TF's ``override_binary_operator_helper``.

    The graph path opens the ``scope_name`` name scope (nodes ``add``, ``add/y``); the
    reflected form first converts the other operand to the tensor's dtype (named ``x``).
    ``fast_op`` is the op ``fn`` runs for two eager tensors of one dtype in ``fast_dtypes``:
    a cached kernel for it is called directly (the hot path of eager code).
    """

    # DTypes are interned: membership by id skips DType.__hash__/__eq__, which are Python code.
    fast_ids = frozenset(id(d) for d in fast_dtypes)

    def binary_op(x: Any, y: Any) -> Any:
        if (
            type(x) is EagerTensor
            and type(y) is EagerTensor
            and x._dtype is y._dtype
            and id(x._dtype) in fast_ids
            and runtime_context._eager_enabled
            and not _graph_stack()
        ):
            out = _run_cached2(fast_op, x, y, "")  # type: ignore[arg-type]
            if out is not None:
                return out
        elif (
            type(x) is EagerTensor
            and (type(y) is float or type(y) is int)
            and id(x._dtype) in fast_ids
            and runtime_context._eager_enabled
            and not _graph_stack()
        ):
            out = _run_python(fast_op, x, y, False, "")  # type: ignore[arg-type]
            if out is not None:
                return out
        if _executing_eagerly():
            return _try_reflected(fn, x, y, "", scope_name)
        with _graph_for((x, y)).name_scope(scope_name) as scope:
            return _try_reflected(fn, x, y, scope, scope_name)

    def reflected_op(y: Any, x: Any) -> Any:
        if (
            (type(x) is float or type(x) is int)
            and type(y) is EagerTensor
            and id(y._dtype) in fast_ids
            and runtime_context._eager_enabled
            and not _graph_stack()
        ):
            out = _run_python(fast_op, y, x, True, "")  # type: ignore[arg-type]
            if out is not None:
                return out
        if _executing_eagerly():
            return fn(_convert(x, dtype=y.dtype.base_dtype), y, "")
        with _graph_for((x, y)).name_scope(scope_name) as scope:
            return fn(_convert(x, dtype=y.dtype.base_dtype, name="x"), y, scope)

    binary_op.__name__ = f"__{scope_name}__"
    reflected_op.__name__ = f"__r{scope_name}__"
    binary_op.__doc__ = reflected_op.__doc__ = fn.__doc__
    return binary_op, reflected_op


def _try_reflected(fn: Callable[[Any, Any, str], Any], x: Any, y: Any, name: str, op_name: str) -> Any:
    """``fn(x, y)``; when that fails with TypeError/ValueError, a tensor-aware ``y`` may handle ``__rop__``."""
    try:
        return fn(x, y, name)
    except (TypeError, ValueError) as error:
        r_op = getattr(type(y), f"__r{op_name}__", None)
        if r_op is None or isinstance(y, (Tensor, numbers.Number, str, bytes, list, tuple, np.ndarray, np.generic)):
            raise
        try:
            out = r_op(y, x)
        except (TypeError, ValueError):
            raise error from None
        if out is NotImplemented:
            raise
        return out


# ============================================================================= arithmetic


def _add(x: Any, y: Any, name: str) -> Any:
    """TF's ``_add_dispatch``: ``y`` converted with x's dtype as a hint; AddV2, or Add for strings."""
    if type(y) is not EagerTensor and not isinstance(y, Tensor):
        y = _convert(y, hint=x.dtype.base_dtype, name="y")
    if x.dtype == dtypes.string:
        return apply_op("Add", name=name, x=x, y=y)
    return apply_op("AddV2", name=name, x=x, y=y)


def _sub(x: Any, y: Any, name: str) -> Any:
    """Sub (python operands take the tensor operand's dtype)."""
    return apply_op("Sub", name=name, x=x, y=y)


def _mul(x: Any, y: Any, name: str) -> Any:
    """Mul; bool operands are multiplied as int32 and cast back, as TF's ``_mul_dispatch_factory``."""
    if (isinstance(x, Tensor) and x.dtype == dtypes.bool) or (isinstance(y, Tensor) and y.dtype == dtypes.bool):
        product = apply_op(
            "Mul",
            name=name,
            x=apply_op("Cast", x=x, DstT=dtypes.int32),
            y=apply_op("Cast", x=y, DstT=dtypes.int32),
        )
        return apply_op("Cast", x=product, DstT=dtypes.bool)
    return apply_op("Mul", name=name, x=x, y=y)


def _truediv(x: Any, y: Any, name: str) -> Any:
    """TF's ``_truediv_python3``: same dtypes required; integers are cast to float (int32 -> float64)."""
    x = _convert(x, name="x")
    y = _convert(y, hint=x.dtype.base_dtype, name="y")
    x_dtype, y_dtype = x.dtype.base_dtype, y.dtype.base_dtype
    if x_dtype != y_dtype:
        raise TypeError(f"`x` and `y` must have the same dtype, got {x_dtype!r} != {y_dtype!r}.")
    dtype = math_ops.truediv_dtype(x_dtype)
    if dtype is not None:
        x = apply_op("Cast", x=x, DstT=dtype)
        y = apply_op("Cast", x=y, DstT=dtype)
    return apply_op("RealDiv", name=name, x=x, y=y)


def _floordiv(x: Any, y: Any, name: str) -> Any:
    """FloorDiv (rounds toward negative infinity, as Python's ``//``)."""
    return apply_op("FloorDiv", name=name, x=x, y=y)


def _mod(x: Any, y: Any, name: str) -> Any:
    """FloorMod (the result has the divisor's sign, as Python's ``%``)."""
    return apply_op("FloorMod", name=name, x=x, y=y)


def _pow(x: Any, y: Any, name: str) -> Any:
    """Pow."""
    return apply_op("Pow", name=name, x=x, y=y)


def _matmul(a: Any, b: Any, name: str) -> Any:
    """MatMul for matrices, BatchMatMulV2 when an operand has rank > 2 (or unknown), as TF's ``matmul``."""
    a = _convert(a, name="a")
    b = _convert(b, hint=a.dtype.base_dtype, name="b")
    a_rank, b_rank = a.shape.rank, b.shape.rank
    if a_rank is None or b_rank is None or a_rank > 2 or b_rank > 2:
        return apply_op("BatchMatMulV2", name=name, x=a, y=b)
    return apply_op("MatMul", name=name, a=a, b=b)


# ============================================================================= logical / bitwise


def _and(x: Any, y: Any, name: str) -> Any:
    """LogicalAnd for bool tensors, else BitwiseAnd."""
    if x.dtype == dtypes.bool:
        return apply_op("LogicalAnd", name=name, x=x, y=y)
    return apply_op("BitwiseAnd", x=x, y=y)  # unnamed, as TF: the node is <scope>/BitwiseAnd


def _or(x: Any, y: Any, name: str) -> Any:
    """LogicalOr for bool tensors, else BitwiseOr."""
    if x.dtype == dtypes.bool:
        return apply_op("LogicalOr", name=name, x=x, y=y)
    return apply_op("BitwiseOr", x=x, y=y)  # unnamed, as TF: the node is <scope>/BitwiseOr


def _xor(x: Any, y: Any, name: str) -> Any:
    """TF's logical_xor for bool tensors, ``(x | y) & ~(x & y)``; else BitwiseXor."""
    if x.dtype == dtypes.bool:
        either = apply_op("LogicalOr", x=x, y=y)
        both = apply_op("LogicalAnd", x=x, y=y)
        return apply_op("LogicalAnd", name=name, x=either, y=apply_op("LogicalNot", x=both))
    return apply_op("BitwiseXor", x=x, y=y)  # unnamed, as TF: the node is <scope>/BitwiseXor


def _invert(x: Any) -> Any:
    """``~x``: LogicalNot for bool tensors, else Invert (bitwise)."""
    if x.dtype == dtypes.bool:
        return apply_op("LogicalNot", x=x)
    return apply_op("Invert", x=x)


def _neg(x: Any) -> Any:
    """``-x``: Neg."""
    if type(x) is EagerTensor and _executing_eagerly():
        out = _run_cached("Neg", (), (x,), None)
        return out if out is not None else _eager_op("Neg", None, {"x": x})
    return apply_op("Neg", x=x)


def _abs(x: Any) -> Any:
    """``abs(x)``: Abs (ComplexAbs for complex tensors)."""
    if x.dtype.is_complex:
        return apply_op("ComplexAbs", x=x, Tout=x.dtype.real_dtype)
    return apply_op("Abs", x=x)


# ============================================================================= comparisons


def _comparison(op_type: str) -> Callable[[Any, Any], Any]:
    def compare(x: Any, y: Any) -> Any:
        if type(x) is EagerTensor and _executing_eagerly():
            if type(y) is EagerTensor:
                out = _run_cached2(op_type, x, y, None)
                if out is not None:
                    return out
            return _eager_op(op_type, None, {"x": x, "y": y})
        return apply_op(op_type, x=x, y=y)

    compare.__name__ = op_type
    compare.__doc__ = f"Elementwise {op_type} (a bool tensor)."
    return compare


def _eq(self: Any, other: Any) -> Any:
    """Elementwise Equal eagerly and in functions (False when shapes do not broadcast); identity in v1 graphs."""
    if other is None:
        return False
    if type(self) is EagerTensor and type(other) is EagerTensor and _executing_eagerly():
        out = _run_cached("Equal", _EQUALITY_ATTRS, (self, other), None)
        if out is not None:
            return out
    graph = self.graph if isinstance(self, SymbolicTensor) else None
    if context.executing_eagerly_outside_functions() and (graph is None or graph.building_function):
        return apply_op("Equal", x=self, y=other, incompatible_shape_error=False)
    return self is other


def _ne(self: Any, other: Any) -> Any:
    """Elementwise NotEqual eagerly and in functions (True when shapes do not broadcast); identity in v1 graphs."""
    if other is None:
        return True
    if context.executing_eagerly_outside_functions():
        return apply_op("NotEqual", x=self, y=other, incompatible_shape_error=False)
    return self is not other


# ============================================================================= indexing

_SLICE_TYPE_ERROR = (
    "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar tf.int32/tf.int64 tensors are "
    "valid indices"
)
_INDEX_DTYPES = (dtypes.int16, dtypes.int32, dtypes.int64)


def _check_index(index: Any) -> None:
    if isinstance(index, (numbers.Integral, tensor_shape.Dimension)):
        return
    dtype = getattr(index, "dtype", None)
    if dtype is None or dtypes.as_dtype(dtype) not in _INDEX_DTYPES or (index.shape and len(index.shape) == 1):
        raise TypeError(f"{_SLICE_TYPE_ERROR}, got {index!r}")


def _index_value(index: Any) -> Any:
    """An index as TF stacks it: python ints stay, Dimensions become ints, tensors stay tensors."""
    if isinstance(index, tensor_shape.Dimension):
        return index.value
    if isinstance(index, Tensor):
        return index
    return int(index)


def _spec_key(slice_spec: Any) -> tuple[Any, ...] | None:
    """A hashable form of a slice spec made only of python ints, slices of ints, ``...`` and ``None``; else None."""
    kind = type(slice_spec)
    if kind is int:
        return (slice_spec,)
    if kind is slice:
        start, stop, step = slice_spec.start, slice_spec.stop, slice_spec.step
        if (
            (start is None or type(start) is int)
            and (stop is None or type(stop) is int)
            and (step is None or type(step) is int)
        ):
            return ((start, stop, step),)
        return None
    items = slice_spec if kind is tuple else (slice_spec,)
    key: list[Any] = []
    for s in items:
        kind = type(s)
        if kind is int:
            key.append(s)
        elif kind is slice:
            start, stop, step = s.start, s.stop, s.step
            if not all(v is None or type(v) is int for v in (start, stop, step)):
                return None
            key.append((start, stop, step))
        elif s is None or s is Ellipsis:
            key.append(s)
        else:
            return None
    return tuple(key)


# Python-only slice specs -> (op kwargs, attr key, [begin, end, strides]): eager code indexes in loops with few specs.
_EAGER_SPECS: dict[tuple[Any, ...], tuple[dict[str, Any], tuple[Any, ...], list[Any]]] = {}
_MAX_EAGER_SPECS = 4096
_STRIDED_SLICE_NAME = "strided_slice/"
_INDEX_SIG: list[int] = []  # the signature of an int32 index input, computed on first use
_run_cached_values = eager.run_cached_values


def _eager_getitem(tensor: EagerTensor, key: tuple[Any, ...], slice_spec: Any) -> Any:
    found = _EAGER_SPECS.get(key)
    if found is None:
        begin, end, strides, masks = _parse_slice_spec(slice_spec)
        packed = _eager_indices(begin, end, strides)
        for array in packed.values():
            array.flags.writeable = False  # shared by every call with this spec
        if len(_EAGER_SPECS) >= _MAX_EAGER_SPECS:
            _EAGER_SPECS.clear()
        found = _EAGER_SPECS[key] = (
            {**packed, **masks},
            eager.frozen_attrs(**masks),
            [packed["begin"], packed["end"], packed["strides"]],
        )
    kwargs, attr_items, indices = found
    if not _INDEX_SIG:
        _INDEX_SIG.append(eager.signature(dtypes.int32))
    index_sig = _INDEX_SIG[0]
    out = _run_cached_values(
        "StridedSlice",
        attr_items,
        (tensor._sig, index_sig, index_sig, index_sig),
        [tensor._value, *indices],
        _STRIDED_SLICE_NAME,
    )
    if out is not None:
        return out
    return _eager_op("StridedSlice", _STRIDED_SLICE_NAME, {"input": tensor, **kwargs})


def _slice_bound_dtype(s: slice) -> dtypes.DType | None:
    """The dtype TF gives a slice's default bounds when a bound is a tensor: int64 over int32 over int16."""
    dtype = None
    for t in (s.start, s.stop, s.step):
        if not isinstance(t, Tensor):
            continue
        if t.dtype == dtypes.int64:
            dtype = dtypes.int64
        elif t.dtype == dtypes.int32 and dtype != dtypes.int64:
            dtype = dtypes.int32
        elif t.dtype == dtypes.int16 and dtype is None:
            dtype = dtypes.int16
    return dtype


def _parse_slice_spec(slice_spec: Any) -> tuple[list[Any], list[Any], list[Any], dict[str, int]]:
    """begin, end, strides (python ints or index tensors) and the five masks of a slice spec (TF's rules)."""
    if not isinstance(slice_spec, (list, tuple)):
        slice_spec = [slice_spec]
    begin: list[Any] = []
    end: list[Any] = []
    strides: list[Any] = []
    new_axis_mask = shrink_axis_mask = begin_mask = end_mask = ellipsis_mask = 0
    for index, s in enumerate(slice_spec):
        if isinstance(s, slice):
            dtype = _slice_bound_dtype(s)
            for part, out, default, mask_bit in (
                (s.start, begin, 0, "begin"),
                (s.stop, end, 0, "end"),
                (s.step, strides, 1, None),
            ):
                if part is not None and not (isinstance(part, tensor_shape.Dimension) and part.value is None):
                    _check_index(part)
                    out.append(_index_value(part))
                else:  # as TF: a default next to a tensor bound is a constant of the bound's dtype
                    out.append(default if dtype is None else constant_op.constant(default, dtype=dtype))
                    if mask_bit == "begin":
                        begin_mask |= 1 << index
                    elif mask_bit == "end":
                        end_mask |= 1 << index
        elif s is Ellipsis:
            begin.append(0)
            end.append(0)
            strides.append(1)
            ellipsis_mask |= 1 << index
        elif s is None:
            begin.append(0)
            end.append(0)
            strides.append(1)
            new_axis_mask |= 1 << index
        else:
            _check_index(s)
            value = _index_value(s)
            begin.append(value)
            end.append(value + 1)
            wide = isinstance(s, Tensor) and s.dtype in (dtypes.int16, dtypes.int64)
            strides.append(constant_op.constant(1, dtype=s.dtype) if wide else 1)
            shrink_axis_mask |= 1 << index
    masks = {
        "begin_mask": begin_mask,
        "end_mask": end_mask,
        "ellipsis_mask": ellipsis_mask,
        "new_axis_mask": new_axis_mask,
        "shrink_axis_mask": shrink_axis_mask,
    }
    return begin, end, strides, masks


def _getitem(tensor: Any, slice_spec: Any) -> Any:
    """``tensor[slice_spec]``: one StridedSlice with begin/end/strides and masks, as TF's ``_slice_helper``."""
    if type(tensor) is EagerTensor and _executing_eagerly():
        key = _spec_key(slice_spec)
        if key is not None:
            return _eager_getitem(tensor, key, slice_spec)
    if (
        isinstance(slice_spec, bool)
        or (isinstance(slice_spec, Tensor) and slice_spec.dtype == dtypes.bool)
        or (isinstance(slice_spec, np.ndarray) and slice_spec.dtype == bool)
    ):
        return array_ops.boolean_mask(tensor=tensor, mask=slice_spec)  # as TF's _slice_helper
    begin, end, strides, masks = _parse_slice_spec(slice_spec)
    if _executing_eagerly():
        packed = _eager_indices(begin, end, strides)
        return apply_op("StridedSlice", name="strided_slice/", input=tensor, **packed, **masks)
    with _graph_for((tensor, *begin, *end, *strides)).name_scope("strided_slice") as scope:
        packed = _graph_indices(begin, end, strides)
        return apply_op("StridedSlice", name=scope, input=tensor, **packed, **masks)


def _index_dtype(values: list[Any]) -> np.dtype:
    """int64 when any index tensor is int64 (TF casts the packed indices), else int32."""
    for v in values:
        if isinstance(v, Tensor) and v.dtype == dtypes.int64:
            return np.dtype(np.int64)
    return np.dtype(np.int32)


def _eager_indices(begin: list[Any], end: list[Any], strides: list[Any]) -> dict[str, Any]:
    """begin/end/strides as host arrays (scalar index tensors read as ints: the same values TF packs)."""
    dtype = _index_dtype(begin + end + strides)
    return {
        "begin": np.array([int(v) for v in begin], dtype=dtype),
        "end": np.array([int(v) for v in end], dtype=dtype),
        "strides": np.array([int(v) for v in strides], dtype=dtype),
    }


def _graph_indices(begin: list[Any], end: list[Any], strides: list[Any]) -> dict[str, Any]:
    """begin/end/strides as graph tensors named ``stack``, ``stack_1``, ``stack_2`` (Const, or Pack with tensors)."""
    if not begin:
        empty = op_def_library.constant(np.zeros(0, np.int32), name="Const")
        return {"begin": empty, "end": empty, "strides": empty}
    dtype = _index_dtype(begin + end + strides)
    packed = []
    for values in (begin, end, strides):
        if any(isinstance(v, Tensor) for v in values):
            items = [
                v
                if isinstance(v, Tensor) and v.dtype.base_dtype == dtype
                else (apply_op("Cast", x=v, DstT=dtype) if isinstance(v, Tensor) else np.array(v, dtype=dtype))
                for v in values
            ]
            packed.append(apply_op("Pack", name="stack", values=items, axis=0))
        else:
            packed.append(op_def_library.constant(np.array(values, dtype=dtype), name="stack"))
    return {"begin": packed[0], "end": packed[1], "strides": packed[2]}


# ============================================================================= installation

_installed = False


def install() -> None:
    """Install every operator on ``Tensor`` (idempotent; ``import modtensor`` does it)."""
    global _installed
    if _installed:
        return
    for scope_name, fn, fast_op, fast_dtypes in (
        ("add", _add, "AddV2", _NUMBERS),
        ("sub", _sub, "Sub", _NUMBERS),
        ("mul", _mul, "Mul", _NUMBERS),
        ("truediv", _truediv, "RealDiv", _FLOATS),
        ("floordiv", _floordiv, "FloorDiv", _NUMBERS),
        ("mod", _mod, "FloorMod", _NUMBERS),
        ("pow", _pow, "Pow", _NUMBERS),
        ("matmul", _matmul, None, frozenset()),
        ("and", _and, None, frozenset()),
        ("or", _or, None, frozenset()),
        ("xor", _xor, None, frozenset()),
    ):
        forward, reflected = _binary(fn, scope_name, fast_op, fast_dtypes)
        Tensor._override_operator(f"__{scope_name}__", forward)
        Tensor._override_operator(f"__r{scope_name}__", reflected)
    Tensor._override_operator("__neg__", _neg)
    Tensor._override_operator("__abs__", _abs)
    Tensor._override_operator("__invert__", _invert)
    Tensor._override_operator("__lt__", _comparison("Less"))
    Tensor._override_operator("__le__", _comparison("LessEqual"))
    Tensor._override_operator("__gt__", _comparison("Greater"))
    Tensor._override_operator("__ge__", _comparison("GreaterEqual"))
    Tensor._override_operator("__eq__", _eq)
    Tensor._override_operator("__ne__", _ne)
    Tensor._override_operator("__getitem__", _getitem)
    _installed = True


install()
