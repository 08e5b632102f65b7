"""tf.io byte and file programs run by TF 2.21 (tools/make_golden_data.py) and by modtensor (test_io_golden.py).

Each program takes the framework module (``tensorflow`` or ``modtensor``) and a scratch directory
(a str path; recorded error texts name it ``<TMP>``) and returns a value (recorded as in
data_golden.encode) or raises (recorded: class name and message).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

PROGRAMS: dict[str, Callable[[Any, str], Any]] = {}


def program(fn: Callable[[Any, str], Any]) -> Callable[[Any, str], Any]:
    PROGRAMS[fn.__name__] = fn
    return fn


# ----------------------------------------------------------------------------- decode_raw


@program
def decode_raw_int16(tf: Any, tmp: str) -> Any:
    return tf.io.decode_raw(b"abcdefgh", tf.int16)


@program
def decode_raw_big_endian_matrix(tf: Any, tmp: str) -> Any:
    data = [[b"abcd", b"efgh"], [b"\x00\x01\x02\x03", b"\xff\xfe\xfd\xfc"]]
    return tf.io.decode_raw(data, tf.int16, little_endian=False)


@program
def decode_raw_types(tf: Any, tmp: str) -> Any:
    data = bytes(range(1, 17))
    types = ("float16", "float32", "float64", "int32", "uint16", "uint8", "int16", "int8", "int64", "complex64",
             "complex128")  # fmt: skip
    return [tf.io.decode_raw(data, getattr(tf, t)) for t in types] + [
        tf.io.decode_raw(data, getattr(tf, t), little_endian=False) for t in types
    ]


@program
def decode_raw_bool(tf: Any, tmp: str) -> Any:
    return tf.io.decode_raw([b"\x01\x00\x00", b"\x00\x00\x01"], tf.bool)


@program
def decode_raw_empty(tf: Any, tmp: str) -> Any:
    return [tf.io.decode_raw(tf.constant([], tf.string), tf.uint8), tf.io.decode_raw([b"", b""], tf.float32)]


@program
def decode_raw_not_multiple(tf: Any, tmp: str) -> Any:
    return tf.io.decode_raw([b"abc", b"def"], tf.int16)


@program
def decode_raw_sizes_differ(tf: Any, tmp: str) -> Any:
    return tf.io.decode_raw([b"ab", b"ab", b"abcd"], tf.uint8)


@program
def decode_raw_fixed_length(tf: Any, tmp: str) -> Any:
    return [
        tf.io.decode_raw([b"ab", b"abcdef", b""], tf.int16, fixed_length=4),
        tf.io.decode_raw([[b"\x01\x02\x03\x04"]], tf.int32, little_endian=False, fixed_length=8),
        tf.io.decode_raw(b"xyz", tf.uint8, fixed_length=5),
    ]


@program
def decode_raw_fixed_length_not_multiple(tf: Any, tmp: str) -> Any:
    return tf.io.decode_raw([b"ab"], tf.float32, fixed_length=6)


@program
def decode_raw_fixed_length_zero(tf: Any, tmp: str) -> Any:
    return tf.io.decode_raw([b"ab"], tf.int16, fixed_length=0)


@program
def decode_raw_in_function(tf: Any, tmp: str) -> Any:
    @tf.function
    def f(x: Any) -> Any:
        return tf.io.decode_raw(x, tf.int32, fixed_length=8) + 1

    return f(tf.constant([b"\x01\x00\x00\x00", b"\x02\x00\x00\x00\x03\x00\x00\x00"]))


@program
def decode_raw_compat_v1(tf: Any, tmp: str) -> Any:
    return [tf.compat.v1.decode_raw(bytes=b"abcd", out_type=tf.int16), tf.compat.v1.decode_raw(b"ab", tf.uint8)]


# ----------------------------------------------------------------------------- serialize_tensor / parse_tensor


def _tensors(tf: Any) -> list[Any]:
    return [
        tf.constant([1.5, -2.0]),
        tf.constant(3),
        tf.constant([[1, 2], [3, 4]], tf.int64),
        tf.constant([b"ab", b"", b"\xff\x00"]),
        tf.constant("x"),
        tf.constant([True, False, True]),
        tf.zeros([0, 2]),
        tf.zeros([2, 0], tf.string),
        tf.constant([1.0, 0.5], tf.float16),
        tf.constant([1.0, 3.0], tf.float64),
        tf.constant([1 + 2j, -3j], tf.complex64),
        tf.constant([0.5 - 1j], tf.complex128),
        tf.constant([255, 0, 7], tf.uint8),
        tf.constant([-128, 5], tf.int8),
        tf.constant([-7, 300], tf.int16),
        tf.constant([65535], tf.uint16),
        tf.constant([2**32 - 1], tf.uint32),
        tf.constant([2**64 - 1], tf.uint64),
        tf.constant(7.0),
    ]


@program
def serialize_tensor_bytes(tf: Any, tmp: str) -> Any:
    return [tf.io.serialize_tensor(t) for t in _tensors(tf)]


@program
def parse_tensor_roundtrip(tf: Any, tmp: str) -> Any:
    return [tf.io.parse_tensor(tf.io.serialize_tensor(t), t.dtype) for t in _tensors(tf)]


@program
def parse_tensor_in_function(tf: Any, tmp: str) -> Any:
    @tf.function
    def f(x: Any) -> Any:
        return tf.io.parse_tensor(tf.io.serialize_tensor(x * 2), tf.float32)

    return f(tf.constant([[1.0, 2.0]]))


@program
def parse_tensor_type_mismatch(tf: Any, tmp: str) -> Any:
    return tf.io.parse_tensor(tf.io.serialize_tensor(tf.constant([1.5])), tf.int32)


@program
def parse_tensor_garbage(tf: Any, tmp: str) -> Any:
    return tf.io.parse_tensor(b"garbage\xff", tf.int32)


@program
def parse_tensor_not_scalar(tf: Any, tmp: str) -> Any:
    return tf.io.parse_tensor([b"x"], tf.int32)


@program
def parse_tensor_empty(tf: Any, tmp: str) -> Any:
    return tf.io.parse_tensor(b"", tf.float32)


# ----------------------------------------------------------------------------- read_file / write_file


@program
def write_then_read(tf: Any, tmp: str) -> Any:
    path = os.path.join(tmp, "sub", "dir", "data.bin")  # parent directories are created
    first = tf.io.write_file(path, b"\x00hello\xff")
    contents = tf.io.read_file(path)
    tf.io.write_file(tf.constant(path), tf.constant(b"replaced"))
    return [first is None, contents, tf.io.read_file(path), tf.compat.v1.read_file(path)]


@program
def write_read_tensor_file(tf: Any, tmp: str) -> Any:
    path = os.path.join(tmp, "t.pb")
    tf.io.write_file(path, tf.io.serialize_tensor(tf.constant([[1, 2, 3]], tf.int64)))
    with open(path, "rb") as f:
        raw = f.read()
    return [raw, tf.io.parse_tensor(tf.io.read_file(path), tf.int64)]


@program
def file_ops_in_function(tf: Any, tmp: str) -> Any:
    path = os.path.join(tmp, "f.txt")

    @tf.function
    def write(p: Any) -> Any:
        tf.io.write_file(p, tf.strings.join(["a", "b"]))
        return tf.constant(0)

    @tf.function
    def read(p: Any) -> Any:
        return tf.io.read_file(p)

    write(tf.constant(path))
    return read(tf.constant(path))


@program
def read_file_missing(tf: Any, tmp: str) -> Any:
    return tf.io.read_file(os.path.join(tmp, "missing.txt"))


@program
def read_file_directory(tf: Any, tmp: str) -> Any:
    return tf.io.read_file(tmp)


@program
def read_file_not_scalar(tf: Any, tmp: str) -> Any:
    return tf.io.read_file([os.path.join(tmp, "a")])


@program
def write_file_contents_not_scalar(tf: Any, tmp: str) -> Any:
    return tf.io.write_file(os.path.join(tmp, "a"), [b"x", b"y"])
