"""examples/plugins/fused_optimizer: a plugin optimizer fusing MatMul + BiasAdd + Relu into its own op on CPU."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from modtensor.framework.graph import Graph
from modtensor.framework.importer import import_graph_def
from modtensor.framework.protos import config_pb2, rewriter_config_pb2
from modtensor.grappler.plugin_optimizers import plugin_optimizers
from modtensor.plugin.loader import load_native_library, unload_native_library
from modtensor.runtime.session import Session

from .graph_support import dense_graph, expected
from .support import REPO

RC = rewriter_config_pb2.RewriterConfig
FUSED = "MyFusedMatMulBiasRelu"


@pytest.fixture(scope="module")
def fused_optimizer(build_plugin):
    """The example built and loaded for this module only (its CPU optimizer would affect every CPU graph)."""
    example = REPO / "examples" / "plugins" / "fused_optimizer"
    path = build_plugin("fused_optimizer", [example / "fused_optimizer.c", example / "fused_rewrite.c"])
    record = load_native_library(path, origin="load_library", raise_errors=True)
    yield record
    unload_native_library(path)
    assert plugin_optimizers(["CPU"]) == []


def run_session(rewrite: rewriter_config_pb2.RewriterConfig | None, x: np.ndarray) -> tuple[np.ndarray, dict]:
    graph = Graph()
    with graph.as_default():
        import_graph_def(dense_graph(), name="")
    cfg = config_pb2.ConfigProto()
    if rewrite is not None:
        cfg.graph_options.rewrite_options.CopyFrom(rewrite)
    with Session(graph=graph, config=cfg) as sess:
        meta = config_pb2.RunMetadata()
        y = sess.run("y:0", {"x:0": x}, options=config_pb2.RunOptions(output_partition_graphs=True), run_metadata=meta)
    (partition,) = meta.partition_graphs
    return y, {n.name: n.op for n in partition.node}


def test_the_plugin_registers_its_optimizer_op_and_kernel(fused_optimizer):
    assert fused_optimizer.optimizers == ["CPU"] and FUSED in fused_optimizer.ops
    assert fused_optimizer.kernels_by_device() == {"CPU": [f"{FUSED} (T in [DT_FLOAT])"]}
    (registered,) = plugin_optimizers(["CPU"])
    assert dict(registered.configs) == {"remapping": 1}  # TF_TriState_Off


def test_the_fused_graph_runs_when_plugin_optimizers_are_on_and_gives_the_same_numbers(fused_optimizer, caplog):
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    with caplog.at_level(logging.WARNING, logger="modtensor.grappler"):
        fused, ops_on = run_session(None, x)
    assert ops_on["y"] == FUSED and "mm" not in ops_on and "ba" not in ops_on
    assert "remapping" in caplog.text and fused_optimizer.path in caplog.text  # the plugin turned remapping off
    unfused, ops_off = run_session(RC(use_plugin_optimizers=RC.OFF), x)
    assert ops_off["y"] == "_FusedMatMul"  # off: the plugin's config is ignored too, so the built-in remapper fuses
    plain, ops_plain = run_session(RC(use_plugin_optimizers=RC.OFF, remapping=RC.OFF), x)
    assert ops_plain["y"] == "Relu" and ops_plain["mm"] == "MatMul"
    np.testing.assert_allclose(fused, expected(x), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(fused, unfused, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(fused, plain, rtol=1e-6, atol=1e-6)


def test_a_fetched_intermediate_is_not_fused(fused_optimizer):
    graph = Graph()
    with graph.as_default():
        import_graph_def(dense_graph(), name="")
    x = np.ones((2, 3), np.float32)
    with Session(graph=graph) as sess:
        meta = config_pb2.RunMetadata()
        y, mm = sess.run(
            ["y:0", "mm:0"], {"x:0": x}, options=config_pb2.RunOptions(output_partition_graphs=True), run_metadata=meta
        )
    ops = {n.name: n.op for n in meta.partition_graphs[0].node}
    assert ops["y"] == "Relu" and ops["mm"] == "MatMul"
    np.testing.assert_allclose(y, expected(x), rtol=1e-6)
