"""``tf.cond``, ``tf.case`` and ``tf.switch_case`` with TensorFlow 2.21's semantics and error texts.

Eagerly the predicate is read and the chosen Python function runs (TF's eager cond).
While a graph is built with control flow v2 (always in ``tf.function``; in v1 graphs
unless disabled, see ``control_flow_util``), each branch is traced into a FuncGraph, the
branches' captured tensors become the op's inputs (the same inputs, in the same order,
for every branch: a branch that does not use one gets a placeholder for it), and one
``If`` (``StatelessIf`` when no branch has a stateful op) or ``Case``/``StatelessCase``
node calls the branch functions, as TF's cond_v2 builds it: ``_lower_using_switch_merge``
set, ``output_shapes`` the most specific shapes both branches fit, an ``Identity`` after
each output. With control flow v2 disabled, v1 graphs get ``Switch``/``Merge``
(``api/control_flow_v1.py``).
"""

from __future__ import annotations

import collections
import contextlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from modtensor.api import control_flow_util as util
from modtensor.api import dispatch
from modtensor.framework import dtypes, tensor_shape
from modtensor.framework.func_graph import (
    CondBranchFuncGraph,
    FuncGraph,
    flatten_structure,
    func_graph_from_py_func,
    is_namedtuple,
    pack_structure,
)
from modtensor.framework.graph import SymbolicTensor
from modtensor.framework.protos import attr_value_pb2
from modtensor.framework.tensor import Tensor

__all__ = ["case", "case_v1", "cond", "cond_v1", "switch_case"]

_COND, _CASE = 1, 2


def _executing_eagerly() -> bool:
    from modtensor.api.context import executing_eagerly

    return executing_eagerly()


# ============================================================================ tf.cond


def cond(pred: Any, true_fn: Callable[[], Any] | None = None, false_fn: Callable[[], Any] | None = None,
         name: str | None = None) -> Any:  # fmt: skip
    """``true_fn()`` if ``pred`` is true else ``false_fn()`` (TF 2's ``tf.cond``: strict structures)."""
    return cond_v1(pred, true_fn=true_fn, false_fn=false_fn, strict=True, name=name)


def cond_v1(
    pred: Any,
    true_fn: Callable[[], Any] | None = None,
    false_fn: Callable[[], Any] | None = None,
    strict: bool = False,
    name: str | None = None,
    fn1: Callable[[], Any] | None = None,
    fn2: Callable[[], Any] | None = None,
) -> Any:
    """TF 1's ``tf.compat.v1.cond``: like ``cond``; without ``strict`` a singleton list result is unpacked."""
    if fn1 is not None:
        if true_fn is not None:
            raise TypeError("cond(): 'true_fn' and 'fn1' may not be set simultaneously.")
        true_fn = fn1
    elif true_fn is None:
        raise TypeError("cond(): 'true_fn' argument required")
    if fn2 is not None:
        if false_fn is not None:
            raise TypeError("cond(): 'false_fn' and 'fn2' may not be set simultaneously.")
        false_fn = fn2
    elif false_fn is None:
        raise TypeError("cond(): 'false_fn' argument required")
    if not callable(true_fn):
        raise TypeError("'true_fn' must be callable.")
    if not callable(false_fn):
        raise TypeError("'false_fn' must be callable.")
    if _executing_eagerly():
        return _eager_cond(pred, true_fn, false_fn, strict, name)
    graph = util.default_graph()
    if util.use_control_flow_v2(graph):
        result = cond_v2(pred, true_fn, false_fn, name)
        return result if strict else _unpack_if_singleton(result)
    from modtensor.api import control_flow_v1

    return control_flow_v1.cond(pred, true_fn, false_fn, strict, name)


def _unpack_if_singleton(result: Any) -> Any:
    if isinstance(result, (list, tuple)) and len(result) == 1:
        return result[0]
    return result


def _eager_cond(pred: Any, true_fn: Callable[[], Any], false_fn: Callable[[], Any], strict: bool, name: Any) -> Any:
    """TF's eager cond: the predicate's value picks the function, which runs now."""
    from modtensor.api.context import name_scope

    value = _eager_value(pred)
    with name_scope(name or "cond"):
        result = true_fn() if bool(np.asarray(value).all() if np.asarray(value).size else False) else false_fn()
    return result if strict else _unpack_if_singleton(result)


def _eager_value(pred: Any) -> Any:
    from modtensor.api.constant_op import convert_to_tensor

    tensor = convert_to_tensor(pred)
    return tensor.numpy()


# ============================================================================ cond_v2


def _normalize_pred(pred: Any) -> Any:
    """The predicate as a tensor; a non-scalar (or unknown-rank) one squeezed, as TF does.

    A tensor of an enclosing graph stays as it is: it is captured when the If node is made.
    """
    tensor = util.as_tensor(pred)
    if tensor.shape.rank is None or tensor.shape.rank:
        tensor = dispatch.apply_op("Squeeze", input=tensor, squeeze_dims=[])
    return tensor


def _branch_graph(name: str, fn: Callable[[], Any], op_return_value: Any) -> FuncGraph:
    graph = util.default_graph()
    return func_graph_from_py_func(
        name, fn, [], {}, [], func_graph=CondBranchFuncGraph(name, graph), op_return_value=op_return_value
    )


def cond_v2(pred: Any, true_fn: Callable[[], Any], false_fn: Callable[[], Any], name: str | None = "cond") -> Any:
    """One ``If``/``StatelessIf`` node running the traced branches (TF's cond_v2)."""
    if isinstance(pred, bool):
        raise TypeError("pred must not be a Python bool", pred)
    graph = util.default_graph()
    with graph.name_scope(name or "cond") as scope:
        true_name = util.unique_fn_name(scope, "true")
        false_name = util.unique_fn_name(scope, "false")
        pred = _normalize_pred(pred)
        true_graph = _branch_graph(true_name, true_fn, pred)
        false_graph = _branch_graph(false_name, false_fn, pred)
        _verify_captures(_COND, [true_graph, false_graph])
        return _build(_COND, pred, [true_graph, false_graph], scope, prevent_lowering=False)


def _verify_captures(op_type: int, branches: Sequence[FuncGraph]) -> None:
    """TF's check that no branch reads a tensor made inside another branch."""
    index = {id(g): i for i, g in enumerate(branches)}
    for i, branch in enumerate(branches):
        for t in branch.external_captures:
            owner = getattr(t, "graph", None)
            if isinstance(t, SymbolicTensor) and id(owner) in index:
                names = ["true_fn", "false_fn"] if op_type == _COND else [f"branch {b}" for b in range(len(branches))]
                raise ValueError(f"Tensor {t.name} in {names[index[id(owner)]]} is accessed from {names[i]}.")


def _check_same_outputs(op_type: int, graphs: Sequence[FuncGraph]) -> None:
    """TF's error when branches differ in number, type or structure of results."""

    def error(b: int, detail: str) -> TypeError:
        b0 = "true_fn" if op_type == _COND else "branches[0]"
        bn = "false_fn" if op_type == _COND else f"branches[{b}]"
        op_name = "tf.cond" if op_type == _COND else "tf.switch_case"
        return TypeError(
            f"{b0} and {bn} arguments to {op_name} must have the same number, type, and overall structure of "
            f"return values.\n\n{b0} output: {_structure_repr(graphs[0].structured_outputs)}\n"
            f"{bn} output: {_structure_repr(graphs[b].structured_outputs)}\n\nError details:\n{detail}"
        )

    for b in range(1, len(graphs)):
        problem = structure_error(graphs[0].structured_outputs, graphs[b].structured_outputs)
        if problem is not None:
            raise error(b, str(problem))
        if len(graphs[0].outputs) != len(graphs[b].outputs):
            kind = "cond" if op_type == _COND else "case"
            raise ValueError(
                f"Lengths of branch outputs of {kind} must match.\nlen(graphs[0].outputs): {len(graphs[0].outputs)}\n"
                f"len(graphs[{b}].outputs): {len(graphs[b].outputs)}\n"
            )
        for first, other in zip(graphs[0].outputs, graphs[b].outputs, strict=True):
            if first.dtype != other.dtype:
                raise error(b, f"{first} and {other} have different types")


def _structure_repr(structure: Any) -> str:
    return f"{structure}"


def structure_error(a: Any, b: Any, check_types: bool = True) -> Exception | None:
    """None when ``a`` and ``b`` nest alike, else the error TF's nest.assert_same_structure raises.

    A different kind of sequence (a list for a tuple) is a TypeError, anything else a
    ValueError; without ``check_types`` lists and tuples count as the same kind.
    """
    mismatch = _first_mismatch(a, b, check_types)
    if mismatch is None:
        return None
    x, y, detail = mismatch
    cls = TypeError if detail.startswith("The two namedtuples don't have the same sequence type") else ValueError
    return cls(
        "The two structures don't have the same nested structure.\n\n"
        f"First structure: type={type(a).__name__} str={a}\n\n"
        f"Second structure: type={type(b).__name__} str={b}\n\n"
        f"More specifically: {detail}"
    )


def _first_mismatch(a: Any, b: Any, check_types: bool) -> tuple[Any, Any, str] | None:
    ka, kb = _kind(a), _kind(b)
    sa = f'"type={type(a).__name__} str={a}"'
    sb = f'"type={type(b).__name__} str={b}"'
    if (ka == "leaf") != (kb == "leaf"):
        if ka != "leaf":
            return a, b, f"Substructure {sa} is a sequence, while substructure {sb} is not"
        return b, a, f"Substructure {sb} is a sequence, while substructure {sa} is not"
    if ka == "leaf":
        return None
    same_kind = ka == kb and (type(a) is type(b) or not check_types)
    if not same_kind:
        return (
            a,
            b,
            (
                "The two namedtuples don't have the same sequence type. "
                f"First structure type={type(a).__name__} str={a} has type {type(a).__name__}, "
                f"while second structure type={type(b).__name__} str={b} has type {type(b).__name__}"
            ),
        )
    if ka == "mapping":
        if sorted(a) != sorted(b):
            return (
                a,
                b,
                f"The two dictionaries don't have the same set of keys. First structure has keys "
                f"{sorted(a)}, while second structure has keys {sorted(b)}.",
            )
        items = [(a[k], b[k]) for k in sorted(a)]
    else:
        if len(a) != len(b):
            return a, b, f"Substructure {sa} has length {len(a)}, while substructure {sb} has length {len(b)}"
        items = list(zip(a, b, strict=True))
    for x, y in items:
        found = _first_mismatch(x, y, check_types)
        if found is not None:
            return found
    return None


def _kind(value: Any) -> str:
    if is_namedtuple(value) and not isinstance(value, (list, tuple)):  # pragma: no cover - namedtuples are tuples
        return "namedtuple"
    if isinstance(value, (list, tuple)):
        return "sequence"
    if isinstance(value, collections.abc.Mapping):
        return "mapping"
    return "leaf"


def _make_inputs_match(graphs: Sequence[FuncGraph]) -> list[Any]:
    """Give every branch the same inputs (the union of their captures, in order); returns the outside tensors."""
    new_inputs: list[Any] = []
    seen: set[int] = set()
    for g in graphs:
        for t in g.external_captures:
            if id(t) not in seen:
                seen.add(id(t))
                new_inputs.append(t)
    for g in graphs:
        params = {id(external): internal for external, internal in g.captures}
        inputs = []
        for t in new_inputs:
            param = params.get(id(t))
            if param is None:
                with g.as_default():
                    param = g.make_placeholder(t.dtype, t.shape, "Placeholder")
            inputs.append(param)
        g.inputs = inputs
        g.reset_captures(new_inputs, inputs)
    return new_inputs


def _output_shapes(graphs: Sequence[FuncGraph]) -> list[tensor_shape.TensorShape]:
    shapes = []
    for outs in zip(*[g.outputs for g in graphs], strict=True):
        shape = outs[0].shape
        for other in outs[1:]:
            shape = shape.most_specific_compatible_shape(other.shape)
        shapes.append(shape)
    return shapes


def _shape_list_attr(shapes: Sequence[tensor_shape.TensorShape]) -> attr_value_pb2.AttrValue:
    value = attr_value_pb2.AttrValue()
    value.list.shape.extend(s.as_proto() for s in shapes)
    value.list.SetInParent()
    return value


def _build(op_type: int, selector: SymbolicTensor, graphs: list[FuncGraph], scope: str, prevent_lowering: bool) -> Any:
    """The If/Case node for ``graphs`` reading ``selector`` and the branches' captures; the packed outputs."""
    graph = util.default_graph()
    counts = [len(flatten_structure(g.structured_outputs)) for g in graphs]
    if len(set(counts)) != 1:
        raise AssertionError(counts)  # TF's assert in _make_indexed_slices_indices_types_match
    _check_same_outputs(op_type, graphs)
    outside = _make_inputs_match(graphs)
    selector, *inputs = util.inputs_in_graph(graph, [selector, *outside])
    stateful = bool(util.stateful_ops(graphs))
    names = [util.create_function(g, graph) for g in graphs]
    attrs: dict[str, Any] = {
        "Tin": attr_value_pb2.AttrValue(
            list=attr_value_pb2.AttrValue.ListValue(type=[t.dtype.as_datatype_enum for t in inputs])
        ),
        "Tout": attr_value_pb2.AttrValue(
            list=attr_value_pb2.AttrValue.ListValue(type=[t.dtype.as_datatype_enum for t in graphs[0].outputs])
        ),
        "output_shapes": _shape_list_attr(_output_shapes(graphs)),
    }
    if op_type == _COND:
        op_type_name = "If" if stateful else "StatelessIf"
        attrs["then_branch"] = util.func_attr(names[0])
        attrs["else_branch"] = util.func_attr(names[1])
        attrs["Tcond"] = attr_value_pb2.AttrValue(type=selector.dtype.as_datatype_enum)
    else:
        op_type_name = "Case" if stateful else "StatelessCase"
        branches = attr_value_pb2.AttrValue()
        for name in names:
            branches.list.func.add(name=name)
        attrs["branches"] = branches
    op = graph.create_op(op_type_name, [selector, *inputs], name=scope, attrs=attrs)
    op._set_attr(util.LOWER_USING_SWITCH_MERGE, attr_value_pb2.AttrValue(b=not prevent_lowering))
    op._set_attr("_read_only_resource_inputs", attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue()))
    for g in graphs:
        g.outer_graph = graph
    op._modtensor_branch_graphs = list(graphs)  # the gradient (api/gradients/control_flow_grad.py) reads them
    with graph.name_scope(scope):
        tensors = [graph.create_op("Identity", [t], name="Identity").outputs[0] for t in op.outputs]
    structure = graphs[0].structured_outputs
    flat = flatten_structure(structure)
    it = iter(tensors)
    return pack_structure(structure, [None if leaf is None else next(it) for leaf in flat])


# ============================================================================ tf.switch_case


def switch_case(
    branch_index: Any, branch_fns: Any, default: Callable[[], Any] | None = None, name: str = "switch_case"
) -> Any:
    """``branch_fns[branch_index]()``, or ``default()`` (the last branch when None) for an index out of range."""
    actions = _indexed_case_args(branch_fns, default, branch_index)
    from modtensor.api.context import name_scope

    if _executing_eagerly() and not isinstance(branch_index, SymbolicTensor):
        with name_scope(name or "case"):
            index = int(np.asarray(_eager_value(branch_index)))
            if index < 0 or index >= len(actions):
                index = len(actions) - 1
            return actions[index]()
    graph = util.default_graph()
    with graph.name_scope(name or "case"):
        return indexed_case(branch_index, actions)


def _indexed_case_args(branch_fns: Any, default: Any, branch_index: Any) -> list[Callable[[], Any]]:
    if not isinstance(branch_index, Tensor):
        raise TypeError(f"'branch_index' must be a Tensor, got {type(branch_index)}")
    if not branch_index.dtype.is_integer:
        raise TypeError(f"'branch_index' must be an integer Tensor, got {branch_index.dtype}")
    if not branch_fns:
        raise ValueError("Must provide at least one item in 'branch_fns'")
    if not isinstance(branch_fns, (list, tuple, dict)):
        raise TypeError("'branch_fns' must be a list, tuple, or dict")
    if isinstance(branch_fns, dict):
        branch_fns = list(branch_fns.items())
    if all(callable(fn) for fn in branch_fns):
        branch_fns = list(enumerate(branch_fns))
    for pair in branch_fns:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'branch_fns' must be a 2-tuple. Received {pair}.")
        key, fn = pair
        if not isinstance(key, int):
            raise TypeError(f"key must be a Python `int`, got {type(key)}")
        if not callable(fn):
            raise TypeError(f"fn for key {key} must be callable.")
    keys = [p[0] for p in branch_fns]
    if min(keys) < 0 or max(keys) >= len(keys) or len(set(keys)) != len(keys):
        found = ",".join(map(str, sorted(keys)))
        raise ValueError(
            f"branch indices (keys) must form contiguous range of [0 to {len(keys)}) but found {{{found}}}"
        )
    actions = [p[1] for p in sorted(branch_fns, key=lambda p: p[0])]
    if default is not None:
        actions.append(default)
    return actions


def indexed_case(branch_index: Any, branch_fns: Sequence[Callable[[], Any]], name: str = "indexed_case") -> Any:
    """One ``Case``/``StatelessCase`` node running the traced branches (TF's cond_v2.indexed_case)."""
    if isinstance(branch_index, int):
        raise TypeError("branch_index must not be a Python int", branch_index)
    graph = util.default_graph()
    with graph.name_scope(name) as scope:
        branch_names = [util.unique_fn_name(scope, f"branch{b}") for b in range(len(branch_fns))]
        index = util.as_tensor(branch_index)
        graphs = [_branch_graph(n, fn, index) for n, fn in zip(branch_names, branch_fns, strict=True)]
        _verify_captures(_CASE, graphs)
        return _build(_CASE, index, graphs, scope, prevent_lowering=False)


# ============================================================================ tf.case


def case(
    pred_fn_pairs: Any,
    default: Callable[[], Any] | None = None,
    exclusive: bool = False,
    strict: bool = False,
    name: str = "case",
) -> Any:
    """The result of the first pair whose predicate is true, else ``default()`` (TF 2's ``tf.case``)."""
    return _case_helper(pred_fn_pairs, default, exclusive, name, strict=strict)


def case_v1(
    pred_fn_pairs: Any,
    default: Callable[[], Any] | None = None,
    exclusive: bool = False,
    strict: bool = False,
    name: str = "case",
) -> Any:
    """TF 1's ``tf.compat.v1.case`` (the same, Python bools allowed as predicates)."""
    return _case_helper(pred_fn_pairs, default, exclusive, name, strict=strict, allow_python_preds=True)


def _case_helper(
    pred_fn_pairs: Any,
    default: Callable[[], Any] | None,
    exclusive: bool,
    name: str,
    strict: bool,
    allow_python_preds: bool = False,
) -> Any:
    predicates, actions = _case_args(pred_fn_pairs, exclusive, name, allow_python_preds)
    from modtensor.api.context import name_scope

    with name_scope(name or "case"):
        if default is None:
            default, predicates, actions = _case_default_action(predicates, actions)
        fn = default
        for predicate, action in reversed(list(zip(predicates, actions, strict=True))):
            fn = _bind_cond(predicate, action, fn, strict)
        if exclusive:
            with _control_dependencies([_assert_at_most_n_true(predicates, 1, "Input error: exclusive=True")]):
                return fn()
        return fn()


def _bind_cond(predicate: Any, action: Callable[[], Any], otherwise: Callable[[], Any], strict: bool) -> Any:
    return lambda: cond_v1(predicate, true_fn=action, false_fn=otherwise, strict=strict)


def _case_args(pred_fn_pairs: Any, exclusive: bool, name: str, allow_python_preds: bool) -> tuple[list, list]:
    if not isinstance(pred_fn_pairs, (list, tuple, dict)):
        raise TypeError(f"'pred_fn_pairs' must be a list, tuple, or dict. Received: {type(pred_fn_pairs)}")
    if isinstance(pred_fn_pairs, collections.OrderedDict):
        pred_fn_pairs = list(pred_fn_pairs.items())
    elif isinstance(pred_fn_pairs, dict):
        if _executing_eagerly():
            if not exclusive:
                raise ValueError(
                    "Unordered dictionaries are not supported for the 'pred_fn_pairs' argument when "
                    "`exclusive=False` and eager mode is enabled."
                )
            pred_fn_pairs = list(pred_fn_pairs.items())
        else:
            pred_fn_pairs = sorted(pred_fn_pairs.items(), key=lambda item: item[0].name)
    for pair in pred_fn_pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'pred_fn_pairs' must be a 2-tuple. Received {pair}.")
        pred, fn = pair
        if isinstance(pred, Tensor):
            if pred.dtype != dtypes.bool:
                raise TypeError(f"pred must be Tensor of type bool: {pred.name}")
        elif not allow_python_preds:
            raise TypeError(f"pred must be a Tensor, got: {pred}")
        elif not isinstance(pred, bool):
            raise TypeError(f"pred must be a Tensor or bool, got: {pred}")
        if not callable(fn):
            raise TypeError(f"fn for pred {getattr(pred, 'name', pred)} must be callable.")
    if not pred_fn_pairs:
        return [], []
    predicates, actions = zip(*pred_fn_pairs, strict=True)
    return list(predicates), list(actions)


def _case_default_action(predicates: list, actions: list) -> tuple[Callable[[], Any], list, list]:
    """TF's default for a case without one: the last pair, run after asserting that its predicate holds."""
    k = len(predicates) - 1
    predicate, action = predicates[k], actions[k]
    others, other_actions = predicates[:k], actions[:k]

    def default_action() -> Any:
        others_msg = (
            f"Implementation error: selected default action #{k} was called, but some of other predicates are True: "
        )
        default_msg = (
            "Input error: None of conditions evaluated as True:",
            dispatch.apply_op("Pack", name="preds_c", values=list(predicates), axis=0),
        )
        with _control_dependencies(
            [_assert_at_most_n_true(others, 0, others_msg), _assert(predicate, list(default_msg))]
        ):
            return action()

    return default_action, others, other_actions


def _control_dependencies(ops: list[Any]) -> Any:
    """Run what follows after ``ops`` in a graph; eagerly they already ran."""
    if _executing_eagerly():
        return contextlib.nullcontext()
    return util.default_graph().control_dependencies([op for op in ops if op is not None])


def _assert(condition: Any, data: list[Any], summarize: int | None = None) -> Any:
    """TF's ``control_flow_assert.Assert`` (eagerly: raise InvalidArgumentError now when ``condition`` is false)."""
    from modtensor.api.check_ops import Assert

    return Assert(condition, data, summarize=summarize)


def _assert_at_most_n_true(predicates: list, n: int, msg: str) -> Any:
    """An Assert that at most ``n`` of ``predicates`` are true (TF's ``_assert_at_most_n_true``)."""
    if not predicates:
        return None
    preds = dispatch.apply_op("Pack", name="preds_c", values=list(predicates), axis=0)
    as_int = dispatch.apply_op("Cast", x=preds, DstT=dtypes.int32)
    from modtensor.api.math_ops import reduce_sum

    # TF's reduce_sum without axis: its reduction indices are a Const made outside the op's scope.
    num_true = reduce_sum(as_int, name="num_true_conds")
    from modtensor.api.op_scope import convert_to_tensor

    condition = dispatch.apply_op("LessEqual", x=num_true, y=convert_to_tensor(np.int32(n), name="n_true_conds"))
    names = ", ".join(_tensor_name(p) for p in predicates)
    return _assert(condition, [f"{msg}: more than {n} conditions ({names}) evaluated as True:", preds], len(predicates))


def _tensor_name(t: Any) -> str:
    """``getattr(t, "name", "?")`` as TF's: an eager tensor has no name."""
    if _executing_eagerly() and isinstance(t, Tensor):
        return "?"
    return getattr(t, "name", "?")
