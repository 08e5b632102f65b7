"""``modtensor.compat.v1.lookup``: TF 1's ``tf.compat.v1.lookup`` (the tables with an ``initializer`` op)."""

from types import SimpleNamespace

from modtensor.api.lookup_ops import KeyValueTensorInitializer, MutableHashTable, TextFileIndex, TextFileInitializer
from modtensor.api.lookup_ops import StaticHashTableV1 as StaticHashTable
from modtensor.api.lookup_ops import StaticVocabularyTableV1 as StaticVocabularyTable

experimental = SimpleNamespace(MutableHashTable=MutableHashTable)

__all__ = [
    "KeyValueTensorInitializer",
    "StaticHashTable",
    "StaticVocabularyTable",
    "TextFileIndex",
    "TextFileInitializer",
    "experimental",
]
