"""NodeDef against OpDef: defaults, validation messages (TF's wording), dtypes, arg ranges, names, summaries.

Expected messages were produced by TensorFlow 2.21's ValidateNodeDef (importing
the same NodeDefs with tf.compat.v1.import_graph_def).
"""

from __future__ import annotations

import pathlib

import pytest
from google.protobuf import text_format

from modtensor.framework import errors
from modtensor.framework.node_def import (
    CONTROL_SLOT,
    add_default_attrs,
    arg_ranges,
    format_node_for_error,
    input_types,
    is_control_input,
    output_types,
    parse_tensor_name,
    summarize_node_def,
    validate_node_def,
)
from modtensor.framework.protos import node_def_pb2, op_def_pb2, types_pb2

DT = types_pb2.DataType
GOLDEN = pathlib.Path(__file__).resolve().parent.parent / "golden" / "op_defs_sample.pbtxt"
OPS = {op.name: op for op in text_format.Parse(GOLDEN.read_text(), op_def_pb2.OpList()).op}

ADDV2_SUMMARY = (
    "Op<name=AddV2; signature=x:T, y:T -> z:T; attr=T:type,allowed=[DT_BFLOAT16, DT_HALF, DT_FLOAT, DT_DOUBLE, "
    "DT_UINT8, DT_UINT16, DT_UINT32, DT_UINT64, DT_INT8, DT_INT16, DT_INT32, DT_INT64, DT_COMPLEX64, "
    "DT_COMPLEX128]; is_commutative=true; is_aggregate=true>"
)


def node(pbtxt: str) -> node_def_pb2.NodeDef:
    return text_format.Parse(pbtxt, node_def_pb2.NodeDef())


def invalid(node_def: node_def_pb2.NodeDef) -> str:
    with pytest.raises(errors.InvalidArgumentError) as info:
        validate_node_def(node_def, OPS[node_def.op])
    assert info.value.node_def is node_def
    return info.value.message


ADD = 'name: "add" op: "AddV2" input: "x" input: "y" attr { key: "T" value { type: DT_FLOAT } }'


# ----------------------------------------------------------------------------- validation: accepted


def test_valid_nodes_pass() -> None:
    validate_node_def(node(ADD), OPS["AddV2"])
    validate_node_def(node(ADD + ' input: "^c" input: "^d"'), OPS["AddV2"])
    validate_node_def(node(ADD + ' attr { key: "_class" value { s: "loc:@x" } }'), OPS["AddV2"])
    # attrs with defaults may be omitted
    validate_node_def(
        node('name: "c" op: "ConcatV2" input: "a" input: "b" input: "axis" '
             'attr { key: "N" value { i: 2 } } attr { key: "T" value { type: DT_FLOAT } }'),
        OPS["ConcatV2"],
    )  # fmt: skip
    validate_node_def(
        node(
            'name: "idn" op: "IdentityN" input: "a" input: "b:1" '
            'attr { key: "T" value { list { type: [DT_FLOAT, DT_INT32] } } }'
        ),
        OPS["IdentityN"],
    )


# ----------------------------------------------------------------------------- validation: TF's messages


def test_type_not_allowed() -> None:
    n = node('name: "add" op: "AddV2" input: "s" input: "s" attr { key: "T" value { type: DT_STRING } }')
    assert invalid(n) == (
        "Value for attr 'T' of string is not in the list of allowed values: bfloat16, half, float, double, uint8, "
        "uint16, uint32, uint64, int8, int16, int32, int64, complex64, complex128\n\t; NodeDef: {{node add}}; "
        + ADDV2_SUMMARY
    )


def test_missing_attr() -> None:
    n = node('name: "add" op: "AddV2" input: "x" input: "y"')
    assert invalid(n) == f"NodeDef missing attr 'T' from {ADDV2_SUMMARY}; NodeDef: {{{{node add}}}}"


def test_unknown_attr() -> None:
    message = invalid(node(ADD + ' attr { key: "foo" value { i: 1 } }'))
    assert message.startswith(f"NodeDef mentions attr 'foo' not in {ADDV2_SUMMARY}; NodeDef: {{{{node add}}}}.")
    assert "up to date" in message


@pytest.mark.parametrize("inputs, count", [('input: "x"', 1), ('input: "x" input: "y" input: "x"', 3), ("", 0)])
def test_wrong_input_count(inputs: str, count: int) -> None:
    n = node(f'name: "add" op: "AddV2" {inputs} attr {{ key: "T" value {{ type: DT_FLOAT }} }}')
    assert invalid(n) == (
        f"NodeDef expected inputs 'float, float' do not match {count} inputs specified; {ADDV2_SUMMARY}; "
        "NodeDef: {{node add}}"
    )


def test_number_attr_expansion_checks_count() -> None:
    n = node('name: "p" op: "Pack" input: "x" input: "y" attr { key: "T" value { type: DT_FLOAT } } '
             'attr { key: "N" value { i: 3 } }')  # fmt: skip
    assert invalid(n) == (
        "NodeDef expected inputs 'float, float, float' do not match 2 inputs specified; "
        "Op<name=Pack; signature=values:N*T -> output:T; attr=N:int,min=1; attr=T:type; attr=axis:int,default=0>; "
        "NodeDef: {{node p}}"
    )


def test_minimum_of_number_attr() -> None:
    n = node('name: "c" op: "ConcatV2" input: "x" input: "i" attr { key: "T" value { type: DT_FLOAT } } '
             'attr { key: "N" value { i: 1 } } attr { key: "Tidx" value { type: DT_INT32 } }')  # fmt: skip
    assert invalid(n) == (
        "Value for attr 'N' of 1 must be at least minimum 2\n\t; NodeDef: {{node c}}; "
        "Op<name=ConcatV2; signature=values:N*T, axis:Tidx -> output:T; attr=N:int,min=2; attr=T:type; "
        "attr=Tidx:type,default=DT_INT32,allowed=[DT_INT32, DT_INT64]>"
    )


def test_string_enum_not_allowed() -> None:
    n = node('name: "conv" op: "Conv2D" input: "x" input: "y" attr { key: "T" value { type: DT_FLOAT } } '
             'attr { key: "strides" value { list { i: [1, 1, 1, 1] } } } '
             'attr { key: "padding" value { s: "FOO" } }')  # fmt: skip
    assert invalid(n).startswith(
        'Value for attr \'padding\' of "FOO" is not in the list of allowed values: "SAME", "VALID", "EXPLICIT"\n\t'
        "; NodeDef: {{node conv}}; Op<name=Conv2D; "
    )


def test_list_length_minimum() -> None:
    n = node('name: "mp" op: "MaxPool" input: "x" attr { key: "T" value { type: DT_FLOAT } } '
             'attr { key: "ksize" value { list { i: [1, 1, 1] } } } '
             'attr { key: "strides" value { list { i: [1, 1, 1, 1] } } } '
             'attr { key: "padding" value { s: "SAME" } }')  # fmt: skip
    assert invalid(n).startswith("Length for attr 'ksize' of 3 must be at least minimum 4\n\t; NodeDef: {{node mp}}; ")
    empty = node('name: "idn" op: "IdentityN" attr { key: "T" value { list { } } }')
    assert invalid(empty) == (
        "Length for attr 'T' of 0 must be at least minimum 1\n\t; NodeDef: {{node idn}}; "
        "Op<name=IdentityN; signature=input: -> output:; attr=T:list(type),min=1>"
    )


def test_negative_count() -> None:
    n = node(
        'name: "u" op: "Unpack" input: "x" attr { key: "T" value { type: DT_FLOAT } } '
        'attr { key: "num" value { i: -1 } }'
    )
    assert invalid(n).startswith("Value for attr 'num' of -1 must be at least minimum 0\n\t; NodeDef: {{node u}}; ")


@pytest.mark.parametrize(
    "op, attr_value, first_lines",
    [
        ("AddV2", "i: 3", "AttrValue had value with type 'int' when 'type' expected\n\t for attr 'T'"),
        ("AddV2", "", "AttrValue missing value with expected type 'type'\n\t for attr 'T'"),
        (
            "IdentityN",
            "type: DT_FLOAT",
            "AttrValue had value with type 'type' when 'list(type)' expected\n\t for attr 'T'",
        ),
        ("AddV2", "type: DT_INVALID", "AttrValue has invalid DataType\n\t for attr 'T'"),
    ],
)
def test_attr_kind_mismatch(op: str, attr_value: str, first_lines: str) -> None:
    inputs = 'input: "x" input: "y"' if op == "AddV2" else 'input: "x"'
    n = node(f'name: "n" op: "{op}" {inputs} attr {{ key: "T" value {{ {attr_value} }} }}')
    assert invalid(n).startswith(first_lines + "\n\t; NodeDef: {{node n}}; Op<name=" + op)


def test_control_inputs_must_follow_data_inputs() -> None:
    n = node('name: "add" op: "AddV2" input: "x" input: "^i" input: "y" attr { key: "T" value { type: DT_FLOAT } }')
    assert invalid(n).startswith("Non-control input 'y' after control input in NodeDef: {{node add}}")
    n = node(ADD + ' input: "^c:0"')
    assert invalid(n) == "Control input '^c:0' must not have ':' in NodeDef: {{node add}}"


def test_op_mismatch() -> None:
    with pytest.raises(errors.InvalidArgumentError, match="NodeDef op 'AddV2' does not match Op<name=Pack;"):
        validate_node_def(node(ADD), OPS["Pack"])


# ----------------------------------------------------------------------------- defaults, dtypes, ranges


def test_add_default_attrs() -> None:
    n = node(
        'name: "c" op: "Conv2D" attr { key: "T" value { type: DT_HALF } } '
        'attr { key: "data_format" value { s: "NCHW" } }'
    )
    add_default_attrs(n, OPS["Conv2D"])
    assert n.attr["data_format"].s == b"NCHW"  # present attrs are kept
    assert n.attr["use_cudnn_on_gpu"].b is True
    assert list(n.attr["dilations"].list.i) == [1, 1, 1, 1]
    assert n.attr["explicit_paddings"].HasField("list") and not n.attr["explicit_paddings"].list.i
    assert "strides" not in n.attr and "padding" not in n.attr  # no default, not invented
    assert n.attr["T"].type == DT.DT_HALF


def test_input_output_types_and_ranges() -> None:
    concat = node('name: "c" op: "ConcatV2" attr { key: "N" value { i: 3 } } attr { key: "T" value { type: DT_HALF } }')
    assert input_types(concat, OPS["ConcatV2"]) == [DT.DT_HALF] * 3 + [DT.DT_INT32]  # Tidx from its default
    assert output_types(concat, OPS["ConcatV2"]) == [DT.DT_HALF]
    assert arg_ranges(concat, OPS["ConcatV2"]) == {"values": (0, 3), "axis": (3, 4)}
    assert arg_ranges(concat, OPS["ConcatV2"], "output") == {"output": (0, 1)}

    idn = node('name: "i" op: "IdentityN" attr { key: "T" value { list { type: [DT_FLOAT, DT_INT32, DT_BOOL] } } }')
    assert input_types(idn, OPS["IdentityN"]) == [DT.DT_FLOAT, DT.DT_INT32, DT.DT_BOOL]
    assert arg_ranges(idn, OPS["IdentityN"], "output") == {"output": (0, 3)}

    unpack = node(
        'name: "u" op: "Unpack" attr { key: "num" value { i: 0 } } attr { key: "T" value { type: DT_FLOAT } }'
    )
    assert output_types(unpack, OPS["Unpack"]) == []
    assert arg_ranges(unpack, OPS["Unpack"], "output") == {"output": (0, 0)}

    assign = node('name: "a" op: "Assign" attr { key: "T" value { type: DT_FLOAT } }')
    assert input_types(assign, OPS["Assign"]) == [DT.DT_FLOAT_REF, DT.DT_FLOAT]
    assert output_types(assign, OPS["Assign"]) == [DT.DT_FLOAT_REF]

    var = node('name: "v" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } }')
    assert output_types(var, OPS["VarHandleOp"]) == [DT.DT_RESOURCE]
    with pytest.raises(ValueError, match="which must be 'input' or 'output'"):
        arg_ranges(var, OPS["VarHandleOp"], "inputs")  # type: ignore[arg-type]


def test_types_need_the_attrs() -> None:
    n = node('name: "add" op: "AddV2"')
    with pytest.raises(
        errors.InvalidArgumentError, match=r"NodeDef missing attr 'T' from Op<name=AddV2;.*\{\{node add\}\}"
    ):
        input_types(n, OPS["AddV2"])


# ----------------------------------------------------------------------------- names and summaries


@pytest.mark.parametrize(
    "name, expected",
    [
        ("x", ("x", 0)),
        ("x:0", ("x", 0)),
        ("x:1", ("x", 1)),
        ("scope/x:12", ("scope/x", 12)),
        ("^x", ("x", CONTROL_SLOT)),
        ("^scope/x", ("scope/x", CONTROL_SLOT)),
        ("x:y", ("x:y", 0)),
        ("x:", ("x:", 0)),
    ],
)
def test_parse_tensor_name(name: str, expected: tuple[str, int]) -> None:
    assert parse_tensor_name(name) == expected


def test_control_input_and_error_format() -> None:
    assert is_control_input("^x") and not is_control_input("x:0")
    assert format_node_for_error("scope/add") == "{{node scope/add}}"
    assert format_node_for_error(node(ADD)) == "{{node add}}"


def test_summarize_node_def() -> None:
    assert summarize_node_def(node(ADD)) == "{{node add}} = AddV2[T=DT_FLOAT](x, y)"
    n = node(
        'name: "conv" op: "Conv2D" input: "x" input: "w:1" input: "^init" device: "/device:CPU:0" '
        'attr { key: "padding" value { s: "SAME" } } attr { key: "T" value { type: DT_FLOAT } } '
        'attr { key: "strides" value { list { i: [1, 2, 2, 1] } } } attr { key: "use_cudnn_on_gpu" value { b: true } }'
    )
    assert summarize_node_def(n) == (
        '{{node conv}} = Conv2D[T=DT_FLOAT, padding="SAME", strides=[1, 2, 2, 1], use_cudnn_on_gpu=true, '
        '_device="/device:CPU:0"](x, w:1, ^init)'
    )
    assert summarize_node_def(node('name: "n" op: "NoOp"')) == "{{node n}} = NoOp[]()"
