"""framework/attr_inference: the one set of rules graph construction, the wrappers and eager execution use.

The texts of the registered ops' common cases are golden-tested against TensorFlow elsewhere (test_graph.py,
test_op_def_library.py, the eager and frontend goldens); these cases pin what those do not reach: ops with
shared number or type-list attrs, ref args, empty lists, and each dialect's text for each rule.
"""

from __future__ import annotations

import pytest

import modtensor.ops  # noqa: F401  (registers the standard ops)
from modtensor.framework import attr_inference as ai
from modtensor.framework import dtypes, errors
from modtensor.framework.graph import Graph
from modtensor.framework.op_def_builder import OpDefBuilder
from modtensor.framework.op_def_library import apply_op_outputs
from modtensor.framework.protos import node_def_pb2

f32, i32, f64, boolean = dtypes.float32, dtypes.int32, dtypes.float64, dtypes.bool


def op_def(name, inputs, attrs=(), outputs=("out: int32",)):
    builder = OpDefBuilder(name)
    for spec in inputs:
        builder.input(spec)
    for spec in outputs:
        builder.output(spec)
    for spec in attrs:
        builder.attr(spec)
    return builder.finalize().op_def


SHARED_N = op_def("SharedN", ["a: N * int32", "b: N * T"], ["N: int >= 1", "T: {float, int32}"])
SHARED_LIST = op_def("SharedList", ["a: T", "b: T"], ["T: list({float, int32})"])
TWO_T = op_def("TwoT", ["x: T", "y: U", "z: T"], ["T: {float, int32}", "U: type"])
EMPTY = op_def("Empty", ["a: N * T"], ["N: int >= 0", "T: type"])
EMPTY_DEFAULT = op_def("EmptyDefault", ["a: N * T"], ["N: int >= 0", "T: type = DT_FLOAT"])
LIST_THEN_N = op_def("ListThenN", ["a: A", "b: N * T", "c: T"], ["A: list(type)", "N: int", "T: type"])
FIXED = op_def("Fixed", ["c: bool", "x: T"], ["T: type"])
REF = op_def("RefOp", ["ref: Ref(T)", "value: T"], ["T: type"], ["out: Ref(T)"])


def infer(sig_def, dialect, *args, explicit=()):
    """Add ``args`` ((arg index, dtypes) pairs, or plain dtype lists in arg order) and return the values."""
    sig = ai.signature(sig_def)
    inference = ai.Inference(sig, dialect)
    position = 0
    for arg, types in zip(sig.inputs, args, strict=True):
        inference.add_arg(arg, types, arg.name, position)
        position += len(types)
    if dialect is ai.EAGER:
        inference.finish(explicit)
    return inference


def test_signature_is_computed_once_per_op_def():
    assert ai.signature(SHARED_N) is ai.signature(SHARED_N)
    sig = ai.signature(SHARED_N)
    assert [a.kind for a in sig.inputs] == [ai.NUMBER_LIST, ai.NUMBER_LIST]
    assert sig.inputs[0].fixed is i32 and sig.inputs[1].type_attr == "T" and sig.inputs[1].fixed is None
    assert sig.inferred_attrs == {"N", "T"} and sig.size_attrs == {"N"} and sig.minimums == {"N": 1}
    assert ai.signature(EMPTY_DEFAULT).type_defaults == {"T": f32}


@pytest.mark.parametrize("dialect", [ai.GRAPH, ai.WRAPPER, ai.EAGER])
def test_every_dialect_infers_the_same_attrs(dialect):
    inference = infer(SHARED_N, dialect, [i32, i32], [f32, f32])
    assert inference.values == {"N": 2, "T": f32} and inference.inferred() == {"N": "a", "T": "b"}
    node = node_def_pb2.NodeDef(name="n", op="SharedN")
    inference.write(node)
    assert node.attr["N"].i == 2 and node.attr["T"].type == f32.as_datatype_enum
    inference = infer(SHARED_LIST, dialect, [f32, i32], [f32, i32])
    assert inference.values == {"T": [f32, i32]}
    node = node_def_pb2.NodeDef(name="n", op="SharedList")
    inference.write(node)
    assert list(node.attr["T"].list.type) == [f32.as_datatype_enum, i32.as_datatype_enum]
    empty = infer(EMPTY_DEFAULT, dialect, [])
    node = node_def_pb2.NodeDef(name="n", op="EmptyDefault")
    empty.write(node)
    assert node.attr["N"].WhichOneof("value") == "i" and node.attr["N"].i == 0 and "T" not in node.attr


# Per rule: (op, arg dtypes, {dialect: (error class, text) or None when the dialect leaves it to NodeDef validation}).
CASES = {
    "type attr mismatch": (
        TWO_T,
        ([f32], [i32], [i32]),
        {
            "wrapper": (TypeError, "Input 'z' of 'TwoT' Op has type int32 that does not match type float32 of "
                        "argument 'x'."),
            "eager": (errors.InvalidArgumentError, "cannot compute TwoT as input #2(zero-based) was expected to be "
                      "a float tensor but is a int32 tensor"),
        },
    ),
    "fixed type mismatch": (
        FIXED,
        ([f32], [f32]),
        {
            "wrapper": (TypeError, "Input 'c' of 'Fixed' Op has type float32 that does not match expected type "
                        "of bool."),
            "eager": (errors.InvalidArgumentError, "cannot compute Fixed as input #0(zero-based) was expected to "
                      "be a bool tensor but is a float tensor"),
        },
    ),
    "fixed number list mismatch": (
        SHARED_N,
        ([i32, f32], [f32, f32]),
        {
            "wrapper": (TypeError, "All tensors passed to 'a' of 'SharedN' Op must have the same type. Got "
                        "[tf.int32, tf.float32] instead."),
            "eager": (errors.InvalidArgumentError, "cannot compute SharedN as input #1(zero-based) was expected to "
                      "be a int32 tensor but is a float tensor"),
        },
    ),
    "length mismatch": (
        SHARED_N,
        ([i32, i32], [f32, f32, f32]),
        {
            "graph": None,
            "wrapper": (ValueError, "List argument 'b' to 'SharedN' Op with length 3 must match length 2 of "
                        "argument 'a'."),
            "eager": (ValueError, "List argument 'b' to 'SharedN' Op with length 3 must match length 2 of an "
                      "earlier argument."),
        },
    ),
    "below minimum": (
        SHARED_N,
        ([], []),
        {
            "graph": None,
            "wrapper": (ValueError, "List argument 'a' to 'SharedN' Op with length 0 shorter than minimum length 1."),
            "eager": (ValueError, "List argument 'a' to 'SharedN' Op with length 0 shorter than minimum length 1."),
        },
    ),
    "number list of different types": (
        SHARED_N,
        ([i32, i32], [f32, i32]),
        {
            "wrapper": (TypeError, "All tensors passed to 'b' of 'SharedN' Op must have the same type. Got "
                        "[tf.float32, tf.int32] instead."),
            "eager": (errors.InvalidArgumentError, "cannot compute SharedN as input #3(zero-based) was expected to "
                      "be a float tensor but is a int32 tensor"),
        },
    ),
    "type not allowed": (
        TWO_T,
        ([f64], [i32], [f64]),
        {
            "graph": None,
            "wrapper": (TypeError, "Value passed to parameter 'x' has DataType float64 not in list of allowed "
                        "values: float32, int32"),
            "eager": None,
        },
    ),
    "type list mismatch": (
        SHARED_LIST,
        ([f32, i32], [i32, i32]),
        {
            "wrapper": (TypeError, "Input 'b' of 'SharedList' Op has type list of int32, int32 that does not match "
                        "type list float32, int32 of argument 'a'."),
            "eager": (errors.InvalidArgumentError, "cannot compute SharedList as input #2(zero-based) was expected "
                      "to be a float tensor but is a int32 tensor"),
        },
    ),
    "type list not allowed": (
        SHARED_LIST,
        ([f32, boolean], [f32, boolean]),
        {
            "graph": None,
            "wrapper": (TypeError, "Value passed to parameter 'a' has DataType bool not in list of allowed values: "
                        "float32, int32"),
            "eager": None,
        },
    ),
    "empty list without a type": (
        EMPTY,
        ([],),
        {
            "graph": None,
            "wrapper": (TypeError, "Don't know how to infer type variable from empty input list passed to input "
                        "'a' of 'Empty' Op."),
            "eager": (TypeError, "Don't know how to infer type variable from empty input list passed to an input "
                      "of 'Empty' Op."),
        },
    ),
}  # fmt: skip


@pytest.mark.parametrize("dialect_name", ["wrapper", "eager"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_each_dialect_reports_each_rule_in_its_words(case, dialect_name):
    definition, args, expected = CASES[case]
    dialect = {"wrapper": ai.WRAPPER, "eager": ai.EAGER}[dialect_name]
    outcome = expected[dialect_name]
    if outcome is None:
        infer(definition, dialect, *args)
        return
    cls, text = outcome
    with pytest.raises(cls) as info:
        infer(definition, dialect, *args)
    message = info.value.message if isinstance(info.value, errors.OpError) else str(info.value)
    assert message == text


def test_eager_empty_list_with_an_explicit_type_is_resolved():
    infer(EMPTY, ai.EAGER, [], explicit={"T": i32})


# Graph construction (NodeDefBuilder): flat inputs split by the sizes known so far; conflicts name the NodeDef.
@pytest.fixture
def g():
    graph = Graph()
    with graph.as_default():
        yield graph


def placeholder(dtype, name):
    return apply_op_outputs("Placeholder", dtype=dtype, name=name)


def test_graph_splits_flat_inputs_and_reports_conflicts(g):
    f, i = placeholder(f32, "f"), placeholder(i32, "i")
    op = g.create_op("ListThenN", [f, i, f, f, f], op_def=LIST_THEN_N, compute_shapes=False)
    assert [dtypes.as_dtype(t) for t in op.get_attr("A")] == [f32, i32, f32] and op.get_attr("N") == 1
    op = g.create_op("ListThenN", [f, i, f, f, f], attrs={"N": 2}, op_def=LIST_THEN_N, compute_shapes=False)
    assert [dtypes.as_dtype(t) for t in op.get_attr("A")] == [f32, i32] and op.get_attr("N") == 2
    op = g.create_op("SharedN", [i, i, f, f], attrs={"N": 2}, op_def=SHARED_N, compute_shapes=False)
    assert op.get_attr("T") == f32
    with pytest.raises(ValueError, match=r"^Input 'a' passed float expected int32 while building NodeDef 'SharedN_1' "
                       r"using Op<name=SharedN; signature=a:N\*int32, b:N\*T -> out:int32"):  # fmt: skip
        g.create_op("SharedN", [f, i, f, f], attrs={"N": 2}, op_def=SHARED_N, compute_shapes=False)
    with pytest.raises(ValueError, match=r"^Inconsistent values for attr 'T' DT_FLOAT vs. DT_INT32 while building "
                       r"NodeDef 'TwoT' using Op<name=TwoT"):  # fmt: skip
        g.create_op("TwoT", [f, i, i], op_def=TWO_T, compute_shapes=False)
    with pytest.raises(ValueError, match=r"^Inconsistent values for attr 'T' \[DT_FLOAT, DT_INT32\] vs. "
                       r"\[DT_INT32, DT_INT32\] while building NodeDef 'SharedList'"):  # fmt: skip
        g.create_op("SharedList", [f, i, i, i], attrs={"T": [f32, i32]}, op_def=SHARED_LIST, compute_shapes=False)


def test_graph_ref_args_bind_the_base_type(g):
    f = placeholder(f32, "f")
    ref = placeholder(f32, "r")
    ref._dtype = f32.as_ref  # a legacy ref tensor (v1 variables)
    op = g.create_op("RefOp", [ref, f], op_def=REF, compute_shapes=False)
    assert op.get_attr("T") == f32
    with pytest.raises(ValueError, match="incompatible with expected float_ref"):  # the NodeDef validation's text
        g.create_op("RefOp", [f, f], op_def=REF, compute_shapes=False)
