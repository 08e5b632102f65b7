"""String ops a text model needs: StringSplit (TF 1's: at any delimiter byte; empty: into bytes), StringSplitV2,
StringJoin, StringLength, RegexReplace, StaticRegexReplace, StringToHashBucketFast, Substr, StringToNumber,
StringLower, StringUpper, AsString, ReduceJoin; the text ops StringStrip, StringNGrams, EncodeBase64, DecodeBase64,
StringToHashBucket, StringToHashBucketStrong, RegexFullMatch, StaticRegexFullMatch, UnsortedSegmentJoin and
Fingerprint (TF keeps Fingerprint with its array ops; it is here with the other hashes).

OpDefs equal TensorFlow 2.21's; shape functions follow TF's string_ops.cc, including their errors.
"""

from __future__ import annotations

from modtensor.framework import common_shapes
from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import InferenceContext
from modtensor.ops._shape_errors import invalid
from modtensor.ops.segment_ops import unsorted_segment_shape


def _split_shape(ctx: InferenceContext) -> None:
    """indices ``[?, 2]``, values ``[?]``, shape ``[2]``; input a vector, sep a scalar."""
    ctx.with_rank(ctx.input(0), 1)
    ctx.with_rank(ctx.input(1), 0)
    ctx.set_output(0, ctx.matrix(None, 2))
    ctx.set_output(1, ctx.vector(None))
    ctx.set_output(2, ctx.vector(2))


(
    register_op("StringSplit")
    .input("input: string")
    .input("delimiter: string")
    .output("indices: int64")
    .output("values: string")
    .output("shape: int64")
    .attr("skip_empty: bool = true")
    .set_shape_fn(_split_shape)
)

(
    register_op("StringSplitV2")
    .input("input: string")
    .input("sep: string")
    .output("indices: int64")
    .output("values: string")
    .output("shape: int64")
    .attr("maxsplit: int = -1")
    .set_shape_fn(_split_shape)
)


def _join_shape(ctx: InferenceContext) -> None:
    """A scalar when every input is one; else the merge of the non-scalar inputs of known rank."""
    shapes = [ctx.input(i) for i in range(ctx.num_inputs())]
    if all(s.dims is not None and len(s.dims) == 0 for s in shapes):
        ctx.set_output(0, ctx.scalar())
        return
    out = ctx.unknown_shape()
    for s in shapes:
        if s.dims is not None and len(s.dims) != 0:
            out = ctx.merge(out, s)
    ctx.set_output(0, out)


(
    register_op("StringJoin")
    .input("inputs: N * string")
    .output("output: string")
    .attr("N: int >= 0")
    .attr("separator: string = ''")
    .set_shape_fn(_join_shape)
)
(
    register_op("StringLength")
    .input("input: string")
    .output("output: int32")
    .attr("unit: {'BYTE', 'UTF8_CHAR'} = 'BYTE'")
    .set_shape_fn(common_shapes.unchanged_shape)
)


def _regex_replace_shape(ctx: InferenceContext) -> None:
    ctx.with_rank(ctx.input(1), 0)
    ctx.with_rank(ctx.input(2), 0)
    ctx.set_output(0, ctx.input(0))


(
    register_op("RegexReplace")
    .input("input: string")
    .input("pattern: string")
    .input("rewrite: string")
    .output("output: string")
    .attr("replace_global: bool = true")
    .set_shape_fn(_regex_replace_shape)
)
(
    register_op("StaticRegexReplace")
    .input("input: string")
    .output("output: string")
    .attr("pattern: string")
    .attr("rewrite: string")
    .attr("replace_global: bool = true")
    .set_shape_fn(common_shapes.unchanged_shape)
)
(
    register_op("StringToHashBucketFast")
    .input("input: string")
    .output("output: int64")
    .attr("num_buckets: int >= 1")
    .set_shape_fn(common_shapes.unchanged_shape)
)


def _substr_shape(ctx: InferenceContext) -> None:
    """pos and len of one shape; the output broadcasts input against pos."""
    pos, length = ctx.input(1), ctx.input(2)
    if length.dims is not None:
        ctx.with_rank(pos, len(length.dims))
    if pos.dims is not None:
        for i in range(len(pos.dims)):
            p = pos.dims[i].value
            n = length.dims[i].value if length.dims is not None else None
            if (-1 if p is None else p) != (-1 if n is None else n):
                raise invalid(f"pos and len shapes must match: {ctx.debug_string(pos)} vs. {ctx.debug_string(length)}")
    common_shapes.broadcast_binary_op_shape(ctx)


(
    register_op("Substr")
    .input("input: string")
    .input("pos: T")
    .input("len: T")
    .output("output: string")
    .attr("T: {int32, int64}")
    .attr("unit: {'BYTE', 'UTF8_CHAR'} = 'BYTE'")
    .set_shape_fn(_substr_shape)
)
(
    register_op("StringToNumber")
    .input("string_tensor: string")
    .output("output: out_type")
    .attr("out_type: {float, double, int32, int64, uint32, uint64} = DT_FLOAT")
    .set_shape_fn(common_shapes.unchanged_shape)
)
for _name in ("StringLower", "StringUpper"):
    (
        register_op(_name)
        .input("input: string")
        .output("output: string")
        .attr("encoding: string = ''")
        .set_shape_fn(common_shapes.unchanged_shape)
    )
(
    register_op("AsString")
    .input("input: T")
    .output("output: string")
    .attr(
        "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64, complex64, "
        "complex128, bool, variant, string}"
    )
    .attr("precision: int = -1")
    .attr("scientific: bool = false")
    .attr("shortest: bool = false")
    .attr("width: int = -1")
    .attr("fill: string = ''")
    .set_shape_fn(common_shapes.unchanged_shape)
)
# ReduceJoin's shape is a reduction's (TF uses its ReductionShape): the indices, when constant, drop or keep dims.
(
    register_op("ReduceJoin")
    .input("inputs: string")
    .input("reduction_indices: int32")
    .output("output: string")
    .attr("keep_dims: bool = false")
    .attr("separator: string = ''")
    .set_shape_fn(common_shapes.reduction_shape)
)


# --------------------------------------------------------------------------- text ops

for _name in ("StringStrip", "DecodeBase64"):
    register_op(_name).input("input: string").output("output: string").set_shape_fn(common_shapes.unchanged_shape)
(
    register_op("EncodeBase64")
    .input("input: string")
    .output("output: string")
    .attr("pad: bool = false")
    .set_shape_fn(common_shapes.unchanged_shape)
)
(
    register_op("StringToHashBucket")
    .input("string_tensor: string")
    .output("output: int64")
    .attr("num_buckets: int >= 1")
    .set_shape_fn(common_shapes.unchanged_shape)
)
(
    register_op("StringToHashBucketStrong")
    .input("input: string")
    .output("output: int64")
    .attr("num_buckets: int >= 1")
    .attr("key: list(int)")
    .set_shape_fn(common_shapes.unchanged_shape)
)


def _regex_full_match_shape(ctx: InferenceContext) -> None:
    """The input's shape; the pattern is a scalar."""
    ctx.with_rank(ctx.input(1), 0)
    ctx.set_output(0, ctx.input(0))


register_op("RegexFullMatch").input("input: string").input("pattern: string").output("output: bool").set_shape_fn(
    _regex_full_match_shape
)
(
    register_op("StaticRegexFullMatch")
    .input("input: string")
    .output("output: bool")
    .attr("pattern: string")
    .set_shape_fn(common_shapes.unchanged_shape)
)


(
    register_op("UnsortedSegmentJoin")
    .input("inputs: string")
    .input("segment_ids: Tindices")
    .input("num_segments: Tnumsegments")
    .output("output: string")
    .attr("separator: string = ''")
    .attr("Tindices: {int32,int64}")
    .attr("Tnumsegments: {int32,int64} = DT_INT32")
    .set_shape_fn(unsorted_segment_shape)  # TF's UnsortedSegmentReductionShapeFn
)


def _ngrams_shape(ctx: InferenceContext) -> None:
    """The n-grams a vector of unknown length; data and its row splits vectors, the output splits as the input's."""
    ctx.set_output(0, ctx.unknown_shape_of_rank(1))
    ctx.with_rank(ctx.input(0), 1)
    ctx.set_output(1, ctx.with_rank(ctx.input(1), 1))


(
    register_op("StringNGrams")
    .input("data: string")
    .input("data_splits: Tsplits")
    .output("ngrams: string")
    .output("ngrams_splits: Tsplits")
    .attr("separator: string")
    .attr("ngram_widths: list(int) >= 0")
    .attr("left_pad: string")
    .attr("right_pad: string")
    .attr("pad_width: int")
    .attr("preserve_short_sequences: bool")
    .attr("Tsplits: {int32, int64} = DT_INT64")
    .set_shape_fn(_ngrams_shape)
)


def _fingerprint_shape(ctx: InferenceContext) -> None:
    """``[data.shape[0], 8]`` for the constant method ``farmhash64`` (its size unknown for a method not known)."""
    ctx.with_rank_at_least(ctx.input(0), 1)
    ctx.with_rank(ctx.input(1), 0)
    method = ctx.input_tensor(1)
    size = ctx.unknown_dim()
    if method is not None:
        name = method.item()
        name = name.decode("utf-8", "replace") if isinstance(name, bytes) else str(name)
        if name != "farmhash64":
            raise invalid(f"Unsupported method: {name}")
        size = ctx.make_dim(8)
    ctx.set_output(0, ctx.make_shape([ctx.dim(ctx.input(0), 0), size]))


(
    register_op("Fingerprint")
    .input("data: T")
    .input("method: string")
    .output("fingerprint: uint8")
    .attr("T: type")
    .set_shape_fn(_fingerprint_shape)
)


# --------------------------------------------------------------------------- unicode


def _unicode_decode_shape(ctx: InferenceContext) -> None:
    """row_splits ``[input.size + 1]``; the codepoints (and their byte offsets) one vector of unknown length."""
    ctx.set_output(0, ctx.vector(ctx.add(ctx.num_elements(ctx.input(0)), 1)))
    chars = ctx.vector(ctx.unknown_dim())
    for i in range(1, ctx.num_outputs()):
        ctx.set_output(i, chars)


_DECODE_ATTRS = (
    "input_encoding: string",
    "errors: {'strict', 'replace', 'ignore'} = 'replace'",
    "replacement_char: int = 65533",
    "replace_control_characters: bool = false",
    "Tsplits: {int32, int64} = DT_INT64",
)
for _name, _offsets in (("UnicodeDecode", False), ("UnicodeDecodeWithOffsets", True)):
    _op = register_op(_name).input("input: string").output("row_splits: Tsplits").output("char_values: int32")
    if _offsets:
        _op = _op.output("char_to_byte_starts: int64")
    for _attr in _DECODE_ATTRS:
        _op = _op.attr(_attr)
    _op.set_shape_fn(_unicode_decode_shape)


def _unicode_encode_shape(ctx: InferenceContext) -> None:
    """One string per row: ``[splits.size - 1]``; the codepoints and the splits vectors."""
    ctx.with_rank(ctx.input(0), 1)
    splits = ctx.with_rank(ctx.input(1), 1)
    ctx.set_output(0, ctx.vector(ctx.subtract(ctx.dim(splits, 0), 1)))


(
    register_op("UnicodeEncode")
    .input("input_values: int32")
    .input("input_splits: Tsplits")
    .output("output: string")
    .attr("errors: {'ignore', 'replace', 'strict'} = 'replace'")
    .attr("output_encoding: {'UTF-8', 'UTF-16-BE', 'UTF-32-BE'}")
    .attr("replacement_char: int = 65533")
    .attr("Tsplits: {int32, int64} = DT_INT64")
    .set_shape_fn(_unicode_encode_shape)
)
(
    register_op("UnicodeTranscode")
    .input("input: string")
    .output("output: string")
    .attr("input_encoding: string")
    .attr("output_encoding: {'UTF-8', 'UTF-16-BE', 'UTF-32-BE'}")
    .attr("errors: {'strict', 'replace', 'ignore'} = 'replace'")
    .attr("replacement_char: int = 65533")
    .attr("replace_control_characters: bool = false")
    .set_shape_fn(common_shapes.unchanged_shape)
)
register_op("UnicodeScript").input("input: int32").output("output: int32").set_shape_fn(common_shapes.unchanged_shape)
