"""The placer: explicit and partial device specs, kernel availability, device preference, soft placement,
colocation groups, TF's placement heuristics, the log lines and TF's error texts.

Multi-device cases use the ``TESTDEV`` device type of ``fake_device`` (priority 220, above
CPU's 70, as a pluggable GPU would be). TF 2.21's texts quoted here were recorded with
``/tmp/tfvenv`` (two CPU devices via ``device_count``):

- log order and form: ``a: (AddV2): /job:localhost/replica:0/task:0/device:CPU:0`` ... non-generator
  nodes first, in graph order, then Const/Placeholder nodes (which follow their consumers);
- ``Cannot assign a device for operation a: {{node a}} was explicitly assigned to /device:CPU:5 but
  available devices are [ ... ]. Make sure the device specification refers to a valid device.``
"""

from __future__ import annotations

import io

import numpy as np
import pytest

from modtensor.framework import dtypes, errors, tensor_proto
from modtensor.framework.protos import graph_pb2, node_def_pb2
from modtensor.runtime import device_factory
from modtensor.runtime.kernel_registry import KernelRegistry
from modtensor.runtime.placer import place

from . import fake_device
from .fake_device import TESTDEV
from .support import make_node

testdev = fake_device.testdev  # the TESTDEV fixture, used by name

CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"
DEV0 = "/job:localhost/replica:0/task:0/device:TESTDEV:0"
DEV1 = "/job:localhost/replica:0/task:0/device:TESTDEV:1"


def graph(*nodes) -> graph_pb2.GraphDef:
    g = graph_pb2.GraphDef()
    g.node.extend(nodes)
    return g


def const(name: str, value=1.0, dtype=np.float32, device: str = "", **attrs):
    node = make_node(
        "Const", name, value=tensor_proto.make_tensor_proto(np.asarray(value, dtype)), dtype=dtypes.as_dtype(dtype)
    )
    node.device = device
    for key, group in attrs.items():
        node.attr[key].list.s.extend(group)
    return node


def op(kind: str, name: str, inputs=(), device: str = "", **attrs):
    node = make_node(kind, name, tuple(inputs), **attrs)
    node.device = device
    return node


def placeholder(name: str, device: str = ""):
    return op("Placeholder", name, device=device, dtype=dtypes.float32, shape=[2])


def devices_of(placement) -> dict[str, str]:
    return {n.name: n.device for n in placement.graph_def.node}


# --------------------------------------------------------------------------- one device


def test_cpu_only_every_node_on_cpu0_and_the_graph_is_copied(fresh_devices) -> None:
    g = graph(placeholder("x"), const("y"), op("AddV2", "a", ("x", "y"), T=dtypes.float32))
    placement = place(g, device_factory.device_set())
    assert devices_of(placement) == {"x": CPU0, "y": CPU0, "a": CPU0}
    assert [n.device for n in g.node] == ["", "", ""]  # the input is left as it was
    assert placement.devices["a"] is device_factory.device_set().client_device


def test_log_lines_are_tensorflows_form_and_order(fresh_devices, capsys) -> None:
    # TF 2.21 logs non-generators in graph order, then generators (Const, Placeholder).
    g = graph(
        placeholder("x"),
        const("a/y"),
        op("AddV2", "a", ("x", "a/y"), T=dtypes.float32),
        op("NoOp", "n", ("^a",)),
        op("Identity", "c", ("a",), T=dtypes.float32),
    )
    placement = place(g, device_factory.device_set(), log_device_placement=True)
    expected = [
        f"a: (AddV2): {CPU0}",
        f"n: (NoOp): {CPU0}",
        f"c: (Identity): {CPU0}",
        f"x: (Placeholder): {CPU0}",
        f"a/y: (Const): {CPU0}",
    ]
    assert list(placement.log) == expected
    assert capsys.readouterr().out.splitlines() == expected  # stdout, as TF's printf
    stream = io.StringIO()
    place(g, device_factory.device_set(), log_device_placement=True, log_stream=stream)
    assert stream.getvalue().splitlines() == expected
    assert place(g, device_factory.device_set()).log == ()


def test_node_with_no_kernel_anywhere_is_tensorflows_error(fresh_devices) -> None:
    g = graph(const("c", [[1]], np.uint8), op("MatMul", "mm", ("c", "c"), T=dtypes.uint8))
    with pytest.raises(errors.InvalidArgumentError) as info:
        place(g, device_factory.device_set())
    message = str(info.value)
    assert message.startswith(
        "No OpKernel was registered to support Op 'MatMul' used by {{node mm}} with these attrs: [T=DT_UINT8, "
        "grad_a=false, grad_b=false, transpose_a=false, transpose_b=false]\nRegistered devices: [CPU]\n"
        "Registered kernels:\n  device='CPU'; T in ["
    ), message
    assert message.endswith("\n\t [[{{node mm}}]]")


def test_unknown_device_is_tensorflows_error_and_soft_placement_falls_back(fresh_devices) -> None:
    g = graph(const("c"), op("Relu", "a", ("c",), device="/device:CPU:5", T=dtypes.float32))
    with pytest.raises(errors.InvalidArgumentError) as info:
        place(g, device_factory.device_set())
    assert str(info.value) == (
        "Cannot assign a device for operation a: {{node a}} was explicitly assigned to /device:CPU:5 but available "
        f"devices are [ {CPU0} ]. Make sure the device specification refers to a valid device.\n\t [[{{{{node a}}}}]]"
    )
    assert devices_of(place(g, device_factory.device_set(), allow_soft_placement=True))["a"] == CPU0


def test_malformed_device_names_the_node(fresh_devices) -> None:
    g = graph(const("c", device="/device:CPU:0/bogus:1"))
    with pytest.raises(errors.InvalidArgumentError, match=r"Malformed device specification '/device:CPU:0/bogus:1'"):
        place(g, device_factory.device_set())


def test_higher_kernel_priority_beats_device_type_priority(testdev) -> None:
    registry = KernelRegistry()
    registry.register("Relu", "CPU", object, priority=1, source="t")  # the factory is never called by place()
    registry.register("Relu", TESTDEV, object, source="t")
    registry.register("Placeholder", TESTDEV, object, source="t")
    g = graph(placeholder("x"), op("Relu", "r", ("x",), T=dtypes.float32))
    placed = devices_of(place(g, device_factory.device_set(), registry=registry))
    assert placed["r"] == CPU0
    assert placed["x"] == DEV0  # the only device type with a Placeholder kernel in this registry


# --------------------------------------------------------------------------- several device types


def test_unplaced_nodes_prefer_the_higher_priority_device_type_with_a_kernel(testdev) -> None:
    g = graph(
        placeholder("x"),
        op("Relu", "r", ("x",), T=dtypes.float32),  # TESTDEV has Relu
        op("Exp", "e", ("x",), T=dtypes.float32),  # only CPU has Exp
        op("Relu", "r64", ("d",), T=dtypes.float64),  # TESTDEV's Relu is float32 only
        const("d", 1.0, np.float64),
    )
    placed = devices_of(place(g, device_factory.device_set()))
    assert placed["r"] == DEV0
    assert placed["e"] == CPU0
    assert placed["r64"] == CPU0
    assert placed["d"] == CPU0  # the Const follows its only consumer
    assert placed["x"] == DEV0  # consumers on two devices: the preferred device


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("/CPU:0", CPU0),
        ("/device:CPU:0", CPU0),
        ("cpu:0", CPU0),
        ("/device:TESTDEV:1", DEV1),
        ("/TESTDEV:1", DEV1),
        ("TESTDEV", DEV0),
        ("/device:TESTDEV:*", DEV0),
        ("/job:localhost/replica:0/task:0/device:TESTDEV:1", DEV1),
        ("/job:localhost", DEV0),
    ],
)
def test_partial_device_specs(testdev, spec: str, expected: str) -> None:
    g = graph(placeholder("x"), op("Relu", "r", ("x",), device=spec, T=dtypes.float32))
    assert devices_of(place(g, device_factory.device_set()))["r"] == expected


def test_explicit_device_without_a_kernel_is_tensorflows_error_or_soft_placed(testdev) -> None:
    g = graph(placeholder("x"), op("Exp", "e", ("x",), device="/device:TESTDEV:0", T=dtypes.float32))
    with pytest.raises(errors.InvalidArgumentError) as info:
        place(g, device_factory.device_set())
    message = str(info.value)
    assert message.startswith(
        "Cannot assign a device for operation e: Could not satisfy explicit device specification "
        "'/device:TESTDEV:0' because no supported kernel for TESTDEV devices is available.\n"
        "Colocation Debug Info:\n"
    ), message
    assert "\n  e (Exp) /device:TESTDEV:0\n" in message
    assert "\nOp: Exp\nNode attrs: T=DT_FLOAT\nRegistered kernels:\n  device='CPU'; T in [" in message
    assert message.endswith("\n\t [[{{node e}}]]")
    assert info.value.node_def.name == "e"
    soft = devices_of(place(g, device_factory.device_set(), allow_soft_placement=True))
    assert soft["e"] == CPU0


def test_colocation_groups_share_a_device(testdev) -> None:
    g = graph(
        placeholder("x"),
        const("w", device="/device:TESTDEV:1"),
        op("Identity", "w/read", ("w",), T=dtypes.float32, _class=[b"loc:@w"]),
        op("AddV2", "a", ("x", "w/read"), T=dtypes.float32),
        op("Exp", "e", ("x",), T=dtypes.float32, _class=[b"loc:@unrelated", b"not-a-group"]),
    )
    placed = devices_of(place(g, device_factory.device_set()))
    assert placed["w/read"] == placed["w"] == DEV1
    assert placed["a"] == DEV0
    assert placed["e"] == CPU0


def test_colocation_with_incompatible_devices_is_an_error_unless_soft(testdev) -> None:
    g = graph(
        const("w", device="/device:TESTDEV:0"),
        op("Identity", "r", ("w",), device="/device:CPU:0", T=dtypes.float32, _class=[b"loc:@w"]),
    )
    with pytest.raises(errors.InvalidArgumentError) as info:
        place(g, device_factory.device_set())
    assert str(info.value) == (
        "Cannot colocate nodes {{colocation_node r}} and {{colocation_node w}}: Cannot merge devices with "
        "incompatible types: '/device:CPU:0' and '/device:TESTDEV:0'\n\t [[{{node r}}]]"
    )
    placed = devices_of(place(g, device_factory.device_set(), allow_soft_placement=True))
    assert placed["r"] == placed["w"]


def test_generators_follow_consumers_on_one_device(testdev) -> None:
    g = graph(
        placeholder("x", device="/device:CPU:0"),
        const("k"),
        op("AddV2", "a", ("x", "k"), device="/device:TESTDEV:1", T=dtypes.float32),
        const("shared"),
        op("AddV2", "b", ("x", "shared"), device="/device:CPU:0", T=dtypes.float32),
        op("AddV2", "c", ("x", "shared"), device="/device:TESTDEV:1", T=dtypes.float32),
        const("unused"),
    )
    placed = devices_of(place(g, device_factory.device_set()))
    assert placed["k"] == DEV1
    assert placed["shared"] == DEV0  # consumers disagree: the first candidate device
    assert placed["unused"] == DEV0


def test_metadata_ops_and_passthrough_identities_follow_their_input(testdev) -> None:
    g = graph(
        placeholder("x"),
        op("Exp", "e", ("x",), T=dtypes.float32),  # CPU only
        op("Shape", "s", ("e",), T=dtypes.float32, out_type=dtypes.int32),  # has a TESTDEV kernel, stays with e
        op("Identity", "i", ("e",), T=dtypes.float32),  # one edge in, one out, both ends ask for ""
        op("Exp", "j", ("i",), T=dtypes.float32),
        op("Identity", "k", ("e",), T=dtypes.float32),
        op("Relu", "l", ("k",), device="/device:TESTDEV:1", T=dtypes.float32),  # ends ask differently
    )
    placed = devices_of(place(g, device_factory.device_set()))
    assert placed["e"] == placed["s"] == placed["i"] == CPU0
    assert placed["k"] == DEV0


def test_default_device_goes_first_where_allowed(testdev) -> None:
    cpu = device_factory.device_set().client_device
    g = graph(
        placeholder("x"),
        op("Relu", "r", ("x",), T=dtypes.float32),
        op("Relu", "pinned", ("x",), device="/device:TESTDEV:1", T=dtypes.float32),
    )
    placed = devices_of(place(g, device_factory.device_set(), default_device=cpu))
    assert placed["r"] == CPU0
    assert placed["pinned"] == DEV1


def test_assigned_nodes_keep_their_device_and_are_not_logged(testdev) -> None:
    dev1 = device_factory.get_device("/device:TESTDEV:1")
    added = node_def_pb2.NodeDef(name="z", op="AnOpOnlyTheRuntimeKnows", input=["r"])  # no op or kernel lookup
    g = graph(const("c"), op("Relu", "r", ("c",), T=dtypes.float32), added)
    placement = place(
        g, device_factory.device_set(), assigned={"z": dev1}, log_device_placement=True, log_stream=io.StringIO()
    )
    assert devices_of(placement)["z"] == DEV1
    assert not any(line.startswith("z:") for line in placement.log)
