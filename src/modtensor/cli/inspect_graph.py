"""``modtensor inspect MODEL``: what a GraphDef holds, with TensorFlow-equal static shapes.

Reads a binary or text GraphDef, imports it into a modtensor Graph (which
validates every node against its OpDef and runs shape inference), and prints
the op histogram, the inputs (placeholders), the outputs (nodes nothing
consumes) and, with ``--nodes``, every node with its output shapes.
"""

from __future__ import annotations

import argparse
import collections
import sys
from typing import Any

from modtensor.framework import errors


def add_parser(sub: Any) -> None:
    """Register the ``inspect`` subcommand."""
    p = sub.add_parser(
        "inspect", help="summarize a GraphDef (.pb or .pbtxt) with its static shapes, or a SavedModel's signatures"
    )
    p.add_argument(
        "model",
        help="path of a GraphDef file, binary (.pb) or text (.pbtxt), or a SavedModel directory (printed like "
        "`saved_model_cli show --all`)",
    )
    p.add_argument("--nodes", action="store_true", help="list every node with its output shapes")
    p.set_defaults(func=run)


def load(path: str) -> Any:
    """Read and import the GraphDef at ``path`` into a new Graph; return the Graph (progress on a terminal
    for graphs over 10k nodes)."""
    import modtensor.ops  # noqa: F401  (registers the standard ops)
    from modtensor.cli import progress
    from modtensor.framework.graph import Graph
    from modtensor.framework.graph_io import read_graph_def
    from modtensor.framework.importer import import_graph_def

    graph_def = read_graph_def(path)
    graph = Graph()
    with progress.step(f"importing {path} ({len(graph_def.node):,} nodes)", len(graph_def.node)), graph.as_default():
        import_graph_def(graph_def, name="")
    return graph


def describe_outputs(op: Any) -> str:
    """``float32[?,10]`` style description of an operation's outputs."""
    parts = []
    for t in op.outputs:
        shape = t.shape
        dims = "<unknown>" if shape.rank is None else "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"
        parts.append(f"{t.dtype.name}{dims}")
    return ", ".join(parts) if parts else "-"


def summarize(graph: Any) -> dict[str, Any]:
    """Return the op histogram, input ops and output ops of ``graph``."""
    ops = graph.get_operations()
    consumed = {t.op.name for op in ops for t in op.inputs} | {c.name for op in ops for c in op.control_inputs}
    return {
        "ops": ops,
        "histogram": collections.Counter(op.type for op in ops),
        "inputs": [op for op in ops if op.type in ("Placeholder", "PlaceholderWithDefault")],
        "outputs": [op for op in ops if op.name not in consumed and op.outputs],
    }


def run(args: argparse.Namespace) -> int:
    """Print the summary of one model; return the exit status."""
    from modtensor.cli import saved_model_cli

    if saved_model_cli.is_saved_model(args.model):
        try:
            print(saved_model_cli.show_all(args.model), end="")
        except OSError as e:
            print(f"modtensor inspect: error: {e}", file=sys.stderr)
            return 1
        return 0
    try:
        graph = load(args.model)
    except errors.OpError as e:
        print(f"modtensor inspect: error: {args.model}: {e.message}", file=sys.stderr)
        return 1
    info = summarize(graph)
    print(f"{args.model}: {len(info['ops'])} nodes")
    print("ops: " + ", ".join(f"{k} x{v}" for k, v in sorted(info["histogram"].items())))
    for op in info["inputs"]:
        print(f"  input  {op.name}: {describe_outputs(op)}")
    for op in info["outputs"]:
        print(f"  output {op.name} ({op.type}): {describe_outputs(op)}")
    if args.nodes:
        for op in info["ops"]:
            print(f"  {op.name} ({op.type}): {describe_outputs(op)}")
    return 0
