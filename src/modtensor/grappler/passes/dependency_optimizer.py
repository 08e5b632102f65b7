"""Dependency optimization, as TensorFlow's ``dependency_optimization``: control edges, NoOps and Identities.

Over a worklist of nodes (TF's ``OptimizeDependencies``, twice):

- duplicate control inputs and control inputs on a node that is also a data input go;
- a ``Const`` without inputs runs before anything else: control edges *from* it go (and it
  goes when nothing reads it any more);
- a node whose outputs only feed control edges and that is free of side effects (not
  stateful, no ref inputs, not a Placeholder, Switch, Merge, Enter/Exit/NextIteration,
  ``_Send``, Assert, CheckNumerics, ...; neither fetched nor preserved) becomes a ``NoOp``,
  its data inputs turned into control inputs (TF's ``SafeToConvertToNoOp``);
- a ``NoOp``, and an ``Identity``/``IdentityN`` that is safe to remove (not fetched or
  preserved, not reading a variable or a ``_Recv``, not the anchor of a Switch output
  read as a control input), is bypassed: its readers read its data inputs and depend on
  its control inputs, when that adds no edges (inputs x outputs <= inputs + outputs; for
  a multi-input IdentityN, the edges it would really make) and no device crossings.

Only with known fetches (``item.fetches``) are nodes converted or removed, as in TF.
Transitive reduction of control edges and the grouping of cross-device control edges
are not built.
"""

from __future__ import annotations

from modtensor.framework.protos import graph_pb2, node_def_pb2
from modtensor.grappler.graph_view import GraphView, dedupe_controls, parse
from modtensor.grappler.item import GrapplerItem
from modtensor.grappler.optimizer import GraphOptimizer, OptimizerContext, copy_graph
from modtensor.grappler.passes.constant_folding import control_dependency

__all__ = ["DependencyOptimizer"]

_FRAME_OPS = frozenset({"Enter", "RefEnter", "Exit", "RefExit", "NextIteration", "RefNextIteration"})
_MERGE_SWITCH = frozenset({"Merge", "RefMerge", "Switch", "RefSwitch", "_SwitchN"})
_PLACEHOLDERS = frozenset({"Placeholder", "PlaceholderV2", "PlaceholderWithDefault"})
_DO_NOT_REWRITE = frozenset({"Assert", "CheckNumerics", "_Retval", "_Arg", "_ParallelConcatUpdate", "TPUExecute",
                             "TPUCompile", "ControlTrigger"})  # fmt: skip
_VARIABLES = frozenset({"Variable", "VariableV2", "AutoReloadVariable", "VarHandleOp", "ReadVariableOp",
                        "_VarHandlesOp", "_ReadVariablesOp"})  # fmt: skip
_RECVS = frozenset({"_Recv", "_HostRecv"})
_SENDS = frozenset({"_Send", "_HostSend"})


class DependencyOptimizer(GraphOptimizer):
    """TensorFlow's ``dependency_optimization``."""

    name = "dependency_optimizer"

    def optimize(self, item: GrapplerItem, context: OptimizerContext) -> graph_pb2.GraphDef:
        graph = copy_graph(item.graph_def)
        for node in graph.node:
            dedupe_controls(node)
        for _ in range(2):
            run = _Run(graph, item)
            graph = run.run()
            if not run.changed:  # a second sweep over an unchanged graph changes nothing either
                break
        return graph


class _Run:
    def __init__(self, graph: graph_pb2.GraphDef, item: GrapplerItem):
        self.view = GraphView(graph)
        self.keep = item.keep_nodes()
        self.fetch_known = bool(item.fetches)
        self.changed = False

    def run(self) -> graph_pb2.GraphDef:
        view = self.view
        order = list(view.graph_def.node)
        stack: list[str] = []
        queued: set[str] = set()

        def push(name: str) -> None:
            if name in view.nodes and name not in queued and name not in view.removed:
                queued.add(name)
                stack.append(name)

        read = {parse(t)[0] for node in order for t in node.input if not t.startswith("^")}  # have data readers
        for node in order:
            if node.op in ("NoOp", "Identity", "IdentityN", "Const") or (
                node.name not in read and self.safe_to_convert_to_noop(node)
            ):
                push(node.name)
        while stack:
            name = stack.pop()
            queued.discard(name)
            if name in view.removed:
                continue
            before = list(view.nodes[name].input), view.nodes[name].op
            touched = self.optimize_node(view.nodes[name])
            if touched or name in view.removed or before != (list(view.nodes[name].input), view.nodes[name].op):
                self.changed = True
            for other in touched:
                push(other)
        for node in view.graph_def.node:
            if node.name not in view.removed:
                dedupe_controls(node)
        return view.compact()

    # ------------------------------------------------------------------ TF's predicates

    def regular_outputs(self, node: node_def_pb2.NodeDef) -> bool:
        for reader in self.view.consumers.get(node.name, ()):
            for text in self.view.nodes[reader].input:
                if not text.startswith("^") and parse(text)[0] == node.name:
                    return True
        return False

    def free_of_side_effect(self, node: node_def_pb2.NodeDef) -> bool:
        if node.op in _PLACEHOLDERS or node.op in _SENDS or "Queue" in node.op or node.op.startswith("Inplace"):
            return False
        op_def = self.view.op_def(node)
        return op_def is not None and not op_def.is_stateful and not any(arg.is_ref for arg in op_def.input_arg)

    def safe_to_remove_identity(self, node: node_def_pb2.NodeDef) -> bool:
        if node.op not in ("Identity", "IdentityN"):
            return True
        if node.name in self.keep or not self.fetch_known or not node.input:
            return False
        source, _ = parse(node.input[0])
        producer = self.view.nodes.get(source)
        if producer is None or producer.op in _VARIABLES or producer.op in _RECVS:
            return False
        for reader_name in self.view.consumers.get(node.name, ()):
            reader = self.view.nodes[reader_name]
            if len(node.input) > 1 and reader.op in ("_Retval", "Merge", "RefMerge"):
                return False
            if producer.op in _MERGE_SWITCH - {"Merge", "RefMerge"} and "^" + node.name in reader.input:
                return False
        return True

    def safe_to_convert_to_noop(self, node: node_def_pb2.NodeDef) -> bool:
        if node.op == "NoOp" or self.regular_outputs(node):
            return False
        if not self.fetch_known or node.name in self.keep:
            return False
        if node.op in _MERGE_SWITCH or node.op in _FRAME_OPS or not self.free_of_side_effect(node):
            return False
        if node.op.startswith("Submodel") or node.op in _DO_NOT_REWRITE:
            return False
        op_def = self.view.op_def(node)
        if op_def is None or not op_def.output_arg:
            return False
        return self.safe_to_remove_identity(node)

    # ------------------------------------------------------------------ OptimizeNode

    def optimize_node(self, node: node_def_pb2.NodeDef) -> list[str]:
        """One step of TF's OptimizeNode; returns the names to look at again."""
        view = self.view
        if node.op == "Const" and not node.input:
            return self.prune_const_controls(node)
        if node.op != "NoOp" and self.safe_to_convert_to_noop(node):
            touched = [parse(t)[0] for t in node.input if not t.startswith("^")]
            inputs = [control_dependency(view, t) for t in node.input]
            view.set_inputs(node, inputs)
            node.op = "NoOp"
            node.attr.clear()
            dedupe_controls(node)
            return [*touched, node.name]
        is_identity = node.op == "Identity" or (node.op == "IdentityN" and len(view.data_inputs(node)) == 1)
        is_multi = node.op == "IdentityN" and not is_identity
        removable = node.op == "NoOp" or ((is_identity or is_multi) and self.safe_to_remove_identity(node))
        if node.name in self.keep or not removable:
            return []
        inputs = list(node.input)
        producers = [view.nodes.get(parse(t)[0]) for t in inputs]
        if any(p is None for p in producers):
            return []
        readers = [view.nodes[r] for r in sorted(view.consumers.get(node.name, ()))]
        if not self.bypass_is_beneficial(node, is_identity, is_multi, producers, readers):
            return []
        touched: list[str] = []
        for reader in readers:
            new_inputs = []
            for text in reader.input:
                source, port = parse(text)
                if source != node.name:
                    new_inputs.append(text)
                elif port < 0:
                    if is_identity or is_multi:  # a control reader depends on the forwarded inputs
                        forwarded = [t for t in inputs if not t.startswith("^")]
                        new_inputs += ["^" + parse(t)[0] for t in (forwarded[:1] if is_identity else forwarded)]
                elif (is_identity and port == 0) or is_multi:
                    new_inputs.append(inputs[port])
            for index, text in enumerate(inputs):
                forwarded = (is_identity and index == 0) or (is_multi and not text.startswith("^"))
                if forwarded:
                    continue
                source = parse(text)[0]
                if not any(parse(t)[0] == source for t in new_inputs):
                    new_inputs.append("^" + source)
                    touched.append(source)
            data = [t for t in new_inputs if not t.startswith("^")]
            view.set_inputs(reader, data + [t for t in new_inputs if t.startswith("^")])
            dedupe_controls(reader)
            touched.append(reader.name)
        view.remove(node.name)
        return touched

    def prune_const_controls(self, node: node_def_pb2.NodeDef) -> list[str]:
        view = self.view
        touched = []
        for reader_name in sorted(view.consumers.get(node.name, ())):
            reader = view.nodes[reader_name]
            control = "^" + node.name
            if control in reader.input:
                view.set_inputs(reader, [t for t in reader.input if t != control])
                touched.append(reader_name)
        if not view.consumers.get(node.name) and self.fetch_known and node.name not in self.keep:
            view.remove(node.name)
        return touched

    def bypass_is_beneficial(self, node, is_identity, is_multi, producers, readers) -> bool:  # noqa: ANN001
        num_inputs, num_outputs = len(node.input), len(readers)
        if is_multi:
            edges = sum(num_outputs if t.startswith("^") else 1 for t in node.input)
            for reader in readers:
                for text in reader.input:
                    if parse(text)[0] == node.name:
                        edges += num_inputs if text.startswith("^") else 1
        else:
            edges = num_inputs * num_outputs
        if edges > num_inputs + num_outputs:
            return False
        device = node.device
        if (num_inputs == 1 and num_outputs > 1 and producers[0].device != device) or (
            num_inputs > 1 and num_outputs == 1 and readers[0].device != device
        ):
            return False
        cross_in = sum(p.device != device for p in producers)
        cross_out = sum(r.device != device for r in readers)
        cross_after = sum(p.device != r.device for p in producers for r in readers)
        if cross_after > cross_in + cross_out:
            return False
        return not ((is_identity or is_multi) and cross_in > 0 and cross_out > 0 and cross_after > 0)
