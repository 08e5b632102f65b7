"""The partitioner: one GraphDef per device, _Send/_Recv pairs with TF's attrs on cut edges, shared receives,
control edges across devices, host-memory transfers, rendezvous keys, and TF's transfer OpDefs."""

from __future__ import annotations

import numpy as np
import pytest
from google.protobuf import text_format

from modtensor.framework import dtypes, errors, tensor_proto
from modtensor.framework.op_registry import global_registry
from modtensor.framework.protos import graph_pb2, op_def_pb2
from modtensor.runtime import device_factory
from modtensor.runtime.partitioner import memory_types, partition, topological_order, transfer_key
from modtensor.runtime.placer import place
from modtensor.runtime.rendezvous import create_key, incarnation_attr

from . import fake_device
from .support import make_node

testdev = fake_device.testdev  # the TESTDEV fixture, used by name

CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"
DEV0 = "/job:localhost/replica:0/task:0/device:TESTDEV:0"
DEV1 = "/job:localhost/replica:0/task:0/device:TESTDEV:1"

# TF 2.21's OpDefs, printed by tensorflow.python.framework.op_def_registry.get(name).
_ADDRESS = """
attr { name: "tensor_name" type: "string" }
attr { name: "send_device" type: "string" }
attr { name: "send_device_incarnation" type: "int" }
attr { name: "recv_device" type: "string" }
attr { name: "client_terminated" type: "bool" default_value { b: false } }
is_stateful: true
"""
TF_SEND = 'input_arg { name: "tensor" type_attr: "T" } attr { name: "T" type: "type" }' + _ADDRESS
TF_RECV = (
    'output_arg { name: "tensor" type_attr: "tensor_type" } attr { name: "tensor_type" type: "type" }'
    + _ADDRESS
    + "is_distributed_communication: true"
)


@pytest.mark.parametrize(
    ("name", "text"), [("_Send", TF_SEND), ("_HostSend", TF_SEND), ("_Recv", TF_RECV), ("_HostRecv", TF_RECV)]
)
def test_transfer_op_defs_equal_tensorflows(name: str, text: str) -> None:
    expected = text_format.Parse(f'name: "{name}" {text}', op_def_pb2.OpDef())
    assert global_registry().get(name).op_def == expected


def node(kind: str, name: str, inputs=(), device: str = "", **attrs):
    n = make_node(kind, name, tuple(inputs), **attrs)
    n.device = device
    return n


def const(name: str, value, device: str = ""):
    value = np.asarray(value)
    return node(
        "Const", name, device=device, value=tensor_proto.make_tensor_proto(value), dtype=dtypes.as_dtype(value.dtype)
    )


def placed(*nodes) -> graph_pb2.GraphDef:
    g = graph_pb2.GraphDef()
    g.node.extend(nodes)
    return place(g, device_factory.device_set()).graph_def


def by_name(graph: graph_pb2.GraphDef) -> dict:
    return {n.name: n for n in graph.node}


def test_single_device_graph_is_one_partition_without_transfers(fresh_devices) -> None:
    g = placed(const("c", np.float32(1)), node("Relu", "r", ("c",), T=dtypes.float32))
    result = partition(g, device_factory.device_set())
    assert list(result.graphs) == [CPU0]
    assert [n.name for n in result.graphs[CPU0].node] == ["c", "r"]
    assert result.num_transfers == 0


def test_cut_edge_gets_a_send_recv_pair_with_tensorflows_attrs(testdev) -> None:
    g = placed(
        const("c", np.float32([1, 2]), device="/device:CPU:0"),
        node("Exp", "e", ("c",), T=dtypes.float32),  # CPU
        node("Relu", "r", ("e",), device="/device:TESTDEV:1", T=dtypes.float32),
    )
    result = partition(g, device_factory.device_set())
    assert list(result.graphs) == [CPU0, DEV1]
    cpu, dev = by_name(result.graphs[CPU0]), by_name(result.graphs[DEV1])
    assert set(cpu) == {"c", "e", "e/_0"} and set(dev) == {"e/_1", "r"}
    send, recv = cpu["e/_0"], dev["e/_1"]
    assert send.op == "_Send" and list(send.input) == ["e"] and send.device == CPU0
    assert recv.op == "_Recv" and list(dev["r"].input) == ["e/_1"] and recv.device == DEV1
    cpu_device = device_factory.device_set().client_device
    for n in (send, recv):
        assert n.attr["tensor_name"].s == b"edge_0_e"
        assert n.attr["send_device"].s == CPU0.encode()
        assert n.attr["recv_device"].s == DEV1.encode()
        assert n.attr["send_device_incarnation"].i == incarnation_attr(cpu_device.attributes.incarnation)
        assert n.attr["client_terminated"].b is False
        assert n.attr["_src"].s == b"e" and n.attr["_dst"].s == b"r"
    assert send.attr["T"].type == recv.attr["tensor_type"].type == dtypes.float32.as_datatype_enum
    assert (
        transfer_key(send)
        == transfer_key(recv)
        == (f"{CPU0};{cpu_device.attributes.incarnation:016x};{DEV1};edge_0_e;0:0")
    )


def test_consumers_in_one_partition_share_one_receive(testdev) -> None:
    g = placed(
        const("c", np.float32([1, 2]), device="/device:CPU:0"),
        node("Exp", "e", ("c",), T=dtypes.float32),
        node("Relu", "r1", ("e",), device="/device:TESTDEV:1", T=dtypes.float32),
        node("Relu", "r2", ("e",), device="/device:TESTDEV:1", T=dtypes.float32),
        node("Relu", "r3", ("e",), device="/device:TESTDEV:0", T=dtypes.float32),
    )
    result = partition(g, device_factory.device_set())
    dev1 = by_name(result.graphs[DEV1])
    assert dev1["r1"].input == dev1["r2"].input
    assert [n.op for n in result.graphs[DEV1].node].count("_Recv") == 1
    assert [n.op for n in result.graphs[CPU0].node].count("_Send") == 2  # one per destination device
    assert result.num_transfers == 2


def test_control_edge_across_devices_sends_a_dummy_constant(testdev) -> None:
    g = placed(
        const("c", np.float32(1), device="/device:CPU:0"),
        node("Exp", "e", ("c",), T=dtypes.float32),
        node("NoOp", "n", ("^e",), device="/device:TESTDEV:0"),
    )
    result = partition(g, device_factory.device_set())
    cpu, dev = by_name(result.graphs[CPU0]), by_name(result.graphs[DEV0])
    dummy = cpu["e/ctrl/_0"]
    assert dummy.op == "Const" and list(dummy.input) == ["^e"]
    assert tensor_proto.make_ndarray(dummy.attr["value"].tensor).shape == (0,)
    assert cpu["e/_1"].op == "_Send" and list(cpu["e/_1"].input) == ["e/ctrl/_0"]
    assert cpu["e/_1"].attr["T"].type == dtypes.float32.as_datatype_enum
    assert dev["e/_2"].op == "_Recv"
    assert dev["e/_3"].op == "Identity" and list(dev["e/_3"].input) == ["e/_2"]
    assert list(dev["n"].input) == ["^e/_3"]


def test_host_memory_args_pick_host_transfers_and_same_device_pairs(testdev) -> None:
    g = placed(
        const("x", np.float32([[1, 2], [3, 4]]), device="/device:TESTDEV:0"),
        const("shape", np.int32([4]), device="/device:CPU:0"),
        node("Reshape", "flat", ("x", "shape"), device="/device:TESTDEV:0", T=dtypes.float32, Tshape=dtypes.int32),
        node("Shape", "s", ("x",), device="/device:TESTDEV:0", T=dtypes.float32, out_type=dtypes.int32),
        node("Reshape", "again", ("flat", "s"), device="/device:TESTDEV:0", T=dtypes.float32, Tshape=dtypes.int32),
        node("Cast", "sf", ("s",), device="/device:CPU:0", SrcT=dtypes.int32, DstT=dtypes.float32),
    )
    result = partition(g, device_factory.device_set())
    dev, cpu = by_name(result.graphs[DEV0]), by_name(result.graphs[CPU0])
    shape_recv = dev[dev["flat"].input[1]]
    assert shape_recv.op == "_HostRecv"  # Reshape's shape input is host memory on TESTDEV
    assert any(n.op == "_Send" and list(n.input) == ["shape"] for n in cpu.values())  # CPU is host: plain _Send
    assert dev["again"].input[1] == "s"  # host-memory output into a host-memory input: no transfer
    shape_to_cpu = next(n for n in dev.values() if n.op.endswith("Send") and n.input[0] == "s")
    assert shape_to_cpu.op == "_HostSend"  # Shape's output is host memory on TESTDEV
    assert cpu[cpu["sf"].input[0]].op == "_Recv"
    assert memory_types(dev["flat"], device_factory.get_device(DEV0)) == ((False, True), (False,))
    assert memory_types(cpu["sf"], device_factory.device_set().client_device) == ((True,), (True,))


def test_partitions_follow_one_global_topological_order(testdev) -> None:
    g = placed(
        const("c", np.float32(1), device="/device:CPU:0"),
        node("Relu", "a", ("c",), device="/device:TESTDEV:0", T=dtypes.float32),
        node("Exp", "b", ("a",), device="/device:CPU:0", T=dtypes.float32),
        node("Relu", "d", ("b",), device="/device:TESTDEV:0", T=dtypes.float32),
    )
    result = partition(g, device_factory.device_set())
    assert [n.op for n in result.graphs[DEV0].node] == ["_Recv", "Relu", "_Send", "_Recv", "Relu"]
    assert [n.op for n in result.graphs[CPU0].node] == ["Const", "_Send", "_Recv", "Exp", "_Send"]


def test_unplaced_graph_is_rejected(fresh_devices) -> None:
    g = graph_pb2.GraphDef()
    g.node.append(const("c", np.float32(1), device="/device:CPU:0"))
    with pytest.raises(errors.InvalidArgumentError, match="not placed on a device of this process"):
        partition(g, device_factory.device_set())


def test_topological_order_keeps_valid_order_and_reports_cycles() -> None:
    nodes = [node("NoOp", "b", ("^a",)), node("NoOp", "a"), node("NoOp", "c")]
    assert topological_order(nodes) == [1, 0, 2]
    cycle = [node("NoOp", "a", ("^b",)), node("NoOp", "b", ("^a",))]
    with pytest.raises(errors.InvalidArgumentError, match="contains a cycle with 2 nodes"):
        topological_order(cycle)


def test_rendezvous_keys_are_tensorflows_format() -> None:
    assert create_key(
        "/job:a/replica:0/task:0/device:CPU:0", 1, "/job:a/replica:0/task:0/device:GPU:0", "edge_1_x"
    ) == ("/job:a/replica:0/task:0/device:CPU:0;0000000000000001;/job:a/replica:0/task:0/device:GPU:0;edge_1_x;0:0")
    assert create_key("s", -1, "r", "t", (2, 3)) == "s;ffffffffffffffff;r;t;2:3"
    assert incarnation_attr(2**64 - 1) == -1 and incarnation_attr(5) == 5
