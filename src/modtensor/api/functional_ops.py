"""``tf.map_fn``, ``tf.scan``, ``tf.foldl`` and ``tf.foldr``: TensorFlow's higher-order functions over tensors.

They are built as TensorFlow builds them: the elements are unstacked into TensorArrays,
a ``while_loop`` runs ``fn`` once per element and writes the results into TensorArrays,
which are stacked at the end. Eagerly the loop runs in Python (TF's eager while_loop) and
the arrays are eager ones; inside ``tf.function`` and v1 graphs it is a graph loop whose
loop variables carry the arrays' TensorLists. Nested structures (lists, tuples, dicts,
namedtuples) of elements and results follow TF's ``nest``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from modtensor.api import array_ops, context
from modtensor.api.op_scope import convert_to_tensor, op_scope
from modtensor.api.tensor_array_ops import TensorArray
from modtensor.framework import dtypes, tensor_shape
from modtensor.framework.func_graph import flatten_structure, pack_structure
from modtensor.framework.tensor import TensorSpec

__all__ = ["foldl", "foldr", "map_fn", "scan"]

_logger = logging.getLogger("modtensor")
_warned_parallel_iterations = False


# ------------------------------------------------------------------------------ structures (TF's nest)


def _is_nested(value: Any) -> bool:
    return isinstance(value, (list, tuple, Mapping))


def _describe(value: Any) -> str:
    return f"type={type(value).__name__} str={value!s}"


class _Dot:
    """A leaf shown as ``.`` in TF's "Entire first structure" outlines."""

    def __repr__(self) -> str:
        return "."


def _outline(structure: Any) -> str:
    return str(pack_structure(structure, [_Dot() for _ in flatten_structure(structure)]))


def _structure_mismatch(first: Any, second: Any) -> tuple[type[Exception], str] | None:
    """The first difference TF's nest reports between two structures (sequence types checked), or None."""
    if _is_nested(first) != _is_nested(second):
        seq, other = (first, second) if _is_nested(first) else (second, first)
        return (
            ValueError,
            f'Substructure "{_describe(seq)}" is a sequence, while substructure "{_describe(other)}" is not',
        )
    if not _is_nested(first):
        return None
    both_mappings = isinstance(first, Mapping) and isinstance(second, Mapping)
    if type(first) is not type(second) and not both_mappings:
        return TypeError, (
            f"The two namedtuples don't have the same sequence type. First structure {_describe(first)} has type "
            f"{type(first).__name__}, while second structure {_describe(second)} has type {type(second).__name__}"
        )
    if both_mappings:
        if set(first) != set(second):
            return ValueError, (
                f"The two dictionaries don't have the same set of keys. First structure has keys "
                f"{_describe(list(first))}, while second structure has keys {_describe(list(second))}"
            )
        pairs = [(first[k], second[k]) for k in sorted(first)]
    else:
        if len(first) != len(second):
            return ValueError, (
                "The two structures don't have the same number of elements. First structure: "
                f"{_describe(first)}. Second structure: {_describe(second)}"
            )
        pairs = list(zip(first, second, strict=True))
    for a, b in pairs:
        found = _structure_mismatch(a, b)
        if found is not None:
            return found
    return None


def assert_same_structure(first: Any, second: Any) -> None:
    """TF's ``nest.assert_same_structure`` (sequence types checked), with its error texts."""
    found = _structure_mismatch(first, second)
    if found is None:
        return
    error, detail = found
    raise error(
        "The two structures don't have the same nested structure.\n\n"
        f"First structure: {_describe(first)}\n\nSecond structure: {_describe(second)}\n\n"
        f"More specifically: {detail}\nEntire first structure:\n{_outline(first)}\n"
        f"Entire second structure:\n{_outline(second)}"
    )


def _map_structure(fn: Callable[[Any], Any], structure: Any) -> Any:
    return pack_structure(structure, [fn(x) for x in flatten_structure(structure)])


# ------------------------------------------------------------------------------ the loop


def while_loop(
    cond: Callable[..., Any],
    body: Callable[..., Any],
    loop_vars: Sequence[Any],
    parallel_iterations: int = 10,
    maximum_iterations: Any = None,
) -> list[Any]:
    """The loop these functions use: TF's eager ``while_loop`` (a Python loop) or, while building a graph,
    ``tf.while_loop`` (TensorArrays travel as their flows and keep sharing their element shape, as TF's)."""
    loop_vars = list(loop_vars)
    if context.executing_eagerly():
        count = 0
        while (maximum_iterations is None or count < int(maximum_iterations)) and cond(*loop_vars):
            result = body(*loop_vars)
            result = list(result) if isinstance(result, (list, tuple)) else [result]
            assert_same_structure(loop_vars, result)
            loop_vars = result
            count += 1
        return loop_vars
    from modtensor.api.while_loop import while_loop as graph_while_loop

    return list(
        graph_while_loop(
            cond, body, loop_vars, parallel_iterations=parallel_iterations, maximum_iterations=maximum_iterations
        )
    )


# ------------------------------------------------------------------------------ map_fn


def _spec_of(value: Any) -> TensorSpec:
    if isinstance(value, TensorSpec):
        return value
    if isinstance(value, (dtypes.DType, str, type)):
        return TensorSpec(None, dtypes.as_dtype(value))
    raise TypeError(f"map_fn can not generate {value} outputs")


def map_fn(
    fn: Callable[[Any], Any],
    elems: Any,
    dtype: Any = None,
    parallel_iterations: int | None = None,
    back_prop: bool = True,
    swap_memory: bool = False,
    infer_shape: bool = True,
    name: str | None = None,
    fn_output_signature: Any = None,
) -> Any:
    """``fn`` applied to each element of ``elems`` (unstacked along dim 0), the results stacked.

    ``fn_output_signature`` (a dtype, ``tf.TensorSpec`` or a nest of them; ``dtype`` is its
    deprecated name) is needed when ``fn``'s results differ in dtype or structure from
    ``elems``. ``parallel_iterations`` (default 10 in graphs, 1 eagerly) bounds how many
    iterations a graph loop runs at once.
    """
    global _warned_parallel_iterations
    del back_prop, swap_memory
    if fn_output_signature is None:
        fn_output_signature = dtype
    if not callable(fn):
        raise TypeError(f"The provided function {fn.__name__} is not callable.fn must be callable.")
    in_graph_mode = not context.executing_eagerly()
    if in_graph_mode and not parallel_iterations:
        parallel_iterations = 10
    elif not in_graph_mode and not parallel_iterations:
        parallel_iterations = 1
    elif not in_graph_mode and parallel_iterations > 1:
        if not _warned_parallel_iterations:
            _warned_parallel_iterations = True
            _logger.warning(
                "Setting parallel_iterations > 1 has no effect when executing eagerly. Consider calling map_fn with "
                "tf.function to execute fn in parallel."
            )
        parallel_iterations = 1

    elems_flat = flatten_structure(elems)
    if not elems_flat:
        raise ValueError(
            f"elems must be a Tensor or (possibly nested) sequence of Tensors. Got {elems}, which does not contain "
            "any Tensors."
        )
    if fn_output_signature is None:
        result_specs = None
    else:
        result_specs = [_spec_of(d) for d in flatten_structure(fn_output_signature)]

    with op_scope(name, "map", elems_flat):
        elems_flat = [convert_to_tensor(t, name="elem") for t in elems_flat]
        first_shape = elems_flat[0].shape
        if first_shape.rank is not None and first_shape.rank < 1:
            raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
        n_static = tensor_shape.Dimension(tensor_shape.dimension_value(elems_flat[0].shape.with_rank_at_least(1)[0]))
        for t in elems_flat[1:]:
            n_static.assert_is_compatible_with(
                tensor_shape.Dimension(tensor_shape.dimension_value(t.shape.with_rank_at_least(1)[0]))
            )
        n = n_static.value if n_static.value is not None else array_ops.shape(elems_flat[0])[0]
        if result_specs is None:
            result_specs = [TensorSpec(None, t.dtype) for t in elems_flat]
        elems_ta = [
            TensorArray(dtype=t.dtype, size=n, dynamic_size=False, infer_shape=True).unstack(t) for t in elems_flat
        ]
        result_ta = [
            TensorArray(dtype=spec.dtype, size=n, dynamic_size=False, infer_shape=infer_shape, element_shape=spec.shape)
            for spec in result_specs
        ]

        def compute(i: Any, tas: list[TensorArray]) -> tuple[Any, list[TensorArray]]:
            values = pack_structure(elems, [ta.read(i) for ta in elems_ta])
            from modtensor.api.autograph.impl import tf_convert_in_context  # AutoGraph converts fn, as TF's

            result = tf_convert_in_context(fn)(values)
            assert_same_structure(fn_output_signature or elems, result)
            flat = flatten_structure(result)
            return i + 1, [ta.write(i, v) for ta, v in zip(tas, flat, strict=True)]

        i = convert_to_tensor(0)
        _, final = while_loop(
            lambda i, _: i < n,
            compute,
            (i, result_ta),
            parallel_iterations=parallel_iterations,
            maximum_iterations=n,
        )
        stacked = [ta.stack() for ta in final]
        for r in stacked:
            if not context.executing_eagerly():
                r.set_shape(tensor_shape.TensorShape([n_static]).concatenate(r.shape[1:]))
        return pack_structure(fn_output_signature if fn_output_signature is not None else elems, stacked)


# ------------------------------------------------------------------------------ folds and scan


def _unstacked_arrays(elems: Any, n: Any) -> Any:
    return _map_structure(
        lambda e: TensorArray(dtype=e.dtype, size=n, dynamic_size=False, infer_shape=True).unstack(e), elems
    )


def _fold(
    fn: Callable[[Any, Any], Any],
    elems: Any,
    initializer: Any,
    parallel_iterations: int,
    name: str | None,
    reverse: bool,
) -> Any:
    if not callable(fn):
        raise TypeError(f"{fn.__name__} is not callable. Please provide a callable function.")
    with op_scope(name, "foldr" if reverse else "foldl", [elems]):
        elems = _map_structure(lambda e: convert_to_tensor(e, name="elem"), elems)
        elems_flat = flatten_structure(elems)
        n = tensor_shape.dimension_value(elems_flat[0].shape[0]) or array_ops.shape(elems_flat[0])[0]
        elems_ta = _unstacked_arrays(elems, n)
        if reverse:
            if initializer is None:
                i = n - 1
                a = _map_structure(lambda ta: ta.read(i), elems_ta)
            else:
                i, a = n, initializer

            def compute(i: Any, a: Any) -> list[Any]:
                i -= 1
                return [i, fn(a, _map_structure(lambda ta: ta.read(i), elems_ta))]

            def keep_going(i: Any, a: Any) -> Any:
                return i > 0

        else:
            if initializer is None:
                a = _map_structure(lambda ta: ta.read(0), elems_ta)
                i = convert_to_tensor(1)
            else:
                a, i = initializer, convert_to_tensor(0)

            def compute(i: Any, a: Any) -> list[Any]:
                return [i + 1, fn(a, _map_structure(lambda ta: ta.read(i), elems_ta))]

            def keep_going(i: Any, a: Any) -> Any:
                return i < n

        _, result = while_loop(keep_going, compute, [i, a], parallel_iterations, maximum_iterations=n)
        return result


def foldl(
    fn: Callable[[Any, Any], Any],
    elems: Any,
    initializer: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    name: str | None = None,
) -> Any:
    """``fn(...fn(fn(initializer, elems[0]), elems[1])..., elems[n-1])``; without an initializer the first
    element starts the accumulation."""
    return _fold(fn, elems, initializer, parallel_iterations, name, reverse=False)


def foldr(
    fn: Callable[[Any, Any], Any],
    elems: Any,
    initializer: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    name: str | None = None,
) -> Any:
    """:func:`foldl` from the last element to the first."""
    return _fold(fn, elems, initializer, parallel_iterations, name, reverse=True)


def scan(
    fn: Callable[[Any, Any], Any],
    elems: Any,
    initializer: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    infer_shape: bool = True,
    reverse: bool = False,
    name: str | None = None,
) -> Any:
    """Every intermediate accumulator of a fold, stacked: ``out[i] = fn(out[i-1], elems[i])``."""
    if not callable(fn):
        raise TypeError(f"{fn.__name__} is not callable. Please provide a callable function.")
    input_nested = _is_nested(elems)

    def input_flatten(x: Any) -> list[Any]:
        return flatten_structure(x) if input_nested else [x]

    def input_pack(x: list[Any]) -> Any:
        return pack_structure(elems, x) if input_nested else x[0]

    if initializer is None:
        output_flatten, output_pack = input_flatten, input_pack
    else:
        output_nested = _is_nested(initializer)

        def output_flatten(x: Any) -> list[Any]:
            return flatten_structure(x) if output_nested else [x]

        def output_pack(x: list[Any]) -> Any:
            return pack_structure(initializer, x) if output_nested else x[0]

    elems_flat = input_flatten(elems)
    with op_scope(name, "scan", elems_flat):
        elems_flat = [convert_to_tensor(e, name="elem") for e in elems_flat]
        n = tensor_shape.dimension_value(elems_flat[0].shape[0])
        if n is None:
            n = array_ops.shape(elems_flat[0])[0]
        elems_ta = [
            TensorArray(dtype=e.dtype, size=n, dynamic_size=False, element_shape=e.shape[1:], infer_shape=True)
            for e in elems_flat
        ]
        elems_ta = [ta.unstack(e) for ta, e in zip(elems_ta, elems_flat, strict=True)]
        if initializer is None:
            a_flat = [ta.read(n - 1 if reverse else 0) for ta in elems_ta]
            i = 1
        else:
            a_flat = [convert_to_tensor(init) for init in output_flatten(initializer)]
            i = 0
        accs_ta = [
            TensorArray(
                dtype=a.dtype,
                size=n,
                element_shape=a.shape if infer_shape else None,
                dynamic_size=False,
                infer_shape=infer_shape,
            )
            for a in a_flat
        ]
        if initializer is None:
            accs_ta = [ta.write(n - 1 if reverse else 0, a) for ta, a in zip(accs_ta, a_flat, strict=True)]

        def compute(i: Any, a_flat: list[Any], tas: list[TensorArray]) -> tuple[Any, list[Any], list[TensorArray]]:
            packed_elems = input_pack([ta.read(i) for ta in elems_ta])
            a_out = fn(output_pack(a_flat), packed_elems)
            assert_same_structure(elems if initializer is None else initializer, a_out)
            flat_out = output_flatten(a_out)
            tas = [ta.write(i, v) for ta, v in zip(tas, flat_out, strict=True)]
            return (i - 1 if reverse else i + 1), flat_out, tas

        if reverse:
            initial_i = n - 1 - i

            def keep_going(i: Any, _a: Any, _t: Any) -> Any:
                return i >= 0

        else:
            initial_i = i

            def keep_going(i: Any, _a: Any, _t: Any) -> Any:
                return i < n

        _, _, final = while_loop(
            keep_going, compute, (convert_to_tensor(initial_i), a_flat, accs_ta), parallel_iterations, n
        )
        results = [ta.stack() for ta in final]
        n_static = tensor_shape.Dimension(tensor_shape.dimension_value(elems_flat[0].shape.with_rank_at_least(1)[0]))
        for e in elems_flat[1:]:
            n_static.assert_is_compatible_with(
                tensor_shape.Dimension(tensor_shape.dimension_value(e.shape.with_rank_at_least(1)[0]))
            )
        if not context.executing_eagerly():
            for r in results:
                r.set_shape(tensor_shape.TensorShape([n_static]).concatenate(r.shape[1:]))
        return output_pack(results)
