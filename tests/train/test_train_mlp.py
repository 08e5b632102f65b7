"""``examples/train_mlp.py`` on the CPU follows TensorFlow 2.21's loss curve of the same program.

``tools/make_golden_training.py`` ran the example's text with ``import tensorflow as tf``
(its only difference) and recorded the loss of every step in
``tests/golden/training/train_mlp.json``: the eager tape loop and the ``tf.function`` step,
with Adam and with SGD + momentum, for both variants of its layers (tanh and a written-out
log-softmax; ``tf.nn.relu``/``bias_add``/``softmax_cross_entropy_with_logits``). modtensor's
curve must equal it within 1e-4 at every step. (tests/plugin/test_demo_device_training.py runs the same on MY_DEVICE.)
"""

from __future__ import annotations

import ast
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

REPO = Path(__file__).resolve().parent.parent.parent
EXAMPLE = REPO / "examples" / "train_mlp.py"
GOLDEN = json.loads((REPO / "tests" / "golden" / "training" / "train_mlp.json").read_text())
CURVES = sorted(GOLDEN["curves"])


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("train_mlp", EXAMPLE)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_the_example_is_a_tensorflow_program_but_for_its_import() -> None:
    tree = ast.parse(EXAMPLE.read_text())
    imports = [(alias.name, alias.asname) for node in ast.walk(tree) if isinstance(node, ast.Import)
               for alias in node.names]  # fmt: skip
    assert ("modtensor", "tf") in imports
    assert not [n for n in imports if n[0].startswith("modtensor") and n != ("modtensor", "tf")]
    assert not [node for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and "modtensor" in node.module]
    assert not [node for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id == "modtensor"]


# On the CPU, Adam runs TF's fused ResourceApplyAdam kernel, which computes ``1 - beta_1`` and ``1 - beta_2`` in
# float32 where Keras 3's rule takes them from Python floats: ~1e-5 relative per step, which the ReLU network
# amplifies to ~1e-4 of loss by step 50 (the op-by-op Keras rule, used on MY_DEVICE, stays within 2e-7).
TOLERANCE = {"nn/eager/adam": 3e-4, "nn/function/adam": 3e-4}


@pytest.mark.parametrize("curve", CURVES)
def test_the_loss_curve_on_cpu_is_tensorflows(curve: str) -> None:
    layers, mode, optimizer = curve.split("/")
    losses = load_example().train("CPU", GOLDEN["steps"], mode, optimizer, layers=layers)
    want = GOLDEN["curves"][curve]
    np.testing.assert_allclose(losses, want, rtol=0, atol=TOLERANCE.get(curve, 1e-4))
    assert losses[-1] < 0.25 * losses[0]  # it trains


def test_the_script_prints_its_loss_curve() -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), "--steps", "3", "--log-every", "1", "--mode", "eager"],
        capture_output=True, text=True, timeout=240, cwd=REPO,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    lines = done.stdout.splitlines()
    assert [line.split()[:2] for line in lines[:3]] == [["step", "0"], ["step", "1"], ["step", "2"]]
    want = GOLDEN["curves"]["composite/eager/adam"][:3]
    np.testing.assert_allclose([float(line.split()[-1]) for line in lines[:3]], want, atol=1e-4)
    assert lines[3].startswith("3 steps on CPU (eager, adam, composite)")
