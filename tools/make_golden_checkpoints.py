"""Write TensorFlow 2.21 checkpoints for modtensor's checkpoint tests under tests/golden/checkpoint/.

Run with the TensorFlow scratch venv (modtensor and its tests never import TensorFlow):

    /work/tfvenv/bin/python tools/make_golden_checkpoints.py

Writes:

- ``tf_module/``: ``tf.train.Checkpoint(model=..., extra=...)`` saved twice (``ckpt-1``, ``ckpt-2`` and
  the ``checkpoint`` state file): nested ``tf.Module``s, a list of layers, a dict with keys that
  need escaping (``a/b``, ``c.d``), variables of many dtypes (float32/float64/float16/bfloat16/int8/
  uint8/int32/int64/bool/string/complex64). ``expected.json``: every key's dtype, shape and value
  per checkpoint, the object graph as text, and ``list_variables``.
- ``manager/``: a ``CheckpointManager(max_to_keep=2)`` after three saves (state file with timestamps).
- ``optimizer/``: a module and a Keras 3 Adam after two steps (``optimizer/_iterations``,
  ``_learning_rate``, ``_variables/<i>`` slots) and the variables after a third step.
- ``v1_saver/``: a ``compat.v1.train.Saver`` checkpoint of a v1 graph (name-based keys, ``model.ckpt-7``).
- ``errors.json``: TF's errors for a shape and a dtype mismatch, a missing checkpoint, a missing
  key, a corrupted data file and a directory given as prefix, and the statuses' assertion texts.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from google.protobuf import text_format  # noqa: E402
from tensorflow.core.protobuf import trackable_object_graph_pb2  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "train"))
from checkpoint_models import build_counter, build_model  # noqa: E402

OUT = REPO / "tests" / "golden" / "checkpoint"


def describe(prefix: str) -> dict[str, Any]:
    reader = tf.train.load_checkpoint(prefix)
    shapes = reader.get_variable_to_shape_map()
    dtypes = reader.get_variable_to_dtype_map()
    out: dict[str, Any] = {}
    for key in sorted(shapes):
        value = reader.get_tensor(key)
        if key == "_CHECKPOINTABLE_OBJECT_GRAPH":
            graph = trackable_object_graph_pb2.TrackableObjectGraph.FromString(value)
            out[key] = {"dtype": "string", "shape": [], "object_graph": text_format.MessageToString(graph)}
            continue
        value = np.asarray(value)
        dtype = dtypes[key].name
        if dtype == "string":
            listed: Any = [v.decode("latin-1") for v in value.reshape(-1)]
        elif dtype == "bfloat16" or dtype == "float16":
            listed = value.astype(np.float32).reshape(-1).tolist()
        elif dtype == "complex64":
            listed = [[float(v.real), float(v.imag)] for v in value.reshape(-1)]
        else:
            listed = value.reshape(-1).tolist()
        out[key] = {"dtype": dtype, "shape": list(shapes[key]), "values": listed}
    return out


def error_text(fn: Any) -> dict[str, str]:
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - recording whatever TF raises
        return {"type": type(e).__name__, "message": str(e)}
    return {"type": "none", "message": ""}


def main() -> None:
    if OUT.exists():
        shutil.rmtree(OUT / "tf_module", ignore_errors=True)
        shutil.rmtree(OUT / "manager", ignore_errors=True)
        shutil.rmtree(OUT / "v1_saver", ignore_errors=True)
        shutil.rmtree(OUT / "optimizer", ignore_errors=True)
    OUT.mkdir(parents=True, exist_ok=True)
    expected: dict[str, Any] = {"tf_version": tf.__version__}

    # ---------------------------------------------------------------- tf_module: two saves
    model, extra = build_model(tf, 1.0)
    checkpoint = tf.train.Checkpoint(model=model, extra=extra)
    first = checkpoint.save(str(OUT / "tf_module" / "ckpt"))
    model2, extra2 = build_model(tf, 2.0)
    for var, new in zip(
        [*model.trainable_variables, *extra.trainable_variables],
        [*model2.trainable_variables, *extra2.trainable_variables],
        strict=True,
    ):
        var.assign(new)
    second = checkpoint.save(str(OUT / "tf_module" / "ckpt"))
    expected["tf_module"] = {
        "paths": [os.path.basename(first), os.path.basename(second)],
        "state_file": (OUT / "tf_module" / "checkpoint").read_text(),
        "ckpt-1": describe(first),
        "ckpt-2": describe(second),
        "list_variables": [[k, list(s)] for k, s in tf.train.list_variables(str(OUT / "tf_module"))],
        "latest": os.path.basename(tf.train.latest_checkpoint(str(OUT / "tf_module"))),
        "debug_string": tf.train.load_checkpoint(second).debug_string().decode(),
    }

    # ---------------------------------------------------------------- manager
    counter = build_counter(tf)
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(counter=counter), str(OUT / "manager"), max_to_keep=2)
    saved = []
    for i in range(3):
        counter.v.assign(float(i))
        saved.append(os.path.basename(manager.save()))
    expected["manager"] = {
        "saved": saved,
        "kept": [os.path.basename(p) for p in manager.checkpoints],
        "files": sorted(os.listdir(OUT / "manager")),
    }

    # ---------------------------------------------------------------- a Keras 3 optimizer's slots
    import keras

    trained = tf.Module()
    trained.v = tf.Variable([1.0, 2.0], name="v")
    trained.u = tf.Variable(3.0, name="u")
    optimizer = keras.optimizers.Adam(0.1)
    grads = [[tf.constant([0.1, 0.2]), tf.constant(0.5)], [tf.constant([-0.3, 0.4]), tf.constant(0.25)]]
    for step in grads:
        optimizer.apply_gradients(zip(step, [trained.v, trained.u], strict=False))
    prefix = tf.train.Checkpoint(model=trained, optimizer=optimizer).write(str(OUT / "optimizer" / "ckpt"))
    before = {
        "iterations": int(optimizer.iterations.numpy()),
        "slots": [np.asarray(v.numpy()).reshape(-1).tolist() for v in optimizer.variables[2:]],
    }
    optimizer.apply_gradients(zip([tf.constant([0.5, -0.5]), tf.constant(1.0)], [trained.v, trained.u], strict=False))
    expected["optimizer"] = {
        "keys": [[k, list(s)] for k, s in tf.train.list_variables(prefix)],
        "saved": before,
        "after_third_step": {"v": trained.v.numpy().tolist(), "u": float(trained.u.numpy())},
    }

    # ---------------------------------------------------------------- v1 Saver
    graph = tf.Graph()
    with graph.as_default():
        w = tf.compat.v1.get_variable("w", initializer=tf.constant([[1.0, 2.0], [3.0, 4.0]]))
        with tf.compat.v1.variable_scope("scope"):
            b = tf.compat.v1.get_variable("b", initializer=tf.constant([0.25, 0.75]))
        step = tf.compat.v1.train.get_or_create_global_step()
        saver = tf.compat.v1.train.Saver()
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            session.run(step.assign(7))
            path = saver.save(session, str(OUT / "v1_saver" / "model.ckpt"), global_step=step, write_meta_graph=False)
        del w, b
    expected["v1_saver"] = {"path": os.path.basename(path), "values": describe(path)}

    # ---------------------------------------------------------------- errors
    errors: dict[str, Any] = {}
    scratch = Path("/tmp/modtensor_golden_checkpoint_errors")
    shutil.rmtree(scratch, ignore_errors=True)
    good = tf.Module()
    good.v = tf.Variable([1.0, 2.0], name="v")
    good.s = tf.Variable(1, dtype=tf.int64)
    prefix = tf.train.Checkpoint(model=good).write(str(scratch / "ck"))
    wrong_shape = tf.Module()
    wrong_shape.v = tf.Variable([1.0, 2.0, 3.0], name="v")
    wrong_shape.s = tf.Variable(1, dtype=tf.int64)
    errors["shape_mismatch"] = error_text(lambda: tf.train.Checkpoint(model=wrong_shape).read(prefix))
    wrong_dtype = tf.Module()
    wrong_dtype.v = tf.Variable([1, 2], name="v")
    wrong_dtype.s = tf.Variable(1, dtype=tf.int64)
    errors["dtype_mismatch"] = error_text(lambda: tf.train.Checkpoint(model=wrong_dtype).read(prefix))
    errors["missing_checkpoint"] = error_text(lambda: tf.train.Checkpoint(model=good).read(str(scratch / "nope")))
    errors["missing_key"] = error_text(lambda: tf.train.load_checkpoint(prefix).get_tensor("nope"))
    errors["directory_as_prefix"] = error_text(lambda: tf.train.Checkpoint(model=good).read(str(scratch)))
    errors["empty_directory"] = error_text(lambda: tf.train.load_checkpoint(str(scratch)))
    fewer = tf.Module()
    fewer.v = tf.Variable([1.0, 2.0])
    errors["assert_consumed_unresolved"] = error_text(
        lambda: tf.train.Checkpoint(model=fewer).read(prefix).assert_consumed()
    )
    more = tf.Module()
    more.v = tf.Variable([1.0, 2.0])
    more.s = tf.Variable(1, dtype=tf.int64)
    more.t = tf.Variable(0.0)
    errors["assert_consumed_unbound"] = error_text(
        lambda: tf.train.Checkpoint(model=more).read(prefix).assert_consumed()
    )
    errors["assert_nontrivial_match"] = error_text(
        lambda: tf.train.Checkpoint(other=fewer).read(prefix).assert_nontrivial_match()
    )
    errors["restore_none"] = error_text(lambda: tf.train.Checkpoint(model=good).restore(None).assert_consumed())
    errors["not_trackable"] = error_text(lambda: tf.train.Checkpoint(model=1))
    data = bytearray((scratch / "ck.data-00000-of-00001").read_bytes())
    data[0] ^= 1
    (scratch / "ck.data-00000-of-00001").write_bytes(bytes(data))
    errors["corrupted_data"] = error_text(lambda: tf.train.Checkpoint(model=good).read(prefix))
    expected["errors"] = errors
    shutil.rmtree(scratch, ignore_errors=True)

    (OUT / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
