"""Write TensorFlow 2.21 SavedModels for modtensor's loader tests under tests/golden/saved_model/.

Run with the TensorFlow scratch venv (modtensor and its tests never import TensorFlow):

    /work/tfvenv/bin/python tools/make_golden_saved_models.py

Writes:

- ``module/``: a ``tf.Module`` with variables, an asset, three signatures (``serving_default``,
  ``bump`` which updates a variable, ``multi`` with two inputs and a dict result), a method
  traced for two input shapes (no signature), a method calling a nested ``tf.function``.
- ``keras/``: a Keras 3 model (Conv2D relu -> BatchNormalization -> MaxPooling2D -> Dropout -> Flatten ->
  Dense relu -> Dense softmax) exported with ``model.export()``.
- ``control_flow/``: a function with ``tf.cond`` and ``tf.while_loop`` (If/While ops calling library functions).
- ``unsupported_op/``: a module whose function uses ``Zeta``, an op modtensor does not have.
- ``expected.json``: inputs and TF's results of each call (in order, so stateful calls are
  reproducible), variable values after them, and ``saved_model_cli show --all`` for each model.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "saved_model"


class Scaler(tf.Module):
    """Variables, an asset, signatures, a stateful method, a polymorphic method, a nested function."""

    def __init__(self, vocab_path: str):
        super().__init__(name="scaler")
        self.w = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
        self.b = tf.Variable([0.5, -0.5], name="b")
        self.count = tf.Variable(0, dtype=tf.int64, name="count")
        self.vocab = tf.saved_model.Asset(vocab_path)
        self.inner = tf.Module()
        self.inner.scale = tf.Variable(3.0, name="scale")

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32, name="x")])
    def __call__(self, x: Any) -> Any:
        return tf.matmul(x, self.w) + self.b

    @tf.function(input_signature=[tf.TensorSpec([], tf.int64, name="n")])
    def bump(self, n: Any) -> Any:
        self.count.assign_add(n)
        return self.count.read_value()

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32, name="a"), tf.TensorSpec([], tf.float32, name="k")])
    def multi(self, a: Any, k: Any) -> Any:
        return {"scaled": a * k * self.inner.scale, "total": tf.reduce_sum(a) + k}

    @tf.function
    def poly(self, x: Any) -> Any:
        return x * tf.cast(2, x.dtype) + tf.cast(tf.size(x), x.dtype)

    @tf.function
    def _helper(self, x: Any) -> Any:
        return tf.nn.relu(x) * self.inner.scale

    @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
    def nested(self, x: Any) -> Any:
        return self._helper(x) + 1.0

    @tf.function(input_signature=[])
    def vocab_file(self) -> Any:
        return self.vocab.asset_path


class ControlFlow(tf.Module):
    """tf.cond and tf.while_loop in a saved function (If/While ops with branch and body functions)."""

    def __init__(self) -> None:
        super().__init__()
        self.v = tf.Variable(2.0)

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32), tf.TensorSpec([], tf.int32)])
    def __call__(self, x: Any, n: Any) -> Any:
        y = tf.cond(x > 0, lambda: x * self.v, lambda: -x)
        _, acc = tf.while_loop(lambda i, acc: i < n, lambda i, acc: (i + 1, acc + y), (tf.constant(0), 0.0))
        return acc


class Unsupported(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
    def __call__(self, x: Any) -> Any:
        return tf.math.zeta(x, x + 1.0)


def _cli_show(path: Path) -> str:
    cli = Path(sys.executable).with_name("saved_model_cli")
    text = subprocess.run([str(cli), "show", "--dir", str(path), "--all"], capture_output=True, text=True, check=True)
    return _sorted_op_set(text.stdout.replace(str(path), "<dir>"))


def _value(tensor: Any) -> Any:
    array = np.asarray(tensor)
    if array.dtype.kind in "SO":
        return {"dtype": "string", "value": [v.decode() if isinstance(v, bytes) else v for v in array.reshape(-1)]}
    return {"dtype": tf.as_dtype(array.dtype).name, "shape": list(array.shape), "value": array.reshape(-1).tolist()}


def _structure(result: Any) -> Any:
    if isinstance(result, dict):
        return {k: _value(v) for k, v in result.items()}
    return _value(result)



def _sorted_op_set(text: str) -> str:
    """saved_model_cli prints the op set in Python's set order (varies per run): sorted, the file stays stable."""
    return re.sub(
        r"contains the following ops: \{(.*)\}",
        lambda m: "contains the following ops: {" + ", ".join(sorted(m.group(1).split(", "))) + "}",
        text,
    )

def main() -> None:
    # from_modtensor/ belongs to tools/check_modtensor_saved_models_in_tf.py
    for name in ("module", "keras", "control_flow", "unsupported_op"):
        shutil.rmtree(OUT / name, ignore_errors=True)
    OUT.mkdir(parents=True, exist_ok=True)
    expected: dict[str, Any] = {"tf_version": tf.__version__}
    scratch = OUT.parent / "_vocab_scratch"
    scratch.mkdir(exist_ok=True)
    vocab = scratch / "vocab.txt"
    vocab.write_text("alpha\nbeta\n")

    module = Scaler(str(vocab))
    module.poly(tf.constant([1.0, 2.0]))
    module.poly(tf.constant([[1, 2]], tf.int32))
    tf.saved_model.save(
        module,
        str(OUT / "module"),
        signatures={"serving_default": module.__call__, "bump": module.bump, "multi": module.multi},
    )
    shutil.rmtree(scratch)

    loaded = tf.saved_model.load(str(OUT / "module"))
    x = np.array([[1.0, 1.0], [0.0, 2.0]], np.float32)
    calls = [
        ("serving_default", {"x": x.tolist()}, _structure(loaded.signatures["serving_default"](x=tf.constant(x)))),
        ("call", {"x": x.tolist()}, _structure(loaded(tf.constant(x)))),
        ("bump", {"n": 2}, _structure(loaded.bump(tf.constant(2, tf.int64)))),
        ("bump_signature", {"n": 3}, _structure(loaded.signatures["bump"](n=tf.constant(3, tf.int64)))),
        ("multi", {"a": [1.0, 2.0, 3.0], "k": 0.5}, _structure(loaded.signatures["multi"](
            a=tf.constant([1.0, 2.0, 3.0]), k=tf.constant(0.5)))),
        ("poly_float", {"x": [1.0, 2.0]}, _structure(loaded.poly(tf.constant([1.0, 2.0])))),
        ("poly_int", {"x": [[1, 2]]}, _structure(loaded.poly(tf.constant([[1, 2]], tf.int32)))),
        ("nested", {"x": [-1.0, 0.5, 2.0]}, _structure(loaded.nested(tf.constant([-1.0, 0.5, 2.0])))),
        ("vocab_file", {}, _structure(loaded.vocab_file())),
    ]
    errors: dict[str, str] = {}
    try:
        loaded.poly(tf.constant([1.0, 2.0, 3.0], tf.float64))
    except Exception as e:  # noqa: BLE001 - recording TF's text
        errors["poly_no_match"] = f"{type(e).__name__}: {e}"
    expected["module"] = {
        "calls": [{"name": n, "inputs": i, "result": r} for n, i, r in calls],
        "count_after": int(loaded.count.numpy()),
        "vocab_text": Path(loaded.vocab.asset_path.numpy().decode()).read_text(),
        "signature_keys": sorted(loaded.signatures.keys()),
        "errors": errors,
        "cli_show": _cli_show(OUT / "module"),
    }

    import keras

    keras.utils.set_random_seed(7)
    inputs = keras.Input((6, 6, 3), name="features")
    x = keras.layers.Conv2D(4, 3, padding="same", activation="relu", name="conv")(inputs)
    x = keras.layers.BatchNormalization(name="bn")(x)
    x = keras.layers.MaxPooling2D(name="pool")(x)
    x = keras.layers.Dropout(0.25, name="drop")(x)
    x = keras.layers.Flatten(name="flat")(x)
    x = keras.layers.Dense(16, activation="relu", name="d1")(x)
    outputs = keras.layers.Dense(4, activation="softmax", name="d2")(x)
    model = keras.Model(inputs, outputs)
    # non-trivial batch-norm statistics, as after training
    bn = model.get_layer("bn")
    bn.moving_mean.assign(np.linspace(-0.2, 0.3, 4).astype(np.float32))
    bn.moving_variance.assign(np.linspace(0.5, 1.5, 4).astype(np.float32))
    model.export(str(OUT / "keras"), verbose=False)
    features = np.linspace(-1.0, 1.0, 3 * 6 * 6 * 3, dtype=np.float32).reshape(3, 6, 6, 3)
    loaded = tf.saved_model.load(str(OUT / "keras"))
    expected["keras"] = {
        "features": features.tolist(),
        "serve": _value(loaded.serve(tf.constant(features))),
        "serving_default": _structure(loaded.signatures["serving_default"](features=tf.constant(features))),
        "keras_predict": model.predict(features, verbose=0).tolist(),
        "cli_show": _cli_show(OUT / "keras"),
    }

    flow = ControlFlow()
    tf.saved_model.save(flow, str(OUT / "control_flow"))
    expected["control_flow"] = [
        {"x": x, "n": n, "result": float(flow(tf.constant(x), tf.constant(n)).numpy())}
        for x, n in ((3.0, 4), (-1.5, 3), (2.0, 0))
    ]
    tf.saved_model.save(Unsupported(), str(OUT / "unsupported_op"))
    (OUT / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
