"""``modtensor.train`` (TensorFlow's ``tf.train``): object-based checkpoints in TF's format.

``Checkpoint`` saves and restores trackable objects (``tf.Module``, variables, ...);
``CheckpointManager`` keeps numbered checkpoints in a directory; ``load_checkpoint``,
``list_variables`` and ``load_variable`` read any TF-format checkpoint by key.
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

__all__ = [
    "Checkpoint",
    "CheckpointManager",
    "CheckpointOptions",
    "CheckpointReader",
    "CheckpointState",
    "get_checkpoint_state",
    "latest_checkpoint",
    "list_variables",
    "load_checkpoint",
    "load_variable",
    "update_checkpoint_state",
]
