"""The example device plugin (examples/plugins/demo_device) in C, without modtensor's runtime.

A standalone harness (tests/plugin/demo_device/harness.c) dlopens the plugin and drives it as a
runtime would: SE_InitPlugin with the registration params filled in, both devices, streams run by
worker threads, asynchronous copies with events, host-callback order, timers, allocator stats
returning to their baseline, host pointers refused as device pointers, 10,000 enqueued operations,
4 host threads at once, teardown; then every kernel against TensorFlow's numbers (goldens.h). The
harness prints ``ok <checks>``; it is built plainly, through the plugin's Makefile for the GPU
build, and under AddressSanitizer + UBSan (with leak detection) and ThreadSanitizer.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .support import INCLUDE, REPO

PLUGIN = REPO / "examples" / "plugins" / "demo_device"
HARNESS = Path(__file__).resolve().parent / "demo_device"
SOURCES = sorted(PLUGIN.glob("*.c"))
COMMON = ["-std=c11", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}"]
SANITIZERS = {
    "address": ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer"],
    "thread": ["-fsanitize=thread"],
}

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")


def compile_all(commands: list[list[str]]) -> None:
    """Run the gcc commands side by side, failing the test with the diagnostics of any that fails."""
    running = [(args, subprocess.Popen(["gcc", *args], stderr=subprocess.PIPE, text=True)) for args in commands]
    for args, proc in running:
        _, err = proc.communicate()
        assert proc.returncode == 0, f"gcc {' '.join(args)}\n{err}"


def build(out: Path, device_type: str, flags: list[str]) -> tuple[Path, Path]:
    """The plugin and the harness built with ``flags``; returns (plugin.so, harness)."""
    plugin = out / f"demo_device_{device_type}.so"
    harness = out / "harness"
    plugin_cmd = [*COMMON, *flags, "-fPIC", "-fvisibility=hidden", "-shared", f"-DDEMO_DEVICE_TYPE={device_type}"]
    plugin_cmd += [str(s) for s in SOURCES] + ["-o", str(plugin), "-pthread", "-lm"]
    harness_cmd = [*COMMON, *flags, "-rdynamic", str(HARNESS / "harness.c"), str(HARNESS / "fake_tf.c")]
    harness_cmd += ["-o", str(harness), "-ldl", "-pthread", "-lm"]
    compile_all([plugin_cmd, harness_cmd])
    return plugin, harness


@pytest.fixture(scope="module")
def plain_build(tmp_path_factory) -> tuple[Path, Path]:
    """The MY_DEVICE plugin and the harness, built without instrumentation."""
    return build(tmp_path_factory.mktemp("demo_device"), "MY_DEVICE", ["-O1"])


def run_harness(harness: Path, plugin: Path, device_type: str, env: dict[str, str] | None = None) -> str:
    """Run the harness; returns its stdout after asserting it passed."""
    done = subprocess.run(
        [str(harness), str(plugin), device_type], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0 and done.stdout.startswith("ok "), done.stdout + done.stderr[-6000:]
    return done.stdout


def sanitizer_runtime(name: str) -> bool:
    """Whether gcc has the runtime library of sanitizer ``name`` (libasan, libtsan)."""
    found = subprocess.run(["gcc", f"-print-file-name=lib{name}.so"], capture_output=True, text=True).stdout.strip()
    return os.path.isabs(found) and os.path.exists(found)


def test_plugin_passes_the_harness(plain_build):
    plugin, harness = plain_build
    exported = subprocess.run(["nm", "-D", "--defined-only", str(plugin)], capture_output=True, text=True).stdout
    names = {line.split()[-1] for line in exported.splitlines() if line.strip()}
    assert {"SE_InitPlugin", "TF_InitKernel"} <= names
    assert not any(n.startswith("demo_") for n in names)  # internals stay hidden
    checks = int(run_harness(harness, plugin, "MY_DEVICE").split()[1])
    assert checks > 400


def test_gpu_build_through_the_makefile(tmp_path, plain_build):
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    plugin = tmp_path / "libdemo_device_gpu.so"
    done = subprocess.run(
        [
            "make",
            "-C",
            str(PLUGIN),
            "DEVICE_TYPE=GPU",
            f"OUT={plugin}",
            f"PYTHON={sys.executable}",
            "CFLAGS=-O2 -Werror",
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    harness = plain_build[1]
    run_harness(harness, plugin, "GPU")
    # The MY_DEVICE expectation fails against the GPU build: the harness does check the type.
    done = subprocess.run([str(harness), str(plugin), "MY_DEVICE"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "platform.type" in done.stderr


@pytest.mark.parametrize("sanitizer", ["address", "thread"])
def test_plugin_is_clean_under_sanitizers(tmp_path, sanitizer):
    if not sanitizer_runtime("asan" if sanitizer == "address" else "tsan"):
        pytest.skip(f"gcc has no {sanitizer} sanitizer runtime")
    plugin, harness = build(tmp_path, "GPU", [*SANITIZERS[sanitizer], "-O0", "-g"])
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1", TSAN_OPTIONS="halt_on_error=1")
    done = subprocess.run([str(harness), str(plugin), "GPU"], capture_output=True, text=True, timeout=120, env=env)
    if "LeakSanitizer has encountered a fatal error" in done.stderr:
        pytest.skip("LeakSanitizer cannot run in this environment (ptrace restrictions)")
    if sanitizer == "thread" and "FATAL: ThreadSanitizer" in done.stderr:
        pytest.skip("ThreadSanitizer cannot run in this environment (memory layout)")
    assert done.returncode == 0 and done.stdout.startswith("ok "), done.stdout + done.stderr[-6000:]
    assert "Sanitizer" not in done.stderr, done.stderr[-6000:]
