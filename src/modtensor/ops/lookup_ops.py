"""Lookup-table ops: hash tables as resources (HashTableV2, MutableHashTable(OfTensors)V2 and their anonymous forms)
and the ops that initialize, query and change them.

OpDefs equal TensorFlow 2.21's; so do the shape functions. A mutable table's handle carries TF's handle data (the
key and the value shape and dtype), so a lookup in a graph knows its output shape; a static table's handle carries
none, and ``tf.lookup.StaticHashTable.lookup`` sets the keys' shape on the result itself, as TF's does.
"""

from __future__ import annotations

from modtensor.framework import common_shapes, dtypes
from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import InferenceContext, ShapeAndType, ShapeHandle
from modtensor.ops._shape_errors import invalid


def _scalar_handle(ctx: InferenceContext) -> None:
    ctx.with_rank(ctx.input(0), 0)


def _mutable_table_shape(ctx: InferenceContext, key: ShapeHandle, value: ShapeHandle) -> None:
    """A scalar handle whose handle data holds the key and value shapes and dtypes (TF's MutableHashTableShape)."""
    ctx.set_output(0, ctx.scalar())
    key = ctx.with_rank_at_most(key, 1)
    key_dtype = dtypes.as_dtype(ctx.get_attr("key_dtype")).as_datatype_enum
    value_dtype = dtypes.as_dtype(ctx.get_attr("value_dtype")).as_datatype_enum
    ctx.set_output_handle_shapes_and_types(0, [ShapeAndType(key, key_dtype), ShapeAndType(value, value_dtype)])


def _mutable_scalar_table(ctx: InferenceContext) -> None:
    _mutable_table_shape(ctx, ctx.scalar(), ctx.scalar())


def _mutable_tensor_table(ctx: InferenceContext) -> None:
    value = ctx.make_shape_from_shape_proto(ctx.get_attr("value_shape"))  # a shape attr reads as its proto
    _mutable_table_shape(ctx, ctx.scalar(), value)


_TABLE_ATTRS = ("container: string = ''", "shared_name: string = ''", "use_node_name_sharing: bool = false")

for _name, _shape_fn, _anonymous in (
    ("HashTableV2", common_shapes.scalar_shape, False),
    ("MutableHashTableV2", _mutable_scalar_table, False),
    ("MutableHashTableOfTensorsV2", _mutable_tensor_table, False),
    ("AnonymousHashTable", common_shapes.scalar_shape, True),
    ("AnonymousMutableHashTable", _mutable_scalar_table, True),
    ("AnonymousMutableHashTableOfTensors", _mutable_tensor_table, True),
):
    _builder = register_op(_name).output("table_handle: resource")
    for _attr in () if _anonymous else _TABLE_ATTRS:
        _builder = _builder.attr(_attr)
    _builder = _builder.attr("key_dtype: type").attr("value_dtype: type")
    if _name.endswith(("OfTensorsV2", "OfTensors")):
        _builder = _builder.attr("value_shape: shape = {}")
    _builder.set_is_stateful().set_shape_fn(_shape_fn)


def _check_table_type(ctx: InferenceContext, key: ShapeAndType, key_attr: str, value: ShapeAndType,
                      value_attr: str) -> None:  # fmt: skip
    """The table's key and value dtypes (handle data) equal the op's attrs (TF's ValidateTableType)."""
    for held, attr in ((key, key_attr), (value, value_attr)):
        wanted = dtypes.as_dtype(ctx.get_attr(attr))
        if held.dtype != wanted.as_datatype_enum:
            raise invalid(
                f"Trying to read value with wrong dtype. Expected {dtypes.as_dtype(held.dtype).cpp_name} got "
                f"{wanted.cpp_name}"
            )


def _find_shape(ctx: InferenceContext) -> None:
    """The keys' leading dimensions (without the table's key shape) followed by the table's value shape."""
    _scalar_handle(ctx)
    data = ctx.input_handle_shapes_and_types(0)
    if data is None or len(data) != 2:
        ctx.set_output(0, ctx.unknown_shape())
        return
    key, value = data
    _check_table_type(ctx, key, "Tin", value, "Tout")
    keys = ctx.input(1)
    if not (ctx.rank_known(key.shape) and ctx.rank_known(keys)):
        ctx.set_output(0, ctx.unknown_shape())
        return
    keys_rank, suffix_rank = ctx.rank(keys), ctx.rank(key.shape)
    assert keys_rank is not None and suffix_rank is not None
    if keys_rank < suffix_rank:
        raise invalid(
            f"Expected keys to have suffix {ctx.debug_string(key.shape)} but saw shape: {ctx.debug_string(keys)}"
        )
    for d in range(suffix_rank):
        keys = ctx.replace_dim(keys, keys_rank - suffix_rank + d, ctx.dim(key.shape, d))
    ctx.set_output(0, ctx.concatenate(ctx.subshape(keys, 0, keys_rank - suffix_rank), value.shape))


(
    register_op("LookupTableFindV2")
    .input("table_handle: resource")
    .input("keys: Tin")
    .input("default_value: Tout")
    .output("values: Tout")
    .attr("Tin: type")
    .attr("Tout: type")
    .set_shape_fn(_find_shape)
)


def _handle_only(ctx: InferenceContext) -> None:
    _scalar_handle(ctx)


(
    register_op("LookupTableInsertV2")
    .input("table_handle: resource")
    .input("keys: Tin")
    .input("values: Tout")
    .attr("Tin: type")
    .attr("Tout: type")
    .set_shape_fn(_handle_only)
)


def _remove_shape(ctx: InferenceContext) -> None:
    _scalar_handle(ctx)
    ctx.with_rank_at_least(ctx.input(1), 1)


(
    register_op("LookupTableRemoveV2")
    .input("table_handle: resource")
    .input("keys: Tin")
    .attr("Tin: type")
    .set_shape_fn(_remove_shape)
)


def _size_shape(ctx: InferenceContext) -> None:
    _scalar_handle(ctx)
    ctx.set_output(0, ctx.scalar())


register_op("LookupTableSizeV2").input("table_handle: resource").output("size: int64").set_shape_fn(_size_shape)


def _export_shape(ctx: InferenceContext) -> None:
    _scalar_handle(ctx)
    data = ctx.input_handle_shapes_and_types(0)
    if data is not None and len(data) == 2:
        _check_table_type(ctx, data[0], "Tkeys", data[1], "Tvalues")
    ctx.set_output(0, ctx.unknown_shape())  # tables of different kinds export differently shaped tensors
    ctx.set_output(1, ctx.unknown_shape())


(
    register_op("LookupTableExportV2")
    .input("table_handle: resource")
    .output("keys: Tkeys")
    .output("values: Tvalues")
    .attr("Tkeys: type")
    .attr("Tvalues: type")
    .set_shape_fn(_export_shape)
)


def _keys_and_values_vectors(ctx: InferenceContext) -> None:
    """Keys a vector, values of the same shape (InitializeTableV2)."""
    _scalar_handle(ctx)
    keys = ctx.with_rank(ctx.input(1), 1)
    ctx.merge(keys, ctx.input(2))


def _import_shape(ctx: InferenceContext) -> None:
    """Keys a vector; the values' first dimension is the number of keys (a table of tensors imports rows)."""
    _scalar_handle(ctx)
    keys = ctx.with_rank(ctx.input(1), 1)
    values = ctx.input(2)
    if ctx.rank_known(values) and ctx.rank(values):
        ctx.merge_dim(ctx.dim(keys, 0), ctx.dim(values, 0))


(
    register_op("LookupTableImportV2")
    .input("table_handle: resource")
    .input("keys: Tin")
    .input("values: Tout")
    .attr("Tin: type")
    .attr("Tout: type")
    .set_shape_fn(_import_shape)
)
(
    register_op("InitializeTableV2")
    .input("table_handle: resource")
    .input("keys: Tkey")
    .input("values: Tval")
    .attr("Tkey: type")
    .attr("Tval: type")
    .set_shape_fn(_keys_and_values_vectors)
)


def _text_file_shape(ctx: InferenceContext) -> None:
    _scalar_handle(ctx)
    ctx.with_rank(ctx.input(1), 0)


(
    register_op("InitializeTableFromTextFileV2")
    .input("table_handle: resource")
    .input("filename: string")
    .attr("key_index: int >= -2")
    .attr("value_index: int >= -2")
    .attr("vocab_size: int >= -1 = -1")
    .attr("delimiter: string = '\\t'")
    .attr("offset: int = 0")
    .set_shape_fn(_text_file_shape)
)
