"""``modtensor demo``: the main job on the bundled TensorFlow-exported models.

For each model in the models folder (``manifest.json`` lists them) it reads the
GraphDef TensorFlow wrote, imports it (validating every node and inferring
static shapes), checks every inferred shape and dtype against the ones
TensorFlow inferred (``NAME.shapes.json``), and round-trips the graph through
``as_graph_def``. It exits non-zero when anything disagrees.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

from modtensor.cli.inspect_graph import describe_outputs, load, summarize

DEFAULT_MODELS = Path("examples") / "models"


def add_parser(sub: Any) -> None:
    """Register the ``demo`` subcommand."""
    p = sub.add_parser("demo", help="load, shape-check and round-trip the bundled TensorFlow models")
    p.add_argument(
        "--models",
        default=os.environ.get("MODTENSOR_DEMO_MODELS", str(DEFAULT_MODELS)),
        help="folder with manifest.json and NAME.pb / NAME.shapes.json (default: %(default)s)",
    )
    p.set_defaults(func=run)


def shape_mismatches(graph: Any, expected: dict[str, Any]) -> list[str]:
    """Compare every node output's static shape and dtype with TensorFlow's record."""
    problems = []
    for op in graph.get_operations():
        for t in op.outputs:
            want = expected.get(t.name)
            if want is None:
                problems.append(f"{t.name}: not in TensorFlow's record")
                continue
            got_shape = None if t.shape.rank is None else list(t.shape.as_list())
            if got_shape != want["shape"] or t.dtype.name != want["dtype"]:
                problems.append(f"{t.name}: got {t.dtype.name}{got_shape}, TensorFlow {want['dtype']}{want['shape']}")
    return problems


def round_trip_problems(graph: Any) -> list[str]:
    """Export the graph, import the export, and report nodes that changed."""
    from modtensor.framework.graph import Graph
    from modtensor.framework.importer import import_graph_def

    first = graph.as_graph_def()
    again = Graph()
    with again.as_default():
        import_graph_def(first, name="")
    second = again.as_graph_def()
    a = {n.name: n for n in first.node}
    b = {n.name: n for n in second.node}
    return [name for name in a.keys() | b.keys() if a.get(name) != b.get(name)]


def run(args: argparse.Namespace) -> int:
    """Run the demo over every model in the manifest; return the exit status."""
    folder = Path(args.models)
    manifest_path = folder / "manifest.json"
    if not manifest_path.is_file():
        raise OSError(f"no manifest.json in {folder}: pass --models DIR (run from the repository root)")
    manifest = json.loads(manifest_path.read_text())
    failures = 0
    for name in manifest["models"]:
        start = time.perf_counter()
        graph = load(str(folder / f"{name}.pb"))
        elapsed = (time.perf_counter() - start) * 1e3
        info = summarize(graph)
        expected = json.loads((folder / f"{name}.shapes.json").read_text())
        mismatches = shape_mismatches(graph, expected)
        changed = round_trip_problems(graph)
        status = "ok" if not mismatches and not changed else "FAILED"
        failures += status != "ok"
        n_outputs = sum(len(op.outputs) for op in info["ops"])
        print(f"== {name}: {len(info['ops'])} nodes, {len(info['histogram'])} op types, imported in {elapsed:.1f} ms")
        for op in info["inputs"]:
            print(f"   input  {op.name}: {describe_outputs(op)}")
        for op in info["outputs"]:
            print(f"   output {op.name}: {describe_outputs(op)}")
        print(f"   static shapes equal to TensorFlow's: {n_outputs - len(mismatches)}/{n_outputs} tensors")
        print(f"   GraphDef round trip: {'unchanged' if not changed else f'{len(changed)} nodes changed'}  [{status}]")
        for line in (mismatches + [f"round trip changed {n}" for n in changed])[:10]:
            print(f"     {line}")
    print(
        "Execution of these graphs (CPU kernels, sessions, eager mode, plugin devices) lands with the "
        "runtime issue; see docs/status.md."
    )
    return 1 if failures else 0
