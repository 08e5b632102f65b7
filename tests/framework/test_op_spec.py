"""Op-spec parsing: every form TF accepts, TF's type sets, and errors that point at the bad token.

Expected protos and accept/reject decisions were checked against TensorFlow 2.21 by
registering the same specs through TF's C API op builder
(`tools/dump_tf_op_defs_sample.py --probe ...`). Where TF's own message is terse, ours
says more, but keeps TF's `... from Attr("<spec>") for Op <op>` form.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
from google.protobuf import text_format

from modtensor.framework import errors, op_spec
from modtensor.framework.protos import op_def_pb2, types_pb2

DT = types_pb2.DataType
AttrDef = op_def_pb2.OpDef.AttrDef
ArgDef = op_def_pb2.OpDef.ArgDef


def attr(spec: str) -> AttrDef:
    return op_spec.parse_attr_spec(spec, "MyOp")


def expect_attr(spec: str, pbtxt: str) -> None:
    assert attr(spec) == text_format.Parse(pbtxt, AttrDef())


# ----------------------------------------------------------------------------- attrs


@pytest.mark.parametrize(
    "spec, pbtxt",
    [
        ("T: type", 'name: "T" type: "type"'),
        ("dtype: type", 'name: "dtype" type: "type"'),
        ("N: int >= 1", 'name: "N" type: "int" has_minimum: true minimum: 1'),
        ("N: int >= -2", 'name: "N" type: "int" has_minimum: true minimum: -2'),
        ("a: int>=1=3", 'name: "a" type: "int" has_minimum: true minimum: 1 default_value { i: 3 }'),
        ("shape: shape", 'name: "shape" type: "shape"'),
        ("value: tensor", 'name: "value" type: "tensor"'),
        ("f: func", 'name: "f" type: "func"'),
        ("strides: list(int)", 'name: "strides" type: "list(int)"'),
        ("strides: list( int )", 'name: "strides" type: "list(int)"'),
        ("ksize: list(int) >= 4", 'name: "ksize" type: "list(int)" has_minimum: true minimum: 4'),
        ("Tout: list(type) >= 0", 'name: "Tout" type: "list(type)" has_minimum: true'),
        ("shapes: list(shape)", 'name: "shapes" type: "list(shape)"'),
        ("names: list(string) >= 1", 'name: "names" type: "list(string)" has_minimum: true minimum: 1'),
        ("keep_dims: bool = false", 'name: "keep_dims" type: "bool" default_value { b: false }'),
        ("b: bool = True", 'name: "b" type: "bool" default_value { b: true }'),
        ("T: type = DT_FLOAT", 'name: "T" type: "type" default_value { type: DT_FLOAT }'),
        ("alpha: float = 0.5", 'name: "alpha" type: "float" default_value { f: 0.5 }'),
        ("alpha: float = 1", 'name: "alpha" type: "float" default_value { f: 1 }'),
        ("eps: float = -1e-3", 'name: "eps" type: "float" default_value { f: -0.001 }'),
        ("axis: int = -1", 'name: "axis" type: "int" default_value { i: -1 }'),
        ("a:int=-3", 'name: "a" type: "int" default_value { i: -3 }'),
        ("big: int = 2147483648", 'name: "big" type: "int" default_value { i: 2147483648 }'),
        ("fmt: string = 'NHWC'", 'name: "fmt" type: "string" default_value { s: "NHWC" }'),
        ('fmt: string = "NCHW"', 'name: "fmt" type: "string" default_value { s: "NCHW" }'),
        ("container: string = ''", 'name: "container" type: "string" default_value { s: "" }'),
        ("d: list(int) = [1, 1, 1, 1]", 'name: "d" type: "list(int)" default_value { list { i: [1, 1, 1, 1] } }'),
        ("p: list(int) = []", 'name: "p" type: "list(int)" default_value { list { } }'),
        ("T: list(type) = []", 'name: "T" type: "list(type)" default_value { list { } }'),
        ("s: list(shape) = []", 'name: "s" type: "list(shape)" default_value { list { } }'),
        ("j: list(string) = ['a', 'b']", 'name: "j" type: "list(string)" default_value { list { s: ["a", "b"] } }'),
        ("r: list(float) = [0.5, 1]", 'name: "r" type: "list(float)" default_value { list { f: [0.5, 1] } }'),
        ("v: list(bool) = [true, false]", 'name: "v" type: "list(bool)" default_value { list { b: [true, false] } }'),
        (
            "T: list(type) >= 2 = [DT_FLOAT, DT_INT32]",
            'name: "T" type: "list(type)" has_minimum: true minimum: 2 '
            "default_value { list { type: [DT_FLOAT, DT_INT32] } }",
        ),
        (
            "shape: shape = { unknown_rank: true }",
            'name: "shape" type: "shape" default_value { shape { unknown_rank: true } }',
        ),
        (
            "shape: shape = { dim { size: -1 } }",
            'name: "shape" type: "shape" default_value { shape { dim { size: -1 } } }',
        ),
        ("t: tensor = { dtype: DT_FLOAT }", 'name: "t" type: "tensor" default_value { tensor { dtype: DT_FLOAT } }'),
        ("f: func = { name: 'f' }", 'name: "f" type: "func" default_value { func { name: "f" } }'),
        (
            "T: {float, double, int32}",
            'name: "T" type: "type" allowed_values { list { type: [DT_FLOAT, DT_DOUBLE, DT_INT32] } }',
        ),
        ("T: {  float ,double  }", 'name: "T" type: "type" allowed_values { list { type: [DT_FLOAT, DT_DOUBLE] } }'),
        ("T: {float,}", 'name: "T" type: "type" allowed_values { list { type: DT_FLOAT } }'),
        (
            "Tidx: {int32, int64} = DT_INT32",
            'name: "Tidx" type: "type" default_value { type: DT_INT32 } '
            "allowed_values { list { type: [DT_INT32, DT_INT64] } }",
        ),
        (
            "padding: {'SAME', 'VALID'}",
            'name: "padding" type: "string" allowed_values { list { s: ["SAME", "VALID"] } }',
        ),
        (
            "data_format: {'NHWC', \"NCHW\"} = 'NHWC'",
            'name: "data_format" type: "string" default_value { s: "NHWC" } '
            'allowed_values { list { s: ["NHWC", "NCHW"] } }',
        ),
        (
            "a: list({float, int32}) = [DT_FLOAT]",
            'name: "a" type: "list(type)" default_value { list { type: DT_FLOAT } } '
            "allowed_values { list { type: [DT_FLOAT, DT_INT32] } }",
        ),
        (
            "a: list({'A', 'B'}) = ['A']",
            'name: "a" type: "list(string)" default_value { list { s: "A" } } '
            'allowed_values { list { s: ["A", "B"] } }',
        ),
        ("aB_1: int", 'name: "aB_1" type: "int"'),
        ("a: int   ", 'name: "a" type: "int"'),
    ],
)
def test_attr_forms(spec: str, pbtxt: str) -> None:
    expect_attr(spec, pbtxt)


def test_float_defaults_nan_and_inf() -> None:
    assert math.isnan(attr("a: float = nan").default_value.f)
    assert attr("a: float = inf").default_value.f == math.inf


def test_type_set_shorthands_expand_in_tf_order() -> None:
    number = [
        DT.DT_FLOAT, DT.DT_DOUBLE, DT.DT_INT32, DT.DT_UINT8, DT.DT_INT16, DT.DT_INT8, DT.DT_COMPLEX64,
        DT.DT_INT64, DT.DT_QINT8, DT.DT_QUINT8, DT.DT_QINT32, DT.DT_BFLOAT16, DT.DT_QINT16, DT.DT_QUINT16,
        DT.DT_UINT16, DT.DT_COMPLEX128, DT.DT_HALF, DT.DT_UINT32, DT.DT_UINT64,
    ]  # fmt: skip
    real = [
        DT.DT_FLOAT, DT.DT_DOUBLE, DT.DT_INT32, DT.DT_UINT8, DT.DT_INT16, DT.DT_INT8, DT.DT_INT64,
        DT.DT_BFLOAT16, DT.DT_UINT16, DT.DT_HALF, DT.DT_UINT32, DT.DT_UINT64,
    ]  # fmt: skip
    quantized = [DT.DT_QINT8, DT.DT_QUINT8, DT.DT_QINT32, DT.DT_QINT16, DT.DT_QUINT16]
    for spec, expected in [
        ("T: numbertype", number),
        ("T: numerictype", number),
        ("T: realnumbertype", real),
        ("T: realnumerictype", real),
        ("T: quantizedtype", quantized),
        ("T: {numbertype, bool}", [*number, DT.DT_BOOL]),
        ("T: {realnumbertype, qint8}", [*real, DT.DT_QINT8]),
        ("T: list(numbertype)", number),
    ]:
        a = attr(spec)
        assert a.type in ("type", "list(type)")
        assert list(a.allowed_values.list.type) == expected, spec


def test_type_names_tf_accepts() -> None:
    for name, dt in [
        ("float32", DT.DT_FLOAT), ("float64", DT.DT_DOUBLE), ("float16", DT.DT_HALF), ("half", DT.DT_HALF),
        ("bfloat16", DT.DT_BFLOAT16), ("complex128", DT.DT_COMPLEX128), ("quint16", DT.DT_QUINT16),
        ("resource", DT.DT_RESOURCE), ("variant", DT.DT_VARIANT), ("int4", DT.DT_INT4), ("uint2", DT.DT_UINT2),
    ]:  # fmt: skip
        assert list(attr(f"T: {{{name}}}").allowed_values.list.type) == [dt]


def test_data_type_string_matches_tf() -> None:
    assert op_spec.data_type_string(DT.DT_FLOAT) == "float"
    assert op_spec.data_type_string(DT.DT_HALF) == "half"
    assert op_spec.data_type_string(DT.DT_FLOAT_REF) == "float_ref"
    assert op_spec.data_type_string(DT.DT_FLOAT8_E5M2) == "float8_e5m2"
    assert op_spec.data_type_string(DT.DT_INVALID) == "INVALID"
    assert op_spec.data_type_from_string("int32_ref") == DT.DT_INT32_REF
    assert op_spec.data_type_from_string("complex") is None


# ----------------------------------------------------------------------------- args

ATTRS = {
    "T": AttrDef(name="T", type="type"),
    "N": AttrDef(name="N", type="int"),
    "Tout": AttrDef(name="Tout", type="list(type)"),
    "strides": AttrDef(name="strides", type="list(int)"),
}


def arg(spec: str) -> ArgDef:
    return op_spec.parse_arg_spec(spec, ATTRS, "Input", "MyOp")


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("x: T", ArgDef(name="x", type_attr="T")),
        ("x:T", ArgDef(name="x", type_attr="T")),
        ("x : T", ArgDef(name="x", type_attr="T")),
        ("values: N * T", ArgDef(name="values", type_attr="T", number_attr="N")),
        ("values: N*T", ArgDef(name="values", type_attr="T", number_attr="N")),
        ("values:  N  *  float", ArgDef(name="values", type=DT.DT_FLOAT, number_attr="N")),
        ("outputs: Tout", ArgDef(name="outputs", type_list_attr="Tout")),
        ("y: float", ArgDef(name="y", type=DT.DT_FLOAT)),
        ("y: float32", ArgDef(name="y", type=DT.DT_FLOAT)),
        ("handle: resource", ArgDef(name="handle", type=DT.DT_RESOURCE)),
        ("ref: Ref(T)", ArgDef(name="ref", type_attr="T", is_ref=True)),
        ("ref: Ref( T )", ArgDef(name="ref", type_attr="T", is_ref=True)),
        ("ref: Ref(N * T)", ArgDef(name="ref", type_attr="T", number_attr="N", is_ref=True)),
        ("o: Ref(float)", ArgDef(name="o", type=DT.DT_FLOAT, is_ref=True)),
        ("x_1: int32", ArgDef(name="x_1", type=DT.DT_INT32)),
    ],
)
def test_arg_forms(spec: str, expected: ArgDef) -> None:
    assert arg(spec) == expected


# ----------------------------------------------------------------------------- errors


def error_of(fn: Callable[..., object], *args: object) -> str:
    with pytest.raises(errors.InvalidArgumentError) as info:
        fn(*args)
    return info.value.message


def caret_column(message: str) -> int:
    """Column of the caret relative to the quoted spec line above it."""
    lines = message.splitlines()
    return lines[-1].index("^") - lines[-2].index(lines[-2].strip())


@pytest.mark.parametrize(
    "spec, fragment, token",
    [
        ("T: {flot, double}", "Unrecognized type string 'flot'", "flot"),
        ("T: {float, 'X'}", "types or quoted strings, not both", "'X'"),
        ("T: {'A', B}", "Trouble parsing allowed string", "B"),
        ("T: {}", "Trouble parsing type string", "}"),
        ("T: {float_ref}", "Expected , or } after types in list", "_ref"),
        ("T: {float8_e5m2}", "Unrecognized type string 'float8'", "float8"),
        ("T: {int, float}", "Unrecognized type string 'int'", "int"),
        ("T: list(list(int))", "Unrecognized attr type 'list'", "list"),
        ("a: list(int", "Expected ) to close 'list('", ""),
        ("a: integer", "Unrecognized attr type 'integer'", "integer"),
        ("1a: int", "Trouble parsing '<name>:'", "1a"),
        ("_a: int", "Trouble parsing '<name>:'", "_a"),
        ("a int", "Trouble parsing '<name>:'", "int"),
        ("a: int extra", "Extra 'extra' unparsed at the end", "extra"),
        ("a: float >= 1", "only int and list attrs take one", ">="),
        ("T: type >= 1", "only int and list attrs take one", ">="),
        ("a: int >= x", "Could not parse integer lower limit after '>='", "x"),
        ("a: int >= 1 >= 2", "Extra '>= 2' unparsed at the end", ">="),
        ("a: int = 'x'", "Could not parse default value ''x'' as int", "'x'"),
        ("a: int = 3.5", "Could not parse default value '3.5' as int", "3.5"),
        ("a: int = ", "Could not parse default value '' as int", ""),
        ("a: int = 1 = 2", "Could not parse default value '1 = 2'", "1"),
        ("a: list(int) = 3", "Could not parse default value '3' as list(int)", "3"),
        ("a: list(int) = [1, 'x']", "Could not parse default value", "["),
        ("w: type = float", "Could not parse default value 'float' as type", "float"),
        ("t: shape = []", "Could not parse default value '[]' as shape", "[]"),
        ("a: int = 9223372036854775808", "Could not parse default value", "9223372036854775808"),
    ],
)
def test_attr_errors_point_at_the_token(spec: str, fragment: str, token: str) -> None:
    message = error_of(op_spec.parse_attr_spec, spec, "MyOp")
    assert fragment in message
    assert f'from Attr("{spec}") for Op MyOp' in message
    if token:
        assert spec[caret_column(message) :].startswith(token), message


@pytest.mark.parametrize(
    "spec, fragment, token",
    [
        ("X: float", "Trouble parsing 'name:'", "X"),
        ("_y: float", "Trouble parsing 'name:'", "_y"),
        ("x float", "Trouble parsing 'name:'", "float"),
        ("x: U", "Reference to unknown attr 'U'", "U"),
        ("x: floaty", "Reference to unknown attr 'floaty'", "floaty"),
        ("x: M * T", "Reference to unknown attr 'M'", "M"),
        ("x: T * T", "Reference to attr 'T' with type type that isn't int", "T"),
        ("x: strides", "Reference to attr 'strides' with type list(int) that isn't type or list(type)", "strides"),
        ("x: N * Tout", "Can't have both number_attr and type_list_attr for input 'x'", "Tout"),
        ("x: N * Ref(T)", "Ref(...) must enclose the whole type: write 'Ref(N * ...)'", "Ref("),
        ("x: Ref(T", "Did not find closing ')' for 'Ref('", ""),
        ("x: float_ref", "Illegal use of ref type 'float_ref'. Use 'Ref(type)' instead for input 'x'", "float_ref"),
        ("x: T extra", "Extra 'extra' unparsed at the end", "extra"),
        ("x: ", "Trouble parsing type or attr name", ""),
    ],
)
def test_arg_errors_point_at_the_token(spec: str, fragment: str, token: str) -> None:
    message = error_of(op_spec.parse_arg_spec, spec, ATTRS, "Input", "MyOp")
    assert fragment in message
    assert f'from Input("{spec}") for Op MyOp' in message
    if token:
        assert spec[caret_column(message) :].startswith(token), message


def test_error_message_layout() -> None:
    message = error_of(op_spec.parse_attr_spec, "T: {flot, double}", "MyOp")
    assert message == (
        "Unrecognized type string 'flot' from Attr(\"T: {flot, double}\") for Op MyOp\n"
        "    T: {flot, double}\n"
        "        ^~~~"
    )
