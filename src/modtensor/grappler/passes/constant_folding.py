"""Constant folding, as TensorFlow's ``constant_folding`` optimizer: materialize, fold, simplify, repeat.

Each round, on the whole graph:

1. **Materialize shapes** (first round; the rewrites keep every shape). ``Shape``/``Size``/``Rank``
   of a statically known tensor become Consts; the data input turns into a control input (so
   the constant runs only where the shape op would have: in the same loop frame, after the
   same branch of a cond).
2. **Fold.** Nodes whose data inputs are all constants are computed by the host evaluator
   the runtime hands in (the pass never runs kernels itself). A single-output node becomes
   a ``Const`` with its name and device, so readers are unchanged; a node with several
   outputs (``Unpack``, ``Split``, ...) becomes one Const per output read,
   ``ConstantFolding/<node>-folded-<i>``. The Consts get the node's control inputs and those
   of the constants it was computed from (a constant inside a while loop is in the loop's
   frame through its control edge). Never folded: stateful or random ops, Placeholders,
   transfers, nodes to preserve, a fetched node with several outputs, control-flow ops and
   results larger than ``max_constant_bytes`` and than the node's inputs together (TF's rule: a
   ``Tile`` to 12 MB stays, a batch norm's scale folded into a 12 MB filter folds).
3. **Simplify** (TF's ``SimplifyNode``), each rewrite keeping the node's name:

   - ``x * 1``, ``1 * x``, ``x / 1``, ``x + 0``, ``0 + x``, ``x - 0``, ``x AND true``, ``x OR false``
     -> ``Identity(x)`` (the neutral operand becomes a control input) when ``x`` has the
     output's shape, symbolically (``symbolic_shapes``, the shape functions over the fan-in,
     no import of the graph): ``x + ZerosLike(x)`` is ``x`` even with an unknown batch, and a
     scalar neutral operand needs no shapes at all; else ``BroadcastTo`` when the output
     shape is static. Ones and zeros are Consts of all ones/zeros, ``OnesLike``/``ZerosLike``
     and ``Fill`` of 1/0, as the sweep starts;
   - ``x * 0``, ``0 * x``, ``MatMul`` by zeros -> a zeros Const when the output shape is static
     (its inputs become control inputs: a random ``x`` still runs), else the zero operand when
     it has the output's shape; ``x OR true`` -> a true Const;
   - ``0 - y`` -> ``Neg(y)``, ``1 / y`` -> ``Reciprocal(y)`` (floating types);
   - ``Mul(Conv2D(x, filter), c)`` with constant ``filter`` and a scalar or per-output-channel
     ``c`` (NHWC/NDHWC) -> ``Conv2D(x, filter * c)`` (TF's ``MulConvPushDown``): the Conv takes
     the Mul's name, ``<conv>/merged_input`` computes ``filter * c`` and folds next round.
     This is how an inference batch norm after a convolution (``conv * scale + offset``)
     leaves a convolution and a bias-like add, which plugin optimizers fuse (ITEX's
     ``_ITEXFusedConv2D``);
   - ``Split``/``SplitV`` into one, ``Transpose`` by an identity permutation (on the
     dimensions larger than 1), ``Slice`` of everything, ``Tile`` by ones, ``Pad``/``PadV2``
     by zeros, ``Squeeze`` with nothing to squeeze, ``Reshape`` to the input's static shape
     -> ``Identity``.

A round that creates constants (a zeros Const, a constant-only ``merged_input``, an
Identity of a constant) is followed by another, up to ``_MAX_ROUNDS``. Nodes that only fed
folded nodes are dropped; the rest is left for the pruner and the dependency optimizer.
"""

from __future__ import annotations

import numpy as np

from modtensor.framework import dtypes, tensor_proto
from modtensor.framework.protos import graph_pb2, node_def_pb2, types_pb2
from modtensor.grappler.graph_view import GraphView, dedupe_controls, parse, topological_order
from modtensor.grappler.item import GrapplerItem
from modtensor.grappler.optimizer import GraphOptimizer, OptimizerContext, copy_graph
from modtensor.grappler.symbolic_shapes import SymbolicShapes

__all__ = ["ConstantFolding", "control_dependency", "materialize_shapes"]

_NEVER = {
    "Placeholder", "PlaceholderWithDefault", "Const", "NoOp", "Identity", "IdentityN", "Snapshot",
    "Enter", "Exit", "NextIteration", "LoopCond", "Switch", "Merge", "_SwitchN", "ControlTrigger",
}  # fmt: skip
_PASS_THROUGH = {"Identity", "Snapshot"}
_SWITCH_OPS = frozenset({"Switch", "RefSwitch", "_SwitchN"})
_SHAPE_OPS = ("Shape", "Size", "Rank")
_MAX_ROUNDS = 8
CONTROL_ANCHOR_SCOPE = "ConstantFoldingCtrl"

_MULS = frozenset({"Mul", "LogicalAnd"})
_MATMULS = frozenset({"MatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3"})
_ADDS = frozenset({"Add", "AddV2", "BiasAdd", "LogicalOr"})
_DIVS = frozenset({"Div", "RealDiv", "TruncateDiv", "DivNoNan"})
_ARITHMETIC = _MULS | _MATMULS | _ADDS | _DIVS | {"Sub"}
_FILLED_OPS = frozenset({"Const", "ZerosLike", "OnesLike", "Fill"})
_IDENTITY_LIKE = frozenset({"Split", "SplitV", "Transpose", "Slice", "Tile", "Pad", "PadV2", "Squeeze", "Reshape"})
_FLOATING = frozenset({types_pb2.DT_FLOAT, types_pb2.DT_DOUBLE, types_pb2.DT_HALF, types_pb2.DT_BFLOAT16,
                       types_pb2.DT_COMPLEX64, types_pb2.DT_COMPLEX128})  # fmt: skip


class ConstantFolding(GraphOptimizer):
    """TensorFlow's ``constant_folding``."""

    name = "constant_folding"

    def optimize(self, item: GrapplerItem, context: OptimizerContext) -> graph_pb2.GraphDef:
        graph = copy_graph(item.graph_def)
        index = context.index(item.graph_def)
        snapshot = _has_inplace_ops(graph)
        for round_number in range(_MAX_ROUNDS):
            current = item.with_graph(graph)
            view = GraphView(graph, index if round_number == 0 else None)
            # Rewrites keep every shape, so a shape op left in round 0 stays unknown in later rounds.
            materialized = round_number == 0 and materialize_shapes(view, current, context)
            _fold(view, current, context, index if round_number == 0 and not materialized else None)
            simplifier = _Simplifier(view, current, snapshot)
            simplifier.run()
            graph = view.compact()
            if not simplifier.more:
                break
        return graph


# ------------------------------------------------------------------ helpers shared with other passes


def control_dependency(view: GraphView, text: str) -> str:
    """A control input that runs when tensor ``text`` is computed (TF's ``AddControlDependency``).

    Usually ``^node``. A Switch output cannot anchor one (a control edge from the Switch fires for
    either branch), so an Identity reading that output is used, or made:
    ``ConstantFoldingCtrl/<switch>_<port>``.
    """
    if text.startswith("^"):
        return text
    source, port = parse(text)
    node = view.nodes.get(source)
    if node is None or node.op not in _SWITCH_OPS:
        return "^" + source
    for reader_name in sorted(view.consumers.get(source, ())):
        reader = view.nodes[reader_name]
        if reader_name in view.removed or reader.op != "Identity":
            continue
        data = view.data_inputs(reader)
        if len(data) == 1 and parse(data[0]) == (source, port):
            return "^" + reader_name
    name = f"{CONTROL_ANCHOR_SCOPE}/{source}_{port}"
    if name not in view.nodes:
        anchor = node_def_pb2.NodeDef(name=name, op="Identity", device=node.device, input=[text])
        anchor.attr["T"].type = node.attr["T"].type
        view.add(anchor)
    return "^" + name


def materialize_shapes(view: GraphView, item: GrapplerItem, context: OptimizerContext) -> bool:
    """``Shape``/``Size``/``Rank`` of statically known tensors -> Consts (their input becomes a control input).

    Shapes are inferred (``GraphProperties``, with constant propagation) over the fan-in of the
    shape ops' inputs only. True when something changed.
    """
    targets = [
        n
        for n in view.graph_def.node
        if n.op in _SHAPE_OPS and n.name not in item.nodes_to_preserve and n.name not in view.removed
    ]
    targets = [n for n in targets if len(view.data_inputs(n)) == 1]
    if not targets:
        return False
    props = context.properties(item, nodes={parse(view.data_inputs(n)[0])[0] for n in targets})
    changed = False
    for node in targets:
        source = view.data_inputs(node)[0]
        shape = props.output_shape(*parse(source))
        if node.op == "Rank":
            if shape.rank is None:
                continue
            value, enum = np.asarray(shape.rank, np.int32), types_pb2.DT_INT32
        else:
            if not shape.is_fully_defined():
                continue
            enum = node.attr["out_type"].type if "out_type" in node.attr else types_pb2.DT_INT32
            dims = shape.as_list()
            value = np.asarray(dims if node.op == "Shape" else int(np.prod(dims)), dtypes.as_dtype(enum).as_numpy_dtype)
        controls = [t for t in node.input if t.startswith("^")]
        _set_const(view, node, value, enum, [control_dependency(view, source), *controls])
        changed = True
    return changed


def _set_const(view: GraphView, node: node_def_pb2.NodeDef, value: np.ndarray, enum: int, inputs: list[str]) -> None:
    """Turn ``node`` into a Const of ``value`` (dtype ``enum``) whose inputs are the control inputs ``inputs``."""
    view.set_inputs(node, inputs)
    dedupe_controls(node)
    device = node.device
    node.op = "Const"
    node.attr.clear()
    node.attr["dtype"].type = enum
    node.attr["value"].tensor.CopyFrom(
        tensor_proto.make_tensor_proto(value, dtype=dtypes.as_dtype(enum), shape=list(value.shape))
    )
    node.device = device


def _has_inplace_ops(graph: graph_pb2.GraphDef) -> bool:
    """TF's graph_contains_assign_or_inplace_op: then forwarded values go through Snapshot, not Identity."""
    return any(n.op.startswith("Inplace") or n.op in ("Assign", "AssignAdd", "AssignSub") for n in graph.node)


# ------------------------------------------------------------------ folding


def _fold(view: GraphView, item: GrapplerItem, context: OptimizerContext, index) -> None:  # noqa: ANN001
    evaluator = context.host_evaluator
    if evaluator is None:
        return
    order = topological_order(view.graph_def, index)
    if order is None:
        return
    fed = item.feed_nodes()
    keep = item.keep_nodes()
    constant = {n.name for n in order if n.op == "Const" and n.name not in fed and n.name not in view.removed}
    candidates: list[node_def_pb2.NodeDef] = []
    for node in order:
        if node.name in view.removed:
            continue
        if (
            node.op in _PASS_THROUGH
            and node.name not in fed
            and node.name not in item.nodes_to_preserve
            and len(view.data_inputs(node)) == 1
            and all(parse(t)[0] in constant for t in node.input)
        ):
            # An Identity of a constant (a frozen variable's read) is constant: what reads it can fold. The
            # node itself stays (folding it would only copy the value).
            constant.add(node.name)
            continue
        if not _foldable(node, view, item, fed, keep):
            continue
        data = view.data_inputs(node)
        if (
            data
            and all(parse(t)[0] in constant for t in data)
            and all(parse(t)[0] in constant or parse(t)[0] not in fed for t in node.input)
        ):
            constant.add(node.name)
            candidates.append(node)
    if not candidates:
        return
    chosen = {n.name for n in candidates}
    # Evaluate only the outputs somebody outside the folded set reads (the frontier).
    wanted: list[tuple[node_def_pb2.NodeDef, list[int]]] = []
    for node in candidates:
        outputs = _read_outputs(view, node, chosen, keep)
        if outputs:
            wanted.append((node, outputs))
    values = _evaluate(view, wanted, context.host_evaluator)
    limit = context.options.max_constant_bytes
    sources = [parse(t)[0] for n in candidates for t in n.input]
    for (node, outputs), results in zip(wanted, values, strict=True):
        types = view.output_types(node)
        if not types or results is None or any(v is None for v in results):
            continue
        largest = max(v.nbytes for v in results)
        if largest > limit and largest > _input_bytes(view, node, context.host_evaluator):
            continue  # TF's rule: a result over the limit folds only if it is no larger than its inputs
        controls = ["^" + c for c in _inherited_controls(node, view, constant)]
        if len(types) == 1:
            _set_const(view, node, np.asarray(results[0]), types[0], controls)
            continue
        _fold_outputs(view, node, outputs, results, types, controls)
    _drop_unread(view, sources, keep, chosen)


def _input_bytes(view: GraphView, node: node_def_pb2.NodeDef, evaluator) -> int:  # noqa: ANN001
    """The bytes of ``node``'s data inputs (all constant): a Const's from its proto, a folded node's evaluated."""
    total = 0
    wanted: list[tuple[node_def_pb2.NodeDef, list[int]]] = []
    for text in view.data_inputs(node):
        source, port = parse(text)
        producer = view.nodes[source]
        if producer.op == "Const":
            proto = producer.attr["value"].tensor
            count = int(np.prod([d.size for d in proto.tensor_shape.dim], dtype=np.int64))
            dtype = dtypes.as_dtype(producer.attr["dtype"].type)
            total += count * (dtype.size if dtype.is_numpy_compatible else 0)
        else:
            wanted.append((producer, [port]))
    for results in _evaluate(view, wanted, evaluator):
        total += sum(v.nbytes for v in results or () if v is not None)
    return total


def _foldable(node: node_def_pb2.NodeDef, view: GraphView, item: GrapplerItem, fed: set[str], keep: set[str]) -> bool:
    if node.op in _NEVER or node.name in item.nodes_to_preserve or node.name in fed or view.is_stateful(node):
        return False
    types = view.output_types(node)
    if not types or not all(dtypes.as_dtype(t).is_numpy_compatible for t in types):
        return False
    return len(types) == 1 or node.name not in keep  # a fetched multi-output node keeps its outputs' names


def _read_outputs(view: GraphView, node: node_def_pb2.NodeDef, chosen: set[str], keep: set[str]) -> list[int]:
    """The outputs of a folded ``node`` read from outside the folded set (all of them for a kept node)."""
    types = view.output_types(node) or [0]
    if len(types) == 1:
        if node.name in keep or any(r not in chosen for r in view.consumers.get(node.name, ())):
            return [0]
        return []
    read: set[int] = set()
    for reader_name in view.consumers.get(node.name, ()):
        if reader_name in chosen:
            continue
        for text in view.nodes[reader_name].input:
            source, port = parse(text)
            if source == node.name and port >= 0:
                read.add(port)
    return sorted(read)


def _fold_outputs(view, node, outputs, results, types, controls) -> None:  # noqa: ANN001
    """A multi-output node -> one Const per output read; its readers (data and control) read those."""
    made = {}
    for port, value in zip(outputs, results, strict=True):
        name = view.unique_name(f"ConstantFolding/{node.name}-folded-{port}")
        const = node_def_pb2.NodeDef(name=name, op="Const", device=node.device, input=controls)
        const.attr["dtype"].type = types[port]
        value = np.asarray(value)
        const.attr["value"].tensor.CopyFrom(
            tensor_proto.make_tensor_proto(value, dtype=dtypes.as_dtype(types[port]), shape=list(value.shape))
        )
        view.add(const)
        made[port] = name
    for port, name in made.items():
        view.redirect(node.name, name, 0, index=port)
    anchor = made[outputs[-1]]
    for reader_name in list(view.consumers.get(node.name, ())):
        reader = view.nodes[reader_name]
        if "^" + node.name in reader.input:
            view.set_inputs(reader, ["^" + anchor if t == "^" + node.name else t for t in reader.input])
            dedupe_controls(reader)


def _evaluate(view, wanted, evaluator) -> list[list[np.ndarray] | None]:  # noqa: ANN001
    def subgraph(targets: list[node_def_pb2.NodeDef]) -> graph_pb2.GraphDef:
        needed: set[str] = set()
        stack = [n.name for n in targets]
        while stack:
            name = stack.pop()
            if name in needed:
                continue
            needed.add(name)
            stack.extend(parse(t)[0] for t in view.nodes[name].input if not t.startswith("^"))
        out = graph_pb2.GraphDef()
        out.versions.CopyFrom(view.graph_def.versions)
        for node in view.graph_def.node:
            if node.name in needed:
                copy = out.node.add()
                copy.CopyFrom(node)
                copy.device = ""
                del copy.input[:]
                copy.input.extend(t for t in node.input if not t.startswith("^"))
        return out

    if not wanted:
        return []
    fetches = [f"{node.name}:{port}" for node, ports in wanted for port in ports]
    try:
        flat = list(evaluator(subgraph([n for n, _ in wanted]), fetches))
        out: list[list[np.ndarray] | None] = []
        for _, ports in wanted:
            out.append(flat[: len(ports)])
            flat = flat[len(ports) :]
        return out
    except Exception:  # noqa: BLE001 - some node fails on the host: fold the others one by one
        pass
    values: list[list[np.ndarray] | None] = []
    for node, ports in wanted:
        try:
            values.append(list(evaluator(subgraph([node]), [f"{node.name}:{p}" for p in ports])))
        except Exception:  # noqa: BLE001 - left to fail (or work) at run time, as TF does
            values.append(None)
    return values


def _drop_unread(view: GraphView, names: list[str], keep: set[str], folded: set[str]) -> None:
    """Remove Consts and folded nodes nobody reads any more (what folding left behind)."""
    stack = list(names) + list(folded)
    while stack:
        name = stack.pop()
        node = view.nodes.get(name)
        if node is None or name in view.removed or name in keep or view.consumers.get(name):
            continue
        if node.op != "Const" and name not in folded:
            continue
        stack.extend(parse(t)[0] for t in node.input)
        view.remove(name)


def _inherited_controls(node: node_def_pb2.NodeDef, view: GraphView, constant: set[str]) -> list[str]:
    """The control inputs of ``node`` and of every constant it is computed from (each once, in order)."""
    controls: list[str] = []
    seen: set[str] = set()
    stack = [node.name]
    while stack:
        current = view.nodes[stack.pop()]
        for text in current.input:
            source = parse(text)[0]
            if text.startswith("^"):
                if source not in controls:
                    controls.append(source)
            elif source in constant and source not in seen:
                seen.add(source)
                stack.append(source)
    return controls


# ------------------------------------------------------------------ simplification


class _Simplifier:
    """TF's ``SimplifyNode`` rewrites over one round's graph (see the module docstring)."""

    def __init__(self, view: GraphView, item: GrapplerItem, snapshot: bool):
        self.view, self.item = view, item
        self.identity_op = "Snapshot" if snapshot else "Identity"
        self.fed = item.feed_nodes()
        self.keep = item.keep_nodes()
        self.more = False  # a rewrite made something new to fold
        self._symbolic: SymbolicShapes | None = None
        self._values: dict[str, np.ndarray | None] = {}  # Const values by name (folding only makes new Consts)
        self._filled: dict[tuple[str, int, int], bool] = {}

    def _todo(self) -> list[node_def_pb2.NodeDef]:
        view = self.view
        return [
            n
            for n in view.graph_def.node
            if (n.op in _ARITHMETIC or n.op in _IDENTITY_LIKE)
            and n.name not in view.removed
            and n.name not in self.item.nodes_to_preserve
            and n.name not in self.fed
        ]

    def run(self) -> None:
        view = self.view
        todo = self._todo()
        # Zeros and ones are those of the round's start (after folding): a node this sweep turns into a zeros
        # Const is folded into its readers next round, not forwarded around (TF leaves `c + (noise * 0)` a Const
        # carrying the noise's control edge, not an Identity of c).
        for node in todo:
            if node.op in _ARITHMETIC:
                for text in view.data_inputs(node):
                    self.is_filled(text, 0)
                    self.is_filled(text, 1)
        for node in todo:
            if node.name in view.removed or len(view.data_inputs(node)) < 1:
                continue
            if node.op in _IDENTITY_LIKE:
                self.identity_like(node)
            elif node.op in _ARITHMETIC and len(view.data_inputs(node)) == 2:
                simplified = self.arithmetic(node)
                if not simplified and node.op == "Mul":
                    self.mul_conv_push_down(node)

    # ---------------------------------------------------------------- shapes and values

    def symbolic(self) -> SymbolicShapes:
        """Shapes by the ops' shape functions over the fan-in asked about (no import of the graph)."""
        if self._symbolic is None:
            self._symbolic = SymbolicShapes(self.view.nodes, None, self.view.registry)
        return self._symbolic

    def static(self, text: str) -> list[int | None] | None:
        shape = self.symbolic().shape(text)
        return None if shape is None else [d if d >= 0 else None for d in shape]

    def const_node(self, text: str) -> node_def_pb2.NodeDef | None:
        """The Const (not fed) output 0 ``text`` reads (TF's IsReallyConstant), or None."""
        source, port = parse(text)
        node = self.view.nodes.get(source)
        if node is None or port != 0 or node.op != "Const" or source in self.fed or source in self.view.removed:
            return None
        return node

    def value(self, text: str) -> np.ndarray | None:
        node = self.const_node(text)
        if node is None:
            return None
        if node.name not in self._values:
            try:
                self._values[node.name] = tensor_proto.make_ndarray(node.attr["value"].tensor)
            except Exception:  # noqa: BLE001 - an unreadable constant is simply not used
                self._values[node.name] = None
        return self._values[node.name]

    def is_filled(self, text: str, wanted: int) -> bool:
        """TF's IsZeros (``wanted`` 0) / IsOnes (1): a constant of all ``wanted``, ZerosLike/OnesLike, Fill."""
        source, port = parse(text)
        key = (source, port, wanted)
        found = self._filled.get(key)
        if found is not None:
            return found
        node = self.view.nodes.get(source)
        if node is None or port != 0 or node.op not in _FILLED_OPS or source in self.fed:
            found = False
        elif node.op in ("ZerosLike", "OnesLike"):
            found = node.op == ("ZerosLike" if wanted == 0 else "OnesLike")
        elif node.op == "Fill":
            data = self.view.data_inputs(node)
            found = len(data) == 2 and self.is_filled(data[1], wanted)
        else:
            value = self.value(text)
            found = value is not None and value.size > 0 and value.dtype != object and bool(np.all(value == wanted))
        self._filled[key] = found
        return found

    def output_dtype(self, node: node_def_pb2.NodeDef) -> int | None:
        types = self.view.output_types(node)
        return types[0] if types else None

    # ---------------------------------------------------------------- rewrites

    def to_identity(self, node: node_def_pb2.NodeDef, forward: int) -> bool:
        """TF's ReplaceOperationWithIdentity: forward data input ``forward``; the other data inputs become controls."""
        dtype = self.output_dtype(node)
        if dtype is None:
            return False
        data = self.view.data_inputs(node)
        others = [control_dependency(self.view, t) for i, t in enumerate(data) if i != forward]
        self._rewrite(node, self.identity_op, [data[forward], *others], dtype)
        if self.const_node(data[forward]) is not None:
            self.more = True  # an Identity of a constant: its readers may fold
        return True

    def to_constant(self, node: node_def_pb2.NodeDef, value: np.ndarray) -> bool:
        """TF's ReplaceOperationWithConstant: every data input becomes a control input."""
        dtype = self.output_dtype(node)
        if dtype is None or not dtypes.as_dtype(dtype).is_numpy_compatible:
            return False
        data = self.view.data_inputs(node)
        controls = [t for t in node.input if t.startswith("^")]
        inputs = [control_dependency(self.view, t) for t in data] + controls
        _set_const(self.view, node, np.asarray(value, dtypes.as_dtype(dtype).as_numpy_dtype), dtype, inputs)
        self.more = True
        return True

    def to_broadcast(self, node: node_def_pb2.NodeDef, forward: int) -> bool:
        """TF's ReplaceBinaryOperationWithBroadcastTo: ``BroadcastTo(input forward, static output shape)``."""
        dtype = self.output_dtype(node)
        shape = self.static(node.name)
        if dtype is None or shape is None or None in shape:
            return False
        view = self.view
        data = view.data_inputs(node)
        name = f"ConstantFolding/{node.name}-broadcastto_shape-{forward}"
        if name in view.nodes:
            return False
        const = node_def_pb2.NodeDef(name=name, op="Const", device=node.device,
                                     input=[control_dependency(view, data[1 - forward])])  # fmt: skip
        const.attr["dtype"].type = types_pb2.DT_INT32
        const.attr["value"].tensor.CopyFrom(tensor_proto.make_tensor_proto(np.asarray(shape, np.int32)))
        view.add(const)
        others = [control_dependency(view, t) for i, t in enumerate(data) if i != forward]
        self._rewrite(node, "BroadcastTo", [data[forward], name, *others], dtype)
        node.attr["Tidx"].type = types_pb2.DT_INT32
        return True

    def _rewrite(self, node: node_def_pb2.NodeDef, op: str, inputs: list[str], dtype: int) -> None:
        controls = [t for t in node.input if t.startswith("^")]
        self.view.set_inputs(node, [*inputs, *controls])
        dedupe_controls(node)
        node.op = op
        node.attr.clear()
        node.attr["T"].type = dtype

    # ---------------------------------------------------------------- SimplifyArithmeticOperations

    def matches_output(self, node: node_def_pb2.NodeDef, side: int) -> bool:
        """Input ``side`` has the output's shape (symbolically); a scalar other operand never broadcasts it."""
        data = self.view.data_inputs(node)
        other = self.value(data[1 - side])
        if other is not None and other.ndim == 0 and node.op != "BiasAdd" and node.op not in _MATMULS:
            return True
        return self.symbolic().equal(data[side], node.name)

    def arithmetic(self, node: node_def_pb2.NodeDef) -> bool:
        op = node.op
        is_mul, is_matmul, is_add = op in _MULS, op in _MATMULS, op in _ADDS
        is_sub, is_div = op == "Sub", op in _DIVS
        data = self.view.data_inputs(node)
        x_zero = self.is_filled(data[0], 0)
        x_one = not x_zero and self.is_filled(data[0], 1)
        y_zero = self.is_filled(data[1], 0)
        y_one = not y_zero and self.is_filled(data[1], 1)
        if not (x_zero or x_one or y_zero or y_one):
            return False
        if op == "BiasAdd":  # only x + 0-bias: a bias is no broadcastable operand in NCHW
            return y_zero and self.matches_output(node, 0) and self.to_identity(node, 0)
        if (is_mul and x_one) or (is_add and x_zero):
            if self.matches_output(node, 1):
                return self.to_identity(node, 1)
            return self.matches_output(node, 0) and self.to_broadcast(node, 1)
        if is_sub and x_zero and self.matches_output(node, 1):
            self._rewrite(node, "Neg", [data[1], control_dependency(self.view, data[0])], node.attr["T"].type)
            return True
        floating = node.attr["T"].type in _FLOATING
        if is_div and x_one and op in ("Div", "RealDiv") and floating and self.matches_output(node, 1):
            self._rewrite(node, "Reciprocal", [data[1], control_dependency(self.view, data[0])], node.attr["T"].type)
            return True
        if ((is_mul or is_div) and y_one) or ((is_add or is_sub) and y_zero):
            if self.matches_output(node, 0):
                return self.to_identity(node, 0)
            return self.matches_output(node, 1) and self.to_broadcast(node, 0)
        shape = self.static(node.name)
        full = shape is not None and None not in shape
        if full and op == "LogicalOr" and (x_one or y_one):
            return self.to_constant(node, np.ones(shape, np.bool_))
        if (x_zero or y_zero) and (is_mul or is_matmul):
            if full:
                return self.to_constant(node, np.zeros(shape))
            if is_mul and x_zero:
                if self.matches_output(node, 0):
                    return self.to_identity(node, 0)
                return self.matches_output(node, 1) and self.to_broadcast(node, 0)
            if is_mul and y_zero:
                if self.matches_output(node, 1):
                    return self.to_identity(node, 1)
                return self.matches_output(node, 0) and self.to_broadcast(node, 1)
        return False

    # ---------------------------------------------------------------- MulConvPushDown

    def mul_conv_push_down(self, node: node_def_pb2.NodeDef) -> bool:
        view = self.view
        data = view.data_inputs(node)
        left, right = self.const_node(data[0]), self.const_node(data[1])
        if (left is None) == (right is None):
            return False
        const_side = 0 if left is not None else 1
        conv_text = data[1 - const_side]
        conv_name, port = parse(conv_text)
        conv = view.nodes.get(conv_name)
        if conv is None or port != 0 or conv.op not in ("Conv2D", "Conv3D") or conv_name in view.removed:
            return False
        const = left if left is not None else right
        if node.device != conv.device or node.device != const.device:
            return False
        conv_data = view.data_inputs(conv)
        if len(conv_data) != 2 or conv_name in self.keep or conv_name in self.item.nodes_to_preserve:
            return False
        if set(view.consumers.get(conv_name, ())) != {node.name}:
            return False
        filter_const = self.const_node(conv_data[1])
        if filter_const is None or self.const_node(conv_data[0]) is not None:
            return False
        if "^" + conv_name in const.input:
            return False
        data_format = conv.attr["data_format"].s.decode() if "data_format" in conv.attr else "NHWC"
        scale, filter_value = self.value(data[const_side]), self.value(conv_data[1])
        if scale is None or filter_value is None:
            return False
        # TF also asks that the Mul keep the Conv's shape (symbolically); a scalar-like or per-output-channel
        # constant of at most the Conv's rank never broadcasts it to more, so the constants' shapes decide.
        if scale.ndim > filter_value.ndim or not _valid_const_shape(data_format, filter_value.shape, scale.shape):
            return False
        merged_name = conv_name + "/merged_input"
        if merged_name in view.nodes:
            return False
        merged = node_def_pb2.NodeDef(name=merged_name, op="Mul", device=node.device)
        for key, value in node.attr.items():
            merged.attr[key].CopyFrom(value)
        operands = [data[const_side], conv_data[1]] if const_side == 0 else [conv_data[1], data[const_side]]
        merged.input.extend([*operands, *(t for t in node.input if t.startswith("^"))])
        view.add(merged)
        controls = [t for t in conv.input if t.startswith("^")]
        view.set_inputs(node, [conv_data[0], merged_name, *controls])
        node.op = conv.op
        node.attr.clear()
        for key, value in conv.attr.items():
            node.attr[key].CopyFrom(value)
        view.remove(conv_name)
        self.more = True
        return True

    # ---------------------------------------------------------------- Identity-like ops

    def identity_like(self, node: node_def_pb2.NodeDef) -> bool:
        op = node.op
        data = self.view.data_inputs(node)
        if op in ("Split", "SplitV"):
            if "num_split" in node.attr and node.attr["num_split"].i == 1:
                return self.to_identity(node, 1 if op == "Split" else 0)
            return False
        if op == "Squeeze":
            shape = self.static(data[0])
            return shape is not None and all(d is not None and d > 1 for d in shape) and self.to_identity(node, 0)
        if len(data) < 2:
            return False
        value = self.value(data[1])
        if op in ("Tile", "Pad", "PadV2"):
            if value is None:
                return False
            neutral = 1 if op == "Tile" else 0
            return value.size > 0 and bool(np.all(value == neutral)) and self.to_identity(node, 0)
        if value is None:
            return False
        flat = [int(v) for v in np.asarray(value).reshape(-1)]
        if op == "Transpose" and flat == list(range(len(flat))):
            return self.to_identity(node, 0)
        shape = self.static(data[0])
        if shape is None:
            return False
        if op == "Transpose":
            ok = len(flat) == len(shape) and all(d == 1 or flat[j] == j for j, d in enumerate(shape))
        elif op == "Reshape":
            ok = (
                None not in shape
                and len(flat) == len(shape)
                and all(v in (-1, d) for v, d in zip(flat, shape, strict=True))
            )
        elif op == "Slice":
            size = self.value(data[2]) if len(data) > 2 else None
            if size is None:
                return False
            sizes = [int(v) for v in np.asarray(size).reshape(-1)]
            ok = len(flat) == len(sizes) == len(shape) and all(
                b == 0 and (s == -1 or s == d) for b, s, d in zip(flat, sizes, shape, strict=True)
            )
        else:
            ok = False
        return ok and self.to_identity(node, 0)


def _valid_const_shape(data_format: str, filter_shape, const_shape) -> bool:  # noqa: ANN001
    """TF's IsValidConstShapeForMulConvPushDown: a scalar-like or per-output-channel constant (NHWC/NDHWC)."""
    if filter_shape is None or const_shape is None or None in filter_shape or None in const_shape:
        return False
    if len(const_shape) <= len(data_format) and int(np.prod(const_shape)) == 1:
        return True
    if data_format not in ("NHWC", "NDHWC"):
        return False
    try:
        broadcast = list(np.broadcast_shapes(tuple(filter_shape), tuple(const_shape)))
    except ValueError:
        return False
    return broadcast == list(filter_shape) and all(d <= 1 for d in const_shape[:-1])
