"""A StreamExecutor plugin as a device: eager, function and Session runs, memory statistics, out of memory."""

from __future__ import annotations

import ctypes
import gc
import json
import logging

import numpy as np
import pytest

import modtensor as tf
from modtensor.framework import errors
from modtensor.plugin import load_library
from modtensor.plugin.loader import unload_native_library
from modtensor.runtime import device_factory
from modtensor.runtime.pluggable_device import DeviceBuffer, PluggableDevice

from .support import CSRC

X = np.array([[1.5, -2.0, 0.25], [-0.5, 3.0, -4.0]], np.float32)


@pytest.fixture(scope="module")
def hostdev(build_plugin):
    """tests/plugin/csrc/se_host.c with AddV2/Relu kernels, loaded as device type HOSTDEV (BFC allocator)."""
    path = build_plugin("se_kernels", sources=[CSRC / "se_host.c"], flags=["-DSE_KERNELS"])
    flags = ["-DSE_NO_BFC", '-DSE_TYPE="HOSTRAW"', '-DSE_NAME="HOSTRAW_PLATFORM"']
    nobfc = build_plugin("se_nobfc", sources=[CSRC / "se_host.c"], flags=flags)
    device_factory.reset_devices_for_testing()
    load_library(path)
    load_library(nobfc)
    load_library(_no_host_memory(build_plugin))
    yield path
    unload_native_library(_no_host_memory(build_plugin))
    unload_native_library(nobfc)
    unload_native_library(path)
    device_factory.reset_devices_for_testing()


def _no_host_memory(build_plugin):
    """se_host.c without host_memory_allocate/deallocate, as device type HOSTNOPIN (loaded by ``hostdev``)."""
    flags = ["-DSE_NO_HOST_MEMORY", '-DSE_TYPE="HOSTNOPIN"', '-DSE_NAME="HOSTNOPIN_PLATFORM"']
    return build_plugin("se_nohostmem", sources=[CSRC / "se_host.c"], flags=flags)


def expected(x: np.ndarray) -> np.ndarray:
    return np.maximum(x + x, 0)


def test_devices_are_listed_with_the_plugins_details(hostdev):
    physical = tf.config.list_physical_devices("HOSTDEV")
    assert [p.name for p in physical] == ["/physical_device:HOSTDEV:0", "/physical_device:HOSTDEV:1"]
    assert tf.config.experimental.get_device_details(physical[1]) == {
        "device_name": "HostDev Test Accelerator",
        "device_vendor": "modtensor tests",
        "pci_bus_id": "0000:00:02.0",
    }
    device = device_factory.get_device("/device:HOSTDEV:1")
    assert isinstance(device, PluggableDevice) and not device.is_host
    assert device.attributes.physical_device_desc == (
        "device: 1, name: HostDev Test Accelerator, pci bus id: 0000:00:02.0"
    )
    assert device.compute_stream and len({device.compute_stream, device.h2d_stream, device.d2h_stream}) == 3


@pytest.mark.parametrize("ordinal", [0, 1])
def test_eager_ops_run_on_the_device_and_keep_results_there(hostdev, ordinal, caplog, monkeypatch):
    from modtensor.runtime import eager

    monkeypatch.setattr(eager, "_SOFT_PLACED", set())
    with tf.device(f"/device:HOSTDEV:{ordinal}"):
        x = tf.constant(X)
        y = tf.nn.relu(x + x)
    assert y.device.endswith(f"device:HOSTDEV:{ordinal}")
    assert isinstance(y._value, DeviceBuffer) and y._value.device_address != 0
    np.testing.assert_array_equal(y.numpy(), expected(X))
    with caplog.at_level(logging.INFO, logger="modtensor.placement"), tf.device(f"/device:HOSTDEV:{ordinal}"):
        t = tf.math.tanh(x)  # no Tanh kernel on the device: soft placement runs it on CPU
        tf.math.tanh(x)
    assert t.device.endswith("device:CPU:0")
    np.testing.assert_allclose(t.numpy(), np.tanh(X), rtol=1e-6)
    # logged once per op type and device type
    assert caplog.text.count("Op Tanh has no kernel on HOSTDEV; soft placement runs it on ") == 1


def test_scalars_keep_their_rank_on_the_device(hostdev):
    with tf.device("/device:HOSTDEV:0"):
        a = tf.constant(3.0)
        b = a + a
    assert a.device.endswith("HOSTDEV:0") and a.shape == () and b.shape == ()
    assert b.numpy().shape == () and float(b) == 6.0


def test_short_device_name_of_a_plugin_type_parses_as_in_tensorflow(hostdev):
    with tf.device("/HOSTDEV:1"):  # TF accepts /TYPE:N for registered pluggable device types
        y = tf.nn.relu(tf.constant(X) + tf.constant(X))
    assert y.device == "/job:localhost/replica:0/task:0/device:HOSTDEV:1"
    np.testing.assert_array_equal(y.numpy(), expected(X))


def test_function_and_session_give_the_cpu_numbers(hostdev):
    @tf.function
    def f(a):
        with tf.device("/device:HOSTDEV:1"):
            return tf.nn.relu(a + a)

    np.testing.assert_array_equal(f(tf.constant(X)).numpy(), expected(X))

    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 3], name="x")
        with tf.device("/device:HOSTDEV:0"):
            y = tf.nn.relu(x + tf.constant(1.0), name="y")
        z = y * 2.0
    options = tf.compat.v1.RunOptions(output_partition_graphs=True)
    metadata = tf.compat.v1.RunMetadata()
    with tf.compat.v1.Session(graph=graph) as sess:
        out = sess.run(z, {x: X}, options=options, run_metadata=metadata)
    np.testing.assert_array_equal(out, np.maximum(X + 1.0, 0) * 2.0)
    devices = {n.device.rsplit("/", 1)[-1] for g in metadata.partition_graphs for n in g.node if n.op == "Relu"}
    assert devices == {"device:HOSTDEV:0"}


@pytest.mark.parametrize("device_type", ["HOSTDEV", "HOSTRAW"])
def test_memory_returns_to_baseline_after_tensors_are_freed(hostdev, device_type):
    device = device_factory.get_device(f"/device:{device_type}:0")
    device.synchronize()
    baseline = device.allocator.get_stats().bytes_in_use
    values = [device.from_host(np.full((64,), i, np.float32)) for i in range(10)]
    assert device.allocator.get_stats().bytes_in_use >= baseline + 10 * 256
    assert [int(device.to_host(v)[0]) for v in values] == list(range(10))
    del values
    gc.collect()
    device.synchronize()
    assert device.allocator.get_stats().bytes_in_use == baseline
    if device_type == "HOSTRAW":  # the plugin's own allocator: its own count agrees
        assert device.se_device.allocator_stats()["bytes_in_use"] == baseline


@pytest.mark.parametrize("device_type", ["HOSTDEV", "HOSTRAW"])
def test_out_of_memory_is_resource_exhausted_and_the_process_goes_on(hostdev, device_type):
    big = np.zeros((512, 1024), np.float32)  # 2 MiB: the device has 1 MiB
    with tf.device(f"/device:{device_type}:0"), pytest.raises(errors.ResourceExhaustedError) as info:
        tf.constant(big)
    message = info.value.message
    assert "OOM when allocating tensor with shape[512,1024] and type float on " in message
    assert f"device:{device_type}:0 by allocator {device_type}_0_" in message
    assert "ran out of memory" in message
    with tf.device("/device:HOSTDEV:0"):
        np.testing.assert_array_equal(tf.nn.relu(tf.constant(X)).numpy(), np.maximum(X, 0))


def test_cli_shows_the_platform_its_devices_and_allocator(hostdev, capsys):
    from modtensor.cli.main import main

    main(["plugins", "--load", str(hostdev)])  # exit code 1 if another test's bad plugin is listed
    out = capsys.readouterr().out
    block = out[out.index(f"  path: {hostdev}") :]
    assert "  platform: HOSTDEV_PLATFORM (device type HOSTDEV)\n" in block
    assert "    allocator: BFC over the plugin's allocate\n" in block
    assert (
        "    /physical_device:HOSTDEV:1: hardware name: HostDev Test Accelerator, vendor: modtensor tests, "
        "pci bus id: 0000:00:02.0; memory growth off (reserves the device's memory up front)"
    ) in block
    main(["plugins", "--json"])
    listed = {p["path"]: p for p in json.loads(capsys.readouterr().out)}
    raw = next(p for path, p in listed.items() if path.endswith("se_nobfc.so"))["platform"]
    assert (raw["type"], raw["allocator"], len(raw["devices"])) == ("HOSTRAW", "the plugin's own", 2)


def _host_memory_counts(path) -> tuple[int, int]:
    """(host_memory_allocate calls, blocks still live) as tests/plugin/csrc/se_host.c counts them."""
    counts = ctypes.CDLL(str(path)).se_host_memory_counts
    allocs, live = ctypes.c_int64(), ctypes.c_int64()
    counts(ctypes.byref(allocs), ctypes.byref(live))
    return allocs.value, live.value


def _cold_staging(devices: list[PluggableDevice]) -> None:
    """Wait for the devices and give their free staging buffers back to the plugin."""
    for device in devices:
        device.synchronize()
        with device._lock:
            device.staging.clear()


def test_copies_stage_through_a_pool_of_the_plugins_host_memory(hostdev):
    devices = [device_factory.get_device(f"/device:HOSTDEV:{i}") for i in (0, 1)]
    device = devices[0]
    _cold_staging(devices)
    allocs, live = _host_memory_counts(hostdev)
    assert live == 0  # nothing staged is outstanding: memory back to the plugin's baseline
    baseline = device.allocator.get_stats().bytes_in_use
    values = []
    for i in range(20):  # 12,000 bytes each: one 16 KiB staging buffer, reused by every copy in and out
        host = np.arange(3000, dtype=np.float32) * i
        values.append(device.from_host(host))
        np.testing.assert_array_equal(device.to_host(values[-1]), host)
    assert _host_memory_counts(hostdev) == (allocs + 1, 1)
    assert (device.staging.live, device.staging.num_cached) == (1, 1)
    with tf.device("/device:HOSTDEV:0"):
        np.testing.assert_array_equal(tf.nn.relu(tf.constant(X)).numpy(), np.maximum(X, 0))
    del values
    gc.collect()
    _cold_staging(devices)
    assert _host_memory_counts(hostdev)[1] == 0
    assert device.allocator.get_stats().bytes_in_use == baseline


def test_without_the_plugins_host_memory_functions_copies_use_plain_host_arrays(hostdev, build_plugin):
    device = device_factory.get_device("/device:HOSTNOPIN:0")
    assert device.staging is None
    assert any("host_memory_allocate, host_memory_deallocate" in n for n in device.platform.notes)
    host = np.linspace(-1, 1, 300, dtype=np.float32).reshape(3, 100)
    np.testing.assert_array_equal(device.to_host(device.from_host(host)), host)
    assert _host_memory_counts(_no_host_memory(build_plugin)) == (0, 0)
