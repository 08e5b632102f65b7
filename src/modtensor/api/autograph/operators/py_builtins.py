"""Python builtins as converted code calls them: TensorFlow's version on tensors, Python's otherwise.

``converted_call`` routes a builtin to its overload here (``overload_of``): ``abs``,
``float``, ``int``, ``len``, ``print``, ``range``, ``sorted``, ``enumerate``, ``zip``,
``map``, ``filter``, ``any``, ``all``, ``next``, as TensorFlow's AutoGraph. ``range`` with a
tensor argument is ``tf.range`` (so ``for i in range(n)`` over a tensor ``n`` is a staged
loop); ``len`` of a tensor is its static first dimension when known, else ``tf.shape(x)[0]``.
``eval``, ``super``, ``locals`` and ``globals`` run in the frame of the converted
function they were called from.
"""

from __future__ import annotations

import builtins
import inspect
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from modtensor.api import array_ops, math_ops
from modtensor.api.autograph import origins
from modtensor.api.autograph.operators import datasets
from modtensor.api.autograph.operators.staging import tf_api
from modtensor.api.autograph.operators.variables import Undefined
from modtensor.framework import dtypes
from modtensor.framework.tensor import Tensor

__all__ = [
    "BUILTIN_FUNCTIONS_MAP",
    "SUPPORTED_BUILTINS",
    "UNSPECIFIED",
    "abs_",
    "eval_in_original_context",
    "float_",
    "globals_in_original_context",
    "int_",
    "isbuiltin",
    "len_",
    "locals_in_original_context",
    "overload_of",
    "print_",
    "range_",
    "super_in_original_context",
]

UNSPECIFIED = object()

_BUILTIN_VALUES = tuple(builtins.__dict__.values())


def isbuiltin(f: Any) -> bool:
    """Whether ``f`` is one of Python's builtins (functions and types of the ``builtins`` module)."""
    if any(f is builtin for builtin in _BUILTIN_VALUES):
        return True
    return isinstance(f, type(len)) and getattr(f, "__self__", None) is builtins


def _is_tensor(value: Any) -> bool:
    return isinstance(value, Tensor)


# ============================================================================ frames of converted functions


def _find_originating_frame(caller_fn_scope: Any, innermost: bool = True) -> Any:
    frame = inspect.currentframe()
    result = None
    while frame is not None:
        if frame.f_locals.get(caller_fn_scope.name, None) is caller_fn_scope:
            result = frame
            if innermost:
                break
        frame = frame.f_back
    if result is None:  # pragma: no cover - converted code always runs under its scope
        raise RuntimeError("the converted function's frame was not found on the call stack")
    return result


def _user_locals(caller_fn_scope: Any) -> dict[str, Any]:
    """The user's local variables where ``caller_fn_scope``'s function called locals()/eval.

    A converted function's blocks run in generated nested functions; their frames, from the
    function's own frame inwards, are merged (inner values win), leaving out generated names.
    """
    frames = []
    frame = inspect.currentframe()
    while frame is not None:
        code = frame.f_code
        if origins.user_function_name(code) is not None:
            frames.append(frame)
            if caller_fn_scope.name in code.co_varnames or caller_fn_scope.name in code.co_cellvars:
                break
        frame = frame.f_back
    merged: dict[str, Any] = {}
    for frame in reversed(frames):
        hidden = origins.generated_names(frame.f_code)
        for name, value in frame.f_locals.items():
            if name not in hidden and not isinstance(value, Undefined):
                merged[name] = value
    return merged


def locals_in_original_context(caller_fn_scope: Any) -> dict[str, Any]:
    """``locals()`` of the converted function that called it: the user's variables."""
    return _user_locals(caller_fn_scope)


def globals_in_original_context(caller_fn_scope: Any) -> dict[str, Any]:
    """``globals()`` of the converted function that called it."""
    return _find_originating_frame(caller_fn_scope).f_globals


def eval_in_original_context(f: Callable[..., Any], args: tuple[Any, ...], caller_fn_scope: Any) -> Any:
    """``eval`` with the globals and locals of the converted function that called it."""
    frame = _find_originating_frame(caller_fn_scope)
    user_locals = _user_locals(caller_fn_scope) if len(args) < 3 else args[2]
    full = (args[0], frame.f_globals if len(args) < 2 else args[1], user_locals)
    return f(*full)


def super_in_original_context(f: Callable[..., Any], args: tuple[Any, ...], caller_fn_scope: Any) -> Any:
    """``super()`` with no arguments, as called in the converted method (its class and first argument)."""
    if args:
        return f(*args)
    frame = _find_originating_frame(caller_fn_scope, innermost=False)
    if "__class__" not in frame.f_locals:
        raise RuntimeError("super(): __class__ cell not found")
    self_arg = frame.f_locals[frame.f_code.co_varnames[0]]
    return f(frame.f_locals["__class__"], self_arg)


# ============================================================================ overloads


def abs_(x: Any) -> Any:
    """``abs``; ``tf.abs`` for a tensor (of each element, for a dataset)."""
    overload = datasets.overload_for("abs", x)
    if overload is not None:
        return overload(x)
    if _is_tensor(x):
        return math_ops.abs(x)
    return abs(x)


def float_(x: Any = 0) -> Any:
    """``float``; a cast to float32 for a tensor."""
    if _is_tensor(x):
        if x.dtype.base_dtype == dtypes.string:
            return tf_api("strings.to_number", "float() of a string tensor")(x, out_type=dtypes.float32)
        return math_ops.cast(x, dtypes.float32)
    return float(x)


def int_(x: Any = 0, base: Any = UNSPECIFIED) -> Any:
    """``int``; a cast to int32 for a tensor (base 10 only)."""
    if _is_tensor(x):
        if base not in (10, UNSPECIFIED):
            raise NotImplementedError(f"base {base} not supported for int")
        if x.dtype.base_dtype == dtypes.string:
            return tf_api("strings.to_number", "int() of a string tensor")(x, out_type=dtypes.int32)
        return math_ops.cast(x, dtypes.int32)
    if base is UNSPECIFIED:
        return int(x)
    return int(x, base)


def _tensor_array_class() -> Any:
    """tf.TensorArray's class once its module is loaded (no TensorArray exists before)."""
    return getattr(sys.modules.get("modtensor.api.tensor_array_ops"), "TensorArray", None)


def len_(s: Any) -> Any:
    """``len``; for a tensor its static first dimension, else ``tf.shape(s)[0]``; a TensorArray's ``size()``;
    a TensorList's length; a dataset's cardinality (which must be known)."""
    overload = datasets.overload_for("len", s)
    if overload is not None:
        return overload(s)
    tensor_array = _tensor_array_class()
    if tensor_array is not None and isinstance(s, tensor_array):
        return s.size()
    if not _is_tensor(s):
        return len(s)
    if s.dtype.base_dtype == dtypes.variant:
        from importlib import import_module

        return import_module("modtensor.api.list_ops").tensor_list_length(s)
    shape = s.shape
    if shape.rank:
        first = shape.as_list()[0]
        if first is not None:
            return first
    if shape.rank == 0:
        raise ValueError(f"len requires a non-scalar tensor, got one of shape {array_ops.shape(s)}")
    if shape.rank is not None:
        return array_ops.shape(s)[0]
    rank = array_ops.rank(s)

    def raise_zero_rank_error() -> Any:
        assertion = tf_api("debugging.Assert", "len() of a tensor of unknown rank")(
            False, ["len requires non-zero rank, got ", rank]
        )
        from modtensor.api.constant_op import constant
        from modtensor.api.context import executing_eagerly
        from modtensor.framework import graph as graph_lib

        if executing_eagerly():
            return constant(0, dtype=dtypes.int32)
        with graph_lib.get_default_graph().control_dependencies([assertion]):
            return constant(0, dtype=dtypes.int32)

    return tf_api("cond", "len() of a tensor of unknown rank")(
        rank > 0, lambda: array_ops.shape(s)[0], raise_zero_rank_error
    )


def print_(*objects: Any, **kwargs: Any) -> Any:
    """``print`` (Feature.BUILTIN_FUNCTIONS): with a tensor argument, Python's print of the values when the graph
    runs (an ``EagerPyFunc``, as TF's ``_tf_py_func_print``); returns that op's int32 output."""
    unknown = tuple(set(kwargs) - {"sep", "end", "file", "flush"})
    if unknown:
        raise ValueError(f"invalid keyword arguments: {unknown}")
    if not any(_is_tensor(o) for o in objects):
        return print(*objects, **kwargs)
    options = {k: v for k, v in kwargs.items() if v is not UNSPECIFIED}
    options.setdefault("flush", True)

    def print_wrapper(*values: Any) -> None:
        values = tuple(v.numpy() if _is_tensor(v) else v for v in values)
        values = tuple(v.decode("utf-8") if isinstance(v, bytes) else v for v in values)
        print(*values, **options)

    tensor_positions = [i for i, o in enumerate(objects) if _is_tensor(o)]

    def call_with_tensors(*tensors: Any) -> Any:
        values = list(objects)
        for position, tensor in zip(tensor_positions, tensors, strict=True):
            values[position] = tensor
        print_wrapper(*values)
        return np.int32(1)  # (modtensor's py_function does not cast a Python int to Tout)

    return tf_api("py_function", "print() of a tensor")(
        call_with_tensors, [objects[i] for i in tensor_positions], dtypes.int32
    )


def range_(start_or_stop: Any, stop: Any = UNSPECIFIED, step: Any = UNSPECIFIED) -> Any:
    """``range``; ``tf.range`` when an argument is a tensor (empty, never an error, for an empty range)."""
    if any(_is_tensor(s) for s in (start_or_stop, stop, step)):
        if step is not UNSPECIFIED:
            return math_ops.range(start_or_stop, stop, step)
        if stop is not UNSPECIFIED:
            stop = math_ops.maximum(start_or_stop, stop)
            return math_ops.range(start_or_stop, stop)
        start_or_stop = math_ops.maximum(start_or_stop, 0)
        return math_ops.range(start_or_stop)
    if step is not UNSPECIFIED:
        return range(start_or_stop, stop, step)
    if stop is not UNSPECIFIED:
        return range(start_or_stop, stop)
    return range(start_or_stop)


def _all_datasets(values: tuple[Any, ...]) -> bool:
    kind = datasets.dataset_class()
    return bool(values) and kind is not None and all(isinstance(v, kind) for v in values)


def enumerate_(s: Any, start: int = 0) -> Any:
    """``enumerate``; ``Dataset.enumerate`` for a dataset."""
    overload = datasets.overload_for("enumerate", s)
    if overload is not None:
        return overload(s, start)
    return enumerate(s, start)


def zip_(*iterables: Any, strict: bool = False) -> Any:
    """``zip``; ``Dataset.zip`` when every argument is a dataset."""
    if _all_datasets(iterables):
        return datasets.overload_for("zip", iterables[0])(*iterables, strict=strict)  # type: ignore[misc]
    return zip(*iterables, strict=strict)


def map_(fn: Callable[..., Any], *iterables: Any) -> Any:
    """``map``; ``Dataset.zip(...).map(fn)`` when every iterable is a dataset."""
    if _all_datasets(iterables):
        return datasets.dataset_class().zip(iterables).map(fn)  # type: ignore[union-attr]
    return map(fn, *iterables)


def filter_(function: Any, iterable: Any) -> Any:
    """``filter``; ``Dataset.filter`` for a dataset."""
    if _all_datasets((iterable,)):
        return iterable.filter(function)
    return filter(function, iterable)


def any_(iterable: Any) -> Any:
    """``any``; for a dataset of bool scalars, whether one is True (as a tensor)."""
    overload = datasets.overload_for("any", iterable)
    return overload(iterable) if overload is not None else any(iterable)


def all_(iterable: Any) -> Any:
    """``all``; for a dataset of bool scalars, whether all are True (as a tensor)."""
    overload = datasets.overload_for("all", iterable)
    return overload(iterable) if overload is not None else all(iterable)


def next_(iterator: Any, default: Any = UNSPECIFIED) -> Any:
    """``next``; with a default, a ``tf.cond`` on the next optional element of a tf.data iterator."""
    if default is UNSPECIFIED:
        return next(iterator)
    overload = datasets.overload_for("next", iterator)
    if overload is not None:
        return overload(iterator, default)
    return next(iterator, default)


def sorted_(iterable: Any, key: Any = UNSPECIFIED, reverse: Any = UNSPECIFIED) -> Any:
    """``sorted``; a 1-D tensor is sorted with ``tf.sort``."""
    if _is_tensor(iterable):
        if key is not UNSPECIFIED:
            raise NotImplementedError("sorted() of a tensor with a key is not supported")
        if iterable.shape.rank is not None and iterable.shape.rank != 1:
            raise ValueError("sort only supports only 1D tensors")
        direction = "DESCENDING" if reverse is not UNSPECIFIED and reverse else "ASCENDING"
        return tf_api("sort", "sorted() of a tensor")(iterable, direction=direction)
    kwargs: dict[str, Any] = {}
    if key is not UNSPECIFIED:
        kwargs["key"] = key
    if reverse is not UNSPECIFIED:
        kwargs["reverse"] = reverse
    return sorted(iterable, **kwargs)


SUPPORTED_BUILTINS = (abs, float, int, len, print, range, enumerate, zip, map, filter, any, all, sorted)

BUILTIN_FUNCTIONS_MAP: dict[str, Callable[..., Any]] = {
    "abs": abs_,
    "any": any_,
    "all": all_,
    "enumerate": enumerate_,
    "filter": filter_,
    "float": float_,
    "int": int_,
    "len": len_,
    "map": map_,
    "next": next_,
    "print": print_,
    "range": range_,
    "sorted": sorted_,
    "zip": zip_,
}


def overload_of(f: Any) -> Any:
    """The overload converted code calls for the builtin ``f`` (``f`` itself when it has none)."""
    if any(f is builtin for builtin in SUPPORTED_BUILTINS):
        return BUILTIN_FUNCTIONS_MAP[f.__name__]
    return f
