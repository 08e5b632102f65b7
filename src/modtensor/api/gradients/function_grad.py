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
from modtensor.framework import dtypes
from modtensor.framework import tape as tape_lib
from modtensor.framework.func_graph import FuncGraph
from modtensor.framework.gradient_registry import RegisterGradient
from modtensor.framework.graph import Operation, SymbolicTensor

__all__ = ["GradientPair", "call_recorded", "gradient_pair", "higher_order_gradient_pair", "register_function_graph"]

_IDS = itertools.count(1)
_LOCK = threading.RLock()  # building a pair builds the pairs of the functions it calls
# Function name -> its FuncGraph, for the gradients of call ops naming it (traced functions register here).
_FUNCTION_GRAPHS: weakref.WeakValueDictionary[str, FuncGraph] = weakref.WeakValueDictionary()


def register_function_graph(name: str, graph: FuncGraph) -> None:
    """Remember that the function ``name`` was made from ``graph`` (its call ops' gradients need the graph)."""
    _FUNCTION_GRAPHS[name] = graph


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
        self.side_outputs: list[SymbolicTensor] = []  # higher-order pairs: intermediates a call also returns

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


_densify = gradient_engine.densify


def _zeros_seed(t: Any) -> Any:
    """The gradient of a call output nothing flowed to: zeros (a variant's zeros for a TensorList)."""
    from modtensor.api import array_ops

    if t.dtype == dtypes.variant:
        from modtensor.api.dispatch import apply_op

        return apply_op("ZerosLike", x=t)
    return array_ops.zeros_like(t)


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


def higher_order_gradient_pair(forward: FuncGraph) -> GradientPair:
    """The backward function of ``forward`` with respect to its outputs *and* the intermediates backward functions
    read (``pair.side_outputs``), for calls a second tape (or a persistent one) may differentiate again.

    As TF's higher-order tape gradient functions: the backward function reads forward
    intermediates, which a call must return as side outputs; their own gradients (the second
    derivative flows through them) need a backward function differentiating those too, which may
    read more intermediates. The side outputs grow until they are stable (built once per FuncGraph).
    """
    pair = forward.__dict__.get("_modtensor_higher_order_pair")
    if pair is not None:
        return pair
    with _LOCK:
        pair = forward.__dict__.get("_modtensor_higher_order_pair")
        if pair is None:
            side: list[SymbolicTensor] = []
            while True:
                pair = _build_gradient_pair(forward, [*forward.outputs, *side])
                known = {id(t) for t in forward.outputs} | {id(t) for t in side}
                new = [t for t in pair.fetched_extras(forward) if id(t) not in known]
                if not any(tape_lib.is_trainable_dtype(t.dtype) for t in new):
                    break
                side.extend(new)
            pair.side_outputs = side
            forward.__dict__["_modtensor_higher_order_pair"] = pair
    return pair


def _build_gradient_pair(forward: FuncGraph, targets: Sequence[SymbolicTensor] | None = None) -> GradientPair:
    from modtensor.api import array_ops
    from modtensor.api.function import ConcreteFunction

    name = forward.name
    targets = list(forward.outputs) if targets is None else list(targets)
    backward = FuncGraph(f"backward_{name}_{next(_IDS)}")
    # The forward graph's ops are read (not extended) while the backward graph is built: no tape records them.
    with tape_lib.stop_recording(), backward.as_default():
        grad_outputs = [i for i, t in enumerate(targets) if tape_lib.is_trainable_dtype(t.dtype)]
        seeds = [
            backward.make_placeholder(targets[i].dtype, targets[i].shape, f"gradient_{k}")
            for k, i in enumerate(grad_outputs)
        ]
        backward.inputs = list(seeds)
        grads = gradient_engine.graph_gradients(
            forward, [targets[i] for i in grad_outputs], seeds, list(forward.inputs), f"function {name}"
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


def _higher_order_possible(inputs: Sequence[Any]) -> bool:
    """Whether the gradient of a call on ``inputs`` may be differentiated again: two tapes of this thread record
    it, or a persistent one does (TF's POSSIBLE_GRADIENT_TYPES_HIGHER_ORDER)."""
    watching = [tape for tape in tape_lib.recording_tapes() if any(tape.tracks(t) for t in inputs)]
    return len(watching) > 1 or any(tape.persistent for tape in watching)


def call_recorded(concrete: Any, inputs: Sequence[Any]) -> list[Any]:
    """An eager call of ``concrete`` under a tape: the forward function also returns what the backward function
    reads; one op is recorded whose backward function runs the backward function on those values. When the
    gradient may be differentiated again the recorded op also outputs those values (side outputs), so the
    outer tape follows the second derivative through them."""
    graph = concrete._graph
    if "_inference_snapshot" not in concrete.__dict__:
        # Calls without a tape keep running the function as traced: building the backward function may
        # rewrite control-flow ops of the graph to return more (accumulators, intermediates).
        targets = [op.name for op in graph.get_operations() if op.op_def.is_stateful]
        concrete.__dict__["_inference_snapshot"] = (graph.as_graph_def(), targets)
    if _higher_order_possible(inputs):
        pair = higher_order_gradient_pair(graph)
        side = list(pair.side_outputs)
    else:
        pair = gradient_pair(graph)
        side = []
    fetched = pair.fetched_extras(graph)
    side_ids = {id(t) for t in side}
    fetch = [*side, *[t for t in fetched if id(t) not in side_ids]]
    outputs, values = concrete._run(inputs, fetch)
    by_id = {id(t): v for t, v in zip(fetch, values, strict=True)}
    extra_values = pair.extra_values(graph, inputs, [by_id[id(t)] for t in fetched])
    recorded = [*outputs, *values[: len(side)]]
    backward = backward_for_call(pair, recorded, extra_values, len(inputs))
    tape_lib.record_operation(concrete._inference_name, inputs, recorded, backward)
    return outputs


def backward_for_call(pair: GradientPair, outputs: Sequence[Any], extra_values: Sequence[Any], num_inputs: int) -> Any:
    """The backward function of one eager call: output gradients -> input gradients, through ``pair.backward``."""

    def backward(output_grads: list[Any]) -> list[Any]:
        seeds = []
        for i in pair.grad_outputs:
            g = output_grads[i]
            seeds.append(_zeros_seed(outputs[i]) if g is None else _densify(g))
        if not pair.input_indices:
            return [None] * num_inputs
        results = pair.backward._call_with_inputs([*seeds, *extra_values])
        return pair.input_gradients(results, num_inputs)

    return backward


# ============================================================================ call ops in graphs


def _forward_graph_of(op: Any) -> FuncGraph:
    """The FuncGraph of the function a call op calls: its trace, or (a function of a GraphDef or SavedModel) its
    body imported from the library (once per op)."""
    name = op.get_attr("f").name
    graph = _FUNCTION_GRAPHS.get(name)
    if graph is None:
        graph = getattr(op, "_modtensor_function_graph", None)
    if graph is None:
        from modtensor.api.gradients.control_flow_grad import function_graph

        try:
            graph = function_graph(op.graph, name, [t.shape for t in op.inputs])
        except LookupError:
            raise LookupError(
                f"No gradient for the call of function '{name}' (node '{op.name}'): the function is neither a "
                "trace of this process nor in the graph's function library."
            ) from None
        op._modtensor_function_graph = graph
    return graph


def record_added_outputs(op: Operation, outputs: Sequence[SymbolicTensor]) -> None:
    """Outputs a gradient rewrite added to ``op`` become outputs of the op as the tapes of this thread recorded it,
    so an outer tape differentiating the gradient (second order inside ``tf.function``) follows them back to
    ``op``. (The recorded op is extended in place: a backward pass in progress may hold it.)"""
    added = [t for t in outputs if tape_lib.is_trainable_dtype(t.dtype)]
    if not added:
        return
    for tape in tape_lib._thread.tapes:
        recorded = None
        for t in op.outputs:
            candidate = tape.producer.get(id(t))
            if candidate is not None and any(o is t for o in candidate.outputs):
                recorded = candidate
                break
        if recorded is None or any(o is added[0] for o in recorded.outputs):
            continue
        recorded.outputs = (*recorded.outputs, *outputs)
        for t in added:
            tape.tensors[id(t)] = t
            tape.producer[id(t)] = recorded


def _pair_for_side_outputs(forward: FuncGraph, side: Sequence[SymbolicTensor]) -> GradientPair:
    """The backward function of ``forward`` with respect to its outputs and ``side`` (intermediates a call op was
    rewritten to return, whose gradients a second derivative brings), built once per set of side outputs."""
    if not side:
        return gradient_pair(forward)
    key = tuple(id(t) for t in side)
    with _LOCK:
        pairs = forward.__dict__.setdefault("_modtensor_side_pairs", {})
        pair = pairs.get(key)
        if pair is None:
            pair = pairs[key] = _build_gradient_pair(forward, [*forward.outputs, *side])
    return pair


def _ensure_call_outputs(op: Any, forward: FuncGraph, tensors: Sequence[SymbolicTensor]) -> dict[int, Any]:
    """Make the call op ``op`` also return the forward intermediates ``tensors`` (rewriting it to call a
    ``__forward_*`` function returning them, as TF's delayed rewrite); id(tensor) -> the op's output for it."""
    from modtensor.framework import function_def_lib
    from modtensor.framework.protos import attr_value_pb2

    returned: list[SymbolicTensor] = getattr(op, "_modtensor_call_outputs", [])
    n = len(forward.outputs)
    by_id = {id(t): op.outputs[n + k] for k, t in enumerate(returned)}
    missing = []
    for t in tensors:
        if id(t) not in by_id and all(t is not m for m in missing):
            missing.append(t)
    if not missing:
        return by_id
    returned = [*returned, *missing]
    extended_name = f"__forward_{forward.name}_{next(_IDS)}"
    function_def = function_def_lib.graph_to_function_def(
        forward, extended_name, forward.inputs, [*forward.outputs, *returned], control_outputs=forward.control_outputs
    )
    outer = op.graph
    for nested in forward._functions.values():
        outer._add_function(nested)
    outer._add_function(function_def)
    op._set_attr("f", attr_value_pb2.AttrValue(func=attr_value_pb2.NameAttrList(name=extended_name)))
    types = [t.dtype.as_datatype_enum for t in [*forward.outputs, *returned]]
    op._set_attr("Tout", attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue(type=types)))
    added = op._add_outputs([t.dtype for t in missing], [t.shape for t in missing])
    record_added_outputs(op, added)
    op._modtensor_call_outputs = returned
    register_function_graph(extended_name, forward)
    by_id.update({id(t): out for t, out in zip(missing, added, strict=True)})
    return by_id


@RegisterGradient("PartitionedCall")
@RegisterGradient("StatefulPartitionedCall")
def _call_grad(op: Any, *grads: Any) -> list[Any]:
    from modtensor.api.function import _call_in_graph

    forward = _forward_graph_of(op)
    num_inputs = len(op.inputs)
    n = len(forward.outputs)
    returned = list(getattr(op, "_modtensor_call_outputs", []))
    grads = [*grads, *[None] * (n + len(returned) - len(grads))]
    # Gradients reaching the intermediates a rewrite made the op return (a second derivative) need the backward
    # function of the forward function with respect to those too.
    side = returned if any(g is not None for g in grads[n : n + len(returned)]) else []
    pair = _pair_for_side_outputs(forward, side)
    if not pair.input_indices:
        return [None] * num_inputs
    by_id = _ensure_call_outputs(op, forward, pair.fetched_extras(forward))
    placeholder_index = {id(p): i for i, p in enumerate(forward.inputs)}
    extras = []
    for extra in pair.extras:
        if isinstance(extra, SymbolicTensor) and extra.graph is forward:
            index = placeholder_index.get(id(extra))
            extras.append(op.inputs[index] if index is not None else by_id[id(extra)])
        else:
            extras.append(extra)
    targets = [*op.outputs[:n], *op.outputs[n : n + len(side)]]
    seeds = []
    for i in pair.grad_outputs:
        g = grads[i]
        seeds.append(_zeros_seed(targets[i]) if g is None else _densify(g))
    results = _call_in_graph(pair.backward, [*seeds, *extras], all_inputs=True)
    return pair.input_gradients(list(results), num_inputs)
