"""Plugin graph optimizers see what TensorFlow hands them: the whole placed graph and the user's names.

tests/golden/plugin_semantics/placed_optimizer.json is TensorFlow 2.21's record of the same plugin
(tests/plugin/csrc/placed_optimizer.c) on the same Session run: every node carries its assigned
device, TF_GetFetchNodesList is ``z:0`` (not ``_send_z_0``), TF_GetNodesToPreserveList the fetches and
feeds, and TF_InferStatically succeeds.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import modtensor as tf
from modtensor.plugin import load_library
from modtensor.plugin.loader import unload_native_library

from .placed_optimizer_scenario import run_scenario
from .support import REPO

GOLDEN = json.loads((REPO / "tests/golden/plugin_semantics/placed_optimizer.json").read_text())


@pytest.fixture(scope="module")
def seen(build_plugin):
    path = build_plugin("placed_optimizer")
    load_library(path)
    try:
        return run_scenario(tf, str(path))
    finally:
        unload_native_library(path)  # a CPU optimizer would run on every later test's graphs


def test_fetch_and_preserve_lists_are_the_users(seen):
    assert seen["fetch"] == GOLDEN["fetch"] == ["z:0"]
    assert seen["preserve"] == GOLDEN["preserve"] == ["x", "z"]


def test_every_node_carries_its_assigned_device(seen):
    assert seen["nodes"], seen
    assert {name: dev for name, (_, dev) in seen["nodes"].items()} == {
        name: dev for name, (_, dev) in GOLDEN["nodes"].items()
    }
    assert not any(op in ("_Send", "_Recv") for op, _ in seen["nodes"].values())


def test_infer_statically_succeeds_and_the_result_is_tensorflows(seen):
    assert seen["infer"] == GOLDEN["infer"] == 0
    np.testing.assert_allclose(seen["value"], GOLDEN["value"], rtol=1e-5, atol=1e-6)


def test_infer_statically_accepts_internal_names():
    from modtensor.grappler.graph_properties import GraphProperties
    from modtensor.grappler.item import GrapplerItem

    graph = tf.Graph()
    with graph.as_default():
        tf.identity(tf.compat.v1.placeholder(tf.float32, [2], name="x"), name="y")
    graph_def = graph.as_graph_def()
    graph_def.node[0].name = "_recv_x_0"  # TF's name of a client feed transfer
    graph_def.node[1].input[0] = "_recv_x_0"
    properties = GraphProperties(GrapplerItem(graph_def))
    assert properties.infer_statically(False) and properties.error is None
    assert properties.output_shape("y").as_list() == [2]
