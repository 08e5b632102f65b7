"""``tf.custom_gradient``: a function that defines its own gradient.

The decorated ``f(*args)`` returns ``(result, grad_fn)``; ``grad_fn(*upstream)`` returns the
gradients of the arguments (and, given a ``variables`` keyword, ``(arg_grads, variable_grads)``
for the trainable variables ``f`` read). As in TensorFlow: eagerly, the results pass through
``Identity`` and one op is recorded on the tapes from the arguments (and read variables) to
those results, with ``grad_fn`` as its backward function; in a graph (``tf.function``, v1), the
results, arguments and variables go through one ``IdentityN`` whose gradient is ``grad_fn``
(a gradient registered under a unique name and set as the op's ``_gradient_op_type``), which
serves tapes and ``tf.gradients`` alike.
"""

from __future__ import annotations

import functools
import inspect
import itertools
from collections.abc import Callable
from typing import Any

from modtensor.api import array_ops
from modtensor.api.context import executing_eagerly
from modtensor.api.op_scope import convert_to_tensor
from modtensor.framework import tape as tape_lib
from modtensor.framework.func_graph import flatten_structure, pack_structure
from modtensor.framework.gradient_registry import RegisterGradient
from modtensor.framework.protos import attr_value_pb2

__all__ = ["custom_gradient", "recompute_grad"]

_NAMES = itertools.count()


def _accepts_variables(grad_fn: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(grad_fn).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name == "variables" or p.kind is p.VAR_KEYWORD for p in params)


def _check_variables(grad_fn: Callable[..., Any], variables: list[Any]) -> None:
    if variables and not _accepts_variables(grad_fn):
        raise TypeError(
            "@tf.custom_gradient grad_fn must accept keyword argument 'variables', since function uses variables: "
            f"{variables}"
        )


def _call_grad_fn(
    grad_fn: Callable[..., Any], result_grads: list[Any], variables: list[Any], num_args: int
) -> list[Any]:
    """``grad_fn`` on the results' gradients: the flat gradients of the arguments, then of the variables."""
    if variables:
        input_grads, variable_grads = grad_fn(*result_grads, variables=variables)
        if len(variable_grads) != len(variables):
            raise ValueError("Must return gradient for each variable from @custom_gradient grad_fn.")
    else:
        input_grads = grad_fn(*result_grads)
        variable_grads = []
    flat = flatten_structure(input_grads) if isinstance(input_grads, (list, tuple)) else [input_grads]
    if len(flat) != num_args:
        raise ValueError(
            f"custom_gradient function expected to return {num_args} gradients, but returned {len(flat)} instead."
        )
    return [*flat, *variable_grads]


def _eager(f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    with tape_lib.VariableWatcher() as watcher:
        result, grad_fn = f(*args, **kwargs)
    flat_args = flatten_structure(args) + flatten_structure(kwargs)
    variables = [v for v in watcher.watched_variables() if all(v is not a for a in flat_args)]
    _check_variables(grad_fn, variables)
    flat_result = [array_ops.identity(x) for x in flatten_structure(result)]
    inputs = [convert_to_tensor(x) for x in [*flat_args, *variables]]

    def backward(output_grads: list[Any]) -> list[Any]:
        return _call_grad_fn(grad_fn, list(output_grads), variables, len(flat_args))

    tape_lib.record_operation(getattr(f, "__name__", "custom_gradient"), inputs, flat_result, backward)
    return pack_structure(result, flat_result) if isinstance(result, (list, tuple, dict)) else flat_result[0]


def _graph(f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    if kwargs:
        raise ValueError(
            "The custom_gradient decorator currently supports keywords arguments only when eager execution is "
            "enabled."
        )
    args = tuple(pack_structure(a, [convert_to_tensor(x) for x in flatten_structure(a)]) for a in args)
    with tape_lib.VariableWatcher() as watcher:
        result, grad_fn = f(*args)
    flat_args = flatten_structure(args)
    flat_result = flatten_structure(result)
    variables = sorted(watcher.watched_variables(), key=lambda v: v.name)
    _check_variables(grad_fn, variables)
    n_results = len(flat_result)
    name = f"CustomGradient-{next(_NAMES)}"

    @RegisterGradient(name)
    def _grad(op: Any, *result_grads: Any) -> list[Any]:
        grads = _call_grad_fn(grad_fn, list(result_grads[:n_results]), variables, len(flat_args))
        return [None] * n_results + grads

    tensors = [convert_to_tensor(x) for x in [*flat_result, *flat_args, *variables]]
    outputs = array_ops.identity_n(tensors)
    outputs[0].op._set_attr("_gradient_op_type", attr_value_pb2.AttrValue(s=name.encode()))
    for original, passed in zip(tensors, outputs, strict=True):
        passed._handle_data = getattr(original, "_handle_data", None)
    new_result = outputs[:n_results]
    return pack_structure(result, new_result) if isinstance(result, (list, tuple, dict)) else new_result[0]


def custom_gradient(f: Callable[..., Any] | None = None) -> Any:
    """Decorate ``f`` (returning ``(result, grad_fn)``) so gradients through it are ``grad_fn``'s."""
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args: Any, **kwargs: Any) -> Any:
        if executing_eagerly():
            return _eager(f, args, kwargs)
        return _graph(f, args, kwargs)

    return decorated


def recompute_grad(f: Callable[..., Any]) -> Callable[..., Any]:
    """``tf.recompute_grad``: ``f`` whose intermediate values are not kept for the gradient but recomputed.

    The forward call runs with no tape recording, so a tape keeps only the call's arguments and results; the
    gradient runs ``f`` again under a tape of its own (on identities of the arguments, watching them and the
    trainable variables ``f`` read) and differentiates that, unconnected sources getting zeros, as TF does. The
    gradients equal those of ``f`` itself; memory is traded for a second forward pass. In a graph the
    recomputation reads the upstream gradient first (TF's data dependency), so it runs in the backward pass.
    """

    @custom_gradient
    def inner(*args: Any, **kwargs: Any) -> Any:
        with tape_lib.stop_recording():
            result = f(*args, **kwargs)

        def grad_fn(*upstream: Any, variables: list[Any] | None = None) -> Any:
            from modtensor.api import math_ops
            from modtensor.api.backprop import GradientTape, UnconnectedGradients
            from modtensor.framework import dtypes

            with GradientTape() as tape:
                id_args = [array_ops.identity(a) for a in args]
                if not executing_eagerly():
                    # a zero that depends on the first upstream gradient (NaN when its first element is NaN, as TF)
                    first = array_ops.reshape(upstream[0], [-1])[:1]
                    marker = math_ops.reduce_max(first)
                    is_num = math_ops.cast(marker, dtypes.bool)
                    dep = array_ops.where(math_ops.equal(is_num, is_num), 0.0, float("nan"))
                    id_args = [a + math_ops.cast(dep, a.dtype) for a in id_args]
                tape.watch(id_args)
                if variables is not None:
                    tape.watch(variables)
                recomputed = f(*id_args, **kwargs)
            var_list = list(variables) if variables is not None else []
            grads = tape.gradient(
                recomputed, id_args + var_list, output_gradients=list(upstream),
                unconnected_gradients=UnconnectedGradients.ZERO,
            )  # fmt: skip
            if variables is None:
                return grads[: len(id_args)]
            return grads[: len(id_args)], grads[len(id_args) :]

        return result, grad_fn

    return functools.wraps(f)(inner)
