"""``tf.gradients``: symbolic gradients in a graph, built from the gradient functions of the ops between xs and ys.

As TensorFlow's ``gradients_util``: the ops on a path from ``xs`` to ``ys`` are
differentiated in reverse order inside the name scope ``gradients`` (each op's gradient
ops under ``gradients/<op name>_grad/``); ``stop_gradients`` tensors are constants;
contributions to one tensor are summed with ``AddN``. Used in v1 graphs and inside
``tf.function`` (eager mode has ``tf.GradientTape``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

from modtensor.api import gradient_engine
from modtensor.api.backprop import UnconnectedGradients, _unconnected_mode, _zeros_for_source
from modtensor.framework import gradient_registry
from modtensor.framework import graph as graph_lib
from modtensor.framework import tape as tape_lib
from modtensor.framework.func_graph import FuncGraph, flatten_structure
from modtensor.framework.graph import Operation, SymbolicTensor

__all__ = ["gradients", "gradients_v2", "hessians"]

# v1 control flow (Switch/Merge/Enter/Exit/NextIteration): TF differentiates it with a control-flow state
# machine modtensor does not have; control flow v2 (If/While, the default) is differentiated.
_V1_CONTROL_FLOW = frozenset(["Switch", "Merge", "Enter", "Exit", "NextIteration", "RefSwitch", "RefMerge", "RefEnter"])


def _scoped_backward(op: Operation) -> Any:
    """``op``'s gradient function under ``<op name>_grad/`` (on the op's device when it has one), as tf.gradients
    names them."""

    def backward(output_grads: list[Any]) -> list[Any]:
        override = op._get_attr_value("_gradient_op_type")
        fn = gradient_registry.gradient_function_for(
            op.name, op.type, override.s.decode() if override is not None and override.s else None
        )
        if fn is None:
            return [None] * len(op.inputs)
        graph = graph_lib.get_default_graph()
        device = op.device
        with graph.name_scope(op.name + "_grad"), graph.device(device) if device else contextlib.nullcontext():
            result = fn(op, *output_grads)
        return tape_lib.normalize_gradients(result, len(op.inputs), op)

    return backward


def _as_graph_tensors(values: Sequence[Any], graph: graph_lib.Graph, what: str) -> list[Any]:
    """``values`` as tensors of ``graph``: variables by their handle, outside tensors captured by a function graph."""
    from modtensor.api.backprop import _handle_or_self
    from modtensor.api.op_scope import convert_to_tensor

    out = []
    for value in values:
        value = _handle_or_self(value)
        if isinstance(value, SymbolicTensor) and value.graph is graph:
            out.append(value)
            continue
        if isinstance(graph, FuncGraph) and hasattr(value, "dtype") and hasattr(value, "shape"):
            out.append(graph.capture(value))
            continue
        if isinstance(value, SymbolicTensor):
            raise ValueError(f"{what} tensor {value.name} is not an element of this graph.")
        out.append(convert_to_tensor(value))
    return out


def gradients(
    ys: Any,
    xs: Any,
    grad_ys: Any = None,
    name: str = "gradients",
    colocate_gradients_with_ops: bool = False,
    gate_gradients: bool = False,
    aggregation_method: Any = None,
    stop_gradients: Any = None,
    unconnected_gradients: Any = UnconnectedGradients.NONE,
) -> list[Any]:
    """The symbolic partial derivatives of ``sum(ys)`` with respect to each of ``xs`` (TF 1's ``tf.gradients``).

    ``grad_ys`` weights ``ys`` (default ones); ``stop_gradients`` are held constant;
    an x that ``ys`` do not depend on gets None (or zeros with ``unconnected_gradients="zero"``).
    """
    del colocate_gradients_with_ops, gate_gradients, aggregation_method
    from modtensor.api.context import executing_eagerly

    if executing_eagerly() and not graph_lib._default_graph_stack():
        raise RuntimeError(
            "tf.gradients is not supported when eager execution is enabled. Use tf.GradientTape instead."
        )
    mode = _unconnected_mode(unconnected_gradients)
    graph = graph_lib.get_default_graph()
    ys_list = flatten_structure(ys)
    xs_raw = flatten_structure(xs)
    with graph.name_scope(name):
        ys_t = _as_graph_tensors(ys_list, graph, "ys")
        xs_t = _as_graph_tensors(xs_raw, graph, "xs")
        stops = {id(t) for t in _as_graph_tensors(flatten_structure(stop_gradients or []), graph, "stop_gradients")}
        grads_given = [None] * len(ys_t) if grad_ys is None else flatten_structure(grad_ys)
        if len(grads_given) != len(ys_t):
            raise ValueError(f"Passed {len(grads_given)} grad_ys for {len(ys_t)} ys")
        seeds = _seeds(ys_t, grads_given)
        between = gradient_engine.ops_between(graph, xs_t)
        nodes: dict[Operation, gradient_engine.GraphOpNode] = {}

        def producer(t: Any) -> gradient_engine.GraphOpNode | None:
            if id(t) in stops or not isinstance(t, SymbolicTensor):
                return None
            op = t.op
            if op not in between:
                return None
            node = nodes.get(op)
            if node is None:
                if op.type in _V1_CONTROL_FLOW:
                    raise NotImplementedError(
                        f"Gradients through the v1 control-flow op '{op.name}' ({op.type}) are not supported: build "
                        "the loop or cond with control flow v2 (the default; compat.v1.enable_control_flow_v2())."
                    )
                node = nodes[op] = gradient_engine.GraphOpNode(op, _scoped_backward(op))
            return node

        grads = gradient_engine.backward(
            ys_t, seeds, xs_t, producer, describe=lambda n: f"op '{n.op.name}' ({n.op_type})"
        )
        if mode is UnconnectedGradients.ZERO:
            grads = [_zeros_for_source(xs_raw[i]) if g is None else g for i, g in enumerate(grads)]
    return grads


def _seeds(ys: Sequence[Any], grad_ys: Sequence[Any]) -> list[Any]:
    from modtensor.api import array_ops
    from modtensor.api.op_scope import convert_to_tensor

    seeds = []
    for i, (y, g) in enumerate(zip(ys, grad_ys, strict=True)):
        if g is None:
            if y.dtype.is_complex:
                raise TypeError(f"Gradients of complex tensors ({y}) must set grad_ys (y.dtype = {y.dtype.name})")
            seeds.append(array_ops.ones_like(y, name=f"grad_ys_{i}") if tape_lib.is_trainable_dtype(y.dtype) else None)
        else:
            seeds.append(convert_to_tensor(g, dtype=y.dtype, name=f"grad_ys_{i}"))
    return seeds


def gradients_v2(
    ys: Any,
    xs: Any,
    grad_ys: Any = None,
    name: str = "gradients",
    gate_gradients: bool = False,
    aggregation_method: Any = None,
    stop_gradients: Any = None,
    unconnected_gradients: Any = UnconnectedGradients.NONE,
) -> list[Any]:
    """TF 2's ``tf.gradients`` (no ``colocate_gradients_with_ops``): valid inside ``tf.function`` and v1 graphs."""
    return gradients(
        ys,
        xs,
        grad_ys=grad_ys,
        name=name,
        gate_gradients=gate_gradients,
        aggregation_method=aggregation_method,
        stop_gradients=stop_gradients,
        unconnected_gradients=unconnected_gradients,
    )


def hessians(
    ys: Any, xs: Any, name: str = "hessians", gate_gradients: bool = False, aggregation_method: Any = None
) -> list[Any]:
    """The Hessian of ``sum(ys)`` with respect to each x: ``[x.shape + x.shape]`` (TF's ``tf.hessians``)."""
    del gate_gradients, aggregation_method
    from modtensor.api import array_ops

    xs_list = flatten_structure(xs)
    graph = graph_lib.get_default_graph()
    results = []
    with graph.name_scope(name):
        for x, g in zip(xs_list, gradients(ys, xs_list), strict=True):
            if g is None:
                results.append(None)
                continue
            shape = x.shape
            if not shape.is_fully_defined():
                raise ValueError(f"tf.hessians needs a fully defined shape of {x}, got {shape}.")
            n = int(shape.num_elements())
            flat = array_ops.reshape(g, [-1])
            rows = []
            for i in range(n):
                (row,) = gradients(array_ops.gather(flat, i), [x])
                rows.append(array_ops.zeros_like(x) if row is None else row)
            stacked = array_ops.stack(rows, axis=0)
            results.append(array_ops.reshape(stacked, shape.as_list() + shape.as_list()))
    return results
