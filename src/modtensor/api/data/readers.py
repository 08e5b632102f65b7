"""``tf.data.TFRecordDataset``: the records of TFRecord files (``TFRecordDatasetV2``; several files interleaved
through ``flat_map``/``interleave`` as TF does when ``num_parallel_reads`` is set)."""

from __future__ import annotations

from typing import Any

from modtensor.api import dispatch
from modtensor.api.data.dataset_ops import DatasetV2, _int64, _metadata, _string
from modtensor.framework import dtypes
from modtensor.framework.tensor import TensorSpec

__all__ = ["TFRecordDataset"]

_DEFAULT_BUFFER = 256 * 1024


class _TFRecordDatasetV2(DatasetV2):
    pass


def _one_file_or_more(filenames: Any, compression_type: Any, buffer_size: Any, name: Any) -> DatasetV2:
    from modtensor.api.constant_op import convert_to_tensor

    variant = dispatch.apply_op(
        "TFRecordDatasetV2",
        filenames=convert_to_tensor(filenames, dtype=dtypes.string, name="filenames"),
        compression_type=_string("" if compression_type is None else compression_type, "compression_type"),
        buffer_size=_int64(_DEFAULT_BUFFER if buffer_size is None else buffer_size, "buffer_size"),
        byte_offsets=_int64([], "byte_offsets"),
        metadata=_metadata(name),
    )
    return _TFRecordDatasetV2(variant, TensorSpec([], dtypes.string))


class TFRecordDataset(DatasetV2):
    """A dataset of the records (scalar strings) of one or more TFRecord files."""

    def __init__(
        self,
        filenames: Any,
        compression_type: str | None = None,
        buffer_size: int | None = None,
        num_parallel_reads: int | None = None,
        name: str | None = None,
    ):
        from modtensor.api.constant_op import convert_to_tensor

        if isinstance(filenames, DatasetV2):
            files = filenames
        else:
            tensor = convert_to_tensor(filenames, dtype=dtypes.string, name="filenames")
            if tensor.shape.rank not in (0, 1, None):
                raise TypeError("`filenames` must be a `tf.Tensor` of rank 0 or 1, a `tf.data.Dataset` of strings")
            files = DatasetV2.from_tensor_slices(tensor if tensor.shape.rank != 0 else [tensor])
        if files.element_spec != TensorSpec([], dtypes.string):
            raise TypeError(
                "The `filenames` argument must contain `tf.string` elements. Got a dataset of "
                f"`{files.element_spec!r}` elements."
            )
        self._filenames = filenames

        def read_one_file(filename: Any) -> DatasetV2:
            return _one_file_or_more(filename, compression_type, buffer_size, name)

        if num_parallel_reads is None:
            inner = files.flat_map(read_one_file, name=name)
        else:
            inner = files.interleave(
                read_one_file,
                cycle_length=num_parallel_reads,
                block_length=1,
                num_parallel_calls=num_parallel_reads,
                deterministic=True,
                name=name,
            )
        super().__init__(inner._variant_tensor, TensorSpec([], dtypes.string), (inner,))
        self._functions = inner._functions
