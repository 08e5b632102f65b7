"""Check that TensorFlow 2.21 restores the checkpoints modtensor writes; record the result for the tests.

Run with the TensorFlow scratch venv, modtensor importable (its in-place build under src/, or a
PYTHONPATH entry holding a ``modtensor`` link to an installed copy):

    /work/tfvenv/bin/python tools/check_modtensor_checkpoints_in_tf.py

1. modtensor saves ``tf.train.Checkpoint(model=..., extra=...)`` of ``tests/train/checkpoint_models.py``
   into ``tests/golden/checkpoint/from_modtensor/`` (``ckpt-1`` and the ``checkpoint`` state file).
2. TensorFlow builds the same objects with other values, restores ``tf.train.latest_checkpoint`` of that
   directory, runs ``assert_consumed()``, and compares every variable with the values modtensor saved;
   it also saves the same objects itself and compares the files byte for byte.
3. The outcome goes to ``from_modtensor/tf_result.json``. ``tests/train/test_checkpoint.py`` checks it,
   and that modtensor still writes exactly the committed files (so the result holds for today's writer).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "train"))
if "modtensor" not in sys.modules:
    sys.path.append(str(REPO / "src"))

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from checkpoint_models import build_model  # noqa: E402

import modtensor as mt  # noqa: E402

OUT = REPO / "tests" / "golden" / "checkpoint" / "from_modtensor"


def values(module: object) -> list[np.ndarray]:
    return [np.asarray(v.numpy()) for v in module.variables]  # type: ignore[attr-defined]


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    model, extra = build_model(mt, 1.0)
    saved = mt.train.Checkpoint(model=model, extra=extra).save(str(OUT / "ckpt"))
    result: dict[str, object] = {"tf_version": tf.__version__, "modtensor_path": os.path.basename(saved)}

    tf_model, tf_extra = build_model(tf, 0.0)
    checkpoint = tf.train.Checkpoint(model=tf_model, extra=tf_extra)
    latest = tf.train.latest_checkpoint(str(OUT))
    result["tf_latest_checkpoint"] = os.path.basename(latest) if latest else None
    try:
        checkpoint.restore(latest).assert_consumed()
        result["assert_consumed"] = "ok"
    except Exception as e:  # noqa: BLE001 - recorded for the test
        result["assert_consumed"] = f"{type(e).__name__}: {e}"
    result["save_counter"] = int(checkpoint.save_counter.numpy())
    mismatches = []
    for name, ours, theirs in zip(
        [v.name for v in tf_model.variables + tf_extra.variables],
        values(model) + values(extra),
        values(tf_model) + values(tf_extra),
        strict=True,
    ):
        if ours.dtype.kind == "O":
            same = ours.tolist() == theirs.tolist()
        else:
            same = ours.shape == theirs.shape and np.array_equal(ours.astype(theirs.dtype), theirs)
        if not same:
            mismatches.append(name)
    result["restored_variables"] = len(tf_model.variables) + len(tf_extra.variables)
    result["value_mismatches"] = mismatches

    with tempfile.TemporaryDirectory() as scratch:
        reference, reference_extra = build_model(tf, 1.0)
        tf.train.Checkpoint(model=reference, extra=reference_extra).save(os.path.join(scratch, "ckpt"))
        result["same_bytes_as_tf"] = {
            name: (OUT / name).read_bytes() == Path(scratch, name).read_bytes()
            for name in ("ckpt-1.index", "ckpt-1.data-00000-of-00001", "checkpoint")
        }
    (OUT / "tf_result.json").write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    print(json.dumps(result, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
