"""Python wrappers of the TensorList ops, with the names and signatures of TF's ``list_ops`` module.

The generated-op wrappers (``tensor_list_push_back``, ``tensor_list_length``, ...) take the
OpDef's argument names; the helpers above them (``tensor_list_reserve``, ``tensor_list_stack``,
``tensor_list_scatter``, ...) accept element shapes as TF's do: None or an unknown-rank
``TensorShape`` for an unknown shape, lists with None for unknown dims, or a shape tensor.
``tf.TensorArray`` inside functions, ``while_loop`` accumulators and ``map_fn`` use them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.api.dispatch import apply_op
from modtensor.api.op_scope import convert_to_tensor
from modtensor.framework import dtypes, tensor_shape
from modtensor.framework.tensor import Tensor

__all__ = [
    "build_element_shape",
    "empty_tensor_list",
    "tensor_list_concat",
    "tensor_list_concat_lists",
    "tensor_list_concat_v2",
    "tensor_list_element_shape",
    "tensor_list_from_tensor",
    "tensor_list_gather",
    "tensor_list_get_item",
    "tensor_list_length",
    "tensor_list_pop_back",
    "tensor_list_push_back",
    "tensor_list_push_back_batch",
    "tensor_list_reserve",
    "tensor_list_resize",
    "tensor_list_scatter",
    "tensor_list_scatter_into_existing_list",
    "tensor_list_scatter_v2",
    "tensor_list_set_item",
    "tensor_list_split",
    "tensor_list_stack",
]


def build_element_shape(shape: Any) -> Any:
    """TF's ``_build_element_shape``: an element shape as what the ops' ``element_shape`` input takes.

    A tensor passes through; None or an unknown-rank shape is -1; an empty shape or a
    numpy value an int32 tensor; a list of dims keeps its ints and tensors, None as -1.
    """
    if isinstance(shape, Tensor):
        return shape
    if isinstance(shape, tensor_shape.TensorShape):
        shape = shape.as_list() if shape.rank is not None else None
    if shape is None:
        return -1
    if isinstance(shape, (np.ndarray, np.generic)) or not shape:
        return convert_to_tensor(shape, dtype=dtypes.int32)

    def convert(dim: Any) -> Any:
        if dim is None:
            return -1
        if isinstance(dim, Tensor):
            return dim
        if isinstance(dim, tensor_shape.Dimension):
            return -1 if dim.value is None else dim.value
        return dim

    return [convert(d) for d in shape]


# ------------------------------------------------------------------------------ helpers with TF's signatures


def empty_tensor_list(element_shape: Any, element_dtype: Any, max_num_elements: Any = None, name: str | None = None):
    """An empty list of ``element_dtype`` elements of ``element_shape`` (at most ``max_num_elements``, -1: any)."""
    return apply_op(
        "EmptyTensorList",
        name=name,
        element_shape=build_element_shape(element_shape),
        max_num_elements=-1 if max_num_elements is None else max_num_elements,
        element_dtype=element_dtype,
    )


def tensor_list_reserve(element_shape: Any, num_elements: Any, element_dtype: Any, name: str | None = None):
    """A list of ``num_elements`` uninitialized elements (read as zeros once their shape is known)."""
    return apply_op(
        "TensorListReserve",
        name=name,
        element_shape=build_element_shape(element_shape),
        num_elements=num_elements,
        element_dtype=element_dtype,
    )


def tensor_list_from_tensor(tensor: Any, element_shape: Any, name: str | None = None):
    """A list of the rows of ``tensor``."""
    return apply_op(
        "TensorListFromTensor",
        name=name,
        tensor=convert_to_tensor(tensor),
        element_shape=build_element_shape(element_shape),
    )


def tensor_list_get_item(
    input_handle: Any, index: Any, element_dtype: Any, element_shape: Any = None, name: str | None = None
):
    """Element ``index`` (zeros of the known element shape when it was never set)."""
    return apply_op(
        "TensorListGetItem",
        name=name,
        input_handle=input_handle,
        index=index,
        element_shape=build_element_shape(element_shape),
        element_dtype=element_dtype,
    )


def tensor_list_pop_back(input_handle: Any, element_dtype: Any, name: str | None = None):
    """``(list without its last element, the last element)``."""
    return apply_op(
        "TensorListPopBack", name=name, input_handle=input_handle, element_shape=-1, element_dtype=element_dtype
    )


def tensor_list_gather(
    input_handle: Any, indices: Any, element_dtype: Any, element_shape: Any = None, name: str | None = None
):
    """The elements at ``indices``, stacked."""
    return apply_op(
        "TensorListGather",
        name=name,
        input_handle=input_handle,
        indices=indices,
        element_shape=build_element_shape(element_shape),
        element_dtype=element_dtype,
    )


def tensor_list_scatter(
    tensor: Any, indices: Any, element_shape: Any = None, input_handle: Any = None, name: str | None = None
):
    """A list with row ``i`` of ``tensor`` at ``indices[i]``: a new one, or ``input_handle`` updated (grown as
    needed)."""
    tensor = convert_to_tensor(tensor)
    if input_handle is not None:
        return apply_op(
            "TensorListScatterIntoExistingList", name=name, input_handle=input_handle, tensor=tensor, indices=indices
        )
    return apply_op(
        "TensorListScatterV2",
        name=name,
        tensor=tensor,
        indices=indices,
        element_shape=build_element_shape(element_shape),
        num_elements=-1,
    )


def tensor_list_stack(
    input_handle: Any,
    element_dtype: Any,
    num_elements: int = -1,
    element_shape: Any = None,
    name: str | None = None,
):
    """All elements stacked along a new first dimension."""
    return apply_op(
        "TensorListStack",
        name=name,
        input_handle=input_handle,
        element_shape=build_element_shape(element_shape),
        element_dtype=element_dtype,
        num_elements=num_elements,
    )


def tensor_list_concat(input_handle: Any, element_dtype: Any, element_shape: Any = None, name: str | None = None):
    """All elements concatenated along their first dimension (TensorListConcatV2's ``tensor`` output)."""
    return apply_op(
        "TensorListConcatV2",
        name=name,
        input_handle=input_handle,
        element_dtype=element_dtype,
        element_shape=build_element_shape(element_shape),
        leading_dims=convert_to_tensor([], dtype=dtypes.int64),
    )[0]


def tensor_list_split(tensor: Any, element_shape: Any, lengths: Any, name: str | None = None):
    """A list of consecutive pieces of ``tensor`` along its first dimension, ``lengths[i]`` rows each."""
    return apply_op(
        "TensorListSplit",
        name=name,
        tensor=convert_to_tensor(tensor),
        element_shape=build_element_shape(element_shape),
        lengths=lengths,
    )


def tensor_list_set_item(
    input_handle: Any, index: Any, item: Any, resize_if_index_out_of_bounds: bool = False, name: str | None = None
):
    """The list with element ``index`` set to ``item`` (grown to ``index + 1`` when asked)."""
    return apply_op(
        "TensorListSetItem",
        name=name,
        input_handle=input_handle,
        index=index,
        item=item,
        resize_if_index_out_of_bounds=resize_if_index_out_of_bounds,
    )


# ------------------------------------------------------------------------------ the plain op wrappers


def tensor_list_push_back(input_handle: Any, tensor: Any, name: str | None = None):
    """The list with ``tensor`` appended."""
    return apply_op("TensorListPushBack", name=name, input_handle=input_handle, tensor=tensor)


def tensor_list_push_back_batch(input_handles: Any, tensor: Any, name: str | None = None):
    """Each list of the vector ``input_handles`` with the matching row of ``tensor`` appended."""
    return apply_op("TensorListPushBackBatch", name=name, input_handles=input_handles, tensor=tensor)


def tensor_list_length(input_handle: Any, name: str | None = None):
    """The number of elements (int32 scalar)."""
    return apply_op("TensorListLength", name=name, input_handle=input_handle)


def tensor_list_element_shape(input_handle: Any, shape_type: Any, name: str | None = None):
    """The element shape: a vector with -1 for unknown dims, or the scalar -1 for an unknown rank."""
    return apply_op("TensorListElementShape", name=name, input_handle=input_handle, shape_type=shape_type)


def tensor_list_resize(input_handle: Any, size: Any, name: str | None = None):
    """The list cut to, or grown (with uninitialized elements) to, ``size`` elements."""
    return apply_op("TensorListResize", name=name, input_handle=input_handle, size=size)


def tensor_list_concat_lists(input_a: Any, input_b: Any, element_dtype: Any, name: str | None = None):
    """Each list of ``input_a`` followed by the matching list of ``input_b``."""
    return apply_op("TensorListConcatLists", name=name, input_a=input_a, input_b=input_b, element_dtype=element_dtype)


def tensor_list_concat_v2(
    input_handle: Any, element_shape: Any, leading_dims: Any, element_dtype: Any, name: str | None = None
):
    """``(concatenated elements, their lengths)``; ``leading_dims`` sizes uninitialized elements."""
    return apply_op(
        "TensorListConcatV2",
        name=name,
        input_handle=input_handle,
        element_shape=element_shape,
        leading_dims=leading_dims,
        element_dtype=element_dtype,
    )


def tensor_list_scatter_v2(tensor: Any, indices: Any, element_shape: Any, num_elements: Any, name: str | None = None):
    """A new list of at least ``num_elements`` with row ``i`` of ``tensor`` at ``indices[i]``."""
    return apply_op(
        "TensorListScatterV2",
        name=name,
        tensor=tensor,
        indices=indices,
        element_shape=element_shape,
        num_elements=num_elements,
    )


def tensor_list_scatter_into_existing_list(input_handle: Any, tensor: Any, indices: Any, name: str | None = None):
    """``input_handle`` with row ``i`` of ``tensor`` at ``indices[i]``."""
    return apply_op(
        "TensorListScatterIntoExistingList", name=name, input_handle=input_handle, tensor=tensor, indices=indices
    )
