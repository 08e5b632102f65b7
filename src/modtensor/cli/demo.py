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
import collections
import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from modtensor.cli.inspect_graph import describe_outputs, load, summarize

DEVICE_PLUGIN = Path("examples") / "plugins" / "demo_device" / "libdemo_device.so"


def default_models() -> Path:
    """The bundled models (installed with the package; a source checkout's examples/models otherwise)."""
    from modtensor.golden_models import models_folder

    return models_folder()


def default_device_plugin() -> Path:
    """The demo device plugin as `make -C examples/plugins/demo_device` builds it: under the current directory,
    else in the source checkout modtensor runs from (where the bundled models are the checkout's)."""
    here = Path.cwd() / DEVICE_PLUGIN
    if here.is_file():
        return DEVICE_PLUGIN
    checkout = default_models().parent.parent / DEVICE_PLUGIN
    return checkout if checkout.is_file() else DEVICE_PLUGIN


def add_parser(sub: Any) -> None:
    """Register the ``demo`` subcommand."""
    p = sub.add_parser("demo", help="load, shape-check and round-trip the bundled TensorFlow models")
    p.add_argument(
        "--models",
        default=os.environ.get("MODTENSOR_DEMO_MODELS") or None,
        help="folder with manifest.json and NAME.pb / NAME.shapes.json (default: the models bundled with modtensor)",
    )
    p.add_argument(
        "--device-plugin",
        default=os.environ.get("MODTENSOR_DEMO_DEVICE_PLUGIN") or None,
        help="example device plugin (.so) to load after the CPU runs; every model then runs again on its device "
        f"(ops without a device kernel fall back to CPU); 'none' skips it (default: {DEVICE_PLUGIN})",
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


def output_errors(
    graph: Any, info: dict[str, Any], arrays: Any, device: str, placement: collections.Counter[str]
) -> tuple[list[str], float, float]:
    """Run the graph with every node asking for ``device`` on TF's recorded inputs.

    Soft placement lets ops without a kernel on ``device`` run on CPU; ``placement`` receives, per
    device type, how many nodes ran there (from the partition graphs, transfers left out). Returns
    the problems, the worst relative error against TensorFlow's outputs and the ms of a batch-1 run.
    """
    from modtensor.framework.graph import Graph
    from modtensor.framework.importer import import_graph_def
    from modtensor.framework.protos import config_pb2
    from modtensor.runtime.session import Session

    placed = Graph()
    with placed.as_default(), placed.device(device):
        import_graph_def(graph.as_graph_def(), name="")
    graph = placed

    inputs = [t["name"] for t in info["inputs"]]
    outputs = [t["name"] for t in info["outputs"]]
    problems: list[str] = []
    worst = 0.0
    latency = float("nan")
    config = config_pb2.ConfigProto(allow_soft_placement=True)
    with Session(graph=graph, config=config) as sess:
        for batch in info["batches"]:
            feed = {t: arrays[f"b{batch}/in/{t}"] for t in inputs}
            metadata = config_pb2.RunMetadata()
            options = config_pb2.RunOptions(output_partition_graphs=True)
            sess.run(outputs, feed, options=options, run_metadata=metadata)  # first run compiles the plan
            if batch == info["batches"][0]:
                for partition in metadata.partition_graphs:
                    for node in partition.node:
                        if node.op not in ("_Send", "_Recv", "_HostSend", "_HostRecv"):
                            placement[node.device.rsplit("device:", 1)[-1].rsplit(":", 1)[0]] += 1
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
    """Run the demo over every model in the manifest, on CPU and then on the example device; return the exit status."""
    folder = Path(args.models) if args.models else default_models()
    manifest_path = folder / "manifest.json"
    if not manifest_path.is_file():
        raise OSError(f"no manifest.json in {folder}: pass --models DIR (a folder as examples/models)")
    manifest = json.loads(manifest_path.read_text())
    device_plugin = args.device_plugin or str(default_device_plugin())
    plugin = Path(device_plugin) if device_plugin != "none" else None
    plugin_devices = load_device_plugin(plugin) if plugin is not None else None
    failures = 0
    graphs = {}
    for name in manifest["models"]:
        start = time.perf_counter()
        graph = graphs[name] = load(str(folder / f"{name}.pb"))
        elapsed = (time.perf_counter() - start) * 1e3
        info = summarize(graph)
        expected = json.loads((folder / f"{name}.shapes.json").read_text())
        mismatches = shape_mismatches(graph, expected)
        changed = round_trip_problems(graph)
        placement: collections.Counter[str] = collections.Counter()
        wrong, worst, latency = output_errors(
            graph, manifest["models"][name], np.load(folder / f"{name}.io.npz"), "/device:CPU:0", placement
        )
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
    if plugin is not None and plugin_devices is None:
        print(
            f"\n(no device plugin at {plugin}: build it with `make -C examples/plugins/demo_device` "
            "or pass --device-plugin PATH; skipping the plugin-device runs)"
        )
    elif plugin_devices:
        failures += run_on_device_plugin(plugin, plugin_devices, manifest, graphs, folder)
    return 1 if failures else 0


def load_device_plugin(plugin: Path) -> list[Any] | None:
    """Load the device plugin before any device is created; return its physical devices (None: no such file)."""
    if not plugin.is_file():
        return None
    from modtensor.plugin import load_library
    from modtensor.runtime.device_factory import list_physical_devices

    before = {d.device_type for d in list_physical_devices()}
    load_library(plugin)
    return [d for d in list_physical_devices() if d.device_type not in before]


def run_on_device_plugin(
    plugin: Path, devices: list[Any], manifest: dict[str, Any], graphs: dict[str, Any], folder: Path
) -> int:
    """Run every model again with its nodes asking for the plugin's first device; return failures."""
    device_type = devices[0].device_type
    print(f"\n== device plugin {plugin}: devices {', '.join(d.name for d in devices)}")
    failures = 0
    for name, graph in graphs.items():
        placement: collections.Counter[str] = collections.Counter()
        wrong, worst, latency = output_errors(
            graph, manifest["models"][name], np.load(folder / f"{name}.io.npz"), f"/device:{device_type}:0", placement
        )
        status = "ok" if not wrong else "FAILED"
        failures += status != "ok"
        where = ", ".join(f"{count} on {kind}" for kind, count in placement.most_common())
        print(
            f"   {name}: nodes {where}; outputs vs TensorFlow's, max relative error {worst:.1e}; "
            f"batch 1 in {latency:.2f} ms  [{status}]"
        )
        for line in wrong[:10]:
            print(f"     {line}")
    print(f"   (ops without a {device_type} kernel ran on CPU through soft placement, with transfers between them)")
    return failures
