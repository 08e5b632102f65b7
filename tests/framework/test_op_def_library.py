"""apply_op: keyword args -> nodes, with TensorFlow's attr inference, constant conversion and error texts.

Expected messages are TensorFlow 2.21's op_def_library texts (from ``tf.raw_ops`` calls in graph mode).
"""

from __future__ import annotations

import numpy as np
import pytest

import modtensor.ops  # noqa: F401  (registers the standard ops)
from modtensor.framework import dtypes, errors
from modtensor.framework.graph import Graph, Operation
from modtensor.framework.op_def_library import apply_op, apply_op_outputs, outputs_of
from modtensor.framework.tensor_proto import make_ndarray


@pytest.fixture
def g():
    graph = Graph()
    with graph.as_default():
        yield graph


@pytest.fixture
def x(g):
    return apply_op_outputs("Placeholder", dtype=dtypes.float32, shape=[2, 3], name="x")


@pytest.fixture
def q(g):
    return apply_op_outputs("Placeholder", dtype=dtypes.int32, shape=[], name="q")


def _const_value(t):
    assert t.op.type == "Const"
    return make_ndarray(t.op.get_attr("value"))


def test_apply_op_returns_the_operation_and_wrapper_outputs(g, x):
    op = apply_op("AddV2", x=x, y=x)
    assert isinstance(op, Operation) and op.name == "AddV2" and op.get_attr("T") == dtypes.float32
    assert outputs_of(op) is op.outputs[0]
    ident = apply_op_outputs("IdentityN", input=[x])
    assert isinstance(ident, list) and len(ident) == 1  # list outputs stay lists
    assert outputs_of(apply_op("NoOp")) is None


def test_python_values_become_consts_named_after_the_op_and_arg(g, x):
    y = apply_op_outputs("AddV2", x=x, y=1.5)
    const = y.op.inputs[1]
    assert const.op.name == "AddV2/y" and const.dtype == dtypes.float32 and _const_value(const) == 1.5
    both = apply_op_outputs("AddV2", x=1, y=2)
    assert [t.op.name for t in both.op.inputs] == ["AddV2_1/x", "AddV2_1/y"] and both.dtype == dtypes.int32
    packed = apply_op_outputs("Pack", values=[1, 2, 3])
    assert [t.op.name for t in packed.op.inputs] == ["Pack/values_0", "Pack/values_1", "Pack/values_2"]
    assert packed.op.get_attr("N") == 3 and packed.op.get_attr("axis") == 0
    z = apply_op_outputs("AddV2", x=x, y=np.array([1, 2, 3], dtype=np.int64))  # numpy ints fit float32
    assert z.op.inputs[1].dtype == dtypes.float32 and z.shape.as_list() == [2, 3]
    filled = apply_op_outputs("Fill", dims=[2, 3], value=1.0)
    assert [t.op.name for t in filled.op.inputs] == ["Fill/dims", "Fill/value"]
    assert filled.shape.as_list() == [2, 3]


def test_name_scope_and_explicit_names(g, x):
    with g.name_scope("s"):
        y = apply_op_outputs("AddV2", x=x, y=1.0, name="plus")
    assert y.op.name == "s/plus" and y.op.inputs[1].op.name == "s/plus/y"
    assert apply_op("AddV2", x=x, y=x, name="plus").name == "plus"
    assert apply_op("AddV2", x=x, y=x, name="plus").name == "plus_1"


def test_attrs_are_converted_and_defaulted(g, x):
    cast = apply_op_outputs("Cast", x=x, DstT=dtypes.int32)
    assert cast.dtype == dtypes.int32
    assert cast.op.get_attr("SrcT") == dtypes.float32 and cast.op.get_attr("Truncate") is False
    s = apply_op_outputs("Shape", input=x)
    assert s.op.get_attr("out_type") == dtypes.int32  # the type attr's default
    ph = apply_op_outputs("Placeholder", dtype=dtypes.float32, shape=[None, 2])
    assert [d.size for d in ph.op.get_attr("shape").dim] == [-1, 2]


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda x, q: apply_op("AddV2", x=x, y=q), TypeError,
         "Input 'y' of 'AddV2' Op has type int32 that does not match type float32 of argument 'x'."),
        (lambda x, q: apply_op("AddV2", x=q, y=1.5), TypeError,
         "Expected int32 passed to parameter 'y' of op 'AddV2', got 1.5 of type 'float' instead. "
         "Error: Expected int32, but got 1.5 of type 'float'."),
        (lambda x, q: apply_op("AddV2", x="a", y=x), TypeError,
         "Value passed to parameter 'x' has DataType string not in list of allowed values: bfloat16, float16, "
         "float32, float64, uint8, uint16, uint32, uint64, int8, int16, int32, int64, complex64, complex128"),
        (lambda x, q: apply_op("Conv2D", input=x, filter=x, strides=[1, 1, 1, 1], padding="FOO"), ValueError,
         "Attr 'padding' of 'Conv2D' Op passed string 'FOO' not in: \"SAME\", \"VALID\", \"EXPLICIT\"."),
        (lambda x, q: apply_op("Pack", values=[]), ValueError,
         "List argument 'values' to 'Pack' Op with length 0 shorter than minimum length 1."),
        (lambda x, q: apply_op("ConcatV2", values=[x, q], axis=0), TypeError,
         "Tensors in list passed to 'values' of 'ConcatV2' Op have types [float32, int32] that don't all match."),
        (lambda x, q: apply_op("ConcatV2", values=x, axis=0), TypeError,
         "Expected list for 'values' argument to 'ConcatV2' Op, not"),
        (lambda x, q: apply_op("AddV2", x=x, y=x, T=dtypes.float32), TypeError,
         "Should not specify value for inferred attr 'T' for AddV2."),
        (lambda x, q: apply_op("Cast", x=x), TypeError, "No argument found for attr DstT for Cast"),
        (lambda x, q: apply_op("AddV2", x=x), TypeError, "No argument for input y found in AddV2 Op"),
        (lambda x, q: apply_op("AddV2", x=x, y=x, bogus=1), TypeError, "AddV2 got unexpected keyword arguments: bogus"),
        (lambda x, q: apply_op("Sum", input=x, reduction_indices=[0, 1], keep_dims=3), TypeError,
         "Expected bool for argument 'keep_dims' not 3."),
        (lambda x, q: apply_op("Shape", input=x, out_type=dtypes.float32), TypeError,
         "Value passed to parameter 'out_type' has DataType float32 not in list of allowed values: int32, int64"),
        (lambda x, q: apply_op("MatMul", a=x, b=x), ValueError,
         "Dimensions must be equal, but are 3 and 2 for '{{node MatMul}} = MatMul["),
    ],
)  # fmt: skip
def test_errors_read_as_tensorflows(g, x, q, call, error, message):
    with pytest.raises(error) as info:
        call(x, q)
    assert str(info.value).startswith(message), str(info.value)


def test_unknown_op_names_the_op(g):
    with pytest.raises(errors.NotFoundError, match="Op type not registered 'NoSuchOp'"):
        apply_op("NoSuchOp", x=1)


def test_inputs_from_two_graphs_are_rejected(g, x):
    other = Graph()
    with other.as_default():
        y = apply_op_outputs("Placeholder", dtype=dtypes.float32, name="y")
    with pytest.raises(ValueError, match="must be from the same graph"):
        apply_op("AddV2", x=x, y=y)


def test_keyword_with_trailing_underscore_maps_to_the_arg(g, x):
    op = apply_op("Identity", input_=x)
    assert op.inputs == (x,)
