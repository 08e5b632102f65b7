"""``modtensor optimize IN.pb -o OUT.pb``: run the graph optimizer on a GraphDef and print per-pass statistics.

``--config key=on|off`` sets RewriterConfig fields (``constant_folding=off``,
``debug_stripper=on``, ``disable_model_pruning=on``, ``min_graph_nodes=N``,
``meta_optimizer_iterations=1``); ``--device TYPE`` names a device type the graph is
optimized for (repeatable; default CPU); ``--fetch NAME`` the tensors that must
survive (default: every tensor nothing consumes).
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


def optimize(args: argparse.Namespace) -> int:
    """Optimize the model, print the statistics, write the result when ``-o`` is given."""
    from modtensor.grappler import meta_optimizer
    from modtensor.runtime import graph_execution

    graph_def = graph_io.read_graph_def(args.model)
    config = parse_config(args.config)
    fetches = [name.lstrip("^") for name in args.fetch]
    result = meta_optimizer.optimize_graph_def(
        graph_def,
        fetches=fetches,
        config=config,
        device_types=args.device or ["CPU"],
        host_evaluator=graph_execution.host_evaluator(),
    )
    print(f"{args.model}: {len(graph_def.node)} nodes -> {len(result.graph_def.node)} nodes")
    print(result.summary())
    if args.output:
        path = graph_io.write_graph_def(result.graph_def, args.output, as_text=args.output.endswith(".pbtxt"))
        print(f"wrote {path}")
    return 0
