"""Auto mixed precision: compute-bound float32 ops run in float16/bfloat16 on device types that declare one.

A simplified form of TensorFlow's pass, with its op lists:

- allow list (``MatMul``, ``BatchMatMulV2``, ``Conv2D``, ...): always converted;
- infer and clear lists (``BiasAdd``, ``AddV2``, ``Relu``, ``MaxPool``, ...): converted when their
  float32 inputs come from converted nodes (or constants), at least one from a converted
  node, so low precision flows on from an allow-listed op instead of being cast back at
  once (TensorFlow also requires an allow-listed op downstream of an infer-list op; this
  pass does not);
- deny list (``Exp``, ``Log``, ``Softmax``... reductions and losses) and every other op: kept in float32.

A converted node gets its ``T`` attr set to the low-precision type; a ``Cast`` is added
where it reads a float32 tensor and where an unconverted node reads its output (one
per tensor, shared by its readers). Fetched, preserved and fed nodes keep float32. The
device type of a node (``device_traits.target_device_type``) must declare a
mixed-precision dtype; ``auto_mixed_precision_onednn_bfloat16`` instead converts CPU
nodes to bfloat16, as TensorFlow's oneDNN variant does.
"""

from __future__ import annotations

from modtensor.framework import node_def as node_def_lib
from modtensor.framework.protos import graph_pb2, node_def_pb2, types_pb2
from modtensor.grappler.device_traits import declared_device_types, device_traits, target_device_type
from modtensor.grappler.graph_view import GraphView, parse, tensor_ref, topological_order
from modtensor.grappler.item import GrapplerItem
from modtensor.grappler.optimizer import GraphOptimizer, OptimizerContext, copy_graph

__all__ = ["ALLOW", "CLEAR", "DENY", "INFER", "AutoMixedPrecision", "AutoMixedPrecisionOneDnnBfloat16"]

ALLOW = frozenset(
    ["BatchMatMul", "BatchMatMulV2", "BatchMatMulV3", "Conv2D", "Conv3D", "DepthwiseConv2dNative", "Einsum", "MatMul"]
)
INFER = frozenset(
    [
        "Add",
        "AddN",
        "AddV2",
        "AvgPool",
        "BiasAdd",
        "Elu",
        "Erf",
        "FusedBatchNormV3",
        "LeakyRelu",
        "Mul",
        "RealDiv",
        "Selu",
        "Sigmoid",
        "Softplus",
        "Softsign",
        "Sqrt",
        "Sub",
        "Tanh",
    ]
)
CLEAR = frozenset(
    [
        "Abs",
        "ConcatV2",
        "ExpandDims",
        "Identity",
        "MaxPool",
        "Maximum",
        "Minimum",
        "Neg",
        "Pack",
        "Pad",
        "Relu",
        "Relu6",
        "Reshape",
        "Slice",
        "Snapshot",
        "Split",
        "Square",
        "Squeeze",
        "StridedSlice",
        "Tile",
        "Transpose",
    ]
)
DENY = frozenset(
    [
        "Exp",
        "Expm1",
        "L2Loss",
        "Log",
        "Log1p",
        "LogSoftmax",
        "Mean",
        "Pow",
        "Softmax",
        "SoftmaxCrossEntropyWithLogits",
        "SparseSoftmaxCrossEntropyWithLogits",
        "Sum",
    ]
)
_DTYPES = {"float16": types_pb2.DT_HALF, "bfloat16": types_pb2.DT_BFLOAT16}
_SUFFIX = {types_pb2.DT_HALF: "Fp16", types_pb2.DT_BFLOAT16: "Bf16", types_pb2.DT_FLOAT: "Fp32"}


class AutoMixedPrecision(GraphOptimizer):
    """TensorFlow's ``auto_mixed_precision`` for device types that declare a mixed-precision dtype."""

    name = "auto_mixed_precision"

    def low_precision(self, device_type: str | None) -> int | None:
        """The DataType nodes of ``device_type`` are converted to, or None to leave them in float32."""
        found = device_traits(device_type).mixed_precision_dtype
        return _DTYPES[found] if found else None

    def applies(self) -> bool:
        """False when no device type declares a low-precision dtype (the graph is returned unchanged)."""
        return bool(declared_device_types(mixed_precision=True))

    def optimize(self, item: GrapplerItem, context: OptimizerContext) -> graph_pb2.GraphDef:
        if not self.applies():
            return item.graph_def
        graph = copy_graph(item.graph_def)
        order = topological_order(graph, context.index(item.graph_def))
        if order is None:
            return graph
        view = GraphView(graph, context.index(item.graph_def))
        fixed = item.keep_nodes() | item.feed_nodes()
        painted: dict[str, int] = {}  # node -> its low-precision dtype
        for node in order:
            if (
                node.name in fixed
                or node.op in DENY
                or "T" not in node.attr
                or node.attr["T"].type != types_pb2.DT_FLOAT
            ):
                continue
            low = self.low_precision(target_device_type(node.device, item.device_types))
            if low is None or view.op_def(node) is None:
                continue
            if node.op in ALLOW or (node.op in INFER or node.op in CLEAR) and self._fed_low(view, node, painted, low):
                painted[node.name] = low
        if not painted:
            return graph
        _CastInserter(view, painted).rewrite()
        return view.compact()

    @staticmethod
    def _fed_low(view: GraphView, node: node_def_pb2.NodeDef, painted: dict[str, int], low: int) -> bool:
        """True when a ``T``-typed input of ``node`` comes from a node converted to ``low`` and the others are
        converted too or constants (whose cast constant folding removes)."""
        data = view.data_inputs(node)
        sources = [parse(data[i])[0] for i in _t_positions(view, node, "input")]
        low_fed = [painted.get(s) == low for s in sources]
        return any(low_fed) and all(f or view.nodes[s].op == "Const" for f, s in zip(low_fed, sources, strict=True))


class AutoMixedPrecisionOneDnnBfloat16(AutoMixedPrecision):
    """TensorFlow's ``auto_mixed_precision_onednn_bfloat16``: the same rewrite to bfloat16 for CPU nodes."""

    name = "auto_mixed_precision_onednn_bfloat16"

    def low_precision(self, device_type: str | None) -> int | None:
        return types_pb2.DT_BFLOAT16 if device_type == "CPU" else None

    def applies(self) -> bool:
        return True


def _t_positions(view: GraphView, node: node_def_pb2.NodeDef, which: str) -> list[int]:
    """Flat positions of the node's inputs (or outputs) whose type is the ``T`` attr."""
    op_def = view.op_def(node)
    args = op_def.input_arg if which == "input" else op_def.output_arg
    ranges = node_def_lib.arg_ranges(node, op_def, which)  # type: ignore[arg-type]
    return [i for arg in args if arg.type_attr == "T" for i in range(*ranges[arg.name])]


class _CastInserter:
    """Switches the painted nodes to low precision and adds the boundary casts."""

    def __init__(self, view: GraphView, painted: dict[str, int]):
        self.view = view
        self.painted = painted
        self.casts: dict[tuple[str, int], str] = {}
        self.low_outputs = {name: set(_t_positions(view, view.nodes[name], "output")) for name in painted}

    def rewrite(self) -> None:
        view = self.view
        for node in list(view.graph_def.node):
            low = self.painted.get(node.name)
            positions = set(_t_positions(view, node, "input")) if low is not None else set()
            inputs = list(node.input)
            data_i, changed = -1, False
            for i, text in enumerate(inputs):
                if text.startswith("^"):
                    continue
                data_i += 1
                source, index = parse(text)
                source_low = self.painted.get(source) if index in self.low_outputs.get(source, ()) else None
                wanted = low if data_i in positions else None
                if source_low == wanted:
                    continue
                if wanted is not None and source_low is None:
                    inputs[i] = self._cast(text, types_pb2.DT_FLOAT, wanted, node.device)
                elif wanted is None:
                    inputs[i] = self._cast(text, source_low, types_pb2.DT_FLOAT, view.nodes[source].device)
                else:  # bfloat16 producer, float16 reader: through float32
                    widened = self._cast(text, source_low, types_pb2.DT_FLOAT, view.nodes[source].device)
                    inputs[i] = self._cast(widened, types_pb2.DT_FLOAT, wanted, node.device)
                changed = True
            if changed:
                view.set_inputs(node, inputs)
            if low is not None:
                node.attr["T"].type = low

    def _cast(self, tensor: str, src: int, dst: int, device: str) -> str:
        key = (tensor, dst)
        found = self.casts.get(key)
        if found is None:
            source, index = parse(tensor)
            cast = node_def_pb2.NodeDef(
                name=self.view.unique_name(f"{source}-{index}-CastTo{_SUFFIX[dst]}-AutoMixedPrecision"),
                op="Cast",
                input=[tensor_ref(source, index)],
                device=device,
            )
            cast.attr["SrcT"].type = src
            cast.attr["DstT"].type = dst
            cast.attr["Truncate"].b = False
            found = self.casts[key] = self.view.add(cast).name
        return found
