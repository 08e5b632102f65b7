"""Remapping: fold and fuse what follows a contraction into one CPU kernel, as TensorFlow's remapper does.

First, readers of an ``IdentityN`` read its inputs directly (Keras wraps its swish in one), and
Keras's LayerNormalization subgraph (moments, rsqrt, scale and shift over the last axis) becomes
TF's ``_MklLayerNorm`` (``remapper_layer_norm.py``, with its conditions). Then three rewrites, in
this order, each only where the intermediate nodes have no other reader, are neither fetched nor
preserved, share a device, and run on CPU (or are unassigned while CPU is the only device type):

1. **Pad into Conv2D.** ``Conv2D(Pad(x, const), f)`` with zero padding of H and W only
   becomes ``Conv2D(x, f, padding=EXPLICIT)`` (TF's ``_PadWithConv2D`` fusion); the same for the depthwise half of
   a separable convolution (NASNet's padded stride-2 blocks), which TF leaves padded.
2. **Constant affine folding.** A per-channel constant ``Mul``/``AddV2``/``Add``/``Sub``
   chain after ``Conv2D``/``DepthwiseConv2dNative``/``MatMul`` with a constant filter, with
   or without a ``BiasAdd`` first (Keras's inference batch norm: ``x * scale + shift``), is
   folded into a new filter and bias: ``BiasAdd(conv(x, f * s), b * s + t)`` (TF's constant
   folding ``MulConvPushDown`` and bias push-down, plus the folded ``FusedBatchNorm``).
3. **Fusion.** ``BiasAdd`` [+ ``Add``/``AddV2`` of a tensor that broadcasts to the output] [+ activation]
   after the contraction becomes ``_FusedConv2D`` / ``_FusedDepthwiseConv2dNative`` /
   ``_FusedMatMul`` with TF's attrs (``fused_ops``, ``num_args``, ``epsilon``,
   ``leakyrelu_alpha``, ``TArgs``); ``FusedBatchNorm``/``FusedBatchNormV3`` (inference)
   after a ``Conv2D`` becomes ``fused_ops=["FusedBatchNorm", act]``. Activations: Relu,
   Relu6, Elu, LeakyRelu, Sigmoid, Tanh, swish ``x * sigmoid(x)`` (``_MklSwish``, the name
   TF's oneDNN remapper gives it), and for MatMul GELU (``GeluExact`` from the
   ``0.5 * x * erfc(-x / sqrt(2))`` and ``0.5 * x * (1 + erf(x / sqrt(2)))`` subgraphs).

The fused node takes the name of the last node of the pattern, so readers are unchanged. Finally,
contractions on CPU whose weights are a ``Const`` get the internal attr ``_modtensor_const_weights``:
the native CPU kernels then keep the weights packed between calls.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

import modtensor.ops.fused_ops  # noqa: F401  (the fused OpDefs)
from modtensor.framework import dtypes, tensor_proto
from modtensor.framework.device_spec import DeviceSpec
from modtensor.framework.protos import graph_pb2, node_def_pb2, types_pb2
from modtensor.grappler.graph_view import GraphView, parse
from modtensor.grappler.item import GrapplerItem
from modtensor.grappler.optimizer import GraphOptimizer, OptimizerContext, copy_graph
from modtensor.grappler.passes.remapper_layer_norm import fuse_layer_norm

__all__ = ["Remapper"]

_ACTIVATIONS = ("Relu", "Relu6", "Elu", "LeakyRelu", "Sigmoid", "Tanh")
_DEPTHWISE_ACTIVATIONS = ("Relu", "Relu6", "Elu", "LeakyRelu")
_FLOAT_TYPES = {types_pb2.DT_FLOAT, types_pb2.DT_DOUBLE}
_TYPES = {
    "MatMul": {types_pb2.DT_FLOAT, types_pb2.DT_BFLOAT16, types_pb2.DT_HALF},
    "Conv2D": {types_pb2.DT_FLOAT, types_pb2.DT_DOUBLE, types_pb2.DT_HALF},
    "DepthwiseConv2dNative": {types_pb2.DT_FLOAT, types_pb2.DT_DOUBLE, types_pb2.DT_HALF},
}
_FUSED_OP = {"MatMul": "_FusedMatMul", "Conv2D": "_FusedConv2D", "DepthwiseConv2dNative": "_FusedDepthwiseConv2dNative"}
_COPIED = {
    "MatMul": ("T", "transpose_a", "transpose_b"),
    "Conv2D": ("T", "strides", "padding", "explicit_paddings", "data_format", "dilations", "use_cudnn_on_gpu"),
    "DepthwiseConv2dNative": ("T", "strides", "padding", "data_format", "dilations"),
}
_AFFINE = ("Mul", "AddV2", "Add", "Sub")
# Contractions whose second input, when a Const, the native CPU kernels keep packed between calls.
_CONST_WEIGHT_OPS = ("Conv2D", "_FusedConv2D", "MatMul", "_FusedMatMul")
CONST_WEIGHTS_ATTR = "_modtensor_const_weights"


class Remapper(GraphOptimizer):
    """TensorFlow's ``remapping``: Pad/affine folding and the contraction + bias/add/activation fusions."""

    name = "remapper"

    def optimize(self, item: GrapplerItem, context: OptimizerContext) -> graph_pb2.GraphDef:
        graph = copy_graph(item.graph_def)
        view = GraphView(graph, context.index(item.graph_def))
        rewrite = _Rewrite(view, item, context)
        for node in list(graph.node):
            if node.op == "IdentityN" and node.name not in view.removed:
                rewrite.bypass_identity_n(node)
        for node in list(graph.node):
            if node.op in ("AddV2", "Add") and node.name not in view.removed:
                fuse_layer_norm(rewrite, node)
        for node in list(graph.node):
            if node.op == "Reshape" and node.name not in view.removed:
                rewrite.sink_reshape(node)
        for node in list(graph.node):
            if node.op in ("Conv2D", "DepthwiseConv2dNative") and node.name not in view.removed:
                rewrite.fold_pad(node)
        for node in list(graph.node):
            if node.op in _TYPES and node.name not in view.removed:
                rewrite.fold_affine(node)
        for node in list(graph.node):
            if node.name in view.removed:
                continue
            if node.op in _TYPES:
                rewrite.fuse(node)
        for node in graph.node:
            if node.op in _CONST_WEIGHT_OPS and node.name not in view.removed:
                rewrite.mark_constant_weights(node)
        return view.compact()


class _Rewrite:
    """The state of one remapper run over a GraphView."""

    def __init__(self, view: GraphView, item: GrapplerItem, context: OptimizerContext):
        self.view, self.item, self.context = view, item, context
        self.keep = item.keep_nodes()
        self.only_cpu = set(item.device_types) <= {"CPU"}
        self._shapes = None
        self._consts: dict[str, np.ndarray | None] = {}

    # ------------------------------------------------------------------ helpers

    def private(self, node: node_def_pb2.NodeDef) -> bool:
        """True when ``node`` can disappear into a fusion: one reader, not fetched or preserved."""
        return (
            node.name not in self.keep
            and node.name not in self.item.nodes_to_preserve
            and len(self.view.consumers.get(node.name, ())) == 1
        )

    def only_reader(self, node: node_def_pb2.NodeDef) -> node_def_pb2.NodeDef | None:
        readers = self.view.consumers.get(node.name, set())
        if len(readers) != 1:
            return None
        reader = self.view.nodes.get(next(iter(readers)))
        if reader is None or reader.name in self.view.removed or reader.device != node.device:
            return None
        return reader

    def on_cpu(self, node: node_def_pb2.NodeDef) -> bool:
        return _on_cpu(node.device, self.only_cpu)

    def const_node(self, text: str) -> node_def_pb2.NodeDef | None:
        """The Const a tensor reads, through Identity-like nodes (a frozen variable read), or None."""
        source, index = parse(text)
        for _ in range(8):
            node = self.view.nodes.get(source)
            if node is None or index != 0 or source in self.view.removed:
                return None
            if node.op == "Const":
                return node
            if node.op not in ("Identity", "Snapshot", "StopGradient"):
                return None
            data = self.view.data_inputs(node)
            if len(data) != 1:
                return None
            source, index = parse(data[0])
        return None

    def const(self, text: str) -> np.ndarray | None:
        """The value of a Const input (output 0, through Identity-like nodes), decoded once per run."""
        node = self.const_node(text)
        if node is None:
            return None
        source = node.name
        if source not in self._consts:
            try:
                self._consts[source] = tensor_proto.make_ndarray(node.attr["value"].tensor)
            except Exception:  # noqa: BLE001 - an unreadable constant is simply not used
                self._consts[source] = None
        return self._consts[source]

    def const_controls(self, *texts: str) -> list[str]:
        """The control inputs of the Consts ``texts`` read (and of the Identity-like nodes on the way).

        A constant computed from them gets these: inside a while loop a constant is in the loop's frame
        only through its control edge (TF's constants in a loop body), and the new one must stay there.
        """
        controls: list[str] = []
        for text in texts:
            source, _ = parse(text)
            for _ in range(8):
                node = self.view.nodes.get(source)
                if node is None:
                    break
                controls += [t for t in node.input if t.startswith("^") and t not in controls]
                data = self.view.data_inputs(node)
                if node.op == "Const" or len(data) != 1:
                    break
                source = parse(data[0])[0]
        return controls

    def new_const(
        self, base: str, value: np.ndarray, dtype_enum: int, device: str, controls: Sequence[str] = ()
    ) -> str:
        name = self.view.unique_name(base)
        node = node_def_pb2.NodeDef(name=name, op="Const", device=device, input=list(controls))
        node.attr["dtype"].type = dtype_enum
        node.attr["value"].tensor.CopyFrom(
            tensor_proto.make_tensor_proto(value, dtype=dtypes.as_dtype(dtype_enum), shape=list(value.shape))
        )
        self.view.add(node)
        self._consts[name] = value
        return name

    def shape(self, text: str) -> list[int | None] | None:
        """The static shape of a tensor of the input graph, None when unknown rank."""
        if self._shapes is None:
            self._shapes = self.context.properties(self.item)
        source, index = parse(text)
        try:
            shape = self._shapes.output_shape(source, index)
        except Exception:  # noqa: BLE001 - no shape is simply no fusion
            return None
        if shape.rank is None:
            return None
        return [d if d is None else int(d) for d in shape.as_list()]

    def controls_of(self, *nodes: node_def_pb2.NodeDef) -> list[str]:
        controls: list[str] = []
        for part in nodes:
            controls += [t for t in part.input if t.startswith("^") and t not in controls]
        return controls

    def mark_constant_weights(self, node: node_def_pb2.NodeDef) -> None:
        """Tell the CPU kernel its weights are a Const (attr ``_modtensor_const_weights``), so it may keep them packed.

        An internal attr (a leading underscore: OpDef checks skip it, TensorFlow ignores it).
        """
        data = self.view.data_inputs(node)
        if len(data) < 2 or not self.on_cpu(node):
            return
        if self.const_node(data[1]) is not None:
            node.attr[CONST_WEIGHTS_ATTR].b = True

    def bypass_identity_n(self, node: node_def_pb2.NodeDef) -> None:
        """Readers of ``IdentityN:i`` read its input ``i`` instead (Keras wraps swish in one for its gradient)."""
        view = self.view
        if node.name in self.keep or node.name in self.item.nodes_to_preserve or view.control_inputs(node):
            return
        data = view.data_inputs(node)
        readers = [view.nodes[n] for n in view.consumers.get(node.name, ())]
        if any(any(parse(t) == (node.name, -1) or t == "^" + node.name for t in r.input) for r in readers):
            return  # a control reader: keep the node
        for reader in readers:
            inputs = []
            for text in reader.input:
                src, index = parse(text)
                inputs.append(data[index] if src == node.name and 0 <= index < len(data) else text)
            view.set_inputs(reader, inputs)
        if not view.consumers.get(node.name):
            view.remove(node.name)

    def last_dim(self, text: str) -> int | None:
        """The static last dimension of a MatMul's output (from its constant weights), else None."""
        source, index = parse(text)
        node = self.view.nodes.get(source)
        if node is None or index != 0 or node.op not in ("MatMul", "BiasAdd"):
            return None
        if node.op == "BiasAdd":
            bias = self.const(self.view.data_inputs(node)[1])
            return int(bias.shape[0]) if bias is not None and bias.ndim == 1 else None
        weights = self.const(self.view.data_inputs(node)[1])
        if weights is None or weights.ndim != 2:
            return None
        return int(weights.shape[0 if node.attr["transpose_b"].b else 1])

    def sink_reshape(self, reshape: node_def_pb2.NodeDef) -> None:
        """Move a Reshape below the BiasAdd / per-channel constant Mul, AddV2, Sub that reads it.

        Keras's Dense on a tensor of rank > 2 is ``Reshape(MatMul(Reshape(x)))`` then ``BiasAdd``:
        a reshape that keeps the last dimension N (the BiasAdd checks it is N) keeps every element's
        last index, so a per-last-dim operation gives the same values before or after it. Sunk, the
        BiasAdd (and a following per-channel scale) meet the MatMul and fuse with it.
        """
        view = self.view
        while True:
            data = view.data_inputs(reshape)
            if len(data) != 2 or not self.on_cpu(reshape) or not self.private(reshape):
                return
            width = self.last_dim(data[0])
            reader = self.only_reader(reshape)
            if width is None or reader is None or not self.on_cpu(reader) or reader.device != reshape.device:
                return
            rdata = view.data_inputs(reader)
            if len(rdata) != 2 or reader.attr["T"].type != reshape.attr["T"].type:
                return
            if reader.op == "BiasAdd":
                if parse(rdata[0]) != (reshape.name, 0) or reader.attr["data_format"].s not in (b"", b"NHWC"):
                    return
                bias = self.const(rdata[1])
                if bias is None or bias.shape != (width,):
                    return
                operands = [data[0], rdata[1]]
            elif reader.op in _AFFINE:
                first = parse(rdata[0]) == (reshape.name, 0)
                if first == (parse(rdata[1]) == (reshape.name, 0)) or (reader.op == "Sub" and not first):
                    return
                other = rdata[1] if first else rdata[0]
                value = self.const(other)
                if _channel_vector(value, width, 2) is None or value.ndim > 1:
                    return
                operands = [data[0], other] if first else [other, data[0]]
            else:
                return
            # Swap the two nodes' roles, keeping their names (readers of `reader` then read the reshape).
            op, attrs = reader.op, {k: v for k, v in reader.attr.items()}
            reshape_attrs = {k: v for k, v in reshape.attr.items()}
            controls = self.controls_of(reshape, reader)
            view.set_inputs(reshape, [*operands, *controls])
            view.set_inputs(reader, [reshape.name, data[1]])
            reshape.op, reader.op = op, "Reshape"
            reshape.attr.clear()
            reader.attr.clear()
            for key, value in attrs.items():
                reshape.attr[key].CopyFrom(value)
            for key, value in reshape_attrs.items():
                reader.attr[key].CopyFrom(value)
            reshape = reader  # the Reshape moved down: try the next reader

    # ------------------------------------------------------------------ 1. Pad into Conv2D

    def fold_pad(self, conv: node_def_pb2.NodeDef) -> None:
        """Zero padding of H and W before a VALID convolution becomes the convolution's EXPLICIT padding. For a
        depthwise convolution only in a separable one (its only reader a Conv2D): TF's _FusedDepthwiseConv2dNative
        takes no EXPLICIT padding, so folding there would cost a bias/activation fusion instead."""
        view = self.view
        data = view.data_inputs(conv)
        if len(data) != 2 or not self.on_cpu(conv) or conv.attr["padding"].s != b"VALID":
            return
        if conv.op == "DepthwiseConv2dNative":
            reader = self.only_reader(conv)
            if reader is None or reader.op != "Conv2D":
                return
        if conv.attr["data_format"].s not in (b"", b"NHWC") or conv.attr["T"].type not in _FLOAT_TYPES:
            return
        pad = view.nodes.get(parse(data[0])[0])
        if pad is None or pad.op not in ("Pad", "PadV2") or parse(data[0])[1] != 0 or pad.device != conv.device:
            return
        if not self.private(pad):
            return
        pad_data = view.data_inputs(pad)
        paddings = self.const(pad_data[1]) if len(pad_data) >= 2 else None
        if paddings is None or paddings.shape != (4, 2) or np.any(paddings < 0):
            return
        if np.any(paddings[0] != 0) or np.any(paddings[3] != 0):
            return
        if pad.op == "PadV2":
            value = self.const(pad_data[2]) if len(pad_data) == 3 else None
            if value is None or value.size != 1 or float(value.reshape(())) != 0.0:
                return
        controls = self.controls_of(pad, conv)
        view.remove(pad.name)
        view.set_inputs(conv, [pad_data[0], data[1], *controls])
        conv.attr["padding"].s = b"EXPLICIT"
        del conv.attr["explicit_paddings"].list.i[:]
        conv.attr["explicit_paddings"].list.i.extend(int(v) for v in paddings.reshape(-1))

    # ------------------------------------------------------------------ 2. constant affine folding

    def fold_affine(self, base: node_def_pb2.NodeDef) -> None:
        view = self.view
        data = view.data_inputs(base)
        if len(data) != 2 or not self.on_cpu(base) or base.attr["T"].type not in _FLOAT_TYPES:
            return
        if base.op != "MatMul" and base.attr["data_format"].s not in (b"", b"NHWC"):
            return
        weights = self.const(data[1])
        if weights is None or not self.private(base):
            return
        dtype = weights.dtype
        channels = weights.shape[-1] if base.op != "MatMul" else weights.shape[0 if base.attr["transpose_b"].b else 1]
        if base.op == "DepthwiseConv2dNative":
            channels = weights.shape[2] * weights.shape[3]
        out_rank = 2 if base.op == "MatMul" else 4
        chain: list[node_def_pb2.NodeDef] = []
        steps: list[tuple[str, np.ndarray]] = []
        bias = None
        cur = base
        while True:
            reader = self.only_reader(cur)
            if reader is None or not self.private(cur):
                break
            rdata = view.data_inputs(reader)
            if reader.op == "BiasAdd" and not chain and len(rdata) == 2 and parse(rdata[0]) == (cur.name, 0):
                if reader.attr["data_format"].s not in (b"", b"NHWC"):
                    break
                value = self.const(rdata[1])
                if value is None or value.shape != (channels,):
                    break
                bias = value.astype(dtype)
                chain.append(reader)
                cur = reader
                continue
            if reader.op not in _AFFINE or len(rdata) != 2 or reader.attr["T"].type != base.attr["T"].type:
                break
            first = parse(rdata[0]) == (cur.name, 0)
            second = parse(rdata[1]) == (cur.name, 0)
            if first == second or (reader.op == "Sub" and not first):
                break
            value = self.const(rdata[1] if first else rdata[0])
            vector = _channel_vector(value, channels, out_rank)
            if vector is None:
                break
            steps.append((reader.op, vector.astype(dtype)))
            chain.append(reader)
            cur = reader
        if not steps:
            return
        # Folded in float64 and rounded once to the graph's dtype.
        weights = np.array(weights, dtype=np.float64, copy=True)
        bias = np.zeros((channels,), np.float64) if bias is None else bias.astype(np.float64)
        steps = [(op, vector.astype(np.float64)) for op, vector in steps]
        for op, vector in steps:
            if op == "Mul":
                weights = _scale_filter(base, weights, vector)
                bias = bias * vector
            elif op == "Sub":
                bias = bias - vector
            else:
                bias = bias + vector
        last = chain[-1]
        sources = [data[1], *(t for part in chain for t in view.data_inputs(part) if self.const_node(t) is not None)]
        const_controls = self.const_controls(*sources)
        filter_name = self.new_const(base.name + "/folded_filter", weights.astype(dtype), base.attr["T"].type,
                                     base.device, const_controls)
        bias_name = self.new_const(last.name + "/folded_bias", bias.astype(dtype), base.attr["T"].type, base.device,
                                   const_controls)
        controls = self.controls_of(*chain)
        base_controls = [t for t in base.input if t.startswith("^")]
        view.set_inputs(base, [data[0], filter_name, *base_controls])
        for part in chain[:-1]:
            view.remove(part.name)
        view.set_inputs(last, [base.name, bias_name, *controls])
        last.op = "BiasAdd"
        t = base.attr["T"].type
        last.attr.clear()
        last.attr["T"].type = t
        last.attr["data_format"].s = b"NHWC"

    # ------------------------------------------------------------------ 3. fusion

    def fuse(self, base: node_def_pb2.NodeDef) -> None:
        view = self.view
        if not self.on_cpu(base) or not self.private(base):
            return
        data = view.data_inputs(base)
        if len(data) != 2 or base.attr["T"].type not in _TYPES[base.op]:
            return
        if base.op != "MatMul" and base.attr["data_format"].s not in (b"", b"NHWC"):
            return
        if base.op == "DepthwiseConv2dNative" and base.attr["padding"].s not in (b"SAME", b"VALID"):
            return
        first = self.only_reader(base)
        if first is None:
            return
        fdata = view.data_inputs(first)
        if first.op == "BiasAdd" and len(fdata) == 2 and parse(fdata[0]) == (base.name, 0):
            if first.attr["data_format"].s not in (b"", b"NHWC"):
                return
            parts, fused_ops, args = [first], ["BiasAdd"], [fdata[1]]
        elif (
            base.op == "Conv2D"
            and first.op in ("FusedBatchNorm", "FusedBatchNormV3")
            and "is_training" in first.attr
            and not first.attr["is_training"].b
            and first.attr["data_format"].s in (b"", b"NHWC")
            and len(fdata) == 5
            and parse(fdata[0]) == (base.name, 0)
            and self._only_output0_read(first)
        ):
            parts, fused_ops, args = [first], ["FusedBatchNorm"], list(fdata[1:5])
        else:
            return
        epsilon = first.attr["epsilon"].f if fused_ops[0] == "FusedBatchNorm" else 0.0
        alpha = 0.2
        cur = first
        if fused_ops[0] == "BiasAdd" and base.op != "DepthwiseConv2dNative" and self.private(cur):
            added = self._residual_add(cur)
            if added is not None:
                node, other = added
                parts.append(node)
                fused_ops.append("Add")
                args.append(other)
                cur = node
        act = self.only_reader(cur) if self.private(cur) else None
        allowed = _DEPTHWISE_ACTIVATIONS if base.op == "DepthwiseConv2dNative" else _ACTIVATIONS
        if act is not None and act.op in allowed and view.data_inputs(act) == [cur.name]:
            parts.append(act)
            fused_ops.append(act.op)
            if act.op == "LeakyRelu":
                alpha = act.attr["alpha"].f if "alpha" in act.attr else 0.2
        elif base.op == "MatMul" and fused_ops == ["BiasAdd"] and self._activation_through_reshape(base, parts, args):
            return
        else:
            swish = self._swish(cur)
            gelu = self._gelu(cur) if swish is None and base.op == "MatMul" and fused_ops == ["BiasAdd"] else None
            if swish is not None:
                parts += swish
                fused_ops.append("_MklSwish")
            elif gelu is not None:
                parts += gelu
                fused_ops.append("GeluExact")
        self._replace(base, parts, fused_ops, args, epsilon, alpha)

    def _activation_through_reshape(self, base: node_def_pb2.NodeDef, parts: list, args: list[str]) -> bool:
        """MatMul + BiasAdd, a Reshape that keeps the last dim, then GELU or swish on the reshaped tensor
        (Keras's Dense on rank > 2 inputs): the activation fuses into the MatMul and the Reshape moves after it."""
        view = self.view
        bias_add = parts[-1]
        reshape = self.only_reader(bias_add) if self.private(bias_add) else None
        if reshape is None or reshape.op != "Reshape" or reshape.name in self.keep:
            return False
        rdata = view.data_inputs(reshape)
        if len(rdata) != 2 or parse(rdata[0]) != (bias_add.name, 0) or view.control_inputs(reshape):
            return False
        swish = self._swish(reshape)
        gelu = self._gelu(reshape) if swish is None else None
        act = swish or gelu
        if act is None:
            return False
        out = act[-1]
        out_name, shape = out.name, rdata[1]
        reshape_attrs = {k: v for k, v in reshape.attr.items()}
        controls = self.controls_of(reshape, *act)
        for node in (reshape, *act[:-1]):
            view.remove(node.name)
        self._replace(base, parts, ["BiasAdd", "_MklSwish" if swish else "GeluExact"], args, 0.0, 0.2)
        view.set_inputs(out, [bias_add.name, shape, *controls])
        out.op = "Reshape"
        out.attr.clear()
        for key, value in reshape_attrs.items():
            out.attr[key].CopyFrom(value)
        assert out.name == out_name
        return True

    def _only_output0_read(self, node: node_def_pb2.NodeDef) -> bool:
        for name in self.view.consumers.get(node.name, ()):
            reader = self.view.nodes[name]
            for text in reader.input:
                src, index = parse(text)
                if src == node.name and index != 0:
                    return False
        return True

    def _residual_add(self, cur: node_def_pb2.NodeDef) -> tuple[node_def_pb2.NodeDef, str] | None:
        add = self.only_reader(cur)
        if add is None or add.op not in ("Add", "AddV2"):
            return None
        adata = self.view.data_inputs(add)
        if len(adata) != 2:
            return None
        mine = [parse(t) == (cur.name, 0) for t in adata]
        if mine[0] == mine[1]:
            return None
        other = adata[1] if mine[0] else adata[0]
        out_shape, other_shape = self.shape(cur.name), self.shape(other)
        if out_shape is None or other_shape is None:
            # Unknown statically (a graph fed through client transfers): the fused kernels check at run time that
            # the operand broadcasts to the output and fail otherwise, so only a pattern that cannot be an
            # equal-or-smaller operand is refused here.
            return add, other
        if len(other_shape) > len(out_shape):
            return None
        for a, b in zip(reversed(out_shape), reversed(other_shape), strict=False):
            if b is not None and b != 1 and a is not None and a != b:
                return None
            if a is None and b is not None and b != 1:
                return None
            if b is None and a is not None and a != 1:
                continue
        return add, other

    def _swish(self, cur: node_def_pb2.NodeDef) -> list[node_def_pb2.NodeDef] | None:
        """The nodes of ``cur * sigmoid(cur)`` (Keras's swish/silu, ``sigmoid(1.0 * cur)`` included), else None."""
        view = self.view
        readers = [view.nodes[n] for n in view.consumers.get(cur.name, ())]
        if cur.name in self.keep or len(readers) != 2 or any(r.device != cur.device for r in readers):
            return None
        x = (cur.name, 0)
        sigmoid = scale = None
        for reader in readers:
            data = view.data_inputs(reader)
            if reader.op == "Sigmoid" and data == [cur.name]:
                sigmoid = reader
            elif reader.op in ("Mul", "Identity") and x in [parse(t) for t in data] and self.private(reader):
                if reader.op == "Mul":  # times 1.0 (Keras's beta), or an Identity once grappler simplified it
                    other = data[1] if parse(data[0]) == x else data[0]
                    value = self.const(other) if len(data) == 2 else None
                    if value is None or value.size != 1 or float(value.reshape(())) != 1.0:
                        continue
                follower = self.only_reader(reader)
                if follower is not None and follower.op == "Sigmoid":
                    scale, sigmoid = reader, follower
        if sigmoid is None or not self.private(sigmoid):
            return None
        mul = next((r for r in readers if r is not scale and r is not sigmoid), None)
        if mul is None or mul.op != "Mul" or mul.name in self.item.nodes_to_preserve:
            return None
        if sorted(parse(t) for t in view.data_inputs(mul)) != sorted([x, (sigmoid.name, 0)]):
            return None
        return [n for n in (scale, sigmoid, mul) if n is not None]

    def _gelu(self, cur: node_def_pb2.NodeDef) -> list[node_def_pb2.NodeDef] | None:
        """The nodes of an exact GELU of ``cur`` (Keras's erfc form or the erf form), or None."""
        view = self.view
        readers = [view.nodes[n] for n in view.consumers.get(cur.name, ())]
        if cur.name in self.keep or len(readers) != 2 or any(r.device != cur.device for r in readers):
            return None
        x = (cur.name, 0)

        def operand(node: node_def_pb2.NodeDef, which: tuple[str, int]) -> str | None:
            data = view.data_inputs(node)
            if len(data) != 2:
                return None
            if parse(data[0]) == which:
                return data[1]
            if parse(data[1]) == which:
                return data[0]
            return None

        def scalar(text: str | None, value: float) -> bool:
            c = self.const(text) if text is not None else None
            return c is not None and c.size == 1 and math.isclose(float(c.reshape(())), value, rel_tol=1e-6)

        by_op = {r.op: r for r in readers}
        # Keras 3: mul = 0.5 * x; neg = -x; mul_1 = neg * (1/sqrt2); erfc = Erfc(mul_1); out = mul * erfc
        if set(by_op) == {"Mul", "Neg"}:
            half, neg = by_op["Mul"], by_op["Neg"]
            if not scalar(operand(half, x), 0.5):
                return None
            scaled = self.only_reader(neg)
            if scaled is None or scaled.op != "Mul" or not scalar(operand(scaled, (neg.name, 0)), 1 / math.sqrt(2)):
                return None
            erfc = self.only_reader(scaled)
            if erfc is None or erfc.op != "Erfc":
                return None
            out = self.only_reader(erfc)
            if out is None or out.op != "Mul" or operand(out, (erfc.name, 0)) is None:
                return None
            if parse(operand(out, (erfc.name, 0))) != (half.name, 0) or self.only_reader(half) is not out:
                return None
            inner = [half, neg, scaled, erfc]
        # TF / Keras 2: mul = x * (1/sqrt2); erf = Erf(mul); add = 1 + erf; m = x * add; out = m * 0.5
        # (or 0.5 * x first, then times (1 + erf)).
        elif set(by_op) == {"Mul"} and len(readers) == 2:
            first, second = readers
            scaled = first if scalar(operand(first, x), 1 / math.sqrt(2)) else second
            other = second if scaled is first else first
            if not scalar(operand(scaled, x), 1 / math.sqrt(2)):
                return None
            erf = self.only_reader(scaled)
            if erf is None or erf.op != "Erf":
                return None
            plus = self.only_reader(erf)
            if plus is None or plus.op not in ("Add", "AddV2") or not scalar(operand(plus, (erf.name, 0)), 1.0):
                return None
            out = self.only_reader(plus)
            if out is None or out.op != "Mul":
                return None
            partner = operand(out, (plus.name, 0))
            if partner is None or parse(partner) != (other.name, 0) or self.only_reader(other) is not out:
                return None
            if not scalar(operand(other, x), 0.5):
                return None
            inner = [other, scaled, erf, plus]
        else:
            return None
        if any(not self.private(n) for n in inner) or out.name in self.item.nodes_to_preserve:
            return None
        return [*inner, out]

    def _replace(
        self,
        base: node_def_pb2.NodeDef,
        parts: list[node_def_pb2.NodeDef],
        fused_ops: list[str],
        args: list[str],
        epsilon: float,
        alpha: float,
    ) -> None:
        view = self.view
        last = parts[-1]
        fused = node_def_pb2.NodeDef(name=last.name, device=last.device, op=_FUSED_OP[base.op])
        for key in _COPIED[base.op]:
            if key in base.attr:
                fused.attr[key].CopyFrom(base.attr[key])
        if base.op == "Conv2D":
            fused.attr["TArgs"].list.type.extend([base.attr["T"].type] * len(args))
        fused.attr["num_args"].i = len(args)
        fused.attr["fused_ops"].list.s.extend(op.encode() for op in fused_ops)
        fused.attr["epsilon"].f = epsilon
        if "LeakyRelu" in fused_ops:
            fused.attr["leakyrelu_alpha"].f = alpha
        controls = self.controls_of(base, *parts)
        inputs = [*view.data_inputs(base), *args, *controls]
        for part in {base.name, *(p.name for p in parts)}:
            view.remove(part)
        view.removed.discard(last.name)
        view.set_inputs(last, inputs)
        last.op = fused.op
        last.attr.clear()
        for key, value in fused.attr.items():
            last.attr[key].CopyFrom(value)


def _channel_vector(value: np.ndarray | None, channels: int, out_rank: int) -> np.ndarray | None:
    """``value`` as a per-output-channel vector when it broadcasts only along the last dim, else None."""
    if value is None or value.dtype.kind != "f" or value.ndim > out_rank:
        return None
    if value.size == 1:
        return np.full((channels,), value.reshape(()), dtype=value.dtype)
    if value.shape[-1] != channels or value.size != channels:
        return None
    return value.reshape(channels)


def _scale_filter(base: node_def_pb2.NodeDef, weights: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """The filter times a per-output-channel vector."""
    if base.op == "MatMul":
        return weights * (vector[:, None] if base.attr["transpose_b"].b else vector[None, :])
    if base.op == "DepthwiseConv2dNative":
        kh, kw, c, m = weights.shape
        return weights * vector.reshape(1, 1, c, m)
    return weights * vector


def _on_cpu(device: str, only_cpu: bool) -> bool:
    if not device:
        return only_cpu
    try:
        spec = DeviceSpec.from_string(device if device.startswith("/") else "/" + device)
    except (ValueError, TypeError):
        return False
    return spec.device_type == "CPU" or (spec.device_type is None and only_cpu)
