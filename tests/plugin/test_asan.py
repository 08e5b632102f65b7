"""AddressSanitizer over the shim and plugin code.

The shim (csrc/shim) and the test plugins are rebuilt with -fsanitize=address; then
(1) a standalone C program checks the shim's native parts with leak detection on, and
(2) a Python process with the ASan runtime preloaded loads the ASan shim in place of
the installed one (MODTENSOR_SHIM_LIBRARY) and runs every kernel of api_plugin.c, then a
deliberately overflowing kernel (built recoverable) that shows the instrumentation is live.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from .support import CSRC, INCLUDE, REPO

ASAN_FLAGS = ["-fsanitize=address", "-fno-omit-frame-pointer", "-g", "-O0"]

DRIVER = textwrap.dedent(
    """
    import gc, sys
    import numpy as np
    sys.path.insert(0, sys.argv[1])
    from modtensor.framework import errors, tensor_proto
    from modtensor.plugin import load_library
    from modtensor.plugin.native import bridge
    from tests.plugin.support import node, run
    load_library(sys.argv[2])
    load_library(sys.argv[4])
    load_library(sys.argv[5])
    shims = {line.split()[-1] for line in open("/proc/self/maps") if "libmodtensor_framework" in line}
    assert shims == {sys.argv[3]}, shims
    tensor = tensor_proto.make_tensor_proto
    for _ in range(3):
        run(node("MtApiAttrs", ["x"], i=(7, "int"), f=(2.5, "float"), t=(2, "type"), s=(b"hello", "string"),
                 li=([1, 2, 3], "list(int)"), lt=([1, 9], "list(type)"), ls=([b"ab", b"cde"], "list(string)"),
                 shape=([2, 5], "shape"), lshape=([[2, 3], [4]], "list(shape)"),
                 tensor=(tensor(np.array([4, 5, 6], np.int32)), "tensor"),
                 ltensor=([tensor(np.float32(1.5)), tensor(b"xy")], "list(tensor)")),
            [np.zeros(1, np.float32)])
        run(node("MtApiAdd", ["x", "y"]), [np.ones(3, np.float32), np.ones(3, np.float32)])
        run(node("MtApiAdd", ["x", "y"], hold=(True, "bool")), [np.ones(3, np.float32), np.ones(3, np.float32)])
        run(node("MtApiInfo", ["a", "b", "s"], N=(2, "int"), T=(3, "type")),
            [np.arange(3, dtype=np.int32), np.arange(3, dtype=np.int32), np.array(0.5, np.float32)])
        outputs = run(node("MtApiMemory", []), [])
        del outputs
        run(node("MtApiUpper", ["x"]), [np.array([b"abc", b"y" * 50], dtype=object)])
        run(node("MtApiAsync", ["x"]), [np.arange(5, dtype=np.float32)])
        # The heap-allocated asynchronous call: started by the dataflow executor, finished on the plugin's thread.
        from modtensor.framework.protos import graph_pb2
        from modtensor.runtime.graph_execution import compile_graph
        g = graph_pb2.GraphDef()
        g.node.extend([node("Placeholder", [], name="x", dtype=(1, "type")), node("MtApiAsync", ["x"], name="a")])
        assert float(compile_graph(g, ("x",), ("a",)).run([np.arange(5, dtype=np.float32)])[0]) == 10.0
        try:
            run(node("MtApiCheck", ["x"]), [np.array([100.0], np.float32)])
        except errors.OutOfRangeError:
            pass
        import modtensor as tf  # the variable functions of kernels_experimental.h (variable_plugin.c)
        v = tf.Variable([1.0, 2.0])
        held = v.read_value()
        tf.raw_ops.MtVarScaleAdd(resource=v.handle, value=[1.0, 1.0])
        tf.raw_ops.MtVarUpdate(resource=v.handle, value=[1.0, 1.0], subtract=True)
        tf.raw_ops.MtVarAssign(resource=v.handle, value=[3.0, 4.0], validate_shape=True)
        tf.raw_ops.MtVarSum(resource=v.handle)
        try:
            tf.raw_ops.MtVarUpdate(resource=v.handle, value=[1.0])
        except errors.InvalidArgumentError:
            pass
        del v, held
    gc.collect()
    print("kernels ok", flush=True)
    run(node("MtOverflow", []), [])  # the control: reported, and (recoverable build) execution goes on
    print("control ran")
    """
)


def asan_runtime() -> str | None:
    """The ASan runtime gcc links against, or None when this gcc has none."""
    try:
        found = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return None
    return found if os.path.isabs(found) and os.path.exists(found) else None


@pytest.fixture(scope="module")
def asan_build(build_plugin, tmp_path_factory) -> dict[str, Path]:
    runtime = asan_runtime()
    if runtime is None:
        pytest.skip("gcc has no AddressSanitizer runtime (libasan.so)")
    out = tmp_path_factory.mktemp("asan")
    shim = out / "libmodtensor_framework.so"
    compile_c = ["gcc", "-std=c11", "-c", "-fPIC", "-fvisibility=hidden", *ASAN_FLAGS, f"-I{INCLUDE}"]
    sources = sorted((REPO / "csrc" / "shim").glob("*.c"))
    jobs = [subprocess.Popen([*compile_c, str(src), "-o", str(out / f"{src.stem}.o")]) for src in sources]
    assert all(job.wait() == 0 for job in jobs)
    link = ["gcc", "-shared", *ASAN_FLAGS, "-pthread", "-Wl,-soname,libmodtensor_framework.so", "-o", str(shim)]
    subprocess.run([*link, *(str(out / f"{src.stem}.o") for src in sources)], check=True, capture_output=True)
    return {
        "runtime": Path(runtime),
        "shim": shim,
        "api_plugin": build_plugin("api_plugin_asan", sources=[CSRC / "api_plugin.c"], flags=ASAN_FLAGS),
        "overflow": build_plugin("overflow", flags=[*ASAN_FLAGS, "-fsanitize-recover=address"]),
        "variable_plugin": build_plugin("variable_plugin_asan", sources=[CSRC / "variable_plugin.c"], flags=ASAN_FLAGS),
        "out": out,
    }


def run_under_asan(build: dict[str, Path]) -> subprocess.CompletedProcess:
    env = dict(os.environ, LD_PRELOAD=str(build["runtime"]), MODTENSOR_SHIM_LIBRARY=str(build["shim"]))
    # CPython's own allocations are not ours to check for leaks; keep going after a report (the control).
    env["ASAN_OPTIONS"] = "detect_leaks=0:halt_on_error=0"
    plugins = [str(build["api_plugin"]), str(build["shim"]), str(build["overflow"]), str(build["variable_plugin"])]
    args = [sys.executable, "-c", DRIVER, str(REPO), *plugins]
    return subprocess.run(args, capture_output=True, text=True, env=env, timeout=300)


def test_shim_native_parts_are_clean_under_asan_and_lsan(asan_build):
    exe = asan_build["out"] / "shim_check"
    cmd = ["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", *ASAN_FLAGS, f"-I{INCLUDE}", str(CSRC / "shim_check.c")]
    cmd += ["-o", str(exe), f"-L{asan_build['out']}", "-l:libmodtensor_framework.so", f"-Wl,-rpath,{asan_build['out']}"]
    subprocess.run(cmd, check=True, capture_output=True)
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1")
    done = subprocess.run([str(exe)], capture_output=True, text=True, env=env)
    if "LeakSanitizer has encountered a fatal error" in done.stderr:
        pytest.skip("LeakSanitizer cannot run in this environment (ptrace restrictions)")
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stdout + done.stderr


def test_plugin_kernels_run_clean_under_asan_and_a_buggy_kernel_is_caught(asan_build):
    done = run_under_asan(asan_build)
    assert done.returncode == 0 and done.stdout.split() == ["kernels", "ok", "control", "ran"], done.stderr[-4000:]
    reports = done.stderr.count("ERROR: AddressSanitizer")
    assert reports == 1, done.stderr[-6000:]  # only the control's report: the shim and api_plugin are clean
    assert "heap-buffer-overflow" in done.stderr and "overflow.c" in done.stderr
