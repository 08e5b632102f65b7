"""``tf.IndexedSlices``: a sparse gradient, rows ``values[i]`` of a dense tensor at row ``indices[i]``.

The gradient of a gather (``tf.gather``, ``Variable.sparse_read``, an embedding lookup)
is this, as in TensorFlow: ``values`` ([N, ...]), ``indices`` ([N]) and the dense shape.
Repeated indices add up. It converts to a dense tensor wherever a tensor is expected
(``tf.convert_to_tensor``, op arguments), and the optimizers apply it with TF's sparse
update kernels.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from modtensor.framework import dtypes, tensor_shape

__all__ = ["IndexedSlices", "IndexedSlicesValue"]


class IndexedSlicesValue(NamedTuple):
    """What ``Session.run`` returns for an IndexedSlices fetch: numpy ``values``, ``indices``, ``dense_shape``
    (None when the IndexedSlices has none), a namedtuple as TF's."""

    values: Any
    indices: Any
    dense_shape: Any


# A conversion to a dense tensor of at least this many elements warns in graphs, as TF's.
_LARGE_SPARSE_NUM_ELEMENTS = 100000000


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
        """The static shape of the dense tensor: unknown without a dense_shape, else as far as its value is known."""
        if self._dense_shape is None:
            return tensor_shape.TensorShape(None)
        numpy = getattr(self._dense_shape, "numpy", None)
        if callable(numpy):
            return tensor_shape.TensorShape([int(d) for d in numpy()])
        from modtensor.api.op_scope import constant_value

        constant = constant_value(self._dense_shape)
        if constant is not None:
            return tensor_shape.TensorShape([int(d) for d in constant])
        length = self._dense_shape.shape.with_rank(1).as_list()[0]
        return tensor_shape.TensorShape(None if length is None else [None] * length)

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

    def consumers(self) -> list[Any]:
        """The ops that read the values, indices or dense shape (graph mode)."""
        ops = [*self._values.consumers(), *self._indices.consumers()]
        if self._dense_shape is not None:
            ops += self._dense_shape.consumers()
        return list(dict.fromkeys(ops))

    def __tf_tensor__(self, dtype: Any = None, name: str | None = None) -> Any:
        """The dense tensor (TF's conversion: ``UnsortedSegmentSum``; graphs warn about large or unknown shapes)."""
        if dtype is not None and not dtypes.as_dtype(dtype).is_compatible_with(self.dtype):
            raise ValueError(
                f"Incompatible tensor conversion requested to `dtype` {dtypes.as_dtype(dtype).name} for "
                f"IndexedSlices ({self}) with dtype {self.dtype.name}"
            )
        if self._dense_shape is None:
            raise ValueError(
                f"Tensor conversion requested for IndexedSlices for argument `{name or 'value'}` without "
                f"dense_shape: {self}"
            )
        from modtensor.api import context

        if not context.executing_eagerly():
            from modtensor.api.op_scope import constant_value

            shape_value = constant_value(self._dense_shape)
            if shape_value is not None:
                count = int(np.prod(shape_value, dtype=np.int64))
                if count >= _LARGE_SPARSE_NUM_ELEMENTS:
                    warnings.warn(
                        f"Converting sparse IndexedSlices to a dense Tensor with {count} elements. This may consume "
                        "a large amount of memory.",
                        stacklevel=2,
                    )
            elif getattr(getattr(self._dense_shape, "op", None), "type", None) != "VariableShape":
                warnings.warn(
                    f"Converting sparse IndexedSlices({self}) to a dense Tensor of unknown shape. This may consume a "
                    "large amount of memory.",
                    stacklevel=2,
                )
        return self.to_dense()

    def __neg__(self) -> IndexedSlices:
        from modtensor.api import math_ops

        return IndexedSlices(math_ops.negative(self._values), self._indices, self._dense_shape)

    def __str__(self) -> str:
        shape = "" if self._dense_shape is None else f", dense_shape={self._dense_shape!s}"
        return f"IndexedSlices(indices={self._indices!s}, values={self._values!s}{shape})"


def _session_components(value: IndexedSlices) -> list[Any]:
    parts = [value.values, value.indices]
    return parts if value.dense_shape is None else [*parts, value.dense_shape]


def _register_session_conversion() -> None:
    """``Session.run`` fetches an IndexedSlices as an ``IndexedSlicesValue`` and feeds its components (TF's)."""
    from modtensor.runtime.session import register_session_run_conversion_functions

    register_session_run_conversion_functions(
        IndexedSlices,
        lambda fetch: (
            _session_components(fetch),
            lambda values: IndexedSlicesValue(values[0], values[1], values[2] if len(values) == 3 else None),
        ),
        lambda feed, feed_value: list(zip(_session_components(feed), feed_value, strict=False)),
    )


_register_session_conversion()
