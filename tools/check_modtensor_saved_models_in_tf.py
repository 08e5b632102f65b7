"""Check that TensorFlow 2.21 loads and calls the SavedModels modtensor writes; record the result for the tests.

Run with the TensorFlow scratch venv, modtensor importable (its in-place build under src/, or a
PYTHONPATH entry holding a ``modtensor`` link to an installed copy):

    /work/tfvenv/bin/python tools/check_modtensor_saved_models_in_tf.py

1. modtensor saves the module of ``tests/train/saved_model_models.py`` (variables, an asset, three
   signatures, a stateful and a polymorphic method) into ``tests/golden/saved_model/from_modtensor/model``.
2. TensorFlow loads it with ``tf.saved_model.load`` and calls every signature and method (the
   stateful ones twice), reads the variables and the asset, and runs ``saved_model_cli show --all``.
3. modtensor loads TF's ``tests/golden/saved_model/module``, calls its stateful ``bump(5)`` and saves it again into
   ``from_modtensor/resaved``; TensorFlow loads that and calls it (``resaved`` in the result).
4. modtensor saves the lookup tables of ``make_tables`` into ``from_modtensor/tables``; TF 2 and TF 1's loader
   load and call them (``tables`` in the result).
5. The outcome goes to ``from_modtensor/tf_result.json``; ``tests/train/test_saved_model_save.py``
   checks it and that modtensor still writes exactly the committed files.
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

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "train"))
if "modtensor" not in sys.modules:
    sys.path.append(str(REPO / "src"))

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from saved_model_models import TABLE_WORDS, make_scaler, make_tables, save_scaler  # noqa: E402

import modtensor as mt  # noqa: E402

OUT = REPO / "tests" / "golden" / "saved_model" / "from_modtensor"


def value(result: Any) -> Any:
    if isinstance(result, dict):
        return {k: value(v) for k, v in sorted(result.items())}
    array = np.asarray(result)
    if array.dtype.kind in "SO":
        return [v.decode() for v in array.reshape(-1)]
    return {"dtype": tf.as_dtype(array.dtype).name, "shape": list(array.shape), "value": array.reshape(-1).tolist()}


def attempt(fn: Any) -> Any:
    try:
        return value(fn())
    except Exception as e:  # noqa: BLE001 - recorded for the test
        return {"error": f"{type(e).__name__}: {e}"}



def _sorted_op_set(text: str) -> str:
    """saved_model_cli prints the op set in Python's set order (varies per run): sorted, the file stays stable."""
    return re.sub(
        r"contains the following ops: \{(.*)\}",
        lambda m: "contains the following ops: {" + ", ".join(sorted(m.group(1).split(", "))) + "}",
        text,
    )

def resave(result: dict[str, Any]) -> None:
    """A TF SavedModel loaded by modtensor, changed by a stateful call and saved again, loaded by TF."""
    loaded = mt.saved_model.load(str(OUT.parent / "module"))
    loaded.bump(mt.constant(5, mt.int64))
    mt.saved_model.save(loaded, str(OUT / "resaved"))
    again = tf.saved_model.load(str(OUT / "resaved"))
    x = tf.constant([[1.0, 1.0], [0.0, 2.0]])
    result["resaved"] = {
        "signature_keys": sorted(again.signatures.keys()),
        "count": attempt(lambda: again.count),
        "serving_default": attempt(lambda: again.signatures["serving_default"](x=x)),
        "bump": attempt(lambda: again.bump(tf.constant(1, tf.int64))),
        "nested": attempt(lambda: again.nested(tf.constant([-1.0, 0.5, 2.0]))),
        "poly_int": attempt(lambda: again.poly(tf.constant([[1, 2]], tf.int32))),
        "vocab_text": attempt(lambda: Path(again.vocab_file().numpy().decode()).read_text()),
    }


def tables(result: dict[str, Any]) -> None:
    """Lookup tables saved by modtensor (its vocabulary file removed after the save: the asset travels), loaded by
    TF 2 (functions, signature, a stateful insert) and by TF 1's loader (the init op fills the tables)."""
    vocab = OUT / "colors.txt"
    vocab.write_text("red\ngreen\nblue\n")
    module = make_tables(mt, str(vocab))
    mt.saved_model.save(module, str(OUT / "tables"), signatures={"serving_default": module.__call__})
    vocab.unlink()
    loaded = tf.saved_model.load(str(OUT / "tables"))
    words = tf.constant(TABLE_WORDS)
    entry = {
        "call": attempt(lambda: loaded(words)),
        "count": attempt(lambda: loaded.count(tf.constant(["seen", "new", "new"]))),
        "serving_default": attempt(lambda: loaded.signatures["serving_default"](words=words)),
    }
    with tf.compat.v1.Graph().as_default(), tf.compat.v1.Session() as session:
        meta = tf.compat.v1.saved_model.loader.load(session, ["serve"], str(OUT / "tables"))
        signature = meta.signature_def["serving_default"]
        fetches = {k: v.name for k, v in signature.outputs.items()}
        entry["tf1_session"] = attempt(lambda: session.run(fetches, {signature.inputs["words"].name: TABLE_WORDS}))
    result["tables"] = entry


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    vocab = OUT / "vocab.txt"
    vocab.write_text("alpha\nbeta\n")
    module = make_scaler(mt, str(vocab))
    save_scaler(mt, module, str(OUT / "model"))
    vocab.unlink()
    loaded = tf.saved_model.load(str(OUT / "model"))
    x = tf.constant([[1.0, 1.0], [0.0, 2.0]])
    result = {
        "tf_version": tf.__version__,
        "signature_keys": sorted(loaded.signatures.keys()),
        "serving_default": attempt(lambda: loaded.signatures["serving_default"](x=x)),
        "call": attempt(lambda: loaded(x)),
        "bump": attempt(lambda: loaded.bump(tf.constant(2, tf.int64))),
        "bump_signature": attempt(lambda: loaded.signatures["bump"](n=tf.constant(3, tf.int64))),
        "multi": attempt(lambda: loaded.signatures["multi"](a=tf.constant([1.0, 2.0, 3.0]), k=tf.constant(0.5))),
        "poly_float": attempt(lambda: loaded.poly(tf.constant([1.0, 2.0]))),
        "poly_int": attempt(lambda: loaded.poly(tf.constant([[1, 2]], tf.int32))),
        "vocab_text": attempt(lambda: Path(loaded.vocab_file().numpy().decode()).read_text()),
        "count_after": attempt(lambda: loaded.count),
        "scale": attempt(lambda: loaded.inner.scale),
        "layer0": attempt(lambda: loaded.layers[0]),
    }
    resave(result)
    tables(result)
    cli = Path(sys.executable).with_name("saved_model_cli")
    shown = subprocess.run([str(cli), "show", "--dir", str(OUT / "model"), "--all"], capture_output=True, text=True)
    result["cli_show_returncode"] = shown.returncode
    result["cli_show"] = _sorted_op_set(shown.stdout.replace(str(OUT / "model"), "<dir>"))
    (OUT / "tf_result.json").write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "cli_show"}, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
