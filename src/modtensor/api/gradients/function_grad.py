"""Gradients of function calls: a forward function that also returns what the backward function needs.

TensorFlow's scheme (``_TapeGradientFunctions`` / ``_DelayedRewriteGradientFunctions``): the
backward FuncGraph is built from the forward FuncGraph's ops with their gradient functions;
the forward tensors it reads are captured, and those captures become extra outputs of the
forward call, so the backward call reuses the forward intermediates instead of recomputing
them. An eager call under a tape runs the forward function with its extra outputs and
records one op whose backward function calls the backward function
(``ConcreteFunction._call_flat``); in a graph, the ``PartitionedCall``'s gradient rewrites the
call op to the extended forward function once and adds a call of the backward function.
"""

from __future__ import annotations

import itertools
import threading
import weakref
from collections.abc import Sequence
from typing import Any

from modtensor.api import gradient_engine
from modtensor.framework import tape as tape_lib
from modtensor.framework.func_graph import FuncGraph
from modtensor.framework.gradient_registry import RegisterGradient
from modtensor.framework.graph import Operation, SymbolicTensor

__all__ = ["GradientPair", "gradient_pair", "register_function_graph"]

_IDS = itertools.count(1)
_LOCK = threading.Lock()
# Function name -> its FuncGraph, for the gradients of call ops naming it (traced functions register here).
_FUNCTION_GRAPHS: weakref.WeakValueDictionary[str, FuncGraph] = weakref.WeakValueDictionary()


def register_function_graph(name: str, graph: FuncGraph) -> None:
    """Remember that the function ``name`` was made from ``graph`` (its call ops' gradients need the graph)."""
    _FUNCTION_GRAPHS[name] = graph


class _GraphOpNode:
    """An op of the forward FuncGraph, seen by the backward pass that builds the backward FuncGraph."""

    __slots__ = ("accepts_none", "inputs", "op", "op_type", "outputs")

    def __init__(self, op: Operation):
        self.op = op
        self.op_type = op.type
        self.inputs = op.inputs
        self.outputs = op.outputs
        self.accepts_none = tape_lib._ACCEPTS_NONE.get(op.type, frozenset())

    def backward(self, output_grads: list[Any]) -> Sequence[Any]:
        return tape_lib.op_backward(self.op)(output_grads)


class GradientPair:
    """The backward function of one forward FuncGraph and what it needs from a forward call.

    ``grad_outputs``: the forward outputs (indices) that get an incoming gradient (the
    backward function's first inputs); ``extras``: the forward tensors (or outside tensors)
    it reads, fed after those; ``input_indices``: for each backward output, the forward
    input (argument or capture) it is the gradient of.
    """

    def __init__(
        self,
        backward: Any,
        grad_outputs: list[int],
        extras: list[Any],
        input_indices: list[int],
    ):
        self.backward = backward
        self.grad_outputs = grad_outputs
        self.extras = extras
        self.input_indices = input_indices

    def extra_values(self, forward: FuncGraph, inputs: Sequence[Any], fetched: Sequence[Any]) -> list[Any]:
        """The values of ``extras`` for one call: forward placeholders are the call's ``inputs``, forward
        intermediates come from ``fetched`` (in :meth:`fetched_extras` order), outside tensors are themselves."""
        placeholder_index = {id(p): i for i, p in enumerate(forward.inputs)}
        fetched_iter = iter(fetched)
        values = []
        for extra in self.extras:
            if isinstance(extra, SymbolicTensor) and extra.graph is forward:
                index = placeholder_index.get(id(extra))
                values.append(inputs[index] if index is not None else next(fetched_iter))
            else:
                values.append(extra)
        return values

    def fetched_extras(self, forward: FuncGraph) -> list[SymbolicTensor]:
        """The forward intermediates a forward call must also return (the extras that are not its inputs)."""
        placeholders = {id(p) for p in forward.inputs}
        return [
            e for e in self.extras if isinstance(e, SymbolicTensor) and e.graph is forward and id(e) not in placeholders
        ]

    def input_gradients(self, results: Sequence[Any], num_inputs: int) -> list[Any]:
        """The backward function's results spread over the forward inputs (None where there is no gradient)."""
        grads: list[Any] = [None] * num_inputs
        for k, index in enumerate(self.input_indices):
            grads[index] = results[k]
        return grads


def _densify(grad: Any) -> Any:
    from modtensor.api.indexed_slices import IndexedSlices
    from modtensor.api.op_scope import convert_to_tensor

    return convert_to_tensor(grad.to_dense() if isinstance(grad, IndexedSlices) else grad)


def gradient_pair(forward: FuncGraph) -> GradientPair:
    """The backward function of ``forward`` (built once per FuncGraph and kept on it)."""
    pair = forward.__dict__.get("_modtensor_gradient_pair")
    if pair is not None:
        return pair
    with _LOCK:
        pair = forward.__dict__.get("_modtensor_gradient_pair")
        if pair is None:
            pair = _build_gradient_pair(forward)
            forward.__dict__["_modtensor_gradient_pair"] = pair
    return pair


def _build_gradient_pair(forward: FuncGraph) -> GradientPair:
    from modtensor.api import array_ops
    from modtensor.api.function import ConcreteFunction

    name = forward.name
    backward = FuncGraph(f"backward_{name}_{next(_IDS)}")
    # The forward graph's ops are read (not extended) while the backward graph is built: no tape records them.
    with tape_lib.stop_recording(), backward.as_default():
        grad_outputs = [i for i, t in enumerate(forward.outputs) if tape_lib.is_trainable_dtype(t.dtype)]
        seeds = [
            backward.make_placeholder(forward.outputs[i].dtype, forward.outputs[i].shape, f"gradient_{k}")
            for k, i in enumerate(grad_outputs)
        ]
        backward.inputs = list(seeds)
        inside = set(forward.get_operations())
        nodes: dict[Operation, _GraphOpNode] = {}

        def producer(t: Any) -> _GraphOpNode | None:
            if not isinstance(t, SymbolicTensor) or t.op not in inside or t.op.type == "Placeholder":
                return None
            node = nodes.get(t.op)
            if node is None:
                node = nodes[t.op] = _GraphOpNode(t.op)
            return node

        grads = gradient_engine.backward(
            [forward.outputs[i] for i in grad_outputs],
            seeds,
            list(forward.inputs),
            producer,
            describe=lambda n: f"op '{n.op.name}' ({n.op_type}) of function {name}",
        )
        outputs = []
        input_indices = []
        for k, g in enumerate(grads):
            if g is None:
                continue
            g = _densify(g)
            outputs.append(array_ops.identity(g))
            input_indices.append(k)
    backward.outputs = outputs
    backward.structured_outputs = list(outputs)
    extras = backward.external_captures
    return GradientPair(ConcreteFunction(backward), grad_outputs, extras, input_indices)


def backward_for_call(pair: GradientPair, outputs: Sequence[Any], extra_values: Sequence[Any], num_inputs: int) -> Any:
    """The backward function of one eager call: output gradients -> input gradients, through ``pair.backward``."""
    from modtensor.api import array_ops

    def backward(output_grads: list[Any]) -> list[Any]:
        seeds = []
        for i in pair.grad_outputs:
            g = output_grads[i]
            seeds.append(array_ops.zeros_like(outputs[i]) if g is None else _densify(g))
        if not pair.input_indices:
            return [None] * num_inputs
        results = pair.backward._call_with_inputs([*seeds, *extra_values])
        return pair.input_gradients(results, num_inputs)

    return backward


# ============================================================================ call ops in graphs


def _forward_graph_of(op: Any) -> FuncGraph:
    name = op.get_attr("f").name
    graph = _FUNCTION_GRAPHS.get(name)
    if graph is None:
        raise LookupError(
            f"No gradient for the call of function '{name}' (node '{op.name}'): modtensor differentiates calls of "
            "functions traced in this process (tf.function); this function came from a GraphDef or SavedModel."
        )
    return graph


def _rewrite_forward_call(op: Any, forward: FuncGraph, pair: GradientPair) -> list[Any]:
    """Make the call op ``op`` return the forward intermediates the backward function needs (once); return them."""
    from modtensor.framework.protos import attr_value_pb2

    done = getattr(op, "_modtensor_forward_extras", None)
    if done is not None:
        return done
    fetched = pair.fetched_extras(forward)
    extended_name = f"__forward_{forward.name}_{next(_IDS)}"
    original_outputs = list(forward.outputs)
    from modtensor.framework import function_def_lib

    function_def = function_def_lib.graph_to_function_def(
        forward,
        extended_name,
        forward.inputs,
        [*original_outputs, *fetched],
        control_outputs=forward.control_outputs,
    )
    outer = op.graph
    for nested in forward._functions.values():
        outer._add_function(nested)
    outer._add_function(function_def)
    op._set_attr("f", attr_value_pb2.AttrValue(func=attr_value_pb2.NameAttrList(name=extended_name)))
    tout = attr_value_pb2.AttrValue(
        list=attr_value_pb2.AttrValue.ListValue(type=[t.dtype.as_datatype_enum for t in [*original_outputs, *fetched]])
    )
    op._set_attr("Tout", tout)
    new_outputs = op._add_outputs([t.dtype for t in fetched], [t.shape for t in fetched])
    by_fetched = {id(t): out for t, out in zip(fetched, new_outputs, strict=True)}
    placeholder_index = {id(p): i for i, p in enumerate(forward.inputs)}
    extras_outer = []
    for extra in pair.extras:
        if isinstance(extra, SymbolicTensor) and extra.graph is forward:
            index = placeholder_index.get(id(extra))
            extras_outer.append(op.inputs[index] if index is not None else by_fetched[id(extra)])
        else:
            extras_outer.append(extra)
    op._modtensor_forward_extras = extras_outer
    register_function_graph(extended_name, forward)
    return extras_outer


@RegisterGradient("PartitionedCall")
@RegisterGradient("StatefulPartitionedCall")
def _call_grad(op: Any, *grads: Any) -> list[Any]:
    from modtensor.api import array_ops
    from modtensor.api.function import _call_in_graph

    forward = _forward_graph_of(op)
    pair = gradient_pair(forward)
    num_inputs = len(op.inputs)
    if not pair.input_indices:
        return [None] * num_inputs
    extras = _rewrite_forward_call(op, forward, pair)
    seeds = []
    for i in pair.grad_outputs:
        g = grads[i]
        seeds.append(array_ops.zeros_like(op.outputs[i]) if g is None else _densify(g))
    results = _call_in_graph(pair.backward, [*seeds, *extras], all_inputs=True)
    return pair.input_gradients(list(results), num_inputs)
