"""Record TensorFlow 2.21's gradients through control flow that the gradient cases cannot express.

Run with the TensorFlow scratch venv (modtensor and its tests never import TensorFlow):

    /work/tfvenv/bin/python tools/make_golden_control_flow_gradients.py

Writes ``tests/golden/control_flow_gradients/``:

- ``saved_model/``: a ``tf.Module`` whose function runs a ``tf.while_loop`` writing a TensorArray and a
  ``tf.cond`` over two variables (its While/If ops call library functions);
- ``expected.json``: for each program of ``tests/api/control_flow_gradient_programs.py``
  (``MODE_PROGRAMS``) TF's gradients in each mode (eager tape, tape in tf.function, tf.gradients
  in a v1 graph); the losses and final weights of the LSTM training loop; the gradients of the
  SavedModel's function (loaded again by TF) eagerly and inside tf.function; the gradient of the
  frozen Keras LSTM (``examples/models/lstm_functional.pb``, a functional While) with respect to
  its input sequence in a v1 graph.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
from pathlib import Path
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "golden" / "control_flow_gradients"
MODELS = ROOT / "examples" / "models"


def _programs() -> Any:
    path = ROOT / "tests" / "api" / "control_flow_gradient_programs.py"
    spec = importlib.util.spec_from_file_location("control_flow_gradient_programs", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


class Recurrent(tf.Module):
    """A while_loop (a tanh RNN writing a TensorArray) and a cond reading the variables."""

    def __init__(self) -> None:
        super().__init__(name="recurrent")
        rng = np.random.default_rng(7)
        self.w = tf.Variable((rng.standard_normal((3, 3)) * 0.6).astype(np.float32), name="w")
        self.b = tf.Variable(np.array([0.1, -0.2, 0.3], np.float32), name="b")

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="x")])
    def __call__(self, x: Any) -> Any:
        def body(i: Any, h: Any, ta: Any) -> Any:
            h = tf.tanh(tf.matmul(h, self.w) + self.b)
            return i + 1, h, ta.write(i, h)

        _, h, ta = tf.while_loop(lambda i, h, ta: i < 3, body, [0, x, tf.TensorArray(tf.float32, size=3)])
        stacked = ta.stack()
        return tf.cond(
            tf.reduce_sum(h) > -100.0, lambda: h * 2.0 + tf.reduce_mean(stacked, 0) * self.b, lambda: h - self.b
        )


def _frozen_lstm_gradient() -> dict[str, Any]:
    """d sum(upstream * output) / d sequence of the frozen functional Keras LSTM, in a v1 graph."""
    from tensorflow.core.framework import graph_pb2

    manifest = json.loads((MODELS / "manifest.json").read_text())["models"]["lstm_functional"]
    graph_def = graph_pb2.GraphDef.FromString((MODELS / "lstm_functional.pb").read_bytes())
    arrays = np.load(MODELS / "lstm_functional.io.npz")
    (inp,) = [t["name"] for t in manifest["inputs"]]
    (out,) = [t["name"] for t in manifest["outputs"]]
    sequence = arrays[f"b8/in/{inp}"]
    upstream = np.random.default_rng(3).standard_normal((8, 3)).astype(np.float32)
    graph = tf.Graph()
    with graph.as_default():
        tf.import_graph_def(graph_def, name="")
        x = graph.get_tensor_by_name(inp)
        y = graph.get_tensor_by_name(out)
        (grad,) = tf.compat.v1.gradients(tf.reduce_sum(y * upstream), [x])
        with tf.compat.v1.Session(graph=graph) as sess:
            value = sess.run(grad, {x: sequence})
    return {"upstream": upstream.tolist(), "gradient": value.tolist()}


def main() -> None:
    programs = _programs()
    shutil.rmtree(OUT / "saved_model", ignore_errors=True)
    OUT.mkdir(parents=True, exist_ok=True)
    expected: dict[str, Any] = {"tensorflow": tf.__version__, "modes": {}}
    for name, program in programs.MODE_PROGRAMS.items():
        expected["modes"][name] = {mode: program(tf, mode) for mode in programs.MODES}
    expected["lstm_training"] = programs.lstm_training(tf)
    module = Recurrent()
    tf.saved_model.save(module, str(OUT / "saved_model"))
    expected["saved_model"] = {
        mode: programs.saved_model_gradients(tf, str(OUT / "saved_model"), mode) for mode in ("eager", "function")
    }
    expected["frozen_lstm"] = _frozen_lstm_gradient()
    (OUT / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
