"""``tf.TensorArray``: TensorFlow 2's growable arrays of tensors, with its two implementations.

Eagerly a TensorArray is a Python list of eager tensors (TF's ``_EagerTensorArray``:
``clear_after_read`` clears read slots, errors are raised at once, in TF's words). While
building a graph (``tf.function``, v1 graphs) it is a TensorList: its ``flow`` is the list's
variant tensor and every write makes a new TensorArray around the new flow (TF's
``_GraphTensorArrayV2``), so loops carry it as one loop variable. The element shape is
tracked in Python (merged on writes when ``infer_shape``) and shared by the arrays a
write makes, as in TF.
"""

from __future__ import annotations

import logging
import traceback
import weakref
from typing import Any

import numpy as np

from modtensor.api import context, list_ops
from modtensor.api.op_scope import constant_value, convert_to_tensor, op_scope
from modtensor.framework import dtypes, errors, tensor_shape
from modtensor.framework.tensor import Tensor

__all__ = ["TensorArray", "TensorArraySpec", "build_ta_with_new_flow"]

_logger = logging.getLogger("modtensor")


def _check_dtypes(value: Tensor, dtype: dtypes.DType) -> None:
    """TF logs (does not raise) a write of another dtype in graph mode; the list op then fails at run time."""
    if value.dtype != dtype:
        _logger.error(
            "Error: Input value %s has dtype %s, but expected dtype %s.  This leads to undefined behavior and will be "
            "an error in future versions of TensorFlow.  Traceback:\n%s",
            value,
            value.dtype,
            dtype,
            "".join(traceback.format_stack()),
        )


class _GraphTensorArrayV2:
    """The graph implementation: a TensorList in ``flow``; ``handle`` is always None."""

    def __init__(
        self,
        dtype: Any,
        size: Any = None,
        dynamic_size: Any = None,
        clear_after_read: Any = None,
        tensor_array_name: Any = None,
        handle: Any = None,
        flow: Any = None,
        infer_shape: bool = True,
        element_shape: Any = None,
        colocate_with_first_write_call: bool = True,
        name: str | None = None,
    ):
        del clear_after_read, tensor_array_name, colocate_with_first_write_call  # unused by TensorLists, as in TF
        if handle is not None:
            raise ValueError("TensorArray handles are not supported by TensorList-backed TensorArrays.")
        self._dynamic_size = dynamic_size
        self._size = size
        if flow is not None and (not isinstance(flow, Tensor) or flow.dtype != dtypes.variant):
            raise TypeError(
                f"Expected `flow` to be a variant tensor, but received `{getattr(flow, 'dtype', type(flow))}` instead."
            )
        if flow is None and size is None:
            raise ValueError("Argument `size` must be provided if argument `flow` is not provided.")
        if flow is not None and size is not None:
            raise ValueError("Cannot provide both `flow` and `size` arguments at the same time.")
        if flow is not None and element_shape is not None:
            raise ValueError("Cannot provide both `flow` and `element_shape` argumentsat the same time.")
        self._dtype = dtypes.as_dtype(dtype).base_dtype
        # A one-element list, so the arrays that writes make share (and refine) one element shape.
        self._element_shape = [tensor_shape.as_shape(element_shape)]
        self._infer_shape = infer_shape
        with op_scope(name, "TensorArrayV2", [size, flow]) as scope:
            if flow is None:
                self._flow = list_ops.tensor_list_reserve(
                    element_shape=element_shape, num_elements=size, element_dtype=dtype, name=scope
                )
            else:
                self._flow = flow
        self._colocate_with_first_write_call = None

    @property
    def flow(self) -> Any:
        return self._flow

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def element_shape(self) -> tensor_shape.TensorShape:
        return self._element_shape[0]

    @property
    def handle(self) -> None:
        return None

    def _check_element_shape(self, shape: tensor_shape.TensorShape) -> None:
        if not shape.is_compatible_with(self.element_shape):
            raise ValueError(f"Inconsistent shapes: saw {shape} but expected {self.element_shape} ")
        if self._infer_shape:
            self._element_shape[0] = self.element_shape.merge_with(shape)

    def identity(self) -> TensorArray:
        from modtensor.api import array_ops

        return build_ta_with_new_flow(self, array_ops.identity(self._flow))

    def grad(self, source: Any, flow: Any = None, name: str | None = None) -> Any:
        raise NotImplementedError()

    def read(self, index: Any, name: str | None = None) -> Tensor:
        with op_scope(name, "TensorArrayV2Read", [self._flow, index]):
            return list_ops.tensor_list_get_item(
                input_handle=self._flow,
                index=index,
                element_dtype=self._dtype,
                element_shape=self.element_shape,
                name=name,
            )

    def write(self, index: Any, value: Any, name: str | None = None) -> TensorArray:
        with op_scope(name, "TensorArrayV2Write", [self._flow, index, value]):
            value = convert_to_tensor(value, dtype_hint=self._dtype, name="value")
            _check_dtypes(value, self._dtype)
            self._check_element_shape(value.shape)
            flow_out = list_ops.tensor_list_set_item(
                input_handle=self._flow,
                index=index,
                item=value,
                resize_if_index_out_of_bounds=bool(self._dynamic_size),
                name=name,
            )
            return build_ta_with_new_flow(self, flow_out)

    def stack(self, name: str | None = None) -> Tensor:
        with op_scope(name, "TensorArrayV2Stack", [self._flow]):
            size = -1
            if not self._dynamic_size and self._size is not None:
                known = constant_value(self._size)
                size = -1 if known is None else int(known)
            return list_ops.tensor_list_stack(
                input_handle=self._flow,
                element_dtype=self._dtype,
                num_elements=size,
                element_shape=self.element_shape,
            )

    def gather(self, indices: Any, name: str | None = None) -> Tensor:
        return list_ops.tensor_list_gather(
            input_handle=self._flow,
            indices=indices,
            element_dtype=self._dtype,
            element_shape=self.element_shape,
            name=name,
        )

    def concat(self, name: str | None = None) -> Tensor:
        element_shape = [None, *self.element_shape.dims[1:]] if self.element_shape else None
        return list_ops.tensor_list_concat(
            input_handle=self._flow, element_dtype=self._dtype, element_shape=element_shape, name=name
        )

    def unstack(self, value: Any, name: str | None = None) -> TensorArray:
        with op_scope(name, "TensorArrayUnstack", [self._flow, value]):
            value = convert_to_tensor(value, dtype_hint=self._dtype, name="value")
            _check_dtypes(value, self._dtype)
            self._check_element_shape(value.shape[1:])
            flow_out = list_ops.tensor_list_from_tensor(tensor=value, element_shape=value.shape[1:])
            return build_ta_with_new_flow(self, flow_out)

    def scatter(self, indices: Any, value: Any, name: str | None = None) -> TensorArray:
        with op_scope(name, "TensorArrayScatter", [self._flow, value, indices]):
            value = convert_to_tensor(value, dtype_hint=self._dtype, name="value")
            _check_dtypes(value, self._dtype)
            self._check_element_shape(value.shape[1:])
            flow_out = list_ops.tensor_list_scatter(
                tensor=value, indices=indices, element_shape=self.element_shape, input_handle=self._flow
            )
            return build_ta_with_new_flow(self, flow_out)

    def split(self, value: Any, lengths: Any, name: str | None = None) -> TensorArray:
        from modtensor.api import math_ops

        with op_scope(name, "TensorArraySplit", [self._flow, value, lengths]):
            value = convert_to_tensor(value, dtype_hint=self._dtype, name="value")
            _check_dtypes(value, self._dtype)
            lengths_64 = math_ops.cast(lengths, dtypes.int64)
            if not context.executing_eagerly():
                known = constant_value(lengths_64)
                equal = known is not None and known.shape and known.size and known.max() == known.min()
                if value.shape.rank is not None and equal:  # every piece has one shape: check it like a write
                    self._check_element_shape(tensor_shape.TensorShape([int(known[0])]).concatenate(value.shape[1:]))
            flow_out = list_ops.tensor_list_split(
                tensor=value, lengths=lengths_64, element_shape=self.element_shape, name=name
            )
            return build_ta_with_new_flow(self, flow_out)

    def size(self, name: str | None = None) -> Tensor:
        if not self._dynamic_size and self._size is not None:
            return convert_to_tensor(self._size, dtype=dtypes.int32)
        return list_ops.tensor_list_length(input_handle=self._flow, name=name)

    def close(self, name: str | None = None) -> Any:
        from modtensor.api.dispatch import apply_op

        return apply_op("NoOp", name=name)


class _EagerTensorArray:
    """The eager implementation: a Python list of eager tensors (None for slots never written or cleared)."""

    def __init__(
        self,
        dtype: Any,
        size: Any = None,
        dynamic_size: Any = None,
        clear_after_read: Any = None,
        tensor_array_name: Any = None,
        handle: Any = None,
        flow: Any = None,
        infer_shape: bool = True,
        element_shape: Any = None,
        colocate_with_first_write_call: bool = True,
        name: str | None = None,
    ):
        del flow, tensor_array_name, name
        if handle is not None:
            raise ValueError("TensorArray handles are not supported when eager execution is enabled.")
        if size is None:
            raise ValueError("Size must be declared for TensorArrays when eager execution is enabled.")
        self._handle = None
        self._flow = convert_to_tensor(0, dtype=dtypes.int32)  # a stand-in: flows mean nothing eagerly
        self._infer_shape = infer_shape
        self._element_shape = tensor_shape.as_shape(element_shape)
        self._colocate_with_first_write_call = colocate_with_first_write_call
        self._dtype = dtypes.as_dtype(dtype).base_dtype
        self._dynamic_size = dynamic_size or False
        self._clear_after_read = True if clear_after_read is None else clear_after_read
        self._previously_read_indices: list[int] = []
        if isinstance(size, Tensor):
            size = size.numpy()  # type: ignore[attr-defined]
        self._tensor_array: list[Any] = [None for _ in range(int(size))]

    @property
    def flow(self) -> Any:
        return self._flow

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def handle(self) -> None:
        return self._handle

    @property
    def element_shape(self) -> tensor_shape.TensorShape:
        return self._element_shape

    def identity(self) -> TensorArray:
        return self.parent()

    def grad(self, source: Any, flow: Any = None, name: str | None = None) -> Any:
        raise NotImplementedError(
            "TensorArray.grad is not supported when executing eagerly; eager's gradient implementation does not "
            "use/need this function to compute gradients of operations that use TensorArrays."
        )

    @staticmethod
    def _index(index: Any) -> int:
        if isinstance(index, Tensor):
            index = index.numpy()  # type: ignore[attr-defined]
        return int(index)

    def read(self, index: Any, name: str | None = None) -> Tensor:
        index = self._index(index)
        if index < 0:
            raise errors.OutOfRangeError(None, None, f"Reading from negative indices (index {index}) is not allowed.")
        if index >= len(self._tensor_array):
            raise errors.OutOfRangeError(
                None, None, f"Tried to read from index {index} but array size is: {len(self._tensor_array)} "
            )
        tensor = self._tensor_array[index]
        if tensor is None:
            if index in self._previously_read_indices:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Could not read index {index} twice because it was cleared after a previous read (perhaps try "
                    "setting clear_after_read = false?)",
                )
            tensor = self._maybe_zero(index)
        if self._clear_after_read:
            self._tensor_array[index] = None
            self._previously_read_indices.append(index)
        return tensor

    def _write(self, index: Any, value: Any) -> None:
        index = self._index(index)
        if index < 0:
            raise errors.OutOfRangeError(None, None, f"Writing to negative indices (index {index}) is not allowed.")
        size = len(self._tensor_array)
        if index >= size:
            if not self._dynamic_size:
                raise errors.OutOfRangeError(
                    None,
                    None,
                    f"Tried to write to index {index} but array is not resizeable and size is: {size} ",
                )
            self._tensor_array.extend(None for _ in range(index - size + 1))
        if not isinstance(value, Tensor):
            value = convert_to_tensor(value, dtype_hint=self._dtype, name="value")
        if self._dtype != value.dtype:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"TensorArray dtype is {self._dtype.name} but Op is trying to write dtype {value.dtype.name} ",
            )
        if not self._element_shape.is_compatible_with(value.shape):
            raise ValueError(f"Incompatible shape for value ({value.shape}), expected ({self._element_shape})")
        if self._infer_shape:
            self._element_shape = self._element_shape.merge_with(value.shape)
        self._tensor_array[index] = value

    def write(self, index: Any, value: Any, name: str | None = None) -> TensorArray:
        self._write(index, value)
        return self.parent()

    def _maybe_zero(self, index: int) -> Tensor:
        from modtensor.api import array_ops

        value = self._tensor_array[index]
        if value is None:
            value = self._tensor_array[index] = array_ops.zeros(shape=self._element_shape, dtype=self._dtype)
        return value

    def stack(self, name: str | None = None) -> Tensor:
        if self._tensor_array:
            for index in range(len(self._tensor_array)):
                self._maybe_zero(index)
        if not self._tensor_array and self._element_shape.is_fully_defined():
            return convert_to_tensor(
                np.zeros([0, *self._element_shape.as_list()], dtype=self._dtype.as_numpy_dtype),
                name=name,
                dtype=self._dtype,
            )
        return convert_to_tensor(self._tensor_array, name=name, dtype=self._dtype)

    def gather(self, indices: Any, name: str | None = None) -> Tensor:
        from modtensor.api import array_ops

        if isinstance(indices, Tensor):
            indices = indices.numpy()  # type: ignore[attr-defined]
        return array_ops.stack([self._maybe_zero(int(i)) for i in indices])

    def concat(self, name: str | None = None) -> Tensor:
        from modtensor.api import array_ops

        try:
            return array_ops.concat([self._maybe_zero(i) for i in range(len(self._tensor_array))], 0, name=name)
        except errors.OpError:
            ranks = [t.shape.rank for t in self._tensor_array]
            if 0 in ranks:
                raise errors.InvalidArgumentError(
                    None, None, f"Concat saw a scalar shape at index {ranks.index(0)} but requires at least vectors."
                ) from None
            raise

    def unstack(self, value: Any, name: str | None = None) -> TensorArray:
        from modtensor.api import array_ops

        tensors = array_ops.unstack(value, name=name or "unstack")
        if len(tensors) > len(self._tensor_array) and not self._dynamic_size:
            raise ValueError(
                f"Cannot unstack {len(tensors)} tensors into a TensorArray of static size {len(self._tensor_array)} "
            )
        self._tensor_array = tensors
        return self.parent()

    def scatter(self, indices: Any, value: Any, name: str | None = None) -> TensorArray:
        from modtensor.api import array_ops

        if isinstance(indices, Tensor):
            indices = indices.numpy()  # type: ignore[attr-defined]
        for index, item in zip(indices, array_ops.unstack(value), strict=False):
            self._write(index, item)
        return self.parent()

    def split(self, value: Any, lengths: Any, name: str | None = None) -> TensorArray:
        value = convert_to_tensor(value, dtype_hint=self._dtype, name="value")
        _check_dtypes(value, self._dtype)
        lengths = convert_to_tensor(lengths)
        if lengths.shape.rank != 1:
            raise errors.InvalidArgumentError(
                None, None, f"Expected lengths to be a vector, received shape: {lengths.shape.as_list()} "
            )
        if value.shape.rank == 0:
            raise errors.InvalidArgumentError(
                None, None, f"Expected value to be at least a vector, but received shape: {value.shape.as_list()} "
            )
        sizes = [int(n) for n in np.asarray(lengths.numpy()).reshape(-1)]  # type: ignore[attr-defined]
        total = sum(sizes)
        if total != value.shape.as_list()[0]:
            raise errors.InvalidArgumentError(
                None,
                None,
                "Expected sum of lengths to be equal to values.shape[0], but sum of lengths is "
                f"{total} and value's shape is: {value.shape.as_list()} ",
            )
        if not self._dynamic_size and lengths.shape[0] != len(self._tensor_array):
            raise errors.InvalidArgumentError(
                None,
                None,
                f"TensorArray's size is not equal to the size of lengths ({len(self._tensor_array)} vs. "
                f"{lengths.shape[0]}), and the TensorArray is not marked as dynamically resizeable.",
            )
        pieces, start = [], 0
        for n in sizes:
            pieces.append(value[start : start + n])
            start += n
        self._tensor_array = pieces
        return self.parent()

    def size(self, name: str | None = None) -> Tensor:
        return convert_to_tensor(len(self._tensor_array), dtype=dtypes.int32)

    def close(self, name: str | None = None) -> None:
        del self._tensor_array[:]


class TensorArray:
    """An array of tensors that loops write and read: TF's ``tf.TensorArray``.

    ``write``, ``unstack``, ``scatter`` and ``split`` return the array to use from then on
    (in a graph a new one around the updated TensorList). ``size`` is the initial size,
    grown by writes past the end only with ``dynamic_size=True``. With ``infer_shape``
    (default) every element must have the first write's shape. ``clear_after_read``
    (default True) makes an eager array forget a slot once read.
    """

    def __init__(
        self,
        dtype: Any,
        size: Any = None,
        dynamic_size: Any = None,
        clear_after_read: Any = None,
        tensor_array_name: Any = None,
        handle: Any = None,
        flow: Any = None,
        infer_shape: bool = True,
        element_shape: Any = None,
        colocate_with_first_write_call: bool = True,
        name: str | None = None,
    ):
        implementation: type[_EagerTensorArray] | type[_GraphTensorArrayV2]
        if context.executing_eagerly() and (flow is None or getattr(flow, "dtype", None) != dtypes.variant):
            implementation = _EagerTensorArray
        else:
            implementation = _GraphTensorArrayV2
        self._implementation = implementation(
            dtype,
            size=size,
            dynamic_size=dynamic_size,
            clear_after_read=clear_after_read,
            tensor_array_name=tensor_array_name,
            handle=handle,
            flow=flow,
            infer_shape=infer_shape,
            element_shape=element_shape,
            colocate_with_first_write_call=colocate_with_first_write_call,
            name=name,
        )
        self._implementation.parent = weakref.ref(self)  # type: ignore[union-attr]

    @property
    def flow(self) -> Any:
        """The tensor carrying the array's state (a TensorList's variant in graphs)."""
        return self._implementation._flow

    @property
    def dtype(self) -> dtypes.DType:
        """The elements' dtype."""
        return self._implementation._dtype

    @property
    def handle(self) -> None:
        """None: TensorList-backed and eager arrays have no resource handle."""
        return self._implementation.handle

    @property
    def element_shape(self) -> tensor_shape.TensorShape:
        """The elements' static shape (merged from the writes when ``infer_shape``)."""
        return self._implementation.element_shape

    @property
    def dynamic_size(self) -> bool:
        """Whether writes past the end grow the array."""
        return self._implementation._dynamic_size

    @property
    def _infer_shape(self) -> bool:
        return self._implementation._infer_shape

    def identity(self) -> TensorArray:
        """The same array through an Identity of its flow (control dependencies of the context apply)."""
        return self._implementation.identity()

    def grad(self, source: Any, flow: Any = None, name: str | None = None) -> Any:
        """Not supported by TensorList-backed and eager arrays (as in TF)."""
        return self._implementation.grad(source, flow=flow, name=name)

    def read(self, index: Any, name: str | None = None) -> Tensor:
        """The element at ``index``."""
        return self._implementation.read(index, name=name)

    def write(self, index: Any, value: Any, name: str | None = None) -> TensorArray:
        """The array with ``value`` at ``index``."""
        return self._implementation.write(index, value, name=name)

    def stack(self, name: str | None = None) -> Tensor:
        """All elements stacked into one tensor (unwritten ones as zeros of the element shape)."""
        return self._implementation.stack(name=name)

    def gather(self, indices: Any, name: str | None = None) -> Tensor:
        """The elements at ``indices``, stacked."""
        return self._implementation.gather(indices, name=name)

    def concat(self, name: str | None = None) -> Tensor:
        """All elements concatenated along their first dimension."""
        return self._implementation.concat(name=name)

    def unstack(self, value: Any, name: str | None = None) -> TensorArray:
        """The array holding the rows of ``value``."""
        return self._implementation.unstack(value, name=name)

    def scatter(self, indices: Any, value: Any, name: str | None = None) -> TensorArray:
        """The array with row ``i`` of ``value`` at ``indices[i]``."""
        return self._implementation.scatter(indices, value, name=name)

    def split(self, value: Any, lengths: Any, name: str | None = None) -> TensorArray:
        """The array holding consecutive pieces of ``value``, ``lengths[i]`` rows each."""
        return self._implementation.split(value, lengths, name=name)

    def size(self, name: str | None = None) -> Tensor:
        """The number of elements (the static size unless ``dynamic_size``)."""
        return self._implementation.size(name=name)

    def close(self, name: str | None = None) -> Any:
        """Close the array (eagerly: drop its elements)."""
        return self._implementation.close(name=name)


def build_ta_with_new_flow(old_ta: TensorArray | _GraphTensorArrayV2 | _EagerTensorArray, flow: Any) -> TensorArray:
    """A TensorArray like ``old_ta`` around ``flow`` (what loops and writes rebuild arrays with); the element
    shape stays shared with ``old_ta``."""
    impl = old_ta._implementation if isinstance(old_ta, TensorArray) else old_ta
    if not context.executing_eagerly() and not isinstance(impl, _GraphTensorArrayV2):
        raise NotImplementedError(
            "Attempting to build a graph-mode TF2-style TensorArray from either an eager-mode TensorArray or a "
            "TF1-style TensorArray.  This is not currently supported.  You may be attempting to capture a "
            "TensorArray inside a tf.function or tf.data map function. Instead, construct a new TensorArray inside "
            "the function."
        )
    new_ta = TensorArray(
        dtype=impl.dtype,
        handle=impl.handle,
        flow=flow,
        infer_shape=impl._infer_shape,
        colocate_with_first_write_call=impl._colocate_with_first_write_call,  # type: ignore[arg-type]
    )
    new_impl = new_ta._implementation
    new_impl._dynamic_size = impl._dynamic_size
    new_impl._size = impl._size  # type: ignore[union-attr]
    new_impl._element_shape = impl._element_shape  # type: ignore[assignment]
    return new_ta


class TensorArraySpec:
    """The type of a TensorArray (TF's ``tf.TensorArraySpec``): element shape, dtype, dynamic_size, infer_shape.

    Loops flatten a TensorArray to its one component, the flow, and rebuild it with
    :meth:`from_components` (``while_loop`` and ``map_fn`` carry arrays this way).
    """

    def __init__(
        self,
        element_shape: Any = None,
        dtype: Any = dtypes.float32,
        dynamic_size: bool = False,
        infer_shape: bool = True,
    ):
        self._element_shape = tensor_shape.as_shape(element_shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic_size = dynamic_size
        self._infer_shape = infer_shape

    @staticmethod
    def from_value(value: TensorArray) -> TensorArraySpec:
        """The spec of a TensorArray."""
        if not isinstance(value, TensorArray):
            raise ValueError(f"Expected value to be a TensorArray, but saw: {type(value)}")
        return TensorArraySpec(
            dtype=value.dtype,
            element_shape=value.element_shape,
            dynamic_size=value.dynamic_size,
            infer_shape=value._infer_shape,
        )

    @property
    def value_type(self) -> type:
        return TensorArray

    def is_compatible_with(self, other: Any) -> bool:
        """Same dtype, dynamic_size and infer_shape, compatible element shapes."""
        if isinstance(other, TensorArray):
            other = TensorArraySpec.from_value(other)
        return (
            isinstance(other, TensorArraySpec)
            and self._dtype == other._dtype
            and self._dynamic_size == other._dynamic_size
            and self._infer_shape == other._infer_shape
            and self._element_shape.is_compatible_with(other._element_shape)
        )

    def to_components(self, value: TensorArray) -> list[Any]:
        """``[flow]``: the tensors a loop carries for ``value``."""
        if not isinstance(value.flow, Tensor) or value.flow.dtype != dtypes.variant:
            raise ValueError(
                "Expected a TensorArray backed by a TensorList (built inside a function or graph); an eager "
                "TensorArray cannot be carried by a graph loop."
            )
        return [value.flow]

    def from_components(self, components: list[Any]) -> TensorArray:
        """The TensorArray around the flow ``components[0]``."""
        ta = TensorArray(
            dtype=self._dtype,
            flow=components[0],
            dynamic_size=self._dynamic_size,
            infer_shape=self._infer_shape,
        )
        ta._implementation._element_shape = [self._element_shape]  # type: ignore[assignment]
        return ta

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, TensorArraySpec)
            and self._dtype == other._dtype
            and self._dynamic_size == other._dynamic_size
            and self._infer_shape == other._infer_shape
            and self._element_shape == other._element_shape
        )

    def __hash__(self) -> int:
        return hash((self._dtype, self._dynamic_size, self._infer_shape, str(self._element_shape)))

    def __repr__(self) -> str:
        return (
            f"TensorArraySpec(element_shape={self._element_shape!r}, dtype={self._dtype!r}, "
            f"dynamic_size={self._dynamic_size}, infer_shape={self._infer_shape})"
        )
