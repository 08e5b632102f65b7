"""TFRecordDataset (V1 and V2): the records of TFRecord files, in order (``framework/record_io``)."""

from __future__ import annotations

import numpy as np

from modtensor.framework import dtypes, errors, tensor_shape
from modtensor.framework.record_io import RecordReader
from modtensor.kernels.cpu.data.common import DatasetOpKernel, scalar
from modtensor.runtime.data.dataset import UNKNOWN, DatasetBase, IteratorBase, IteratorContext
from modtensor.runtime.op_kernel import OpKernelContext

__all__ = ["TFRecordDatasetOp"]


class _TFRecordDataset(DatasetBase):
    type_string = "TFRecordDatasetOp::Dataset"

    def __init__(self, filenames: list[str], compression: str, offsets: list[int]):
        super().__init__((dtypes.string,), (tensor_shape.TensorShape([]),))
        self.filenames, self.compression, self.offsets = filenames, compression, offsets

    def cardinality(self) -> int:
        return UNKNOWN

    def make_iterator(self, ctx: IteratorContext) -> IteratorBase:
        return _TFRecordIterator(self)


class _TFRecordIterator(IteratorBase):
    def __init__(self, dataset: _TFRecordDataset):
        self._dataset = dataset
        self._file = 0
        self._reader: RecordReader | None = None

    def get_next(self) -> list[np.ndarray] | None:
        files = self._dataset.filenames
        while self._file < len(files):
            if self._reader is None:
                offset = self._dataset.offsets[self._file] if self._dataset.offsets else 0
                self._reader = RecordReader(files[self._file], self._dataset.compression, offset)
            record = self._reader.read()
            if record is not None:
                value = np.empty((), dtype=object)
                value[()] = record
                return [value]
            self._reader.close()
            self._reader = None
            self._file += 1
        return None

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None


class TFRecordDatasetOp(DatasetOpKernel):
    """TFRecordDataset / TFRecordDatasetV2: records of ``filenames`` (a scalar or vector of strings)."""

    def make_dataset(self, ctx: OpKernelContext) -> DatasetBase:
        names = np.asarray(ctx.inputs[0])
        if names.ndim > 1:
            raise errors.InvalidArgumentError(None, None, "`filenames` must be a scalar or a vector.")
        filenames = [n.decode("utf-8") if isinstance(n, bytes) else str(n) for n in names.reshape(-1).tolist()]
        compression = scalar(ctx, 1, "compression_type")
        compression = compression.decode("utf-8") if isinstance(compression, bytes) else str(compression)
        offsets: list[int] = []
        if len(ctx.inputs) > 3:
            offsets = [int(v) for v in np.asarray(ctx.inputs[3]).reshape(-1).tolist()]
            if offsets and len(offsets) != len(filenames):
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"The number of byte_offsets ({len(offsets)}) must be equal to the number of filenames "
                    f"({len(filenames)}).",
                )
        if compression not in ("", "ZLIB", "GZIP"):
            raise errors.InvalidArgumentError(None, None, f"Unsupported compression_type: {compression}.")
        return _TFRecordDataset(filenames, compression, offsets)


