"""Ops outside the gradient families that TensorFlow declares not differentiable (random, string, logging, script ops).

A gradient reaching one of them stops there (None for its inputs) instead of raising the
missing-gradient LookupError, as in TensorFlow. Ops TF leaves unregistered (``Unique``,
``Where``, dataset ops, ...) stay unregistered here too.
"""

from __future__ import annotations

from modtensor.framework.gradient_registry import no_gradient

for _op in (
    "Assert", "PyFunc", "RandomShuffle", "RandomStandardNormal", "RandomUniform", "RegexReplace", "StringJoin",
    "StringToHashBucketFast", "StringToNumber", "TruncatedNormal", "AsString", "ReduceJoin",
    "StringToHashBucket", "StringToHashBucketStrong", "EncodeBase64", "DecodeBase64",
):  # fmt: skip
    no_gradient(_op)
