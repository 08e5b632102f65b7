"""``tf.train.load_checkpoint`` / ``list_variables`` / ``load_variable``: reading a checkpoint's tensors by key."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from modtensor.api import checkpoint_management
from modtensor.framework import dtypes, tensor_bundle

__all__ = ["CheckpointReader", "list_variables", "load_checkpoint", "load_variable"]


def _checkpoint_path(ckpt_dir_or_file: str) -> str:
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        latest = checkpoint_management.latest_checkpoint(path)
        if latest is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given directory {path}")
        return latest
    return path


class CheckpointReader:
    """TF's ``CheckpointReader``: the keys of a checkpoint, their dtypes and shapes, and their values."""

    def __init__(self, prefix: str):
        self._reader = tensor_bundle.BundleReader(prefix)

    def has_tensor(self, name: str) -> bool:
        """True when the checkpoint has the key ``name``."""
        return name in self._reader

    def get_tensor(self, name: str) -> Any:
        """The value of key ``name`` (a numpy array; NotFoundError ``Key ... not found in checkpoint``)."""
        value = self._reader.lookup(name)
        if value.ndim == 0:
            return value[()]
        return value

    def get_variable_to_shape_map(self) -> dict[str, list[int]]:
        """Key -> shape of every tensor in the checkpoint."""
        return {key: self._reader.shape(key) for key in self._reader.key_list()}

    def get_variable_to_dtype_map(self) -> dict[str, dtypes.DType]:
        """Key -> dtype of every tensor in the checkpoint."""
        return {key: self._reader.dtype(key) for key in self._reader.key_list()}

    def debug_string(self) -> bytes:
        """One line per tensor: ``key (DT_FLOAT) [2,3]``, as TF prints it."""
        lines = []
        for key in self._reader.key_list():
            shape = ",".join(str(d) for d in self._reader.shape(key))
            lines.append(f"{key} ({self._reader.dtype(key).enum_name}) [{shape}]\n")
        return "".join(lines).encode()


def load_checkpoint(ckpt_dir_or_file: str) -> CheckpointReader:
    """A reader of the checkpoint at a prefix, or of the latest one in a directory."""
    return CheckpointReader(_checkpoint_path(ckpt_dir_or_file))


def list_variables(ckpt_dir_or_file: str) -> list[tuple[str, list[int]]]:
    """``(key, shape)`` of every tensor of the checkpoint, sorted by key."""
    reader = load_checkpoint(ckpt_dir_or_file)
    shapes = reader.get_variable_to_shape_map()
    return [(name, shapes[name]) for name in sorted(shapes)]


def load_variable(ckpt_dir_or_file: str, name: str) -> np.ndarray:
    """The value of the tensor ``name`` (a trailing ``:0`` is ignored) in the checkpoint."""
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)
