"""``tf.debugging``'s assertions (``Assert``, ``assert_equal``, ``assert_rank``, ``assert_shapes``, ...) as TF 2.21's.

Eagerly an assertion checks at once and raises TensorFlow's error with TF's message
(``InvalidArgumentError`` for values, ``ValueError``/``TypeError`` for what is known
statically). While building a graph it checks what is statically known the same way
and otherwise adds an ``Assert`` op that fails when the graph runs (``assertion failed:
[...] [...]``); the function returns that op (or a ``NoOp`` when the check was decided
statically), so ``control_dependencies`` can order work after it. Inside ``tf.function``
the stateful ``Assert`` always runs.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from modtensor.api import array_ops, context, math_ops
from modtensor.api.dispatch import apply_op
from modtensor.api.logging_ops import apply_stateful_op
from modtensor.api.op_scope import constant_value, convert_to_tensor, op_scope
from modtensor.framework import dtypes, errors, tensor_shape
from modtensor.framework.graph import get_default_graph
from modtensor.framework.tensor import Tensor

__all__ = [
    "Assert",
    "check_numerics",
    "ensure_shape",
    "assert_equal",
    "assert_greater",
    "assert_greater_equal",
    "assert_integer",
    "assert_less",
    "assert_less_equal",
    "assert_near",
    "assert_negative",
    "assert_non_negative",
    "assert_non_positive",
    "assert_none_equal",
    "assert_positive",
    "assert_rank",
    "assert_rank_at_least",
    "assert_rank_in",
    "assert_scalar",
    "assert_shapes",
    "assert_type",
]


# ------------------------------------------------------------------------------ small graph helpers


def _no_op(name: str | None = None) -> Any:
    """None eagerly, else a NoOp named ``name`` (what statically decided checks return)."""
    if context.executing_eagerly():
        return None
    return apply_stateful_op("NoOp", name)


def _group(ops: Sequence[Any]) -> Any:
    """One NoOp depending on ``ops`` (None eagerly)."""
    if context.executing_eagerly():
        return None
    ops = [op for op in ops if op is not None]
    with get_default_graph().control_dependencies(ops):
        return apply_stateful_op("NoOp", None)


def _with_dependencies(dependencies: Sequence[Any], output: Tensor) -> Tensor:
    """``output`` through an Identity that runs after ``dependencies`` (graph mode)."""
    if context.executing_eagerly():
        return output
    deps = [d for d in dependencies if d is not None]
    with get_default_graph().control_dependencies(deps):
        return array_ops.identity(output)


def with_dependencies(dependencies: Sequence[Any], output_tensor: Any, name: str | None = None) -> Any:
    """TF's ``control_flow_ops.with_dependencies``: ``output_tensor`` through an ``Identity`` named
    ``control_dependency`` that is colocated with it and runs after ``dependencies`` (eagerly: ``output_tensor``).

    Unlike :func:`_with_dependencies` it always adds the Identity, also for no dependencies, as TF's image
    functions build it."""
    if context.executing_eagerly():
        return output_tensor
    with op_scope(name, "control_dependency", [*dependencies, output_tensor]) as scope:
        graph = get_default_graph()
        with graph.colocate_with(output_tensor), graph.control_dependencies(list(dependencies)):
            output_tensor = convert_to_tensor(output_tensor)
            return array_ops.identity(output_tensor, name=scope)


def _message_prefix(message: str | None) -> str:
    return f"{message}.  " if message else ""


def _shape_and_dtype_str(tensor: Tensor) -> str:
    return f"shape={tensor.shape} dtype={tensor.dtype.name}"


# ------------------------------------------------------------------------------ Assert


def _summarize_eager(tensor: Tensor, summarize: int | None = None) -> str:
    """TF's eager emulation of ``Tensor::SummarizeValue`` for Assert's message."""
    if summarize is None:
        summarize = 3
    elif summarize < 0:
        summarize = int(np.prod(tensor.shape.as_list(), dtype=np.int64))
    value = tensor.numpy()  # type: ignore[attr-defined]
    if tensor.shape.rank:
        flat = np.asarray(value).reshape((-1,))
        items = [str(x) for x in flat[:summarize]]
        if len(items) < flat.size:
            items.append("...")
    else:
        items = [str(value)] if summarize != 0 else []
    return ", ".join(items)


def Assert(condition: Any, data: Sequence[Any], summarize: int | None = None, name: str | None = None) -> Any:  # noqa: N802
    """Assert that ``condition`` is true; if not, fail showing ``data`` (TF's ``tf.debugging.Assert``).

    Eagerly: raises InvalidArgumentError ``Expected '<condition>' to be true. Summarized data: ...``.
    In a graph: an ``Assert`` op failing with ``assertion failed: [d0] [d1] ...`` at run time.
    """
    if context.executing_eagerly():
        if not condition:
            tensors = [convert_to_tensor(x) for x in data]
            text = "\n".join(_summarize_eager(x, summarize) for x in tensors)
            raise errors.InvalidArgumentError(
                None, None, f"Expected '{condition!s}' to be true. Summarized data: {text}"
            )
        return None
    with op_scope(name, "Assert", [condition, data]):
        tensors = [convert_to_tensor(x) for x in data]
        kwargs: dict[str, Any] = {}
        if summarize is not None:
            kwargs["summarize"] = summarize
        if all(x.dtype in (dtypes.string, dtypes.int32) for x in tensors):
            # TF's heuristic: string and int32 data are on the host, so the Assert needs no guard. As in TF, the
            # op converts ``data`` itself (Python values become ``Assert/data_<i>``; the constants above only
            # decided the dtypes).
            return apply_stateful_op("Assert", "Assert", condition=condition, data=list(data), **kwargs)
        # Other data are computed only when the condition fails: TF's cond named AssertGuard, whose
        # false branch converts ``data`` itself (its constants are the branch's own, as in TF).
        from modtensor.api.cond import cond

        condition = convert_to_tensor(condition, name="Condition")

        def true_assert() -> Any:
            inside = [convert_to_tensor(x) for x in data]
            return apply_stateful_op("Assert", "Assert", condition=condition, data=inside, **kwargs)

        guarded = cond(condition, lambda: _no_op(), true_assert, name="AssertGuard")
        return guarded.op



# ------------------------------------------------------------------------------ element-wise comparisons


def _maybe_constant_value_string(t: Any) -> Any:
    if not isinstance(t, Tensor):
        return str(t)
    known = constant_value(t)
    return str(known) if known is not None else t


def _assert_static(condition: bool, data: Sequence[Any]) -> None:
    if not condition:
        raise errors.InvalidArgumentError(None, None, "\n".join(str(_maybe_constant_value_string(x)) for x in data))


def _make_assert_msg_data(sym: str, x: Tensor, y: Tensor, summarize: Any, test: Tensor) -> list[Any]:
    """The default eager message parts: the failed condition, the differing values, the first elements."""
    data: list[Any] = [f"Condition x {sym} y did not hold."]
    if summarize > 0:
        if x.shape == y.shape and x.shape.as_list():
            mask = math_ops.logical_not(test)
            indices = array_ops.where(mask).numpy()  # type: ignore[attr-defined]
            x_vals = array_ops.boolean_mask(x, mask)
            y_vals = array_ops.boolean_mask(y, mask)
            count = min(summarize, indices.shape[0])
            data.append(f"Indices of first {count} different values:")
            data.append(indices[:count])
            data.append("Corresponding x values:")
            data.append(x_vals.numpy().reshape((-1,))[:count])  # type: ignore[attr-defined]
            data.append("Corresponding y values:")
            data.append(y_vals.numpy().reshape((-1,))[:count])  # type: ignore[attr-defined]
        x_np = np.asarray(x.numpy()).reshape((-1,))  # type: ignore[attr-defined]
        y_np = np.asarray(y.numpy()).reshape((-1,))  # type: ignore[attr-defined]
        x_sum, y_sum = min(x_np.size, summarize), min(y_np.size, summarize)
        data.append(f"First {x_sum} elements of x:")
        data.append(x_np[:x_sum])
        data.append(f"First {y_sum} elements of y:")
        data.append(y_np[:y_sum])
    return data


def _pretty_print(item: Any, summarize: Any) -> str:
    if isinstance(item, Tensor):
        array = item.numpy()  # type: ignore[attr-defined]
        if np.isscalar(array):
            return str(array)
        flat = np.asarray(array).reshape((-1,))
        items = [str(x) for x in flat[:summarize]]
        if len(items) < flat.size:
            items.append("...")
        return str(items)
    return str(item)


def _binary_assert(
    sym: str,
    opname: str,
    op_func: Callable[[Any, Any], Tensor],
    static_func: Callable[[Any, Any], Any],
    x: Any,
    y: Any,
    data: Sequence[Any] | None,
    summarize: int | None,
    message: str | None,
    name: str | None,
) -> Any:
    with op_scope(name, opname, [x, y, data]):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y")
        if context.executing_eagerly():
            test = op_func(x, y)
            if math_ops.reduce_all(test):
                return None
            if summarize is None:
                summarize = 3
            elif summarize < 0:
                summarize = 1e9  # type: ignore[assignment] - TF's "everything"
            if data is None:
                data = _make_assert_msg_data(sym, x, y, summarize, test)
            if message is not None:
                data = [message, *data]
            raise errors.InvalidArgumentError(None, None, "\n".join(_pretty_print(d, summarize) for d in data))
        if data is None:
            data = [f"Condition x {sym} y did not hold element-wise:", f"x ({x.name}) = ", x, f"y ({y.name}) = ", y]
        if message is not None:
            data = [message, *data]
        condition = math_ops.reduce_all(op_func(x, y))
        x_static, y_static = constant_value(x), constant_value(y)
        if x_static is not None and y_static is not None:
            _assert_static(bool(np.all(static_func(x_static, y_static))), data)
        return Assert(condition, data, summarize=summarize)


def assert_equal(
    x: Any, y: Any, message: str | None = None, summarize: int | None = None, name: str | None = None
) -> Any:
    """Assert ``x == y`` element-wise (with broadcasting)."""
    return _assert_equal(x, y, None, summarize, message, name)


def _assert_equal(x: Any, y: Any, data: Any, summarize: Any, message: Any, name: Any) -> Any:
    with op_scope(name, "assert_equal", [x, y, data]):
        if x is y:
            return _no_op()
    return _binary_assert("==", "assert_equal", math_ops.equal, np.equal, x, y, data, summarize, message, name)


def assert_none_equal(
    x: Any, y: Any, summarize: int | None = None, message: str | None = None, name: str | None = None
) -> Any:
    """Assert ``x != y`` element-wise."""
    return _binary_assert(
        "!=", "assert_none_equal", math_ops.not_equal, np.not_equal, x, y, None, summarize, message, name
    )


def _assert_less(x: Any, y: Any, data: Any, summarize: Any, message: Any, name: Any) -> Any:
    return _binary_assert("<", "assert_less", math_ops.less, np.less, x, y, data, summarize, message, name)


def _assert_less_equal(x: Any, y: Any, data: Any, summarize: Any, message: Any, name: Any) -> Any:
    return _binary_assert(
        "<=", "assert_less_equal", math_ops.less_equal, np.less_equal, x, y, data, summarize, message, name
    )


def assert_less(x: Any, y: Any, message: str | None = None, summarize: int | None = None, name: str | None = None):
    """Assert ``x < y`` element-wise."""
    return _assert_less(x, y, None, summarize, message, name)


def assert_less_equal(
    x: Any, y: Any, message: str | None = None, summarize: int | None = None, name: str | None = None
) -> Any:
    """Assert ``x <= y`` element-wise."""
    return _assert_less_equal(x, y, None, summarize, message, name)


def assert_greater(
    x: Any, y: Any, message: str | None = None, summarize: int | None = None, name: str | None = None
) -> Any:
    """Assert ``x > y`` element-wise."""
    return _binary_assert(">", "assert_greater", math_ops.greater, np.greater, x, y, None, summarize, message, name)


def assert_greater_equal(
    x: Any, y: Any, message: str | None = None, summarize: int | None = None, name: str | None = None
) -> Any:
    """Assert ``x >= y`` element-wise."""
    return _binary_assert(
        ">=", "assert_greater_equal", math_ops.greater_equal, np.greater_equal, x, y, None, summarize, message, name
    )


def _unary_assert(
    opname: str,
    lines: Sequence[str],
    compare: Callable[..., Any],
    zero_first: bool,
    x: Any,
    summarize: Any,
    message: Any,
    name: Any,
    data: Sequence[Any] | None = None,
) -> Any:
    """assert_positive/negative/non_negative/non_positive: ``x`` compared with zero, with TF's default message
    (``lines``, ``{name}`` standing for x's name or eagerly its shape and dtype) unless ``data`` (TF 1) is given."""
    message = _message_prefix(message)
    with op_scope(name, opname, [x, data]):
        x = convert_to_tensor(x, name="x")
        if data is None:
            shown = _shape_and_dtype_str(x) if context.executing_eagerly() else x.name
            data = [message, *(line.format(name=shown) for line in lines), x]
        zero = convert_to_tensor(0, dtype=x.dtype)
        if zero_first:
            return compare(zero, x, data, summarize, None, None)
        return compare(x, zero, data, summarize, None, None)


def assert_negative(x: Any, message: str | None = None, summarize: int | None = None, name: str | None = None):
    """Assert ``x < 0`` element-wise."""
    lines = ["Condition x < 0 did not hold element-wise:", "x ({name}) = "]
    return _unary_assert("assert_negative", lines, _assert_less, False, x, summarize, message, name)


def assert_positive(x: Any, message: str | None = None, summarize: int | None = None, name: str | None = None):
    """Assert ``x > 0`` element-wise."""
    lines = ["Condition x > 0 did not hold element-wise:", "x ({name}) = "]
    return _unary_assert("assert_positive", lines, _assert_less, True, x, summarize, message, name)


def assert_positive_v1(
    x: Any, data: Sequence[Any] | None = None, summarize: int | None = None, message: str | None = None,
    name: str | None = None,
) -> Any:
    """TF 1's ``tf.compat.v1.assert_positive``: :func:`assert_positive` whose failure shows ``data`` if given."""
    lines = ["Condition x > 0 did not hold element-wise:", "x ({name}) = "]
    return _unary_assert("assert_positive", lines, _assert_less, True, x, summarize, message, name, data)


def assert_non_negative(x: Any, message: str | None = None, summarize: int | None = None, name: str | None = None):
    """Assert ``x >= 0`` element-wise."""
    lines = ["Condition x >= 0 did not hold element-wise:", "x ({name}) = "]
    return _unary_assert("assert_non_negative", lines, _assert_less_equal, True, x, summarize, message, name)


def assert_non_positive(x: Any, message: str | None = None, summarize: int | None = None, name: str | None = None):
    """Assert ``x <= 0`` element-wise."""
    # TF's source joins these two lines into one (a missing comma); kept, so the messages match TF's.
    lines = ["Condition x <= 0 did not hold element-wise:x ({name}) = "]
    return _unary_assert("assert_non_positive", lines, _assert_less_equal, False, x, summarize, message, name)


def assert_near(
    x: Any,
    y: Any,
    rtol: Any = None,
    atol: Any = None,
    message: str | None = None,
    summarize: int | None = None,
    name: str | None = None,
) -> Any:
    """Assert ``|x - y| < atol + rtol * |y|`` element-wise (default tolerances 10 * the dtype's eps)."""
    message = _message_prefix(message)
    with op_scope(name, "assert_near", [x, y, rtol, atol]):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype)
        dtype = x.dtype.real_dtype if x.dtype.is_complex else x.dtype
        eps = np.finfo(dtype.as_numpy_dtype).eps
        rtol = convert_to_tensor(10 * eps if rtol is None else rtol, name="rtol", dtype=dtype)
        atol = convert_to_tensor(10 * eps if atol is None else atol, name="atol", dtype=dtype)
        if context.executing_eagerly():
            x_name, y_name = _shape_and_dtype_str(x), _shape_and_dtype_str(y)
        else:
            x_name, y_name = x.name, y.name
        data = [
            message,
            f"x and y not equal to tolerance rtol = {rtol!s}, atol = {atol!s}",
            f"x ({x_name}) = ",
            x,
            f"y ({y_name}) = ",
            y,
        ]
        tolerance = atol + rtol * math_ops.abs(y)
        diff = math_ops.abs(x - y)
        condition = math_ops.reduce_all(math_ops.less(diff, tolerance))
        return Assert(condition, data, summarize=summarize)


# ------------------------------------------------------------------------------ ranks, types, shapes


class _StaticRankFailure(ValueError):
    """A statically decided rank check that failed: (actual rank, expected rank or ranks)."""


def _assert_rank_condition(
    x: Tensor,
    ranks: Sequence[Tensor],
    static_condition: Callable[[int, Any], bool],
    dynamic_condition: Callable[[Tensor, Any], Tensor],
    data: Sequence[Any],
    summarize: Any,
    single: bool,
) -> Any:
    """Check statically when the ranks and x's rank are known, else add an Assert on the dynamic condition."""
    for rank in ranks:
        assert_type(rank, dtypes.int32)
    statics = [constant_value(rank) for rank in ranks]
    if all(s is not None for s in statics):
        for s in statics:
            if s.ndim != 0:
                raise ValueError("Rank must be a scalar.")
        actual = x.shape.rank
        if actual is not None:
            expected: Any = statics[0] if single else tuple(statics)
            if not static_condition(actual, expected):
                raise _StaticRankFailure(actual, expected)
            return _no_op("static_checks_determined_all_ok")
    condition = dynamic_condition(array_ops.rank(x), ranks[0] if single else ranks)
    for rank, known in zip(ranks, statics, strict=True):
        if known is None:
            check = _assert_rank(rank, 0, ["Rank must be a scalar. Received rank: ", rank], None, None, None)
            condition = _with_dependencies([check], condition)
    return Assert(condition, data, summarize=summarize)


def _assert_rank(x: Any, rank: Any, data: Any, summarize: Any, message: Any, name: Any) -> Any:
    with op_scope(name, "assert_rank", (x, rank, *(data or []))):
        x = convert_to_tensor(x, name="x")
        rank = convert_to_tensor(rank, name="rank")
        message = _message_prefix(message)
        shown = "" if context.executing_eagerly() else x.name
        if data is None:
            data = [message, f"Tensor {shown} must have rank", rank, "Received shape: ", array_ops.shape(x)]
        try:
            return _assert_rank_condition(x, [rank], lambda a, r: a == r, math_ops.equal, data, summarize, single=True)
        except _StaticRankFailure as e:
            actual, expected = e.args
            raise ValueError(
                f"{message}Tensor {shown} must have rank {int(expected)}.  Received rank {actual}, shape {x.shape}"
            ) from None


def assert_rank(x: Any, rank: Any, message: str | None = None, name: str | None = None) -> Any:
    """Assert that ``x`` has rank ``rank`` (ValueError when known statically)."""
    return _assert_rank(x, rank, None, None, message, name)


def assert_rank_at_least(x: Any, rank: Any, message: str | None = None, name: str | None = None) -> Any:
    """Assert that ``x`` has rank ``rank`` or more."""
    return _assert_rank_at_least(x, rank, None, None, message, name)


def _assert_rank_at_least(x: Any, rank: Any, data: Any, summarize: Any, message: Any, name: Any) -> Any:
    with op_scope(name, "assert_rank_at_least", (x, rank, *(data or []))):
        x = convert_to_tensor(x, name="x")
        rank = convert_to_tensor(rank, name="rank")
        message = _message_prefix(message)
        shown = "" if context.executing_eagerly() else x.name
        if data is None:
            data = [message, f"Tensor {shown} must have rank at least", rank, "Received shape: ", array_ops.shape(x)]
        try:
            return _assert_rank_condition(
                x, [rank], lambda a, r: a >= r, math_ops.greater_equal, data, summarize, single=True
            )
        except _StaticRankFailure as e:
            actual, expected = e.args
            raise ValueError(
                f"{message}Tensor {shown} must have rank at least {int(expected)}.  Received rank {actual}, "
                f"shape {x.shape}"
            ) from None


def _dynamic_rank_in(actual: Tensor, ranks: Sequence[Tensor]) -> Tensor:
    if not ranks:
        return convert_to_tensor(False)
    result = math_ops.equal(ranks[0], actual)
    for rank in ranks[1:]:
        result = math_ops.logical_or(result, math_ops.equal(rank, actual))
    return result


def assert_rank_in(x: Any, ranks: Sequence[Any], message: str | None = None, name: str | None = None) -> Any:
    """Assert that the rank of ``x`` is one of ``ranks``."""
    return _assert_rank_in(x, ranks, None, None, message, name)


def _assert_rank_in(x: Any, ranks: Sequence[Any], data: Any, summarize: Any, message: Any, name: Any) -> Any:
    with op_scope(name, "assert_rank_in", (x, *ranks, *(data or []))):
        x = convert_to_tensor(x, name="x")
        ranks = tuple(convert_to_tensor(rank, name="rank") for rank in ranks)
        message = _message_prefix(message)
        shown = "" if context.executing_eagerly() else x.name
        if data is None:
            data = [message, f"Tensor {shown} must have rank in", *ranks, "Received shape: ", array_ops.shape(x)]
        try:
            return _assert_rank_condition(x, ranks, lambda a, r: a in r, _dynamic_rank_in, data, summarize, False)
        except _StaticRankFailure as e:
            actual, expected = e.args
            raise ValueError(
                f"{message}Tensor {shown} must have rank in {tuple(r.item() for r in expected)}.  Received rank "
                f"{actual}, shape {x.shape}"
            ) from None


def assert_integer(x: Any, message: str | None = None, name: str | None = None) -> Any:
    """Assert that ``x`` has an integer dtype (TypeError otherwise; always decided statically)."""
    with op_scope(name, "assert_integer", [x]):
        x = convert_to_tensor(x, name="x")
        if not x.dtype.is_integer:
            shown = "tensor" if context.executing_eagerly() else x.name
            raise TypeError(
                f'{_message_prefix(message)}Expected "x" to be integer type.  Found: {shown} of dtype {x.dtype}'
            )
        return _no_op("statically_determined_was_integer")


def assert_type(tensor: Any, tf_type: Any, message: str | None = None, name: str | None = None) -> Any:
    """Assert that ``tensor`` has dtype ``tf_type`` (TypeError otherwise; always decided statically)."""
    tf_type = dtypes.as_dtype(tf_type)
    with op_scope(name, "assert_type", [tensor]):
        tensor = convert_to_tensor(tensor, name="tensor")
        if tensor.dtype != tf_type:
            shown = "tensor" if context.executing_eagerly() else tensor.name
            raise TypeError(f"{_message_prefix(message)}{shown} must be of type {tf_type!r}; got {tensor.dtype!r}")
        return _no_op("statically_determined_correct_type")


def assert_scalar(tensor: Any, message: str | None = None, name: str | None = None) -> Any:
    """Assert that ``tensor`` is statically known to be a scalar (ValueError otherwise); returns the tensor."""
    with op_scope(name, "assert_scalar", [tensor]) as scope:
        tensor = convert_to_tensor(tensor, name=scope)
        shape = tensor.shape
        message = _message_prefix(message)
        if shape.rank != 0:
            if context.executing_eagerly():
                raise ValueError(f"{message}Expected scalar shape, saw shape: {shape}.")
            raise ValueError(f"{message}Expected scalar shape for {tensor.name}, saw shape: {shape}.")
        return tensor


_DimSizes = collections.namedtuple("_DimSizes", ["x", "unspecified_dim", "actual_sizes", "symbolic_sizes"])


def _dimension_sizes(x: Tensor) -> Any:
    """Static dims where known, else entries of the dynamic shape; a scalar counts as one dimension of size 1."""
    rank = x.shape.rank
    if rank == 0:
        return (1,)
    if rank is not None:
        dynamic = None
        sizes: list[Any] = []
        for i, size in enumerate(x.shape.as_list()):
            if size is None:
                dynamic = array_ops.shape(x) if dynamic is None else dynamic
                sizes.append(dynamic[i])
            else:
                sizes.append(int(size))
        return sizes
    raise ValueError(
        "assert_shapes needs the rank of each tensor (a tensor of unknown rank would need tf.cond, not built here)"
    )


def _has_known_value(size: Any) -> bool:
    if size is None:
        return False
    try:
        int(size)
    except (TypeError, ValueError):
        return False
    return True


def assert_shapes(
    shapes: Any, data: Any = None, summarize: int | None = None, message: str | None = None, name: str | None = None
) -> Any:
    """Assert that tensors have the symbolic shapes given (``[(x, ("N", "Q")), (y, ("N", 2))]``): sizes named
    by the same symbol must agree; ``None``/``"."`` match any size, a leading ``...``/``"*"`` any leading dims."""
    if isinstance(shapes, dict):
        shapes = shapes.items()
    prefix = _message_prefix(message)
    with op_scope(name, "assert_shapes", [shapes, data]):
        constraints = [(convert_to_tensor(x), s) for x, s in shapes if s is not None]
        eager = context.executing_eagerly()

        def tensor_name(x: Tensor) -> str:
            return _shape_and_dtype_str(x) if eager else x.name

        dim_sizes = []
        for tensor, symbolic in constraints:
            if not (hasattr(symbolic, "__iter__") or hasattr(symbolic, "__getitem__")):
                raise ValueError(
                    f"{prefix}Tensor {tensor_name(tensor)}.  Specified shape must be an iterable.  An iterable has the "
                    f"attribute `__iter__` or `__getitem__`.  Received specified shape: {symbolic}"
                )
            symbols = tuple(symbolic)
            innermost = False
            for i, symbol in enumerate(symbols):
                if symbol is not Ellipsis and symbol != "*":
                    continue
                if i != 0:
                    raise ValueError(
                        f"{prefix}Tensor {tensor_name(tensor)} specified shape index {i}.  Symbol `...` or `*` for a "
                        "variable number of unspecified dimensions is only allowed as the first entry"
                    )
                innermost = True
            given = symbols[1:] if innermost else symbols
            dim_sizes.append(_DimSizes(tensor, innermost, _dimension_sizes(tensor), given or (1,)))

        rank_assertions = []
        for sizes in dim_sizes:
            rank = len(sizes.symbolic_sizes)
            zero_or_one = rank in (0, 1)
            if sizes.unspecified_dim:
                if zero_or_one:
                    continue
                assertion = _assert_rank_at_least(sizes.x, rank, data, summarize, message, name)
            elif zero_or_one:
                assertion = _assert_rank_in(sizes.x, [0, 1], data, summarize, message, name)
            else:
                assertion = _assert_rank(sizes.x, rank, data, summarize, message, name)
            rank_assertions.append(assertion)

        size_assertions = []
        specified: dict[Any, tuple[Any, Tensor, int]] = {}
        for sizes in dim_sizes:
            for i, symbol in enumerate(sizes.symbolic_sizes):
                if symbol is None or symbol == ".":
                    continue
                dim = i - len(sizes.symbolic_sizes) if sizes.unspecified_dim else i
                if symbol in specified or _has_known_value(symbol):
                    if _has_known_value(symbol):
                        expected_size: Any = int(symbol)
                        check_message = "Specified explicitly"
                    else:
                        expected_size, by, at = specified[symbol]
                        check_message = f"Specified by tensor {tensor_name(by)} dimension {at}"
                    actual = sizes.actual_sizes[dim]
                    if _has_known_value(actual) and _has_known_value(expected_size):
                        if int(actual) != int(expected_size):
                            raise ValueError(
                                f"{prefix}{check_message}.  Tensor {tensor_name(sizes.x)} dimension {dim} must have "
                                f"size {int(expected_size)}.  Received size {int(actual)}, shape {sizes.x.shape}"
                            )
                        continue
                    condition = math_ops.equal(convert_to_tensor(actual), convert_to_tensor(expected_size))
                    this_data = data
                    if data is None:
                        this_data = [
                            prefix,
                            check_message,
                            f"Tensor {tensor_name(sizes.x)} dimension",
                            dim,
                            "must have size",
                            expected_size,
                            "Received shape: ",
                            array_ops.shape(sizes.x),
                        ]
                    if eager:
                        Assert(condition, this_data, summarize=summarize)
                    else:
                        with get_default_graph().control_dependencies([a for a in rank_assertions if a is not None]):
                            size_assertions.append(Assert(condition, this_data, summarize=summarize))
                else:
                    specified[symbol] = (sizes.actual_sizes[dim], sizes.x, dim)
        if eager:
            return None
        with get_default_graph().control_dependencies([a for a in rank_assertions if a is not None]):
            return _group(size_assertions)


def check_numerics(tensor: Any, message: str, name: str | None = None) -> Tensor:
    """``tensor`` unchanged, or TF's InvalidArgumentError (``message : Tensor had NaN values``) when it holds a NaN
    or an infinity (the ``CheckNumerics`` op, so a graph checks when it runs)."""
    return apply_op("CheckNumerics", name=name, tensor=tensor, message=message)


# Added with tf.ensure_shape.
def ensure_shape(x: Any, shape: Any, name: str | None = None) -> Tensor:
    """``x`` with its static shape merged with ``shape``, checked again at run time (``EnsureShape``)."""
    if not isinstance(shape, tensor_shape.TensorShape):
        shape = tensor_shape.TensorShape(shape)
    return apply_op("EnsureShape", input=x, shape=shape, name=name)
