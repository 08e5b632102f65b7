"""``compat.v1``: TF1-style programs (placeholders, default graph, Session), config protos, namespace fallbacks."""

from __future__ import annotations

import numpy as np
import pytest

import modtensor as tf
from modtensor.framework.graph import SymbolicTensor

v1 = tf.compat.v1


def test_v1_program_builds_the_default_graph_and_runs_in_a_session() -> None:
    v1.disable_eager_execution()
    x = v1.placeholder(tf.float32, [None, 2], name="x")
    y = tf.nn.relu(x) * 2.0 + 1.0
    z = x[:, 0] / 2  # operators and indexing build nodes too
    assert isinstance(y, SymbolicTensor) and y.graph is v1.get_default_graph()
    assert (x.name, y.shape.as_list(), z.shape.as_list()) == ("x:0", [None, 2], [None])
    with v1.Session() as sess:
        out_y, out_z = sess.run([y, z], feed_dict={x: [[1.0, -1.0], [3.0, 0.5]]})
    np.testing.assert_allclose(out_y, [[3.0, 1.0], [7.0, 2.0]])
    np.testing.assert_allclose(out_z, [0.5, 1.5])


def test_placeholders() -> None:
    with pytest.raises(RuntimeError, match=r"^tf.placeholder\(\) is not compatible with eager execution\.$"):
        v1.placeholder(tf.float32)
    eager_default = v1.placeholder_with_default(tf.constant([1.0, 2.0]), [None])
    assert eager_default.numpy().tolist() == [1.0, 2.0]
    g = tf.Graph()
    with g.as_default():
        unknown = v1.placeholder(tf.int32)
        fed = v1.placeholder_with_default([1, 2], [2], name="d")
    assert unknown.shape.rank is None and unknown.op.type == "Placeholder"
    assert (fed.op.type, fed.name, fed.shape.as_list()) == ("PlaceholderWithDefault", "d:0", [2])


def test_default_graph_reset_and_name_scope() -> None:
    v1.disable_eager_execution()
    first = v1.get_default_graph()
    tf.constant(1.0)
    v1.reset_default_graph()
    second = v1.get_default_graph()
    assert second is not first and second.get_operations() == []
    with v1.name_scope(None, "block") as scope:
        c = tf.constant(2.0, name="c")
    assert (scope, c.name) == ("block/", "block/c:0")
    with pytest.raises(ValueError, match="At least one of name"):
        v1.name_scope(None)


def test_config_protos_and_v2_switches() -> None:
    config = v1.ConfigProto(allow_soft_placement=True, log_device_placement=False)
    config.graph_options.optimizer_options.opt_level = v1.OptimizerOptions.L0
    assert config.allow_soft_placement and config.graph_options.optimizer_options.opt_level == -1
    options = v1.RunOptions(trace_level=v1.RunOptions.FULL_TRACE, output_partition_graphs=True)
    assert options.trace_level == 3 and list(v1.RunMetadata().partition_graphs) == []
    assert isinstance(v1.GraphOptions(), type(config.graph_options))
    v1.disable_v2_behavior()
    assert not v1.executing_eagerly()
    v1.enable_v2_behavior()
    assert v1.executing_eagerly()


def test_namespaces() -> None:
    assert tf.compat.v2 is tf
    assert v1.add is tf.add and v1.Graph is tf.Graph and v1.GraphDef is tf.GraphDef
    assert v1.import_graph_def is tf.import_graph_def
    with pytest.raises(AttributeError, match="modtensor.compat.v1' has no attribute 'no_such_name'"):
        _ = v1.no_such_name
    with pytest.raises(AttributeError, match="'modtensor' has no attribute 'get_default_graph'"):
        _ = tf.get_default_graph  # TF 2 keeps it in compat.v1 only
