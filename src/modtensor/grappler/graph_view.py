"""A GraphDef indexed for rewriting: nodes by name, consumers per node, topological order.

Passes edit the NodeDefs of a copy in place and use this index to find who reads a
node and to redirect those readers; ``compact`` then drops removed nodes.
"""

from __future__ import annotations

from collections import deque

from modtensor.framework import node_def as node_def_lib
from modtensor.framework.op_registry import global_registry
from modtensor.framework.protos import graph_pb2, node_def_pb2, op_def_pb2

__all__ = ["GraphView", "edge_count", "tensor_ref", "topological_order"]

CONTROL = node_def_lib.CONTROL_SLOT
parse = node_def_lib.parse_tensor_name


def tensor_ref(node: str, index: int) -> str:
    """The input string for output ``index`` of ``node`` (``"n"``, ``"n:1"``, ``"^n"`` for a control edge)."""
    if index == CONTROL:
        return "^" + node
    return node if index == 0 else f"{node}:{index}"


def edge_count(graph_def: graph_pb2.GraphDef) -> int:
    """Number of edges (data and control) of the graph."""
    return sum(len(node.input) for node in graph_def.node)


def topological_order(graph_def: graph_pb2.GraphDef) -> list[node_def_pb2.NodeDef] | None:
    """Nodes so that every input comes first (data and control edges); None if there is a cycle.

    Inputs naming nodes not in the graph are ignored here (validation reports them).
    """
    nodes = {node.name: node for node in graph_def.node}
    pending = {}
    readers: dict[str, list[str]] = {}
    for node in graph_def.node:
        sources = {parse(text)[0] for text in node.input}
        sources = {s for s in sources if s in nodes}
        pending[node.name] = len(sources)
        for source in sources:
            readers.setdefault(source, []).append(node.name)
    ready = deque(node.name for node in graph_def.node if pending[node.name] == 0)
    order = []
    while ready:
        name = ready.popleft()
        order.append(nodes[name])
        for reader in readers.get(name, ()):
            pending[reader] -= 1
            if pending[reader] == 0:
                ready.append(reader)
    return order if len(order) == len(nodes) else None


class GraphView:
    """Index of a (mutable) GraphDef: ``nodes`` by name and ``consumers`` (reader node names) per node."""

    def __init__(self, graph_def: graph_pb2.GraphDef):
        self.graph_def = graph_def
        self.registry = global_registry()
        self.nodes: dict[str, node_def_pb2.NodeDef] = {}
        self.consumers: dict[str, set[str]] = {}
        self.removed: set[str] = set()
        for node in graph_def.node:
            self.nodes[node.name] = node
        for node in graph_def.node:
            for text in node.input:
                self.consumers.setdefault(parse(text)[0], set()).add(node.name)

    def op_def(self, node: node_def_pb2.NodeDef) -> op_def_pb2.OpDef | None:
        """The node's OpDef, or None for an op not registered."""
        found = self.registry.lookup(node.op)
        return found.op_def if found is not None else None

    def output_types(self, node: node_def_pb2.NodeDef) -> list[int] | None:
        """The node's output dtypes (DataType enums), or None when they cannot be worked out."""
        op_def = self.op_def(node)
        if op_def is None:
            return None
        try:
            return node_def_lib.output_types(node, op_def)
        except Exception:  # noqa: BLE001 - a malformed node simply has no known types
            return None

    def is_stateful(self, node: node_def_pb2.NodeDef) -> bool:
        """True for ops with state or side effects (never folded, merged or removed as duplicates)."""
        op_def = self.op_def(node)
        return op_def is None or op_def.is_stateful or node.op in ("_Recv", "_Send", "_HostRecv", "_HostSend")

    def data_inputs(self, node: node_def_pb2.NodeDef) -> list[str]:
        """The node's data input strings (control inputs dropped)."""
        return [text for text in node.input if not text.startswith("^")]

    def control_inputs(self, node: node_def_pb2.NodeDef) -> list[str]:
        """The node names of the node's control inputs."""
        return [text[1:] for text in node.input if text.startswith("^")]

    def redirect(self, old: str, new_node: str, new_index: int = 0, *, index: int = 0) -> None:
        """Make every reader of output ``index`` of ``old`` read output ``new_index`` of ``new_node`` instead.

        Control readers of ``old`` get a control edge from ``new_node``.
        """
        for reader_name in list(self.consumers.get(old, ())):
            reader = self.nodes[reader_name]
            changed = False
            for i, text in enumerate(reader.input):
                src, slot = parse(text)
                if src != old:
                    continue
                if slot == CONTROL:
                    reader.input[i] = "^" + new_node
                    changed = True
                elif slot == index:
                    reader.input[i] = tensor_ref(new_node, new_index)
                    changed = True
            if changed:
                self.consumers.setdefault(new_node, set()).add(reader_name)
                if not any(parse(t)[0] == old for t in reader.input):
                    self.consumers[old].discard(reader_name)
        dedupe = {r for r in self.consumers.get(new_node, ())}
        for reader_name in dedupe:
            dedupe_controls(self.nodes[reader_name])

    def remove(self, name: str) -> None:
        """Mark ``name`` removed (dropped by ``compact``); its inputs lose it as a reader."""
        node = self.nodes.get(name)
        if node is None or name in self.removed:
            return
        self.removed.add(name)
        for text in node.input:
            readers = self.consumers.get(parse(text)[0])
            if readers is not None:
                readers.discard(name)

    def set_inputs(self, node: node_def_pb2.NodeDef, inputs: list[str]) -> None:
        """Replace the node's inputs, keeping the consumer index right."""
        for text in node.input:
            readers = self.consumers.get(parse(text)[0])
            if readers is not None:
                readers.discard(node.name)
        del node.input[:]
        node.input.extend(inputs)
        for text in inputs:
            self.consumers.setdefault(parse(text)[0], set()).add(node.name)

    def add(self, node: node_def_pb2.NodeDef) -> node_def_pb2.NodeDef:
        """Append a new node to the graph and index it; returns the stored node."""
        stored = self.graph_def.node.add()
        stored.CopyFrom(node)
        self.nodes[stored.name] = stored
        for text in stored.input:
            self.consumers.setdefault(parse(text)[0], set()).add(stored.name)
        return stored

    def unique_name(self, base: str) -> str:
        """``base``, or ``base_N`` when taken."""
        name, n = base, 0
        while name in self.nodes:
            n += 1
            name = f"{base}_{n}"
        return name

    def compact(self) -> graph_pb2.GraphDef:
        """The graph without the removed nodes (a new GraphDef, versions and library kept)."""
        out = graph_pb2.GraphDef()
        out.versions.CopyFrom(self.graph_def.versions)
        if self.graph_def.HasField("library"):
            out.library.CopyFrom(self.graph_def.library)
        out.node.extend(node for node in self.graph_def.node if node.name not in self.removed)
        return out


def dedupe_controls(node: node_def_pb2.NodeDef) -> None:
    """Drop duplicate control inputs and control inputs on a node that is also a data input."""
    data_sources = {parse(t)[0] for t in node.input if not t.startswith("^")}
    seen: set[str] = set()
    kept = []
    for text in node.input:
        if text.startswith("^"):
            if text[1:] in data_sources or text in seen:
                continue
            seen.add(text)
        kept.append(text)
    if len(kept) != len(node.input):
        del node.input[:]
        node.input.extend(kept)
