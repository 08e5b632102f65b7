"""AttrValue conversion and printing; expected summaries were read from TensorFlow 2.21's error messages."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from google.protobuf import text_format

from modtensor.framework import dtypes
from modtensor.framework.attr_value import (
    attr_value_equal,
    attr_value_hash,
    format_attr_value,
    format_shape_proto,
    from_attr_value,
    summarize_tensor,
    to_attr_value,
)
from modtensor.framework.protos import attr_value_pb2, tensor_pb2, tensor_shape_pb2
from modtensor.framework.tensor_proto import make_tensor_proto
from modtensor.framework.tensor_shape import TensorShape

AttrValue = attr_value_pb2.AttrValue


def av(text: str) -> attr_value_pb2.AttrValue:
    return text_format.Parse(text, AttrValue())


# ---------------------------------------------------------------------- from_attr_value


def test_from_attr_value_scalars() -> None:
    assert from_attr_value(av('s: "SAME"')) == b"SAME"
    assert from_attr_value(av("i: -3")) == -3
    assert from_attr_value(av("f: 0.5")) == 0.5
    assert from_attr_value(av("b: true")) is True
    assert from_attr_value(av("type: DT_HALF")) is dtypes.float16
    shape = from_attr_value(av("shape { dim { size: 2 } }"))
    assert isinstance(shape, tensor_shape_pb2.TensorShapeProto) and shape.dim[0].size == 2
    assert isinstance(from_attr_value(av("tensor { dtype: DT_INT32 int_val: 1 }")), tensor_pb2.TensorProto)
    assert from_attr_value(av('func { name: "f" }')).name == "f"
    assert from_attr_value(av('placeholder: "T"')) == "T"
    assert from_attr_value(AttrValue()) == []


def test_from_attr_value_lists() -> None:
    assert from_attr_value(av("list { i: [1, 2, 2, 1] }")) == [1, 2, 2, 1]
    assert from_attr_value(av("list { type: [DT_FLOAT, DT_INT32] }")) == [dtypes.float32, dtypes.int32]
    assert from_attr_value(av('list { s: ["a", "b"] }')) == [b"a", b"b"]
    assert from_attr_value(av("list { }")) == []
    assert [type(x) for x in from_attr_value(av("list { shape { } shape { unknown_rank: true } }"))] == [
        tensor_shape_pb2.TensorShapeProto
    ] * 2


# ---------------------------------------------------------------------- to_attr_value


@pytest.mark.parametrize(
    ("value", "attr_type", "text"),
    [
        ("SAME", "string", 's: "SAME"'),
        (b"\x00", "string", 's: "\\000"'),
        (3, "int", "i: 3"),
        (np.int64(3), "int", "i: 3"),
        (4.0, "int", "i: 4"),
        (0.5, "float", "f: 0.5"),
        (2, "float", "f: 2"),
        (True, "bool", "b: true"),
        (dtypes.float32, "type", "type: DT_FLOAT"),
        (dtypes.float32_ref, "type", "type: DT_FLOAT"),
        (np.int64, "type", "type: DT_INT64"),
        ("half", "type", "type: DT_HALF"),
        ([2, None], "shape", "shape { dim { size: 2 } dim { size: -1 } }"),
        (TensorShape(None), "shape", "shape { unknown_rank: true }"),
        (None, "shape", "shape { unknown_rank: true }"),
        ("f", "func", 'func { name: "f" }'),
        ([1, 2, 2, 1], "list(int)", "list { i: [1, 2, 2, 1] }"),
        ((dtypes.float32, "int32"), "list(type)", "list { type: [DT_FLOAT, DT_INT32] }"),
        (["a", b"b"], "list(string)", 'list { s: ["a", "b"] }'),
        ([[2], None], "list(shape)", "list { shape { dim { size: 2 } } shape { unknown_rank: true } }"),
        ([], "list(float)", "list { }"),
        ([0.5], "list(float)", "list { f: 0.5 }"),
        ([True], "list(bool)", "list { b: true }"),
        (["f"], "list(func)", 'list { func { name: "f" } }'),
    ],
)
def test_to_attr_value(value: object, attr_type: str, text: str) -> None:
    assert to_attr_value(value, attr_type) == av(text)


def test_to_attr_value_tensor_and_passthrough() -> None:
    tensor = to_attr_value(np.array([1.0, 2.0], np.float32), "tensor").tensor
    assert tensor == make_tensor_proto(np.array([1.0, 2.0], np.float32))
    assert to_attr_value(5, "tensor").tensor.int_val == [5]
    existing = av("i: 7")
    assert to_attr_value(existing, "int") is existing
    assert to_attr_value([np.zeros(2), 1.5], "list(tensor)").list.tensor[1].float_val == [1.5]


def test_to_attr_value_infers_the_type() -> None:
    assert to_attr_value(True) == av("b: true")
    assert to_attr_value(3) == av("i: 3")
    assert to_attr_value(1.5) == av("f: 1.5")
    assert to_attr_value("x") == av('s: "x"')
    assert to_attr_value(dtypes.int8) == av("type: DT_INT8")
    assert to_attr_value(TensorShape([1])) == av("shape { dim { size: 1 } }")
    assert to_attr_value([1, 2]) == av("list { i: [1, 2] }")
    assert to_attr_value([]) == av("list { }")
    assert to_attr_value(np.int32(2)) == av("i: 2")


@pytest.mark.parametrize(
    ("value", "attr_type", "error", "match"),
    [
        (1, "string", TypeError, "Expected string for attr 'padding', got 1 of type int"),
        ("3", "int", TypeError, "Expected int for attr 'padding'"),
        (2.5, "int", TypeError, "Expected int for attr 'padding'"),
        (True, "int", TypeError, "Expected int"),
        ("x", "float", TypeError, "Expected float"),
        (1, "bool", TypeError, "Expected bool for attr 'padding', got 1"),
        ("nope", "type", TypeError, "Expected DataType for attr 'padding', got 'nope'"),
        ([-2], "shape", TypeError, "Expected shape for attr 'padding'"),
        (object(), "tensor", TypeError, "Expected tensor for attr 'padding'"),
        (3, "func", TypeError, "Expected a function"),
        (1, "list(int)", TypeError, "Expected list for attr 'padding', obtained int instead"),
        ("ab", "list(string)", TypeError, "Expected list for attr 'padding'"),
        ([1, "a"], "list(int)", TypeError, "Expected int for attr 'padding'"),
        (1, "quux", ValueError, "Unrecognized attr type 'quux' for attr 'padding'"),
        ([1], "list(quux)", ValueError, "Unrecognized attr type 'list\\(quux\\)'"),
    ],
)
def test_to_attr_value_errors_name_the_attr(value: object, attr_type: str, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        to_attr_value(value, attr_type, name="padding")


def test_to_attr_value_cannot_infer() -> None:
    with pytest.raises(TypeError, match="Cannot infer the attr type of attr 'x'"):
        to_attr_value(object(), name="x")


# ---------------------------------------------------------------------- format_attr_value (TF 2.21 output)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('s: "SAME"', '"SAME"'),
        ('s: "he\\"l\\nlo\\001"', '"he\\"l\\nlo\\001"'),
        ('s: "a\'b\\\\c\\td\\re\\177\\200 \\303\\251"', '"a\\\'b\\\\c\\td\\re\\177\\200 \\303\\251"'),
        ('s: "' + "y" * 79 + '"', '"' + "y" * 79 + '"'),
        ('s: "' + "y" * 80 + '"', '"yyyyyyyyyy...yyyyyyyyyy"'),
        ("i: -3", "-3"),
        ("f: 0.1", "0.1"),
        ("f: 1", "1"),
        ("f: 1e20", "1e+20"),
        ("f: 1e-7", "1e-07"),
        ("f: 1e6", "1e+06"),
        ("f: 123456", "123456"),
        ("f: 123456789", "123456792"),
        ("f: 0.33333333", "0.333333343"),
        ("f: -0.0", "-0"),
        ("f: nan", "nan"),
        ("f: -inf", "-inf"),
        ("b: true", "true"),
        ("b: false", "false"),
        ("type: DT_FLOAT", "DT_FLOAT"),
        ("type: DT_FLOAT_REF", "DT_FLOAT_REF"),
        ("type: DT_INVALID", "DT_INVALID"),
        ("shape { dim { size: 2 } dim { size: -1 } }", "[2,?]"),
        ("shape { unknown_rank: true }", "<unknown>"),
        ("shape { }", "[]"),
        ('shape { dim { size: 3 name: "batch" } }', "[3]"),
        (
            'func { name: "f" attr { key: "x" value { i: 3 } } attr { key: "T" value { type: DT_FLOAT } } }',
            "f[T=DT_FLOAT, x=3]",
        ),
        ('func { name: "g" }', "g[]"),
        ('placeholder: "T"', "$T"),
        ("", "<Unknown AttrValue type>"),
        ("list { i: [1, 2, 2, 1] }", "[1, 2, 2, 1]"),
        ("list { }", "[]"),
        ("list { type: [DT_FLOAT, DT_INT32] }", "[DT_FLOAT, DT_INT32]"),
        ('list { s: ["a", "b"] }', '["a", "b"]'),
        ("list { f: [0.5, 2] }", "[0.5, 2]"),
        ("list { b: [true, false] }", "[true, false]"),
        ("list { shape { dim { size: 2 } dim { size: -1 } } shape { unknown_rank: true } }", "[[2,?], <unknown>]"),
        (
            "list { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1.5 } }",
            "[Tensor<type: float shape: [] values: 1.5>]",
        ),
        ('list { func { name: "g" } }', "[g[]]"),
    ],
)
def test_format_attr_value_matches_tensorflow(text: str, expected: str) -> None:
    assert format_attr_value(av(text)) == expected


def test_long_lists_are_shortened_with_a_hash() -> None:
    value = to_attr_value(list(range(29)), "list(int)")
    assert format_attr_value(value) == "[" + ", ".join(str(i) for i in range(29)) + "]"
    value = to_attr_value(list(range(40)), "list(int)")
    text = format_attr_value(value)
    assert text.startswith("[0, 1, 2, 3, 4, ..., 35, 36, 37, 38, 39]{attr_hash=")
    assert text == f"[0, 1, 2, 3, 4, ..., 35, 36, 37, 38, 39]{{attr_hash={attr_value_hash(value)}}}"


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (np.arange(6, dtype=np.float32).reshape(2, 3), "Tensor<type: float shape: [2,3] values: [0 1 2]...>"),
        (np.int32(5), "Tensor<type: int32 shape: [] values: 5>"),
        (np.arange(20), "Tensor<type: int64 shape: [20] values: 0 1 2...>"),
        ([b"ab", b"cd"], "Tensor<type: string shape: [2] values: ab cd>"),
        (np.arange(3.0), "Tensor<type: double shape: [3] values: 0 1 2>"),
        (np.arange(4).reshape(2, 2), "Tensor<type: int64 shape: [2,2] values: [0 1][2...]...>"),
        (np.arange(3).reshape(1, 3, 1), "Tensor<type: int64 shape: [1,3,1] values: [[0][1][2]]>"),
        (np.arange(6).reshape(2, 1, 3), "Tensor<type: int64 shape: [2,1,3] values: [[0 1 2]]...>"),
        (np.zeros((0, 3), np.float32), "Tensor<type: float shape: [0,3] values: >"),
        ([True, False], "Tensor<type: bool shape: [2] values: 1 0>"),
        (np.array([1 + 2j, 3.5 - 1j], np.complex64), "Tensor<type: complex64 shape: [2] values: ? ?>"),
        (np.array([1.5, 0.1], np.float16), "Tensor<type: half shape: [2] values: 1.5 0.0999755859>"),
        (np.array([1.5, 0.1], ml_dtypes.bfloat16), "Tensor<type: bfloat16 shape: [2] values: 1.5 0.100097656>"),
        (np.array([0.1, 1e20, 1 / 3], np.float32), "Tensor<type: float shape: [3] values: 0.1 1e+20 0.333333343>"),
        (np.array([0.1, 1 / 3, 1e-300]), "Tensor<type: double shape: [3] values: 0.1 0.33333333333333331 1e-300>"),
        ([b'a"b', b"\x00\x01\n", "é".encode()], 'Tensor<type: string shape: [3] values: a\\"b \\000\\001\\n é>'),
        (np.array([1.5, 2], ml_dtypes.float8_e4m3fn), "Tensor<type: float8_e4m3fn shape: [2] values: 1.5 2>"),
        (np.array([1, -2], ml_dtypes.int4), "Tensor<type: int4 shape: [2] values: 1 -2>"),
        (np.array([2**64 - 1], np.uint64), "Tensor<type: uint64 shape: [1] values: 18446744073709551615>"),
    ],
)
def test_tensor_summaries_match_tensorflow(values: object, expected: str) -> None:
    assert format_attr_value(to_attr_value(values, "tensor")) == expected


def test_tensor_summary_special_cases() -> None:
    quantized = text_format.Parse(
        "dtype: DT_QINT8 tensor_shape { dim { size: 2 } } int_val: [1, 2]", tensor_pb2.TensorProto()
    )
    assert summarize_tensor(quantized) == "Tensor<type: qint8 shape: [2] values: 1 2>"
    filled = make_tensor_proto(7.0, shape=[2, 3])
    assert summarize_tensor(filled) == "Tensor<type: float shape: [2,3] values: [7 7 7]...>"
    bad = text_format.Parse(
        'dtype: DT_FLOAT tensor_shape { dim { size: 2 } } tensor_content: "abc"', tensor_pb2.TensorProto()
    )
    assert summarize_tensor(bad) == (
        '<Invalid TensorProto: dtype: DT_FLOAT tensor_shape { dim { size: 2 } } tensor_content: "abc">'
    )
    assert summarize_tensor(tensor_pb2.TensorProto()) == "<Invalid TensorProto: >"
    assert format_shape_proto(TensorShape([None]).as_proto()) == "[?]"


# ---------------------------------------------------------------------- equality


def test_attr_value_equal_is_semantic() -> None:
    content = make_tensor_proto(np.array([1, 1], np.int32))
    typed = text_format.Parse("dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 1", tensor_pb2.TensorProto())
    assert content != typed
    assert attr_value_equal(AttrValue(tensor=content), AttrValue(tensor=typed))
    assert not attr_value_equal(
        AttrValue(tensor=content), AttrValue(tensor=make_tensor_proto(np.array([1, 2], np.int32)))
    )
    assert attr_value_equal(
        AttrValue(list=AttrValue.ListValue(tensor=[content])), AttrValue(list=AttrValue.ListValue(tensor=[typed]))
    )
    f1 = av('func { name: "f" attr { key: "a" value { i: 1 } } attr { key: "b" value { b: true } } }')
    f2 = av('func { name: "f" attr { key: "b" value { b: true } } attr { key: "a" value { i: 1 } } }')
    assert attr_value_equal(f1, f2)
    assert not attr_value_equal(f1, av('func { name: "g" }'))
    assert attr_value_equal(av("list { i: [1, 2] }"), to_attr_value([1, 2], "list(int)"))
    assert not attr_value_equal(av("i: 1"), av("f: 1"))
    assert attr_value_hash(av("i: 1")) == attr_value_hash(av("i: 1")) != attr_value_hash(av("i: 2"))
