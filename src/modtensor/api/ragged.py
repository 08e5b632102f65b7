"""A minimal ``tf.RaggedTensor``: rows of different lengths as flat ``values`` plus int64 ``row_splits``.

Enough for what ``tf.strings.split``, ``bytes_split``, ``ngrams`` and the ``unicode_*`` ops return: for a vector
one ragged dimension;
for a tensor of rank N >= 2 an N + 1 rank RaggedTensor whose outer dimensions are the input's (rows
of uniform length, ``values`` itself a RaggedTensor, as TF's ``with_flat_values`` over
``from_tensor``). ``values``, ``flat_values``, ``row_splits``, ``nested_row_splits``,
``ragged_rank``, ``with_values()``, ``with_flat_values()``, ``row_lengths()``, ``nrows()``, ``to_list()`` (eager),
``to_tensor(default_value)``. The rest of TF's ragged API (ragged ops, ragged outer dimensions of
different lengths) is not built.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.api import array_ops, math_ops
from modtensor.api.dispatch import apply_op
from modtensor.framework import dtypes, tensor_shape
from modtensor.framework.tensor import Tensor

__all__ = ["RaggedTensor"]


class RaggedTensor:
    """``nrows`` rows of different lengths: row ``i`` is ``values[row_splits[i]:row_splits[i + 1]]``."""

    def __init__(
        self,
        values: Tensor | RaggedTensor,
        row_splits: Tensor,
        sparse_indices: Tensor | None,
        nrows: Tensor,
        uniform_row_length: Any = None,
    ) -> None:
        self._values = values
        self._row_splits = row_splits
        self._sparse_indices = sparse_indices  # [len(values), 2]: (row, position in row) of each value; or None
        self._nrows = nrows
        self._uniform_row_length = uniform_row_length  # every row's length (int or Tensor), or None

    @classmethod
    def from_sparse_parts(cls, indices: Tensor, values: Tensor, dense_shape: Tensor) -> RaggedTensor:
        """The ragged form of a 2-D sparse tensor whose rows are filled from position 0 (StringSplitV2's output)."""
        nrows = dense_shape[0]
        rows = array_ops.strided_slice(indices, [0, 0], [0, 1], [1, 1], begin_mask=1, end_mask=1, shrink_axis_mask=2)
        lengths = apply_op("UnsortedSegmentSum", data=array_ops.ones_like(rows), segment_ids=rows, num_segments=nrows)
        splits = apply_op("Cumsum", x=lengths, axis=0)
        row_splits = array_ops.concat([np.zeros([1], np.int64), splits], 0)
        return cls(values, row_splits, indices, nrows)

    @classmethod
    def from_row_splits(cls, values: Tensor, row_splits: Tensor) -> RaggedTensor:
        """Rows ``values[row_splits[i]:row_splits[i + 1]]`` (int64 splits, as StringNGrams returns them)."""
        count = apply_op("Size", input=values, out_type=dtypes.int64)
        positions = apply_op("Range", start=np.int64(0), limit=count, delta=np.int64(1))
        rows = apply_op("UpperBound", sorted_inputs=array_ops.reshape(row_splits[1:], [1, -1]),
                        values=array_ops.reshape(positions, [1, -1]), out_type=dtypes.int64)  # fmt: skip
        rows = array_ops.reshape(rows, [-1])
        starts = apply_op("GatherV2", params=row_splits, indices=rows, axis=np.int32(0))
        indices = array_ops.stack([rows, positions - starts], axis=1)
        nrows = apply_op("Size", input=row_splits, out_type=dtypes.int64) - 1
        return cls(values, row_splits, indices, nrows)

    @classmethod
    def from_uniform_row_length(
        cls, values: Tensor | RaggedTensor, uniform_row_length: Any, nrows: Any
    ) -> RaggedTensor:
        """``nrows`` rows of ``uniform_row_length`` elements of ``values`` each (ints or int64 scalars)."""
        length = math_ops.cast(uniform_row_length, dtypes.int64)
        count = math_ops.cast(nrows, dtypes.int64)
        row_splits = apply_op("Range", start=np.int64(0), limit=count + 1, delta=np.int64(1)) * length
        return cls(values, row_splits, None, count, uniform_row_length)

    def with_values(self, values: Tensor | RaggedTensor) -> RaggedTensor:
        """This RaggedTensor's row partition over other ``values`` (as many rows of values as before)."""
        return RaggedTensor(values, self._row_splits, self._sparse_indices, self._nrows, self._uniform_row_length)

    def with_flat_values(self, flat_values: Tensor | RaggedTensor) -> RaggedTensor:
        """This RaggedTensor's row partitions, every ragged dimension, over other innermost values."""
        inner = self._values
        return self.with_values(inner.with_flat_values(flat_values) if isinstance(inner, RaggedTensor) else flat_values)

    @property
    def values(self) -> Tensor | RaggedTensor:
        """The rows' elements, concatenated (a RaggedTensor when there are more ragged dimensions inside)."""
        return self._values

    @property
    def flat_values(self) -> Tensor:
        """The innermost values: every element, concatenated."""
        values = self._values
        return values.flat_values if isinstance(values, RaggedTensor) else values

    @property
    def row_splits(self) -> Tensor:
        """int64 ``[nrows + 1]``: where each row starts in ``values`` (and the end)."""
        return self._row_splits

    @property
    def nested_row_splits(self) -> tuple[Tensor, ...]:
        """The row splits of every ragged dimension, outermost first."""
        inner = self._values.nested_row_splits if isinstance(self._values, RaggedTensor) else ()
        return (self._row_splits, *inner)

    @property
    def dtype(self) -> dtypes.DType:
        return self._values.dtype

    @property
    def shape(self) -> tensor_shape.TensorShape:
        """``[nrows, row length (when uniform and known) or None, ...]``."""
        rows = self._row_splits.shape.as_list()[0]
        length = self._uniform_row_length if isinstance(self._uniform_row_length, int) else None
        inner = self._values.shape.as_list()[1:] if isinstance(self._values, RaggedTensor) else []
        return tensor_shape.TensorShape([None if rows is None else rows - 1, length, *inner])

    @property
    def ragged_rank(self) -> int:
        """How many dimensions are ragged (row-partitioned)."""
        return 1 + (self._values.ragged_rank if isinstance(self._values, RaggedTensor) else 0)

    def nrows(self) -> Tensor:
        """The number of rows (int64)."""
        return self._nrows

    def row_lengths(self) -> Tensor:
        """The length of each row (int64)."""
        return self._row_splits[1:] - self._row_splits[:-1]

    def to_tensor(self, default_value: Any = None) -> Tensor:
        """A dense ``[nrows, longest row, ...]`` tensor, short rows padded with ``default_value`` (0 or "")."""
        if isinstance(self._values, RaggedTensor):  # rows of uniform length over an inner ragged tensor
            inner = self._values.to_tensor(default_value)
            rest = array_ops.shape(inner, out_type=dtypes.int64)[1:]
            outer = array_ops.stack([self._nrows, math_ops.cast(self._uniform_row_length, dtypes.int64)])
            return array_ops.reshape(inner, array_ops.concat([outer, rest], 0))
        width = apply_op("Max", input=self.row_lengths(), reduction_indices=0)
        width = apply_op("Maximum", x=width, y=np.int64(0))
        shape = array_ops.stack([self._nrows, width])
        if default_value is None:
            default_value = "" if self.dtype == dtypes.string else 0
        base = array_ops.fill(shape, array_ops.constant(default_value, dtype=self.dtype))
        return apply_op("TensorScatterUpdate", tensor=base, indices=self._sparse_indices, updates=self._values)

    def to_list(self) -> list[list[Any]]:
        """The rows as Python lists (eager only)."""
        inner = self._values
        values = inner.to_list() if isinstance(inner, RaggedTensor) else inner.numpy().tolist()
        splits = self._row_splits.numpy().tolist()
        return [values[splits[i] : splits[i + 1]] for i in range(len(splits) - 1)]

    def __repr__(self) -> str:
        try:
            return f"<tf.RaggedTensor {self.to_list()}>"
        except (AttributeError, NotImplementedError, TypeError):
            return f"tf.RaggedTensor(values={self._values}, row_splits={self._row_splits})"
