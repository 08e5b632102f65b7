"""A tf.Module to save as a SavedModel, built with either TensorFlow or modtensor (the same API).

Used by tools/check_modtensor_saved_models_in_tf.py (modtensor saves, TensorFlow loads and calls)
and by tests/train/test_saved_model_save.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def make_scaler(tf: Any, vocab_path: str) -> Any:
    """Variables (a nested one too), an asset, three signatures, a stateful and a polymorphic method."""

    class Scaler(tf.Module):
        def __init__(self) -> None:
            super().__init__(name="scaler")
            self.w = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
            self.b = tf.Variable([0.5, -0.5], name="b")
            self.count = tf.Variable(0, dtype=tf.int64, name="count")
            self.vocab = tf.saved_model.Asset(vocab_path)
            self.inner = tf.Module()
            self.inner.scale = tf.Variable(3.0, name="scale")
            self.layers = [tf.Variable(np.arange(3, dtype=np.float32), name="l0")]

        @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32, name="x")])
        def __call__(self, x: Any) -> Any:
            return tf.matmul(x, self.w) + self.b

        @tf.function(input_signature=[tf.TensorSpec([], tf.int64, name="n")])
        def bump(self, n: Any) -> Any:
            self.count.assign_add(n)
            return self.count.read_value()

        @tf.function(
            input_signature=[tf.TensorSpec([None], tf.float32, name="a"), tf.TensorSpec([], tf.float32, name="k")]
        )
        def multi(self, a: Any, k: Any) -> Any:
            return {"scaled": a * k * self.inner.scale + self.layers[0], "total": tf.reduce_sum(a) + k}

        @tf.function
        def poly(self, x: Any) -> Any:
            return x * tf.cast(2, x.dtype) + tf.cast(tf.size(x), x.dtype)

        @tf.function(input_signature=[])
        def vocab_file(self) -> Any:
            return self.vocab.asset_path

    module = Scaler()
    module.poly(tf.constant([1.0, 2.0]))
    module.poly(tf.constant([[1, 2]], tf.int32))
    return module


def save_scaler(tf: Any, module: Any, path: str) -> None:
    tf.saved_model.save(
        module, path, signatures={"serving_default": module.__call__, "bump": module.bump, "multi": module.multi}
    )


def make_tables(tf: Any, vocab_path: str) -> Any:
    """Lookup tables: a static one from tensors, a vocabulary from a file (an asset) with out-of-vocabulary
    buckets, and a mutable one with an entry (its entries go through the checkpoint); a method that inserts."""

    class Tables(tf.Module):
        def __init__(self) -> None:
            super().__init__(name="tables")
            init = tf.lookup.KeyValueTensorInitializer(["a", "b", "c"], tf.constant([1.5, 2.5, 3.5]))
            self.static = tf.lookup.StaticHashTable(init, -1.0)
            words = tf.lookup.TextFileInitializer(vocab_path, tf.string, tf.lookup.TextFileIndex.WHOLE_LINE,
                                                  tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER)  # fmt: skip
            self.colors = tf.lookup.StaticVocabularyTable(words, num_oov_buckets=2)
            self.counts = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, 0)
            self.counts.insert(tf.constant(["seen"]), tf.constant([7], tf.int64))

        @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="words")])
        def __call__(self, words: Any) -> Any:
            return {"static": self.static.lookup(words), "colors": self.colors.lookup(words),
                    "counts": self.counts.lookup(words)}  # fmt: skip

        @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="words")])
        def count(self, words: Any) -> Any:
            self.counts.insert(words, self.counts.lookup(words) + 1)
            return self.counts.size()

    return Tables()


TABLE_WORDS = ["a", "green", "seen", "purple", "c", "blue"]
