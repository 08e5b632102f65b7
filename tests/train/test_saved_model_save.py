"""tf.saved_model.save: TensorFlow 2.21 loads and calls what modtensor writes.

tools/check_modtensor_saved_models_in_tf.py ran TF on tests/golden/saved_model/from_modtensor/ and
recorded tf_result.json; modtensor loads the same files back too.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import modtensor as tf

from .saved_model_models import TABLE_WORDS, make_scaler, make_tables, save_scaler

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "saved_model" / "from_modtensor"
RESULT = json.loads((GOLDEN / "tf_result.json").read_text())


def _value(result: object) -> object:
    if isinstance(result, dict):
        return {k: _value(v) for k, v in sorted(result.items())}
    array = np.asarray(result)
    return {"dtype": result.dtype.name, "shape": list(array.shape), "value": array.reshape(-1).tolist()}


def _save(tmp_path: Path) -> Path:
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("alpha\nbeta\n")
    module = make_scaler(tf, str(vocab))
    save_scaler(tf, module, str(tmp_path / "model"))
    return tmp_path / "model"


def test_tensorflow_loads_and_calls_modtensor_saved_model(tmp_path: Path) -> None:
    assert RESULT["tf_version"] == "2.21.0" and RESULT["cli_show_returncode"] == 0
    assert not [k for k, v in RESULT.items() if isinstance(v, dict) and "error" in v]
    assert RESULT["signature_keys"] == ["bump", "multi", "serving_default"]
    assert RESULT["serving_default"]["output_0"]["value"] == [4.5, 5.5, 6.5, 7.5]
    assert RESULT["bump"]["value"] == [2] and RESULT["bump_signature"]["output_0"]["value"] == [5]
    assert RESULT["count_after"]["value"] == [5]
    assert RESULT["multi"]["scaled"]["value"] == [1.5, 4.0, 6.5] and RESULT["multi"]["total"]["value"] == [6.5]
    assert RESULT["poly_int"]["value"] == [4, 6] and RESULT["vocab_text"]["value"] == ["alpha\nbeta\n"]
    # modtensor still writes exactly the files TensorFlow loaded
    saved = _save(tmp_path)
    for name in ("saved_model.pb", "variables/variables.index", "variables/variables.data-00000-of-00001",
                 "assets/vocab.txt"):
        assert (saved / name).read_bytes() == (GOLDEN / "model" / name).read_bytes(), name


def test_modtensor_loads_its_own_saved_model(tmp_path: Path) -> None:
    loaded = tf.saved_model.load(str(_save(tmp_path)))
    x = np.array([[1.0, 1.0], [0.0, 2.0]], np.float32)
    assert _value(loaded.signatures["serving_default"](x=x)) == RESULT["serving_default"]
    assert _value(loaded(x)) == RESULT["call"]
    assert _value(loaded.bump(tf.constant(2, tf.int64))) == RESULT["bump"]
    assert _value(loaded.signatures["bump"](n=tf.constant(3, tf.int64))) == RESULT["bump_signature"]
    multi = loaded.signatures["multi"](a=tf.constant([1.0, 2.0, 3.0]), k=tf.constant(0.5))
    assert _value(multi) == RESULT["multi"]
    assert _value(loaded.poly(tf.constant([[1, 2]], tf.int32))) == RESULT["poly_int"]
    assert Path(loaded.vocab_file().numpy().decode()).read_text() == "alpha\nbeta\n"
    assert loaded.layers[0].numpy().tolist() == [0.0, 1.0, 2.0]


def test_inspect_of_a_modtensor_saved_model_matches_saved_model_cli(tmp_path: Path, capsys) -> None:
    from modtensor.cli.main import main

    from .test_saved_model_cli import _ops_as_set

    assert main(["inspect", str(GOLDEN / "model")]) == 0
    ours = _ops_as_set(capsys.readouterr().out).split("Concrete Functions:")
    theirs = _ops_as_set(RESULT["cli_show"]).split("Concrete Functions:")
    assert ours[0] == theirs[0]  # the signatures and ops; TF orders a function's traces by its own renamed names
    assert sorted(ours[1].splitlines()) == sorted(theirs[1].splitlines())


def test_save_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="Expected an object of type `Trackable`"):
        tf.saved_model.save(object(), str(tmp_path / "a"))
    hidden = tf.Variable(1.0)
    module = tf.Module()
    module.f = tf.function(lambda: hidden * 2.0, input_signature=[])
    with pytest.raises(ValueError, match="references an 'untracked' resource"):
        tf.saved_model.save(module, str(tmp_path / "b"))
    module.f = tf.function(lambda x: x, input_signature=None)
    with pytest.raises(ValueError, match="must have an input_signature"):
        tf.saved_model.save(module, str(tmp_path / "c"), signatures=module.f)


def test_loaded_saved_model_saved_again(tmp_path: Path) -> None:
    """TF's SavedModel loaded, changed by a stateful call, saved again by modtensor: TF loads and calls it (golden
    result), modtensor writes the same files today and loads them back."""
    resaved = RESULT["resaved"]
    assert resaved["signature_keys"] == ["bump", "multi", "serving_default"]
    assert resaved["count"]["value"] == [5] and resaved["bump"]["value"] == [6]
    assert resaved["nested"]["value"] == [1.0, 2.5, 7.0] and resaved["poly_int"]["value"] == [4, 6]
    assert resaved["serving_default"]["output_0"]["value"] == [4.5, 5.5, 6.5, 7.5]
    assert resaved["vocab_text"]["value"] == ["alpha\nbeta\n"]
    loaded = tf.saved_model.load(str(GOLDEN.parent / "module"))
    loaded.bump(tf.constant(5, tf.int64))
    tf.saved_model.save(loaded, str(tmp_path / "resaved"))
    for name in ("saved_model.pb", "variables/variables.index", "variables/variables.data-00000-of-00001",
                 "assets/vocab.txt"):
        assert (tmp_path / "resaved" / name).read_bytes() == (GOLDEN / "resaved" / name).read_bytes(), name
    again = tf.saved_model.load(str(tmp_path / "resaved"))
    assert again.count.numpy() == 5 and again.bump(tf.constant(1, tf.int64)).numpy() == 6
    assert again.nested(tf.constant([-1.0, 0.5, 2.0])).numpy().tolist() == [1.0, 2.5, 7.0]


def test_without_signatures_the_only_function_with_an_input_signature_serves_by_default(tmp_path: Path) -> None:
    """TF's find_function_to_export: one tf.function with an input_signature on the root becomes serving_default."""

    class One(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def __call__(self, x):
            return x * 2.0

        @tf.function
        def untyped(self, x):  # no input_signature: never a default signature
            return x

    tf.saved_model.save(One(), str(tmp_path / "one"))
    loaded = tf.saved_model.load(str(tmp_path / "one"))
    assert list(loaded.signatures) == ["serving_default"]
    out = loaded.signatures["serving_default"](x=tf.constant([1.0, 2.0]))
    np.testing.assert_array_equal(out["output_0"].numpy(), [2.0, 4.0])

    class Two(One):
        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def other(self, y):
            return y

    tf.saved_model.save(Two(), str(tmp_path / "two"))
    assert list(tf.saved_model.load(str(tmp_path / "two")).signatures) == []  # ambiguous: none, as TF


def test_tensorflow_loads_lookup_tables_modtensor_saved(tmp_path: Path) -> None:
    """Static, vocabulary-file and mutable tables saved by modtensor: TF 2 loaded the committed save and got these
    numbers (a TF-exported module with the same tables gives them too: tests/golden/lookup/saved_models); TF 1's
    loader fills the static tables through the init op. modtensor loads both its committed save and a fresh one."""
    tables = RESULT["tables"]
    assert not [k for k, v in tables.items() if "error" in v]
    expected = {"colors": [4, 1, 3, 3, 3, 2], "counts": [0, 0, 7, 0, 0, 0],
                "static": [1.5, -1.0, -1.0, -1.0, 3.5, -1.0]}  # fmt: skip
    assert {k: v["value"] for k, v in tables["call"].items()} == expected
    assert tables["count"]["value"] == [2]
    assert tables["serving_default"]["counts"]["value"] == [0, 0, 8, 0, 0, 0]
    # no saver_def: TF 1's loader does not restore the mutable table's entries (nor variables), as documented
    assert tables["tf1_session"]["colors"]["value"] == expected["colors"]
    assert tables["tf1_session"]["static"]["value"] == expected["static"]

    vocab = tmp_path / "colors.txt"
    vocab.write_text("red\ngreen\nblue\n")
    module = make_tables(tf, str(vocab))
    tf.saved_model.save(module, str(tmp_path / "tables"), signatures={"serving_default": module.__call__})
    vocab.unlink()  # the file went with the model as an asset
    assert (tmp_path / "tables" / "assets" / "colors.txt").read_text() == "red\ngreen\nblue\n"
    # Each loads in a process of its own, as a server would: a table's resource has TF's process-unique shared
    # name, which a load in the saving process would share with the live table (as in TF).
    script = (
        "import json, sys\nimport modtensor as tf\nloaded = tf.saved_model.load(sys.argv[1])\n"
        "got = {k: v.numpy().tolist() for k, v in loaded(tf.constant(json.loads(sys.argv[2]))).items()}\n"
        "print(json.dumps([got, int(loaded.count(tf.constant(['seen', 'new', 'new'])).numpy())]))"
    )
    for path in (GOLDEN / "tables", tmp_path / "tables"):
        done = subprocess.run([sys.executable, "-c", script, str(path), json.dumps(TABLE_WORDS)], capture_output=True,
                              text=True, timeout=300, check=False)  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        got, count = json.loads(done.stdout.strip().splitlines()[-1])
        assert got == expected, path
        assert count == 2, path
