"""``tf.io``'s byte and file ops: decode_raw, serialize_tensor, parse_tensor, read_file, write_file.

Thin wrappers over the TF ops (DecodeRaw / DecodePaddedRaw, SerializeTensor, ParseTensor,
ReadFile, WriteFile) with TF's argument names and conversions; the kernels are in
kernels/cpu/io_kernels.py. ``write_file`` is stateful: eagerly it writes at once (None),
in a graph it returns the Operation, as TF's wrapper does.
"""

from __future__ import annotations

from typing import Any

from modtensor.api import dispatch
from modtensor.framework import dtypes
from modtensor.framework.gradient_registry import no_gradient

__all__ = ["decode_raw", "decode_raw_v1", "matching_files", "parse_tensor", "read_file", "serialize_tensor",
           "write_file"]  # fmt: skip

# As TF: these four are declared not differentiable; ReadFile, WriteFile, MatchingFiles have no gradient entry at all.
for _op in ("DecodeRaw", "DecodePaddedRaw", "ParseTensor", "SerializeTensor"):
    no_gradient(_op)


def _string(value: Any, name: str) -> Any:
    from modtensor.api.constant_op import convert_to_tensor

    return convert_to_tensor(value, dtype=dtypes.string, name=name)


def decode_raw(
    input_bytes: Any, out_type: Any, little_endian: bool = True, fixed_length: Any = None, name: str | None = None
) -> Any:
    """Reinterpret the bytes of each string as a vector of ``out_type`` (``fixed_length``: pad or cut each first)."""
    out_type = dtypes.as_dtype(out_type)
    if fixed_length is not None:
        from modtensor.api.constant_op import convert_to_tensor

        return dispatch.apply_op(
            "DecodePaddedRaw",
            name=name,
            input_bytes=_string(input_bytes, "input_bytes"),
            fixed_length=convert_to_tensor(fixed_length, dtype=dtypes.int32, name="fixed_length"),
            out_type=out_type,
            little_endian=little_endian,
        )
    return dispatch.apply_op(
        "DecodeRaw", name=name, bytes=_string(input_bytes, "bytes"), out_type=out_type, little_endian=little_endian
    )


def decode_raw_v1(
    input_bytes: Any = None,
    out_type: Any = None,
    little_endian: bool = True,
    name: str | None = None,
    bytes: Any = None,  # noqa: A002 - TF 1's deprecated name of input_bytes
) -> Any:
    """``tf.compat.v1.decode_raw``: TF 1's signature (``bytes`` is the old name of ``input_bytes``)."""
    if input_bytes is not None and bytes is not None:
        raise ValueError("Cannot specify both 'input_bytes' and 'bytes'")
    return decode_raw(input_bytes if input_bytes is not None else bytes, out_type, little_endian, name=name)


def serialize_tensor(tensor: Any, name: str | None = None) -> Any:
    """A scalar string: ``tensor`` as a serialized TensorProto (the same bytes TF writes)."""
    from modtensor.api.constant_op import convert_to_tensor

    return dispatch.apply_op("SerializeTensor", name=name, tensor=convert_to_tensor(tensor, name="tensor"))


def parse_tensor(serialized: Any, out_type: Any, name: str | None = None) -> Any:
    """The tensor a serialized TensorProto holds (its dtype must be ``out_type``)."""
    return dispatch.apply_op(
        "ParseTensor", name=name, serialized=_string(serialized, "serialized"), out_type=dtypes.as_dtype(out_type)
    )


def read_file(filename: Any, name: str | None = None) -> Any:
    """The whole contents of the file ``filename`` as a scalar string."""
    return dispatch.apply_op("ReadFile", name=name, filename=_string(filename, "filename"))


def matching_files(pattern: Any, name: str | None = None) -> Any:
    """The files matching ``pattern`` (a glob, or a vector of them), sorted (``MatchingFiles``)."""
    return dispatch.apply_op("MatchingFiles", name=name, pattern=pattern)


def write_file(filename: Any, contents: Any, name: str | None = None) -> Any:
    """Write ``contents`` to ``filename`` (parent directories created); None eagerly, the Operation in a graph."""
    from modtensor.api.logging_ops import apply_stateful_op

    return apply_stateful_op(
        "WriteFile", name, filename=_string(filename, "filename"), contents=_string(contents, "contents")
    )
