"""``modtensor.train`` (TensorFlow's ``tf.train``): object-based checkpoints in TF's format, and the Example protos.

``Checkpoint`` saves and restores trackable objects (``tf.Module``, variables, ...);
``CheckpointManager`` keeps numbered checkpoints in a directory; ``load_checkpoint``,
``list_variables`` and ``load_variable`` read any TF-format checkpoint by key. ``Example``,
``Features`` and friends are the protos of TFRecord input pipelines, with TF's field names and numbers.
"""

from __future__ import annotations

from modtensor.api.checkpoint import Checkpoint, CheckpointOptions
from modtensor.api.checkpoint_management import (
    CheckpointManager,
    get_checkpoint_state,
    latest_checkpoint,
    update_checkpoint_state,
)
from modtensor.api.checkpoint_reader import CheckpointReader, list_variables, load_checkpoint, load_variable
from modtensor.framework.protos.checkpoint_state_pb2 import CheckpointState
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
    "Checkpoint",
    "CheckpointManager",
    "CheckpointOptions",
    "CheckpointReader",
    "CheckpointState",
    "Example",
    "Feature",
    "FeatureList",
    "FeatureLists",
    "Features",
    "FloatList",
    "Int64List",
    "SequenceExample",
    "get_checkpoint_state",
    "latest_checkpoint",
    "list_variables",
    "load_checkpoint",
    "load_variable",
    "update_checkpoint_state",
]
