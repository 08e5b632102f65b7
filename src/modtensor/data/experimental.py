"""``modtensor.data.experimental``: TensorFlow's ``tf.data.experimental`` names that modtensor implements."""

from __future__ import annotations

from typing import Any

from modtensor.api.data.dataset_ops import AUTOTUNE, INFINITE, UNKNOWN
from modtensor.api.data.options import AutotuneOptions, OptimizationOptions, ThreadingOptions

INFINITE_CARDINALITY = INFINITE
UNKNOWN_CARDINALITY = UNKNOWN

__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "AutotuneOptions",
    "OptimizationOptions",
    "ThreadingOptions",
    "cardinality",
]


def cardinality(dataset: Any) -> Any:
    """The dataset's cardinality (``dataset.cardinality()``)."""
    return dataset.cardinality()
