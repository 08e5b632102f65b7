"""compile_graph / CompiledGraph: pruning with feeds cutting edges, client feed and fetch transfers, targets,
placed partition graphs, multi-device runs with counted copies, interleaved partitions, step stats, errors."""

from __future__ import annotations

import io

import numpy as np
import pytest

from modtensor.framework import dtypes, errors, tensor_proto
from modtensor.framework.protos import graph_pb2, step_stats_pb2
from modtensor.runtime import device_factory
from modtensor.runtime.graph_execution import ExecutionOptions, compile_graph, normalize_tensor_name

from . import fake_device
from .fake_device import ForwardingNeg
from .support import make_node

testdev = fake_device.testdev  # the TESTDEV fixture, used by name

F32 = dtypes.float32
CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"
DEV0 = "/job:localhost/replica:0/task:0/device:TESTDEV:0"
DEV1 = "/job:localhost/replica:0/task:0/device:TESTDEV:1"


def const(name: str, value, device: str = ""):
    value = np.asarray(value)
    n = make_node("Const", name, value=tensor_proto.make_tensor_proto(value), dtype=dtypes.as_dtype(value.dtype))
    n.device = device
    return n


def node(kind: str, name: str, *inputs: str, device: str = "", **attrs):
    n = make_node(kind, name, inputs, **attrs)
    n.device = device
    return n


def placeholder(name: str, shape=(None,), dtype=F32, device: str = ""):
    return node("Placeholder", name, device=device, dtype=dtype, shape=list(shape))


def graph(*nodes) -> graph_pb2.GraphDef:
    g = graph_pb2.GraphDef()
    g.node.extend(nodes)
    return g


def all_nodes(compiled) -> dict:
    return {n.name: n for g in compiled.partition_graphs for n in g.node}


def test_feeds_fetches_and_pruning(fresh_devices) -> None:
    g = graph(
        placeholder("x"),
        node("Exp", "e", "x", T=F32),
        node("Neg", "n", "e", T=F32),
        const("u", np.uint8([[1]])),
        node("MatMul", "no_kernel", "u", "u", T=dtypes.uint8),  # not needed: never placed
    )
    compiled = compile_graph(g, ["x"], ["n"])
    assert compiled.feed_names == ("x:0",) and compiled.fetch_names == ("n:0",)
    (result,) = compiled.run([np.float32([0, 1])])
    np.testing.assert_allclose(result, -np.exp([0, 1]), rtol=1e-6)
    nodes = all_nodes(compiled)
    assert set(nodes) == {"_recv_x_0", "e", "n", "_send_n_0"}  # the fed placeholder x never runs
    assert nodes["_recv_x_0"].attr["client_terminated"].b and nodes["_send_n_0"].attr["client_terminated"].b
    assert all(n.device == CPU0 for n in nodes.values())
    assert compiled.devices == [CPU0]


def test_feeding_an_intermediate_tensor_replaces_its_producer(fresh_devices) -> None:
    g = graph(placeholder("x"), node("Sqrt", "s", "x", T=F32), node("Neg", "n", "s", T=F32))
    compiled = compile_graph(g, ["s:0"], ["n:0", "s:0"])
    result = compiled.run([np.float32([4])])
    np.testing.assert_array_equal(result[0], [-4])
    np.testing.assert_array_equal(result[1], [4])  # fetching a fed tensor gives the fed value
    assert "x" not in all_nodes(compiled) and "s" not in all_nodes(compiled)
    with pytest.raises(errors.InvalidArgumentError, match=r"You must feed a value for placeholder tensor 'x'"):
        compile_graph(g, [], ["n"]).run([])


def test_control_edges_of_a_fed_placeholder_move_to_the_feed(fresh_devices) -> None:
    g = graph(placeholder("x"), const("c", np.float32(2)), node("Identity", "i", "c", "^x", T=F32))
    compiled = compile_graph(g, ["x"], ["i"])
    assert list(all_nodes(compiled)["i"].input) == ["c", "^_recv_x_0"]
    assert compiled.run([np.float32([1])])[0] == 2


def test_targets_run_and_unknown_names_are_errors(fresh_devices) -> None:
    g = graph(
        placeholder("x"),
        const("shape", np.int32([2])),
        node("RandomUniform", "r", "shape", T=dtypes.int32, dtype=F32, seed=1, seed2=2),
        node("NoOp", "t", "^r"),
    )
    stats = step_stats_pb2.StepStats()
    compiled = compile_graph(g, [], [], ["t"])
    assert compiled.run([], stats) == []
    assert {s.node_name for d in stats.dev_stats for s in d.node_stats} == {"shape", "r", "t"}
    with pytest.raises(errors.NotFoundError, match="FetchOutputs node nope:0: not found"):
        compile_graph(g, [], ["nope"])
    with pytest.raises(errors.NotFoundError, match="FeedInputs: unable to find feed output nope:0"):
        compile_graph(g, ["nope:0"], ["r"])
    with pytest.raises(errors.NotFoundError, match="PruneForTargets: Some target nodes not found: nope"):
        compile_graph(g, [], [], ["nope"])
    with pytest.raises(errors.InvalidArgumentError, match="Tensor x:1 does not exist"):
        compile_graph(g, [], ["x:1"])
    with pytest.raises(errors.InvalidArgumentError, match="fed more than once"):
        compile_graph(g, ["x", "x:0"], [])
    assert normalize_tensor_name("a/b") == "a/b:0" and normalize_tensor_name("a:2") == "a:2"


def test_feed_values_must_have_the_fed_dtype(fresh_devices) -> None:
    compiled = compile_graph(graph(placeholder("x"), node("Neg", "n", "x", T=F32)), ["x"], ["n"])
    with pytest.raises(errors.InvalidArgumentError, match="Feed x:0 has dtype float64, expected float32"):
        compiled.run([np.float64([1])])
    with pytest.raises(errors.InvalidArgumentError, match="Expected 1 feed values"):
        compiled.run([])


def test_multi_device_run_copies_through_the_device_interface(testdev) -> None:
    g = graph(
        placeholder("x", shape=(2, 3)),
        const("w", np.ones((3, 4), np.float32)),
        node("MatMul", "mm", "x", "w", T=F32),  # TESTDEV (preferred), x copied in
        node("Exp", "e", "mm", T=F32),  # CPU only: copied out
        node("Neg", "n", "e", device="/device:TESTDEV:1", T=F32),  # copied in to TESTDEV:1
        node("Relu", "r", "n", T=F32),  # TESTDEV:0: device to device
    )
    compiled = compile_graph(g, ["x"], ["r"])
    assert compiled.devices == [DEV0, CPU0, DEV1]  # in the order their first node appears
    x = np.arange(6, dtype=np.float32).reshape(2, 3) / 10
    (result,) = compiled.run([x])
    np.testing.assert_allclose(result, np.maximum(-np.exp(x @ np.ones((3, 4))), 0), rtol=1e-6)
    # in: x -> TESTDEV:0, e -> TESTDEV:1; out: mm -> CPU, r -> client; n: TESTDEV:1 -> TESTDEV:0 by copy_to
    assert testdev.counts == {"from_host": 3, "to_host": 3, "copy_to": 1}
    assert ForwardingNeg.forwarded == [True]  # the received copy is the Neg's alone
    for name, n in all_nodes(compiled).items():
        assert n.device in (CPU0, DEV0, DEV1), name


def test_partitions_that_wait_on_each_other_run_interleaved(testdev) -> None:
    # CPU -> TESTDEV -> CPU -> TESTDEV -> CPU: no order of whole partitions works.
    g = graph(
        placeholder("x", shape=(2,)),
        node("Relu", "a", "x", device="/device:TESTDEV:0", T=F32),
        node("Exp", "b", "a", device="/device:CPU:0", T=F32),
        node("Relu", "c", "b", device="/device:TESTDEV:0", T=F32),
        node("Exp", "d", "c", device="/device:CPU:0", T=F32),
    )
    compiled = compile_graph(g, ["x"], ["d"])
    stats = step_stats_pb2.StepStats()
    (result,) = compiled.run([np.float32([-1, 0.5])], stats)
    np.testing.assert_allclose(result, np.exp(np.exp([0, 0.5])), rtol=1e-6)
    assert sorted(d.device for d in stats.dev_stats) == [CPU0, DEV0]
    dev_nodes = {s.node_name for d in stats.dev_stats if d.device == DEV0 for s in d.node_stats}
    assert {"a", "c"} <= dev_nodes


def test_control_dependency_across_devices(testdev) -> None:
    g = graph(
        placeholder("x", shape=(2,)),
        node("Exp", "e", "x", T=F32),
        node("Relu", "r", "x", "^e", device="/device:TESTDEV:1", T=F32),
    )
    compiled = compile_graph(g, ["x"], ["r"])
    np.testing.assert_array_equal(compiled.run([np.float32([-1, 2])])[0], [0, 2])
    dummy = [n for n in all_nodes(compiled).values() if n.name.startswith("e/ctrl/")]
    assert len(dummy) == 1 and dummy[0].device == CPU0


def test_placement_log_and_soft_placement_options(testdev) -> None:
    g = graph(placeholder("x", shape=(2,)), node("Exp", "e", "x", device="/device:TESTDEV:0", T=F32))
    with pytest.raises(errors.InvalidArgumentError, match="Cannot assign a device for operation e"):
        compile_graph(g, ["x"], ["e"])
    stream = io.StringIO()
    options = ExecutionOptions(allow_soft_placement=True, log_device_placement=True, log_stream=stream)
    compiled = compile_graph(g, ["x"], ["e"], options=options)
    assert stream.getvalue() == f"e: (Exp): {CPU0}\n"
    assert compiled.placement_log == (f"e: (Exp): {CPU0}",)


def test_collect_step_stats_option_and_default_device(testdev) -> None:
    g = graph(placeholder("x", shape=(2,)), node("Relu", "r", "x", T=F32))
    compiled = compile_graph(g, ["x"], ["r"], options=ExecutionOptions(collect_step_stats=True))
    compiled.run([np.float32([1, -1])])
    assert [d.device for d in compiled.last_step_stats.dev_stats] == [CPU0, DEV0]
    on_cpu = compile_graph(g, ["x"], ["r"], options=ExecutionOptions(default_device="/device:CPU:0"))
    assert on_cpu.devices == [CPU0]
    with pytest.raises(errors.InvalidArgumentError, match="Unknown default device '/device:NOPE:0'"):
        compile_graph(g, ["x"], ["r"], options=ExecutionOptions(default_device="/device:NOPE:0"))
    assert device_factory.device_set().client_device.name == CPU0


def test_an_error_in_one_partition_names_the_node(testdev) -> None:
    a = np.ones((2, 3), np.float32)
    g = graph(
        const("a", a, device="/device:TESTDEV:0"),
        node("Relu", "r", "a", device="/device:TESTDEV:0", T=F32),
        node("MatMul", "mm", "r", "r", device="/device:CPU:0", T=F32),
    )
    compiled = compile_graph(g, [], ["mm"])
    with pytest.raises(errors.InvalidArgumentError) as info:
        compiled.run([])
    assert f"[[{{{{node mm}}}}]] (op MatMul on {CPU0})" in str(info.value)
