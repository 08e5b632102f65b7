"""A device written in Python (examples/python_device: NUMPY_DEVICE) in eager mode, in sessions and in config."""

from __future__ import annotations

import gc
import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import modtensor as mt
from modtensor.framework import op_def_library
from modtensor.framework.graph import Graph
from modtensor.framework.op_registry import global_registry
from modtensor.framework.protos import config_pb2, node_def_pb2
from modtensor.runtime import context as runtime_context
from modtensor.runtime import device_factory, eager
from modtensor.runtime.device import DeviceAttributes
from modtensor.runtime.kernel_registry import global_kernel_registry
from modtensor.runtime.python_device import PythonDevice, register_python_device
from modtensor.runtime.session import Session

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "python_device" / "numpy_device.py"
PREFIX = "/job:localhost/replica:0/task:0/device:"
CPU0 = PREFIX + "CPU:0"


def _load_example() -> ModuleType:
    name = "modtensor_example_numpy_device"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, EXAMPLE)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture
def numpy_device() -> Iterator[ModuleType]:
    """NUMPY_DEVICE registered with two devices; everything undone afterwards."""
    global_registry()
    device_factory.reset_devices_for_testing(keep_factories=False)
    eager.clear_kernel_cache()
    runtime_context.enable_eager_execution()
    module = _load_example()
    registration = module.register(count=2)
    try:
        yield module
    finally:
        registration.unregister()
        device_factory.reset_devices_for_testing(keep_factories=False)
        eager.clear_kernel_cache()
        runtime_context.set_eager_device_scope(None)


def numpy_devices() -> list:
    return device_factory.device_set().devices_of_type("NUMPY_DEVICE")


def test_devices_are_listed_with_their_details(numpy_device: ModuleType) -> None:
    physical = mt.config.list_physical_devices("NUMPY_DEVICE")
    assert [d.name for d in physical] == ["/physical_device:NUMPY_DEVICE:0", "/physical_device:NUMPY_DEVICE:1"]
    assert mt.config.experimental.get_device_details(physical[1]) == {"device_name": "numpy"}
    assert [d.name for d in mt.config.list_logical_devices("NUMPY_DEVICE")] == [
        "/device:NUMPY_DEVICE:0",
        "/device:NUMPY_DEVICE:1",
    ]
    assert device_factory.device_types()[0] == "NUMPY_DEVICE"  # pluggable priority 220 outranks CPU
    identity = node_def_pb2.NodeDef(name="i", op="Identity", input=["x"])
    identity.attr["T"].type = mt.float32.as_datatype_enum
    served = global_kernel_registry().find_kernel(identity, global_registry().lookup("Identity").op_def, "NUMPY_DEVICE")
    assert served.kernel_def.device_type == "DEFAULT"  # the runtime's pass-through kernels serve every device, as TF's


def _kernels_for(device_type: str) -> list:
    registry = global_kernel_registry()
    return [r for op in registry.ops() for r in registry.kernels_for_op(op) if r.kernel_def.device_type == device_type]


def test_eager_ops_run_on_the_device_and_copy_back_on_numpy(numpy_device: ModuleType) -> None:
    x_host = np.array([[1.0, -2.0], [3.0, 4.0]], np.float32)
    w_host = np.array([[0.5, -1.0], [2.0, 1.0]], np.float32)
    with mt.device("/NUMPY_DEVICE:1"):
        x = mt.constant(x_host)
        w = mt.constant(w_host)
        y = mt.nn.relu(mt.matmul(x, w, transpose_b=True) + x)
    assert y.device == PREFIX + "NUMPY_DEVICE:1"
    assert isinstance(y._value, numpy_device.NumpyBuffer)  # device memory, not a host array
    device = numpy_devices()[1]
    before = device.copies_out
    np.testing.assert_allclose(y.numpy(), np.maximum(x_host @ w_host.T + x_host, 0))
    assert device.copies_out == before + 1
    assert numpy_devices()[0].copies_in == 0  # nothing touched NUMPY_DEVICE:0


def test_soft_placement_falls_back_to_cpu_for_an_op_without_a_kernel(numpy_device: ModuleType) -> None:
    with mt.device("/NUMPY_DEVICE:0"):
        x = mt.constant([[1.0, -2.0]])
        total = mt.reduce_sum(x)  # no Sum kernel on NUMPY_DEVICE
        doubled = x + x
    assert total.device == CPU0 and doubled.device == PREFIX + "NUMPY_DEVICE:0"
    assert float(total) == -1.0
    assert numpy_devices()[0].copies_out >= 1  # x was copied to the host for the CPU kernel


def test_session_partitions_the_graph_and_transfers_between_devices(numpy_device: ModuleType, capsys) -> None:
    apply = op_def_library.apply_op_outputs
    graph = Graph()
    with graph.as_default():
        x = apply("Placeholder", name="x", dtype="float32", shape=[None, 2])
        with graph.device("/device:NUMPY_DEVICE:0"):
            w = op_def_library.constant(np.array([[1.0], [-1.0]], np.float32), name="w")
            mm = apply("MatMul", name="mm", a=x, b=w)
            relu = apply("Relu", name="relu", features=mm)
        total = apply("Sum", name="total", input=relu, reduction_indices=op_def_library.constant([0, 1], name="axes"))
    config = config_pb2.ConfigProto(log_device_placement=True)
    with Session(graph=graph, config=config) as sess:
        feed = np.array([[3.0, 1.0], [1.0, 3.0]], np.float32)
        result_relu, result_total = sess.run([relu, total], {x: feed})
    np.testing.assert_array_equal(result_relu, [[2.0], [0.0]])
    assert float(result_total) == 2.0
    log = capsys.readouterr().out
    assert f"mm: (MatMul): {PREFIX}NUMPY_DEVICE:0" in log and f"total: (Sum): {CPU0}" in log
    device = numpy_devices()[0]
    assert device.copies_in >= 1 and device.copies_out >= 1  # the feed went in, relu came out


def test_memory_info_follows_live_buffers(numpy_device: ModuleType) -> None:
    info = mt.config.experimental.get_memory_info
    baseline = info("NUMPY_DEVICE:0")["current"]
    with mt.device("/NUMPY_DEVICE:0"):
        x = mt.constant(np.ones((256,), np.float32))
        y = x + x
    assert info("/device:NUMPY_DEVICE:0")["current"] == baseline + 2 * 1024
    assert info("NUMPY_DEVICE:1")["current"] == 0
    del x, y
    gc.collect()
    stats = info("NUMPY_DEVICE:0")
    assert stats["current"] == baseline and stats["peak"] >= baseline + 2048
    mt.config.experimental.reset_memory_stats("NUMPY_DEVICE:0")
    assert info("NUMPY_DEVICE:0")["peak"] == baseline


def test_a_device_class_must_define_its_copies(numpy_device: ModuleType) -> None:
    class Incomplete(PythonDevice):
        pass

    attributes = DeviceAttributes(PREFIX + "INCOMPLETE:0", "INCOMPLETE", 1 << 20)
    with pytest.raises(NotImplementedError, match="Incomplete must define from_host"):
        Incomplete(attributes).from_host(np.zeros(1))


def test_a_factory_returning_a_wrong_device_is_reported_and_skipped(numpy_device: ModuleType) -> None:
    device_factory.reset_devices_for_testing()
    registration = register_python_device("BROKEN_DEVICE", lambda attributes, index: object())
    try:
        with pytest.warns(RuntimeWarning, match="BROKEN_DEVICE.*must return a Device of type 'BROKEN_DEVICE'"):
            devices = device_factory.device_set()
        assert not devices.devices_of_type("BROKEN_DEVICE") and devices.devices_of_type("NUMPY_DEVICE")
    finally:
        device_factory.reset_devices_for_testing()
        registration.unregister()
    assert "BROKEN_DEVICE" not in device_factory.device_types()
    assert not _kernels_for("BROKEN_DEVICE")
