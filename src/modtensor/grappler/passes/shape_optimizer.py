"""Shape optimization: ``Shape``, ``Size`` and ``Rank`` of a statically known tensor become constants.

``Shape``/``Size`` need the whole static shape, ``Rank`` only the rank (from
``GraphProperties``). The node keeps its name and device; its data input is dropped,
so a tensor computed only for its shape is pruned afterwards.
"""

from __future__ import annotations

import numpy as np

from modtensor.framework import dtypes, tensor_proto
from modtensor.framework.protos import graph_pb2, types_pb2
from modtensor.grappler.graph_view import GraphView, parse
from modtensor.grappler.item import GrapplerItem
from modtensor.grappler.optimizer import GraphOptimizer, OptimizerContext, copy_graph

__all__ = ["ShapeOptimizer"]


class ShapeOptimizer(GraphOptimizer):
    """TensorFlow's ``shape_optimization`` (the static-shape part of it)."""

    name = "shape_optimizer"

    def optimize(self, item: GrapplerItem, context: OptimizerContext) -> graph_pb2.GraphDef:
        graph = copy_graph(item.graph_def)
        if not any(n.op in ("Shape", "Size", "Rank") for n in graph.node):
            return graph
        view = GraphView(graph)
        targets = [n for n in graph.node if n.op in ("Shape", "Size", "Rank") and n.name not in item.nodes_to_preserve]
        # Only the tensors these nodes read need shapes: infer over their fan-in, not the whole graph.
        props = context.properties(item, nodes={parse(t)[0] for n in targets for t in view.data_inputs(n)})
        for node in graph.node:
            if node.op not in ("Shape", "Size", "Rank") or node.name in item.nodes_to_preserve:
                continue
            data = view.data_inputs(node)
            if len(data) != 1:
                continue
            shape = props.output_shape(*parse(data[0]))
            if node.op == "Rank":
                if shape.rank is None:
                    continue
                value, enum = np.asarray(shape.rank, np.int32), types_pb2.DT_INT32
            else:
                if not shape.is_fully_defined():
                    continue
                enum = node.attr["out_type"].type if "out_type" in node.attr else types_pb2.DT_INT32
                dims = shape.as_list()
                np_type = dtypes.as_dtype(enum).as_numpy_dtype
                value = np.asarray(dims if node.op == "Shape" else int(np.prod(dims)), np_type)
            controls = [t for t in node.input if t.startswith("^")]
            view.set_inputs(node, controls)
            node.op = "Const"
            node.attr.clear()
            node.attr["dtype"].type = enum
            node.attr["value"].tensor.CopyFrom(
                tensor_proto.make_tensor_proto(value, dtype=dtypes.as_dtype(enum), shape=list(value.shape))
            )
        return graph
