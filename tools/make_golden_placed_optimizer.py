"""Record what TensorFlow hands a plugin graph optimizer: tests/golden/plugin_semantics/placed_optimizer.json.

Run with TensorFlow 2.21 (and gcc):  /work/tfvenv/bin/python tools/make_golden_placed_optimizer.py
Builds tests/plugin/csrc/placed_optimizer.c against TensorFlow's headers, loads it as TensorFlow
loads pluggable-device libraries (TF_InitGraph runs) and runs
tests/plugin/placed_optimizer_scenario.py: the fetch and preserve lists, every node's device
(TensorFlow places the graph before the meta-optimizer) and TF_InferStatically's status.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "plugin"))
OUT = REPO / "tests" / "golden" / "plugin_semantics" / "placed_optimizer.json"


def main() -> None:
    import tensorflow as tf
    from placed_optimizer_scenario import run_scenario
    from tensorflow.python.framework import load_library

    tf_dir = pathlib.Path(tf.__file__).parent
    lib = pathlib.Path(tempfile.mkdtemp()) / "placed_optimizer.so"
    cmd = ["g++", "-x", "c++", "-shared", "-fPIC", str(REPO / "tests/plugin/csrc/placed_optimizer.c"), "-o", str(lib)]
    subprocess.run([*cmd, f"-I{tf_dir / 'include'}", f"-L{tf_dir}", "-l:libtensorflow_framework.so.2"], check=True)
    load_library.load_pluggable_device_library(str(lib))
    result = run_scenario(tf, str(lib))
    about = "What TensorFlow hands a CPU plugin optimizer, written by tools/make_golden_placed_optimizer.py"
    data = {"about": about, "tensorflow": tf.__version__, **result}
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
