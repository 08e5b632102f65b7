"""TensorFlow's TensorList ops: growable lists of tensors held in a ``variant`` scalar.

Their OpDefs equal TensorFlow 2.21's (the list-producing ones carry TF's full type
``TFT_ARRAY[TFT_TENSOR[element_dtype]]`` on their output). ``tf.TensorArray`` in
functions, ``while_loop`` accumulators and Keras RNNs build on them. Shape functions
follow TF's, including the *handle data* of a list tensor (its element shape and
dtype): ops that make or update a list set it on their output, ops that read a list
merge it into the element shapes they infer and check its dtype.
"""

from __future__ import annotations

from modtensor.framework import errors
from modtensor.framework.op_def_builder import unary_type_constructor
from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import InferenceContext, ShapeAndType, ShapeHandle

_LIST_TYPE = unary_type_constructor("TFT_ARRAY", "element_dtype")


def _error(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _element_dtype(ctx: InferenceContext) -> int:
    return ctx.get_attr("element_dtype").as_datatype_enum


def _type_string(enum: int) -> str:
    from modtensor.framework import dtypes

    return dtypes.as_dtype(enum).cpp_name


def _list_handle(ctx: InferenceContext, i: int) -> ShapeAndType | None:
    """The input's list handle data when it is valid (exactly one entry), else None (TF's IsValid...)."""
    data = ctx.input_handle_shapes_and_types(i)
    return data[0] if data is not None and len(data) == 1 else None


def _set_list(ctx: InferenceContext, i: int, element_shape: ShapeHandle, dtype: int) -> None:
    ctx.set_output_handle_shapes_and_types(i, [ShapeAndType(element_shape, dtype)])


def _reject_wrong_variant_data(ctx: InferenceContext, message: str) -> None:
    data = ctx.input_handle_shapes_and_types(0)
    if data is not None and len(data) > 1:
        raise _error(message)


# ------------------------------------------------------------------------------ shape functions


def _new_list_from_shape_input(shape_index: int) -> object:
    """EmptyTensorList, TensorListReserve, TensorListScatter(V2): a scalar list with the given element shape."""

    def shape_fn(ctx: InferenceContext) -> None:
        ctx.set_output(0, ctx.scalar())
        element_shape = ctx.make_shape_from_shape_tensor_treat_scalar_as_unknown_shape(shape_index)
        _set_list(ctx, 0, element_shape, _element_dtype(ctx))

    return shape_fn


def _push_back_shape(ctx: InferenceContext) -> None:
    ctx.set_output(0, ctx.scalar())
    _push_back_handle_data(ctx)


def _push_back_batch_shape(ctx: InferenceContext) -> None:
    input_handles = ctx.with_rank(ctx.input(0), 1)
    tensor = ctx.with_rank_at_least(ctx.input(1), 1)
    _tensor, input_handles = ctx.merge_prefix(tensor, input_handles)
    ctx.set_output(0, input_handles)
    _push_back_handle_data(ctx)


def _push_back_handle_data(ctx: InferenceContext) -> None:
    element_dtype = _element_dtype(ctx)
    element_shape = ctx.unknown_shape()
    _reject_wrong_variant_data(ctx, "Trying to push to list with wrong variant data.")
    handle = _list_handle(ctx, 0)
    if handle is not None:
        if handle.dtype != element_dtype:
            raise _error(
                f"Trying to push to list with wrong element dtype. List has type {_type_string(handle.dtype)} "
                f"but trying to push element with type {_type_string(element_dtype)}"
            )
        ctx.merge(element_shape, handle.shape)
        element_shape = handle.shape
    _set_list(ctx, 0, element_shape, element_dtype)


def _pop_back_shape(ctx: InferenceContext) -> None:
    element_dtype = _element_dtype(ctx)
    tensor_shape = ctx.unknown_shape()
    _reject_wrong_variant_data(ctx, "Trying to read from list with invalid variant data.")
    handle = _list_handle(ctx, 0)
    if handle is not None:
        if handle.dtype != element_dtype:
            raise _error(
                f"Trying to read from list with wrong element dtype. List has type {_type_string(handle.dtype)} "
                f"but trying to push element with type {_type_string(element_dtype)}"
            )
        ctx.merge(tensor_shape, handle.shape)
        ctx.set_output_handle_shapes_and_types(0, [handle])
        tensor_shape = handle.shape
    ctx.set_output(1, tensor_shape)
    ctx.set_output(0, ctx.scalar())


def _read_element_shape(ctx: InferenceContext) -> ShapeHandle:
    """The element shape a reading op (Stack, Concat) knows from its list's handle data, dtype checked."""
    element_dtype = _element_dtype(ctx)
    element_shape = ctx.unknown_shape()
    _reject_wrong_variant_data(ctx, "Trying to read from list with wrong variant data.")
    handle = _list_handle(ctx, 0)
    if handle is not None:
        if handle.dtype != element_dtype:
            raise _error(
                f"Trying to read from list with wrong element dtype. List has type {_type_string(handle.dtype)} "
                f"but expected type {_type_string(element_dtype)}"
            )
        ctx.merge(element_shape, handle.shape)
        element_shape = handle.shape
    return element_shape


def _stack_shape(ctx: InferenceContext) -> None:
    element_shape = _read_element_shape(ctx)
    element_shape_input = ctx.make_shape_from_shape_tensor_treat_scalar_as_unknown_shape(1)
    element_shape = ctx.merge(element_shape, element_shape_input)
    expected = ctx.get_attr("num_elements")
    num_elements = ctx.make_shape([ctx.unknown_dim() if expected == -1 else expected])
    ctx.set_output(0, ctx.concatenate(num_elements, element_shape))


def _concat_output(ctx: InferenceContext, element_shape: ShapeHandle) -> None:
    element_dtype = _element_dtype(ctx)
    _reject_wrong_variant_data(ctx, "Trying to read from list with wrong variant data.")
    handle = _list_handle(ctx, 0)
    if handle is not None:
        if handle.dtype != element_dtype:
            raise _error(
                f"Trying to read from list with wrong element dtype. List has type {_type_string(handle.dtype)} "
                f"but expected type {_type_string(element_dtype)}"
            )
        element_shape = ctx.merge(element_shape, handle.shape)
    if ctx.rank_known(element_shape):
        rest = ctx.subshape(element_shape, 1)
        ctx.set_output(0, ctx.concatenate(ctx.make_shape([ctx.unknown_dim()]), rest))
    else:
        ctx.set_output(0, ctx.unknown_shape())
    ctx.set_output(1, ctx.make_shape([ctx.unknown_dim()]))


def _concat_shape(ctx: InferenceContext) -> None:
    _concat_output(ctx, ctx.make_shape_from_shape_proto(ctx.get_attr("element_shape")))


def _concat_v2_shape(ctx: InferenceContext) -> None:
    _concat_output(ctx, ctx.make_shape_from_shape_tensor_treat_scalar_as_unknown_shape(1))


def _split_shape(ctx: InferenceContext) -> None:
    ctx.set_output(0, ctx.scalar())
    element_dtype = _element_dtype(ctx)
    tensor_shape = ctx.input(0)
    ctx.with_rank_at_least(tensor_shape, 1)
    ctx.with_rank(ctx.input(2), 1)
    from_tensor = ctx.concatenate(ctx.make_shape([ctx.unknown_dim()]), ctx.subshape(tensor_shape, 1))
    element_shape = ctx.make_shape_from_shape_tensor_treat_scalar_as_unknown_shape(1)
    ctx.merge(from_tensor, element_shape)
    _set_list(ctx, 0, element_shape, element_dtype)


def _from_tensor_shape(ctx: InferenceContext) -> None:
    ctx.set_output(0, ctx.scalar())
    element_dtype = _element_dtype(ctx)
    except_first = ctx.subshape(ctx.input(0), 1)
    element_shape = ctx.make_shape_from_shape_tensor_treat_scalar_as_unknown_shape(1)
    ctx.merge(except_first, element_shape)
    _set_list(ctx, 0, element_shape, element_dtype)


def _element_shape_shape(ctx: InferenceContext) -> None:
    """A vector of the element rank when the handle data knows it, else unknown (a scalar -1 at run time)."""
    handle = _list_handle(ctx, 0)
    if handle is not None and ctx.rank_known(handle.shape):
        ctx.set_output(0, ctx.vector(ctx.rank(handle.shape)))
    else:
        ctx.set_output(0, ctx.unknown_shape())


def _get_item_shape(ctx: InferenceContext) -> None:
    ctx.set_output(0, _checked_read_shape(ctx))


def _checked_read_shape(ctx: InferenceContext) -> ShapeHandle:
    """GetItem/Gather: the handle data's element shape (dtype checked) merged with the element_shape input."""
    element_dtype = _element_dtype(ctx)
    element_shape = ctx.unknown_shape()
    handle = _list_handle(ctx, 0)
    if handle is not None:
        element_shape = handle.shape
        if handle.dtype != element_dtype:
            raise _error(
                f"Expected list with element dtype {_type_string(element_dtype)} but got list with element dtype "
                f"{_type_string(handle.dtype)}"
            )
    element_shape_input = ctx.make_shape_from_shape_tensor_treat_scalar_as_unknown_shape(2)
    return ctx.merge(element_shape, element_shape_input)


def _gather_shape(ctx: InferenceContext) -> None:
    element_shape = _checked_read_shape(ctx)
    ctx.set_output(0, ctx.concatenate(ctx.input(1), element_shape))


def _resize_shape(ctx: InferenceContext) -> None:
    ctx.with_rank(ctx.input(1), 0)
    ctx.set_output(0, ctx.scalar())
    handle = _list_handle(ctx, 0)
    if handle is not None:
        ctx.set_output_handle_shapes_and_types(0, [handle])


def _set_item_shape(ctx: InferenceContext) -> None:
    element_dtype = _element_dtype(ctx)
    handle = _list_handle(ctx, 0)
    ctx.set_output(0, ctx.scalar())
    if handle is not None:
        ctx.merge(ctx.input(2), handle.shape)
        ctx.set_output_handle_shapes_and_types(0, [handle])
    else:
        _set_list(ctx, 0, ctx.unknown_shape(), element_dtype)


def _scatter_into_existing_shape(ctx: InferenceContext) -> None:
    ctx.with_rank_at_least(ctx.input(1), 1)
    ctx.with_rank(ctx.input(2), 1)
    element_dtype = _element_dtype(ctx)
    element_shape = ctx.unknown_shape()
    handle = _list_handle(ctx, 0)
    if handle is not None:
        if handle.dtype != element_dtype:
            raise _error(
                f"Expected list with element dtype {_type_string(element_dtype)} but got list with element dtype "
                f"{_type_string(handle.dtype)}"
            )
        element_shape = handle.shape
    _set_list(ctx, 0, element_shape, element_dtype)
    ctx.set_output(0, ctx.scalar())


def _concat_lists_shape(ctx: InferenceContext) -> None:
    ctx.set_output(0, ctx.merge(ctx.input(0), ctx.input(1)))
    element_dtype = _element_dtype(ctx)
    data_a = ctx.input_handle_shapes_and_types(0)
    data_b = ctx.input_handle_shapes_and_types(1)
    if not data_a and not data_b:
        _set_list(ctx, 0, ctx.unknown_shape(), element_dtype)
        return
    a = data_a[0] if data_a else data_b[0]  # type: ignore[index]
    b = data_b[0] if data_b else data_a[0]  # type: ignore[index]
    if a.dtype != element_dtype:
        raise _error(f"input_a.type != element_dtype: {_type_string(a.dtype)} vs. {_type_string(element_dtype)}")
    if b.dtype != element_dtype:
        raise _error(f"input_b.type != element_dtype: {_type_string(b.dtype)} vs. {_type_string(element_dtype)}")
    ctx.set_output_handle_shapes_and_types(0, [ShapeAndType(ctx.merge(a.shape, b.shape), a.dtype)])


# ------------------------------------------------------------------------------ ops

(
    register_op("EmptyTensorList")
    .input("element_shape: shape_type")
    .input("max_num_elements: int32")
    .output("handle: variant")
    .attr("element_dtype: type")
    .attr("shape_type: {int32, int64}")
    .set_type_constructor(_LIST_TYPE)
    .set_shape_fn(_new_list_from_shape_input(0))
)
(
    register_op("TensorListPushBack")
    .input("input_handle: variant")
    .input("tensor: element_dtype")
    .output("output_handle: variant")
    .attr("element_dtype: type")
    .set_type_constructor(_LIST_TYPE)
    .set_shape_fn(_push_back_shape)
)
(
    register_op("TensorListPushBackBatch")
    .input("input_handles: variant")
    .input("tensor: element_dtype")
    .output("output_handles: variant")
    .attr("element_dtype: type")
    .set_type_constructor(_LIST_TYPE)
    .set_shape_fn(_push_back_batch_shape)
)
(
    register_op("TensorListLength")
    .input("input_handle: variant")
    .output("length: int32")
    .set_shape_fn(lambda ctx: ctx.set_output(0, ctx.scalar()))
)
(
    register_op("TensorListPopBack")
    .input("input_handle: variant")
    .input("element_shape: int32")
    .output("output_handle: variant")
    .output("tensor: element_dtype")
    .attr("element_dtype: type")
    .set_shape_fn(_pop_back_shape)
)
(
    register_op("TensorListStack")
    .input("input_handle: variant")
    .input("element_shape: int32")
    .output("tensor: element_dtype")
    .attr("element_dtype: type")
    .attr("num_elements: int = -1")
    .set_shape_fn(_stack_shape)
)
(
    register_op("TensorListConcat")
    .input("input_handle: variant")
    .output("tensor: element_dtype")
    .output("lengths: int64")
    .attr("element_dtype: type")
    .attr("element_shape: shape = { unknown_rank: true }")
    .set_shape_fn(_concat_shape)
)
(
    register_op("TensorListConcatV2")
    .input("input_handle: variant")
    .input("element_shape: shape_type")
    .input("leading_dims: int64")
    .output("tensor: element_dtype")
    .output("lengths: int64")
    .attr("element_dtype: type")
    .attr("shape_type: {int32, int64}")
    .set_shape_fn(_concat_v2_shape)
)
(
    register_op("TensorListSplit")
    .input("tensor: element_dtype")
    .input("element_shape: shape_type")
    .input("lengths: int64")
    .output("output_handle: variant")
    .attr("element_dtype: type")
    .attr("shape_type: {int32, int64}")
    .set_type_constructor(_LIST_TYPE)
    .set_shape_fn(_split_shape)
)
(
    register_op("TensorListFromTensor")
    .input("tensor: element_dtype")
    .input("element_shape: shape_type")
    .output("output_handle: variant")
    .attr("element_dtype: type")
    .attr("shape_type: {int32, int64}")
    .set_type_constructor(_LIST_TYPE)
    .set_shape_fn(_from_tensor_shape)
)
(
    register_op("TensorListElementShape")
    .input("input_handle: variant")
    .output("element_shape: shape_type")
    .attr("shape_type: {int32, int64}")
    .set_shape_fn(_element_shape_shape)
)
(
    register_op("TensorListReserve")
    .input("element_shape: shape_type")
    .input("num_elements: int32")
    .output("handle: variant")
    .attr("element_dtype: type")
    .attr("shape_type: {int32, int64}")
    .set_type_constructor(_LIST_TYPE)
    .set_shape_fn(_new_list_from_shape_input(0))
)
(
    register_op("TensorListGetItem")
    .input("input_handle: variant")
    .input("index: int32")
    .input("element_shape: Tshape")
    .output("item: element_dtype")
    .attr("element_dtype: type")
    .attr("Tshape: {int32, int64} = DT_INT32")
    .set_shape_fn(_get_item_shape)
)
(
    register_op("TensorListResize")
    .input("input_handle: variant")
    .input("size: int32")
    .output("output_handle: variant")
    .set_shape_fn(_resize_shape)
)
(
    register_op("TensorListSetItem")
    .input("input_handle: variant")
    .input("index: int32")
    .input("item: element_dtype")
    .output("output_handle: variant")
    .attr("element_dtype: type")
    .attr("resize_if_index_out_of_bounds: bool = false")
    .set_type_constructor(_LIST_TYPE)
    .set_shape_fn(_set_item_shape)
)
(
    register_op("TensorListGather")
    .input("input_handle: variant")
    .input("indices: int32")
    .input("element_shape: int32")
    .output("values: element_dtype")
    .attr("element_dtype: type")
    .set_shape_fn(_gather_shape)
)
(
    register_op("TensorListScatter")
    .input("tensor: element_dtype")
    .input("indices: int32")
    .input("element_shape: shape_type")
    .output("output_handle: variant")
    .attr("element_dtype: type")
    .attr("shape_type: {int32, int64}")
    .set_type_constructor(_LIST_TYPE)
    .set_shape_fn(_new_list_from_shape_input(2))
)
(
    register_op("TensorListScatterV2")
    .input("tensor: element_dtype")
    .input("indices: int32")
    .input("element_shape: shape_type")
    .input("num_elements: int32")
    .output("output_handle: variant")
    .attr("element_dtype: type")
    .attr("shape_type: {int32, int64}")
    .set_type_constructor(_LIST_TYPE)
    .set_shape_fn(_new_list_from_shape_input(2))
)
(
    register_op("TensorListScatterIntoExistingList")
    .input("input_handle: variant")
    .input("tensor: element_dtype")
    .input("indices: int32")
    .output("output_handle: variant")
    .attr("element_dtype: type")
    .set_type_constructor(_LIST_TYPE)
    .set_shape_fn(_scatter_into_existing_shape)
)
(
    register_op("TensorListConcatLists")
    .input("input_a: variant")
    .input("input_b: variant")
    .attr("element_dtype: type")
    .output("output: variant")
    .set_type_constructor(_LIST_TYPE)
    .set_shape_fn(_concat_lists_shape)
)
