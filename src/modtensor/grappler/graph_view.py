"""A GraphDef indexed for rewriting: nodes by name, consumers per node, topological order.

Passes edit the NodeDefs of a copy in place and use this index to find who reads a
node and to redirect those readers; ``compact`` then drops removed nodes. Every helper
here is linear in the graph (input strings are parsed once and memoized, node dtypes
are cached per op and type attrs), so passes scale to graphs of 100k nodes.
"""

from __future__ import annotations

from modtensor.framework import graph_walk
from modtensor.framework import node_def as node_def_lib
from modtensor.framework.op_registry import global_registry
from modtensor.framework.protos import graph_pb2, node_def_pb2, op_def_pb2

__all__ = [
    "GraphIndex",
    "GraphView",
    "edge_count",
    "kahn_order",
    "node_types",
    "parse",
    "source_name",
    "tensor_ref",
    "topological_order",
]

CONTROL = node_def_lib.CONTROL_SLOT

# Input strings repeat across passes (each pass works on a copy of the same names), so
# parsing them once pays; the memo is dropped when it grows past a few graphs' worth.
_PARSED: dict[str, tuple[str, int]] = {}
_PARSED_LIMIT = 1 << 18


def parse(text: str) -> tuple[str, int]:
    """``(node, index)`` of an input string (``CONTROL`` for ``^node``), memoized."""
    found = _PARSED.get(text)
    if found is None:
        if len(_PARSED) >= _PARSED_LIMIT:
            _PARSED.clear()
        found = _PARSED[text] = node_def_lib.parse_tensor_name(text)
    return found


def source_name(text: str) -> str:
    """The node an input string reads from (``"n:1"``, ``"^n"`` -> ``"n"``)."""
    found = _PARSED.get(text)
    return found[0] if found is not None else parse(text)[0]


# (op name, serialized type-determining attrs) -> (OpDef, input dtypes, output dtypes).
_TYPES: dict[tuple, tuple[op_def_pb2.OpDef, list[int], list[int]]] = {}
_TYPE_ATTRS: dict[int, tuple[op_def_pb2.OpDef, tuple[str, ...]]] = {}


def _type_attrs(op_def: op_def_pb2.OpDef) -> tuple[str, ...]:
    """Names of the attrs that decide an op's input and output dtypes (type, number and type-list attrs)."""
    found = _TYPE_ATTRS.get(id(op_def))
    if found is None or found[0] is not op_def:
        names = []
        for arg in (*op_def.input_arg, *op_def.output_arg):
            names += [a for a in (arg.type_attr, arg.number_attr, arg.type_list_attr) if a and a not in names]
        found = _TYPE_ATTRS[id(op_def)] = (op_def, tuple(names))
    return found[1]


def node_types(node: node_def_pb2.NodeDef, op_def: op_def_pb2.OpDef) -> tuple[list[int], list[int]]:
    """``(input dtypes, output dtypes)`` of ``node``; raises as ``node_def.input_types`` does for a bad node.

    The answer depends only on the op and its type attrs, so it is cached by those: a
    graph of 100k nodes has a few dozen distinct keys. Callers must not mutate the lists.
    """
    attrs = node.attr
    key = (node.op, *(attrs[a].SerializeToString() if a in attrs else None for a in _type_attrs(op_def)))
    found = _TYPES.get(key)
    if found is None or found[0] is not op_def:
        found = (op_def, node_def_lib.input_types(node, op_def), node_def_lib.output_types(node, op_def))
        if len(_TYPES) > 4096:
            _TYPES.clear()
        _TYPES[key] = found
    return found[1], found[2]


def tensor_ref(node: str, index: int) -> str:
    """The input string for output ``index`` of ``node`` (``"n"``, ``"n:1"``, ``"^n"`` for a control edge)."""
    if index == CONTROL:
        return "^" + node
    return node if index == 0 else f"{node}:{index}"


def edge_count(graph_def: graph_pb2.GraphDef, index: GraphIndex | None = None) -> int:
    """Number of edges (data and control) of the graph (from ``index``, its structure, when given)."""
    if index is not None:
        return sum(map(len, index.inputs))
    return sum(len(node.input) for node in graph_def.node)


class GraphIndex:
    """The structure of a GraphDef read out once: node names and input strings in graph order.

    Reading fields of protobuf messages from Python costs microseconds each, so the
    meta-optimizer reads every graph once (when validating it) and hands this index
    to the next pass, whose ``GraphView`` and topological order then need no field
    reads beyond the node objects themselves. Valid only while the graph is not
    edited (the meta-optimizer's graphs are not: passes edit copies).
    """

    __slots__ = ("graph_def", "inputs", "names", "ops", "positions")

    def __init__(self, graph_def: graph_pb2.GraphDef, names: list[str], inputs: list[list[str]], ops: list[str]):
        self.graph_def = graph_def
        self.names = names
        self.inputs = inputs
        self.ops = ops
        # A topological numbering (node -> number, every edge going up), once validation has one;
        # it may hold names of nodes no longer in the graph.
        self.positions: dict[str, int] | None = None

    @classmethod
    def of(cls, graph_def: graph_pb2.GraphDef) -> GraphIndex:
        """Read the names and inputs of every node of ``graph_def``."""
        names, inputs, ops = [], [], []
        for node in graph_def.node:
            names.append(node.name)
            inputs.append(list(node.input))
            ops.append(node.op)
        return cls(graph_def, names, inputs, ops)


def topological_order(
    graph_def: graph_pb2.GraphDef, index: GraphIndex | None = None
) -> list[node_def_pb2.NodeDef] | None:
    """Nodes so that every input comes first (data and control edges); None if there is a cycle.

    Inputs naming nodes not in the graph are ignored here (validation reports them).
    ``index``, when given, is the structure of ``graph_def`` (or of the graph it copies).
    """
    all_nodes = list(graph_def.node)
    if index is None or len(index.names) != len(all_nodes):
        index = GraphIndex.of(graph_def)
    order = kahn_order(index.names, index.inputs, index.ops)
    return [all_nodes[i] for i in order] if order is not None else None


def kahn_order(names: list[str], inputs: list[list[str]], ops: list[str] | None = None) -> list[int] | None:
    """Positions of a topological order of nodes ``names[i]`` (op ``ops[i]``) reading ``inputs[i]``; None on a cycle.

    The shared walk (``framework.graph_walk``) in its fast, queue-based form; with ``ops``,
    while loops' ``NextIteration -> Merge`` back edges are not cycles.
    """
    result = graph_walk.walk(names, inputs, ops, stable=False, source=source_name)
    return None if result.has_cycle else result.order


class GraphView:
    """Index of a (mutable) GraphDef: ``nodes`` by name and ``consumers`` (reader node names) per node."""

    def __init__(self, graph_def: graph_pb2.GraphDef, index: GraphIndex | None = None):
        """Index ``graph_def``; ``index``, when given, is its structure (or that of the graph it is a fresh copy of)."""
        self.graph_def = graph_def
        self.registry = global_registry()
        self.nodes: dict[str, node_def_pb2.NodeDef] = {}
        self.consumers: dict[str, set[str]] = {}
        self.removed: set[str] = set()
        self._op_defs: dict[str, op_def_pb2.OpDef | None] = {}
        self._unique: dict[str, int] = {}
        nodes = self.nodes
        consumers = self.consumers
        all_nodes = list(graph_def.node)
        if index is None or len(index.names) != len(all_nodes):
            names = [node.name for node in all_nodes]
            index = GraphIndex(graph_def, names, [node.input for node in all_nodes], [node.op for node in all_nodes])
        nodes.update(zip(index.names, all_nodes, strict=True))
        for name, inputs in zip(index.names, index.inputs, strict=True):
            if not inputs:
                continue
            for text in inputs:
                source = source_name(text)
                found = consumers.get(source)
                if found is None:
                    consumers[source] = {name}
                else:
                    found.add(name)

    def op_def(self, node: node_def_pb2.NodeDef) -> op_def_pb2.OpDef | None:
        """The node's OpDef, or None for an op not registered (looked up once per op type and view)."""
        op = node.op
        try:
            return self._op_defs[op]
        except KeyError:
            found = self.registry.lookup(op)
            op_def = self._op_defs[op] = found.op_def if found is not None else None
            return op_def

    def output_types(self, node: node_def_pb2.NodeDef) -> list[int] | None:
        """The node's output dtypes (DataType enums), or None when they cannot be worked out."""
        op_def = self.op_def(node)
        if op_def is None:
            return None
        try:
            return list(node_types(node, op_def)[1])
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

        Control readers of ``old`` get a control edge from ``new_node``; the readers that
        changed lose duplicate control inputs.
        """
        changed_readers = []
        for reader_name in list(self.consumers.get(old, ())):
            reader = self.nodes[reader_name]
            inputs = list(reader.input)
            changed = False
            for i, text in enumerate(inputs):
                src, slot = parse(text)
                if src != old:
                    continue
                if slot == CONTROL:
                    inputs[i] = "^" + new_node
                    changed = True
                elif slot == index:
                    inputs[i] = tensor_ref(new_node, new_index)
                    changed = True
            if changed:
                del reader.input[:]
                reader.input.extend(inputs)
                self.consumers.setdefault(new_node, set()).add(reader_name)
                if not any(source_name(t) == old for t in inputs):
                    self.consumers[old].discard(reader_name)
                changed_readers.append(reader)
        for reader in changed_readers:
            dedupe_controls(reader)

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
        """``base``, or ``base_N`` when taken (the next N to try is remembered per base, so this stays O(1))."""
        n = self._unique.get(base, 0)
        name = base if n == 0 else f"{base}_{n}"
        while name in self.nodes:
            n += 1
            name = f"{base}_{n}"
        self._unique[base] = n
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
    inputs = list(node.input)
    if not any(t.startswith("^") for t in inputs):
        return
    data_sources = {source_name(t) for t in inputs if not t.startswith("^")}
    seen: set[str] = set()
    kept = []
    for text in inputs:
        if text.startswith("^"):
            if text[1:] in data_sources or text in seen:
                continue
            seen.add(text)
        kept.append(text)
    if len(kept) != len(inputs):
        del node.input[:]
        node.input.extend(kept)
