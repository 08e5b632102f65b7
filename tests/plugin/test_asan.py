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


PLAN_DRIVER = textwrap.dedent(
    """
    import importlib.machinery, importlib.util, sys
    sys.path.insert(0, sys.argv[1])
    name = "modtensor.runtime._plan_runner"  # the ASan build, before anything imports the installed one
    loader = importlib.machinery.ExtensionFileLoader(name, sys.argv[2])
    spec = importlib.util.spec_from_file_location(name, sys.argv[2], loader=loader)
    pr = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pr)
    sys.modules[name] = pr
    import numpy as np
    import modtensor as tf
    from modtensor.framework import errors
    from modtensor.kernels.cpu import elementwise
    from modtensor.runtime import _plan_runner
    assert _plan_runner is pr and pr.__file__ == sys.argv[2]
    # Scalar ops: every op on every dtype, 0-d (C) and vectors (the numpy kernel), operands given up or not.
    for op, code in pr.SCALAR_OPS.items():
        kernel = getattr(elementwise, op)
        scalar = pr.ScalarOp(code, kernel)
        for dtype in (np.int32, np.int64, np.float32, np.float64, np.bool_):
            for x, y in ((dtype(3), dtype(1)), (dtype(1), dtype(1))):
                a, b = np.array(x), np.array(y)
                try:
                    want = kernel(a, b)
                except Exception:
                    continue
                assert np.array_equal(scalar(a, b), want), (op, dtype)
                assert np.array_equal(scalar(np.array([x, y]), b), kernel(np.array([x, y]), b)), (op, dtype)
    # A Plan and a Loop by hand: many loop variables and inputs (the heap paths), every status, a failing step.
    add = pr.ScalarOp(pr.SCALAR_OPS["add"], elementwise.add)
    less = pr.ScalarOp(pr.SCALAR_OPS["less"], elementwise.less)
    wide = lambda *xs: np.asarray(sum(xs), np.int32)
    n = 12
    rows = [(less, None, (0, 1), (), 2, (), (pr.SCALAR_CALL, less)),
            (None, None, (0,), (), -1, (), None),
            (add, None, (0, 3), (0,), 4, (), (pr.SCALAR_CALL, add)),
            (wide, None, tuple(range(5, 5 + n)), (), 5 + n, (), None)]
    loop = pr.Loop(pr.Plan(rows), 1, 2, [0, *range(5, 5 + n)], [4, *([5 + n] * n)])
    values = [np.array(0, np.int32), np.array(100, np.int32), None, np.array(1, np.int32), None,
              *[np.array(1, np.int32)] * n, None]
    state = [0, 0]
    statuses = []
    while True:
        status = loop.run(values, state, None)
        statuses.append(status)
        if status == pr.LOOP_DONE:
            break
        assert status == pr.LOOP_STEP and state[0] == 2, (status, state)
        state[0] += 1
    assert int(values[0]) == 100 and state[1] == 100 and len(statuses) == 101
    values[2] = np.array(1, np.int32)
    assert loop.run(values, [1, 0], None) == pr.LOOP_PRED  # an int predicate: the caller decides
    class Cancelled:
        _cancelled = True
    assert loop.run(values, [0, 7], Cancelled()) == pr.LOOP_CANCELLED
    def broken(x, y):
        raise ValueError("broken kernel")
    failing = pr.Loop(pr.Plan([(less, None, (0, 1), (), 2, (), None), (broken, None, (0, 3), (0,), 4, (), None)]),
                      1, 2, [0], [4])
    state = [0, 0]
    try:
        failing.run([np.array(0, np.int32), np.array(5, np.int32), None, np.array(1, np.int32), None], state, None)
    except ValueError:
        assert state == [2, 0], state
    else:
        raise AssertionError("the step's error did not propagate")
    # Steps of several outputs: the stack and heap paths, a wrong dtype handed back, a failing call.
    f32 = np.dtype(np.float32)
    for count in (2, 12):
        values = [np.arange(count, dtype=np.float32)] + [None] * count
        outs = tuple(range(1, count + 1))
        assert pr.Plan([(lambda v: list(v), (f32,) * count, (0,), (0,), outs, (1,), None)]).run(values, 0) == 1
        assert values[0] is None and values[1] is None and float(values[count]) == count - 1
        values = [np.arange(count, dtype=np.float32)] + [None] * count
        wrong = lambda v: [x.astype(np.float64) for x in v]
        assert pr.Plan([(wrong, (f32,) * count, (0,), (0,), outs, (), None)]).run(values, 0) == 0
        try:
            pr.Plan([(broken, (f32,) * count, (0, 0), (), outs, (), None)]).run(values, 0)
        except ValueError:
            pass
        else:
            raise AssertionError("the multi-output step's error did not propagate")
    # The executor's loops: a compiled v1 loop (tf.function) and the While kernel (lowering off), errors included.
    body = lambda i, acc: (i + 1, acc * 0.999 + 1.0)
    fn = tf.function(lambda n: tf.while_loop(lambda i, acc: i < n, body, [0, tf.constant(0.0)]))
    assert int(fn(tf.constant(1000))[0]) == 1000
    for lower in (True, False):
        graph = tf.Graph()
        with graph.as_default():
            n = tf.compat.v1.placeholder(tf.int32, [], name="n")
            x = tf.compat.v1.placeholder(tf.float32, [3], name="x")
            out = tf.while_loop(lambda i, acc: i < n, lambda i, acc: (i + 1, acc + tf.gather(x, [i])),
                                [0, tf.constant([0.0])])
        config = tf.compat.v1.ConfigProto()
        config.experimental.disable_functional_ops_lowering = not lower
        with tf.compat.v1.Session(graph=graph, config=config) as session:
            feeds = {n: np.int32(3), x: np.arange(3, dtype=np.float32)}
            assert int(session.run(out, feeds)[0]) == 3
            try:
                session.run(out, {n: np.int32(5), x: np.arange(3, dtype=np.float32)})
            except errors.InvalidArgumentError as exc:
                assert "iteration 3" in exc.message, exc.message
            else:
                raise AssertionError("no error")
    print("plan ok", flush=True)
    """
)


@pytest.fixture(scope="module")
def asan_plan_runner(tmp_path_factory) -> dict[str, Path]:
    """The executor's C plan loop (csrc/plan) built with AddressSanitizer (and -Werror), as an extension module."""
    runtime = asan_runtime()
    if runtime is None:
        pytest.skip("gcc has no AddressSanitizer runtime (libasan.so)")
    import sysconfig

    import numpy

    out = tmp_path_factory.mktemp("asan_plan")
    target = out / "_plan_runner_asan.so"
    flags = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-fPIC", "-fvisibility=hidden", *ASAN_FLAGS]
    includes = [f"-I{numpy.get_include()}", f"-I{sysconfig.get_paths()['include']}"]
    sources = [str(p) for p in sorted((REPO / "csrc" / "plan").glob("*.c"))]
    subprocess.run(["gcc", "-shared", *flags, *includes, *sources, "-o", str(target)], check=True)
    return {"runtime": Path(runtime), "module": target}


def test_plan_loop_and_scalar_ops_run_clean_under_asan(asan_plan_runner):
    env = dict(os.environ, LD_PRELOAD=str(asan_plan_runner["runtime"]), ASAN_OPTIONS="detect_leaks=0")
    args = [sys.executable, "-c", PLAN_DRIVER, str(REPO), str(asan_plan_runner["module"])]
    done = subprocess.run(args, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0 and done.stdout.split() == ["plan", "ok"], done.stdout + done.stderr[-6000:]
    assert "AddressSanitizer" not in done.stderr, done.stderr[-6000:]
