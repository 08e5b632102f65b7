"""``modtensor.data``: TensorFlow's ``tf.data`` input pipelines (Dataset, Iterator, Options, TFRecordDataset).

See docs/frontend.md ("Input pipelines: tf.data"). The implementation is in
``modtensor.api.data`` (Python API) and ``modtensor.kernels.cpu.data`` (the dataset kernels).
"""

from __future__ import annotations

from modtensor.api.data.dataset_ops import AUTOTUNE, INFINITE, UNKNOWN, Dataset, DatasetV2
from modtensor.api.data.iterator_ops import OwnedIterator as Iterator
from modtensor.api.data.options import Options, ThreadingOptions
from modtensor.api.data.readers import TFRecordDataset
from modtensor.api.data.structure import DatasetSpec
from modtensor.data import experimental

INFINITE_CARDINALITY = INFINITE
UNKNOWN_CARDINALITY = UNKNOWN

__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "Dataset",
    "DatasetSpec",
    "DatasetV2",
    "Iterator",
    "Options",
    "TFRecordDataset",
    "ThreadingOptions",
    "experimental",
]
