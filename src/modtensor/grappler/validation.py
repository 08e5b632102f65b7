"""Checks a pass's output graph before the meta-optimizer accepts it.

A graph is valid when every input names an existing node and output, the graph has no
cycle, every fetched and preserved node is still there, every op is registered, and
the dtype each node reads equals the dtype its producer writes. Problems come back as
text, one line each, so a warning can name them.
"""

from __future__ import annotations

from modtensor.framework import graph_walk
from modtensor.framework import node_def as node_def_lib
from modtensor.framework.dtypes import as_dtype
from modtensor.framework.op_registry import global_registry
from modtensor.framework.protos import graph_pb2, node_def_pb2, op_def_pb2
from modtensor.grappler.graph_view import GraphIndex, kahn_order, node_types, parse, source_name
from modtensor.grappler.item import GrapplerItem
from modtensor.grappler.optimizer import OptimizerContext

__all__ = ["validate"]

_MAX_PROBLEMS = 5


def validate(
    graph_def: graph_pb2.GraphDef,
    item: GrapplerItem,
    previous: graph_pb2.GraphDef | None = None,
    *,
    context: OptimizerContext | None = None,
) -> list[str]:
    """The problems of ``graph_def`` as the output of an optimizer run on ``item`` (empty list: valid).

    ``previous``, when given, is a graph known to be valid that ``graph_def`` was derived
    from (the pass's input): then only the nodes that differ from it, and the nodes that
    read a changed or removed node, get their op and dtype checks, so validating after
    every pass costs little more than comparing the two graphs. Input existence, kept
    nodes and cycles are always checked over the whole graph. ``context``, when given,
    supplies and keeps the graphs' structure (``GraphIndex``) so the next pass need not read it again.
    """
    problems: list[str] = []
    all_nodes = list(graph_def.node)
    index = context.index(graph_def) if context is not None else None
    names = index.names if index is not None else [node.name for node in all_nodes]
    nodes = dict(zip(names, all_nodes, strict=True))
    if len(nodes) != len(all_nodes):
        problems.append("Two nodes have the same name")
    for name in sorted(item.keep_nodes() - nodes.keys()):
        problems.append(f"Fetched or preserved node '{name}' was removed")
    inputs = index.inputs if index is not None else [list(node.input) for node in all_nodes]
    inputs_of = dict(zip(names, inputs, strict=True))
    before = None
    if previous is not None:
        previous_names = context.index(previous).names if context is not None else [n.name for n in previous.node]
        before = dict(zip(previous_names, previous.node, strict=True))
    gone = before.keys() - nodes.keys() if before is not None else set()
    readers_of_gone: set[str] = set()
    for name, inputs in inputs_of.items():
        for text in inputs:
            source = source_name(text)
            if source not in nodes:
                problems.append(f"Node '{name}' reads '{text}', which is not in the graph")
                if len(problems) >= _MAX_PROBLEMS:
                    return problems
            if source in gone:
                readers_of_gone.add(name)
    dirty = {name for name, node in nodes.items() if before.get(name) != node} if before is not None else None
    check = _to_check(inputs_of, dirty, readers_of_gone)
    if check is not None and not check:
        return problems
    problems += _type_problems(nodes, inputs_of, check, _MAX_PROBLEMS - len(problems))
    previous_index = context.index(previous) if context is not None and previous is not None else None
    ops_of = dict(zip(names, index.ops, strict=True)) if index is not None else {n.name: n.op for n in all_nodes}
    if not problems and not _acyclic(inputs_of, ops_of, dirty, index, previous_index):
        problems.append("The graph has a cycle")
    return problems


def _acyclic(
    inputs_of: dict[str, list[str]],
    ops_of: dict[str, str],
    dirty: set[str] | None,
    index: GraphIndex | None,
    previous: GraphIndex | None,
) -> bool:
    """True when the graph has no cycle but while loops' back edges; records a topological numbering on ``index``.

    With the previous graph's numbering (every edge goes from a lower to a higher number),
    only the edges of changed nodes need checking: if they follow the numbering too, it
    is a topological numbering of the new graph, which therefore has no cycle. Otherwise
    (or without one) Kahn's algorithm runs over the whole graph.
    """
    if dirty is not None and previous is not None and index is not None:
        if previous.positions is None:
            order = kahn_order(previous.names, previous.inputs, previous.ops)
            previous.positions = {previous.names[i]: rank for rank, i in enumerate(order)} if order else {}
        positions = previous.positions
        if _follows(positions, inputs_of, ops_of, dirty):
            index.positions = positions  # shared: entries of absent nodes never matter
            return True
    names = list(inputs_of)
    order = kahn_order(names, list(inputs_of.values()), [ops_of[name] for name in names])
    if order is None:
        return False
    if index is not None:
        index.positions = {names[i]: rank for rank, i in enumerate(order)}
    return True


def _follows(
    positions: dict[str, int], inputs_of: dict[str, list[str]], ops_of: dict[str, str], dirty: set[str]
) -> bool:
    """True when every input edge of the ``dirty`` nodes (but loops' back edges) goes from a lower to a higher position.

    A new node without inputs gets position -1 (before everything); a new node with
    inputs has no position, and the answer is False (the caller then sorts the whole graph).
    """
    for name in dirty:
        if name not in positions and not inputs_of[name]:
            positions[name] = -1
    for name in dirty:
        mine = positions.get(name)
        if mine is None:
            return False
        merge = ops_of[name] in graph_walk.MERGE_OPS
        for text in inputs_of[name]:
            source = source_name(text)
            if merge and ops_of.get(source) in graph_walk.NEXT_ITERATION_OPS:
                continue
            theirs = positions.get(source)
            if theirs is None or theirs >= mine:
                return False
    return True


def _to_check(inputs_of: dict[str, list[str]], dirty: set[str] | None, readers_of_gone: set[str]) -> set[str] | None:
    """Nodes to type-check: None for all; else the changed (``dirty``) ones and readers of changed or gone ones."""
    if dirty is None:
        return None
    check = dirty | readers_of_gone
    if not dirty:
        return check
    for name, inputs in inputs_of.items():
        if name not in check:
            for text in inputs:
                if source_name(text) in dirty:
                    check.add(name)
                    break
    return check


def _type_problems(
    nodes: dict[str, node_def_pb2.NodeDef], inputs_of: dict[str, list[str]], check: set[str] | None, budget: int
) -> list[str]:
    """Ops registered, input counts and the dtype of every data edge into the nodes of ``check`` (None: all)."""
    problems: list[str] = []
    registry = global_registry()
    op_defs: dict[str, op_def_pb2.OpDef | None] = {}
    types: dict[str, tuple[list[int], list[int]] | None] = {}

    def types_of(name: str) -> tuple[list[int], list[int]] | None:
        """(input dtypes, output dtypes) of a node, None when unregistered or malformed (reported when checked)."""
        if name in types:
            return types[name]
        node = nodes[name]
        op = node.op
        if op not in op_defs:
            found = registry.lookup(op)
            op_defs[op] = found.op_def if found is not None else None
        op_def = op_defs[op]
        if op_def is None:
            types[name] = None
            if name in checked:
                problems.append(f"Node '{name}' has op '{op}', which is not registered")
            return None
        try:
            types[name] = node_types(node, op_def)
        except Exception as exc:  # noqa: BLE001 - reported, not raised
            types[name] = None
            if name in checked:
                problems.append(f"Node '{name}' ({op}) does not match its OpDef: {exc}")
        return types[name]

    names = [name for name in nodes if check is None or name in check]
    checked = set(names)
    for name in names:
        found = types_of(name)
        if found is not None:
            wanted = found[0]
            data = sum(1 for t in inputs_of[name] if not t.startswith("^"))
            if data != len(wanted):
                op = nodes[name].op
                problems.append(f"Node '{name}' ({op}) has {data} data inputs, its OpDef wants {len(wanted)}")
        if len(problems) >= budget:
            return problems
    control = node_def_lib.CONTROL_SLOT
    for name in names:
        found = types.get(name)
        if found is None:
            continue
        wanted = found[0]
        position = 0
        for text in inputs_of[name]:
            source, index = parse(text)
            if index == control:
                continue
            produced_types = types_of(source) if source in nodes else None
            produced = produced_types[1] if produced_types is not None else None
            if produced is not None:
                if index >= len(produced):
                    problems.append(f"Node '{name}' reads '{text}', but '{source}' has {len(produced)} outputs")
                elif position < len(wanted) and produced[index] != wanted[position]:
                    problems.append(
                        f"Node '{name}' input {position} expects {as_dtype(wanted[position]).name}, "
                        f"'{text}' is {as_dtype(produced[index]).name}"
                    )
            position += 1
            if len(problems) >= budget:
                return problems
    return problems
