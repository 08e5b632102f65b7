"""``tf.strings``: join, length, split, regex_replace, to_number, to_hash_bucket_fast, substr, lower, upper,
as_string, reduce_join; strip, ngrams, regex_full_match, to_hash_bucket, to_hash_bucket_strong, unsorted_segment_join,
``tf.io``'s encode_base64/decode_base64 and ``tf.fingerprint``; unicode_decode(_with_offsets),
unicode_split(_with_offsets), unicode_encode, unicode_transcode and unicode_script.

TensorFlow 2's signatures over the string ops; ``split`` of a scalar is a vector and of a
vector a :class:`~modtensor.api.ragged.RaggedTensor`, as in TF. ``regex_replace`` with
constant ``pattern`` and ``rewrite`` is ``StaticRegexReplace``, else ``RegexReplace``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.api import array_ops, math_ops
from modtensor.api.context import executing_eagerly
from modtensor.api.dispatch import apply_op
from modtensor.api.op_scope import convert_to_tensor, op_scope
from modtensor.api.ragged import RaggedTensor
from modtensor.framework import dtypes
from modtensor.framework.tensor import Tensor

__all__: list[str] = []


def join(inputs: Any, separator: str = "", name: str | None = None) -> Tensor:
    """The strings of ``inputs`` joined elementwise with ``separator`` (scalars broadcast) (``StringJoin``)."""
    return apply_op("StringJoin", name=name, inputs=list(inputs), separator=separator)


def as_string(
    input: Any,  # noqa: A002
    precision: int = -1,
    scientific: bool = False,
    shortest: bool = False,
    width: int = -1,
    fill: str = "",
    name: str | None = None,
) -> Tensor:
    """Each element as a string, formatted like C's printf (``%f``; ``%e`` if ``scientific``, ``%g`` if
    ``shortest``; ``width``, ``precision`` and one ``fill`` flag of `` +-0#``) (``AsString``)."""
    return apply_op("AsString", name=name, input=input, precision=precision, scientific=scientific,
                    shortest=shortest, width=width, fill=fill)  # fmt: skip


def reduce_join(
    inputs: Any, axis: Any = None, keepdims: bool = False, separator: str = "", name: str | None = None
) -> Tensor:
    """The strings joined with ``separator`` over ``axis`` (all axes by default, giving a scalar) (``ReduceJoin``).

    As TF's ``reduce_join_v2``: under a ``ReduceJoin`` scope, ``axis=None`` becomes the axes in reverse order
    (a constant when the rank is known, else ``range(rank - 1, -1, -1)``), so the joined order is row-major.
    """
    with op_scope(None, "ReduceJoin", [inputs, axis]):
        inputs_t = convert_to_tensor(inputs)
        if axis is None:
            rank = inputs_t.shape.rank
            if rank is not None:
                axis = convert_to_tensor(np.arange(rank - 1, -1, -1, dtype=np.int32))
            else:
                axis = math_ops.range(array_ops.rank(inputs_t) - 1, -1, -1)
        return apply_op("ReduceJoin", name=name, inputs=inputs_t, reduction_indices=axis, keep_dims=keepdims,
                        separator=separator)  # fmt: skip


def length(input: Any, unit: str = "BYTE", name: str | None = None) -> Tensor:  # noqa: A002
    """The length of each string in bytes or (``unit="UTF8_CHAR"``) in characters (``StringLength``)."""
    return apply_op("StringLength", name=name, input=input, unit=unit)


def regex_replace(
    input: Any,
    pattern: Any,
    rewrite: Any,
    replace_global: bool = True,
    name: str | None = None,  # noqa: A002
) -> Tensor:
    """Matches of the RE2 ``pattern`` replaced by ``rewrite`` (``\\1`` refers to a group)."""
    if isinstance(pattern, (str, bytes)) and isinstance(rewrite, (str, bytes)):
        return apply_op("StaticRegexReplace", name=name, input=input, pattern=pattern, rewrite=rewrite,
                        replace_global=replace_global)  # fmt: skip
    return apply_op("RegexReplace", name=name, input=input, pattern=pattern, rewrite=rewrite,
                    replace_global=replace_global)  # fmt: skip


def to_number(input: Any, out_type: Any = dtypes.float32, name: str | None = None) -> Tensor:  # noqa: A002
    """Each string parsed as a number of ``out_type`` (``StringToNumber``)."""
    return apply_op("StringToNumber", name=name, string_tensor=input, out_type=dtypes.as_dtype(out_type))


def to_hash_bucket_fast(input: Any, num_buckets: int, name: str | None = None) -> Tensor:  # noqa: A002
    """Each string's FarmHash fingerprint modulo ``num_buckets`` (``StringToHashBucketFast``)."""
    return apply_op("StringToHashBucketFast", name=name, input=input, num_buckets=num_buckets)


def substr(input: Any, pos: Any, len: Any, unit: str = "BYTE", name: str | None = None) -> Tensor:  # noqa: A002
    """``len`` bytes (or UTF-8 characters) of each string from ``pos`` (``Substr``)."""
    return apply_op("Substr", name=name, input=input, pos=pos, len=len, unit=unit)


def lower(input: Any, encoding: str = "", name: str | None = None) -> Tensor:  # noqa: A002
    """Each string in lowercase (ASCII; Unicode with ``encoding="utf-8"``) (``StringLower``)."""
    return apply_op("StringLower", name=name, input=input, encoding=encoding)


def upper(input: Any, encoding: str = "", name: str | None = None) -> Tensor:  # noqa: A002
    """Each string in uppercase (ASCII; Unicode with ``encoding="utf-8"``) (``StringUpper``)."""
    return apply_op("StringUpper", name=name, input=input, encoding=encoding)


def bytes_split(input: Any, name: str | None = None) -> Any:  # noqa: A002
    """Each string cut into its bytes: a vector for a scalar, a RaggedTensor for a vector (TF's ``StringSplit``
    with an empty delimiter under ``StringsByteSplit``)."""
    with op_scope(name, "StringsByteSplit", [input]):
        # as TF's wrapper: eagerly a non-string tensor fails its conversion (ValueError), in a graph StringSplit's
        # input check (TypeError)
        input = convert_to_tensor(input, dtype=dtypes.string if executing_eagerly() else None, name="input")
        rank = input.shape.rank
        if rank is None:
            raise ValueError("input must have a statically-known rank.")
        if rank == 0:
            _, values, _ = apply_op("StringSplit", input=array_ops.stack([input]), delimiter="", skip_empty=False)
            return values
        return _split_rows(input, lambda vector: apply_op("StringSplit", input=vector, delimiter="", skip_empty=False))


def split(input: Any, sep: Any = None, maxsplit: int = -1, name: str | None = None) -> Any:  # noqa: A002
    """Each string split at ``sep`` (default: runs of whitespace): a vector for a scalar, a RaggedTensor for a
    vector (``StringSplitV2``)."""
    with op_scope(name, "StringSplit", [input]):
        input = convert_to_tensor(input, dtype=dtypes.string, name="input")
        rank = input.shape.rank
        if rank == 0:
            _, values, _ = apply_op("StringSplitV2", input=array_ops.expand_dims(input, 0),
                                    sep="" if sep is None else sep, maxsplit=maxsplit)  # fmt: skip
            return values
        if rank is None:
            raise ValueError("input must have a statically-known rank.")
        return _split_rows(
            input, lambda vector: apply_op("StringSplitV2", input=vector, sep="" if sep is None else sep,
                                           maxsplit=maxsplit)  # fmt: skip
        )


def _split_rows(input: Tensor, split_vector: Any) -> RaggedTensor:  # noqa: A002
    """A split op's sparse result on the strings of ``input`` (rank >= 1) as a RaggedTensor of one more rank: for a
    vector its rows; for rank N >= 2 the strings split as one vector, then grouped by the input's dimensions from the
    innermost out (rows of uniform length), as TF's ``with_flat_values`` over ``from_tensor``."""
    rank = input.shape.rank
    flat = input if rank == 1 else array_ops.reshape(input, [-1])
    indices, values, shape = split_vector(flat)
    result = RaggedTensor.from_sparse_parts(indices, values, shape)
    if rank == 1:
        return result
    dims = array_ops.shape(input, out_type=dtypes.int64)
    static = input.shape.as_list()
    for d in range(rank - 1, 0, -1):
        length = static[d] if static[d] is not None else dims[d]
        outer = apply_op("Prod", input=dims[:d], reduction_indices=np.int32(0))
        result = RaggedTensor.from_uniform_row_length(result, length, outer)
    return result


# --------------------------------------------------------------------------- text ops


def strip(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """Each string without its leading and trailing ASCII whitespace (``StringStrip``)."""
    return apply_op("StringStrip", name=name, input=input)


def regex_full_match(input: Any, pattern: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """Whether each string matches the RE2 ``pattern`` as a whole: ``StaticRegexFullMatch`` for a Python string
    pattern (compiled once), else ``RegexFullMatch``."""
    if isinstance(pattern, (str, bytes)):
        return apply_op("StaticRegexFullMatch", name=name, input=input, pattern=pattern)
    return apply_op("RegexFullMatch", name=name, input=input, pattern=pattern)


def to_hash_bucket(input: Any, num_buckets: int, name: str | None = None) -> Tensor:  # noqa: A002
    """Each string's legacy TF ``Hash64`` modulo ``num_buckets`` (``StringToHashBucket``); new code should prefer
    ``to_hash_bucket_fast``."""
    return apply_op("StringToHashBucket", name=name, string_tensor=input, num_buckets=num_buckets)


def to_hash_bucket_strong(input: Any, num_buckets: int, key: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """Each string's SipHash-2-4 under the two-int ``key`` modulo ``num_buckets`` (``StringToHashBucketStrong``):
    bucket assignments an adversary without the key cannot steer."""
    return apply_op("StringToHashBucketStrong", name=name, input=input, num_buckets=num_buckets, key=list(key))


def unsorted_segment_join(inputs: Any, segment_ids: Any, num_segments: Any, separator: str = "",
                          name: str | None = None) -> Tensor:  # fmt: skip
    """The strings of ``inputs`` joined with ``separator`` per segment: ``output[i]`` joins, in order, the slices
    of ``inputs`` whose ``segment_ids`` (a prefix of ``inputs``' shape) are ``i`` (``UnsortedSegmentJoin``)."""
    return apply_op("UnsortedSegmentJoin", name=name, inputs=inputs, segment_ids=segment_ids,
                    num_segments=num_segments, separator=separator)  # fmt: skip


def encode_base64(input: Any, pad: bool = False, name: str | None = None) -> Tensor:  # noqa: A002
    """Each string in web-safe base64 (``-`` and ``_`` for ``+`` and ``/``), ``=``-padded with ``pad``
    (``EncodeBase64``)."""
    return apply_op("EncodeBase64", name=name, input=input, pad=pad)


def decode_base64(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """Each web-safe base64 string decoded; padding is optional (``DecodeBase64``)."""
    return apply_op("DecodeBase64", name=name, input=input)


def fingerprint(data: Any, method: Any = "farmhash64", name: str | None = None) -> Tensor:
    """A ``[data.shape[0], 8]`` uint8 fingerprint of each slice ``data[i, ...]``: FarmHash Fingerprint64 of its bytes
    (of its strings' fingerprints for strings), little-endian (``Fingerprint``)."""
    return apply_op("Fingerprint", name=name, data=data, method=method)


def ngrams(data: Any, ngram_width: Any, separator: str = " ", pad_values: Any = None, padding_width: int | None = None,
           preserve_short_sequences: bool = False, name: str | None = None) -> Any:  # fmt: skip
    """The n-grams of ``data``'s innermost dimension: windows of ``ngram_width`` (an int, or a list or tuple of
    them: every width in turn) adjacent strings joined with ``separator`` (``StringNGrams``).

    ``pad_values`` (one string, or a (left, right) pair) pads each sequence with ``padding_width`` values on both
    sides (default ``width - 1``); ``preserve_short_sequences`` makes one n-gram of a non-empty sequence too short for
    any. As TF: a dense ``[D1..DN, S]`` input gives a dense ``[D1..DN, num_ngrams]`` tensor (a vector for a vector),
    a RaggedTensor a RaggedTensor.
    """
    with op_scope(name, "StringNGrams", [data]):
        if pad_values is None:
            left_pad = right_pad = ""
        elif isinstance(pad_values, (list, tuple)):
            if not isinstance(pad_values[0], (str, bytes)) or not isinstance(pad_values[1], (str, bytes)):
                raise TypeError("pad_values must be a string, tuple of strings, or None.")
            left_pad, right_pad = pad_values[0], pad_values[1]
        elif isinstance(pad_values, (str, bytes)):
            left_pad = right_pad = pad_values
        else:
            raise TypeError("pad_values must be a string, tuple of strings, or None.")
        if padding_width is not None and padding_width < 1:
            raise ValueError("padding_width must be greater than 0.")
        if padding_width is not None and pad_values is None:
            raise ValueError("pad_values must be provided if padding_width is set.")
        if not isinstance(data, RaggedTensor):
            data = convert_to_tensor(data, dtype=dtypes.string, name="data")
            if data.shape.rank is None:
                raise ValueError("Rank of data must be known.")
            if data.shape.rank == 0:
                raise ValueError("Data must have rank>0")
        widths = list(ngram_width) if isinstance(ngram_width, (list, tuple)) else [ngram_width]
        for width in widths:
            if width < 1:
                raise ValueError(f"All ngram_widths must be greater than 0. Got {ngram_width}")
        pad_width = 0 if pad_values is None else (-1 if padding_width is None else padding_width)
        attrs = {"separator": separator, "ngram_widths": widths, "left_pad": left_pad, "right_pad": right_pad,
                 "pad_width": pad_width, "preserve_short_sequences": preserve_short_sequences}  # fmt: skip
        if isinstance(data, RaggedTensor):
            return _ragged_ngrams(data, attrs)
        return _dense_ngrams(data, attrs)


def _dense_ngrams(data: Tensor, attrs: dict[str, Any]) -> Tensor:
    """The n-grams of each innermost row of a dense tensor, reshaped to ``data.shape[:-1] + [-1]`` (TF's result)."""
    if data.shape.rank == 1:
        size = array_ops.shape(data, out_type=dtypes.int64)
        splits = array_ops.concat([np.zeros([1], np.int64), size], 0)
        grams, _ = apply_op("StringNGrams", data=data, data_splits=splits, **attrs)
        return grams
    shape = array_ops.shape(data, out_type=dtypes.int64)
    outer = shape[:-1]
    rows = apply_op("Prod", input=outer, reduction_indices=np.int32(0))
    splits = apply_op("Range", start=np.int64(0), limit=rows + 1, delta=np.int64(1)) * shape[-1]
    grams, _ = apply_op("StringNGrams", data=array_ops.reshape(data, [-1]), data_splits=splits, **attrs)
    return array_ops.reshape(grams, array_ops.concat([outer, np.array([-1], np.int64)], 0))


def _ragged_ngrams(data: RaggedTensor, attrs: dict[str, Any]) -> RaggedTensor:
    """The n-grams of each innermost row of a RaggedTensor, as a RaggedTensor of the same outer rows."""
    values = data.values
    if isinstance(values, RaggedTensor):  # outer rows of uniform length: n-grams of the inner ragged rows
        return data.with_values(_ragged_ngrams(values, attrs))
    grams, splits = apply_op("StringNGrams", data=values, data_splits=data.row_splits, **attrs)
    return RaggedTensor.from_row_splits(grams, splits)


# --------------------------------------------------------------------------- unicode


def unicode_script(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """ICU's script code (``UScriptCode``) of each int32 codepoint; -1 for values that are not codepoints
    (``UnicodeScript``)."""
    return apply_op("UnicodeScript", name=name, input=input)


def unicode_transcode(input: Any, input_encoding: str, output_encoding: str, errors: str = "replace",  # noqa: A002
                      replacement_char: int = 65533, replace_control_characters: bool = False,
                      name: str | None = None) -> Tensor:  # fmt: skip
    """Each string decoded from ``input_encoding`` and encoded in ``output_encoding`` (UTF-8, UTF-16-BE or
    UTF-32-BE); ill-formed input fails, is replaced by ``replacement_char`` or dropped as ``errors`` says
    (``UnicodeTranscode``)."""
    return apply_op("UnicodeTranscode", name=name, input=input, input_encoding=input_encoding,
                    output_encoding=output_encoding, errors=errors, replacement_char=replacement_char,
                    replace_control_characters=replace_control_characters)  # fmt: skip


def _to_tensor_or_ragged(value: Any, name: str | None = None) -> Tensor | RaggedTensor:
    return value if isinstance(value, RaggedTensor) else convert_to_tensor(value, name=name)


def _nest_uniform(result: RaggedTensor, input: Tensor) -> RaggedTensor:  # noqa: A002
    """Rows of ``result`` (one per string of the flattened rank >= 2 ``input``) grouped by ``input``'s outer
    dimensions, each a ragged dimension of uniform row length (TF's ``from_tensor(ragged_rank=rank - 1)``)."""
    dims = array_ops.shape(input, out_type=dtypes.int64)
    static = input.shape.as_list()
    for d in range(input.shape.rank - 1, 0, -1):
        length = static[d] if static[d] is not None else dims[d]
        outer = apply_op("Prod", input=dims[:d], reduction_indices=np.int32(0))
        result = RaggedTensor.from_uniform_row_length(result, length, outer)
    return result


def _unicode_decode(input: Any, input_encoding: str, errors: str, replacement_char: int,  # noqa: A002
                    replace_control_characters: bool, with_offsets: bool) -> Any:  # fmt: skip
    """TF's ``_unicode_decode``: the strings decoded as one vector, then given the input's shape again (a scalar's
    codepoints a dense vector; else a RaggedTensor with one more, ragged, dimension)."""
    input = _to_tensor_or_ragged(input, name="input")
    if isinstance(input, RaggedTensor):
        if input.flat_values.shape.rank != 1:
            raise NotImplementedError(
                "tf.strings.unicode_decode: a RaggedTensor whose flat_values have rank "
                f"{input.flat_values.shape.rank} (only rank 1) is not supported"
            )
        rank: int | None = input.ragged_rank + 1
        flat = array_ops.reshape(input.flat_values, [-1])
    else:
        rank = input.shape.rank
        flat = array_ops.reshape(input, [-1])
    if rank is None:
        raise ValueError("Rank of `input` must be statically known.")
    op = "UnicodeDecodeWithOffsets" if with_offsets else "UnicodeDecode"
    outputs = apply_op(op, input=flat, input_encoding=input_encoding, errors=errors,
                       replacement_char=replacement_char,
                       replace_control_characters=replace_control_characters)  # fmt: skip
    splits, values = outputs[0], outputs[1:]
    if rank == 0:
        results = list(values)
    else:
        results = []
        for value in values:
            ragged = RaggedTensor.from_row_splits(value, splits)
            if isinstance(input, RaggedTensor):
                ragged = input.with_flat_values(ragged)
            elif rank > 1:
                ragged = _nest_uniform(ragged, input)
            results.append(ragged)
    return tuple(results) if with_offsets else results[0]


def unicode_decode(input: Any, input_encoding: str, errors: str = "replace", replacement_char: int = 0xFFFD,  # noqa: A002
                   replace_control_characters: bool = False, name: str | None = None) -> Any:  # fmt: skip
    """The int32 codepoints of each string of ``input`` (``UnicodeDecode``): a vector for a scalar, else a
    RaggedTensor of one more (ragged) dimension. ``errors`` (strict, replace, ignore) says what ill-formed input
    does; ``replace_control_characters`` replaces U+0000..U+001F with ``replacement_char`` too."""
    with op_scope(name, "UnicodeDecode", [input]):
        return _unicode_decode(input, input_encoding, errors, replacement_char, replace_control_characters, False)


def unicode_decode_with_offsets(input: Any, input_encoding: str, errors: str = "replace",  # noqa: A002
                                replacement_char: int = 0xFFFD, replace_control_characters: bool = False,
                                name: str | None = None) -> tuple[Any, Any]:  # fmt: skip
    """``unicode_decode``'s codepoints and the int64 byte offset each starts at in its string
    (``UnicodeDecodeWithOffsets``)."""
    with op_scope(name, "UnicodeDecodeWithOffsets", [input]):
        return _unicode_decode(input, input_encoding, errors, replacement_char, replace_control_characters, True)


def _split_chars(codepoints: Any, encoding: str, errors: str, replacement_char: int) -> Any:
    """Each decoded codepoint as a string of its own in ``encoding`` (TF: ``unicode_encode`` of the codepoints
    with a last dimension of size 1), in the codepoints' shape."""
    if isinstance(codepoints, RaggedTensor):
        return codepoints.with_flat_values(_split_chars(codepoints.flat_values, encoding, errors, replacement_char))
    return unicode_encode(array_ops.expand_dims(codepoints, -1), encoding, errors, replacement_char)


def unicode_split(input: Any, input_encoding: str, errors: str = "replace", replacement_char: int = 0xFFFD,  # noqa: A002
                  name: str | None = None) -> Any:  # fmt: skip
    """Each string cut into the substrings that encode its characters (decoded, then each codepoint encoded
    again in ``input_encoding``): a vector for a scalar, else a RaggedTensor."""
    with op_scope(name, "UnicodeSplit", [input]):
        codepoints = _unicode_decode(input, input_encoding, errors, replacement_char, False, False)
        return _split_chars(codepoints, input_encoding, errors, replacement_char)


def unicode_split_with_offsets(input: Any, input_encoding: str, errors: str = "replace",  # noqa: A002
                               replacement_char: int = 0xFFFD, name: str | None = None) -> tuple[Any, Any]:  # fmt: skip
    """``unicode_split``'s character substrings and the byte offset each starts at in its string."""
    with op_scope(name, "UnicodeSplitWithOffsets", [input]):
        codepoints, offsets = _unicode_decode(input, input_encoding, errors, replacement_char, False, True)
        return _split_chars(codepoints, input_encoding, errors, replacement_char), offsets


def unicode_encode(input: Any, output_encoding: str, errors: str = "replace", replacement_char: int = 65533,  # noqa: A002
                   name: str | None = None) -> Any:  # fmt: skip
    """The int32 codepoints of the innermost dimension of ``input`` (a dense tensor or a RaggedTensor) encoded as
    one string each in ``output_encoding`` (``UnicodeEncode``): ``[D1..DN, chars]`` gives ``[D1..DN]``.
    Codepoints outside 0..0x10FFFF and surrogates fail, are replaced or dropped as ``errors`` says."""
    with op_scope(name, "UnicodeEncode", [input]):
        input = _to_tensor_or_ragged(input)

        def encode(values: Any, splits: Any) -> Tensor:
            return apply_op("UnicodeEncode", input_values=values, input_splits=splits,
                            output_encoding=output_encoding, errors=errors,
                            replacement_char=replacement_char)  # fmt: skip

        if isinstance(input, RaggedTensor):
            if input.flat_values.shape.rank is not None and input.flat_values.shape.rank > 1:
                return input.with_flat_values(unicode_encode(input.flat_values, output_encoding, errors,
                                                             replacement_char))  # fmt: skip
            if input.ragged_rank > 1:
                return input.with_values(unicode_encode(input.values, output_encoding, errors, replacement_char))
            return encode(input.values, input.row_splits)
        rank = input.shape.rank
        if rank is None:
            raise ValueError("Rank of input_tensor must be statically known.")
        if rank == 0:
            raise ValueError("input_tensor's rank must be at least 1.")
        if rank == 1:
            splits = array_ops.stack([np.int32(0), array_ops.shape(input, out_type=dtypes.int32)[0]])
            return array_ops.reshape(encode(input, splits), [])
        if rank == 2:  # TF's RaggedTensor.from_tensor: rows of the same length
            dims = array_ops.shape(input, out_type=dtypes.int64)
            splits = apply_op("Range", start=np.int64(0), limit=dims[0] + 1, delta=np.int64(1)) * dims[1]
            return encode(array_ops.reshape(input, [-1]), splits)
        dims = array_ops.shape(input)
        rows = array_ops.reshape(input, array_ops.stack([np.int32(-1), dims[-1]]))
        return array_ops.reshape(unicode_encode(rows, output_encoding, errors, replacement_char), dims[:-1])
