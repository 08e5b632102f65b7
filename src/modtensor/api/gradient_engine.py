"""Reverse-mode accumulation over a DAG of ops: the backward pass shared by ``GradientTape`` and ``tf.gradients``.

The DAG is given by ``producer(tensor)``, the op that made a tensor (None: a leaf). From
the targets, the ops they depend on are found and counted; an op runs its backward
function once every consumer of its outputs has contributed, with the contributions to
each output summed (TensorFlow's rules: ``AddN`` of dense gradients, ``IndexedSlices``
concatenated, a mix made dense), missing output gradients given as zeros (None where the
op accepts None), and an op whose outputs got no gradient at all skipped. The ops run in
eager mode or are added to the graph being built, whatever the caller's mode.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from modtensor.framework import tape as tape_lib

__all__ = ["GradientNode", "GraphOpNode", "aggregate", "backward", "densify", "graph_gradients", "ops_between"]

# Ops whose gradient function may give them more inputs than a tape recorded (control_flow_grad's rewrites).
_GROWING_OPS = frozenset(["While", "StatelessWhile"])


class GradientNode(Protocol):
    """An op as the backward pass sees it (``framework.tape.TapeOp`` and graph ops wrapped alike)."""

    op_type: str
    inputs: Sequence[Any]
    outputs: Sequence[Any]
    accepts_none: frozenset[int]

    def backward(self, output_grads: list[Any]) -> Sequence[Any]: ...


def _indexed_slices_type() -> Any:
    from modtensor.api.indexed_slices import IndexedSlices

    return IndexedSlices


def aggregate(grads: list[Any]) -> Any:
    """The sum of the gradient contributions to one tensor (None when there are none)."""
    grads = [g for g in grads if g is not None]
    if not grads:
        return None
    if len(grads) == 1:
        return grads[0]
    from modtensor.api import math_ops

    slices_type = _indexed_slices_type()
    sparse = [g for g in grads if isinstance(g, slices_type)]
    if not sparse:
        return math_ops.add_n(grads)
    if len(sparse) == len(grads):
        return slices_type.concat(sparse)
    dense = [g.to_dense() if isinstance(g, slices_type) else g for g in grads]
    return math_ops.add_n(dense)


def zeros_for(tensor: Any) -> Any:
    """The zero gradient of ``tensor``: None for a resource handle; for a variant (a TensorList, an Optional) the
    variant's zeros (``ZerosLike``: a list of zero elements), as TF's default gradients."""
    from modtensor.framework import dtypes

    dtype = tensor.dtype.base_dtype
    if dtype == dtypes.resource:
        return None
    if dtype == dtypes.variant:
        from modtensor.api.dispatch import apply_op

        return apply_op("ZerosLike", x=tensor)
    from modtensor.api import array_ops

    return array_ops.zeros_like(tensor)


def backward(
    targets: Sequence[Any],
    target_grads: Sequence[Any],
    sources: Sequence[Any],
    producer: Callable[[Any], GradientNode | None],
    *,
    describe: Callable[[GradientNode], str] | None = None,
) -> list[Any]:
    """Gradients of ``targets`` (seeded with ``target_grads``) with respect to each of ``sources``.

    Returns one summed gradient per source (None where no path reaches it). A backward
    function that fails names the op it belongs to (``describe``).
    """
    # Ops the targets depend on, and how many gradient contributions each op's outputs wait for.
    pending: dict[int, int] = {}
    nodes: dict[int, GradientNode] = {}
    stack = [producer(t) for t in targets]
    while stack:
        node = stack.pop()
        if node is None or id(node) in nodes:
            continue
        nodes[id(node)] = node
        pending.setdefault(id(node), 0)
        for t in node.inputs:
            p = producer(t)
            if p is not None:
                pending[id(p)] = pending.get(id(p), 0) + 1
                if id(p) not in nodes:
                    stack.append(p)

    grads: dict[int, list[Any]] = {}
    for t, g in zip(targets, target_grads, strict=True):
        if g is not None:
            grads.setdefault(id(t), []).append(g)

    ready = [n for key, n in nodes.items() if pending[key] == 0]
    while ready:
        node = ready.pop()
        output_grads = [
            aggregate(grads[id(out)]) if out is not None and id(out) in grads else None for out in node.outputs
        ]
        if any(g is not None for g in output_grads):
            for i, out in enumerate(node.outputs):
                missing = output_grads[i] is None and out is not None and i not in node.accepts_none
                if missing and tape_lib.is_trainable_dtype(out.dtype):
                    output_grads[i] = zeros_for(out)
            try:
                input_grads = list(node.backward(output_grads))
            except Exception as e:
                if describe is not None and not getattr(e, "_modtensor_described", False):
                    e.add_note(f"(while computing the gradient of {describe(node)})")  # the message stays TF's
                    e._modtensor_described = True  # type: ignore[attr-defined]
                raise
            if len(input_grads) != len(node.inputs) and node.op_type in _GROWING_OPS:
                # A While's gradient may add loop variables (accumulators) to it after it was recorded: their
                # gradients are None (TF does not check the count for While ops either).
                input_grads = (input_grads + [None] * len(node.inputs))[: len(node.inputs)]
            if len(input_grads) != len(node.inputs):
                raise ValueError(
                    f"The gradient function of {describe(node) if describe else node.op_type} returned "
                    f"{len(input_grads)} gradients for {len(node.inputs)} inputs."
                )
            for t, g in zip(node.inputs, input_grads, strict=True):
                if g is not None and tape_lib.is_trainable_dtype(t.dtype):
                    grads.setdefault(id(t), []).append(g)
        for t in node.inputs:
            p = producer(t)
            if p is not None:
                key = id(p)
                pending[key] -= 1
                if pending[key] == 0:
                    ready.append(p)
    return [aggregate(grads.get(id(s), [])) for s in sources]


# ============================================================================ differentiating a graph's ops


class GraphOpNode:
    """A graph Operation as the backward pass sees it; its backward function is the op's registered gradient
    (``framework.tape.op_backward``) unless another is given (``tf.gradients`` scopes its own)."""

    __slots__ = ("_backward", "accepts_none", "inputs", "op", "op_type", "outputs")

    def __init__(self, op: Any, backward: Callable[[list[Any]], Sequence[Any]] | None = None):
        self.op = op
        self.op_type = op.type
        self.inputs = op.inputs
        self.outputs = op.outputs
        self.accepts_none = tape_lib._ACCEPTS_NONE.get(op.type, frozenset())
        self._backward = backward if backward is not None else tape_lib.op_backward(op)

    def backward(self, output_grads: list[Any]) -> Sequence[Any]:
        return self._backward(output_grads)


def ops_between(graph: Any, sources: Sequence[Any]) -> set[Any]:
    """The ops of ``graph`` downstream of ``sources`` through values a gradient can flow through (TF's
    _IsBackpropagatable): an int input (a loop's iteration limit) does not make the ops it feeds differentiable."""
    seen: set[Any] = set()
    trainable = tape_lib.is_trainable_dtype
    stack = [c for s in sources if trainable(s.dtype) for c in s.consumers() if c.graph is graph]
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        for out in op.outputs:
            if trainable(out.dtype):
                stack.extend(c for c in out.consumers() if c.graph is graph)
    return seen


def graph_gradients(graph: Any, ys: Sequence[Any], seeds: Sequence[Any], xs: Sequence[Any], where: str) -> list[Any]:
    """Gradients of ``graph``'s tensors ``ys`` (seeded with ``seeds``) with respect to its tensors ``xs``, the
    gradient ops built in the default graph (a backward function's graph): the ops between them run their
    gradient functions, placeholders are leaves. ``where`` names the graph in error notes."""
    from modtensor.framework.graph import SymbolicTensor

    between = ops_between(graph, xs)
    nodes: dict[Any, GraphOpNode] = {}

    def producer(t: Any) -> GraphOpNode | None:
        if not isinstance(t, SymbolicTensor) or t.op not in between or t.op.type == "Placeholder":
            return None
        node = nodes.get(t.op)
        if node is None:
            node = nodes[t.op] = GraphOpNode(t.op)
        return node

    return backward(
        list(ys), list(seeds), list(xs), producer, describe=lambda n: f"op '{n.op.name}' ({n.op_type}) of {where}"
    )


def densify(grad: Any) -> Any:
    """``grad`` as a dense tensor (an IndexedSlices summed into zeros; a function's or branch's output must be one)."""
    from modtensor.api.op_scope import convert_to_tensor

    slices_type = _indexed_slices_type()
    return convert_to_tensor(grad.to_dense() if isinstance(grad, slices_type) else grad)
