"""Execution modes and scopes: executing_eagerly, device scopes in both modes (thread-local), name scopes."""

from __future__ import annotations

import threading

import pytest

import modtensor as tf
from modtensor.framework.graph import SymbolicTensor
from modtensor.runtime import context as runtime_context
from modtensor.runtime.eager import EagerTensor

CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"


def test_modes_follow_graph_blocks_and_the_process_switch() -> None:
    assert tf.executing_eagerly()
    with tf.Graph().as_default():
        assert not tf.executing_eagerly()
        assert isinstance(tf.constant(1.0), SymbolicTensor)
    assert isinstance(tf.constant(1.0), EagerTensor)
    tf.compat.v1.disable_eager_execution()
    assert not tf.executing_eagerly()
    c = tf.constant(2.0)
    assert isinstance(c, SymbolicTensor) and c.graph is tf.compat.v1.get_default_graph()
    tf.compat.v1.enable_eager_execution()
    assert tf.executing_eagerly()


def test_eager_device_scopes_nest_merge_and_restore() -> None:
    assert runtime_context.eager_device_scope() is None
    with tf.device("/CPU:0"):
        assert runtime_context.eager_device_scope().name == CPU0
        with tf.device("/device:GPU:1"):
            assert runtime_context.eager_device_scope().name == "/job:localhost/replica:0/task:0/device:GPU:1"
            with tf.device(None):
                assert runtime_context.eager_device_scope() is None
            with tf.device(""):
                assert runtime_context.eager_device_scope().name.endswith("GPU:1")
        assert runtime_context.eager_device_scope().name == CPU0
    assert runtime_context.eager_device_scope() is None


def test_device_scope_is_thread_local() -> None:
    seen: list[object] = []

    def other_thread() -> None:
        seen.append(runtime_context.eager_device_scope())
        seen.append((tf.constant(1.0) + 1.0).device)

    with tf.device("/CPU:0"):
        worker = threading.Thread(target=other_thread)
        worker.start()
        worker.join()
    assert seen == [None, CPU0]


def test_device_in_a_graph_sets_node_devices() -> None:
    g = tf.Graph()
    with g.as_default():
        with tf.device("/GPU:0"):
            a = tf.constant(1.0)
            with tf.device("/cpu:1"):
                b = a + 1
            with tf.device(None):
                c = a * 2
        d = tf.constant(0)
    assert (a.device, b.device, c.device, d.device) == ("/device:GPU:0", "/device:CPU:1", "", "")


def test_device_functions_only_in_v1_graphs() -> None:
    with pytest.raises(RuntimeError, match=r"^tf.device does not support functions\.$"):
        tf.device(lambda op: "/CPU:0")
    with pytest.raises(RuntimeError, match="when eager execution is enabled"):
        tf.compat.v1.device(lambda op: "/CPU:0")
    g = tf.Graph()
    with g.as_default(), tf.compat.v1.device(lambda op: "/device:CPU:0" if op.type == "Const" else ""):
        x = tf.constant(1.0)
        y = tf.nn.relu(x)
    assert (x.device, y.device) == ("/device:CPU:0", "")


def test_unknown_job_fails_at_the_first_op_not_at_the_scope() -> None:
    unknown = r"^/job:worker/replica:0/task:0/device:CPU:0 unknown device\.$"
    with tf.device("/job:worker"), pytest.raises(tf.errors.InvalidArgumentError, match=unknown):
        tf.constant(1.0) + 1.0


def test_name_scopes_in_both_modes() -> None:
    with tf.name_scope("a") as outer, tf.name_scope("b") as inner:
        assert (outer, inner) == ("a/", "a/b/")
        assert runtime_context.eager_name_scope() == "a/b/"
    assert runtime_context.eager_name_scope() == ""
    g = tf.Graph()
    with g.as_default():
        with tf.name_scope("layer") as first:
            w = tf.constant(1.0, name="w")
        with tf.name_scope("layer") as second:
            v = w + 1
    assert (first, second, w.name, v.name) == ("layer/", "layer_1/", "layer/w:0", "layer_1/add:0")


def test_equality_is_identity_in_v1_graphs_and_elementwise_eagerly() -> None:
    eager = tf.constant([1, 2]) == tf.constant([1, 3])
    assert eager.numpy().tolist() == [True, False]
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(1)
        assert (x == x) is True and (x == tf.constant(1)) is False and (x != x) is False
        assert {x, x} == {x}  # graph tensors stay hashable
