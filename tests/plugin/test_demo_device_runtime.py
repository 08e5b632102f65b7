"""The example device plugin loaded into modtensor the way a user loads it, in a fresh process.

Each test builds examples/plugins/demo_device, then a child process loads it (its device types
"MY_DEVICE" and "GPU" would otherwise stay registered in the test process) and runs programs on
the plugin's devices against the CPU: an MLP and a conv-relu network in eager, ``tf.function`` and
Session mode on both devices, 10,000 asynchronous kernel launches with the plugin's memory back to
its baseline, 4 threads running Sessions at once, and, with the GPU build, a program written for
``/GPU:0`` unchanged, and, built with the fused_optimizer example (``make WITH_FUSED_OPTIMIZER=1``),
the plugin's MatMul + BiasAdd + Relu fusion running as one kernel on the device; variables on the
device, updated by the plugin's kernels through the variable functions of kernels_experimental.h.
(tests/plugin/test_pluggable_device_demo.py covers the in-process details.)
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from .support import REPO

PLUGIN = REPO / "examples" / "plugins" / "demo_device"
SOURCES = sorted(PLUGIN.glob("*.c"))

MODELS = textwrap.dedent(
    """
    import gc, sys, threading
    import numpy as np
    import modtensor as tf
    from modtensor.plugin import load_library
    from modtensor.runtime import device_factory

    load_library(sys.argv[1])
    RNG = np.random.default_rng(3)
    X = RNG.standard_normal((6, 10)).astype(np.float32)
    W1 = RNG.standard_normal((10, 16)).astype(np.float32)
    B1 = RNG.standard_normal((16,)).astype(np.float32)
    W2 = RNG.standard_normal((8, 16)).astype(np.float32)
    IMG = RNG.standard_normal((2, 9, 9, 3)).astype(np.float32)
    K = RNG.standard_normal((3, 3, 3, 5)).astype(np.float32)
    KB = RNG.standard_normal((5,)).astype(np.float32)

    def mlp(x):
        h = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, tf.constant(W1)), tf.constant(B1)))
        return tf.nn.softmax(tf.matmul(h, tf.constant(W2), transpose_b=True) * 0.5 + 1.0)

    def conv_relu(x):
        c = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, tf.constant(K), strides=2, padding="SAME"), tf.constant(KB)))
        return tf.nn.max_pool2d(c, 3, 2, "SAME")

    def close(a, b):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    """
)

MODES = MODELS + textwrap.dedent(
    """
    DT = "MY_DEVICE"
    assert [d.name for d in tf.config.list_physical_devices(DT)] == [
        "/physical_device:MY_DEVICE:0", "/physical_device:MY_DEVICE:1"]
    for model, inp in ((mlp, X), (conv_relu, IMG)):
        ref = model(tf.constant(inp)).numpy()
        traced = tf.function(model)
        for ordinal in (0, 1):
            dev = f"/device:{DT}:{ordinal}"
            with tf.device(dev):
                eager = model(tf.constant(inp))
                graph_fn = traced(tf.constant(inp))
            assert eager.device.endswith(f"device:{DT}:{ordinal}"), eager.device
            close(eager.numpy(), ref)
            close(graph_fn.numpy(), ref)
            g = tf.Graph()
            with g.as_default():
                p = tf.compat.v1.placeholder(tf.float32, inp.shape, name="p")
                with tf.device(dev):
                    out = model(p)
            with tf.compat.v1.Session(graph=g) as sess:
                close(sess.run(out, {p: inp}), ref)
    print("modes ok", flush=True)

    dev = device_factory.get_device(f"/device:{DT}:0")
    dev.synchronize()
    baseline = dev.se_device.allocator_stats()["bytes_in_use"]
    start = np.arange(-32, 32, dtype=np.float32) / 8
    with tf.device(f"/device:{DT}:0"):
        a = tf.constant(start)
        for _ in range(2000):  # 5 launches each: Mul, Mul, AddV2, Relu, Mul (all exact in float32)
            a = tf.nn.relu(a * 3.0 + a * -1.0) * 0.5
    np.testing.assert_array_equal(a.numpy(), np.maximum(start, 0))
    del a
    gc.collect()
    dev.synchronize()
    assert dev.se_device.allocator_stats()["bytes_in_use"] <= baseline, dev.se_device.allocator_stats()
    print("launches ok", flush=True)

    g = tf.Graph()
    with g.as_default():
        p = tf.compat.v1.placeholder(tf.float32, X.shape, name="p")
        outs = []
        for ordinal in (0, 1):
            with tf.device(f"/device:{DT}:{ordinal}"):
                outs.append(mlp(p))
    refs = [mlp(tf.constant(X * k)).numpy() for k in range(3)]
    failures = []

    def work(i):
        try:
            with tf.compat.v1.Session(graph=g) as sess:
                for step in range(20):
                    close(sess.run(outs[i % 2], {p: X * (step % 3)}), refs[step % 3])
        except Exception as e:  # reported below
            failures.append(repr(e))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures
    print("threads ok", flush=True)
    """
)

GPU_PROGRAM = MODELS + textwrap.dedent(
    """
    assert len(tf.config.list_physical_devices("GPU")) == 2
    for model, inp in ((mlp, X), (conv_relu, IMG)):
        ref = model(tf.constant(inp)).numpy()
        with tf.device("/GPU:0"):
            y = model(tf.constant(inp))
        assert y.device.endswith("device:GPU:0"), y.device
        close(y.numpy(), ref)
        with tf.device("/gpu:1"):
            close(tf.function(model)(tf.constant(inp)).numpy(), ref)
    print("gpu ok", flush=True)
    """
)


FUSED_PROGRAM = textwrap.dedent(
    """
    import logging, sys
    import numpy as np
    import modtensor as tf
    from modtensor.framework.protos import config_pb2, rewriter_config_pb2
    from modtensor.grappler.plugin_optimizers import plugin_optimizers
    from modtensor.plugin.loader import load_native_library

    RC = rewriter_config_pb2.RewriterConfig
    FUSED = "MyFusedMatMulBiasRelu"
    record = load_native_library(sys.argv[1], origin="load_library", raise_errors=True)
    assert record.entry_points == {"SE_InitPlugin": "called", "TF_InitKernel": "called", "TF_InitGraph": "called"}
    assert record.optimizers == ["MY_DEVICE"] and FUSED in record.ops, (record.optimizers, record.ops)
    assert f"{FUSED} (T in [DT_FLOAT])" in record.kernels_by_device()["MY_DEVICE"]
    (optimizer,) = plugin_optimizers(["MY_DEVICE"])
    assert dict(optimizer.configs) == {"remapping": 1}, optimizer.configs  # TF_TriState_Off
    assert plugin_optimizers(["CPU"]) == []

    RNG = np.random.default_rng(5)
    X = RNG.standard_normal((4, 6)).astype(np.float32)
    W = RNG.standard_normal((6, 5)).astype(np.float32)
    B = RNG.standard_normal((5,)).astype(np.float32)

    def dense(x):
        return tf.nn.relu(tf.nn.bias_add(tf.matmul(x, tf.constant(W)), tf.constant(B)), name="y")

    cpu = dense(tf.constant(X)).numpy()
    g = tf.Graph()
    with g.as_default():
        p = tf.compat.v1.placeholder(tf.float32, X.shape, name="p")
        with tf.device("/device:MY_DEVICE:0"):
            y = dense(p)
        with tf.device("/device:CPU:0"):
            y_cpu = dense(p)  # placed on the CPU: the plugin leaves it alone (unscoped, it would go to the device)

    def run(rewrite):
        cfg = config_pb2.ConfigProto()
        if rewrite is not None:
            cfg.graph_options.rewrite_options.CopyFrom(rewrite)
        with tf.compat.v1.Session(graph=g, config=cfg) as sess:
            meta = config_pb2.RunMetadata()
            opts = config_pb2.RunOptions(output_partition_graphs=True)
            out, out_cpu = sess.run([y, y_cpu], {p: X}, options=opts, run_metadata=meta)
        np.testing.assert_allclose(out_cpu, cpu, rtol=1e-5, atol=1e-6)
        return out, {n.name: (n.op, n.device.rsplit("/", 1)[-1]) for g in meta.partition_graphs for n in g.node}

    class Warnings(logging.Handler):
        def __init__(self):
            super().__init__(logging.WARNING)
            self.lines = []

        def emit(self, record):
            self.lines.append(record.getMessage())

    warnings = Warnings()
    logging.getLogger("modtensor.grappler").addHandler(warnings)
    fused, ops = run(None)
    assert ops["y"] == (FUSED, "device:MY_DEVICE:0"), ops
    assert "MatMul" not in ops and "BiasAdd" not in ops and ops["y_1"][0] == "Relu", ops
    assert any("remapping" in w and sys.argv[1] in w for w in warnings.lines), warnings.lines
    warnings.lines.clear()
    for rewrite in (RC(use_plugin_optimizers=RC.OFF), RC(use_plugin_optimizers=RC.OFF, remapping=RC.OFF)):
        plain, ops = run(rewrite)
        assert ops["y"] == ("Relu", "device:MY_DEVICE:0") and ops["MatMul"] == ("MatMul", "device:MY_DEVICE:0"), ops
        assert FUSED not in {op for op, _ in ops.values()}
        np.testing.assert_allclose(plain, cpu, rtol=1e-5, atol=1e-6)
    assert not any("remapping" in w for w in warnings.lines), warnings.lines  # off: its config is ignored too
    np.testing.assert_allclose(fused, cpu, rtol=1e-5, atol=1e-6)
    with tf.device("/device:MY_DEVICE:1"):  # a tf.function graph goes through the same optimizer
        np.testing.assert_allclose(tf.function(dense)(tf.constant(X)).numpy(), cpu, rtol=1e-5, atol=1e-6)
    print("fused ok", flush=True)
    """
)


VARIABLES = textwrap.dedent(
    """
    import io, sys
    import numpy as np
    import modtensor as tf
    from modtensor.plugin import load_library
    from modtensor.runtime.pluggable_device import DeviceBuffer

    load_library(sys.argv[1])
    with tf.device("/MY_DEVICE:0"):
        v = tf.Variable([1.0, 2.0, 3.0])
    var = v.handle._value[()].resource
    assert v.device.endswith("device:MY_DEVICE:0") and v.handle.device == v.device
    assert isinstance(var.tensor, DeviceBuffer)  # the value lives in the device's memory
    v.assign_add([1.0, 1.0, 1.0])  # the plugin's AssignAddVariableOp, enqueued on the device stream
    held = v.read_value()
    v.assign_sub([0.5, 0.5, 0.5])  # the read holds the buffer: the plugin's copyFunc copies it first
    np.testing.assert_array_equal(held.numpy(), [2.0, 3.0, 4.0])
    np.testing.assert_array_equal(v.numpy(), [1.5, 2.5, 3.5])
    assert isinstance(var.tensor, DeviceBuffer)
    opt = tf.optimizers.SGD(0.5)  # ResourceApplyGradientDescent of the plugin
    opt.apply_gradients([(tf.constant([1.0, 2.0, 3.0]), v)])
    np.testing.assert_array_equal(v.numpy(), [1.0, 1.5, 2.0])

    @tf.function
    def step(g):
        v.assign_add(g)
        opt.apply_gradients([(g, v)])
        return v.read_value() * 2

    np.testing.assert_array_equal(step(tf.constant([1.0, 1.0, 1.0])).numpy(), [3.0, 4.0, 5.0])
    np.testing.assert_array_equal(v.numpy(), [1.5, 2.0, 2.5])
    assert tf.Variable(3).device.endswith("CPU:0")  # no int32 VarHandleOp on devices, as TF's DEFAULT kernel

    g = tf.Graph()
    with g.as_default():
        with tf.compat.v1.device("/MY_DEVICE:0"):
            w = tf.compat.v1.Variable([1.0, 2.0], name="w")
            update = w.assign_add([1.0, 1.0], read_value=False)
        log = io.StringIO()
        real = sys.stdout
        sys.stdout = log
        try:
            sess = tf.compat.v1.Session(config=tf.compat.v1.ConfigProto(log_device_placement=True))
            sess.run(w.initializer)
            sess.run(update)
            value = sess.run(w)
        finally:
            sys.stdout = real
        np.testing.assert_array_equal(value, [2.0, 3.0])
        assert "AssignAddVariableOp: (AssignAddVariableOp): /job:localhost/replica:0/task:0/device:MY_DEVICE:0" in (
            log.getvalue()
        ), log.getvalue()
    print("variables ok", flush=True)
    """
)


def build(build_plugin, device_type: str) -> Path:
    """The plugin built for ``device_type``."""
    flags = ["-std=c11", "-D_GNU_SOURCE", "-fvisibility=hidden", f"-DDEMO_DEVICE_TYPE={device_type}", "-lm"]
    return build_plugin(f"demo_device_{device_type.lower()}", sources=SOURCES, flags=flags)


def run_child(script: str, plugin: Path) -> str:
    """Run ``script`` in a fresh interpreter with the plugin's path; returns its stdout after it succeeded."""
    done = subprocess.run(
        [sys.executable, "-c", script, str(plugin)], capture_output=True, text=True, timeout=240, cwd=REPO
    )
    assert done.returncode == 0, done.stdout + done.stderr[-6000:]
    return done.stdout


def test_models_sessions_threads_and_launches_on_my_device(build_plugin):
    out = run_child(MODES, build(build_plugin, "MY_DEVICE"))
    assert out.split("\n")[:3] == ["modes ok", "launches ok", "threads ok"]


def test_variables_live_and_update_on_my_device(build_plugin):
    """Eager, tf.function and Session variables on MY_DEVICE: the plugin's update kernels, copy-on-write."""
    assert run_child(VARIABLES, build(build_plugin, "MY_DEVICE")).strip() == "variables ok"


def test_a_gpu_program_runs_unchanged_on_the_gpu_build(build_plugin):
    assert run_child(GPU_PROGRAM, build(build_plugin, "GPU")).strip() == "gpu ok"


def test_main_job_demo_runs_every_golden_model_on_the_plugin_device(build_plugin):
    """`modtensor demo` (the README's main job) with the plugin: every model on CPU, then on MY_DEVICE:0."""
    script = "import sys; from modtensor.cli.main import main; sys.exit(main(['demo', '--device-plugin', sys.argv[1]]))"
    out = run_child(script, build(build_plugin, "MY_DEVICE"))
    device_part = out.split("== device plugin", 1)[1]
    assert "/physical_device:MY_DEVICE:0, /physical_device:MY_DEVICE:1" in device_part
    lines = [line for line in device_part.splitlines() if line.endswith("[ok]")]
    models = json.loads((REPO / "examples" / "models" / "manifest.json").read_text())["models"]
    assert len(lines) == len(models) and all("on MY_DEVICE" in line for line in lines), device_part
    assert "FAILED" not in out


def test_the_fused_optimizer_built_into_the_plugin_runs_its_fused_kernel_on_the_device(tmp_path):
    """`make WITH_FUSED_OPTIMIZER=1`: one library with device, kernels and optimizer; on/off give the CPU numbers."""
    if shutil.which("make") is None or shutil.which("gcc") is None:
        pytest.skip("make and gcc are needed to build the plugin")
    out = tmp_path / "libdemo_fused.so"
    cmd = ["make", "-s", "-C", str(PLUGIN), "WITH_FUSED_OPTIMIZER=1", f"OUT={out}", f"PYTHON={sys.executable}"]
    built = subprocess.run([*cmd, "CFLAGS=-O1 -Werror"], capture_output=True, text=True, timeout=120)
    assert built.returncode == 0, built.stdout + built.stderr
    assert run_child(FUSED_PROGRAM, out).strip() == "fused ok"


@pytest.fixture(autouse=True)
def _sources_present():
    if not SOURCES:
        pytest.skip("examples/plugins/demo_device is not there")
