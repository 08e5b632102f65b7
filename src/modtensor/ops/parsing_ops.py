"""Parsing ops: ``ParseExampleV2`` (``tf.io.parse_example``), ``ParseSingleExample``, ``DecodeRaw``,
``DecodePaddedRaw``, ``SerializeTensor``, ``ParseTensor`` and the whole-file ``ReadFile``/``WriteFile``.

OpDefs equal TensorFlow 2.21's; shape functions are TF's: a sparse feature gives
indices ``[?, rank + 1]``, values ``[?]`` and a dense shape ``[rank + 1]`` (rank of the
serialized input), a dense feature the input's shape followed by its ``dense_shapes``
entry (``-1`` dimensions unknown), a ragged feature vectors of values and row splits.
"""

from __future__ import annotations

from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import InferenceContext, ShapeHandle
from modtensor.ops._shape_errors import invalid

_FEATURE_TYPES = "{float, int64, string}"


def _sparse_outputs(ctx: InferenceContext, num_sparse: int, prefix: ShapeHandle, index: int) -> int:
    rank = ctx.rank(prefix) + 1 if ctx.rank_known(prefix) else None
    for _ in range(num_sparse):
        ctx.set_output(index, ctx.matrix(None, rank))
        index += 1
    for _ in range(num_sparse):
        ctx.set_output(index, ctx.vector(None))
        index += 1
    for _ in range(num_sparse):
        ctx.set_output(index, ctx.vector(rank))
        index += 1
    return index


def _dense_outputs(ctx: InferenceContext, prefix: ShapeHandle, index: int) -> int:
    for shape in ctx.get_attr("dense_shapes"):
        ctx.set_output(index, ctx.concatenate(prefix, ctx.make_shape_from_shape_proto(shape)))
        index += 1
    return index


def _parse_example_v2_shape(ctx: InferenceContext) -> None:
    num_sparse = ctx.get_attr("num_sparse")
    if len(ctx.get_attr("sparse_types")) != num_sparse:
        raise invalid("len(sparse_keys) != len(sparse_types)")
    if len(ctx.get_attr("Tdense")) != len(ctx.get_attr("dense_shapes")):
        raise invalid("len(dense_keys) != len(dense_shapes)")
    serialized = ctx.with_rank_at_most(ctx.input(0), 1)
    ctx.with_rank_at_most(ctx.input(1), 1)
    index = _sparse_outputs(ctx, num_sparse, serialized, 0)
    index = _dense_outputs(ctx, serialized, index)
    for _ in range(2 * len(ctx.get_attr("ragged_value_types"))):
        ctx.set_output(index, ctx.vector(None))
        index += 1


def _parse_single_example_shape(ctx: InferenceContext) -> None:
    num_sparse = ctx.get_attr("num_sparse")
    if len(ctx.get_attr("sparse_keys")) != num_sparse:
        raise invalid("len(sparse_keys) != num_sparse")
    serialized = ctx.with_rank(ctx.input(0), 0)
    index = _sparse_outputs(ctx, num_sparse, serialized, 0)
    _dense_outputs(ctx, serialized, index)


(
    register_op("ParseExampleV2")
    .input("serialized: string")
    .input("names: string")
    .input("sparse_keys: string")
    .input("dense_keys: string")
    .input("ragged_keys: string")
    .input("dense_defaults: Tdense")
    .output("sparse_indices: num_sparse * int64")
    .output("sparse_values: sparse_types")
    .output("sparse_shapes: num_sparse * int64")
    .output("dense_values: Tdense")
    .output("ragged_values: ragged_value_types")
    .output("ragged_row_splits: ragged_split_types")
    .attr(f"Tdense: list({_FEATURE_TYPES}) >= 0")
    .attr("num_sparse: int >= 0")
    .attr(f"sparse_types: list({_FEATURE_TYPES}) >= 0")
    .attr(f"ragged_value_types: list({_FEATURE_TYPES}) >= 0")
    .attr("ragged_split_types: list({int32, int64}) >= 0")
    .attr("dense_shapes: list(shape) >= 0")
    .set_shape_fn(_parse_example_v2_shape)
)
(
    register_op("ParseSingleExample")
    .input("serialized: string")
    .input("dense_defaults: Tdense")
    .output("sparse_indices: num_sparse * int64")
    .output("sparse_values: sparse_types")
    .output("sparse_shapes: num_sparse * int64")
    .output("dense_values: Tdense")
    .attr("num_sparse: int >= 0")
    .attr("sparse_keys: list(string) >= 0")
    .attr("dense_keys: list(string) >= 0")
    .attr(f"sparse_types: list({_FEATURE_TYPES}) >= 0")
    .attr(f"Tdense: list({_FEATURE_TYPES}) >= 0")
    .attr("dense_shapes: list(shape) >= 0")
    .set_shape_fn(_parse_single_example_shape)
)


# ----------------------------------------------------------------------------- raw bytes and serialized tensors

_RAW_TYPES = "{half, float, double, int32, uint16, uint8, int16, int8, int64, bfloat16}"


def _decode_raw_shape(ctx: InferenceContext) -> None:
    """The input's shape followed by an unknown dimension (the values of one string)."""
    ctx.set_output(0, ctx.concatenate(ctx.input(0), ctx.vector(None)))


def _decode_padded_raw_shape(ctx: InferenceContext) -> None:
    """The input's shape followed by ``fixed_length / sizeof(out_type)`` (unknown unless constant)."""
    from modtensor.framework import dtypes

    fixed_length = ctx.make_dim_for_scalar_input(1)
    size = dtypes.as_dtype(ctx.get_attr("out_type")).size
    width = ctx.divide(fixed_length, size, True)
    ctx.set_output(0, ctx.concatenate(ctx.input(0), ctx.vector(width)))


(
    register_op("DecodeRaw")
    .input("bytes: string")
    .output("output: out_type")
    .attr("out_type: {half, float, double, int32, uint16, uint8, int16, int8, int64, complex64, complex128, bool, "
          "bfloat16}")
    .attr("little_endian: bool = true")
    .set_shape_fn(_decode_raw_shape)
)
(
    register_op("DecodePaddedRaw")
    .input("input_bytes: string")
    .input("fixed_length: int32")
    .output("output: out_type")
    .attr(f"out_type: {_RAW_TYPES}")
    .attr("little_endian: bool = true")
    .set_shape_fn(_decode_padded_raw_shape)
)


def _scalar(ctx: InferenceContext) -> None:
    ctx.set_output(0, ctx.scalar())


def _unknown(ctx: InferenceContext) -> None:
    ctx.set_output(0, ctx.unknown_shape())


register_op("SerializeTensor").input("tensor: T").output("serialized: string").attr("T: type").set_shape_fn(_scalar)
register_op("ParseTensor").input("serialized: string").output("output: out_type").attr("out_type: type").set_shape_fn(
    _unknown
)


# ----------------------------------------------------------------------------- whole files


def _read_file_shape(ctx: InferenceContext) -> None:
    """A scalar file name gives scalar contents."""
    ctx.with_rank(ctx.input(0), 0)
    ctx.set_output(0, ctx.scalar())


def _write_file_shape(ctx: InferenceContext) -> None:
    """File name and contents are scalars; no outputs."""
    ctx.with_rank(ctx.input(0), 0)
    ctx.with_rank(ctx.input(1), 0)


register_op("ReadFile").input("filename: string").output("contents: string").set_shape_fn(_read_file_shape)


def _matching_files_shape(ctx: InferenceContext) -> None:
    """A pattern or a vector of them gives a vector of file names."""
    ctx.with_rank_at_most(ctx.input(0), 1)
    ctx.set_output(0, ctx.vector(ctx.unknown_dim()))


register_op("MatchingFiles").input("pattern: string").output("filenames: string").set_shape_fn(_matching_files_shape)
(
    register_op("WriteFile")
    .input("filename: string")
    .input("contents: string")
    .set_is_stateful()
    .set_shape_fn(_write_file_shape)
)


def _decode_csv_shape(ctx: InferenceContext) -> None:
    """Every output has the records' shape; each default is a scalar or a vector of at most one value."""
    for i in range(1, ctx.num_inputs()):
        default = ctx.with_rank_at_most(ctx.input(i), 1)
        if ctx.rank(default) == 1 and ctx.value_known(ctx.dim(default, 0)) and ctx.value(ctx.dim(default, 0)) > 1:
            raise invalid("Shape of a default must be a length-0 or length-1 vector, or a scalar.")
    for i in range(ctx.num_outputs()):
        ctx.set_output(i, ctx.input(0))


(
    register_op("DecodeCSV")
    .input("records: string")
    .input("record_defaults: OUT_TYPE")
    .output("output: OUT_TYPE")
    .attr("OUT_TYPE: list({float,double,int32,int64,string})")
    .attr("field_delim: string = ','")
    .attr("use_quote_delim: bool = true")
    .attr("na_value: string = ''")
    .attr("select_cols: list(int) = []")
    .set_shape_fn(_decode_csv_shape)
)
