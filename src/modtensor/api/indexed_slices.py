"""``tf.IndexedSlices``: a sparse gradient, rows ``values[i]`` of a dense tensor at row ``indices[i]``.

The gradient of a gather (``tf.gather``, ``Variable.sparse_read``, an embedding lookup)
is this, as in TensorFlow: ``values`` ([N, ...]), ``indices`` ([N]) and the dense shape.
Repeated indices add up. It converts to a dense tensor wherever a tensor is expected
(``tf.convert_to_tensor``, op arguments), and the optimizers apply it with TF's sparse
update kernels.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from modtensor.framework import dtypes, tensor_shape

__all__ = ["IndexedSlices", "IndexedSlicesValue"]


class IndexedSlicesValue:
    """What ``Session.run`` returns for an IndexedSlices fetch: numpy ``values``, ``indices``, ``dense_shape``."""

    def __init__(self, values: Any, indices: Any, dense_shape: Any):
        self.values = values
        self.indices = indices
        self.dense_shape = dense_shape

    def __repr__(self) -> str:
        return f"IndexedSlicesValue(values={self.values!r}, indices={self.indices!r}, dense_shape={self.dense_shape!r})"


class IndexedSlices:
    """Rows of a dense tensor by index (``tf.IndexedSlices``)."""

    def __init__(self, values: Any, indices: Any, dense_shape: Any = None):
        self._values = values
        self._indices = indices
        self._dense_shape = dense_shape

    @property
    def values(self) -> Any:
        """The rows, ``[N, ...]``."""
        return self._values

    @property
    def indices(self) -> Any:
        """The row of the dense tensor each of ``values`` belongs to, ``[N]``."""
        return self._indices

    @property
    def dense_shape(self) -> Any:
        """The shape of the dense tensor (a 1-D tensor), or None when unknown."""
        return self._dense_shape

    @property
    def dtype(self) -> dtypes.DType:
        """The dtype of the values."""
        return self._values.dtype

    @property
    def device(self) -> str:
        """The device of the values."""
        return self._values.device

    @property
    def name(self) -> str:
        """The name of the values tensor (graph mode)."""
        return self._values.name

    @property
    def op(self) -> Any:
        """The op producing the values (graph mode)."""
        return self._values.op

    @property
    def graph(self) -> Any:
        """The graph of the values (graph mode)."""
        return self._values.graph

    @property
    def shape(self) -> tensor_shape.TensorShape:
        """The static shape of the dense tensor."""
        numpy = getattr(self._dense_shape, "numpy", None)
        if callable(numpy):
            return tensor_shape.TensorShape([int(d) for d in numpy()])
        from modtensor.api.op_scope import constant_value

        if self._dense_shape is not None:
            constant = constant_value(self._dense_shape)
            if constant is not None:
                return tensor_shape.TensorShape([int(d) for d in constant])
        return tensor_shape.TensorShape([None]).concatenate(self._values.shape[1:])

    def to_dense(self) -> Any:
        """The dense tensor: the rows summed into zeros of ``dense_shape`` (``UnsortedSegmentSum``)."""
        from modtensor.api import array_ops, segment_ops

        if self._dense_shape is None:
            raise ValueError(
                "Cannot convert an IndexedSlices without a dense_shape to a dense tensor; give its dense_shape."
            )
        num_rows = array_ops.gather(self._dense_shape, 0)
        return segment_ops.unsorted_segment_sum(self._values, self._indices, num_rows)

    @staticmethod
    def concat(parts: Sequence[IndexedSlices]) -> IndexedSlices:
        """The sum of several IndexedSlices of one dense tensor, as one (values and indices concatenated)."""
        from modtensor.api import array_ops

        values = array_ops.concat([p.values for p in parts], axis=0)
        indices = array_ops.concat([p.indices for p in parts], axis=0)
        return IndexedSlices(values, indices, parts[0].dense_shape)

    def __tf_tensor__(self, dtype: Any = None, name: str | None = None) -> Any:
        dense = self.to_dense()
        if dtype is not None and dtypes.as_dtype(dtype) != dense.dtype:
            raise ValueError(
                f"Tensor conversion requested dtype {dtypes.as_dtype(dtype).name} for IndexedSlices with dtype "
                f"{dense.dtype.name}"
            )
        return dense

    def __neg__(self) -> IndexedSlices:
        from modtensor.api import math_ops

        return IndexedSlices(math_ops.negative(self._values), self._indices, self._dense_shape)

    def __repr__(self) -> str:
        shape = "" if self._dense_shape is None else f", dense_shape={self._dense_shape!r}"
        return f"IndexedSlices(indices={self._indices!r}, values={self._values!r}{shape})"
