"""tf.train.Checkpoint, CheckpointManager and checkpoint reading against TensorFlow 2.21's files and behaviour.

Golden fixtures: ``tests/golden/checkpoint/`` (tools/make_golden_checkpoints.py writes TF's
checkpoints and texts; tools/check_modtensor_checkpoints_in_tf.py records TF restoring modtensor's).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

import modtensor as tf
from modtensor.framework import errors

from .checkpoint_models import build_counter, build_model

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "checkpoint"
EXPECTED = json.loads((GOLDEN / "expected.json").read_text())


def _as_list(value: np.ndarray, dtype: str) -> list:
    if dtype == "string":
        return [v.decode("latin-1") for v in value.reshape(-1)]
    if dtype in ("bfloat16", "float16"):
        return value.astype(np.float32).reshape(-1).tolist()
    if dtype == "complex64":
        return [[float(v.real), float(v.imag)] for v in value.reshape(-1)]
    return value.reshape(-1).tolist()


def _restored_model(prefix: str) -> tuple[object, object, tf.train.Checkpoint]:
    model, extra = build_model(tf, 0.0)
    checkpoint = tf.train.Checkpoint(model=model, extra=extra)
    checkpoint.restore(prefix).assert_consumed()
    return model, extra, checkpoint


# ============================================================================ TF's checkpoints read by modtensor


@pytest.mark.parametrize("name", ["ckpt-1", "ckpt-2"])
def test_reader_gives_tf_values_dtypes_and_shapes(name: str) -> None:
    reader = tf.train.load_checkpoint(str(GOLDEN / "tf_module" / name))
    expected = EXPECTED["tf_module"][name]
    assert sorted(reader.get_variable_to_shape_map()) == sorted(expected)
    for key, want in expected.items():
        if key == "_CHECKPOINTABLE_OBJECT_GRAPH":
            continue
        value = np.asarray(reader.get_tensor(key))
        assert reader.get_variable_to_dtype_map()[key].name == want["dtype"], key
        assert list(value.shape) == want["shape"], key
        assert _as_list(value, want["dtype"]) == want["values"], key


def test_list_variables_latest_checkpoint_and_debug_string_match_tf() -> None:
    directory = str(GOLDEN / "tf_module")
    assert [[k, s] for k, s in tf.train.list_variables(directory)] == EXPECTED["tf_module"]["list_variables"]
    assert os.path.basename(tf.train.latest_checkpoint(directory)) == EXPECTED["tf_module"]["latest"]
    assert tf.train.load_checkpoint(directory).debug_string().decode() == EXPECTED["tf_module"]["debug_string"]
    state = tf.train.get_checkpoint_state(directory)
    assert state.model_checkpoint_path == os.path.join(directory, "ckpt-2")
    assert tf.train.latest_checkpoint(str(GOLDEN)) is None


def test_restore_tf_checkpoint_into_modules() -> None:
    model, extra, checkpoint = _restored_model(tf.train.latest_checkpoint(str(GOLDEN / "tf_module")))
    want, want_extra = build_model(tf, 2.0)
    for ours, theirs in zip(model.variables + extra.variables, want.variables + want_extra.variables, strict=True):
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
        assert ours.dtype == theirs.dtype
    assert checkpoint.save_counter.numpy() == 2
    assert extra.table["a/b"].numpy() == 2.0


def test_object_graph_equals_tf() -> None:
    """The TrackableObjectGraph modtensor writes is TF's, node for node (order, names, keys, full names)."""
    from google.protobuf import text_format

    from modtensor.api import checkpoint as checkpoint_lib
    from modtensor.api import trackable

    model, extra = build_model(tf, 1.0)
    checkpoint = tf.train.Checkpoint(model=model, extra=extra)
    checkpoint.save_counter  # noqa: B018 - made on first use, as by save()
    _, proto = checkpoint_lib.serialize_object_graph(trackable.TrackableGraph(checkpoint))
    assert text_format.MessageToString(proto) == EXPECTED["tf_module"]["ckpt-1"]["_CHECKPOINTABLE_OBJECT_GRAPH"][
        "object_graph"
    ]


def test_save_writes_tf_files_byte_for_byte(tmp_path: Path) -> None:
    model, extra = build_model(tf, 1.0)
    checkpoint = tf.train.Checkpoint(model=model, extra=extra)
    assert checkpoint.save(str(tmp_path / "ckpt")) == str(tmp_path / "ckpt-1")
    for name in ("ckpt-1.index", "ckpt-1.data-00000-of-00001"):
        assert (tmp_path / name).read_bytes() == (GOLDEN / "tf_module" / name).read_bytes(), name
    state = 'model_checkpoint_path: "ckpt-1"\nall_model_checkpoint_paths: "ckpt-1"\n'
    assert (tmp_path / "checkpoint").read_text() == state
    new_model, new_extra = build_model(tf, 2.0)
    for var, new in zip(model.variables + extra.variables, new_model.variables + new_extra.variables, strict=True):
        var.assign(new)
    checkpoint.save(str(tmp_path / "ckpt"))
    for name in ("ckpt-2.index", "ckpt-2.data-00000-of-00001", "checkpoint"):
        assert (tmp_path / name).read_bytes() == (GOLDEN / "tf_module" / name).read_bytes(), name


def test_tf_restores_what_modtensor_writes(tmp_path: Path) -> None:
    """tools/check_modtensor_checkpoints_in_tf.py ran TF on these files; modtensor still writes exactly them."""
    result = json.loads((GOLDEN / "from_modtensor" / "tf_result.json").read_text())
    assert result["assert_consumed"] == "ok" and result["value_mismatches"] == []
    assert result["restored_variables"] == 14 and result["save_counter"] == 1
    assert all(result["same_bytes_as_tf"].values())
    model, extra = build_model(tf, 1.0)
    tf.train.Checkpoint(model=model, extra=extra).save(str(tmp_path / "ckpt"))
    for name in ("ckpt-1.index", "ckpt-1.data-00000-of-00001", "checkpoint"):
        assert (tmp_path / name).read_bytes() == (GOLDEN / "from_modtensor" / name).read_bytes(), name


def test_name_based_v1_saver_checkpoint_restores_by_variable_name() -> None:
    prefix = str(GOLDEN / "v1_saver" / EXPECTED["v1_saver"]["path"])
    module = tf.Module()
    module.w = tf.Variable(np.zeros((2, 2), np.float32), name="w")
    module.b = tf.Variable(np.zeros(2, np.float32), name="scope/b")
    status = tf.train.Checkpoint(module=module).restore(prefix)
    np.testing.assert_array_equal(module.w.numpy(), [[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(module.b.numpy(), [0.25, 0.75])
    status.assert_existing_objects_matched()
    with pytest.raises(AssertionError, match="global_step"):
        status.assert_consumed()
    assert tf.train.load_variable(prefix, "global_step:0") == 7


# ============================================================================ restore semantics


def test_deferred_restoration_of_children_added_later(tmp_path: Path) -> None:
    source = tf.Module()
    source.inner = tf.Module()
    source.inner.v = tf.Variable([1.0, 2.0])
    source.layers = [tf.Variable(3.0)]
    prefix = tf.train.Checkpoint(model=source).write(str(tmp_path / "ck"))
    target = tf.Module()
    target.layers = []
    status = tf.train.Checkpoint(model=target).read(prefix)
    with pytest.raises(AssertionError, match=r"Unresolved object in checkpoint \(root\).model.inner.v"):
        status.assert_consumed()
    target.inner = tf.Module()
    target.inner.v = tf.Variable([0.0, 0.0])
    target.layers.append(tf.Variable(0.0))
    np.testing.assert_array_equal(target.inner.v.numpy(), [1.0, 2.0])
    assert target.layers[0].numpy() == 3.0
    status.assert_consumed()


def test_restore_is_all_or_nothing_on_shape_mismatch(tmp_path: Path) -> None:
    source = tf.Module()
    source.a = tf.Variable([1.0, 2.0])
    source.b = tf.Variable([1.0, 2.0], name="v")
    prefix = tf.train.Checkpoint(model=source).write(str(tmp_path / "ck"))
    target = tf.Module()
    target.a = tf.Variable([5.0, 5.0])
    target.b = tf.Variable([9.0, 9.0, 9.0], name="v")
    with pytest.raises(ValueError) as info:
        tf.train.Checkpoint(model=target).read(prefix)
    tf_text = EXPECTED["errors"]["shape_mismatch"]["message"]
    assert str(info.value).startswith(tf_text[:-1])  # TF's sentence, then the checkpoint key
    assert "model/b/.ATTRIBUTES/VARIABLE_VALUE" in str(info.value)
    np.testing.assert_array_equal(target.a.numpy(), [5.0, 5.0])  # nothing was assigned


def test_dtype_mismatch_names_the_key(tmp_path: Path) -> None:
    source = tf.Module()
    source.v = tf.Variable([1.0, 2.0], name="v")
    source.s = tf.Variable(1, dtype=tf.int64)
    prefix = tf.train.Checkpoint(model=source).write(str(tmp_path / "ck"))
    target = tf.Module()
    target.v = tf.Variable([1, 2], name="v")
    target.s = tf.Variable(5, dtype=tf.int64)
    with pytest.raises(errors.InvalidArgumentError) as info:
        tf.train.Checkpoint(model=target).read(prefix)
    assert "tensor_name = model/v/.ATTRIBUTES/VARIABLE_VALUE; expected dtype int32 does not equal original dtype " \
        "float" in str(info.value)
    assert "tensor_name = model/v/.ATTRIBUTES/VARIABLE_VALUE; expected dtype int32 does not equal original dtype " \
        "float" in EXPECTED["errors"]["dtype_mismatch"]["message"]
    assert target.s.numpy() == 5


def _good_checkpoint(tmp_path: Path) -> tuple[str, object]:
    module = tf.Module()
    module.v = tf.Variable([1.0, 2.0], name="v")
    module.s = tf.Variable(1, dtype=tf.int64)
    return tf.train.Checkpoint(model=module).write(str(tmp_path / "ck")), module


def test_missing_checkpoint_and_key_errors_match_tf(tmp_path: Path) -> None:
    prefix, module = _good_checkpoint(tmp_path)
    with pytest.raises(errors.NotFoundError) as info:
        tf.train.Checkpoint(model=module).read(str(tmp_path / "nope"))
    assert str(info.value) == EXPECTED["errors"]["missing_checkpoint"]["message"].replace(
        "/tmp/modtensor_golden_checkpoint_errors", str(tmp_path)
    )
    with pytest.raises(errors.NotFoundError, match="^Key nope not found in checkpoint$"):
        tf.train.load_checkpoint(prefix).get_tensor("nope")
    with pytest.raises(errors.DataLossError, match="Is a directory"):
        tf.train.Checkpoint(model=module).read(str(tmp_path))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match=r"^Couldn't find 'checkpoint' file or checkpoints in given directory"):
        tf.train.load_checkpoint(str(empty))


def test_corrupted_data_fails_crc_and_leaves_variables(tmp_path: Path) -> None:
    prefix, _ = _good_checkpoint(tmp_path)
    data_file = tmp_path / "ck.data-00000-of-00001"
    data = bytearray(data_file.read_bytes())
    data[0] ^= 1
    data_file.write_bytes(bytes(data))
    target = tf.Module()
    target.v = tf.Variable([7.0, 7.0], name="v")
    target.s = tf.Variable(5, dtype=tf.int64)
    with pytest.raises(errors.DataLossError) as info:
        tf.train.Checkpoint(model=target).read(prefix)
    tf_text = EXPECTED["errors"]["corrupted_data"]["message"]
    assert "Checksum does not match: stored 683723185 vs. calculated on the restored bytes 1643951254" in tf_text
    assert "Checksum does not match: stored 683723185 vs. calculated on the restored bytes 1643951254" in str(
        info.value
    )
    assert str(data_file) in str(info.value)
    assert target.s.numpy() == 5 and target.v.numpy().tolist() == [7.0, 7.0]


def test_truncated_files_name_the_file(tmp_path: Path) -> None:
    prefix, module = _good_checkpoint(tmp_path)
    data_file = tmp_path / "ck.data-00000-of-00001"
    data_file.write_bytes(data_file.read_bytes()[:5])
    with pytest.raises(errors.DataLossError, match="truncated") as info:
        tf.train.Checkpoint(model=module).read(prefix)
    assert str(data_file) in str(info.value)
    index = tmp_path / "ck.index"
    index.write_bytes(index.read_bytes()[:-10])
    with pytest.raises(errors.DataLossError, match=r"not an sstable \(bad magic number\)") as info:
        tf.train.Checkpoint(model=module).read(prefix)
    assert str(index) in str(info.value)


def test_status_assertion_texts_match_tf(tmp_path: Path) -> None:
    prefix, _ = _good_checkpoint(tmp_path)
    fewer = tf.Module()
    fewer.v = tf.Variable([1.0, 2.0])
    with pytest.raises(AssertionError) as info:
        tf.train.Checkpoint(model=fewer).read(prefix).assert_consumed()
    assert str(info.value) == EXPECTED["errors"]["assert_consumed_unresolved"]["message"]
    more = tf.Module()
    more.v = tf.Variable([1.0, 2.0])
    more.s = tf.Variable(1, dtype=tf.int64)
    more.t = tf.Variable(0.0)
    with pytest.raises(AssertionError) as info:
        tf.train.Checkpoint(model=more).read(prefix).assert_consumed()
    assert str(info.value) == EXPECTED["errors"]["assert_consumed_unbound"]["message"]
    tf.train.Checkpoint(model=more).read(prefix).assert_nontrivial_match()
    with pytest.raises(AssertionError) as info:
        tf.train.Checkpoint(other=fewer).read(prefix).assert_nontrivial_match()
    assert str(info.value) == EXPECTED["errors"]["assert_nontrivial_match"]["message"]
    status = tf.train.Checkpoint(model=more).restore(None)
    with pytest.raises(AssertionError) as info:
        status.assert_consumed()
    assert str(info.value) == EXPECTED["errors"]["restore_none"]["message"]
    with pytest.raises(ValueError) as info:
        tf.train.Checkpoint(model=1)
    assert str(info.value) == EXPECTED["errors"]["not_trackable"]["message"]


# ============================================================================ CheckpointManager


def test_manager_reads_tf_manager_directory(tmp_path: Path) -> None:
    directory = tmp_path / "manager"
    shutil.copytree(GOLDEN / "manager", directory)
    counter = build_counter(tf)
    checkpoint = tf.train.Checkpoint(counter=counter)
    manager = tf.train.CheckpointManager(checkpoint, str(directory), max_to_keep=2)
    assert [os.path.basename(p) for p in manager.checkpoints] == EXPECTED["manager"]["kept"]
    assert manager.restore_or_initialize() == str(directory / "ckpt-3")
    assert counter.v.numpy() == 2.0 and checkpoint.save_counter.numpy() == 3
    assert manager.save() == str(directory / "ckpt-4")
    assert sorted(os.listdir(directory)) == [
        "checkpoint", "ckpt-3.data-00000-of-00001", "ckpt-3.index", "ckpt-4.data-00000-of-00001", "ckpt-4.index",
    ]


def test_manager_keeps_max_to_keep_and_records_state(tmp_path: Path) -> None:
    counter = build_counter(tf)
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(counter=counter), str(tmp_path), max_to_keep=2)
    assert manager.latest_checkpoint is None and manager.restore_or_initialize() is None
    saved = [manager.save() for _ in range(3)]
    assert [os.path.basename(p) for p in saved] == EXPECTED["manager"]["saved"]
    assert sorted(os.listdir(tmp_path)) == EXPECTED["manager"]["files"]
    assert manager.checkpoints == saved[1:] and manager.latest_checkpoint == saved[-1]
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert list(state.all_model_checkpoint_paths) == saved[1:]
    assert len(state.all_model_checkpoint_timestamps) == 2 and state.last_preserved_timestamp > 0
    text = (tmp_path / "checkpoint").read_text()
    assert text.startswith('model_checkpoint_path: "ckpt-3"\nall_model_checkpoint_paths: "ckpt-2"\n')
    assert manager.save(checkpoint_number=100) == str(tmp_path / "ckpt-100")
    assert tf.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "ckpt-100")
    again = tf.train.CheckpointManager(tf.train.Checkpoint(counter=counter), str(tmp_path), max_to_keep=2)
    assert again.checkpoints == [saved[2], str(tmp_path / "ckpt-100")]
    with pytest.raises(ValueError, match="Expected a positive integer or `None` for `max_to_keep`, got 0."):
        tf.train.CheckpointManager(tf.train.Checkpoint(counter=counter), str(tmp_path), max_to_keep=0)


# ============================================================================ modules


def test_module_variables_submodules_and_name() -> None:
    class Dense(tf.Module):
        def __init__(self, name: str | None = None):
            super().__init__(name=name)
            self.w = tf.Variable(1.0, name="w")
            self.b = tf.Variable(0.0, trainable=False, name="b")

    class Net(tf.Module):
        def __init__(self):
            super().__init__()
            self.layers = [Dense(), Dense("second")]
            self.scale = tf.Variable(2.0, name="scale")

    net = Net()
    assert net.name == "net" and net.layers[1].name == "second" and net.layers[0].name == "dense"
    assert [v.name for v in net.variables] == ["scale:0", "b:0", "w:0", "b:0", "w:0"]
    assert len(net.trainable_variables) == 3 and len(net.non_trainable_variables) == 2
    assert net.submodules == (net.layers[0], net.layers[1])
    with pytest.raises(ValueError, match="is not a valid module name"):
        tf.Module(name="bad name")


# ============================================================================ optimizers


def test_keras_optimizer_checkpoint_restores_into_modtensor_optimizer() -> None:
    """TF + Keras 3's Adam after two steps: modtensor.optimizers.Adam gets its iterations and slots (made later by
    build, restored then) and its third step matches Keras's."""
    expected = EXPECTED["optimizer"]
    model = tf.Module()
    model.v = tf.Variable([0.0, 0.0], name="v")
    model.u = tf.Variable(0.0, name="u")
    optimizer = tf.optimizers.Adam(0.1)
    status = tf.train.Checkpoint(model=model, optimizer=optimizer).read(str(GOLDEN / "optimizer" / "ckpt"))
    assert optimizer.iterations.numpy() == expected["saved"]["iterations"]
    optimizer.apply_gradients(zip([tf.constant([0.5, -0.5]), tf.constant(1.0)], [model.v, model.u], strict=False))
    status.assert_consumed()
    np.testing.assert_allclose(model.v.numpy(), expected["after_third_step"]["v"], rtol=1e-5)
    np.testing.assert_allclose(model.u.numpy(), expected["after_third_step"]["u"], rtol=1e-5)


def test_optimizer_checkpoint_keys_are_keras(tmp_path: Path) -> None:
    model = tf.Module()
    model.v = tf.Variable([1.0, 2.0], name="v")
    model.u = tf.Variable(3.0, name="u")
    optimizer = tf.optimizers.Adam(0.1)
    optimizer.apply_gradients(zip([tf.constant([0.1, 0.2]), tf.constant(0.5)], [model.v, model.u], strict=False))
    prefix = tf.train.Checkpoint(model=model, optimizer=optimizer).write(str(tmp_path / "ck"))
    assert [[k, s] for k, s in tf.train.list_variables(prefix)] == EXPECTED["optimizer"]["keys"]
