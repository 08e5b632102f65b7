"""The example device plugin (examples/plugins/demo_device) as a device: asynchronous streams, its kernels, memory."""

from __future__ import annotations

import gc
import threading

import numpy as np
import pytest

import modtensor as tf
from modtensor.plugin import load_library
from modtensor.plugin.loader import unload_native_library
from modtensor.runtime import device_factory

from .support import REPO

DEMO = REPO / "examples" / "plugins" / "demo_device"
SOURCES = [
    DEMO / f for f in ("platform.c", "stream_executor.c", "stream.c", "arena.c", "kernels.c", "variable_kernels.c")
]


@pytest.fixture(scope="module")
def demo(build_plugin):
    """The demo plugin built with device type DEMOTEST (its own platform name), loaded, unloaded at the end."""
    if not all(s.is_file() for s in SOURCES):
        pytest.skip("examples/plugins/demo_device is not there")
    flags = ["-std=c11", "-D_GNU_SOURCE", "-DDEMO_DEVICE_TYPE=DEMOTEST", '-DDEMO_PLATFORM_NAME="DEMO_TEST"', "-lm"]
    path = build_plugin("demo_device_test", sources=SOURCES, flags=flags)
    device_factory.reset_devices_for_testing()
    load_library(path)
    yield path
    unload_native_library(path)
    device_factory.reset_devices_for_testing()


RNG = np.random.default_rng(7)
X = RNG.standard_normal((4, 8)).astype(np.float32)
W = RNG.standard_normal((8, 5)).astype(np.float32)
B = RNG.standard_normal((5,)).astype(np.float32)
IMG = RNG.standard_normal((2, 8, 8, 3)).astype(np.float32)
K = RNG.standard_normal((3, 3, 3, 4)).astype(np.float32)


def mlp():
    h = tf.nn.relu(tf.nn.bias_add(tf.matmul(tf.constant(X), tf.constant(W)), tf.constant(B)))
    return tf.nn.softmax(h * h + h)


def conv_relu():
    c = tf.nn.relu(tf.nn.conv2d(tf.constant(IMG), tf.constant(K), strides=1, padding="SAME"))
    return tf.nn.max_pool2d(c, 2, 2, "VALID")


@pytest.mark.parametrize("model", [mlp, conv_relu])
def test_models_give_the_cpu_numbers_on_both_demo_devices(demo, model):
    reference = model().numpy()
    for ordinal in (0, 1):
        with tf.device(f"/device:DEMOTEST:{ordinal}"):
            out = model()
        assert out.device.endswith(f"device:DEMOTEST:{ordinal}")
        np.testing.assert_allclose(out.numpy(), reference, rtol=1e-5, atol=1e-6)


def test_many_launches_and_memory_back_to_baseline(demo):
    device = device_factory.get_device("/device:DEMOTEST:0")
    device.synchronize()
    baseline = device.allocator.get_stats().bytes_in_use
    start = np.linspace(-1, 1, 256, dtype=np.float32)
    with tf.device("/device:DEMOTEST:0"):
        a = tf.constant(start)
        for _ in range(300):  # 900 asynchronous launches; doubling and halving are exact
            a = tf.nn.relu(a + a) * 0.5
    np.testing.assert_array_equal(a.numpy(), np.maximum(start, 0))
    del a
    gc.collect()
    device.synchronize()
    assert device.allocator.get_stats().bytes_in_use == baseline
    assert device.se_device.allocator_stats()["bytes_in_use"] == baseline  # the plugin's arena agrees


def test_four_threads_run_sessions_on_the_device_at_once(demo):
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 8], name="x")
        with tf.device("/device:DEMOTEST:1"):
            y = tf.nn.relu(tf.matmul(x, tf.constant(np.eye(8, dtype=np.float32) * 0.5)) + 1.0)
    sess = tf.compat.v1.Session(graph=graph)
    failures: list[BaseException] = []

    def work(seed: int) -> None:
        rng = np.random.default_rng(seed)
        try:
            for _ in range(60):
                a = rng.standard_normal((4, 8)).astype(np.float32)
                np.testing.assert_allclose(sess.run(y, {x: a}), np.maximum(a * 0.5 + 1.0, 0), rtol=1e-6)
        except BaseException as e:  # reported below
            failures.append(e)

    threads = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a session thread hung"
    assert failures == []


def test_copies_between_devices_of_the_platform_use_memcpy_dtod_and_free_after_the_copy(demo, monkeypatch):
    first, second = (device_factory.get_device(f"/device:DEMOTEST:{i}") for i in (0, 1))
    for device in (first, second):
        device.synchronize()
    baselines = [d.allocator.get_stats().bytes_in_use for d in (first, second)]
    calls: list[int] = []
    dtod = first.se_device.memcpy_dtod

    def counting(stream, dst, src, num_bytes):
        calls.append(num_bytes)
        return dtod(stream, dst, src, num_bytes)

    monkeypatch.setattr(first.se_device, "memcpy_dtod", counting)
    monkeypatch.setattr(first, "to_host", None)  # a copy through host memory would fail
    start = np.linspace(-1, 1, 1024, dtype=np.float32)
    with tf.device("/device:DEMOTEST:0"):
        a = tf.constant(start)
        for _ in range(20):  # a queue of asynchronous work the copy must wait for
            a = a + a
    with tf.device("/device:DEMOTEST:1"):
        b = tf.nn.relu(a * 0.5)
    del a  # dropped while the copy may still be reading it
    assert calls == [start.nbytes] and b.device.endswith("DEMOTEST:1")
    np.testing.assert_array_equal(b.numpy(), np.maximum(start, 0) * 2.0**19)
    del b
    gc.collect()
    second.synchronize()  # past the copy: the source buffer goes back to the first device
    first.synchronize()
    assert [d.allocator.get_stats().bytes_in_use for d in (first, second)] == baselines


def test_copies_stage_through_the_plugins_host_memory_while_the_streams_run_ahead(demo):
    """The demo's streams are asynchronous: a staging buffer is reused only after its copy's event completed."""
    device = device_factory.get_device("/device:DEMOTEST:0")
    device.synchronize()
    with device._lock:
        device.staging.clear()
    baseline = device.allocator.get_stats().bytes_in_use
    allocations = device.staging.allocations
    hosts = [np.full((50, 40), i, np.float32) for i in range(64)]
    values = [device.from_host(h) for h in hosts]  # enqueued back to back: several buffers in flight
    with tf.device("/device:DEMOTEST:0"):
        doubled = [tf.add(tf.constant(h), tf.constant(h)) for h in hosts[:8]]  # eager copies stage too
    staged_in = device.staging.allocations
    assert staged_in > allocations  # the copies in took staging buffers
    for h, v in zip(hosts, values, strict=True):
        np.testing.assert_array_equal(device.to_host(v), h)
    for i, d in enumerate(doubled):
        np.testing.assert_array_equal(d.numpy(), np.full((50, 40), 2 * i, np.float32))
    # The first copy out waits for every copy in (the compute stream waited for them): from
    # then on their buffers are free again, so the copies out need at most one new buffer.
    assert device.staging.allocations - staged_in <= 1
    used = device.staging.allocations - allocations
    del values, doubled, d, v
    gc.collect()
    device.synchronize()
    assert device.staging.live == device.staging.num_cached == used  # every buffer is back in the pool
    assert device.allocator.get_stats().bytes_in_use == baseline
