"""``modtensor.train`` (TensorFlow's ``tf.train``): the Example protos, with TF's field names and numbers."""

from __future__ import annotations

from modtensor.framework.protos.example_pb2 import Example, SequenceExample
from modtensor.framework.protos.feature_pb2 import (
    BytesList,
    Feature,
    FeatureList,
    FeatureLists,
    Features,
    FloatList,
    Int64List,
)

__all__ = [
    "BytesList",
    "Example",
    "Feature",
    "FeatureList",
    "FeatureLists",
    "Features",
    "FloatList",
    "Int64List",
    "SequenceExample",
]
