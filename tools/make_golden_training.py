"""Record TensorFlow 2.21's training results: optimizers, minimize, sparse updates and the MLP example's loss curves.

Run with the TensorFlow scratch venv (modtensor and its tests never import TensorFlow):

    /work/tfvenv/bin/python tools/make_golden_training.py

Writes ``tests/golden/training/``:

- ``programs.json``: every program of ``tests/api/training_programs.py`` run with TensorFlow
  as ``tf`` (Keras 3 optimizers on IndexedSlices gradients, small problems trained with a
  tape and ``apply_gradients``, ``tf.compat.v1.train`` optimizers' ``minimize`` in a v1
  graph and eagerly, TF 1's error texts); ``tests/api/test_training_golden.py`` reads it.
- ``train_mlp.json``: the loss of every step of ``examples/train_mlp.py`` run by TensorFlow
  (the file's text with ``import modtensor as tf`` replaced by ``import tensorflow as tf``),
  for each variant of its layers (tanh and a written-out log-softmax; ``tf.nn`` relu, bias_add
  and softmax cross-entropy), mode (eager tape loop, ``tf.function`` step) and optimizer (Adam,
  SGD with momentum); ``tests/train/test_train_mlp.py`` and
  ``tests/plugin/test_demo_device_training.py`` read it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import types
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS_FILE = ROOT / "tests" / "api" / "training_programs.py"
EXAMPLE = ROOT / "examples" / "train_mlp.py"
OUT = ROOT / "tests" / "golden" / "training"
MLP_STEPS = 60


def _load_programs() -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("training_programs", PROGRAMS_FILE)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules["training_programs"] = module
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def load_example_with_tensorflow() -> types.ModuleType:
    """``examples/train_mlp.py`` with its one modtensor line replaced by ``import tensorflow as tf``."""
    source = EXAMPLE.read_text()
    if source.count("\nimport modtensor as tf\n") != 1:
        raise SystemExit("examples/train_mlp.py must import modtensor as tf exactly once")
    module = types.ModuleType("train_mlp_tf")
    module.__file__ = str(EXAMPLE)
    exec(compile(source.replace("\nimport modtensor as tf\n", "\nimport tensorflow as tf\n"), str(EXAMPLE), "exec"),
         module.__dict__)  # fmt: skip
    return module


def record_programs() -> dict:
    p = _load_programs()
    out: dict = {"tensorflow": tf.__version__, "keras_sparse": {}, "keras_training": {}, "v1_graph": {},
                 "v1_eager": {}}  # fmt: skip
    for name, kwargs in p.KERAS_CONFIGS:
        key = p.config_id(name, kwargs)
        out["keras_sparse"][key] = p.keras_sparse(tf, name, kwargs)
        for problem in p.PROBLEMS:
            try:
                out["keras_training"][f"{problem}/{key}"] = p.keras_training(tf, problem, name, kwargs)
            except tf.errors.InvalidArgumentError as exc:  # Keras 3's own failure (see keras_training's doc)
                out["keras_training"][f"{problem}/{key}"] = {"error": p.error(exc)}
    for name, kwargs in p.V1_CONFIGS:
        key = p.config_id(name, kwargs)
        for problem in p.PROBLEMS:
            out["v1_graph"][f"{problem}/{key}"] = p.v1_graph(tf, problem, name, kwargs)
            out["v1_eager"][f"{problem}/{key}"] = p.v1_eager(tf, problem, name, kwargs)
    out["v1_errors"] = p.v1_errors(tf)
    return out


def record_mlp() -> dict:
    example = load_example_with_tensorflow()
    curves = {}
    for layers in ("composite", "nn"):
        for mode in ("eager", "function"):
            for optimizer in ("adam", "momentum"):
                curves[f"{layers}/{mode}/{optimizer}"] = example.train("CPU", MLP_STEPS, mode, optimizer,
                                                                       layers=layers)  # fmt: skip
    return {"tensorflow": tf.__version__, "steps": MLP_STEPS, "curves": curves}


def main() -> None:
    tf.get_logger().setLevel("ERROR")
    OUT.mkdir(parents=True, exist_ok=True)
    programs = record_programs()
    (OUT / "programs.json").write_text(json.dumps(programs, indent=1, sort_keys=True) + "\n")
    mlp = record_mlp()
    (OUT / "train_mlp.json").write_text(json.dumps(mlp, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}: " + ", ".join(f"{k}={len(v)}" for k, v in programs.items() if isinstance(v, dict)))


if __name__ == "__main__":
    main()
