"""``modtensor optimize IN.pb -o OUT.pb``: run the graph optimizer on a GraphDef and print per-pass statistics.

``--config key=on|off`` sets RewriterConfig fields (``constant_folding=off``,
``debug_stripper=on``, ``disable_model_pruning=on``, ``min_graph_nodes=N``,
``meta_optimizer_iterations=1``); ``--device TYPE`` names a device type the graph is
optimized for (repeatable; default CPU; a plugin's type once ``--plugin PATH`` loaded it or
discovery found it); ``--fetch NAME`` the tensors that must survive (default: every tensor
nothing consumes). A ``--fetch`` naming no node of the graph, or a ``--device`` naming no
device type of this process, is an error (not a silently unoptimized graph). The output file is
written before anything is printed.
"""

from __future__ import annotations

import argparse
from typing import Any

from modtensor.framework import graph_io
from modtensor.framework.protos import rewriter_config_pb2

__all__ = ["add_parser", "parse_config", "optimize"]

_RC = rewriter_config_pb2.RewriterConfig
_WORDS = {"on": True, "off": False, "true": True, "false": False, "1": True, "0": False}


def add_parser(sub: Any) -> None:
    """Register the ``optimize`` subcommand."""
    p = sub.add_parser("optimize", help="optimize a GraphDef with the built-in graph optimizer passes")
    p.add_argument("model", help="path of a GraphDef file, binary (.pb) or text (.pbtxt)")
    p.add_argument("-o", "--output", help="where to write the optimized GraphDef (.pbtxt: text; else binary)")
    p.add_argument("--device", action="append", default=[], metavar="TYPE", help="device type present (default CPU)")
    p.add_argument("--fetch", action="append", default=[], metavar="NAME", help="tensor or node that must survive")
    p.add_argument("--config", action="append", default=[], metavar="KEY=on|off", help="a RewriterConfig field")
    p.add_argument("--plugin", action="append", default=[], metavar="PATH", help="load this plugin library first")
    p.set_defaults(func=optimize)


def parse_config(items: list[str]) -> rewriter_config_pb2.RewriterConfig:
    """A RewriterConfig from ``key=value`` texts; ValueError naming a bad key or value."""
    config = _RC()
    for text in items:
        key, sep, value = text.partition("=")
        key, value = key.strip(), value.strip().lower()
        field = _RC.DESCRIPTOR.fields_by_name.get(key)
        if not sep or field is None:
            raise ValueError(f"--config {text!r}: expected KEY=on|off with KEY a RewriterConfig field")
        if field.enum_type is not None and field.enum_type.name == "Toggle":
            if value not in _WORDS:
                raise ValueError(f"--config {text!r}: the value must be on or off")
            setattr(config, key, _RC.ON if _WORDS[value] else _RC.OFF)
        elif field.type == field.TYPE_BOOL:
            if value not in _WORDS:
                raise ValueError(f"--config {text!r}: the value must be on or off")
            setattr(config, key, _WORDS[value])
        elif key == "meta_optimizer_iterations" and value in ("1", "2"):
            config.meta_optimizer_iterations = _RC.ONE if value == "1" else _RC.TWO
        elif field.type == field.TYPE_INT32:
            try:
                setattr(config, key, int(value))
            except ValueError:
                raise ValueError(f"--config {text!r}: the value must be an integer") from None
        else:
            raise ValueError(f"--config {text!r}: '{key}' cannot be set from the command line")
    return config


def check_fetches(graph_def: Any, fetches: list[str], model: str) -> None:
    """ValueError when a ``--fetch`` names no node of the graph (or an output index it does not have)."""
    from modtensor.framework import node_def as node_def_lib
    from modtensor.framework.op_registry import global_registry

    nodes = {node.name: node for node in graph_def.node}
    for name in fetches:
        node_name, index = node_def_lib.parse_tensor_name(name)
        node = nodes.get(node_name)
        if node is None:
            consumed = {text.lstrip("^").split(":")[0] for n in graph_def.node for text in n.input}
            outputs = [n.name for n in graph_def.node if n.name not in consumed][:10]
            raise ValueError(
                f"--fetch '{name}': no node '{node_name}' in {model} (nodes nothing consumes: "
                f"{', '.join(outputs) or 'none'})"
            )
        registration = global_registry().lookup(node.op)
        if registration is not None and ":" in name:
            try:
                count = len(node_def_lib.output_types(node, registration.op_def))
            except Exception:  # noqa: BLE001 - a node the optimizer reports on itself
                continue
            if index >= count:
                raise ValueError(f"--fetch '{name}': node '{node_name}' ({node.op}) has {count} output(s)")


def check_device_types(device_types: list[str]) -> None:
    """ValueError when a ``--device`` names a device type this process does not have."""
    from modtensor.grappler.plugin_optimizers import plugin_optimizers
    from modtensor.plugin import discover_plugins
    from modtensor.runtime import device_factory

    discover_plugins()
    known = set(device_factory.device_types()) | {"CPU"}
    for device_type in device_types:
        if device_type not in known and not plugin_optimizers([device_type]):
            raise ValueError(
                f"--device '{device_type}': no such device type in this process (known: {', '.join(sorted(known))}); "
                "load its plugin with --plugin PATH"
            )


def optimize(args: argparse.Namespace) -> int:
    """Optimize the model, write the result when ``-o`` is given, then print the statistics."""
    from modtensor.cli import progress
    from modtensor.grappler import meta_optimizer
    from modtensor.plugin import load_library
    from modtensor.runtime import graph_execution

    for path in args.plugin:
        load_library(path)
    graph_def = graph_io.read_graph_def(args.model)
    config = parse_config(args.config)
    fetches = [name.lstrip("^") for name in args.fetch]
    check_fetches(graph_def, fetches, args.model)
    device_types = args.device or ["CPU"]
    check_device_types(device_types)
    nodes = len(graph_def.node)
    with progress.step(f"optimizing {args.model} ({nodes:,} nodes)", nodes):
        result = meta_optimizer.optimize_graph_def(
            graph_def,
            fetches=fetches,
            config=config,
            device_types=device_types,
            host_evaluator=graph_execution.host_evaluator(),
        )
    path = None
    if args.output:  # before printing: a reader that stops early (| head) must not cost the file
        path = graph_io.write_graph_def(result.graph_def, args.output, as_text=args.output.endswith(".pbtxt"))
    print(f"{args.model}: {len(graph_def.node)} nodes -> {len(result.graph_def.node)} nodes")
    print(result.summary())
    if path is not None:
        print(f"wrote {path}")
    return 0
