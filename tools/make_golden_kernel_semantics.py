"""Record TensorFlow's kernel-registration semantics to tests/golden/plugin_semantics/kernel_semantics.json.

Run with TensorFlow 2.21 (and g++):  /work/tfvenv/bin/python tools/make_golden_kernel_semantics.py
Builds tests/plugin/csrc/kernel_semantics.c and late_op.cc against TensorFlow's own headers and
libtensorflow_framework, loads the kernel plugin as TensorFlow loads pluggable-device libraries
(TF_InitKernel runs) and the op library with tf.load_op_library, and records what
tests/plugin/kernel_semantics_scenario.py observes. tests/plugin/test_kernel_semantics.py runs the
same scenario on modtensor.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "plugin"))
OUT = REPO / "tests" / "golden" / "plugin_semantics" / "kernel_semantics.json"


def main() -> None:
    import tensorflow as tf
    from kernel_semantics_scenario import run_scenario
    from tensorflow.python.framework import load_library

    tf_dir = pathlib.Path(tf.__file__).parent
    build = pathlib.Path(tempfile.mkdtemp())
    libs = {}
    for name, src in (("kernels", "kernel_semantics.c"), ("late_op", "late_op.cc")):
        libs[name] = build / f"{name}.so"
        cmd = ["g++", "-x", "c++", "-std=c++17", "-shared", "-fPIC", str(REPO / "tests/plugin/csrc" / src)]
        cmd += ["-o", str(libs[name]), f"-I{tf_dir / 'include'}", f"-L{tf_dir}", "-l:libtensorflow_framework.so.2"]
        subprocess.run(cmd, check=True)
    result = run_scenario(tf, load_library.load_pluggable_device_library, str(libs["kernels"]), str(libs["late_op"]))
    about = "TensorFlow's outcomes, written by tools/make_golden_kernel_semantics.py"
    result = {"about": about, "tensorflow": tf.__version__, **result}
    OUT.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
