"""``for`` loops and builtins over ``tf.data`` datasets and iterators in converted code, as TensorFlow's
``dataset_autograph``/``iterator_autograph`` overrides.

``for x in dataset`` becomes a ``scan`` over the dataset carrying the loop variables, a
``take_while`` for ``break``/``return``, and a ``reduce`` that keeps the last state;
``for x in iterator`` a ``tf.while_loop`` on ``get_next_as_optional``. ``len``, ``enumerate``,
``zip``, ``map``, ``filter``, ``any``, ``all``, ``abs`` of datasets are dataset transformations,
and ``next(iterator, default)`` a ``tf.cond`` on the optional. The classes are looked up in the
loaded modules only: a program that never made a dataset never loads tf.data for this.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from modtensor.api import array_ops, math_ops
from modtensor.api.autograph.operators import structures
from modtensor.api.autograph.operators.staging import tf_api
from modtensor.api.constant_op import constant, convert_to_tensor
from modtensor.framework import dtypes
from modtensor.framework.tensor import Tensor

__all__ = ["dataset_class", "dataset_for_stmt", "iterator_class", "iterator_for_stmt", "overload_for"]

UNKNOWN = -2
INFINITE = -1


def dataset_class() -> type | None:
    """``tf.data.Dataset``'s class when tf.data is loaded."""
    return getattr(sys.modules.get("modtensor.api.data.dataset_ops"), "DatasetV2", None)


def iterator_class() -> type | None:
    """``tf.data.Iterator``'s class (OwnedIterator) when tf.data is loaded."""
    return getattr(sys.modules.get("modtensor.api.data.iterator_ops"), "OwnedIterator", None)


def _is(value: Any, kind: type | None) -> bool:
    return kind is not None and isinstance(value, kind)


# ============================================================================ for loops


def dataset_for_stmt(
    ds: Any,
    extra_test: Callable[[], Any] | None,
    body: Callable[[Any], None],
    get_state: Callable[[], tuple[Any, ...]],
    set_state: Callable[[tuple[Any, ...]], None],
    symbol_names: tuple[str, ...],
    opts: dict[str, Any],
) -> None:
    """``for x in ds``: scan the dataset with the loop variables as state (TF's ``_tf_ag_dataset_for_stmt``)."""
    from modtensor.api.autograph.operators import control_flow

    init_vars = tuple(get_state())
    control_flow.verify_loop_init_vars(init_vars, symbol_names)
    if not init_vars:  # reduce needs some state: a dummy one
        init_vars = (constant(0),)
        symbol_names = ("<internal dummy>",)

        def get_state() -> tuple[Any, ...]:
            return (constant(0),)

        def set_state(values: tuple[Any, ...]) -> None:
            del values

    def scan_body(scan_state: Any, iterate: Any) -> Any:
        loop_vars = tuple(scan_state)
        set_state(loop_vars)

        def main_path() -> tuple[Any, ...]:
            body(iterate)
            new_loop_vars = tuple(get_state())
            control_flow.verify_tf_loop_vars(init_vars, loop_vars, new_loop_vars, symbol_names, opts, False)
            return new_loop_vars

        if extra_test is not None:
            extra_cond = extra_test()
            new_loop_vars = tuple(
                tf_api("cond", "a loop over a dataset with break or return")(extra_cond, main_path, lambda: loop_vars)
            )
        else:
            extra_cond = (constant(True),)  # unused
            new_loop_vars = main_path()
        return new_loop_vars, (new_loop_vars, extra_cond)

    scanned = ds.scan(init_vars, scan_body)
    if extra_test is not None:
        scanned = scanned.take_while(lambda loop_vars, extra_cond: extra_cond)
    final = scanned.reduce(init_vars, lambda state, outputs: outputs[0])
    set_state(tuple(final))


def iterator_for_stmt(
    iter_: Any,
    extra_test: Callable[[], Any] | None,
    body: Callable[[Any], None],
    get_state: Callable[[], tuple[Any, ...]],
    set_state: Callable[[tuple[Any, ...]], None],
    symbol_names: tuple[str, ...],
    opts: dict[str, Any],
) -> None:
    """``for x in iterator``: a while loop on ``get_next_as_optional`` (TF's ``_tf_iterator_for_stmt``)."""
    from modtensor.api.autograph.operators import control_flow

    symbol_names = ("<internal has_next>",) + symbol_names
    has_next: Any = True

    def aug_get_state() -> tuple[Any, ...]:
        return (has_next,) + tuple(get_state())

    def aug_set_state(aug_loop_vars: tuple[Any, ...]) -> None:
        nonlocal has_next
        has_next, *loop_vars = aug_loop_vars
        set_state(tuple(loop_vars))

    init_vars = aug_get_state()
    control_flow.verify_loop_init_vars(init_vars, symbol_names)

    def aug_body() -> None:
        nonlocal has_next
        optional = iter_.get_next_as_optional()
        has_next = optional.has_value()
        loop_vars = aug_get_state()

        def main_path() -> tuple[Any, ...]:
            body(optional.get_value())
            new_loop_vars = aug_get_state()
            control_flow.verify_tf_loop_vars(init_vars, loop_vars, new_loop_vars, symbol_names, opts)
            return new_loop_vars

        aug_set_state(tuple(tf_api("cond", "a loop over an iterator")(has_next, main_path, lambda: loop_vars)))

    def aug_test() -> Any:
        if extra_test is not None:
            return tf_api("cond", "a loop over an iterator with break or return")(has_next, extra_test, lambda: False)
        return has_next

    control_flow._tf_while_stmt(aug_test, aug_body, aug_get_state, aug_set_state, symbol_names, opts)


# ============================================================================ builtins


def _dataset_len(ds: Any) -> Any:
    length = ds.cardinality()
    message = tf_api("strings.format", "len() of a dataset")(
        "len requires dataset with definitive cardinality, got {}", length
    )
    known = math_ops.logical_and(math_ops.not_equal(length, INFINITE), math_ops.not_equal(length, UNKNOWN))
    check = tf_api("debugging.Assert", "len() of a dataset")(known, [message])
    from modtensor.api.context import executing_eagerly
    from modtensor.framework import graph as graph_lib

    if executing_eagerly():
        return length
    with graph_lib.get_default_graph().control_dependencies([check]):
        return array_ops.identity(length)


def _dataset_abs(ds: Any) -> Any:
    if len(structures.flatten(ds.element_spec)) == 1:
        return ds.map(math_ops.abs)
    return ds.map(lambda *e: structures.map_structure(math_ops.abs, e))


def _dataset_zip(*iterables: Any, strict: bool = False) -> Any:
    if strict:
        raise ValueError("strict zip not supported by Dataset")
    return dataset_class().zip(iterables)  # type: ignore[union-attr]


def _dataset_map(fn: Callable[..., Any], *iterables: Any) -> Any:
    return dataset_class().zip(iterables).map(fn)  # type: ignore[union-attr]


def _bool_scalars(ds: Any, builtin: str) -> None:
    specs = structures.flatten(ds.element_spec)
    if len(specs) != 1 or specs[0].dtype != dtypes.bool:
        raise ValueError(
            f'in graph mode, the "{builtin}" builtin only supports datasets that return bool scalars; got: '
            f"{ds.element_spec}"
        )


def _dataset_any(ds: Any) -> Any:
    _bool_scalars(ds, "any")
    return ds.filter(lambda x: x).take(1).reduce(constant(False), lambda _, y: y)


def _dataset_all(ds: Any) -> Any:
    _bool_scalars(ds, "all")
    return ds.filter(math_ops.logical_not).take(1).reduce(constant(True), lambda _, y: y)


def _iterator_next(iterator: Any, default: Any) -> Any:
    optional = iterator.get_next_as_optional()
    spec = iterator.element_spec
    try:
        structures.assert_same_structure(default, spec)
    except (ValueError, TypeError) as e:
        raise TypeError(f"the default argument must have the same element structure as the iterate.\n\n{e}") from e
    for value, leaf in zip(structures.flatten(default), structures.flatten(spec), strict=True):
        if value is None:
            raise ValueError("the default argument cannot be None")
        if not isinstance(value, Tensor) and isinstance(value, (bool, int, float, str)):
            value = convert_to_tensor(value)
        value_dtype = getattr(value, "dtype", None)
        if value_dtype != leaf.dtype:
            got = "no dtype" if value_dtype is None else str(value_dtype)
            raise TypeError(
                f"the default argument must have the same dtype as the iterate. Expected {leaf.dtype}, got {got}"
            )
    return tf_api("cond", "next() of an iterator with a default")(
        optional.has_value(), optional.get_value, lambda: default
    )


def overload_for(builtin: str, first: Any) -> Callable[..., Any] | None:
    """The dataset/iterator version of ``builtin`` for an argument ``first``, or None."""
    if _is(first, dataset_class()):
        return {
            "len": _dataset_len,
            "abs": _dataset_abs,
            "enumerate": lambda ds, start=0: ds.enumerate(start),
            "zip": _dataset_zip,
            "filter": None,
            "any": _dataset_any,
            "all": _dataset_all,
        }.get(builtin)
    if builtin == "next" and _is(first, iterator_class()):
        return _iterator_next
    return None
