"""The meta-optimizer: validation and skipping, statistics, plugin optimizers, the runtime hook and the CLI."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from modtensor.cli.main import main
from modtensor.framework import errors
from modtensor.framework.graph import Graph
from modtensor.framework.graph_io import read_graph_def
from modtensor.framework.protos import config_pb2
from modtensor.grappler import config, meta_optimizer
from modtensor.grappler.item import GrapplerItem
from modtensor.grappler.passes.remapper import Remapper
from modtensor.grappler.plugin_optimizers import (
    PluginOptimizer,
    register_plugin_optimizer,
    unregister_plugin_optimizer,
)
from modtensor.runtime import graph_execution
from modtensor.runtime.session import Session

from .support import RC, build, const, op, ops, placeholder, run

MODELS = Path(__file__).resolve().parents[2] / "examples" / "models"
MANIFEST = json.loads((MODELS / "manifest.json").read_text())["models"]
W = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)


def dense() -> None:
    x = placeholder("x", [2, 3])
    a = op("Identity", "xi", input=x)
    mm = op("MatMul", "mm", a=a, b=const(W, "w"))
    op("Relu", "y", features=op("BiasAdd", "ba", value=mm, bias=const([0.1, -0.2, 0.3, -5.0], "b")))


def optimize(graph_def, fetches, rc=None):
    item = GrapplerItem(graph_def, fetches=tuple(fetches))
    return meta_optimizer.optimize(item, rc, host_evaluator=graph_execution.host_evaluator())


def test_statistics_record_each_pass_and_not_built_passes_never_run() -> None:
    result = optimize(build(dense), ["y:0"], RC(layout_optimizer=RC.OFF, pin_to_host_optimization=RC.ON))
    by_name = {}
    for s in result.stats:
        by_name.setdefault(s.name, []).append(s)
    assert by_name["pin_to_host_optimization"][0].status == "not built yet"
    assert "layout_optimizer" not in by_name  # off: not even listed
    for name in meta_optimizer.NOT_BUILT:
        assert all(s.status == "not built yet" for s in by_name.get(name, []))
    prune = by_name["model_pruning"][0]
    assert (prune.status, prune.nodes_before, prune.nodes_after) == ("ran", 7, 6)
    remap = by_name["remapping"][0]
    assert remap.nodes_after == remap.nodes_before - 2 and remap.edges_before > remap.edges_after
    assert "not built yet" in result.summary() and "remapping" in result.summary()
    assert ops(result.graph_def)["y"] == "_FusedMatMul"


def test_min_graph_nodes_and_disable_meta_optimizer_skip_everything() -> None:
    graph_def = build(dense)
    assert optimize(graph_def, ["y:0"], RC(min_graph_nodes=100)).graph_def is graph_def
    result = optimize(graph_def, ["y:0"], RC(disable_meta_optimizer=True))
    assert result.graph_def is graph_def and result.stats == [] and "disable_meta_optimizer" in result.skipped


def test_a_pass_with_invalid_output_or_an_exception_is_skipped_with_a_warning(monkeypatch, caplog) -> None:
    def broken(self, item, context):
        out = type(item.graph_def)()
        out.CopyFrom(item.graph_def)
        for node in out.node:
            if node.name == "y":
                node.input[0] = "missing"
        return out

    def raising(self, item, context):
        raise RuntimeError("boom")

    monkeypatch.setattr(Remapper, "optimize", broken)
    monkeypatch.setattr("modtensor.grappler.passes.arithmetic_optimizer.ArithmeticOptimizer.optimize", raising)
    graph_def = build(dense)
    with caplog.at_level(logging.WARNING, logger="modtensor.grappler"):
        result = optimize(graph_def, ["y:0"])
    statuses = {s.name: s.status for s in result.stats if s.iteration == 1}
    assert statuses["remapping"] == "invalid output" and statuses["arithmetic_optimization"] == "error"
    assert "'remapping' produced an invalid graph" in caplog.text and "missing" in caplog.text
    assert "'arithmetic_optimization' failed" in caplog.text and "boom" in caplog.text
    assert ops(result.graph_def)["y"] == "Relu"  # the remapper's output was dropped
    np.testing.assert_allclose(
        run(result.graph_def, ["y:0"], {"x:0": np.ones((2, 3), np.float32)})[0],
        run(graph_def, ["y:0"], {"x:0": np.ones((2, 3), np.float32)})[0],
    )


def test_plugin_optimizer_runs_after_builtins_is_validated_and_one_per_device_type(caplog) -> None:
    seen = []

    def plugin(graph_def, item):
        seen.append(sorted(n.op for n in graph_def.node))
        graph_def.node.add(name="dangling", op="Relu", input=["nowhere"]).attr["T"].type = 1
        return graph_def

    register_plugin_optimizer(PluginOptimizer("CPU", "toy", plugin, {"remapping": "off"}))
    try:
        with pytest.raises(errors.AlreadyExistsError, match="already registered by plugin 'toy'.*'other'"):
            register_plugin_optimizer(PluginOptimizer("CPU", "other", plugin))
        with caplog.at_level(logging.WARNING, logger="modtensor.grappler"):
            result = optimize(build(dense), ["y:0"])
        assert "MatMul" in seen[0] and "_FusedMatMul" not in seen[0]  # the plugin turned remapping off
        assert result.stats[-1].name == "plugin:toy" and result.stats[-1].status == "invalid output"
        assert "dangling" not in ops(result.graph_def)
        assert "'toy'" in result.warnings[0] and "remapping" in caplog.text
        optimize(build(dense), ["y:0"], RC(use_plugin_optimizers=RC.OFF))
        assert len(seen) == 1  # off: the plugin optimizer does not run
    finally:
        unregister_plugin_optimizer("CPU")


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_golden_models_give_the_same_outputs_after_optimization(name) -> None:
    graph_def = read_graph_def(MODELS / f"{name}.pb")
    arrays = np.load(MODELS / f"{name}.io.npz")
    feeds = {t["name"]: arrays[f"b1/in/{t['name']}"] for t in MANIFEST[name]["inputs"]}
    fetches = [t["name"] for t in MANIFEST[name]["outputs"]]
    result = optimize(graph_def, fetches)
    assert len(result.graph_def.node) < len(graph_def.node)
    assert all(s.status in ("ran", "no change", "not built yet") for s in result.stats)
    for got, fetch in zip(run(result.graph_def, fetches, feeds), fetches, strict=True):
        want = arrays[f"b1/out/{fetch}"]
        scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
        assert got.dtype == want.dtype and got.shape == want.shape
        assert float(np.max(np.abs(got.astype(np.float64) - want), initial=0.0)) <= 1e-4 * scale, fetch


def test_session_partition_graphs_show_the_optimized_graph_and_rewrite_options_apply() -> None:
    graph = Graph()
    with graph.as_default():
        dense()
    x = np.ones((2, 3), np.float32)
    for remapping, expected in ((RC.DEFAULT, "_FusedMatMul"), (RC.OFF, "Relu")):
        cfg = config_pb2.ConfigProto()
        cfg.graph_options.rewrite_options.remapping = remapping
        with Session(graph=graph, config=cfg) as sess:
            meta = config_pb2.RunMetadata()
            y = sess.run(
                "y:0", {"x:0": x}, options=config_pb2.RunOptions(output_partition_graphs=True), run_metadata=meta
            )
        (partition,) = meta.partition_graphs
        assert {n.name: n.op for n in partition.node}["y"] == expected
        np.testing.assert_allclose(y, np.maximum(x @ W + [0.1, -0.2, 0.3, -5.0], 0), rtol=1e-6)


def test_functions_use_the_experimental_options() -> None:
    graph_def = build(dense)
    saved = config.get_experimental_options()
    try:
        # The Identity "xi" survives only when neither pruning nor the dependency optimizer (which bypasses
        # Identities too, as TF's) runs.
        config.set_experimental_options(
            {"remapping": False, "disable_model_pruning": True, "dependency_optimization": False}
        )
        compiled = graph_execution.compile_graph(graph_def, ["x:0"], ["y:0"])
        assert "xi" in {n.name for g in compiled.partition_graphs for n in g.node}
        assert "_FusedMatMul" not in {n.op for g in compiled.partition_graphs for n in g.node}
        assert {"remapping", "dependency_optimization"}.isdisjoint({s.name for s in compiled.optimization.stats})
        compiled.close()
    finally:
        config._experimental.clear()
        config._experimental.update(saved)


def test_cli_optimize_prints_statistics_and_writes_a_graph_that_runs(tmp_path, capsys) -> None:
    out = tmp_path / "mlp_opt.pb"
    assert (
        main(
            [
                "optimize",
                str(MODELS / "mlp.pb"),
                "-o",
                str(out),
                "--config",
                "debug_stripper=on",
                "--config",
                "layout_optimizer=off",
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "22 nodes -> 11 nodes" in printed and "remapping" in printed and "debug_stripper" in printed
    assert "layout_optimizer" not in printed
    optimized = read_graph_def(out)
    assert "_FusedMatMul" in {n.op for n in optimized.node}
    assert main(["optimize", str(MODELS / "mlp.pb"), "--config", "remaping=off"]) == 1
    assert "remaping=off" in capsys.readouterr().err


def test_import_modtensor_does_not_load_the_optimizer() -> None:
    code = "import sys, modtensor; print(any(m.startswith('modtensor.grappler') for m in sys.modules))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"
