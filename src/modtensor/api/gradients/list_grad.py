"""Gradients of the TensorList ops (the lists behind ``tf.TensorArray`` in graphs, ``map_fn`` and loop accumulators).

TensorFlow's rules (``tensorflow/python/ops/list_ops.py``): the gradient of a list is a
list of the element gradients, so each op's gradient is the op that moves values the
other way (``TensorListStack`` <-> ``TensorListFromTensor``, ``PushBack`` <-> ``PopBack``,
``Gather`` <-> ``Scatter``, ``Concat`` <-> ``Split``); reading one element gives a list of
uninitialized elements (read as zeros) holding the gradient at that index. Lengths, element
shapes and list-of-lists concatenation have no gradient.
"""

from __future__ import annotations

from typing import Any

from modtensor.api import array_ops, list_ops
from modtensor.api.dispatch import apply_op
from modtensor.framework import dtypes
from modtensor.framework.gradient_registry import RegisterGradient, no_gradient

for _op in ("TensorListConcatLists", "TensorListElementShape", "TensorListLength", "TensorListPushBackBatch"):
    no_gradient(_op)


def _element_shape(handle: Any) -> Any:
    return list_ops.tensor_list_element_shape(handle, shape_type=dtypes.int32)


def _trailing_shape(tensor: Any) -> Any:
    """The shape of ``tensor`` without its first dimension (an element's shape), as a tensor."""
    return array_ops.slice(array_ops.shape(tensor), [1], [-1])


@RegisterGradient("TensorListPushBack")
def _push_back_grad(op: Any, dresult: Any) -> list[Any]:
    dlist, delement = apply_op(
        "TensorListPopBack",
        input_handle=dresult,
        element_shape=array_ops.shape(op.inputs[1]),
        element_dtype=op.get_attr("element_dtype"),
    )
    return [dlist, delement]


@RegisterGradient("TensorListPopBack")
def _pop_back_grad(op: Any, dlist: Any, delement: Any) -> list[Any]:
    if dlist is None:
        dlist = list_ops.empty_tensor_list(
            element_dtype=delement.dtype if delement is not None else op.get_attr("element_dtype"),
            element_shape=_element_shape(op.outputs[0]),
        )
    if delement is None:
        delement = array_ops.zeros_like(op.outputs[1])
    return [list_ops.tensor_list_push_back(dlist, delement), None]


@RegisterGradient("TensorListStack")
def _stack_grad(op: Any, dtensor: Any) -> list[Any]:
    return [list_ops.tensor_list_from_tensor(dtensor, element_shape=dtensor.shape[1:]), None]


@RegisterGradient("TensorListConcat")
@RegisterGradient("TensorListConcatV2")
def _concat_grad(op: Any, dtensor: Any, unused_dlengths: Any) -> list[Any]:
    dlist = list_ops.tensor_list_split(dtensor, element_shape=_element_shape(op.inputs[0]), lengths=op.outputs[1])
    if op.type == "TensorListConcatV2":
        return [dlist, None, None]
    return [dlist]


@RegisterGradient("TensorListSplit")
def _split_grad(op: Any, dlist: Any) -> list[Any]:
    tensor, _, lengths = op.inputs
    element_shape = array_ops.concat([[-1], _trailing_shape(tensor)], axis=0)
    joined = list_ops.tensor_list_concat_v2(
        dlist, element_shape=element_shape, leading_dims=lengths, element_dtype=op.inputs[0].dtype
    )[0]
    return [joined, None, None]


@RegisterGradient("TensorListFromTensor")
def _from_tensor_grad(op: Any, dlist: Any) -> list[Any]:
    t = op.inputs[0]
    dims = t.shape.as_list() if t.shape.rank else None
    num_elements = dims[0] if dims and dims[0] is not None else -1
    if dlist is None:
        dlist = list_ops.empty_tensor_list(element_dtype=t.dtype, element_shape=_element_shape(op.outputs[0]))
    tensor_grad = list_ops.tensor_list_stack(
        dlist, element_dtype=t.dtype, num_elements=num_elements, element_shape=_trailing_shape(t)
    )
    return [tensor_grad, None]


@RegisterGradient("TensorListGetItem")
def _get_item_grad(op: Any, ditem: Any) -> list[Any]:
    handle = op.inputs[0]
    reserved = list_ops.tensor_list_reserve(
        _element_shape(handle), list_ops.tensor_list_length(handle), element_dtype=ditem.dtype
    )
    return [list_ops.tensor_list_set_item(reserved, index=op.inputs[1], item=ditem), None, None]


@RegisterGradient("TensorListSetItem")
def _set_item_grad(op: Any, dlist: Any) -> list[Any]:
    input_list, index, item = op.inputs
    list_grad = list_ops.tensor_list_set_item(dlist, index=index, item=array_ops.zeros_like(item))
    element_grad = list_ops.tensor_list_get_item(
        dlist, index, element_shape=array_ops.shape(item), element_dtype=item.dtype
    )
    if op.get_attr("resize_if_index_out_of_bounds"):
        list_grad = list_ops.tensor_list_resize(list_grad, list_ops.tensor_list_length(input_list))
    return [list_grad, None, element_grad]


@RegisterGradient("TensorListResize")
def _resize_grad(op: Any, dlist: Any) -> list[Any]:
    return [list_ops.tensor_list_resize(dlist, list_ops.tensor_list_length(op.inputs[0])), None]


@RegisterGradient("TensorListGather")
def _gather_grad(op: Any, dtensor: Any) -> list[Any]:
    input_list, indices, _ = op.inputs
    reserved = list_ops.tensor_list_reserve(
        _element_shape(input_list), list_ops.tensor_list_length(input_list), dtensor.dtype
    )
    return [list_ops.tensor_list_scatter(tensor=dtensor, indices=indices, input_handle=reserved), None, None]


@RegisterGradient("TensorListScatter")
@RegisterGradient("TensorListScatterV2")
def _scatter_grad(op: Any, dlist: Any) -> list[Any]:
    tensor, indices = op.inputs[0], op.inputs[1]
    dtensor = list_ops.tensor_list_gather(
        dlist, indices, element_shape=_trailing_shape(tensor), element_dtype=tensor.dtype
    )
    if op.type == "TensorListScatterV2":
        return [dtensor, None, None, None]
    return [dtensor, None, None]


@RegisterGradient("TensorListScatterIntoExistingList")
def _scatter_into_existing_grad(op: Any, dlist: Any) -> list[Any]:
    _, tensor, indices = op.inputs
    dtensor = list_ops.tensor_list_gather(
        dlist, indices, element_shape=_trailing_shape(tensor), element_dtype=tensor.dtype
    )
    zeros = array_ops.zeros_like(tensor)
    return [list_ops.tensor_list_scatter(zeros, indices, input_handle=dlist), dtensor, None]
