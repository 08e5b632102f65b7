"""``tf.lookup`` against TF 2.21: golden snippets (tests/golden/lookup, tools/make_golden_lookup.py) replayed as in
test_spectral_ops_golden.py; the hash-table ops' OpDef and shape cases are in tests/ops. Beyond the snippets:
TF's CPU kernel constraints in TF's order, a table's lifetime, and a mutable table through a checkpoint.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import modtensor as tf
from modtensor.framework import dtypes, errors
from modtensor.kernels.cpu import lookup as cpu_lookup
from modtensor.runtime import device_factory
from modtensor.runtime.kernel_registry import KernelRegistry

from .frontend_golden import EAGER_CASES, GRAPH_CASES, case_ids, check_eager_case, check_graph_case

CONSTRAINTS = Path(__file__).resolve().parent.parent / "golden" / "lookup" / "ops" / "cpu_kernel_constraints.json"


@pytest.mark.parametrize("case_id", case_ids(GRAPH_CASES, "lookup_"))
def test_graph_matches_tensorflow(case_id: str) -> None:
    check_graph_case(case_id)


@pytest.mark.parametrize("case_id", case_ids(EAGER_CASES, "lookup_"))
def test_eager_matches_tensorflow(case_id: str) -> None:
    check_eager_case(case_id)


def test_table_kernels_take_tensorflows_dtype_pairs_in_its_order() -> None:
    """The "no kernel" error lists the registered pairs: same pairs, same order as TF's CPU kernels."""
    tf_kernels = json.loads(CONSTRAINTS.read_text())["kernels"]
    registry = KernelRegistry()
    cpu_lookup.register_lookup_kernels(registry)
    for op in cpu_lookup.LOOKUP_KERNELS:
        ours = [
            {name: [dtypes.as_dtype(t).as_datatype_enum for t in types] for name, types in r.kernel_def.constraints}
            for r in registry.kernels_for_op(op)
            if r.kernel_def.device_type == "CPU"
        ]
        theirs = [
            {name: [dtypes.as_dtype(n.removeprefix("DT_").lower().replace("float", "float32").replace(
                "double", "float64")).as_datatype_enum for n in names] for name, names in k["constraints"].items()}
            for k in tf_kernels[op]
        ]  # fmt: skip
        assert ours == theirs, op


def test_an_eager_table_frees_its_resource_with_the_object() -> None:
    manager = device_factory.get_device("/device:CPU:0").resource_manager
    before = len(manager.names())
    table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a"], [1]), 0)
    assert len(manager.names()) == before + 1
    del table
    assert len(manager.names()) == before


def test_a_mutable_table_goes_through_a_checkpoint(tmp_path: Path) -> None:
    table = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)
    table.insert(tf.constant(["x", "y"]), tf.constant([3, 4], tf.int64))
    path = tf.train.Checkpoint(table=table).write(str(tmp_path / "ckpt"))
    restored = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)
    restored.insert(tf.constant(["z"]), tf.constant([9], tf.int64))
    tf.train.Checkpoint(table=restored).read(path)
    assert restored.lookup(tf.constant(["x", "y", "z"])).numpy().tolist() == [3, 4, -1]


def test_a_vocabulary_file_table_in_a_session_initializes_once(tmp_path: Path) -> None:
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("the\nquick\nfox\n")
    g = tf.Graph()
    with g.as_default():
        init = tf.lookup.TextFileInitializer(str(vocab), tf.string, tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64,
                                             tf.lookup.TextFileIndex.LINE_NUMBER)  # fmt: skip
        table = tf.lookup.StaticVocabularyTable(init, num_oov_buckets=1)
        ids = table.lookup(tf.compat.v1.placeholder(tf.string, [None], name="words"))
        tables_init = tf.compat.v1.tables_initializer()
    with tf.compat.v1.Session(graph=g) as session:
        session.run(tables_init)
        session.run(tables_init)  # a file table already filled from the file stays as it is
        got = session.run(ids, {"words:0": np.array([b"fox", b"the", b"dog"], dtype=object)})
    assert got.tolist() == [2, 0, 3]


def test_a_missing_vocabulary_file_names_the_file() -> None:
    init = tf.lookup.TextFileInitializer("/nonexistent/vocab.txt", tf.string, 0, tf.int64, 1)
    with pytest.raises(errors.NotFoundError, match="/nonexistent/vocab.txt"):
        tf.lookup.StaticHashTable(init, -1)


SAVED = CONSTRAINTS.parent.parent / "saved_models"


def test_a_tensorflow_saved_model_with_tables_loads_and_runs() -> None:
    """Static, vocabulary-file (an asset) and mutable tables revived: made, filled and restored as TF's loader
    does; a method that inserts changes what the signature sees next."""
    expected = json.loads((SAVED / "expected.json").read_text())["module"]
    loaded = tf.saved_model.load(str(SAVED / "module"))
    words = tf.constant(expected["words"])

    def lists(result: dict) -> dict:
        return {k: v.numpy().tolist() for k, v in sorted(result.items())}

    assert lists(loaded(words)) == expected["first"]
    assert int(loaded.count(tf.constant(["seen", "new", "new"])).numpy()) == expected["count"]
    assert lists(loaded.signatures["serving_default"](words=words)) == expected["second"]


def test_a_keras_text_model_exported_by_tensorflow_serves() -> None:
    """StringLookup -> Embedding -> pooling -> Dense, exported with ``model.export()``."""
    expected = json.loads((SAVED / "expected.json").read_text())["keras_text"]
    loaded = tf.saved_model.load(str(SAVED / "keras_text"))
    tokens = tf.constant(np.array(expected["tokens"], dtype=object))
    np.testing.assert_allclose(loaded.serve(tokens).numpy(), expected["serve"], rtol=1e-6)
    np.testing.assert_allclose(loaded.serve(tokens).numpy(), expected["model"], rtol=1e-6)
