"""Remapping: fuse ``MatMul``/``Conv2D`` + ``BiasAdd`` [+ ``Relu``/``Relu6``/``Elu``/``LeakyRelu``].

The pattern becomes one ``_FusedMatMul`` / ``_FusedConv2D`` with TensorFlow's attrs
(``fused_ops``, ``num_args``, ``epsilon``, ``TArgs``...). The fused node takes the name
of the last node of the pattern, so readers are unchanged. Fused only when the
intermediate nodes have no other reader and are neither fetched nor preserved, all
nodes share a device, the dtype has a fused CPU kernel, Conv2D is NHWC, and the
device is a CPU (or unassigned while CPU is the only device type), since only the CPU
kernels of the fused ops exist.
"""

from __future__ import annotations

import modtensor.ops.fused_ops  # noqa: F401  (the fused OpDefs)
from modtensor.framework.device_spec import DeviceSpec
from modtensor.framework.protos import graph_pb2, node_def_pb2, types_pb2
from modtensor.grappler.graph_view import GraphView, parse
from modtensor.grappler.item import GrapplerItem
from modtensor.grappler.optimizer import GraphOptimizer, OptimizerContext, copy_graph

__all__ = ["Remapper"]

_ACTIVATIONS = ("Relu", "Relu6", "Elu", "LeakyRelu")
_TYPES = {
    "MatMul": {types_pb2.DT_FLOAT, types_pb2.DT_BFLOAT16, types_pb2.DT_HALF},
    "Conv2D": {types_pb2.DT_FLOAT, types_pb2.DT_DOUBLE, types_pb2.DT_HALF},
}
_COPIED = {
    "MatMul": ("T", "transpose_a", "transpose_b"),
    "Conv2D": ("T", "strides", "padding", "explicit_paddings", "data_format", "dilations", "use_cudnn_on_gpu"),
}


class Remapper(GraphOptimizer):
    """TensorFlow's ``remapping`` (the contraction + BiasAdd + activation fusions)."""

    name = "remapper"

    def optimize(self, item: GrapplerItem, context: OptimizerContext) -> graph_pb2.GraphDef:
        graph = copy_graph(item.graph_def)
        view = GraphView(graph, context.index(item.graph_def))
        keep = item.keep_nodes()
        only_cpu = set(item.device_types) <= {"CPU"}
        for node in list(graph.node):
            if node.op != "BiasAdd" or node.name in view.removed or node.name in item.nodes_to_preserve:
                continue
            data = view.data_inputs(node)
            base = view.nodes.get(parse(data[0])[0]) if len(data) == 2 else None
            if base is None or base.op not in _TYPES or parse(data[0])[1] != 0:
                continue
            if not self._private(view, base, keep) or base.device != node.device:
                continue
            if not _on_cpu(node.device, only_cpu) or node.attr["T"].type not in _TYPES[base.op]:
                continue
            if base.op == "Conv2D" and base.attr["data_format"].s not in (b"", b"NHWC"):
                continue
            if node.attr["data_format"].s not in (b"", b"NHWC"):
                continue
            last, fused_ops = node, ["BiasAdd"]
            readers = view.consumers.get(node.name, set())
            if len(readers) == 1 and self._private(view, node, keep):
                act = view.nodes[next(iter(readers))]
                if act.op in _ACTIVATIONS and act.device == node.device and view.data_inputs(act) == [node.name]:
                    last, fused_ops = act, ["BiasAdd", act.op]
            self._fuse(view, base, node, last, data[1], fused_ops)
        return view.compact()

    @staticmethod
    def _private(view: GraphView, node: node_def_pb2.NodeDef, keep: set[str]) -> bool:
        """True when ``node`` can disappear into a fusion: one reader, not fetched or preserved."""
        return node.name not in keep and len(view.consumers.get(node.name, ())) == 1

    @staticmethod
    def _fuse(view: GraphView, base, bias_add, last, bias: str, fused_ops: list[str]) -> None:  # noqa: ANN001
        fused = node_def_pb2.NodeDef(name=last.name, device=last.device)
        fused.op = "_FusedMatMul" if base.op == "MatMul" else "_FusedConv2D"
        for key in _COPIED[base.op]:
            if key in base.attr:
                fused.attr[key].CopyFrom(base.attr[key])
        if base.op == "Conv2D":
            fused.attr["TArgs"].list.type.append(base.attr["T"].type)
        fused.attr["num_args"].i = 1
        fused.attr["fused_ops"].list.s.extend(op.encode() for op in fused_ops)
        fused.attr["epsilon"].f = 0.0
        if last.op == "LeakyRelu":
            fused.attr["leakyrelu_alpha"].f = last.attr["alpha"].f if "alpha" in last.attr else 0.2
        controls = []
        for part in (base, bias_add, last):
            controls += [t for t in part.input if t.startswith("^") and t not in controls]
        inputs = [*view.data_inputs(base), bias, *controls]
        for part in {base.name, bias_add.name, last.name}:
            view.remove(part)
        view.removed.discard(last.name)
        view.set_inputs(last, inputs)
        last.op = fused.op
        last.attr.clear()
        for key, value in fused.attr.items():
            last.attr[key].CopyFrom(value)


def _on_cpu(device: str, only_cpu: bool) -> bool:
    if not device:
        return only_cpu
    try:
        spec = DeviceSpec.from_string(device if device.startswith("/") else "/" + device)
    except (ValueError, TypeError):
        return False
    return spec.device_type == "CPU" or (spec.device_type is None and only_cpu)
