"""Kernels of the TensorList ops with TensorFlow's semantics and error texts, for CPU and any device ("DEFAULT").

A list tensor is a 0-d ``object`` array holding a :class:`~modtensor.runtime.tensor_list.TensorList`;
it always lives in host memory. The element values live where the kernels that made
them ran: numpy arrays on CPU, the device's own values on a plugin device (the
"DEFAULT" registration serves every device type without kernels of its own; its list,
index and shape args are host memory, element args device memory). Reading elements on
a device goes through ``Device.to_host``/``from_host`` where they must be combined
(Stack, Concat, Gather, FromTensor, Split, Scatter); GetItem, SetItem, PushBack and
PopBack only move references.

A kernel that updates a list changes the input's TensorList in place only when
nothing else can see it (TF's forwarding of the variant buffer), else a copy: a list
a tensor holds never changes.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from modtensor.framework import dtypes, errors
from modtensor.runtime.kernel_registry import KernelRegistration, KernelRegistry
from modtensor.runtime.op_kernel import OpKernel, OpKernelConstruction, OpKernelContext
from modtensor.runtime.tensor_list import (
    PartialShape,
    TensorList,
    is_compatible,
    is_fully_defined,
    list_value,
    merge_shapes,
    shape_string,
)

__all__ = ["LIST_KERNELS", "register_list_kernels"]


def _error(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _shape_text(shape: Sequence[int]) -> str:
    """TF's ``TensorShape::DebugString`` of a concrete shape: ``[2,3]``."""
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


def _merge(a: PartialShape, b: PartialShape) -> PartialShape:
    """merge_shapes with the "PartialTensorShape: " prefix TF's kernels report merge failures with."""
    try:
        return merge_shapes(a, b)
    except errors.InvalidArgumentError as exc:
        message = exc.message
        if not message.startswith("PartialTensorShape: "):
            message = "PartialTensorShape: " + message
        raise _error(message) from None


def shape_from_tensor(value: np.ndarray) -> PartialShape:
    """TF's ``TensorShapeFromTensor``: a -1 scalar is an unknown shape, a vector the dims (-1 unknown)."""
    t = np.asarray(value)
    if t.dtype not in (np.int32, np.int64):
        raise _error(f"Expected an int32 or int64 shape tensor; found {dtypes.as_dtype(t.dtype).cpp_name}")
    if t.ndim == 0:
        if int(t) == -1:
            return None
        raise _error("The only valid scalar shape tensor is the fully unknown shape specified as -1.")
    if t.ndim != 1:
        raise _error(f"Shape must be at most rank 1 but is rank {t.ndim}")
    dims = tuple(int(d) for d in t)
    for d in dims:
        if d < -1:
            raise _error(f"Dimension {d} must be >= -1")
    return dims


def _dtype_text(dtype: dtypes.DType) -> str:
    return dtype.cpp_name


class _ListKernel(OpKernel):
    """Shared plumbing: the input list, host values of small args, element values on this kernel's device."""

    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        self._element_dtype: dtypes.DType | None = (
            ctx.get_attr("element_dtype") if ctx.has_attr("element_dtype") else None
        )
        self._host = ctx.device.is_host

    # -------------------------------------------------------------- inputs

    @staticmethod
    def input_list(ctx: OpKernelContext, index: int) -> TensorList:
        """TF's ``GetInputList``: input ``index`` must be a scalar variant holding a TensorList."""
        return _ListKernel.list_of(ctx.inputs[index])

    @staticmethod
    def list_of(value: Any) -> TensorList:
        """The TensorList a scalar variant value holds (TF's errors otherwise)."""
        if value.shape != ():
            raise _error(f"Input list must be a scalar saw: {_shape_text(value.shape)}")
        found = value[()]
        if not isinstance(found, TensorList):
            raise _error(f"Input handle is not a list. Saw: '{found!r}'")
        return found

    @staticmethod
    def host_input(ctx: OpKernelContext, index: int) -> np.ndarray:
        """A host-memory input (shape, index, size args) as a numpy array."""
        value = ctx.inputs[index]
        return value if isinstance(value, np.ndarray) else ctx.device.to_host(value)

    def check_dtype(self, tensor_list: TensorList) -> None:
        """The op's ``element_dtype`` must be the list's."""
        if self._element_dtype != tensor_list.element_dtype:
            raise _error(
                f"Invalid data types; op elements {_dtype_text(self._element_dtype)} but list elements "  # type: ignore[arg-type]
                f"{_dtype_text(tensor_list.element_dtype)}"
            )

    def element_shape_from_input(self, ctx: OpKernelContext, tensor_list: TensorList, index: int) -> PartialShape:
        """TF's ``GetElementShapeFromInput``: the shape input ``index`` merged with the list's element shape."""
        return _merge(shape_from_tensor(self.host_input(ctx, index)), tensor_list.element_shape)

    # -------------------------------------------------------------- element values

    def to_host(self, ctx: OpKernelContext, value: Any) -> np.ndarray:
        """An element value (or element-typed input) as a host array."""
        return value if isinstance(value, np.ndarray) else ctx.device.to_host(value)

    def on_device(self, ctx: OpKernelContext, array: np.ndarray) -> Any:
        """A host array as a value of this kernel's device (element-typed outputs)."""
        if self._host or not isinstance(array, np.ndarray):
            return array
        return ctx.device.from_host(array)

    def zeros(self, shape: Sequence[int], dtype: dtypes.DType) -> np.ndarray:
        """TF's zeros for an uninitialized element (empty strings, empty variants)."""
        if dtype == dtypes.variant:
            return np.empty(tuple(shape), dtype=object)
        if dtype == dtypes.string:
            return np.full(tuple(shape), b"", dtype=object)
        return np.zeros(tuple(shape), dtype=dtype.as_numpy_dtype)

    def stacked(self, ctx: OpKernelContext, values: list[Any], element_shape: Sequence[int]) -> Any:
        """``values`` (elements; None = zeros of ``element_shape``) stacked along a new first dim, on this device."""
        dtype = self._element_dtype
        shape = tuple(element_shape)
        if not values:
            return self.on_device(ctx, self.zeros((0, *shape), dtype))  # type: ignore[arg-type]
        zeros = None
        arrays = []
        for v in values:
            if v is None:
                if zeros is None:
                    zeros = self.zeros(shape, dtype)  # type: ignore[arg-type]
                arrays.append(zeros)
            else:
                arrays.append(self.to_host(ctx, v))
        out = np.stack(arrays)
        if out.dtype == object and dtype not in (dtypes.string, dtypes.variant):
            out = out.astype(dtype.as_numpy_dtype)  # type: ignore[union-attr]
        return self.on_device(ctx, out)

    # -------------------------------------------------------------- outputs

    @staticmethod
    def set_list(ctx: OpKernelContext, index: int, tensor_list: TensorList) -> None:
        ctx.set_output(index, list_value(tensor_list))

    @staticmethod
    def writable_list(ctx: OpKernelContext, index: int) -> TensorList:
        """Input ``index``'s list to change and output as output 0: the same one when nothing else holds its tensor
        or its TensorList (TF's forwarding), else a copy. Call it with no local reference to the input list."""
        inputs = ctx.inputs
        # References to the array: the inputs list, getrefcount's argument; to its list: the array slot and
        # getrefcount's argument (this function holds no local for either while checking).
        if sys.getrefcount(inputs[index]) <= 2 and sys.getrefcount(inputs[index][()]) <= 2:
            found = inputs[index][()]
            ctx.set_output(0, inputs[index])
            return found
        copy = inputs[index][()].copy()
        ctx.set_output(0, list_value(copy))
        return copy


# ---------------------------------------------------------------------------------------------- makers


class EmptyTensorListKernel(_ListKernel):
    def compute(self, ctx: OpKernelContext) -> None:
        max_num_elements = self.host_input(ctx, 1)
        if max_num_elements.shape != ():
            raise _error(
                f"max_num_elements expected to be a scalar but got shape: {_shape_text(max_num_elements.shape)}"
            )
        element_shape = shape_from_tensor(self.host_input(ctx, 0))
        self.set_list(ctx, 0, TensorList(self._element_dtype, element_shape, [], int(max_num_elements)))  # type: ignore[arg-type]


class TensorListReserveKernel(_ListKernel):
    def compute(self, ctx: OpKernelContext) -> None:
        element_shape = shape_from_tensor(self.host_input(ctx, 0))
        num = self.host_input(ctx, 1)
        if num.shape != ():
            raise _error(f"The num_elements to reserve must be a tensor size 1, but got {_shape_text(num.shape)}")
        num_elements = int(num)
        if num_elements < 0:
            raise _error(f"The num_elements to reserve must be a non negative number, but got {num_elements}")
        self.set_list(ctx, 0, TensorList(self._element_dtype, element_shape, [None] * num_elements))  # type: ignore[arg-type]


class TensorListFromTensorKernel(_ListKernel):
    def compute(self, ctx: OpKernelContext) -> None:
        element_shape = shape_from_tensor(self.host_input(ctx, 1))
        t = ctx.inputs[0]
        if len(t.shape) < 1:
            raise _error(f"Tensor must be at least a vector, but saw shape: {_shape_text(t.shape)}")
        rest = tuple(t.shape[1:])
        if not is_compatible(element_shape, rest):
            raise _error(
                f"Specified a list with shape {shape_string(element_shape)} from a tensor with shape "
                f"{_shape_text(rest)}"
            )
        array = self.to_host(ctx, t)
        elements = [self.on_device(ctx, array[i, ...]) for i in range(array.shape[0])]
        self.set_list(ctx, 0, TensorList(self._element_dtype, element_shape, elements))  # type: ignore[arg-type]


class TensorListSplitKernel(_ListKernel):
    def compute(self, ctx: OpKernelContext) -> None:
        element_shape = shape_from_tensor(self.host_input(ctx, 1))
        if element_shape is not None and len(element_shape) < 1:
            raise _error(
                "TensorListSplit requires element_shape to be at least of rank 1, but saw: "
                f"{shape_string(element_shape)}"
            )
        t = ctx.inputs[0]
        if len(t.shape) < 1:
            raise _error(f"Tensor must be at least a vector, but saw shape: {_shape_text(t.shape)}")
        rest = tuple(t.shape[1:])
        if not is_compatible(None if element_shape is None else element_shape[1:], rest):
            raise _error(
                f"tensor shape {_shape_text(t.shape)} is not compatible with element_shape "
                f"{shape_string(element_shape)}"
            )
        lengths = self.host_input(ctx, 2)
        if lengths.ndim != 1:
            raise _error(f"Expected lengths to be a vector, received shape: {_shape_text(lengths.shape)}")
        array = self.to_host(ctx, t)
        total = array.shape[0]
        elements = []
        start = end = 0
        for length in lengths.tolist():
            if length < 0:
                raise _error(f"Invalid value in lengths: {length}")
            end = start + length
            if end > total:
                raise _error(f"Attempting to slice [{start}, {end}] from tensor with length {total}")
            elements.append(self.on_device(ctx, array[start:end]))
            start = end
        if end != total:
            raise _error(f"Unused values in tensor. Length of tensor: {total} Values used: {end}")
        self.set_list(ctx, 0, TensorList(self._element_dtype, element_shape, elements))  # type: ignore[arg-type]


class TensorListScatterKernel(_ListKernel):
    """TensorListScatter and TensorListScatterV2 (which adds ``num_elements``)."""

    def compute(self, ctx: OpKernelContext) -> None:
        indices = self.host_input(ctx, 1).reshape(-1)
        element_shape = shape_from_tensor(self.host_input(ctx, 2))
        num_elements = int(self.host_input(ctx, 3)) if ctx.num_inputs >= 4 else -1
        if num_elements < -1:
            raise _error(f"TensorListScatter expects num_elements >= -1, found: {num_elements}")
        t = ctx.inputs[0]
        if len(t.shape) < 1:
            raise _error(f"Tensor must be at least a vector, but saw shape: {_shape_text(t.shape)}")
        rest = tuple(t.shape[1:])
        if not is_compatible(element_shape, rest):
            raise _error(
                f"Specified a list with shape {shape_string(element_shape)} from a tensor with shape "
                f"{_shape_text(rest)}"
            )
        if indices.size != t.shape[0]:
            raise _error(f"Invalid number of rows in input tensor. Expected: {indices.size} Actual: {t.shape[0]}")
        highest = -1
        for i in indices.tolist():
            if i < 0:
                raise _error("Indices in TensorListScatter must all be non-negative.")
            if num_elements != -1 and i >= num_elements:
                raise _error(f"TensorListScatter: Trying to scatter at index {i} in list with size {num_elements}")
            highest = max(highest, i)
        elements: list[Any] = [None] * max(highest + 1, num_elements)
        array = self.to_host(ctx, t)
        for row, i in enumerate(indices.tolist()):
            elements[i] = self.on_device(ctx, array[row, ...])
        self.set_list(ctx, 0, TensorList(self._element_dtype, element_shape, elements))  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------- queries


class TensorListLengthKernel(_ListKernel):
    def compute(self, ctx: OpKernelContext) -> None:
        ctx.set_output(0, np.array(len(self.input_list(ctx, 0).tensors), dtype=np.int32))


class TensorListElementShapeKernel(_ListKernel):
    def compute(self, ctx: OpKernelContext) -> None:
        shape = self.input_list(ctx, 0).element_shape
        np_type = ctx.op_kernel.output_types[0].as_numpy_dtype
        if shape is None:
            ctx.set_output(0, np.array(-1, dtype=np_type))
        else:
            ctx.set_output(0, np.array(shape, dtype=np_type).reshape(len(shape)))


# ---------------------------------------------------------------------------------------------- reads


class TensorListGetItemKernel(_ListKernel):
    def compute(self, ctx: OpKernelContext) -> None:
        tensor_list = self.input_list(ctx, 0)
        item = self._stored_item(tensor_list, self.host_input(ctx, 1))
        if item is not None:
            ctx.set_output(0, item)
            return
        ctx.set_output(0, self.on_device(ctx, self._zeros_item(tensor_list, self.host_input(ctx, 2))))

    def prepared_call(self) -> Any:
        """``call(handle, index, element_shape) -> item`` for a host executor's direct-call path (reading an element
        changes nothing, so no context is needed); None on other devices."""
        if not self._host:
            return None

        def get_item(handle: Any, index: Any, element_shape: Any) -> Any:
            tensor_list = self.list_of(handle)
            item = self._stored_item(tensor_list, index)
            return item if item is not None else self._zeros_item(tensor_list, element_shape)

        return get_item

    def _stored_item(self, tensor_list: TensorList, index: Any) -> Any:
        """The element at ``index`` (None when it was never set); TF's errors for a wrong dtype or index."""
        self.check_dtype(tensor_list)
        index = int(index)
        n = len(tensor_list.tensors)
        if not 0 <= index < n:
            raise _error(f"Trying to access element {index} in a list with {n} elements.")
        return tensor_list.tensors[index]

    def _zeros_item(self, tensor_list: TensorList, element_shape: Any) -> np.ndarray:
        """TF's zeros for an element never set, of the shape input merged with what the list knows."""
        partial = _merge(shape_from_tensor(element_shape), tensor_list.element_shape)
        if not is_fully_defined(partial):
            for t in tensor_list.tensors:
                if t is not None:
                    partial = _merge(partial, tuple(t.shape))
        if not is_fully_defined(partial):
            raise _error(
                f"Trying to read an uninitialized tensor but element_shape is not fully defined: "
                f"{shape_string(partial)} and no list element is set."
            )
        return self.zeros(partial, self._element_dtype)  # type: ignore[arg-type]


class TensorListStackKernel(_ListKernel):
    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        self._num_elements = ctx.get_attr("num_elements")

    def compute(self, ctx: OpKernelContext) -> None:
        tensor_list = self.input_list(ctx, 0)
        self.check_dtype(tensor_list)
        n = len(tensor_list.tensors)
        if self._num_elements != -1 and n != self._num_elements:
            raise _error(
                f"Operation expected a list with {self._num_elements} elements but got a list with {n} elements."
            )
        partial = self.element_shape_from_input(ctx, tensor_list, 1)
        if not is_fully_defined(partial) and n == 0:
            raise _error(
                "Tried to stack elements of an empty list with non-fully-defined element_shape: "
                f"{shape_string(partial)}"
            )
        if not is_fully_defined(tensor_list.element_shape):
            for t in tensor_list.tensors:
                if t is not None:
                    partial = _merge(partial, tuple(t.shape))
        if not is_fully_defined(partial):
            raise _error(
                "Tried to stack list which only contains uninitialized tensors and has a non-fully-defined "
                f"element_shape: {shape_string(partial)}"
            )
        ctx.set_output(0, self.stacked(ctx, tensor_list.tensors, partial))  # type: ignore[arg-type]


class TensorListGatherKernel(_ListKernel):
    def compute(self, ctx: OpKernelContext) -> None:
        tensor_list = self.input_list(ctx, 0)
        self.check_dtype(tensor_list)
        indices = self.host_input(ctx, 1)
        flat = indices.reshape(-1).tolist()
        partial = self.element_shape_from_input(ctx, tensor_list, 2)
        if not is_fully_defined(partial) and not flat:
            raise _error(
                f"Tried to gather 0-elements from a list with non-fully-defined shape: {shape_string(partial)}"
            )
        n = len(tensor_list.tensors)
        for i in flat:
            if not 0 <= i < n:
                raise _error(f"Index {i} out o range; list only has {n} elements.")
        if not is_fully_defined(tensor_list.element_shape):
            for i in flat:
                t = tensor_list.tensors[i]
                if t is not None:
                    partial = _merge(partial, tuple(t.shape))
        if not is_fully_defined(partial):
            raise _error(
                "Tried to gather uninitialized tensors from a list with non-fully-defined element_shape: "
                f"{shape_string(partial)}"
            )
        # As TF's kernel: the output's first dim is the number of indices, whatever their shape.
        ctx.set_output(0, self.stacked(ctx, [tensor_list.tensors[i] for i in flat], partial))  # type: ignore[arg-type]


class TensorListConcatKernel(_ListKernel):
    """TensorListConcat (element shape attr) and TensorListConcatV2 (element shape and leading dims inputs)."""

    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        self._rest_attr: PartialShape = None
        if ctx.has_attr("element_shape"):
            proto = ctx.get_attr("element_shape")
            if not proto.unknown_rank:
                self._rest_attr = tuple(int(d.size) for d in proto.dim)[1:]

    def compute(self, ctx: OpKernelContext) -> None:
        tensor_list = self.input_list(ctx, 0)
        self.check_dtype(tensor_list)
        v2 = ctx.num_inputs > 1
        first_dim = -1
        rest: PartialShape = self._rest_attr
        if v2:
            element_shape = self.element_shape_from_input(ctx, tensor_list, 1)
            if element_shape is not None and len(element_shape) < 1:
                raise _error("Concat requires elements to be at least vectors, found scalars instead.")
            if element_shape is not None:
                first_dim = element_shape[0]
                rest = element_shape[1:]
            else:
                rest = None
        tensors = tensor_list.tensors
        if not tensors and not is_fully_defined(rest):
            raise _error(
                "All except the first dimension must be fully defined when concating an empty tensor list. "
                f"element_shape: {shape_string(rest)}"
            )
        if not is_fully_defined(tensor_list.element_shape):
            check_dim = first_dim == -1
            inferred = first_dim
            for i, t in enumerate(tensors):
                if t is None:
                    continue
                if len(t.shape) < 1:
                    raise _error(f"Concat saw a scalar shape at index {i} but requires at least vectors.")
                rest = _merge(rest, tuple(t.shape[1:]))
                if first_dim != -1 and first_dim != t.shape[0]:
                    raise _error(
                        "First entry of element_shape input does not match the first dim of list element at index: "
                        f"{i} Expected: {first_dim} Actual: {t.shape[0]}"
                    )
                if check_dim:
                    if inferred == -1:
                        inferred = t.shape[0]
                    elif inferred != t.shape[0]:
                        inferred = -1
                        check_dim = False
            first_dim = inferred
        if not is_fully_defined(rest):
            raise _error(
                "Trying to concat list with only uninitialized tensors but element_shape_except_first_dim_ is not "
                f"fully defined: {shape_string(rest)}"
            )
        leading = self.host_input(ctx, 2).reshape(-1).tolist() if ctx.num_inputs > 2 else []
        lengths = []
        for i, t in enumerate(tensors):
            if t is not None:
                lengths.append(int(t.shape[0]))
            elif i >= len(leading) and first_dim != -1:
                lengths.append(first_dim)
            else:
                if not v2:
                    raise _error(
                        "Concating lists with uninitialized tensors is not supported in this version of "
                        "TensorListConcat. Consider updating your GraphDef to run the newer version."
                    )
                if i >= len(leading):
                    raise _error(
                        f"List contains uninitialized tensor at index {i} but leading_dims has only {len(leading)} "
                        "elements."
                    )
                lengths.append(int(leading[i]))
        dtype = self._element_dtype
        parts = [
            self.to_host(ctx, t) if t is not None else self.zeros((length, *rest), dtype)  # type: ignore[misc, arg-type]
            for t, length in zip(tensors, lengths, strict=True)
        ]
        out = np.concatenate(parts) if parts else self.zeros((0, *rest), dtype)  # type: ignore[misc, arg-type]
        ctx.set_output(0, self.on_device(ctx, out))
        ctx.set_output(1, np.array(lengths, dtype=np.int64).reshape(len(lengths)))


# ---------------------------------------------------------------------------------------------- updates


class TensorListPushBackKernel(_ListKernel):
    def compute(self, ctx: OpKernelContext) -> None:
        item = ctx.inputs[1]
        tensor_list = self.input_list(ctx, 0)
        if not is_compatible(tensor_list.element_shape, tuple(item.shape)):
            raise _error(
                "Tried to append a tensor with incompatible shape to a list. Op element shape: "
                f"{_shape_text(item.shape)} list shape: {shape_string(tensor_list.element_shape)}"
            )
        self.check_dtype(tensor_list)
        if tensor_list.max_num_elements != -1 and len(tensor_list.tensors) >= tensor_list.max_num_elements:
            raise _error(
                f"Tried to push item into a full list list size: {len(tensor_list.tensors)} max_num_elements: "
                f"{tensor_list.max_num_elements}"
            )
        del tensor_list
        self.writable_list(ctx, 0).tensors.append(item)


class TensorListPopBackKernel(_ListKernel):
    def compute(self, ctx: OpKernelContext) -> None:
        tensor_list = self.input_list(ctx, 0)
        self.check_dtype(tensor_list)
        if not tensor_list.tensors:
            raise _error("Trying to pop from an empty list.")
        last = tensor_list.tensors[-1]
        if last is None:
            partial = self.element_shape_from_input(ctx, tensor_list, 1)
            if not is_fully_defined(partial):
                raise _error(
                    "Trying to read an uninitialized tensor but element_shape is not fully defined."
                    f"{shape_string(partial)}"
                )
            last = self.on_device(ctx, self.zeros(partial, self._element_dtype))  # type: ignore[arg-type]
        del tensor_list
        ctx.set_output(1, last)
        self.writable_list(ctx, 0).tensors.pop()


class TensorListSetItemKernel(_ListKernel):
    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        self._resize = bool(ctx.get_attr("resize_if_index_out_of_bounds"))

    def compute(self, ctx: OpKernelContext) -> None:
        tensor_list = self.input_list(ctx, 0)
        self.check_dtype(tensor_list)
        index = int(self.host_input(ctx, 1))
        n = len(tensor_list.tensors)
        if index < 0 or (index >= n and not self._resize):
            raise _error(f"Trying to modify element {index} in a list with {n} elements.")
        item = ctx.inputs[2]
        if not is_compatible(tensor_list.element_shape, tuple(item.shape)):
            raise _error(
                "Tried to set a tensor with incompatible shape at a list index. Item element shape: "
                f"{_shape_text(item.shape)} list shape: {shape_string(tensor_list.element_shape)}"
            )
        del tensor_list
        out = self.writable_list(ctx, 0)
        if index >= len(out.tensors):
            out.tensors.extend([None] * (index + 1 - len(out.tensors)))
        out.tensors[index] = item


class TensorListResizeKernel(_ListKernel):
    def compute(self, ctx: OpKernelContext) -> None:
        self.input_list(ctx, 0)
        size = int(self.host_input(ctx, 1))
        if size < 0:
            raise _error(f"TensorListSlice expects size to be non-negative. Got: {size}")
        out = self.writable_list(ctx, 0)
        if size > len(out.tensors):
            out.tensors.extend([None] * (size - len(out.tensors)))
        else:
            del out.tensors[size:]


class TensorListScatterIntoExistingListKernel(_ListKernel):
    def compute(self, ctx: OpKernelContext) -> None:
        tensor_list = self.input_list(ctx, 0)
        t = ctx.inputs[1]
        indices = self.host_input(ctx, 2)
        t_dtype = ctx.op_kernel.input_types[1]
        if t_dtype != tensor_list.element_dtype:
            raise _error(
                f"Invalid data types; input tensor type: {_dtype_text(t_dtype)} list element_type: "
                f"{_dtype_text(tensor_list.element_dtype)}"
            )
        if len(t.shape) < 1:
            raise _error(f"Tensor must be at least a vector, but saw shape: {_shape_text(t.shape)}")
        if indices.ndim != 1:
            raise _error(f"Expected indices to be a vector, but received shape: {_shape_text(indices.shape)}")
        if indices.size != t.shape[0]:
            raise _error(f"Expected len(indices) == tensor.shape[0], but saw: {indices.size} vs. {t.shape[0]}")
        flat = indices.tolist()
        if any(i < 0 for i in flat):
            raise _error("Indices in TensorListScatter must all be non-negative.")
        del tensor_list
        out = self.writable_list(ctx, 0)
        highest = max(flat, default=-1)
        if highest + 1 > len(out.tensors):
            out.tensors.extend([None] * (highest + 1 - len(out.tensors)))
        array = self.to_host(ctx, t)
        for row, i in enumerate(flat):
            out.tensors[i] = self.on_device(ctx, array[row, ...])


class TensorListPushBackBatchKernel(_ListKernel):
    def compute(self, ctx: OpKernelContext) -> None:
        item = ctx.inputs[1]
        handles = ctx.inputs[0]
        if len(item.shape) < 1:
            raise _error(f"Expected tensor to be at least a vector, but saw shape: {_shape_text(item.shape)}")
        if handles.ndim != 1:
            raise _error(f"Expected input_handles to be a vector, but saw shape: {_shape_text(handles.shape)}")
        batch = handles.shape[0]
        if item.shape[0] != batch:
            raise _error(f"Expected tensor.shape[0] == input_handles.size, but saw {item.shape[0]} vs. {batch}")
        element_shape = tuple(item.shape[1:])
        for b in range(batch):
            found = handles[b]
            if not isinstance(found, TensorList):
                raise _error(f"Input handle at index {b} is not a list. Saw: '{found!r}'")
            if not is_compatible(found.element_shape, element_shape):
                raise _error(
                    f"Tried to append a tensor with incompatible shape to a list at index {b}. Op element shape: "
                    f"{_shape_text(element_shape)} list shape: {shape_string(found.element_shape)}"
                )
            if found.element_dtype != self._element_dtype:
                raise _error(
                    f"Invalid data type at index {b}; op elements {_dtype_text(self._element_dtype)} but list "  # type: ignore[arg-type]
                    f"elements {_dtype_text(found.element_dtype)}"
                )
        array = self.to_host(ctx, item)
        out = np.empty((batch,), dtype=object)
        for b in range(batch):
            copy = handles[b].copy()
            copy.tensors.append(self.on_device(ctx, array[b, ...]))
            out[b] = copy
        ctx.set_output(0, out)


class TensorListConcatListsKernel(_ListKernel):
    def compute(self, ctx: OpKernelContext) -> None:
        a, b = ctx.inputs[0], ctx.inputs[1]
        if a.shape != b.shape:
            raise _error(
                f"Incompatible input TensorList tensor shapes: {_shape_text(a.shape)} vs. {_shape_text(b.shape)}"
            )
        out = np.empty(a.shape, dtype=object)
        flat_a, flat_b, flat_out = a.reshape(-1), b.reshape(-1), out.reshape(-1)
        for i in range(flat_a.size):
            la, lb = flat_a[i], flat_b[i]
            if not isinstance(la, TensorList):
                raise _error(f"input_a is not a TensorList at index {i}.  Saw: '{la!r}'")
            if not isinstance(lb, TensorList):
                raise _error(f"input_b is not a TensorList at index {i}.  Saw: '{lb!r}'")
            for name, found in (("input_a", la), ("input_b", lb)):
                if found.element_dtype != self._element_dtype:
                    raise _error(
                        f"{name}[{i}].dtype != element_dtype.  Saw: {_dtype_text(found.element_dtype)} vs. "
                        f"{_dtype_text(self._element_dtype)}"  # type: ignore[arg-type]
                    )
            if la.element_shape != lb.element_shape:
                raise _error(
                    f"input_a and input_b TensorList element shapes are not identical at index {i}.  Saw "
                    f"{shape_string(la.element_shape)} vs. {shape_string(lb.element_shape)}"
                )
            joined = la.copy()
            joined.tensors.extend(lb.tensors)
            flat_out[i] = joined
        ctx.set_output(0, out)


# ---------------------------------------------------------------------------------------------- variant arithmetic
# Gradients of lists are lists: TF registers the TensorList (and Optional) forms of the variant ``ADD`` and
# ``ZEROS_LIKE`` operations, which ``AddN`` and ``ZerosLike`` of a variant tensor dispatch to (gradient
# aggregation, missing gradients of list outputs, while-loop gradients of TensorArrays).


def _optional_type() -> type:
    from modtensor.kernels.cpu.data.iterators import Optional

    return Optional


def _held(value: Any) -> Any:
    """The object a 0-d variant element holds, else None."""
    if isinstance(value, np.ndarray) and value.dtype == object and value.shape == ():
        return value[()]
    return None


def _add_elements(kernel: _ListKernel, ctx: OpKernelContext, a: Any, b: Any) -> Any:
    """TF's BinaryAddTensors: an uninitialized element adds as zeros; variant elements add recursively."""
    if a is None:
        return b
    if b is None:
        return a
    held = _held(a)
    if isinstance(held, (TensorList, _optional_type())):
        result = np.empty((), dtype=object)
        result[()] = _add_variants(kernel, ctx, held, _held(b))
        return result
    return kernel.on_device(ctx, np.asarray(kernel.to_host(ctx, a) + kernel.to_host(ctx, b)))


def _add_variants(kernel: _ListKernel, ctx: OpKernelContext, a: Any, b: Any) -> Any:
    """The variant ADD of two TensorLists (TF's TensorListBinaryAdd) or two Optionals (OptionalBinaryAdd)."""
    optional = _optional_type()
    if isinstance(a, optional) and isinstance(b, optional):
        if a.values is None:
            return b
        if b.values is None:
            return a
        if len(a.values) != len(b.values):
            raise _error("Input optionals must have the same number of components")
        return optional([_add_elements(kernel, ctx, x, y) for x, y in zip(a.values, b.values, strict=True)])
    if not isinstance(a, TensorList) or not isinstance(b, TensorList):
        raise _error(
            f"Trying to add two variants of different types or of a type without an ADD operation: {a!r} and {b!r}"
        )
    if a.element_dtype != b.element_dtype:
        raise _error(
            "Trying to add two lists of tensors of different dtypes. One is "
            f"{a.element_dtype.name} and the other is {b.element_dtype.name}"
        )
    if not is_compatible(a.element_shape, b.element_shape):
        raise _error(
            "Trying to add two lists of tensors with incompatible element shapes. One is "
            f"{shape_string(a.element_shape)} and the other is {shape_string(b.element_shape)}"
        )
    if len(a.tensors) != len(b.tensors):
        raise _error(
            f"Trying to add two lists of tensors with different lengths. One is {len(a.tensors)} and the other "
            f"is {len(b.tensors)}"
        )
    tensors = [_add_elements(kernel, ctx, x, y) for x, y in zip(a.tensors, b.tensors, strict=True)]
    return TensorList(a.element_dtype, _merge(a.element_shape, b.element_shape), tensors, a.max_num_elements)


class VariantAddNKernel(_ListKernel):
    """``AddN`` of variant tensors (TF's ``AddNOp<Variant>``: the variants' ADD, lists and optionals)."""

    def compute(self, ctx: OpKernelContext) -> None:
        values = list(ctx.inputs)
        for value in values:
            if value.shape != ():
                raise _error(
                    "AddN of non-scalar Tensor with dtype=DT_VARIANT is not supported; "
                    f"inputs[0].shape = {_shape_text(value.shape)}"
                )
        if len(values) == 1:
            ctx.set_output(0, values[0])
            return
        total = values[0][()]
        for value in values[1:]:
            total = _add_variants(self, ctx, total, value[()])
        out = np.empty((), dtype=object)
        out[()] = total
        ctx.set_output(0, out)


def _zeros_like_element(kernel: _ListKernel, ctx: OpKernelContext, value: Any) -> Any:
    if value is None:
        return None
    held = _held(value)
    if isinstance(held, (TensorList, _optional_type())):
        result = np.empty((), dtype=object)
        result[()] = _zeros_like_variant(kernel, ctx, held)
        return result
    return kernel.on_device(ctx, np.zeros_like(kernel.to_host(ctx, value)))


def _zeros_like_variant(kernel: _ListKernel, ctx: OpKernelContext, found: Any) -> Any:
    """TF's TensorListZerosLike (elements zeros of each element's shape; uninitialized ones stay so) and
    OptionalZerosLike."""
    optional = _optional_type()
    if isinstance(found, optional):
        if found.values is None:
            return found
        return optional([_zeros_like_element(kernel, ctx, v) for v in found.values])
    if not isinstance(found, TensorList):
        raise _error(f"No unary variant unary_op function found for op ZEROS_LIKE Variant type_name: {found!r}")
    tensors = [_zeros_like_element(kernel, ctx, t) for t in found.tensors]
    return TensorList(found.element_dtype, found.element_shape, tensors, found.max_num_elements)


class VariantZerosLikeKernel(_ListKernel):
    """``ZerosLike`` of a scalar variant holding a TensorList or an Optional (TF's ``ZerosLikeOp<Variant>``)."""

    def compute(self, ctx: OpKernelContext) -> None:
        value = ctx.inputs[0]
        if value.shape != ():
            raise _error("ZerosLike non-scalar Tensor with dtype=DT_VARIANT is not supported.")
        out = np.empty((), dtype=object)
        out[()] = _zeros_like_variant(self, ctx, value[()])
        ctx.set_output(0, out)


# op -> (kernel class, host-memory args on non-CPU devices); registered for T=variant only, beside the numeric kernels
VARIANT_KERNELS: dict[str, tuple[type[OpKernel], tuple[str, ...]]] = {
    "AddN": (VariantAddNKernel, ("inputs", "sum")),
    "ZerosLike": (VariantZerosLikeKernel, ("x", "y")),
}


# ---------------------------------------------------------------------------------------------- registration

# op -> (kernel class, host-memory args on non-CPU devices: lists, indices, shapes, sizes)
LIST_KERNELS: dict[str, tuple[type[OpKernel], tuple[str, ...]]] = {
    "EmptyTensorList": (EmptyTensorListKernel, ("element_shape", "max_num_elements", "handle")),
    "TensorListReserve": (TensorListReserveKernel, ("element_shape", "num_elements", "handle")),
    "TensorListFromTensor": (TensorListFromTensorKernel, ("element_shape", "output_handle")),
    "TensorListSplit": (TensorListSplitKernel, ("element_shape", "lengths", "output_handle")),
    "TensorListScatter": (TensorListScatterKernel, ("indices", "element_shape", "output_handle")),
    "TensorListScatterV2": (TensorListScatterKernel, ("indices", "element_shape", "num_elements", "output_handle")),
    "TensorListLength": (TensorListLengthKernel, ("input_handle", "length")),
    "TensorListElementShape": (TensorListElementShapeKernel, ("input_handle", "element_shape")),
    "TensorListGetItem": (TensorListGetItemKernel, ("input_handle", "index", "element_shape")),
    "TensorListStack": (TensorListStackKernel, ("input_handle", "element_shape")),
    "TensorListGather": (TensorListGatherKernel, ("input_handle", "indices", "element_shape")),
    "TensorListConcat": (TensorListConcatKernel, ("input_handle", "lengths")),
    "TensorListConcatV2": (TensorListConcatKernel, ("input_handle", "element_shape", "leading_dims", "lengths")),
    "TensorListPushBack": (TensorListPushBackKernel, ("input_handle", "output_handle")),
    "TensorListPopBack": (TensorListPopBackKernel, ("input_handle", "element_shape", "output_handle")),
    "TensorListSetItem": (TensorListSetItemKernel, ("input_handle", "index", "output_handle")),
    "TensorListResize": (TensorListResizeKernel, ("input_handle", "size", "output_handle")),
    "TensorListScatterIntoExistingList": (
        TensorListScatterIntoExistingListKernel,
        ("input_handle", "indices", "output_handle"),
    ),
    "TensorListPushBackBatch": (TensorListPushBackBatchKernel, ("input_handles", "output_handles")),
    "TensorListConcatLists": (TensorListConcatListsKernel, ("input_a", "input_b", "output")),
}


def register_list_kernels(registry: KernelRegistry, source: str) -> list[KernelRegistration]:
    """Register the TensorList kernels for CPU and for "DEFAULT" (any device type without its own)."""
    regs = []
    for op, (cls, host_memory) in LIST_KERNELS.items():
        regs.append(registry.register(op, "CPU", cls, source=source))
        regs.append(registry.register(op, "DEFAULT", cls, host_memory=host_memory, source=source))
    # The variant forms of AddN and ZerosLike count as list kernels (their own source: the numeric kernels of
    # these ops stay the only ones of the CPU kernel library).
    for op, (cls, host_memory) in VARIANT_KERNELS.items():
        constraints = {"T": [dtypes.variant]}
        variant_source = f"{source}.list_kernels"
        regs.append(registry.register(op, "CPU", cls, constraints=constraints, source=variant_source))
        regs.append(
            registry.register(
                op, "DEFAULT", cls, constraints=constraints, host_memory=host_memory, source=variant_source
            )
        )
    return regs
