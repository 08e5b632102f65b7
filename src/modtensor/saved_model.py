"""``modtensor.saved_model`` (TensorFlow's ``tf.saved_model``): TF2 SavedModels, loaded and saved.

``load(path)`` revives the objects of a SavedModel written by TensorFlow 2 (``tf.saved_model.save``,
Keras's ``model.export()``) or by modtensor: variables restored, functions and
``.signatures`` callable. ``save(obj, path, signatures=...)`` writes one TensorFlow loads.
"""

from __future__ import annotations

from typing import Any

from modtensor.api.saved_model_load import Asset, load
from modtensor.api.saved_model_save import save

__all__ = [
    "ASSETS_DIRECTORY",
    "Asset",
    "LoadOptions",
    "SaveOptions",
    "VARIABLES_DIRECTORY",
    "VARIABLES_FILENAME",
    "contains_saved_model",
    "load",
    "save",
]

ASSETS_DIRECTORY = "assets"
VARIABLES_DIRECTORY = "variables"
VARIABLES_FILENAME = "variables"
SAVED_MODEL_FILENAME_PB = "saved_model.pb"
SAVED_MODEL_FILENAME_PBTXT = "saved_model.pbtxt"


class LoadOptions:
    """``tf.saved_model.LoadOptions``: accepted for compatibility (modtensor loads on the default devices)."""

    def __init__(
        self, allow_partial_checkpoint: bool = False, experimental_io_device: str | None = None, **kwargs: Any
    ):
        self.allow_partial_checkpoint = allow_partial_checkpoint
        self.experimental_io_device = experimental_io_device
        self.extra = kwargs


class SaveOptions:
    """``tf.saved_model.SaveOptions``: accepted for compatibility."""

    def __init__(self, namespace_whitelist: Any = None, save_debug_info: bool = False, function_aliases: Any = None,
                 experimental_io_device: str | None = None, **kwargs: Any):
        self.namespace_whitelist = namespace_whitelist
        self.save_debug_info = save_debug_info
        self.function_aliases = function_aliases
        self.experimental_io_device = experimental_io_device
        self.extra = kwargs


def contains_saved_model(export_dir: str) -> bool:
    """True when ``export_dir`` holds a ``saved_model.pb`` or ``saved_model.pbtxt``."""
    import os

    return any(os.path.isfile(os.path.join(os.fspath(export_dir), name))
               for name in (SAVED_MODEL_FILENAME_PB, SAVED_MODEL_FILENAME_PBTXT))
