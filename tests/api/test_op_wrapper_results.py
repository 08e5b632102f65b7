"""Ops with several outputs return TF's generated-wrapper structure: a namedtuple named after the op.

``tf.raw_ops.TopKV2(...)`` is ``TopKV2(values=..., indices=...)`` (eagerly and in graphs), a list
output arg is a list inside it, and the public functions TF returns them from (``tf.math.top_k``,
``tf.unique``) do the same, so programs that read ``.indices`` or ``.idx`` run unchanged.
"""

from __future__ import annotations

import numpy as np

import modtensor as tf


def test_raw_ops_with_several_outputs_return_a_namedtuple_named_after_the_op() -> None:
    result = tf.raw_ops.TopKV2(input=tf.constant([3.0, 1.0, 2.0]), k=2)
    assert type(result).__name__ == "TopKV2" and result._fields == ("values", "indices")
    np.testing.assert_array_equal(result.indices.numpy(), [0, 2])
    values, indices = result  # still unpacks as a tuple
    np.testing.assert_array_equal(values.numpy(), [3.0, 2.0])
    graph = tf.Graph()
    with graph.as_default():
        in_graph = tf.raw_ops.Unique(x=tf.constant([5, 5, 7]))
    assert type(in_graph).__name__ == "Unique" and in_graph.idx.name == "Unique:1"


def test_a_list_output_stays_a_list_and_sits_in_its_field() -> None:
    parts = tf.raw_ops.Split(split_dim=0, value=tf.constant([1, 2, 3, 4]), num_split=2)
    assert isinstance(parts, list) and [p.numpy().tolist() for p in parts] == [[1, 2], [3, 4]]
    graph = tf.Graph()
    with graph.as_default():
        parsed = tf.raw_ops.ParseSingleExample(
            serialized=tf.constant(b""), dense_defaults=[tf.constant([1.0]), tf.constant([2], tf.int64)],
            num_sparse=0, sparse_keys=[], dense_keys=["a", "b"], sparse_types=[],
            dense_shapes=[[1], [1]],
        )  # fmt: skip
    assert type(parsed).__name__ == "ParseSingleExample"
    assert parsed.sparse_indices == [] and [t.name for t in parsed.dense_values] == [
        "ParseSingleExample:0",
        "ParseSingleExample:1",
    ]


def test_top_k_and_unique_return_tensorflows_namedtuples() -> None:
    top = tf.math.top_k(tf.constant([[1.0, 5.0, 2.0]]), k=2)
    np.testing.assert_array_equal(top.values.numpy(), [[5.0, 2.0]])
    np.testing.assert_array_equal(top.indices.numpy(), [[1, 2]])
    found = tf.unique(tf.constant([4, 4, 9]))
    np.testing.assert_array_equal(found.y.numpy(), [4, 9])
    np.testing.assert_array_equal(found.idx.numpy(), [0, 0, 1])

    @tf.function
    def in_function(x):
        return tf.math.top_k(x, 1).indices

    np.testing.assert_array_equal(in_function(tf.constant([1.0, 3.0])).numpy(), [1])
