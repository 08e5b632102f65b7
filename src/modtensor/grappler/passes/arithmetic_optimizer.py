"""Arithmetic optimization: algebraic simplifications that keep every value the same.

- ``x * 1``, ``1 * x``, ``x + 0``, ``0 + x``, ``x - 0``, ``x / 1`` -> ``Identity(x)`` when the
  constant cannot broadcast ``x`` to a larger shape (a scalar, or ``x``'s static shape
  already covers it) and has ``x``'s dtype;
- ``Neg(Neg(x))`` -> ``Identity(x)``;
- ``x * x`` -> ``Square(x)``;
- ``(x + c1) + c2`` -> ``x + (c1 + c2)`` and ``(x * c1) * c2`` -> ``x * (c1 * c2)`` (hoisting and
  combining constant terms) for integer dtypes, where it is exact, and for floats when
  both constants are scalars (TensorFlow does this for floats too; the result may
  differ in the last bit).

A rewritten node keeps its name, so its readers are unchanged.

First, TF's ``AddOpsRewrite`` stage: a tree of ``Add``/``AddV2``/``AddN`` nodes (each absorbed
node on the root's device, read by one node apart from Shape/Size/Rank, without control
edges, neither fetched nor preserved) whose leaves all have the root's symbolic shape
(``symbolic_shapes``: an unknown batch is one symbol) collapses into one
``<scope>/ArithmeticOptimizer/AddOpsRewrite_<root>`` ``AddN``; the root's readers read it
(roots visited in reverse topological order, so the largest tree goes first). Trees
whose leaves have different shapes are left alone (TF builds a tree of per-shape
``AddN``s there).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.framework import dtypes, tensor_proto
from modtensor.framework.protos import graph_pb2, node_def_pb2
from modtensor.grappler.graph_view import GraphView, parse, topological_order
from modtensor.grappler.item import GrapplerItem
from modtensor.grappler.optimizer import GraphOptimizer, OptimizerContext, copy_graph
from modtensor.grappler.symbolic_shapes import SymbolicShapes

__all__ = ["ArithmeticOptimizer"]

_ADDS = ("Add", "AddV2")


class ArithmeticOptimizer(GraphOptimizer):
    """TensorFlow's ``arithmetic_optimization``."""

    name = "arithmetic_optimizer"

    def optimize(self, item: GrapplerItem, context: OptimizerContext) -> graph_pb2.GraphDef:
        graph = copy_graph(item.graph_def)
        view = GraphView(graph, context.index(item.graph_def))
        props = _LazyShapes(context, item)  # inference only when a rewrite needs a shape
        keep = item.keep_nodes()
        try:
            _add_ops_rewrite(view, item, context, keep)
            self._rewrite(graph, view, props, item, keep)
        finally:
            _CONST_CACHE.pop(id(view), None)
        return graph

    def _rewrite(self, graph, view, props, item, keep) -> None:  # noqa: ANN001
        for node in list(graph.node):
            if node.name in item.nodes_to_preserve or node.name in view.removed:
                continue
            data = view.data_inputs(node)
            if node.op in ("Mul", "Add", "AddV2", "Sub", "RealDiv", "Div") and len(data) == 2:
                if data[0] == data[1] and node.op == "Mul":
                    _retype(view, node, "Square", [data[0]], node.attr["T"].type)
                    continue
                if self._identity_operand(view, props, node, data):
                    continue
                self._combine_constants(view, props, node, data, keep)
            elif node.op == "Neg" and len(data) == 1:
                inner = view.nodes.get(parse(data[0])[0])
                if inner is not None and inner.op == "Neg" and inner.device == node.device:
                    inner_data = view.data_inputs(inner)
                    if len(inner_data) == 1:
                        _retype(view, node, "Identity", [inner_data[0]], node.attr["T"].type)

    @staticmethod
    def _identity_operand(view: GraphView, props, node: node_def_pb2.NodeDef, data: list[str]) -> bool:  # noqa: ANN001
        """x*1, x+0, x-0, x/1 -> Identity(x); True when rewritten."""
        neutral = 1 if node.op in ("Mul", "RealDiv", "Div") else 0
        sides = (1, 0) if node.op in ("Mul", "Add", "AddV2") else (1,)
        for const_side in sides:
            value = _const_value(view, data[const_side])
            if value is None or value.size == 0 or not _all_equal(value, neutral):
                continue
            other = data[1 - const_side]
            source, index = parse(other)
            if value.ndim > 0:
                shape = props.output_shape(source, index)
                if not shape.is_fully_defined() or _broadcast(shape.as_list(), list(value.shape)) != shape.as_list():
                    continue
            _retype(view, node, "Identity", [other], node.attr["T"].type)
            return True
        return False

    @staticmethod
    def _combine_constants(view: GraphView, props, node, data, keep) -> None:  # noqa: ANN001
        """(x op c1) op c2 -> x op (c1 op c2) for op in {Add, Mul} (operands in either order), when the inner node
        has no other reader."""
        if node.op not in ("Mul", *_ADDS):
            return
        c2_side = 1 if _const_value(view, data[1]) is not None else 0
        c2 = _const_value(view, data[c2_side])
        inner_text = data[1 - c2_side]
        inner = view.nodes.get(parse(inner_text)[0])
        if c2 is None or inner is None or inner.op != node.op or inner.device != node.device:
            return
        if inner.name in keep or len(view.consumers.get(inner.name, ())) != 1 or parse(inner_text)[1] != 0:
            return
        inner_data = view.data_inputs(inner)
        if len(inner_data) != 2 or any(t.startswith("^") for t in inner.input):
            return
        if _const_value(view, inner_data[0]) is not None and _const_value(view, inner_data[1]) is None:
            inner_data = [inner_data[1], inner_data[0]]
        c1 = _const_value(view, inner_data[1])
        if c1 is None or c1.dtype != c2.dtype:
            return
        exact = np.issubdtype(c1.dtype, np.integer)
        if not exact and (c1.ndim or c2.ndim):
            return
        if c1.ndim or c2.ndim:
            shape = props.output_shape(*parse(inner_data[0]))
            if not shape.is_fully_defined():
                return
            dims = shape.as_list()
            if _broadcast(dims, list(c1.shape)) != dims or _broadcast(dims, list(c2.shape)) != dims:
                return
        with np.errstate(all="ignore"):
            combined = np.asarray(c1 + c2 if node.op in _ADDS else c1 * c2, dtype=c1.dtype)
        const = node_def_pb2.NodeDef(
            name=view.unique_name(node.name + "/ArithmeticOptimizer/combined_const"), op="Const", device=node.device
        )
        const.attr["dtype"].type = node.attr["T"].type
        const.attr["value"].tensor.CopyFrom(
            tensor_proto.make_tensor_proto(
                combined, dtype=dtypes.as_dtype(node.attr["T"].type), shape=list(combined.shape)
            )
        )
        view.add(const)
        controls = [t for t in node.input if t.startswith("^")]
        view.set_inputs(node, [inner_data[0], const.name, *controls])


class _LazyShapes:
    """Static shapes of the pass's input graph, inferred on the first question."""

    def __init__(self, context: OptimizerContext, item: GrapplerItem):
        self.context, self.item = context, item

    def output_shape(self, node: str, index: int = 0) -> Any:
        return self.context.properties(self.item).output_shape(node, index)


def _retype(view: GraphView, node: node_def_pb2.NodeDef, op: str, data: list[str], dtype: int) -> None:
    controls = [t for t in node.input if t.startswith("^")]
    view.set_inputs(node, [*data, *controls])
    node.op = op
    node.attr.clear()
    node.attr["T"].type = dtype


def _const_value(view: GraphView, text: str) -> np.ndarray | None:
    """The value of a Const input, decoded once per pass (shared Consts have many readers)."""
    source, index = parse(text)
    node = view.nodes.get(source)
    if node is None or node.op != "Const" or index != 0:
        return None
    cache = _CONST_CACHE.setdefault(id(view), {})
    if source in cache:
        return cache[source]
    try:
        value = tensor_proto.make_ndarray(node.attr["value"].tensor)
    except Exception:  # noqa: BLE001 - an unreadable constant is simply not used
        value = None
    cache[source] = value
    return value


# Decoded Const values per GraphView of a running pass (the pass never turns a node into a Const,
# so a name's value stays valid for the pass); emptied when the pass ends.
_CONST_CACHE: dict[int, dict[str, np.ndarray | None]] = {}


def _all_equal(value: np.ndarray, scalar: int) -> bool:
    """True when every element of ``value`` equals ``scalar`` (a Python compare for the common scalar case)."""
    if value.ndim == 0:
        return bool(value.item() == scalar)
    return bool(np.all(value == scalar))


def _broadcast(a: list[int], b: list[int]) -> list[int] | None:
    try:
        return list(np.broadcast_shapes(tuple(a), tuple(b)))
    except ValueError:
        return None


# ------------------------------------------------------------------ AddOpsRewrite

_ADD_TREE = ("Add", "AddV2", "AddN")
_SHAPE_CONSUMERS = ("Shape", "ShapeN", "Rank", "Size")


def _add_ops_rewrite(view: GraphView, item: GrapplerItem, context: OptimizerContext, keep: set[str]) -> None:
    """TF's AddOpsRewriteStage for trees whose leaves share the root's symbolic shape (see the module docstring)."""
    order = topological_order(view.graph_def)
    if order is None:
        return

    def can_optimize(node: node_def_pb2.NodeDef) -> bool:
        if node.op not in _ADD_TREE or node.name in keep or node.name in item.nodes_to_preserve:
            return False
        if any(t.startswith("^") for t in node.input):
            return False
        control = "^" + node.name
        return not any(control in view.nodes[r].input for r in view.consumers.get(node.name, ()))

    def data_readers(node: node_def_pb2.NodeDef) -> int:
        count = 0
        for reader_name in view.consumers.get(node.name, ()):
            reader = view.nodes[reader_name]
            if reader.op in _SHAPE_CONSUMERS:
                continue
            count += any(not t.startswith("^") and parse(t)[0] == node.name for t in reader.input)
        return count

    def absorbable_shape(root: node_def_pb2.NodeDef, node: node_def_pb2.NodeDef) -> bool:
        return can_optimize(node) and node.device == root.device and data_readers(node) == 1

    roots = [
        n
        for n in reversed(order)
        if can_optimize(n)
        and any(
            (inner := view.nodes.get(parse(t)[0])) is not None and parse(t)[1] == 0 and absorbable_shape(n, inner)
            for t in view.data_inputs(n)
        )
    ]
    if not roots:
        return
    shapes = SymbolicShapes(view.nodes, None, view.registry)  # shape functions over the roots' fan-in only
    rewritten: set[str] = set()

    def broadcastable_inputs(node: node_def_pb2.NodeDef) -> bool:
        target = shapes.shape(node.name)
        return target is not None and all(_bcast_valid(target, shapes.shape(t)) for t in view.data_inputs(node))

    for root in roots:
        if root.name in rewritten or root.name in view.removed or not can_optimize(root):
            continue
        if not broadcastable_inputs(root):
            continue
        absorbed: list[node_def_pb2.NodeDef] = []
        leaves: list[str] = []
        for first in view.data_inputs(root):
            pending = [first]
            while pending:
                text = pending.pop(0)
                inner = view.nodes.get(parse(text)[0])
                if (
                    inner is not None
                    and parse(text)[1] == 0
                    and inner.name not in rewritten
                    and absorbable_shape(root, inner)
                    and broadcastable_inputs(inner)
                ):
                    absorbed.append(inner)
                    pending[:0] = view.data_inputs(inner)
                else:
                    leaves.append(text)
        signatures = {shapes.shape(t) for t in leaves}
        if not absorbed or len(signatures) != 1 or None in signatures or len(leaves) < 2:
            continue
        scope, _, base = root.name.rpartition("/")
        name = view.unique_name(f"{scope + '/' if scope else ''}ArithmeticOptimizer/AddOpsRewrite_{base}")
        add_n = node_def_pb2.NodeDef(name=name, op="AddN", device=root.device, input=leaves)
        add_n.attr["T"].type = root.attr["T"].type
        add_n.attr["N"].i = len(leaves)
        view.add(add_n)
        view.redirect(root.name, name)
        rewritten.update(n.name for n in (root, *absorbed))


def _bcast_valid(a: tuple[int, ...] | None, b: tuple[int, ...] | None) -> bool:
    """TF's ShapesBroadcastable on symbolic shapes: equal sizes or symbols, or a 1, per aligned dimension."""
    if a is None or b is None:
        return False
    return all(x == y or x == 1 or y == 1 for x, y in zip(reversed(a), reversed(b), strict=False))
