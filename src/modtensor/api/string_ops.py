"""``tf.strings``: join, length, split, regex_replace, to_number, to_hash_bucket_fast, substr, lower, upper,
as_string, reduce_join.

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
