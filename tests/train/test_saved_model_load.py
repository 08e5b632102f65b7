"""tf.saved_model.load of TensorFlow 2.21 SavedModels (tests/golden/saved_model/, tools/make_golden_saved_models.py).

The calls are replayed in TF's order (stateful ones change ``count``) and compared with TF's results.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import modtensor as tf
from modtensor.framework import errors

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "saved_model"
EXPECTED = json.loads((GOLDEN / "expected.json").read_text())


def _check(result: object, want: dict) -> None:
    if "dtype" not in want:
        assert isinstance(result, dict) and sorted(result) == sorted(want)
        for key, value in want.items():
            _check(result[key], value)
        return
    array = np.asarray(result)
    if want["dtype"] == "string":
        got = [v.decode() for v in array.reshape(-1)]
        assert [Path(g).parts[-3:] for g in got] == [Path(w).parts[-3:] for w in want["value"]]
        return
    assert result.dtype.name == want["dtype"]
    assert list(array.shape) == want["shape"]
    np.testing.assert_allclose(array.reshape(-1), want["value"], rtol=1e-6, atol=1e-7)


def _call(loaded: object, name: str, inputs: dict) -> object:
    if name == "serving_default":
        return loaded.signatures["serving_default"](x=tf.constant(np.array(inputs["x"], np.float32)))
    if name == "call":
        return loaded(tf.constant(np.array(inputs["x"], np.float32)))
    if name == "bump":
        return loaded.bump(tf.constant(inputs["n"], tf.int64))
    if name == "bump_signature":
        return loaded.signatures["bump"](n=tf.constant(inputs["n"], tf.int64))
    if name == "multi":
        return loaded.signatures["multi"](a=tf.constant(inputs["a"]), k=tf.constant(inputs["k"]))
    if name == "poly_float":
        return loaded.poly(tf.constant(inputs["x"]))
    if name == "poly_int":
        return loaded.poly(tf.constant(inputs["x"], tf.int32))
    if name == "nested":
        return loaded.nested(tf.constant(inputs["x"]))
    if name == "vocab_file":
        return loaded.vocab_file()
    raise AssertionError(name)


def test_module_with_variables_signatures_and_stateful_methods() -> None:
    loaded = tf.saved_model.load(str(GOLDEN / "module"))
    expected = EXPECTED["module"]
    assert sorted(loaded.signatures.keys()) == expected["signature_keys"]
    np.testing.assert_array_equal(loaded.w.numpy(), [[1.0, 2.0], [3.0, 4.0]])
    assert loaded.inner.scale.numpy() == 3.0 and loaded.count.numpy() == 0
    for call in expected["calls"]:
        _check(_call(loaded, call["name"], call["inputs"]), call["result"])
    assert loaded.count.numpy() == expected["count_after"]
    path = loaded.vocab.asset_path.numpy().decode()
    assert Path(path).read_text() == expected["vocab_text"]
    assert loaded.tensorflow_version == EXPECTED["tf_version"]


def test_restored_function_dispatch_and_errors() -> None:
    loaded = tf.saved_model.load(str(GOLDEN / "module"))
    with pytest.raises(ValueError) as info:
        loaded.poly(tf.constant([1.0, 2.0, 3.0], tf.float64))
    tf_text = EXPECTED["module"]["errors"]["poly_no_match"]
    assert str(info.value).split("Got:")[0] == tf_text.split("Got:")[0].replace("ValueError: ", "")
    assert str(info.value).split("Expected these")[1] == tf_text.split("Expected these")[1]
    serving = loaded.signatures["serving_default"]
    x = np.ones((1, 2), np.float32)
    np.testing.assert_array_equal(serving(tf.constant(x))["output_0"].numpy(), serving(x=x)["output_0"].numpy())
    with pytest.raises(TypeError, match="missing required argument: 'x'"):
        serving()
    with pytest.raises(TypeError, match="do not match"):
        serving(x=np.ones((1, 3), np.float32))
    # Python values and numpy arrays convert to the traced dtype
    np.testing.assert_allclose(loaded(np.array([[1.0, 0.0]], np.float32)).numpy(), [[1.5, 1.5]])


def test_keras_export_serve_and_signature() -> None:
    loaded = tf.saved_model.load(str(GOLDEN / "keras"))
    expected = EXPECTED["keras"]
    features = np.array(expected["features"], np.float32)
    _check(loaded.serve(tf.constant(features)), expected["serve"])
    _check(loaded.signatures["serving_default"](features=tf.constant(features)), expected["serving_default"])
    np.testing.assert_allclose(loaded.serve(features).numpy(), expected["keras_predict"], rtol=1e-6)
    # conv kernel and bias, batch-norm gamma, beta, moving mean and variance, the dropout's seed, two dense layers
    assert len(loaded.variables) == 11 and loaded.variables[0].shape == (3, 3, 3, 4)
    assert len(loaded.non_trainable_variables) == 3


def test_function_runs_in_tf_function_and_with_device_scope() -> None:
    loaded = tf.saved_model.load(str(GOLDEN / "keras"))
    features = np.array(EXPECTED["keras"]["features"], np.float32)
    with tf.device("/CPU:0"):
        out = loaded.serve(features)
    np.testing.assert_allclose(out.numpy(), EXPECTED["keras"]["keras_predict"], rtol=1e-6)


def test_unsupported_op_names_the_op_and_function() -> None:
    with pytest.raises(errors.NotFoundError) as info:
        tf.saved_model.load(str(GOLDEN / "unsupported_op"))
    message = str(info.value)
    assert "Op type not registered 'Zeta'" in message and "__inference___call__" in message
    assert str(GOLDEN / "unsupported_op") in message


def test_missing_and_broken_saved_models(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="SavedModel file does not exist at: "):
        tf.saved_model.load(str(tmp_path))
    broken = tmp_path / "broken"
    shutil.copytree(GOLDEN / "keras", broken)
    (broken / "saved_model.pb").write_bytes((GOLDEN / "keras" / "saved_model.pb").read_bytes()[:1000])
    with pytest.raises(OSError, match="Cannot parse file"):
        tf.saved_model.load(str(broken))
    shutil.rmtree(broken)
    shutil.copytree(GOLDEN / "keras", broken)
    data = broken / "variables" / "variables.data-00000-of-00001"
    data.write_bytes(data.read_bytes()[:100])
    with pytest.raises(errors.DataLossError, match="truncated") as info:
        tf.saved_model.load(str(broken))
    assert str(data) in str(info.value)
    with pytest.raises(RuntimeError, match="could not be found in SavedModel"):
        tf.saved_model.load(str(GOLDEN / "keras"), tags=["train"])
    assert tf.saved_model.contains_saved_model(str(GOLDEN / "keras"))
    assert not tf.saved_model.contains_saved_model(str(tmp_path))


def test_restored_functions_called_inside_a_tf_function() -> None:
    """Called while a function is traced, a restored function's body goes into that graph (stateful ones in order)."""
    keras = tf.saved_model.load(str(GOLDEN / "keras"))
    features = np.array(EXPECTED["keras"]["features"], np.float32)

    @tf.function
    def doubled(x: object) -> object:
        return keras.serve(x) * 2.0

    np.testing.assert_allclose(doubled(tf.constant(features)).numpy(),
                               2 * np.array(EXPECTED["keras"]["keras_predict"]), rtol=1e-6)
    module = tf.saved_model.load(str(GOLDEN / "module"))

    @tf.function
    def twice(n: object) -> object:
        return module.bump(n) + module.signatures["bump"](n=n)["output_0"]

    assert twice(tf.constant(1, tf.int64)).numpy() == 1 + 2
    assert twice(tf.constant(1, tf.int64)).numpy() == 3 + 4 and module.count.numpy() == 4


def test_control_flow_saved_model() -> None:
    """tf.cond and tf.while_loop in a TF SavedModel: If/While ops calling library functions of the SavedModel."""
    from modtensor.framework.op_registry import global_registry

    if global_registry().lookup("StatelessWhile") is None or global_registry().lookup("If") is None:
        pytest.skip("functional control flow ops (If/While, issue 10's functional control flow) are not registered")
    loaded = tf.saved_model.load(str(GOLDEN / "control_flow"))
    for case in EXPECTED["control_flow"]:
        assert loaded(tf.constant(case["x"]), tf.constant(case["n"])).numpy() == case["result"]
