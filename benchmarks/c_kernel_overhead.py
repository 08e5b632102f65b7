"""Per-call cost of a trivial C kernel (TensorFlow's kernel C API, through the native bridge) against the same
kernel written in Python.

Both run the way the executor and eager run every kernel: ``OpKernel.run`` on a fresh
``OpKernelContext``. The C kernels are compiled with gcc at start (a small plugin in a
temporary folder); the Python kernels do the same work with the same context calls.
Cases: passing input 0 through (TF_GetInput + TF_SetOutput), and allocating the output
and adding one to 10 floats (TF_AllocateOutput). The modtensor column is the C kernel,
the NumPy column the Python kernel; the note gives the difference.

A process that imported TensorFlow first (benchmarks/run.py under TF's venv) has TF's own C API in the
global symbol scope ahead of modtensor's shim, so the plugin's ``TF_*`` calls would bind to TensorFlow and
register nothing with modtensor; the measurement then runs in a fresh interpreter without TensorFlow.

    /tmp/mtdev/bin/python benchmarks/c_kernel_overhead.py [--quick]
"""

from __future__ import annotations

import argparse
import ctypes
import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import Environment, Row, measure_interleaved  # noqa: E402

BENCHMARK = "C kernel call"

PLUGIN = r"""
#include "tensorflow/c/kernels.h"
#include "tensorflow/c/ops.h"

static void pass_through(void* state, TF_OpKernelContext* ctx) {
  (void)state;
  TF_Status* s = TF_NewStatus();
  TF_Tensor* x = NULL;
  TF_GetInput(ctx, 0, &x, s);
  TF_SetOutput(ctx, 0, x, s);
  TF_DeleteTensor(x);
  TF_DeleteStatus(s);
}

static void add_one(void* state, TF_OpKernelContext* ctx) {
  (void)state;
  TF_Status* s = TF_NewStatus();
  TF_Tensor* x = NULL;
  TF_GetInput(ctx, 0, &x, s);
  int64_t n = TF_TensorElementCount(x);
  TF_Tensor* y = TF_AllocateOutput(ctx, 0, TF_FLOAT, &n, 1, (size_t)n * sizeof(float), s);
  const float* in = (const float*)TF_TensorData(x);
  float* out = (float*)TF_TensorData(y);
  for (int64_t i = 0; i < n; ++i) out[i] = in[i] + 1.0f;
  TF_DeleteTensor(y);
  TF_DeleteTensor(x);
  TF_DeleteStatus(s);
}

static void op(const char* name, TF_Status* s) {
  TF_OpDefinitionBuilder* b = TF_NewOpDefinitionBuilder(name);
  TF_OpDefinitionBuilderAddInput(b, "x: float");
  TF_OpDefinitionBuilderAddOutput(b, "y: float");
  TF_RegisterOpDefinition(b, s);
}

void TF_InitKernel(void) {
  TF_Status* s = TF_NewStatus();
  op("BenchPassThrough", s);
  op("BenchAddOne", s);
  TF_RegisterKernelBuilder("C", TF_NewKernelBuilder("BenchPassThrough", "CPU", NULL, pass_through, NULL), s);
  TF_RegisterKernelBuilder("C", TF_NewKernelBuilder("BenchAddOne", "CPU", NULL, add_one, NULL), s);
  TF_DeleteStatus(s);
}
"""


def _build_plugin(folder: Path) -> Path:
    from modtensor import sysconfig

    source = folder / "bench_plugin.c"
    source.write_text(PLUGIN)
    library = folder / "bench_plugin.so"
    cmd = ["gcc", "-O2", "-shared", "-fPIC", str(source), "-o", str(library), *sysconfig.get_compile_flags()]
    subprocess.run(cmd, check=True)
    return library


def _kernels() -> dict[str, tuple[Callable[[], Any], Callable[[], Any]]]:
    """Case -> (C kernel call, Python kernel call), each one OpKernel.run on a fresh context."""
    from modtensor.framework.op_registry import global_registry
    from modtensor.framework.protos import node_def_pb2
    from modtensor.runtime import KernelRegistry, OpKernel, OpKernelContext, create_kernel, get_device

    class PassThrough(OpKernel):
        def compute(self, ctx: OpKernelContext) -> None:
            ctx.set_output(0, ctx.input(0))

    class AddOne(OpKernel):
        def compute(self, ctx: OpKernelContext) -> None:
            x = ctx.input(0)
            np.add(x, np.float32(1), out=ctx.allocate_output(0, x.shape))

    python = KernelRegistry()
    python.register("BenchPassThrough", "CPU", PassThrough)
    python.register("BenchAddOne", "CPU", AddOne)
    device = get_device("CPU:0")
    x = np.linspace(-1, 1, 10, dtype=np.float32)

    def call(op: str, registry: KernelRegistry | None) -> Callable[[], Any]:
        node = node_def_pb2.NodeDef(name="bench", op=op, input=["x"])
        kernel = create_kernel(node, global_registry().get(op).op_def, device, registry)
        return lambda: kernel.run(OpKernelContext(kernel, [x]))

    cases = {
        "pass input through": ("BenchPassThrough", lambda out: out[0] is x),
        "allocate + add one (10 floats)": ("BenchAddOne", lambda out: np.allclose(out[0], x + 1)),
    }
    result = {}
    for case, (op, check) in cases.items():
        c_call, py_call = call(op, None), call(op, python)
        assert check(c_call()) and check(py_call()), case
        result[case] = (c_call, py_call)
    return result


def _c_api_shadowed() -> bool:
    """Whether a plugin's ``TF_*`` symbols would bind to another library (TensorFlow) instead of modtensor's shim.

    Plugins are dlopened with their undefined symbols looked up in the process's global scope, in load order;
    a TensorFlow imported before modtensor's shim puts its own C API first.
    """
    from modtensor.plugin import native

    native.bridge()  # loads the shim (globally) as load_library would
    symbol = "TF_RegisterOpDefinition"
    shim = ctypes.CDLL(str(native.shim_path()), mode=os.RTLD_NOW | os.RTLD_GLOBAL)
    first = ctypes.CDLL(None)
    return (
        ctypes.cast(getattr(first, symbol), ctypes.c_void_p).value
        != ctypes.cast(getattr(shim, symbol), ctypes.c_void_p).value
    )


def _run_in_fresh_interpreter(env: Environment) -> list[Row]:
    """Measure in a child interpreter (same python and path, no TensorFlow) and return its rows."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--json", *(["--quick"] if env.quick else [])]
    done = subprocess.run(cmd, check=True, capture_output=True, text=True, env=dict(os.environ))
    return [Row(**fields) for fields in json.loads(done.stdout)]


def run(env: Environment) -> list[Row]:
    """One row per case: the C kernel (modtensor column) against the Python kernel (NumPy column)."""
    if shutil.which("gcc") is None:
        return [Row(BENCHMARK, "C kernels", None, note="gcc is not installed: no plugin to measure")]
    if _c_api_shadowed():
        if "tensorflow" in sys.modules:
            return _run_in_fresh_interpreter(env)
        return [Row(BENCHMARK, "C kernels", None, note="another TF C API is loaded ahead of modtensor's shim")]
    from modtensor.plugin import load_library

    with tempfile.TemporaryDirectory() as folder:
        load_library(_build_plugin(Path(folder)))
    rows = []
    for case, (c_call, py_call) in _kernels().items():
        times = measure_interleaved({"c": c_call, "py": py_call}, repeats=env.repeats)
        c_s, py_s = times["c"], times["py"]
        assert c_s is not None and py_s is not None
        note = f"C kernel − Python kernel: {(c_s - py_s) * 1e6:+.2f} µs per call (both via OpKernel.run)"
        rows.append(Row(BENCHMARK, case, c_s, py_s, None, note=note))
    return rows


def main(argv: list[str] | None = None) -> int:
    """Run standalone and print the rows."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer samples")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON (used by run() in a child)")
    args = parser.parse_args(argv)
    rows = run(Environment(tensorflow=None, quick=args.quick))
    if args.json:
        print(json.dumps([dataclasses.asdict(row) for row in rows]))
        return 0
    for row in rows:
        if row.modtensor_s is None:
            print(f"{row.case}: {row.note}")
            continue
        print(
            f"{row.case:32s} C kernel {row.modtensor_s * 1e6:6.2f} µs  Python kernel {row.numpy_s * 1e6:6.2f} µs  "
            f"{row.note}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
