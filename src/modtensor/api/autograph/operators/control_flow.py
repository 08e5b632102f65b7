"""``ag__.if_stmt``, ``while_stmt`` and ``for_stmt``: Python control flow on Python values, staged on tensors.

Converted code calls these with its blocks as functions and its state (the variables
the statement changes) behind ``get_state``/``set_state``. On a Python condition or
iterable they run the blocks as Python would (the branch not taken never runs). On a
tensor they stage the statement with ``tf.cond`` / ``tf.while_loop``, checking the state
as TensorFlow's AutoGraph does (variables defined in only one branch, dtype, shape and
structure changes across iterations, ``None`` values) with its error texts. A loop
variable with no value before a staged loop is given a placeholder value found by
staging the body once in a scratch graph, as TensorFlow does.
"""

from __future__ import annotations

import contextlib
import sys
import traceback
from collections.abc import Callable
from typing import Any

import numpy as np

from modtensor.api import array_ops, math_ops
from modtensor.api.autograph import ag_logging
from modtensor.api.autograph.operators import datasets, py_builtins, structures
from modtensor.api.autograph.operators.staging import tf_api
from modtensor.api.autograph.operators.variables import Undefined, UndefinedReturnValue
from modtensor.api.constant_op import convert_to_tensor
from modtensor.framework import dtypes, shape_refiner, tensor_shape
from modtensor.framework import graph as graph_lib
from modtensor.framework.func_graph import FuncGraph
from modtensor.framework.graph import OperatorNotAllowedInGraphError, SymbolicTensor
from modtensor.framework.tensor import Tensor

__all__ = ["for_stmt", "if_stmt", "register_for_loop", "verify_single_cond_var", "while_stmt"]

PYTHON_MAX_ITERATIONS = 100000000
WARN_INEFFICIENT_UNROLL = True
INEFFICIENT_UNROLL_MIN_ITERATIONS = 50000
INEFFICIENT_UNROLL_MIN_OPS = 1

LEGAL_LOOP_TYPES = "Tensor, int, float, bool or a list, tuple or dict thereof"

_LIMITATIONS = (
    "https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/"
    "limitations.md#consistency-of-control-flow-types"
)

_PYTHON_SCALARS = (bool, int, float, str, np.ndarray)


def _is_none_or_undef(value: Any) -> bool:
    return value is None or isinstance(value, (Undefined, UndefinedReturnValue))


def _is_tensor(value: Any) -> bool:
    return isinstance(value, Tensor)


# ============================================================================ checks


def _verify_tf_condition(cond: Any, tag: str) -> Any:
    """``cond`` as a scalar bool tensor, or TF's ValueError for a non-bool or non-scalar condition."""
    hint = "to check for None, use `is not None`"
    cond = convert_to_tensor(cond)
    if cond.dtype.base_dtype != dtypes.bool:
        raise ValueError(
            f"condition of {tag} expected to be `tf.bool` scalar, got {cond}; to use as boolean Tensor, use "
            f"`tf.cast`; {hint}"
        )
    shape = cond.shape
    if shape.rank is None:
        return array_ops.reshape(cond, ())
    if shape.rank > 0:
        known = [d for d in shape.as_list() if d is not None]
        if np.prod(known) > 1:
            raise ValueError(f"condition of {tag} expected to be `tf.bool` scalar, got {cond}; {hint}")
        return array_ops.reshape(cond, ())
    return cond


def verify_loop_init_vars(
    init_vars: tuple[Any, ...],
    symbol_names: tuple[str, ...],
    first_iter_vars: tuple[Any, ...] | None = None,
    extra_message: str | None = None,
) -> None:
    """TF's errors for loop variables that are None or undefined before a staged loop."""
    if not symbol_names:
        return
    if first_iter_vars is None:
        first_iter_vars = (None,) * len(symbol_names)
    for name, value, first in zip(symbol_names, init_vars, first_iter_vars, strict=True):
        if isinstance(value, UndefinedReturnValue):
            if first:
                raise ValueError(
                    f"the return value from a TensorFlow loop may only be a {LEGAL_LOOP_TYPES}; got {type(first)}"
                )
            raise NotImplementedError(
                "a return statement cannot be placed inside this TensorFlow loop; this may happen if a return "
                "statement depends on a static Python condition such as a hyperparameter"
            )
        message = None
        if value is None:
            message = f"'{name}' is not allowed to be None before the loop"
        elif isinstance(value, Undefined):
            message = f"'{name}' must be defined before the loop"
            if extra_message:
                message += "\n" + extra_message
        if message is not None:
            raise ValueError(message)


def _is_subshape(left: tensor_shape.TensorShape, right: tensor_shape.TensorShape) -> bool:
    """Whether ``left`` is at least as specific as ``right``."""
    if right.rank is None:
        return True
    if left.rank != right.rank:
        return False
    for l_dim, r_dim in zip(left.as_list(), right.as_list(), strict=True):
        if r_dim is not None and l_dim != r_dim:
            return False
    return True


def _as_tensor_if_python(value: Any) -> Any:
    if isinstance(value, _PYTHON_SCALARS) and not isinstance(value, Tensor):
        return convert_to_tensor(value)
    return value


def _verify_single_loop_var(
    name: str, check_shape: bool, init: Any, entry: Any, exit_: Any, shape_invariant: Any
) -> None:
    if exit_ is None:
        raise ValueError(f"'{name}' is None at the end of the iteration.")
    init = _as_tensor_if_python(init)
    entry = _as_tensor_if_python(entry)
    exit_ = _as_tensor_if_python(exit_)
    if not _is_tensor(entry) or not _is_tensor(exit_):
        return
    if entry.dtype.base_dtype != exit_.dtype.base_dtype:
        raise TypeError(
            f"'{name}' has dtype {entry.dtype.name} before the loop, but dtype {exit_.dtype.name} after one iteration"
        )
    if not check_shape:
        return
    exit_shape = exit_.shape
    if shape_invariant is None:
        entry_shape = entry.shape
        if not _is_subshape(exit_shape, entry_shape):
            raise ValueError(
                f"'{name}' has shape {entry_shape} before the loop, but shape {exit_shape} after one iteration. Use "
                "tf.autograph.experimental.set_loop_options to set shape invariants."
            )
        return
    invariant = tensor_shape.as_shape(shape_invariant)
    init_shape = init.shape if _is_tensor(init) else tensor_shape.TensorShape(None)
    if not _is_subshape(init_shape, invariant):
        raise ValueError(
            f"'{name}' has shape {init_shape} before the loop, which does not conform with the shape invariant "
            f"{invariant}."
        )
    if not _is_subshape(exit_shape, invariant):
        raise ValueError(
            f"'{name}' has shape {exit_shape} after one iteration, which does not conform with the shape invariant "
            f"{invariant}."
        )


def verify_tf_loop_vars(
    init_vars: tuple[Any, ...],
    iter_entry_vars: tuple[Any, ...],
    iter_exit_vars: tuple[Any, ...],
    symbol_names: tuple[str, ...],
    opts: dict[str, Any],
    check_shapes: bool = True,
) -> None:
    """TF's checks that an iteration keeps each loop variable's structure, dtype and shape."""
    if check_shapes and "shape_invariants" in opts:
        invariants = opts["shape_invariants"]
    else:
        invariants = tuple(structures.map_structure(lambda _: None, v) for v in iter_entry_vars)
    for name, init, entry, exit_, invariant in zip(
        symbol_names, init_vars, iter_entry_vars, iter_exit_vars, invariants, strict=True
    ):
        try:
            structures.assert_same_structure(init, entry)
        except (ValueError, TypeError) as e:
            raise TypeError(f"'{name}' does not have the same nested structure after one iteration.\n\n{e}") from e
        try:
            structures.assert_same_structure(entry, exit_)
        except (ValueError, TypeError) as e:
            raise TypeError(f"'{name}' does not have the same nested structure after one iteration.\n\n{e}") from e
        if invariant is not None:
            try:
                structures.assert_same_structure(init, invariant if structures.is_sequence(init) else None)
            except (ValueError, TypeError) as e:
                raise TypeError(
                    f"'{name}' does not have the same nested structure as its corresponding shape invariant.\n\n{e}"
                ) from e
        invariant_leaves = structures.flatten(invariant) if structures.is_sequence(init) else [invariant]
        for init_leaf, entry_leaf, exit_leaf, invariant_leaf in zip(
            structures.flatten(init),
            structures.flatten(entry),
            structures.flatten(exit_),
            invariant_leaves,
            strict=True,
        ):
            _verify_single_loop_var(name, check_shapes, init_leaf, entry_leaf, exit_leaf, invariant_leaf)


def verify_single_cond_var(name: str, body_var: Any, orelse_var: Any) -> None:
    """TF's checks that both branches of a staged conditional give ``name`` a value of the same dtype."""
    if body_var is None:
        raise ValueError(f"'{name}' is None at the end of the main branch.")
    if orelse_var is None:
        raise ValueError(f"'{name}' is None at the end of the else branch.")
    body_var = _as_tensor_if_python(body_var)
    orelse_var = _as_tensor_if_python(orelse_var)
    if not _is_tensor(body_var) or not _is_tensor(orelse_var):
        return
    if body_var.dtype.base_dtype != orelse_var.dtype.base_dtype:
        raise TypeError(
            f"'{name}' has dtype {body_var.dtype.name} in the main branch, but dtype {orelse_var.dtype.name} in the "
            "else branch"
        )


def _verify_tf_cond_branch_vars(values: tuple[Any, ...], symbol_names: tuple[str, ...], branch: str) -> None:
    for name, value in zip(symbol_names, values, strict=False):
        if isinstance(value, Undefined):
            raise ValueError(f"'{name}' must also be initialized in the {branch} branch")
        if isinstance(value, UndefinedReturnValue):
            raise ValueError(f"the {branch} branch must also have a return statement.")


def _verify_tf_cond_vars(
    body_vars: tuple[Any, ...], orelse_vars: tuple[Any, ...], symbol_names: tuple[str, ...]
) -> None:
    for name, body_var, orelse_var in zip(symbol_names, body_vars, orelse_vars, strict=False):
        try:
            structures.assert_same_structure(body_var, orelse_var)
        except (ValueError, TypeError) as e:
            raise TypeError(
                f"'{name}' must have the same nested structure in the main and else branches:\n\n{e}"
            ) from e
        for body_leaf, orelse_leaf in zip(structures.flatten(body_var), structures.flatten(orelse_var), strict=True):
            verify_single_cond_var(name, body_leaf, orelse_leaf)


# ============================================================================ if


def if_stmt(
    cond: Any,
    body: Callable[[], None],
    orelse: Callable[[], None],
    get_state: Callable[[], tuple[Any, ...]],
    set_state: Callable[[tuple[Any, ...]], None],
    symbol_names: tuple[str, ...],
    nouts: int,
) -> None:
    """An ``if`` statement: ``tf.cond`` over the state for a tensor ``cond``, else Python's ``if``.

    ``nouts``: how many of the state variables (the first ones) are outputs; the others are
    only read by the branches.
    """
    if _is_tensor(cond):
        _tf_if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts)
    elif cond:
        body()
    else:
        orelse()


def _tf_if_stmt(
    cond: Any,
    body: Callable[[], None],
    orelse: Callable[[], None],
    get_state: Callable[[], tuple[Any, ...]],
    set_state: Callable[[tuple[Any, ...]], None],
    symbol_names: tuple[str, ...],
    nouts: int,
) -> None:
    cond = _verify_tf_condition(cond, "if statement")
    if not nouts:
        previous_get, previous_set = get_state, set_state

        def get_state() -> tuple[Any, ...]:
            return (0,) + previous_get()

        def set_state(values: tuple[Any, ...]) -> None:
            previous_set(tuple(values)[1:])

        symbol_names = symbol_names + ("<unused dummy>",)
        nouts = 1
    init_vars = get_state()
    new_body_vars: list[Any] = [None]
    new_orelse_vars: list[Any] = [None]

    def aug_body() -> tuple[Any, ...]:
        set_state(init_vars)
        body()
        values = get_state()[:nouts]
        new_body_vars[0] = values
        _verify_tf_cond_branch_vars(values, symbol_names, "main")
        if new_orelse_vars[0] is not None:
            _verify_tf_cond_vars(values, new_orelse_vars[0], symbol_names)
        return values

    def aug_orelse() -> tuple[Any, ...]:
        set_state(init_vars)
        orelse()
        values = get_state()[:nouts]
        new_orelse_vars[0] = values
        _verify_tf_cond_branch_vars(values, symbol_names, "else")
        if new_body_vars[0] is not None:
            _verify_tf_cond_vars(new_body_vars[0], values, symbol_names)
        return values

    final = tf_api("cond", "an if statement on a tensor")(cond, aug_body, aug_orelse)
    set_state(tuple(final) + tuple(init_vars[nouts:]))


# ============================================================================ Python loops


class _PythonLoopChecker:
    """TF's guards for Python loops in converted code: an iteration limit, and a warning on large unrolls."""

    __slots__ = ("check_inefficient_unroll", "check_op_count_after_iteration", "iterations", "ops_before_iteration")

    def __init__(self) -> None:
        self.iterations = 1
        self.check_inefficient_unroll = WARN_INEFFICIENT_UNROLL
        self.check_op_count_after_iteration = False
        self.ops_before_iteration: set[Any] | None = None

    @staticmethod
    def _ops() -> set[Any]:
        return set(graph_lib.get_default_graph().get_operations())

    def before_iteration(self) -> None:
        if self.check_inefficient_unroll and self.iterations > INEFFICIENT_UNROLL_MIN_ITERATIONS:
            self.ops_before_iteration = self._ops()
            self.check_op_count_after_iteration = True

    def after_iteration(self) -> None:
        self.iterations += 1
        if self.iterations > PYTHON_MAX_ITERATIONS:
            raise ValueError("iteration limit exceeded")
        if self.check_op_count_after_iteration:
            new_ops = [op for op in self._ops() if op not in (self.ops_before_iteration or set())]
            if len(new_ops) >= INEFFICIENT_UNROLL_MIN_OPS:
                ag_logging.warning(
                    "Large unrolled loop detected. Did you mean to use a TF loop? The following ops were created "
                    "after iteration %s: %s\nLocation:\n%s",
                    self.iterations,
                    tuple(new_ops),
                    "".join(traceback.format_stack()),
                )
                self.check_inefficient_unroll = False
                self.check_op_count_after_iteration = False
            elif self.iterations > INEFFICIENT_UNROLL_MIN_ITERATIONS + 3:
                self.check_inefficient_unroll = False
                self.check_op_count_after_iteration = False


def _py_for_stmt(iter_: Any, extra_test: Callable[[], Any] | None, body: Callable[[Any], None]) -> None:
    checker = _PythonLoopChecker()
    checker.before_iteration()

    def guarded_extra_test() -> bool:
        result = extra_test()  # type: ignore[misc]
        try:
            return bool(result)
        except OperatorNotAllowedInGraphError as e:
            raise NotImplementedError(
                "break and return statements which depend on a TF condition are not supported in Python for loops. "
                f"Did you intend to make it a TF loop?\nSee {_LIMITATIONS} for more info."
            ) from e

    if extra_test is None:
        for target in iter_:
            body(target)
            checker.after_iteration()
            checker.before_iteration()
        return
    if guarded_extra_test():
        for target in iter_:
            body(target)
            checker.after_iteration()
            checker.before_iteration()
            if not guarded_extra_test():
                break


def _py_while_stmt(test: Callable[[], Any], body: Callable[[], None]) -> None:
    checker = _PythonLoopChecker()
    checker.before_iteration()

    def guarded_test() -> bool:
        result = test()
        try:
            return bool(result)
        except OperatorNotAllowedInGraphError as e:
            raise NotImplementedError(
                "The condition of while loop started as non-Tensor, then changed to Tensor. This may happen either "
                "because variables changed type, or when a break or return statement inside the loop depends on a "
                "Tensor condition. In both cases, changing to a TF loop should remove the error.\n"
                f"See {_LIMITATIONS} for more info."
            ) from e

    while guarded_test():
        body()
        checker.after_iteration()
        checker.before_iteration()


# ============================================================================ while


def while_stmt(
    test: Callable[[], Any],
    body: Callable[[], None],
    get_state: Callable[[], tuple[Any, ...]],
    set_state: Callable[[tuple[Any, ...]], None],
    symbol_names: tuple[str, ...],
    opts: dict[str, Any],
) -> None:
    """A ``while`` loop: ``tf.while_loop`` when its first test is a tensor, else Python's ``while``.

    The first test runs in a scratch graph only to decide; a Python loop then runs one
    iteration on that result and continues as Python would.
    """
    with FuncGraph("tmp").as_default():
        init_test = test()
    if _is_tensor(init_test):
        _tf_while_stmt(test, body, get_state, set_state, symbol_names, opts)
        return
    if not init_test:
        return
    body()
    _py_while_stmt(test, body)


def _placeholder_value(like: Any, shape_invariant: Any, original: Any = None) -> tuple[Any, Any]:
    """A zero value shaped like ``like`` (the value after one iteration) for an undefined loop variable."""
    if like is None or isinstance(like, (Undefined, UndefinedReturnValue)):
        return original, None
    if isinstance(like, (int, float, bool)):
        return type(like)(0), None
    if _is_tensor(like):
        like_shape = tensor_shape.as_shape(shape_invariant) if shape_invariant is not None else like.shape
        if like_shape.rank is None:
            return array_ops.zeros((), like.dtype), like_shape
        placeholder_shape = []
        dynamic = False
        for static_dim, invariant_dim in zip(like.shape.as_list(), like_shape.as_list(), strict=True):
            if static_dim is None:
                placeholder_shape.append(0 if invariant_dim is None else invariant_dim)
                dynamic = True
            else:
                placeholder_shape.append(static_dim)
        return array_ops.zeros(placeholder_shape, like.dtype), (like_shape if dynamic else None)
    if isinstance(like, (list, tuple, dict)):
        leaves = structures.flatten(like)
        invariants = [None] * len(leaves) if shape_invariant is None else structures.flatten(shape_invariant)
        pairs = [_placeholder_value(v, i) for v, i in zip(leaves, invariants, strict=True)]
        return structures.pack_as(like, [p[0] for p in pairs]), structures.pack_as(like, [p[1] for p in pairs])
    raise TypeError(
        f"Found an unsupported type '{type(like).__name__}' while creating placeholder for {like}. Supported types "
        "include Tensor, int, float, bool, list, tuple or dict."
    )


def _try_handling_undefineds(
    body: Callable[[], None],
    get_state: Callable[[], tuple[Any, ...]],
    set_state: Callable[[tuple[Any, ...]], None],
    init_vars: tuple[Any, ...],
    nulls: tuple[bool, ...],
    shape_invariants: tuple[Any, ...],
    symbol_names: tuple[str, ...],
) -> tuple[bool, tuple[Any, ...], tuple[Any, ...]]:
    """Stage one iteration in a scratch graph to find placeholder values for undefined loop variables."""
    state_modified = False
    first_iter_vars = None
    failure_message = None
    success = False
    extra_shape_invariants: tuple[Any, ...] = ()
    try:
        scratch = FuncGraph("tmp")
        with scratch.as_default():

            def autocast_to_tensor(value: Any) -> Any:
                if isinstance(value, (int, float, bool, str, list, tuple, np.ndarray, np.generic)):
                    init_value = convert_to_tensor(value)
                    return scratch.make_placeholder(init_value.dtype, init_value.shape, "Placeholder")
                return value

            set_state(tuple(structures.map_structure(autocast_to_tensor, v) for v in init_vars))
            state_modified = True
            body()
            first_iter_vars = get_state()
        pairs = tuple(
            _placeholder_value(first, invariant, value) if null else (value, None)
            for value, null, first, invariant in zip(init_vars, nulls, first_iter_vars, shape_invariants, strict=True)
        )
        init_vars = tuple(p[0] for p in pairs)
        extra_shape_invariants = tuple(p[1] for p in pairs)
        success = True
    except (UnboundLocalError, TypeError, ValueError, KeyError):
        exc_type, exc_value = sys.exc_info()[:2]
        ag_logging.log(1, "Caught error while staging loop body: %s", exc_value)
        failure_message = (
            f"Note: AutoGraph tried to define it automatically, but ran into a {exc_type.__name__}: {exc_value}"
        )
    finally:
        if state_modified:
            set_state(init_vars)
    verify_loop_init_vars(init_vars, symbol_names, first_iter_vars, extra_message=failure_message)
    return success, init_vars, extra_shape_invariants


def _runtime_zero_iterations_errmsg(symbol_names: tuple[str, ...], nulls: tuple[bool, ...], init_vars: Any) -> str:
    names = []
    for name, null, value in zip(symbol_names, nulls, init_vars, strict=True):
        if not null:
            continue
        names.append("the function return value" if isinstance(value, UndefinedReturnValue) else name)
    return f"loop must iterate at least once to initialize {', '.join(names)}"


def _shape_invariants_to_positional(mapping: Any, keys: tuple[Any, ...]) -> tuple[Any, ...]:
    by_id = {id(k): (k, v) for k, v in mapping}
    result = []
    for key in keys:
        found_key, value = by_id.get(id(key), (None, None))
        result.append(value if found_key is key else structures.map_structure(lambda _: None, key))
    return tuple(result)


def _tf_while_stmt(
    test: Callable[[], Any],
    body: Callable[[], None],
    get_state: Callable[[], tuple[Any, ...]],
    set_state: Callable[[tuple[Any, ...]], None],
    symbol_names: tuple[str, ...],
    opts: dict[str, Any],
) -> None:
    init_vars = tuple(get_state())
    orig_init_vars = init_vars
    nulls = tuple(_is_none_or_undef(v) for v in init_vars)
    require_one_iteration = False
    shape_invariants_by_init = {id(v): i for v, i in opts.get("shape_invariants", ())}
    if any(nulls):
        shape_invariants = tuple(shape_invariants_by_init.get(id(v)) for v in orig_init_vars)
        require_one_iteration, init_vars, extra_invariants = _try_handling_undefineds(
            body, get_state, set_state, init_vars, nulls, shape_invariants, symbol_names
        )
        if require_one_iteration:
            merged = dict(shape_invariants_by_init)
            for old, new, extra in zip(orig_init_vars, init_vars, extra_invariants, strict=True):
                invariant = merged.get(id(old), extra)
                if invariant is not None:
                    merged[id(new)] = invariant
            pairs = tuple((v, merged[id(v)]) for v in init_vars if id(v) in merged)
            if pairs:
                opts = dict(opts)
                opts["shape_invariants"] = pairs
    else:
        verify_loop_init_vars(init_vars, symbol_names)

    def aug_test(*loop_vars: Any) -> Any:
        if require_one_iteration:
            loop_vars = loop_vars[1:]
        set_state(loop_vars)
        return _verify_tf_condition(test(), "while loop")

    def aug_body(*loop_vars: Any) -> tuple[Any, ...]:
        if require_one_iteration:
            loop_vars = loop_vars[1:]
        set_state(loop_vars)
        body()
        new_loop_vars = tuple(get_state())
        verify_tf_loop_vars(init_vars, loop_vars, new_loop_vars, symbol_names, opts)
        if require_one_iteration:
            new_loop_vars = (True,) + new_loop_vars
        return new_loop_vars

    if "shape_invariants" in opts:
        opts = dict(opts)
        opts["shape_invariants"] = _shape_invariants_to_positional(opts["shape_invariants"], init_vars)
    loop_opts = {k: v for k, v in opts.items() if k != "iterate_names"}
    if require_one_iteration:
        aug_init_vars = (False,) + init_vars
        if "shape_invariants" in loop_opts:
            loop_opts["shape_invariants"] = (None,) + tuple(loop_opts["shape_invariants"])
    else:
        aug_init_vars = init_vars
    final = tf_api("while_loop", "a while loop on a tensor")(aug_test, aug_body, aug_init_vars, **loop_opts)
    final = tuple(final)
    if require_one_iteration:
        message = _runtime_zero_iterations_errmsg(symbol_names, nulls, orig_init_vars)
        check = tf_api("debugging.Assert", "a loop that defines its variables")(final[0], [message])
        dependencies = (
            contextlib.nullcontext()
            if _executing_eagerly()
            else graph_lib.get_default_graph().control_dependencies([check])
        )
        with dependencies:
            final = tuple(
                structures.map_structure(lambda v: array_ops.identity(v) if _is_tensor(v) else v, x) for x in final[1:]
            )
    set_state(final)


def _executing_eagerly() -> bool:
    from modtensor.api.context import executing_eagerly

    return executing_eagerly()


# ============================================================================ for


# type -> the for_stmt overload for iterables of that type (TF's for_loop_registry): how a data set or another
# staged iterable will plug its own loop in.
_FOR_LOOP_OVERLOADS: dict[type, Callable[..., None]] = {}


def register_for_loop(kind: type, overload: Callable[..., None]) -> None:
    """Make ``for x in <instance of kind>`` in converted code call ``overload`` (for_stmt's arguments)."""
    _FOR_LOOP_OVERLOADS[kind] = overload


def for_stmt(
    iter_: Any,
    extra_test: Callable[[], Any] | None,
    body: Callable[[Any], None],
    get_state: Callable[[], tuple[Any, ...]],
    set_state: Callable[[tuple[Any, ...]], None],
    symbol_names: tuple[str, ...],
    opts: dict[str, Any],
) -> None:
    """A ``for`` loop: over a tensor, staged with ``tf.while_loop`` (a ``tf.range`` is not materialized); over a
    ``tf.data`` dataset or iterator, staged with the dataset's own ops (``operators/datasets.py``); over anything
    else, Python's ``for``."""
    for kind in type(iter_).__mro__:
        overload = _FOR_LOOP_OVERLOADS.get(kind)
        if overload is not None:
            overload(iter_, extra_test, body, get_state, set_state, symbol_names, opts)
            return
    dataset_kind, iterator_kind = datasets.dataset_class(), datasets.iterator_class()
    if dataset_kind is not None and isinstance(iter_, dataset_kind):
        datasets.dataset_for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts)
        return
    if iterator_kind is not None and isinstance(iter_, iterator_kind):
        datasets.iterator_for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts)
        return
    if _is_tensor(iter_):
        if isinstance(iter_, SymbolicTensor) and iter_.op.type == "Range":
            _tf_range_for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts)
        else:
            _known_len_tf_for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts)
        return
    _py_for_stmt(iter_, extra_test, body)


def _known_len_tf_for_stmt(
    iter_: Any,
    extra_test: Callable[[], Any] | None,
    body: Callable[[Any], None],
    get_state: Callable[[], tuple[Any, ...]],
    set_state: Callable[[tuple[Any, ...]], None],
    symbol_names: tuple[str, ...],
    opts: dict[str, Any],
) -> None:
    n = py_builtins.len_(iter_)
    iterate_index: Any = 0

    def aug_get_state() -> tuple[Any, ...]:
        return (iterate_index,) + tuple(get_state())

    def aug_set_state(aug_loop_vars: tuple[Any, ...]) -> None:
        nonlocal iterate_index
        iterate_index, *loop_vars = aug_loop_vars
        set_state(tuple(loop_vars))

    def aug_body() -> None:
        nonlocal iterate_index
        body(array_ops.gather(iter_, iterate_index))
        iterate_index += 1

    def aug_test() -> Any:
        main_test = math_ops.less(iterate_index, n)
        if extra_test is not None:
            return tf_api("cond", "a for loop with break or return")(main_test, extra_test, lambda: False)
        return main_test

    _tf_while_stmt(aug_test, aug_body, aug_get_state, aug_set_state, ("<internal iterate>",) + symbol_names, opts)


def _tf_range_for_stmt(
    iter_: Any,
    extra_test: Callable[[], Any] | None,
    body: Callable[[Any], None],
    get_state: Callable[[], tuple[Any, ...]],
    set_state: Callable[[tuple[Any, ...]], None],
    symbol_names: tuple[str, ...],
    opts: dict[str, Any],
) -> None:
    start, limit, delta = iter_.op.inputs
    iterate: Any = start

    def value_or(name: str, var: Any, default: Any) -> Any:
        if name == opts.get("iterate_names") and isinstance(var, Undefined):
            return default
        return var

    def aug_get_state() -> tuple[Any, ...]:
        state = tuple(value_or(n, v, iterate) for n, v in zip(symbol_names, get_state(), strict=True))
        return (iterate,) + state

    def aug_set_state(aug_loop_vars: tuple[Any, ...]) -> None:
        nonlocal iterate
        iterate, *loop_vars = aug_loop_vars
        set_state(tuple(loop_vars))

    def aug_body() -> None:
        nonlocal iterate
        body(iterate)
        iterate += delta

    def aug_test() -> Any:
        const_delta = shape_refiner.constant_value(delta)
        if const_delta is not None:
            main_test = iterate < limit if const_delta >= 0 else iterate > limit
        else:
            main_test = math_ops.logical_or(
                math_ops.logical_and(delta >= 0, iterate < limit), math_ops.logical_and(delta < 0, iterate > limit)
            )
        if extra_test is not None:
            main_test = tf_api("cond", "a for loop with break or return")(main_test, extra_test, lambda: False)
        return main_test

    _tf_while_stmt(aug_test, aug_body, aug_get_state, aug_set_state, ("<internal iterate>",) + symbol_names, opts)
