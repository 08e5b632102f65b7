"""Checks a pass's output graph before the meta-optimizer accepts it.

A graph is valid when every input names an existing node and output, the graph has no
cycle, every fetched and preserved node is still there, every op is registered, and
the dtype each node reads equals the dtype its producer writes. Problems come back as
text, one line each, so a warning can name them.
"""

from __future__ import annotations

from modtensor.framework import node_def as node_def_lib
from modtensor.framework.dtypes import as_dtype
from modtensor.framework.protos import graph_pb2
from modtensor.grappler.graph_view import GraphView, topological_order
from modtensor.grappler.item import GrapplerItem

__all__ = ["validate"]

_MAX_PROBLEMS = 5


def validate(graph_def: graph_pb2.GraphDef, item: GrapplerItem) -> list[str]:
    """The problems of ``graph_def`` as the output of an optimizer run on ``item`` (empty list: valid)."""
    problems: list[str] = []
    view = GraphView(graph_def)
    if len(view.nodes) != len(graph_def.node):
        problems.append("Two nodes have the same name")
    for name in sorted(item.keep_nodes() - set(view.nodes)):
        problems.append(f"Fetched or preserved node '{name}' was removed")
    types: dict[str, list[int] | None] = {}
    wanted_types: dict[str, list[int]] = {}
    for node in graph_def.node:
        op_def = view.op_def(node)
        if op_def is None:
            problems.append(f"Node '{node.name}' has op '{node.op}', which is not registered")
            continue
        try:
            types[node.name] = node_def_lib.output_types(node, op_def)
            wanted = wanted_types[node.name] = node_def_lib.input_types(node, op_def)
        except Exception as exc:  # noqa: BLE001 - reported, not raised
            problems.append(f"Node '{node.name}' ({node.op}) does not match its OpDef: {exc}")
            continue
        data = [t for t in node.input if not t.startswith("^")]
        if len(data) != len(wanted):
            problems.append(
                f"Node '{node.name}' ({node.op}) has {len(data)} data inputs, its OpDef wants {len(wanted)}"
            )
        if len(problems) >= _MAX_PROBLEMS:
            return problems
    for node in graph_def.node:
        wanted = wanted_types.get(node.name)
        if wanted is None:
            continue
        position = 0
        for text in node.input:
            source, index = node_def_lib.parse_tensor_name(text)
            if source not in view.nodes:
                problems.append(f"Node '{node.name}' reads '{text}', which is not in the graph")
                continue
            if index == node_def_lib.CONTROL_SLOT:
                continue
            produced = types.get(source)
            if produced is not None and index >= len(produced):
                problems.append(f"Node '{node.name}' reads '{text}', but '{source}' has {len(produced)} outputs")
            elif produced is not None and position < len(wanted) and produced[index] != wanted[position]:
                problems.append(
                    f"Node '{node.name}' input {position} expects {as_dtype(wanted[position]).name}, "
                    f"'{text}' is {as_dtype(produced[index]).name}"
                )
            position += 1
            if len(problems) >= _MAX_PROBLEMS:
                return problems
    if not problems and topological_order(graph_def) is None:
        problems.append("The graph has a cycle")
    return problems
