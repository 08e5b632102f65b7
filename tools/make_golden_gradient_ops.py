"""Record TensorFlow's OpDefs, CPU kernel constraints, shapes and kernel results of the backward ops.

Run with the TensorFlow scratch venv (modtensor and its tests never import TensorFlow):

    /work/tfvenv/bin/python tools/make_golden_gradient_ops.py

The ops gradient functions use (``BroadcastGradientArgs``, ``ReluGrad``, ``Conv2DBackpropInput``,
...), listed with their cases per family in ``tools/gradient_op_cases/``. Writes under
``tests/golden/gradient_ops/`` the files ``tools/make_golden_op_breadth.py`` writes for its ops,
read by the same tests: ``op_defs.pbtxt`` (tests/ops/test_op_defs.py), ``cpu_kernel_constraints.json``
(tests/runtime/test_cpu_kernels_registered.py), ``shape_cases.json`` (tests/ops/test_golden_shapes.py)
and ``kernels/`` (tests/kernels/test_golden_kernels.py). Deterministic: seeded inputs.
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import make_golden_op_breadth as breadth  # noqa: E402
import numpy as np  # noqa: E402
from gradient_op_cases import FAMILIES  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "gradient_ops"


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    breadth.OUT = OUT
    breadth.GENERATOR = "tools/make_golden_gradient_ops.py"
    breadth.OPS = []
    breadth.KERNEL_ONLY = []
    breadth.RNG = np.random.default_rng(20261206)
    for family in FAMILIES:
        module = importlib.import_module(f"gradient_op_cases.{family}")
        breadth.OPS.extend(module.OPS)
        module.cases(breadth.shape_case, breadth.kernel_case, breadth.rnd, breadth.P, breadth.C)
    breadth.write_op_defs()
    breadth.write_shape_cases()
    return breadth.kernel_gen.write_cases(breadth.KERNEL_CASES, OUT / "kernels")


if __name__ == "__main__":
    sys.exit(main())
