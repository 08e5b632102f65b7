"""A minimal ``tf.RaggedTensor``: rows of different lengths as flat ``values`` plus int64 ``row_splits``.

Enough for what ``tf.strings.split`` of a vector returns: ``values``, ``row_splits``,
``row_lengths()``, ``nrows()``, ``to_list()`` (eager), ``to_tensor(default_value)``. The
rest of TF's ragged API (ragged ops, nesting deeper than one ragged dimension) is not built.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.api import array_ops
from modtensor.api.dispatch import apply_op
from modtensor.framework import dtypes, tensor_shape
from modtensor.framework.tensor import Tensor

__all__ = ["RaggedTensor"]


class RaggedTensor:
    """``nrows`` rows of different lengths: row ``i`` is ``values[row_splits[i]:row_splits[i + 1]]``."""

    def __init__(self, values: Tensor, row_splits: Tensor, sparse_indices: Tensor, nrows: Tensor) -> None:
        self._values = values
        self._row_splits = row_splits
        self._sparse_indices = sparse_indices  # [len(values), 2]: (row, position in row) of each value
        self._nrows = nrows

    @classmethod
    def from_sparse_parts(cls, indices: Tensor, values: Tensor, dense_shape: Tensor) -> RaggedTensor:
        """The ragged form of a 2-D sparse tensor whose rows are filled from position 0 (StringSplitV2's output)."""
        nrows = dense_shape[0]
        rows = array_ops.strided_slice(indices, [0, 0], [0, 1], [1, 1], begin_mask=1, end_mask=1, shrink_axis_mask=2)
        lengths = apply_op("UnsortedSegmentSum", data=array_ops.ones_like(rows), segment_ids=rows, num_segments=nrows)
        splits = apply_op("Cumsum", x=lengths, axis=0)
        row_splits = array_ops.concat([np.zeros([1], np.int64), splits], 0)
        return cls(values, row_splits, indices, nrows)

    @property
    def values(self) -> Tensor:
        """The rows' elements, concatenated."""
        return self._values

    @property
    def flat_values(self) -> Tensor:
        """The rows' elements, concatenated (one ragged dimension: the same as ``values``)."""
        return self._values

    @property
    def row_splits(self) -> Tensor:
        """int64 ``[nrows + 1]``: where each row starts in ``values`` (and the end)."""
        return self._row_splits

    @property
    def dtype(self) -> dtypes.DType:
        return self._values.dtype

    @property
    def shape(self) -> tensor_shape.TensorShape:
        """``[nrows, None]``."""
        rows = self._row_splits.shape.as_list()[0]
        return tensor_shape.TensorShape([None if rows is None else rows - 1, None])

    @property
    def ragged_rank(self) -> int:
        return 1

    def nrows(self) -> Tensor:
        """The number of rows (int64)."""
        return self._nrows

    def row_lengths(self) -> Tensor:
        """The length of each row (int64)."""
        return self._row_splits[1:] - self._row_splits[:-1]

    def to_tensor(self, default_value: Any = None) -> Tensor:
        """A dense ``[nrows, longest row]`` tensor, short rows padded with ``default_value`` (0 or "")."""
        width = apply_op("Max", input=self.row_lengths(), reduction_indices=0)
        width = apply_op("Maximum", x=width, y=np.int64(0))
        shape = array_ops.stack([self._nrows, width])
        if default_value is None:
            default_value = "" if self.dtype == dtypes.string else 0
        base = array_ops.fill(shape, array_ops.constant(default_value, dtype=self.dtype))
        return apply_op("TensorScatterUpdate", tensor=base, indices=self._sparse_indices, updates=self._values)

    def to_list(self) -> list[list[Any]]:
        """The rows as Python lists (eager only)."""
        values = self._values.numpy().tolist()
        splits = self._row_splits.numpy().tolist()
        return [values[splits[i] : splits[i + 1]] for i in range(len(splits) - 1)]

    def __repr__(self) -> str:
        try:
            return f"<tf.RaggedTensor {self.to_list()}>"
        except (AttributeError, NotImplementedError, TypeError):
            return f"tf.RaggedTensor(values={self._values}, row_splits={self._row_splits})"
