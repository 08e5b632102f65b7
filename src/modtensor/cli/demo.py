"""``modtensor demo``: the main job on the bundled TensorFlow-exported models.

For each model in the models folder (``manifest.json`` lists them) it reads the
GraphDef TensorFlow wrote, imports it (validating every node and inferring
static shapes), checks every inferred shape and dtype against the ones
TensorFlow inferred (``NAME.shapes.json``), round-trips the graph through
``as_graph_def``, and runs it with a v1 ``Session`` on the inputs TensorFlow was
run on (``NAME.io.npz``), comparing the outputs with TensorFlow's. It exits
non-zero when anything disagrees.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

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


def output_errors(graph: Any, info: dict[str, Any], arrays: Any) -> tuple[list[str], float, float]:
    """Run the graph on TF's recorded inputs; return problems, worst relative error, ms of a batch-1 run."""
    from modtensor.runtime.session import Session

    inputs = [t["name"] for t in info["inputs"]]
    outputs = [t["name"] for t in info["outputs"]]
    problems: list[str] = []
    worst = 0.0
    latency = float("nan")
    with Session(graph=graph) as sess:
        for batch in info["batches"]:
            feed = {t: arrays[f"b{batch}/in/{t}"] for t in inputs}
            sess.run(outputs, feed)  # first run compiles the plan
            start = time.perf_counter()
            got = sess.run(outputs, feed)
            if batch == 1:
                latency = (time.perf_counter() - start) * 1e3
            for tensor, value in zip(outputs, got, strict=True):
                want = arrays[f"b{batch}/out/{tensor}"]
                if value.shape != want.shape or value.dtype != want.dtype:
                    problems.append(
                        f"{tensor} at batch {batch}: got {value.dtype}{list(value.shape)}, "
                        f"TensorFlow {want.dtype}{list(want.shape)}"
                    )
                    continue
                scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
                error = float(np.max(np.abs(value.astype(np.float64) - want))) / scale if want.size else 0.0
                worst = max(worst, error)
                if error > 1e-4:
                    problems.append(f"{tensor} at batch {batch}: relative error {error:.2e} > 1e-4")
    return problems, worst, latency


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
        wrong, worst, latency = output_errors(graph, manifest["models"][name], np.load(folder / f"{name}.io.npz"))
        status = "ok" if not mismatches and not changed and not wrong else "FAILED"
        failures += status != "ok"
        n_outputs = sum(len(op.outputs) for op in info["ops"])
        print(f"== {name}: {len(info['ops'])} nodes, {len(info['histogram'])} op types, imported in {elapsed:.1f} ms")
        for op in info["inputs"]:
            print(f"   input  {op.name}: {describe_outputs(op)}")
        for op in info["outputs"]:
            print(f"   output {op.name}: {describe_outputs(op)}")
        print(f"   static shapes equal to TensorFlow's: {n_outputs - len(mismatches)}/{n_outputs} tensors")
        print(f"   GraphDef round trip: {'unchanged' if not changed else f'{len(changed)} nodes changed'}")
        batches = " and ".join(str(b) for b in manifest["models"][name]["batches"])
        print(
            f"   run on CPU at batch {batches}: outputs vs TensorFlow's, max relative error {worst:.1e}; "
            f"batch 1 in {latency:.2f} ms  [{status}]"
        )
        for line in (mismatches + [f"round trip changed {n}" for n in changed] + wrong)[:10]:
            print(f"     {line}")
    print(
        "Plugin devices (the bundled example device plugin) come with the pluggable-device issue; see docs/status.md."
    )
    return 1 if failures else 0
