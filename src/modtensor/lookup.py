"""``modtensor.lookup``: TensorFlow's ``tf.lookup`` names (static and vocabulary tables, their initializers) and
``tf.lookup.experimental.MutableHashTable``."""

from types import SimpleNamespace

from modtensor.api.lookup_ops import (
    KeyValueTensorInitializer,
    MutableHashTable,
    StaticHashTable,
    StaticVocabularyTable,
    TextFileIndex,
    TextFileInitializer,
)

experimental = SimpleNamespace(MutableHashTable=MutableHashTable)

__all__ = [
    "KeyValueTensorInitializer",
    "StaticHashTable",
    "StaticVocabularyTable",
    "TextFileIndex",
    "TextFileInitializer",
    "experimental",
]
