"""``tf.RaggedTensor``: rows of different lengths as flat ``values`` plus ``row_splits`` (int64 or int32).

What ``tf.strings.split``, ``bytes_split``, ``ngrams`` and the ``unicode_*`` ops return, and what TF's text models
and pipelines build: the constructors ``from_row_splits`` (``validate=`` checks eager splits with TF's messages),
``from_row_lengths``, ``from_value_rowids``, ``from_uniform_row_length``, ``from_nested_row_splits``,
``from_nested_row_lengths`` and ``from_tensor`` (``padding``, ``lengths``, ``ragged_rank``); the properties
``values``, ``flat_values``, ``row_splits``, ``nested_row_splits``, ``ragged_rank``, ``shape``, ``dtype``; and
``with_values()``, ``with_flat_values()``, ``row_lengths()``, ``value_rowids()``, ``nrows()``, ``row_starts()``,
``row_limits()``, ``bounding_shape()``, ``merge_dims()``, ``to_tensor(default_value, shape=)`` (TF's
RaggedTensorToTensor over every ragged dimension), ``to_sparse()`` (RaggedTensorToSparse) and ``to_list()``
(eager). ``tf.ragged.constant``, ``range``, ``map_flat_values`` and ``boolean_mask`` are below. Ragged
arithmetic, ``tf.gather`` of a RaggedTensor and ragged tensors inside tf.data are not built.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from modtensor.api import array_ops, context, math_ops
from modtensor.api.constant_op import constant, convert_to_tensor
from modtensor.api.dispatch import apply_op
from modtensor.framework import dtypes, errors, tensor_shape
from modtensor.framework.tensor import Tensor

__all__ = ["RaggedTensor", "boolean_mask", "constant_ragged", "map_flat_values", "ragged_range"]


def _eager_value(t: Any) -> np.ndarray | None:
    """The value of ``t`` when running eagerly (validation checks it then, as TF's eager assertions do)."""
    if not context.executing_eagerly():
        return None
    try:
        return np.asarray(t.numpy())
    except (AttributeError, NotImplementedError, TypeError, ValueError):
        return None


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _splits_tensor(row_splits: Any) -> Tensor:
    """Row splits as an int64 (or given int32) tensor; Python lists become int64 as in TF."""
    if isinstance(row_splits, Tensor):
        if row_splits.dtype in (dtypes.int32, dtypes.int64):
            return row_splits
        return math_ops.cast(row_splits, dtypes.int64)
    return convert_to_tensor(row_splits, dtype=dtypes.int64)


def _values_tensor(values: Any) -> Tensor | RaggedTensor:
    return values if isinstance(values, (Tensor, RaggedTensor)) else convert_to_tensor(values)


def _nest(flat_values: Any, partitions: Sequence[Any], wrap: Callable[[Any, Any], Any]) -> Any:
    """``flat_values`` wrapped in one ragged dimension per partition, the innermost (last) first."""
    result: Any = _values_tensor(flat_values)
    for partition in reversed(list(partitions)):
        result = wrap(result, partition)
    return result


def _nvals(values: Tensor | RaggedTensor, dtype: dtypes.DType) -> Tensor:
    """How many rows ``values`` has (the length of its first dimension)."""
    if isinstance(values, RaggedTensor):
        return math_ops.cast(values.nrows(), dtype)
    return array_ops.shape(values, out_type=dtype)[0]


def _check_partition_end(splits: np.ndarray, nvals: int) -> None:
    if splits.size and int(splits[-1]) != nvals:
        raise _invalid(
            "Arguments to _from_row_partition do not form a valid RaggedTensor\nCondition x == y did not "
            f"hold.\nFirst 1 elements of x:\n[{int(splits[-1])}]\nFirst 1 elements of y:\n[{nvals}]"
        )


def _static_nvals(values: Tensor | RaggedTensor) -> int | None:
    if isinstance(values, RaggedTensor):
        rows = values.row_splits.shape.as_list()
        return None if not rows or rows[0] is None else rows[0] - 1
    dims = values.shape.as_list() if values.shape.rank else None
    return None if not dims else dims[0]


class RaggedTensor:
    """``nrows`` rows of different lengths: row ``i`` is ``values[row_splits[i]:row_splits[i + 1]]``."""

    def __init__(
        self,
        values: Tensor | RaggedTensor,
        row_splits: Tensor,
        sparse_indices: Tensor | None = None,
        nrows: Tensor | None = None,
        uniform_row_length: Any = None,
        value_rowids: Tensor | None = None,
    ) -> None:
        self._values = values
        self._row_splits = row_splits
        self._sparse_indices = sparse_indices  # [len(values), 2]: (row, position in row) of each value; or None
        self._nrows = nrows
        self._uniform_row_length = uniform_row_length  # every row's length (int or Tensor), or None
        self._value_rowids = value_rowids  # each value's row, when built from them (to_tensor then uses them)

    # ------------------------------------------------------------------ constructors

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
    def from_row_splits(cls, values: Any, row_splits: Any, name: str | None = None,
                        validate: bool = True) -> RaggedTensor:  # fmt: skip
        """Rows ``values[row_splits[i]:row_splits[i + 1]]``; ``validate`` checks (eagerly) that the splits start at
        0, never decrease and end at ``len(values)``, with TF's messages."""
        del name
        values = _values_tensor(values)
        row_splits = _splits_tensor(row_splits)
        splits = _eager_value(row_splits) if validate else None
        if splits is not None:
            if splits.ndim != 1 or splits.size == 0:
                raise ValueError(f"Shape {list(splits.shape)} must have rank 1 and at least one element")
            if int(splits[0]) != 0:
                raise _invalid(
                    "Arguments to from_row_splits do not form a valid RaggedTensor:zero\nCondition x == y "
                    f"did not hold.\nFirst 1 elements of x:\n[{int(splits[0])}]\nFirst 1 elements of y:"
                    "\n[0]"
                )
            steps = np.diff(splits)
            if np.any(steps < 0):
                shown = ", ".join(f"'{int(s)}'" for s in steps)
                raise _invalid("Arguments to from_row_splits do not form a valid RaggedTensor:monotonic.  \nCondition "
                               f"x >= 0 did not hold element-wise:\nx (shape=({steps.size},) dtype={splits.dtype}) = "
                               f"\n[{shown}]")  # fmt: skip
            nvals = _static_nvals(values)
            if nvals is None and isinstance(values, Tensor):
                nvals = int(values.numpy().shape[0]) if values.shape.rank else None
            if nvals is not None:
                _check_partition_end(splits, nvals)
        return cls(values, row_splits)

    @classmethod
    def from_row_lengths(cls, values: Any, row_lengths: Any, name: str | None = None,
                         validate: bool = True) -> RaggedTensor:  # fmt: skip
        """Row ``i`` the next ``row_lengths[i]`` values."""
        del name
        values = _values_tensor(values)
        lengths = _splits_tensor(row_lengths)
        splits = array_ops.concat([array_ops.zeros([1], lengths.dtype), apply_op("Cumsum", x=lengths, axis=0)], 0)
        if validate:
            value = _eager_value(splits)
            nvals = _static_nvals(values)
            if value is not None and nvals is not None:
                _check_partition_end(value, nvals)
        return cls(values, splits)

    @classmethod
    def from_value_rowids(cls, values: Any, value_rowids: Any, nrows: Any = None, name: str | None = None,
                          validate: bool = True) -> RaggedTensor:  # fmt: skip
        """Value ``j`` in row ``value_rowids[j]`` (sorted); ``nrows`` defaults to the last row id + 1."""
        del name, validate
        values = _values_tensor(values)
        rowids = _splits_tensor(value_rowids)
        if nrows is None:
            last = apply_op("Max", input=rowids, reduction_indices=np.int32(0))
            one, zero = np.array(1, rowids.dtype.as_numpy_dtype), np.array(0, rowids.dtype.as_numpy_dtype)
            nrows = apply_op("Maximum", x=last + one, y=zero)
        else:
            nrows = convert_to_tensor(nrows, dtype=rowids.dtype)
        lengths = apply_op("UnsortedSegmentSum", data=array_ops.ones_like(rowids), segment_ids=rowids,
                           num_segments=nrows)  # fmt: skip
        splits = array_ops.concat([array_ops.zeros([1], rowids.dtype), apply_op("Cumsum", x=lengths, axis=0)], 0)
        return cls(values, splits, None, nrows, None, rowids)

    @classmethod
    def from_uniform_row_length(
        cls, values: Tensor | RaggedTensor, uniform_row_length: Any, nrows: Any
    ) -> RaggedTensor:
        """``nrows`` rows of ``uniform_row_length`` elements of ``values`` each (ints or int64 scalars)."""
        length = math_ops.cast(uniform_row_length, dtypes.int64)
        count = math_ops.cast(nrows, dtypes.int64)
        row_splits = apply_op("Range", start=np.int64(0), limit=count + 1, delta=np.int64(1)) * length
        return cls(values, row_splits, None, count, uniform_row_length)

    @classmethod
    def from_nested_row_splits(cls, flat_values: Any, nested_row_splits: Sequence[Any], name: str | None = None,
                               validate: bool = True) -> RaggedTensor:  # fmt: skip
        """Ragged dimensions given by their row splits, outermost first, over ``flat_values``."""
        del name
        return _nest(flat_values, nested_row_splits, lambda v, s: cls.from_row_splits(v, s, validate=validate))

    @classmethod
    def from_nested_row_lengths(cls, flat_values: Any, nested_row_lengths: Sequence[Any], name: str | None = None,
                                validate: bool = True) -> RaggedTensor:  # fmt: skip
        """Ragged dimensions given by their row lengths, outermost first, over ``flat_values``."""
        del name
        return _nest(flat_values, nested_row_lengths, lambda v, s: cls.from_row_lengths(v, s, validate=validate))

    @classmethod
    def from_tensor(cls, tensor: Any, lengths: Any = None, padding: Any = None, ragged_rank: int = 1,
                    name: str | None = None, row_splits_dtype: Any = dtypes.int64) -> RaggedTensor:  # fmt: skip
        """A dense tensor's rows as a RaggedTensor: rows cut to ``lengths``, or their trailing ``padding`` dropped, or
        whole (rows of uniform length). ``ragged_rank`` > 1 makes the inner dimensions ragged and the outer ones
        uniform, as TF does."""
        del name
        if lengths is not None and padding is not None:
            raise ValueError("Specify argument `lengths` or `padding`, but not both.")
        tensor = convert_to_tensor(tensor)
        splits_dtype = dtypes.as_dtype(row_splits_dtype)
        rank = tensor.shape.rank
        if not isinstance(ragged_rank, int) or ragged_rank <= 0 or (rank is not None and ragged_rank >= rank):
            raise ValueError(f"Argument `ragged_rank` must be an int greater than 0 and less than the rank of the "
                             f"input tensor. Received ragged_rank={ragged_rank}.")  # fmt: skip
        shape = array_ops.shape(tensor, out_type=splits_dtype)
        if ragged_rank > 1:
            outer = [shape[i] for i in range(ragged_rank)]
            flat_rows = outer[0]
            for d in outer[1:]:
                flat_rows = flat_rows * d
            inner = array_ops.reshape(tensor, array_ops.concat([array_ops.reshape(flat_rows, [1]),
                                                                shape[ragged_rank:]], 0))  # fmt: skip
            result = cls.from_tensor(inner, lengths, padding, 1, row_splits_dtype=splits_dtype)
            for i in range(ragged_rank - 2, -1, -1):
                count = outer[0]
                for d in outer[1 : i + 1]:
                    count = count * d
                static = tensor.shape.as_list()[i + 1] if rank is not None else None
                result = cls._uniform(result, outer[i + 1], count, static, splits_dtype)
            return result
        nrows, ncols = shape[0], shape[1]
        if lengths is not None:
            lengths = math_ops.cast(convert_to_tensor(lengths), splits_dtype)
            mask = array_ops.sequence_mask(lengths, ncols)
            return cls.from_row_lengths(array_ops.boolean_mask(tensor, mask), lengths, validate=False)
        if padding is not None:
            padding = convert_to_tensor(padding, dtype=tensor.dtype)
            is_pad = math_ops.equal(tensor, padding)
            inner_axes = list(range(2, rank)) if rank is not None else []
            if inner_axes:
                is_pad = math_ops.reduce_all(is_pad, axis=inner_axes)
            kept = math_ops.cast(math_ops.logical_not(is_pad), splits_dtype)
            positions = apply_op("Range", start=np.array(1, splits_dtype.as_numpy_dtype), limit=ncols + 1,
                                 delta=np.array(1, splits_dtype.as_numpy_dtype))  # fmt: skip
            row_lengths = math_ops.reduce_max(kept * positions, axis=1)
            row_lengths = apply_op("Maximum", x=row_lengths, y=np.array(0, splits_dtype.as_numpy_dtype))
            mask = array_ops.sequence_mask(row_lengths, ncols)
            return cls.from_row_lengths(array_ops.boolean_mask(tensor, mask), row_lengths, validate=False)
        values = array_ops.reshape(tensor, array_ops.concat([[-1], shape[2:]], 0))
        static = tensor.shape.as_list()[1] if rank is not None else None
        return cls._uniform(values, ncols, nrows, static, splits_dtype)

    @classmethod
    def _uniform(cls, values: Any, length: Tensor, nrows: Tensor, static: int | None,
                 dtype: dtypes.DType) -> RaggedTensor:  # fmt: skip
        one = np.array(1, dtype.as_numpy_dtype)
        splits = apply_op("Range", start=np.array(0, dtype.as_numpy_dtype), limit=nrows + one, delta=one) * length
        return cls(values, splits, None, nrows, static if static is not None else length)

    def with_values(self, values: Tensor | RaggedTensor) -> RaggedTensor:
        """This RaggedTensor's row partition over other ``values`` (as many rows of values as before)."""
        return RaggedTensor(_values_tensor(values), self._row_splits, self._sparse_indices, self._nrows,
                            self._uniform_row_length, self._value_rowids)  # fmt: skip

    def with_flat_values(self, flat_values: Tensor | RaggedTensor) -> RaggedTensor:
        """This RaggedTensor's row partitions, every ragged dimension, over other innermost values."""
        inner = self._values
        return self.with_values(inner.with_flat_values(flat_values) if isinstance(inner, RaggedTensor) else flat_values)

    # ------------------------------------------------------------------ properties

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
        """``[nrows + 1]`` (int64 or int32): where each row starts in ``values`` (and the end)."""
        return self._row_splits

    @property
    def nested_row_splits(self) -> tuple[Tensor, ...]:
        """The row splits of every ragged dimension, outermost first."""
        inner = self._values.nested_row_splits if isinstance(self._values, RaggedTensor) else ()
        return (self._row_splits, *inner)

    @property
    def dtype(self) -> dtypes.DType:
        """The values' dtype."""
        return self._values.dtype

    @property
    def row_splits_dtype(self) -> dtypes.DType:
        """int64 or int32."""
        return self._row_splits.dtype

    @property
    def shape(self) -> tensor_shape.TensorShape:
        """``[nrows, row length (when uniform and known) or None, ...the values' inner dimensions]``."""
        rows = self._row_splits.shape.as_list()[0] if self._row_splits.shape.rank else None
        length = self._uniform_row_length if isinstance(self._uniform_row_length, int) else None
        values_shape = self._values.shape
        inner = values_shape.as_list()[1:] if values_shape.rank is not None else None
        if inner is None:
            return tensor_shape.TensorShape(None)
        return tensor_shape.TensorShape([None if rows is None else rows - 1, length, *inner])

    @property
    def ragged_rank(self) -> int:
        """How many dimensions are ragged (row-partitioned)."""
        return 1 + (self._values.ragged_rank if isinstance(self._values, RaggedTensor) else 0)

    # ------------------------------------------------------------------ row partition

    def nrows(self, out_type: Any = None, name: str | None = None) -> Tensor:
        """The number of rows (the row splits' dtype unless ``out_type``)."""
        del name
        if self._nrows is not None and (out_type is None or dtypes.as_dtype(out_type) == self._nrows.dtype):
            return self._nrows if isinstance(self._nrows, Tensor) else convert_to_tensor(self._nrows)
        count = array_ops.shape(self._row_splits, out_type=self.row_splits_dtype)[0] - np.array(
            1, self.row_splits_dtype.as_numpy_dtype
        )
        return count if out_type is None else math_ops.cast(count, out_type)

    def row_starts(self, name: str | None = None) -> Tensor:
        """Where each row starts in ``values``."""
        del name
        return self._row_splits[:-1]

    def row_limits(self, name: str | None = None) -> Tensor:
        """Where each row ends in ``values``."""
        del name
        return self._row_splits[1:]

    def row_lengths(self, axis: int = 1, name: str | None = None) -> Tensor | RaggedTensor:
        """The length of each row (``axis`` 1), or of the rows of an inner ragged dimension (as a RaggedTensor)."""
        del name
        if axis == 0:
            return self.nrows()
        if axis == 1:
            return self._row_splits[1:] - self._row_splits[:-1]
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.row_lengths(axis - 1))
        dense = array_ops.shape(self._values, out_type=self.row_splits_dtype)  # dense inner dims: uniform lengths
        return self.with_values(array_ops.ones(dense[: axis - 1], self.row_splits_dtype) * dense[axis - 1])

    def value_rowids(self, name: str | None = None) -> Tensor:
        """The row of each value (the row splits' dtype)."""
        del name
        if self._value_rowids is not None:
            return self._value_rowids
        dtype = self.row_splits_dtype
        count = _nvals(self._values, dtype)
        positions = apply_op("Range", start=np.array(0, dtype.as_numpy_dtype), limit=count,
                             delta=np.array(1, dtype.as_numpy_dtype))  # fmt: skip
        rows = apply_op("UpperBound", sorted_inputs=array_ops.reshape(self._row_splits[1:], [1, -1]),
                        values=array_ops.reshape(positions, [1, -1]), out_type=dtype)  # fmt: skip
        return array_ops.reshape(rows, [-1])

    def bounding_shape(self, axis: Any = None, name: str | None = None, out_type: Any = None) -> Tensor:
        """The smallest dense shape that holds this RaggedTensor: ``[nrows, longest row of each ragged dimension,
        ...the values' inner dimensions]``."""
        del name
        dtype = dtypes.as_dtype(out_type) if out_type is not None else self.row_splits_dtype
        zero = np.array(0, dtype.as_numpy_dtype)
        dims = [array_ops.reshape(math_ops.cast(self.nrows(), dtype), [1])]
        rt: Any = self
        while isinstance(rt, RaggedTensor):
            lengths = math_ops.cast(rt.row_lengths(), dtype)
            longest = apply_op("Max", input=array_ops.concat([lengths, array_ops.reshape(zero, [1])], 0),
                               reduction_indices=np.int32(0))  # fmt: skip
            dims.append(array_ops.reshape(longest, [1]))
            rt = rt.values
        dims.append(array_ops.shape(rt, out_type=dtype)[1:])
        shape = array_ops.concat(dims, 0)
        return shape if axis is None else array_ops.gather(shape, axis)

    def _partitions(self) -> tuple[list[str], list[Tensor]]:
        """TF's row-partition (type, tensor) pairs: FIRST_DIM_SIZE and VALUE_ROWIDS where the outer partition was
        built from row ids, else ROW_SPLITS; VALUE_ROWIDS or ROW_SPLITS for the inner ones."""
        types: list[str] = []
        tensors: list[Tensor] = []
        rt: Any = self
        while isinstance(rt, RaggedTensor):
            if rt._value_rowids is not None:
                if not types:
                    types.append("FIRST_DIM_SIZE")
                    tensors.append(math_ops.cast(rt.nrows(), rt._value_rowids.dtype))
                types.append("VALUE_ROWIDS")
                tensors.append(rt._value_rowids)
            else:
                types.append("ROW_SPLITS")
                tensors.append(rt._row_splits)
            rt = rt.values
        if len({t.dtype for t in tensors}) > 1:
            tensors = [math_ops.cast(t, dtypes.int64) for t in tensors]
        return types, tensors

    def to_tensor(self, default_value: Any = None, name: str | None = None, shape: Any = None) -> Tensor:
        """A dense tensor (TF's RaggedTensorToTensor): ``[nrows, longest row, ...]`` or ``shape`` (None entries:
        the bounding size), short rows padded with ``default_value`` (zero or ""; broadcast over inner dims)."""
        del name
        types, tensors = self._partitions()
        index_dtype = tensors[0].dtype
        if default_value is None:
            default_value = constant("" if self.dtype == dtypes.string else False if self.dtype == dtypes.bool else 0,
                                     dtype=self.dtype)  # fmt: skip
        else:
            default_value = convert_to_tensor(default_value, dtype=self.dtype)
        if isinstance(shape, Tensor):
            shape_tensor = shape if shape.dtype in (dtypes.int32, dtypes.int64) else math_ops.cast(shape, index_dtype)
        else:
            dims = tensor_shape.TensorShape(shape) if shape is not None else tensor_shape.TensorShape(None)
            if dims.rank is None or dims.rank == 0:
                shape_tensor = constant(-1, dtype=index_dtype)
            else:
                shape_tensor = constant([-1 if d is None else d for d in dims.as_list()], dtype=index_dtype)
        return apply_op("RaggedTensorToTensor", shape=shape_tensor, values=self.flat_values,
                        default_value=default_value, row_partition_tensors=tensors,
                        row_partition_types=types)  # fmt: skip

    def to_sparse(self, name: str | None = None) -> Any:
        """The same elements as a ``tf.SparseTensor`` (TF's RaggedTensorToSparse)."""
        del name
        from modtensor.api.sparse_tensor import SparseTensor

        splits = list(self.nested_row_splits)
        if len({s.dtype for s in splits}) > 1:
            splits = [math_ops.cast(s, dtypes.int64) for s in splits]
        indices, values, dense_shape = apply_op("RaggedTensorToSparse", rt_nested_splits=splits,
                                                rt_dense_values=self.flat_values)  # fmt: skip
        return SparseTensor(indices, values, dense_shape)

    def merge_dims(self, outer_axis: int, inner_axis: int) -> Tensor | RaggedTensor:
        """Dimensions ``outer_axis`` through ``inner_axis`` merged into one (all of them: the flat values)."""
        rank = self.shape.rank
        if rank is None:
            raise ValueError("merge_dims requires a RaggedTensor of known rank")
        outer = outer_axis + rank if outer_axis < 0 else outer_axis
        inner = inner_axis + rank if inner_axis < 0 else inner_axis
        if not 0 <= outer <= inner < rank:
            raise ValueError(f"Expected outer_axis ({outer_axis}) to be less than or equal to inner_axis "
                             f"({inner_axis})")  # fmt: skip
        return self._merge(outer, inner)

    def _merge(self, outer: int, inner: int) -> Tensor | RaggedTensor:
        if outer == inner:
            return self
        if outer > 1:
            values = self._values
            merged = (
                values._merge(outer - 1, inner - 1)
                if isinstance(values, RaggedTensor)
                else _merge_dense(values, outer - 1, inner - 1)
            )
            return self.with_values(merged)
        rt: Any = self
        for _ in range(inner - 1):  # merge dimension 1 with 2, inner - 1 times
            rt = rt._merge_one_two()
        if outer == 0:
            return rt.values
        return rt

    def _merge_one_two(self) -> RaggedTensor:
        values = self._values
        if isinstance(values, RaggedTensor):
            splits = array_ops.gather(values.row_splits, self._row_splits)
            return RaggedTensor.from_row_splits(values.values, splits, validate=False)
        dtype = self.row_splits_dtype
        shape = array_ops.shape(values, out_type=dtype)
        merged = array_ops.reshape(values, array_ops.concat([[-1], shape[2:]], 0))
        return RaggedTensor.from_row_splits(merged, self._row_splits * shape[1], validate=False)

    def to_list(self) -> list[Any]:
        """The rows as Python lists (eager only)."""
        inner = self._values
        values = inner.to_list() if isinstance(inner, RaggedTensor) else inner.numpy().tolist()
        splits = self._row_splits.numpy().tolist()
        return [values[splits[i] : splits[i + 1]] for i in range(len(splits) - 1)]

    def numpy(self) -> np.ndarray:
        """The rows as a numpy object array of arrays (eager only), as TF's ``RaggedTensor.numpy``."""
        rows = self.to_list()
        out = np.empty(len(rows), dtype=object)
        for i, row in enumerate(rows):
            out[i] = np.array(row)
        return out

    def __repr__(self) -> str:
        try:
            return f"<tf.RaggedTensor {self.to_list()}>"
        except (AttributeError, NotImplementedError, TypeError):
            return f"tf.RaggedTensor(values={self._values}, row_splits={self._row_splits})"


def _merge_dense(values: Tensor, outer: int, inner: int) -> Tensor:
    """A dense tensor with dimensions ``outer``..``inner`` merged."""
    shape = array_ops.shape(values)
    return array_ops.reshape(values, array_ops.concat([shape[:outer], [-1], shape[inner + 1 :]], 0))


# --------------------------------------------------------------------------- tf.ragged


def _depth(value: Any) -> int | None:
    """The nesting depth of a scalar inside lists (None for an empty list: no scalars)."""
    if isinstance(value, (list, tuple)):
        depths = {d for d in (_depth(v) for v in value) if d is not None}
        if len(depths) > 1:
            raise ValueError("all scalar values must have the same nesting depth")
        return None if not depths else depths.pop() + 1
    return 0


def _list_depth(value: Any) -> int:
    """How deep lists go along the first elements (an empty list counts one)."""
    depth = 0
    while isinstance(value, (list, tuple)):
        depth += 1
        if not value:
            break
        value = value[0]
    return depth


def constant_ragged(pylist: Any, dtype: Any = None, ragged_rank: int | None = None, inner_shape: Any = None,
                    name: str | None = None, row_splits_dtype: Any = dtypes.int64) -> Any:  # fmt: skip
    """``tf.ragged.constant``: a RaggedTensor from nested Python lists (a Tensor for a scalar or ragged_rank 0)."""
    del name
    scalar_depth = _depth(pylist)
    depth = scalar_depth if scalar_depth is not None else _list_depth(pylist)
    inner_rank = len(inner_shape) if inner_shape is not None else None
    if ragged_rank is None:
        ragged_rank = max(0, depth - 1 - (inner_rank or 0))
    if ragged_rank == 0 or depth == 0:
        return constant(pylist, dtype=dtype)
    splits_dtype = dtypes.as_dtype(row_splits_dtype).as_numpy_dtype
    nested_splits = [np.array(s, splits_dtype) for s in _splits_of(pylist, ragged_rank)]
    flat = _flatten(pylist, ragged_rank)
    if flat:
        values = constant(flat, dtype=dtype)
        if inner_shape is not None:
            values = array_ops.reshape(values, [-1, *inner_shape])
    else:
        trailing = list(inner_shape) if inner_shape is not None else []
        values = array_ops.zeros([0, *trailing], dtype if dtype is not None else dtypes.float32)
    return RaggedTensor.from_nested_row_splits(values, [constant(s) for s in nested_splits], validate=False)


def _splits_of(pylist: Any, ragged_rank: int) -> list[list[int]]:
    out: list[list[int]] = []
    level = [pylist]
    for _ in range(ragged_rank + 1):
        splits = [0]
        flat: list[Any] = []
        for row in level:
            flat.extend(row)
            splits.append(len(flat))
        out.append(splits)
        level = flat
    return out[1:]


def _flatten(pylist: Any, ragged_rank: int) -> list[Any]:
    level = list(pylist)
    for _ in range(ragged_rank):
        level = [item for row in level for item in row]
    return level


def ragged_range(starts: Any, limits: Any = None, deltas: Any = 1, dtype: Any = None, name: str | None = None,
                 row_splits_dtype: Any = dtypes.int64) -> RaggedTensor:  # fmt: skip
    """``tf.ragged.range``: row ``i`` is ``range(starts[i], limits[i], deltas[i])`` (scalars broadcast)."""
    del name
    if limits is None:
        starts, limits = 0, starts
    tensors = [convert_to_tensor(x, dtype=dtype) for x in (starts, limits, deltas)]
    if dtype is None:
        order = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64]
        widest = max((t.dtype for t in tensors), key=lambda d: order.index(d) if d in order else 0)
        tensors = [t if t.dtype == widest else math_ops.cast(t, widest) for t in tensors]
    splits, values = apply_op("RaggedRange", starts=tensors[0], limits=tensors[1], deltas=tensors[2],
                              Tsplits=dtypes.as_dtype(row_splits_dtype))  # fmt: skip
    return RaggedTensor.from_row_splits(values, splits, validate=False)


def map_flat_values(op: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``tf.ragged.map_flat_values``: ``op`` on the flat values of the RaggedTensor arguments, in their rows."""
    partition: list[RaggedTensor] = []

    def flat(x: Any) -> Any:
        if isinstance(x, RaggedTensor):
            partition.append(x)
            return x.flat_values
        if isinstance(x, list):
            return [flat(v) for v in x]
        return x

    new_args = [flat(a) for a in args]
    new_kwargs = {k: flat(v) for k, v in kwargs.items()}
    if not partition:
        return op(*args, **kwargs)
    return partition[0].with_flat_values(op(*new_args, **new_kwargs))


def boolean_mask(data: Any, mask: Any, name: str | None = None) -> Any:
    """``tf.ragged.boolean_mask`` of a dense tensor and mask: for a mask of rank 2 and more, the kept items of each
    row (a RaggedTensor); for a vector mask, ``tf.boolean_mask``."""
    del name
    if isinstance(data, RaggedTensor) or isinstance(mask, RaggedTensor):
        raise NotImplementedError("tf.ragged.boolean_mask of a RaggedTensor is not supported")
    data = convert_to_tensor(data)
    mask = convert_to_tensor(mask, dtype=dtypes.bool)
    rank = mask.shape.rank
    if rank is None:
        raise ValueError("mask.shape.ndims must be known statically")
    if rank <= 1:
        return array_ops.boolean_mask(data, mask)
    if rank > 2:
        raise NotImplementedError("tf.ragged.boolean_mask of a dense mask of rank > 2 is not supported")
    lengths = math_ops.reduce_sum(math_ops.cast(mask, dtypes.int64), axis=1)
    return RaggedTensor.from_row_lengths(array_ops.boolean_mask(data, mask), lengths, validate=False)
