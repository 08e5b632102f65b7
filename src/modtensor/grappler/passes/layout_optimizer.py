"""Layout optimization: NHWC convolutions and pools become NCHW on device types that prefer NCHW.

For nodes placed on (or, before placement, targeting; see
``device_traits.target_device_type``) a device type whose declared preferred layout is
NCHW, NHWC ``Conv2D``, ``DepthwiseConv2dNative``, ``MaxPool``, ``AvgPool`` get
``data_format="NCHW"`` with their ``strides``/``ksize``/``dilations``/``explicit_paddings``
permuted; a ``BiasAdd`` or layout-agnostic elementwise op whose 4-D inputs come from
converted nodes is converted with them. A ``Transpose`` (perm ``[0, 3, 1, 2]``) is added
where a converted region reads an NHWC tensor and one (perm ``[0, 2, 3, 1]``) where an
unconverted node reads the region's output, shared by all such readers. Converted nodes
read each other directly, so no back-to-back transpose pair is ever created (TensorFlow
creates them and cancels them afterwards). Fetched, preserved and fed nodes keep their
layout. Device types preferring NHWC (CPU) or declaring nothing are left unchanged.
"""

from __future__ import annotations

import numpy as np

from modtensor.framework.protos import graph_pb2, node_def_pb2, types_pb2
from modtensor.framework.tensor_proto import make_tensor_proto
from modtensor.grappler.device_traits import declared_device_types, device_traits, target_device_type
from modtensor.grappler.graph_view import GraphView, parse, tensor_ref, topological_order
from modtensor.grappler.item import GrapplerItem
from modtensor.grappler.optimizer import GraphOptimizer, OptimizerContext, copy_graph

__all__ = ["LayoutOptimizer"]

_SENSITIVE = ("Conv2D", "DepthwiseConv2dNative", "MaxPool", "AvgPool")
_PERMUTED_ATTRS = ("strides", "ksize", "dilations")
_UNARY = frozenset(
    [
        "Relu",
        "Relu6",
        "Elu",
        "Selu",
        "LeakyRelu",
        "Tanh",
        "Sigmoid",
        "Identity",
        "Neg",
        "Abs",
        "Square",
        "Sqrt",
        "Exp",
        "Softplus",
    ]
)
_BINARY = frozenset(("AddV2", "Add", "Sub", "Mul", "Maximum", "Minimum"))
_FLOATS = frozenset((types_pb2.DT_FLOAT, types_pb2.DT_HALF, types_pb2.DT_BFLOAT16, types_pb2.DT_DOUBLE))
TO_NCHW = (0, 3, 1, 2)
TO_NHWC = (0, 2, 3, 1)


class LayoutOptimizer(GraphOptimizer):
    """TensorFlow's ``layout_optimizer`` (generic layout optimizer), for NHWC -> NCHW."""

    name = "layout_optimizer"

    def optimize(self, item: GrapplerItem, context: OptimizerContext) -> graph_pb2.GraphDef:
        nchw = declared_device_types(preferred_layout="NCHW")
        if not nchw or not (nchw & set(item.device_types) or any(node.device for node in item.graph_def.node)):
            return item.graph_def  # no node can target an NCHW-preferring device type: unchanged
        graph = copy_graph(item.graph_def)
        order = topological_order(graph, context.index(item.graph_def))
        if order is None:
            return graph
        view = GraphView(graph, context.index(item.graph_def))
        fixed = item.keep_nodes() | item.feed_nodes()
        converted: set[str] = set()
        for node in order:
            if node.name in fixed:
                continue
            if device_traits(target_device_type(node.device, item.device_types)).preferred_layout != "NCHW":
                continue
            if self._convertible(view, node, converted):
                converted.add(node.name)
        if not converted:
            return graph
        _Rewriter(view).rewrite(converted)
        return view.compact()

    @staticmethod
    def _convertible(view: GraphView, node: node_def_pb2.NodeDef, converted: set[str]) -> bool:
        if "T" not in node.attr or node.attr["T"].type not in _FLOATS:
            return False
        data = view.data_inputs(node)
        nhwc = "data_format" not in node.attr or node.attr["data_format"].s in (b"", b"NHWC")
        from_region = [parse(t)[0] in converted and parse(t)[1] == 0 for t in data]
        if node.op in _SENSITIVE:
            return nhwc
        if node.op == "BiasAdd":  # its rank is known (4) only when it reads a converted node
            return nhwc and bool(from_region) and from_region[0]
        if node.op in _UNARY:
            return len(data) >= 1 and from_region[0]
        if node.op in _BINARY:
            return len(data) == 2 and all(from_region)
        return False


def layout_inputs(node: node_def_pb2.NodeDef) -> range:
    """Positions of the data inputs of a converted node that carry the image layout."""
    return range(2) if node.op in _BINARY else range(1)


class _Rewriter:
    """Adds the boundary transposes around the converted nodes and rewrites their attrs."""

    def __init__(self, view: GraphView):
        self.view = view
        self.perms: dict[tuple[tuple[int, ...], str], str] = {}
        self.transposes: dict[tuple[str, str], str] = {}

    def rewrite(self, converted: set[str]) -> None:
        view = self.view
        for name in converted:
            node = view.nodes[name]
            if node.op in _SENSITIVE or node.op == "BiasAdd":
                _to_nchw_attrs(node)
        for node in list(view.graph_def.node):
            inputs = list(node.input)
            positions = layout_inputs(node) if node.name in converted else range(0)
            changed = False
            data_i = -1
            for i, text in enumerate(inputs):
                if text.startswith("^"):
                    continue
                data_i += 1
                source, index = parse(text)
                into_region = data_i in positions
                from_region = source in converted and index == 0
                if into_region and not from_region:
                    inputs[i] = self._transpose(text, node.attr["T"].type, node.device, TO_NCHW)
                elif from_region and not into_region:
                    producer = view.nodes[source]
                    inputs[i] = self._transpose(source, producer.attr["T"].type, producer.device, TO_NHWC)
                else:
                    continue
                changed = True
            if changed:
                view.set_inputs(node, inputs)

    def _transpose(self, tensor: str, dtype: int, device: str, perm: tuple[int, ...]) -> str:
        """The output of the (shared) transpose of ``tensor`` by ``perm`` on ``device``."""
        key = (tensor, "NCHW" if perm == TO_NCHW else "NHWC")
        found = self.transposes.get(key)
        if found is not None:
            return found
        view = self.view
        source, index = parse(tensor)
        suffix = "TransposeNHWCToNCHW" if perm == TO_NCHW else "TransposeNCHWToNHWC"
        node = node_def_pb2.NodeDef(
            name=view.unique_name(f"{source}-{index}-{suffix}-LayoutOptimizer"),
            op="Transpose",
            input=[tensor_ref(source, index), self._perm(perm, device)],
            device=device,
        )
        node.attr["T"].type = dtype
        node.attr["Tperm"].type = types_pb2.DT_INT32
        name = self.transposes[key] = view.add(node).name
        return name

    def _perm(self, perm: tuple[int, ...], device: str) -> str:
        found = self.perms.get((perm, device))
        if found is None:
            label = "PermConstNHWCToNCHW" if perm == TO_NCHW else "PermConstNCHWToNHWC"
            const = node_def_pb2.NodeDef(
                name=self.view.unique_name(f"{label}-LayoutOptimizer"), op="Const", device=device
            )
            const.attr["dtype"].type = types_pb2.DT_INT32
            const.attr["value"].tensor.CopyFrom(make_tensor_proto(np.array(perm, np.int32)))
            found = self.perms[(perm, device)] = self.view.add(const).name
        return found


def _to_nchw_attrs(node: node_def_pb2.NodeDef) -> None:
    node.attr["data_format"].s = b"NCHW"
    for key in _PERMUTED_ATTRS:
        values = list(node.attr[key].list.i) if key in node.attr else []
        if len(values) == 4:
            del node.attr[key].list.i[:]
            node.attr[key].list.i.extend(values[p] for p in TO_NCHW)
    if "explicit_paddings" in node.attr and len(node.attr["explicit_paddings"].list.i) == 8:
        pads = list(node.attr["explicit_paddings"].list.i)
        pairs = [pads[2 * d : 2 * d + 2] for d in range(4)]
        del node.attr["explicit_paddings"].list.i[:]
        node.attr["explicit_paddings"].list.i.extend(v for p in TO_NCHW for v in pairs[p])
