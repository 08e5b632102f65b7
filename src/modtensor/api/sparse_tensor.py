"""The minimal ``tf.SparseTensor``: COO ``indices`` (int64 [N, rank]), ``values`` ([N]) and ``dense_shape``.

What ``tf.io.parse_example`` returns for ``VarLenFeature``s. It holds three tensors (eager or
graph), prints as TF's does and converts to a dense tensor with ``scatter_nd``; the sparse
op set (tf.sparse) is not built.
"""

from __future__ import annotations

from typing import Any

from modtensor.framework import dtypes, tensor_shape

__all__ = ["SparseTensor"]


class SparseTensor:
    """A sparse tensor in COO form (``tf.SparseTensor``)."""

    def __init__(self, indices: Any, values: Any, dense_shape: Any):
        from modtensor.api.constant_op import convert_to_tensor
        from modtensor.api.op_scope import op_scope

        with op_scope(None, "SparseTensor", [indices, values, dense_shape]):  # TF's scope for the three inputs
            self._indices = convert_to_tensor(indices, dtype=dtypes.int64, name="indices")
            self._values = convert_to_tensor(values, name="values")
            self._dense_shape = convert_to_tensor(dense_shape, dtype=dtypes.int64, name="dense_shape")

    @property
    def indices(self) -> Any:
        """The int64 [N, rank] coordinates of the values."""
        return self._indices

    @property
    def values(self) -> Any:
        """The [N] values."""
        return self._values

    @property
    def dense_shape(self) -> Any:
        """The int64 [rank] shape of the dense tensor."""
        return self._dense_shape

    @property
    def dtype(self) -> dtypes.DType:
        """The values' dtype."""
        return self._values.dtype

    @property
    def shape(self) -> tensor_shape.TensorShape:
        """The static dense shape: known eagerly, and in a graph where ``dense_shape`` is a constant (TF's
        ``constant_value_as_shape``; -1 entries unknown)."""
        value = getattr(self._dense_shape, "numpy", None)
        if callable(value):
            return tensor_shape.TensorShape([int(d) for d in value()])
        from modtensor.api.op_scope import constant_value

        known = constant_value(self._dense_shape)
        if known is not None:
            return tensor_shape.TensorShape([None if int(d) < 0 else int(d) for d in known.reshape(-1)])
        length = self._dense_shape.shape
        rank = length[0] if length.rank == 1 else None
        if rank is None and self._indices.shape.rank == 2:
            rank = self._indices.shape[1]
        return tensor_shape.TensorShape(None) if rank is None else tensor_shape.TensorShape([None] * int(rank))

    def get_shape(self) -> tensor_shape.TensorShape:
        """The static dense shape (``shape``)."""
        return self.shape

    def to_dense(self, default_value: Any = None) -> Any:
        """The dense tensor (zeros, or ``default_value``, where no value is given)."""
        from modtensor.api import array_ops, indexing_ops, math_ops

        dense = indexing_ops.scatter_nd(self._indices, self._values, self._dense_shape)
        if default_value is None:
            return dense
        mask = indexing_ops.scatter_nd(
            self._indices, math_ops.cast(array_ops.ones_like(self._values), dtypes.bool), self._dense_shape
        )

        return array_ops.where(mask, dense, default_value)

    def __repr__(self) -> str:
        return f"SparseTensor(indices={self._indices}, values={self._values}, dense_shape={self._dense_shape})"
