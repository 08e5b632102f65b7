"""InferenceContext, shape/dimension handles and run_shape_fn.

Expected error texts were captured from TensorFlow 2.21 in graph mode (or read from
TF's shape_inference.cc where graph mode cannot reach the path).
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from modtensor.framework import errors
from modtensor.framework import node_def as node_def_lib
from modtensor.framework.op_def_builder import OpDefBuilder
from modtensor.framework.protos import attr_value_pb2, node_def_pb2, tensor_shape_pb2, types_pb2
from modtensor.framework.shape_inference import (
    DimensionHandle,
    InferenceContext,
    ShapeHandle,
    run_shape_fn,
    summarize_value,
)

IC = InferenceContext


def _attr(value: object) -> attr_value_pb2.AttrValue:
    if isinstance(value, bool):
        return attr_value_pb2.AttrValue(b=value)
    if isinstance(value, int):
        return attr_value_pb2.AttrValue(i=value)
    if isinstance(value, str) and value.startswith("DT_"):
        return attr_value_pb2.AttrValue(type=types_pb2.DataType.Value(value))
    if isinstance(value, str):
        return attr_value_pb2.AttrValue(s=value.encode())
    if isinstance(value, list):
        return attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue(i=value))
    raise TypeError(value)


def _op(name: str, *specs: str):
    builder = OpDefBuilder(name)
    for spec in specs:
        kind, _, text = spec.partition(" ")
        getattr(builder, kind)(text)
    return builder.finalize().op_def


MATMUL = _op(
    "MatMul",
    "input a: T",
    "input b: T",
    "output product: T",
    "attr transpose_a: bool = false",
    "attr transpose_b: bool = false",
    "attr T: {bfloat16, half, float, double, int32, int64}",
    "attr grad_a: bool = false",
    "attr grad_b: bool = false",
)
CONCAT = _op(
    "ConcatV2",
    "input values: N * T",
    "input axis: Tidx",
    "output output: T",
    "attr N: int >= 2",
    "attr T: type",
    "attr Tidx: {int32, int64} = DT_INT32",
)
RESHAPE = _op(
    "Reshape",
    "input tensor: T",
    "input shape: Tshape",
    "output output: T",
    "attr T: type",
    "attr Tshape: {int32, int64} = DT_INT32",
)
EXPAND = _op(
    "ExpandDims",
    "input input: T",
    "input dim: Tdim",
    "output output: T",
    "attr T: type",
    "attr Tdim: {int32, int64} = DT_INT32",
)
RANGE = _op(
    "Range",
    "input start: Tidx",
    "input limit: Tidx",
    "input delta: Tidx",
    "output output: Tidx",
    "attr Tidx: {bfloat16, half, float, double, int8, int16, int32, int64, uint16, uint32} = DT_INT32",
)
ONE_HOT = _op(
    "OneHot",
    "input indices: TI",
    "input depth: int32",
    "input on_value: T",
    "input off_value: T",
    "output output: T",
    "attr axis: int = -1",
    "attr T: type",
    "attr TI: {uint8, int8, int32, int64} = DT_INT64",
)
SPLIT = _op(
    "Split",
    "input split_dim: int32",
    "input value: T",
    "output output: num_split * T",
    "attr num_split: int >= 1",
    "attr T: type",
)


def _node(op_def, name: str, inputs: list[str], **attrs: object) -> node_def_pb2.NodeDef:
    nd = node_def_pb2.NodeDef(name=name, op=op_def.name, input=inputs)
    for key, value in attrs.items():
        nd.attr[key].CopyFrom(_attr(value))
    node_def_lib.add_default_attrs(nd, op_def)
    return nd


def matmul_ctx(*shapes, **kw) -> InferenceContext:
    nd = _node(MATMUL, "MatMul", ["a", "b"], T="DT_FLOAT")
    return IC(nd, MATMUL, list(shapes), **kw)


def ctx0() -> InferenceContext:
    return matmul_ctx([2, 3], [3, 4])


def raises(message: str):
    return pytest.raises(errors.InvalidArgumentError, match="^" + _escape(message) + "$")


def _escape(text: str) -> str:
    import re

    return re.escape(text)


def dims(s: ShapeHandle) -> list[int | None] | None:
    return None if s.dims is None else [d.value for d in s.dims]


# --------------------------------------------------------------------------- handles


class TestHandles:
    def test_dimension_handle_value_and_unknown(self):
        assert DimensionHandle(3).value == 3
        assert DimensionHandle(None).value is None
        assert DimensionHandle(-1).value is None
        assert DimensionHandle(np.int64(0)).value == 0
        assert repr(DimensionHandle(3)) == "DimensionHandle(3)"
        assert repr(DimensionHandle()) == "DimensionHandle(?)"

    def test_dimension_handle_rejects_negative_sizes(self):
        with raises("Dimension size must be non-negative or -1 (unknown), but is -2"):
            DimensionHandle(-2)

    def test_handles_are_immutable_and_copy_to_themselves(self):
        d = DimensionHandle(None)
        s = ShapeHandle([d, 2])
        with pytest.raises(AttributeError):
            d._value = 3
        with pytest.raises(AttributeError):
            s._dims = None
        assert copy.copy(d) is d and copy.deepcopy(s) is s

    def test_shape_handle(self):
        d = DimensionHandle(None)
        s = ShapeHandle([2, d, None])
        assert s.rank == 3 and s.dims[1] is d and dims(s) == [2, None, None]
        assert ShapeHandle(None).rank is None and ShapeHandle(None).dims is None
        assert ShapeHandle(()).rank == 0
        assert repr(s) == "ShapeHandle([2,?,?])"


# -------------------------------------------------------------------- construction


class FakeTensorShape:
    def __init__(self, dims):
        self._dims = dims

    @property
    def rank(self):
        return None if self._dims is None else len(self._dims)

    def as_list(self):
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)


class TestConstruction:
    def test_input_shape_forms(self):
        h = ShapeHandle([1, 2])
        proto = tensor_shape_pb2.TensorShapeProto(dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=-1)])
        proto.dim.add(size=4)
        ctx = matmul_ctx(h, proto)
        assert ctx.input(0) is h
        assert dims(ctx.input(1)) == [None, 4]
        ctx = matmul_ctx([None, -1], (2, np.int32(3)))
        assert dims(ctx.input(0)) == [None, None] and dims(ctx.input(1)) == [2, 3]
        ctx = matmul_ctx(None, tensor_shape_pb2.TensorShapeProto(unknown_rank=True))
        assert dims(ctx.input(0)) is None and dims(ctx.input(1)) is None
        ctx = matmul_ctx(FakeTensorShape([2, None]), FakeTensorShape(None))
        assert dims(ctx.input(0)) == [2, None] and dims(ctx.input(1)) is None

    def test_bad_input_shape_type(self):
        with pytest.raises(TypeError, match="Cannot use str"):
            matmul_ctx("2,3", [1])

    def test_wrong_number_of_inputs(self):
        with raises("Wrong number of inputs passed: 1 while 2 expected based on NodeDef of node 'MatMul'"):
            matmul_ctx([2, 3])

    def test_too_many_tensors(self):
        with pytest.raises(errors.InvalidArgumentError, match="pass at most one per input"):
            matmul_ctx([2, 3], [3, 4], input_tensors=[None, None, None])

    def test_tensors_become_numpy(self):
        ctx = matmul_ctx([2], [2], input_tensors=[[1, 2]])
        assert isinstance(ctx.input_tensor(0), np.ndarray)
        assert ctx.input_tensor(1) is None

    def test_without_op_def(self):
        ctx = IC(node_def_pb2.NodeDef(name="n", op="X"), None, [[1]])
        assert ctx.num_inputs() == 1 and ctx.num_outputs() == 0


# ------------------------------------------------------------------- node access


class TestNodeAccess:
    def test_names_and_counts(self):
        ctx = ctx0()
        assert ctx.node_name == "MatMul" and ctx.op_type == "MatMul"
        assert ctx.num_inputs() == 2 and ctx.num_outputs() == 1
        assert ctx.node_def.name == "MatMul" and ctx.op_def is MATMUL

    def test_list_args(self):
        nd = _node(CONCAT, "concat", ["x", "y", "z", "axis"], N=3, T="DT_FLOAT")
        ctx = IC(nd, CONCAT, [[1], [2], [3], []])
        assert ctx.num_inputs() == 4
        assert [dims(s) for s in ctx.inputs_for_arg("values")] == [[1], [2], [3]]
        assert [dims(s) for s in ctx.inputs_for_arg("axis")] == [[]]
        with raises("Unknown input name: nope"):
            ctx.inputs_for_arg("nope")

    def test_outputs(self):
        nd = _node(SPLIT, "split", ["d", "v"], num_split=3, T="DT_FLOAT")
        ctx = IC(nd, SPLIT, [[], [6]])
        assert ctx.num_outputs() == 3
        assert all(dims(s) is None for s in ctx.outputs())
        out = ctx.vector(2)
        ctx.set_output(1, out)
        assert ctx.output(1) is out
        ctx.set_output(0, [5, None])
        assert dims(ctx.output(0)) == [5, None]
        ctx.set_outputs_for_arg("output", [[1], [2], [3]])
        assert [dims(s) for s in ctx.outputs()] == [[1], [2], [3]]
        with raises("Must provide exactly 3 shapes."):
            ctx.set_outputs_for_arg("output", [[1]])
        with raises("Unknown output name: y"):
            ctx.set_outputs_for_arg("y", [])
        with pytest.raises(IndexError, match="output index 3 out of range for node 'split' with 3 outputs"):
            ctx.set_output(3, out)
        with pytest.raises(IndexError, match="input index 2 out of range"):
            ctx.input(2)

    def test_get_attr(self):
        nd = _node(MATMUL, "MatMul", ["a", "b"], T="DT_FLOAT", transpose_a=True)
        ctx = IC(nd, MATMUL, [[2, 3], [3, 4]])
        assert ctx.get_attr("transpose_a") is True
        assert ctx.get_attr("transpose_b") is False
        del nd.attr["grad_a"]  # missing from the node: the OpDef default applies
        assert ctx.get_attr("grad_a") is False
        with raises("No attr named 'keep_dims' in NodeDef:\n\t [[{{node MatMul}}]]"):
            ctx.get_attr("keep_dims")
        with raises("No attr named '_class' in NodeDef:"):  # internal attrs: no node, as in TF
            ctx.get_attr("_class")


# -------------------------------------------------------------------- constructors


class TestConstructors:
    def test_dims(self):
        d = IC.make_dim(3)
        assert d.value == 3 and IC.make_dim(d) is d
        assert IC.make_dim(-1).value is None and IC.make_dim(None).value is None
        assert IC.unknown_dim() is not IC.unknown_dim()

    def test_shapes(self):
        d = IC.unknown_dim()
        assert dims(IC.scalar()) == []
        v = IC.vector(d)
        assert v.dims[0] is d
        assert dims(IC.vector(3)) == [3]
        m = IC.matrix(2, d)
        assert dims(m) == [2, None] and m.dims[1] is d
        s = IC.make_shape([1, None, -1, d])
        assert dims(s) == [1, None, None, None] and s.dims[3] is d and s.dims[1] is not s.dims[2]
        assert IC.unknown_shape().dims is None
        r = IC.unknown_shape_of_rank(3)
        assert dims(r) == [None] * 3 and len({id(x) for x in r.dims}) == 3
        assert IC.unknown_shape_of_rank(None).dims is None and IC.unknown_shape_of_rank(-1).dims is None
        with raises("rank must not be negative, but is -3"):
            IC.unknown_shape_of_rank(-3)

    def test_make_shape_from_shape_proto(self):
        proto = tensor_shape_pb2.TensorShapeProto()
        proto.dim.add(size=2)
        proto.dim.add(size=-1)
        assert dims(IC.make_shape_from_shape_proto(proto)) == [2, None]
        assert dims(IC.make_shape_from_shape_proto(tensor_shape_pb2.TensorShapeProto())) == []
        assert IC.make_shape_from_shape_proto(tensor_shape_pb2.TensorShapeProto(unknown_rank=True)).dims is None
        bad = tensor_shape_pb2.TensorShapeProto(unknown_rank=True)
        bad.dim.add(size=1)
        with raises("An unknown shape must not have any dimensions set."):
            IC.make_shape_from_shape_proto(bad)
        proto.dim.add(size=-2)
        with raises("Shape [2,-1,-2] has dimensions with values below -1 (where -1 means unknown)"):
            IC.make_shape_from_shape_proto(proto)
        big = tensor_shape_pb2.TensorShapeProto()
        for _ in range(255):
            big.dim.add(size=1)
        with pytest.raises(errors.InvalidArgumentError, match="has too many dimensions$"):
            IC.make_shape_from_shape_proto(big)

    def test_make_shape_from_tensor_shape(self):
        assert dims(IC.make_shape_from_tensor_shape(FakeTensorShape([1, None]))) == [1, None]
        assert IC.make_shape_from_tensor_shape(FakeTensorShape(None)).dims is None
        assert dims(IC.make_shape_from_tensor_shape([3])) == [3]


def reshape_ctx(shape_of_shape, tensor=None, as_shape=None) -> InferenceContext:
    nd = _node(RESHAPE, "Reshape", ["x", "Reshape/shape"], T="DT_FLOAT")
    return IC(nd, RESHAPE, [[2, 3], shape_of_shape], [None, tensor], [None, as_shape])


class TestShapeFromShapeTensor:
    def test_constant(self):
        s = reshape_ctx([3], np.array([4, -1, 5], np.int32)).make_shape_from_shape_tensor(1)
        assert dims(s) == [4, None, 5]
        s = reshape_ctx([2], np.array([7, 0], np.int64)).make_shape_from_shape_tensor(1)
        assert dims(s) == [7, 0]
        s = reshape_ctx([0], np.zeros([0], np.int32)).make_shape_from_shape_tensor(1)
        assert dims(s) == []

    def test_partial_shape_is_preferred(self):
        known = ShapeHandle([None, 5])
        ctx = reshape_ctx([2], np.array([9, 9], np.int32), known)
        assert ctx.make_shape_from_shape_tensor(1) is known
        # A partial shape of unknown rank says nothing: the constant is used.
        ctx = reshape_ctx([2], np.array([9, 9], np.int32), ShapeHandle(None))
        assert dims(ctx.make_shape_from_shape_tensor(1)) == [9, 9]

    def test_only_static_shape_known(self):
        assert dims(reshape_ctx([3]).make_shape_from_shape_tensor(1)) == [None, None, None]
        assert reshape_ctx([None]).make_shape_from_shape_tensor(1).dims is None
        assert reshape_ctx(None).make_shape_from_shape_tensor(1).dims is None

    def test_errors(self):
        with raises("Shape must be rank 1 but is rank 2"):
            reshape_ctx([1, 2]).make_shape_from_shape_tensor(1)
        with raises("Input tensor must be int32 or int64, but was float"):
            reshape_ctx([2], np.array([2.0, 3.0], np.float32)).make_shape_from_shape_tensor(1)
        with raises("Invalid value in tensor used for shape: -2"):
            reshape_ctx([2], np.array([-2, 3], np.int32)).make_shape_from_shape_tensor(1)
        # The tensor disagreeing with the static shape of the input (a malformed graph).
        with raises("Input tensor must be rank 1, but was rank 2. Saw tensor shape [1,2]"):
            reshape_ctx([2], np.array([[1, 2]], np.int32)).make_shape_from_shape_tensor(1)

    def test_treat_scalar_as_unknown_shape(self):
        f = "make_shape_from_shape_tensor_treat_scalar_as_unknown_shape"
        assert getattr(reshape_ctx([], np.array(-1, np.int32)), f)(1).dims is None
        assert getattr(reshape_ctx([], np.array(-1, np.int64)), f)(1).dims is None
        with raises(
            "Received a shape scalar with unknown static value.  A static value of '-1' is required to represent "
            "an unknown shape."
        ):
            getattr(reshape_ctx([]), f)(1)  # TF 2.21 (golden: EmptyTensorList with a scalar placeholder shape)
        assert getattr(reshape_ctx(None), f)(1).dims is None
        assert dims(getattr(reshape_ctx([2], np.array([1, -1], np.int32)), f)(1)) == [1, None]
        assert dims(getattr(reshape_ctx([2]), f)(1)) == [None, None]
        with raises(  # TF 2.21's graph construction (golden: tests/golden/tensor_list, empty_bad_scalar_shape)
            "Received an invalid shape scalar with a static value that is not '-1': "
            "Tensor<type: int32 shape: [] values: 5>"
        ):
            getattr(reshape_ctx([], np.array(5, np.int32)), f)(1)
        with raises("Input tensor must be int32 or int64, but was double"):
            getattr(reshape_ctx([], np.array(-1.0)), f)(1)
        with raises("Shape must be at most rank 1 but is rank 2"):
            getattr(reshape_ctx([1, 1]), f)(1)


class TestDimForScalarInput:
    def ctx(self, depth, shape=()):
        nd = _node(
            ONE_HOT, "OneHot", ["x", "Const", "OneHot/on_value", "OneHot/off_value"], T="DT_FLOAT", TI="DT_INT32"
        )
        return IC(nd, ONE_HOT, [[2, 3], list(shape), [], []], [None, depth])

    def test_values(self):
        assert self.ctx(None).make_dim_for_scalar_input(1).value is None
        assert self.ctx(np.array(4, np.int32)).make_dim_for_scalar_input(1).value == 4
        assert self.ctx(np.array(0, np.int16)).make_dim_for_scalar_input(1).value == 0
        assert self.ctx(np.array(2**40, np.int64)).make_dim_for_scalar_input(1).value == 2**40

    def test_errors(self):
        with raises("Input must be scalar but has rank 1"):
            self.ctx(np.array([2, 3], np.int32), [2]).make_dim_for_scalar_input(1)
        with raises("Dimension size, given by scalar input 1, must be non-negative but is -2"):
            self.ctx(np.array(-2, np.int32)).make_dim_for_scalar_input(1)
        with raises("Scalar input must be int16, int32 or int64."):
            self.ctx(np.array(2.0, np.float32)).make_dim_for_scalar_input(1)


# ------------------------------------------------------------------------ queries


class TestQueries:
    def test_rank_and_values(self):
        s = IC.make_shape([2, None])
        assert IC.rank(s) == 2 and IC.rank_known(s)
        assert IC.rank(IC.unknown_shape()) is None and not IC.rank_known(IC.unknown_shape())
        assert IC.value(s.dims[0]) == 2 and IC.value(s.dims[1]) is None
        assert IC.value(7) == 7 and IC.value(-1) is None and IC.value(None) is None
        assert IC.value_known(s.dims[0]) and not IC.value_known(s.dims[1]) and IC.value_known(0)

    def test_dim(self):
        s = IC.make_shape([2, 3, 4])
        assert IC.dim(s, 0) is s.dims[0] and IC.dim(s, -1) is s.dims[2] and IC.dim(s, -3) is s.dims[0]
        u = IC.unknown_shape()
        assert IC.dim(u, 5).value is None and IC.dim(u, 0) is not IC.dim(u, 0)
        with raises("Dimension index 3 out of range for shape [2,3,4] of rank 3"):
            IC.dim(s, 3)
        with raises("Dimension index -4 out of range for shape [2,3,4] of rank 3"):
            IC.dim(s, -4)

    def test_num_elements(self):
        assert IC.num_elements(IC.make_shape([2, 3, 4])).value == 24
        assert IC.num_elements(IC.scalar()).value == 1
        assert IC.num_elements(IC.make_shape([2, None])).value is None
        assert IC.num_elements(IC.make_shape([None, 0])).value == 0
        assert IC.num_elements(IC.unknown_shape()).value is None

    def test_fully_defined(self):
        assert IC.fully_defined(IC.make_shape([2, 3])) and IC.fully_defined(IC.scalar())
        assert not IC.fully_defined(IC.make_shape([2, None]))
        assert not IC.fully_defined(IC.unknown_shape())

    def test_debug_string(self):
        assert IC.debug_string(IC.make_shape([2, None])) == "[2,?]"
        assert IC.debug_string(IC.unknown_shape()) == "?"
        assert IC.debug_string(IC.scalar()) == "[]"
        assert IC.debug_string(IC.make_dim(5)) == "5" and IC.debug_string(IC.unknown_dim()) == "?"


# ------------------------------------------------------------------------- checks


class TestChecks:
    def test_with_rank(self):
        s = IC.make_shape([2, 3])
        assert IC.with_rank(s, 2) is s
        r = IC.with_rank(IC.unknown_shape(), 3)
        assert dims(r) == [None] * 3
        with raises("Shape must be rank 2 but is rank 3"):
            IC.with_rank(IC.make_shape([1, 2, 3]), 2)
        with raises("Shape must be rank 1 but is rank 0"):
            IC.with_rank(IC.scalar(), 1)
        with raises("Rank cannot exceed std::numeric_limits<int32_t>::max()"):
            IC.with_rank(s, 2**31)

    def test_with_rank_at_least_and_most(self):
        s = IC.make_shape([2, 3])
        u = IC.unknown_shape()
        assert IC.with_rank_at_least(s, 2) is s and IC.with_rank_at_least(s, 0) is s
        assert IC.with_rank_at_least(u, 4) is u
        assert IC.with_rank_at_most(s, 2) is s and IC.with_rank_at_most(u, 0) is u
        with raises("Shape must be at least rank 3 but is rank 2"):
            IC.with_rank_at_least(s, 3)
        with raises("Shape must be at most rank 1 but is rank 2"):
            IC.with_rank_at_most(s, 1)

    def test_with_value(self):
        d = IC.make_dim(3)
        assert IC.with_value(d, 3) is d
        assert IC.with_value(IC.unknown_dim(), 4).value == 4
        with raises("Dimension must be 4 but is 3"):
            IC.with_value(d, 4)


# -------------------------------------------------------------------- combinators


class TestMerge:
    def test_merge_dim(self):
        k3, k3b, u, u2 = IC.make_dim(3), IC.make_dim(3), IC.unknown_dim(), IC.unknown_dim()
        assert IC.merge_dim(k3, u) is k3
        assert IC.merge_dim(u, k3) is k3
        assert IC.merge_dim(k3, k3b) is k3
        assert IC.merge_dim(u, u2) is u
        assert IC.merge_dim(u, u) is u
        with raises("Dimensions must be equal, but are 3 and 4"):
            IC.merge_dim(k3, IC.make_dim(4))

    def test_merge_shapes_returns_the_more_known_handle(self):
        a = IC.make_shape([2, None])
        b = IC.make_shape([2, 3])
        u = IC.unknown_shape()
        assert IC.merge(a, a) is a
        assert IC.merge(a, u) is a and IC.merge(u, a) is a
        assert IC.merge(a, b) is b and IC.merge(b, a) is b
        c = IC.make_shape([None, None])
        assert IC.merge(a, c) is a  # nothing new in c

    def test_merge_shapes_combines_dims(self):
        d0, d1 = IC.unknown_dim(), IC.unknown_dim()
        a = IC.make_shape([2, d1])
        b = IC.make_shape([d0, 3])
        m = IC.merge(a, b)
        assert dims(m) == [2, 3] and m.dims[0] is a.dims[0] and m.dims[1] is b.dims[1]

    def test_merge_keeps_shared_unknown_dims(self):
        d = IC.unknown_dim()
        a = IC.make_shape([d, 4])
        b = IC.make_shape([d, None])
        m = IC.merge(a, b)
        assert m is a and m.dims[0] is d

    def test_merge_errors(self):
        with raises("Shapes must be equal rank, but are 2 and 3"):
            IC.merge(IC.make_shape([2, 3]), IC.make_shape([2, 3, 4]))
        with raises("Dimension 1 in both shapes must be equal, but are 3 and 4. Shapes are [2,3] and [2,4]."):
            IC.merge(IC.make_shape([2, 3]), IC.make_shape([2, 4]))

    def test_merge_prefix(self):
        s = IC.make_shape([None, 3, 7])
        prefix = IC.make_shape([5, None])
        s_out, p_out = IC.merge_prefix(s, prefix)
        assert dims(s_out) == [5, 3, 7] and dims(p_out) == [5, 3]
        assert s_out.dims[0] is prefix.dims[0] and s_out.dims[1] is s.dims[1] and s_out.dims[2] is s.dims[2]
        u = IC.unknown_shape()
        assert IC.merge_prefix(u, prefix) == (u, prefix)
        assert IC.merge_prefix(s, u) == (s, u)
        with raises("Shape must be at least rank 2 but is rank 1"):
            IC.merge_prefix(IC.make_shape([1]), prefix)
        with raises("Dimensions must be equal, but are 3 and 4"):
            IC.merge_prefix(s, IC.make_shape([None, 4]))


class TestShapeSurgery:
    def test_concatenate(self):
        a, b = IC.make_shape([1, None]), IC.make_shape([3])
        c = IC.concatenate(a, b)
        assert dims(c) == [1, None, 3] and c.dims[1] is a.dims[1]
        assert IC.concatenate(a, IC.unknown_shape()).dims is None
        assert IC.concatenate(IC.unknown_shape(), b).dims is None
        assert dims(IC.concatenate(IC.scalar(), IC.scalar())) == []

    @pytest.mark.parametrize(
        ("start", "end", "stride", "expected"),
        [
            (0, None, 1, [0, 1, 2, 3, 4]),
            (1, None, 1, [1, 2, 3, 4]),
            (1, 3, 1, [1, 2]),
            (-2, None, 1, [3, 4]),
            (0, -1, 1, [0, 1, 2, 3]),
            (-3, -1, 1, [2, 3]),
            (2, 2, 1, []),
            (7, 9, 1, []),
            (0, 100, 1, [0, 1, 2, 3, 4]),
            (0, None, 2, [0, 2, 4]),
            (-1, -5, -1, [4, 3, 2, 1]),
            (5, 1, -2, [4, 2]),
            (3, 0, -1, [3, 2, 1]),
        ],
    )
    def test_subshape(self, start, end, stride, expected):
        s = IC.make_shape([10, 11, 12, 13, 14])
        out = IC.subshape(s, start, end, stride)
        assert dims(out) == [10 + i for i in expected]
        for d, i in zip(out.dims, expected, strict=True):
            assert d is s.dims[i]

    def test_subshape_whole_returns_same_handle(self):
        s = IC.make_shape([1, 2])
        assert IC.subshape(s, 0) is s and IC.subshape(s, 0, 5) is s
        u = IC.unknown_shape()
        assert IC.subshape(u, 0) is u
        assert IC.subshape(u, 1).dims is None and IC.subshape(u, 0, 2).dims is None

    def test_subshape_errors(self):
        s = IC.make_shape([1, 2, 3])
        with raises("Subshape start out of bounds: -4, for shape with rank 3"):
            IC.subshape(s, -4)
        with raises("Subshape end out of bounds: -5, for shape with rank 3"):
            IC.subshape(s, 0, -5)
        with raises(
            "Subshape must have computed start <= end, but is 2 and 1 "
            "(computed from start 2 and end -2 over shape with rank 3)"
        ):
            IC.subshape(s, 2, -2)
        with raises(
            "Subshape must have computed start >= end since stride is negative, but is 0 and 2 "
            "(computed from start 0 and end 2 over shape with rank 3 and stride-1)"
        ):
            IC.subshape(s, 0, 2, -1)
        with raises("Subshape stride must not be 0"):
            IC.subshape(s, 0, 2, 0)

    def test_replace_dim(self):
        s = IC.make_shape([1, 2, 3])
        d = IC.unknown_dim()
        r = IC.replace_dim(s, -1, d)
        assert r.dims[2] is d and r.dims[0] is s.dims[0] and dims(s) == [1, 2, 3]
        assert dims(IC.replace_dim(s, 0, 7)) == [7, 2, 3]
        assert IC.replace_dim(IC.unknown_shape(), 0, d).dims is None
        with raises("Out of range dim_index 3 for shape with 3 dimensions"):
            IC.replace_dim(s, 3, d)
        with raises("Out of range dim_index -4 for shape with 3 dimensions"):
            IC.replace_dim(s, -4, d)


class TestArithmetic:
    def test_add(self):
        d5, u = IC.make_dim(5), IC.unknown_dim()
        assert IC.add(d5, 0) is d5
        assert IC.add(IC.make_dim(0), u) is u
        assert IC.add(d5, 3).value == 8 and IC.add(d5, IC.make_dim(2)).value == 7
        assert IC.add(u, 3).value is None and IC.add(d5, u).value is None and IC.add(d5, -1).value is None
        with raises(f"Dimension size overflow from adding {2**62} and {2**62}"):
            IC.add(IC.make_dim(2**62), 2**62)

    def test_subtract(self):
        d5, u = IC.make_dim(5), IC.unknown_dim()
        assert IC.subtract(d5, 0) is d5 and IC.subtract(u, 0) is u
        assert IC.subtract(d5, 2).value == 3 and IC.subtract(d5, 5).value == 0
        assert IC.subtract(u, 2).value is None and IC.subtract(d5, u).value is None
        with raises("Negative dimension size caused by subtracting 6 from 5"):
            IC.subtract(d5, 6)

    def test_multiply(self):
        d5, u, zero, one = IC.make_dim(5), IC.unknown_dim(), IC.make_dim(0), IC.make_dim(1)
        assert IC.multiply(zero, u) is zero
        assert IC.multiply(u, 0).value == 0
        assert IC.multiply(one, u) is u and IC.multiply(u, 1) is u and IC.multiply(d5, one) is d5
        assert IC.multiply(d5, 3).value == 15
        assert IC.multiply(d5, u).value is None
        with raises(f"Negative dimension size caused by overflow when multiplying {2**32} and {2**32}"):
            IC.multiply(IC.make_dim(2**32), 2**32)

    def test_divide(self):
        d6, u = IC.make_dim(6), IC.unknown_dim()
        assert IC.divide(u, 1, True) is u and IC.divide(d6, 1, True) is d6
        assert IC.divide(d6, 3, True).value == 2 and IC.divide(IC.make_dim(7), 2, False).value == 3
        assert IC.divide(u, 2, True).value is None and IC.divide(d6, IC.unknown_dim(), True).value is None
        with raises("Dimension size must be evenly divisible by 4 but is 6"):
            IC.divide(d6, 4, True)
        with raises("Divisor must be positive but is 0"):
            IC.divide(d6, 0, False)

    def test_min_max(self):
        d2, d5, u, zero = IC.make_dim(2), IC.make_dim(5), IC.unknown_dim(), IC.make_dim(0)
        assert IC.min(d2, d5) is d2 and IC.min(d5, d2) is d2 and IC.min(d5, 3).value == 3
        assert IC.min(zero, u) is zero and IC.min(u, 0).value == 0 and IC.min(u, d5).value is None
        assert IC.max(d2, d5) is d5 and IC.max(d5, d2) is d5 and IC.max(d2, 9).value == 9
        assert IC.max(zero, u).value is None


class TestConversions:
    def test_to_shape_proto(self):
        p = IC.to_shape_proto(IC.make_shape([2, None]))
        assert [d.size for d in p.dim] == [2, -1] and not p.unknown_rank
        assert IC.to_shape_proto(IC.unknown_shape()).unknown_rank
        assert len(IC.to_shape_proto(IC.scalar()).dim) == 0
        assert dims(IC.make_shape_from_shape_proto(p)) == [2, None]

    def test_to_tensor_shape(self):
        tensor_shape = pytest.importorskip("modtensor.framework.tensor_shape")
        ts = IC.to_tensor_shape(IC.make_shape([2, None]))
        assert isinstance(ts, tensor_shape.TensorShape) and ts.as_list() == [2, None]
        assert IC.to_tensor_shape(IC.unknown_shape()).rank is None
        assert dims(IC.make_shape_from_tensor_shape(ts)) == [2, None]


# ------------------------------------------------------------------ run_shape_fn


def _matmul_fn(ctx: InferenceContext) -> None:
    a = ctx.with_rank(ctx.input(0), 2)
    b = ctx.with_rank(ctx.input(1), 2)
    ctx.merge_dim(ctx.dim(a, 1), ctx.dim(b, 0))
    ctx.set_output(0, ctx.matrix(ctx.dim(a, 0), ctx.dim(b, 1)))


MATMUL_SUMMARY = (
    "'{{node MatMul}} = MatMul[T=DT_FLOAT, grad_a=false, grad_b=false, transpose_a=false, transpose_b=false](a, b)'"
)


class TestRunShapeFn:
    def test_success_returns_outputs(self):
        ctx = matmul_ctx([2, 3], [3, None])
        out = run_shape_fn(_matmul_fn, ctx)
        assert [dims(s) for s in out] == [[2, None]] and out[0] is ctx.output(0)

    def test_tf_messages(self):
        # TF 2.21: tf.raw_ops.MatMul(a=placeholder([2,3]), b=placeholder([4,5]))
        with raises(f"Dimensions must be equal, but are 3 and 4 for {MATMUL_SUMMARY} with input shapes: [2,3], [4,5]."):
            run_shape_fn(_matmul_fn, matmul_ctx([2, 3], [4, 5]))
        with raises(f"Shape must be rank 2 but is rank 3 for {MATMUL_SUMMARY} with input shapes: [2,3,4], [4,5]."):
            run_shape_fn(_matmul_fn, matmul_ctx([2, 3, 4], [4, 5]))
        with raises(f"Shape must be rank 2 but is rank 3 for {MATMUL_SUMMARY} with input shapes: ?, [?,5,3]."):
            run_shape_fn(_matmul_fn, matmul_ctx(None, [None, 5, 3]))

    def test_error_keeps_node_def_and_cause(self):
        ctx = matmul_ctx([2, 3], [4, 5])
        with pytest.raises(errors.InvalidArgumentError) as info:
            run_shape_fn(_matmul_fn, ctx)
        assert info.value.node_def is ctx.node_def
        assert str(info.value.__cause__) == "Dimensions must be equal, but are 3 and 4"

    def test_value_error_becomes_invalid_argument(self):
        def fn(ctx):
            raise ValueError("bad thing")

        with raises(f"bad thing for {MATMUL_SUMMARY} with input shapes: [1], [2]."):
            run_shape_fn(fn, matmul_ctx([1], [2]))

    def test_other_op_errors_keep_their_class(self):
        def fn(ctx):
            raise errors.UnimplementedError(None, None, "not yet")

        with pytest.raises(errors.UnimplementedError, match=r"^not yet for '.*' with input shapes: \[1\], \[2\]\.$"):
            run_shape_fn(fn, matmul_ctx([1], [2]))

    def test_bugs_are_not_wrapped(self):
        def fn(ctx):
            raise KeyError("oops")

        with pytest.raises(KeyError):
            run_shape_fn(fn, matmul_ctx([1], [2]))

    def test_no_shape_fn_leaves_outputs_unknown(self):
        ctx = matmul_ctx([2, 3], [3, 4])
        ctx.set_output(0, ctx.scalar())
        assert [dims(s) for s in run_shape_fn(None, ctx)] == [None]

    def test_registration_object(self):
        class Registration:
            op_def = MATMUL
            shape_fn = staticmethod(_matmul_fn)

        assert dims(run_shape_fn(Registration(), matmul_ctx([2, 3], [3, 4]))[0]) == [2, 4]
        Registration.shape_fn = None
        assert dims(run_shape_fn(Registration(), matmul_ctx([2, 3], [3, 4]))[0]) is None

    def test_computed_tensors_only_when_requested(self):
        nd = _node(
            ONE_HOT, "OneHot", ["x", "Const", "OneHot/on_value", "OneHot/off_value"], T="DT_FLOAT", TI="DT_INT32"
        )

        def fn(ctx):
            ctx.make_dim_for_scalar_input(1)

        def fn_without_request(ctx):
            raise errors.InvalidArgumentError(None, None, "boom")

        ctx = IC(nd, ONE_HOT, [[2, 3], [2], [], []], [None, np.array([2, 3], np.int32), np.float32(1), None])
        # TF 2.21: tf.raw_ops.OneHot(indices=x, depth=tf.constant([2, 3]), on_value=1.0, off_value=0.0)
        with raises(
            "Input must be scalar but has rank 1 for '{{node OneHot}} = OneHot[T=DT_FLOAT, TI=DT_INT32, axis=-1]"
            "(x, Const, OneHot/on_value, OneHot/off_value)' with input shapes: [2,3], [2], [], [] "
            "and with computed input tensors: input[1] = <2 3>."
        ):
            run_shape_fn(fn, ctx)
        ctx = IC(nd, ONE_HOT, [[2, 3], [2], [], []], [None, np.array([2, 3], np.int32)])
        with pytest.raises(errors.InvalidArgumentError, match=r"with input shapes: \[2,3\], \[2\], \[\], \[\]\.$"):
            run_shape_fn(fn_without_request, ctx)

    def test_partial_shapes(self):
        def fn(ctx):
            shape = ctx.make_shape_from_shape_tensor(1)
            raise errors.InvalidArgumentError(None, None, f"got {ctx.debug_string(shape)}")

        tail = " for '{{node Reshape}} = Reshape[T=DT_FLOAT, Tshape=DT_INT32](x, Reshape/shape)' with input shapes: "
        # From a constant (TF shows it as the partial shape its shape refiner computed).
        with raises(f"got [4,5]{tail}[2,3], [2] and with input tensors computed as partial shapes: input[1] = [4,5]."):
            run_shape_fn(fn, reshape_ctx([2], np.array([4, 5], np.int32)))
        # From a given partial shape (a Pack of a placeholder and 5).
        with raises(f"got [?,5]{tail}[2,3], [2] and with input tensors computed as partial shapes: input[1] = [?,5]."):
            run_shape_fn(fn, reshape_ctx([2], None, ShapeHandle([None, 5])))
        # From the static length of the input alone.
        with raises(f"got [?,?]{tail}[2,3], [2] and with input tensors computed as partial shapes: input[1] = [?,?]."):
            run_shape_fn(fn, reshape_ctx([2]))
        # Nothing known: nothing shown.
        with raises(f"got ?{tail}[2,3], [?]."):
            run_shape_fn(fn, reshape_ctx([None]))

    def test_tensors_and_partial_shapes_together(self):
        nd = _node(CONCAT, "c", ["a", "b", "s", "t", "axis"], N=4, T="DT_INT32")

        def fn(ctx):
            ctx.input_tensor(4)
            ctx.input_tensor(0)
            ctx.make_shape_from_shape_tensor(2)
            ctx.make_shape_from_shape_tensor(3)
            raise errors.InvalidArgumentError(None, None, "x")

        ctx = IC(
            nd,
            CONCAT,
            [[2], [2], [2], [1], []],
            [np.array([1, 2], np.int32), None, np.array([3, 4], np.int32), None, np.array(0, np.int32)],
            [None, None, None, ShapeHandle([7])],
        )
        with raises(
            "x for '{{node c}} = ConcatV2[N=4, T=DT_INT32, Tidx=DT_INT32](a, b, s, t, axis)' with input shapes: "
            "[2], [2], [2], [1], [] and with computed input tensors: input[0] = <1 2>, input[4] = <0> "
            "and with input tensors computed as partial shapes: input[2] = [3,4],input[3] = [7]."
        ):
            run_shape_fn(fn, ctx)

    def test_range_float_values(self):
        def fn(ctx):
            start, limit = ctx.input_tensor(0), ctx.input_tensor(1)
            ctx.input_tensor(2)
            raise errors.InvalidArgumentError(None, None, f"Requires start <= limit when delta > 0: {start}/{limit}")

        def run(tidx, dtype, values):
            nd = _node(RANGE, "range", ["Const", "Const_1", "Const_2"], Tidx=tidx)
            tensors = [np.array(v, dtype) for v in values]
            with pytest.raises(errors.InvalidArgumentError) as info:
                run_shape_fn(fn, IC(nd, RANGE, [[], [], []], tensors))
            return str(info.value).split("computed input tensors: ")[1]

        # TF 2.21: tf.range(tf.constant(0.1), tf.constant(-1e20), tf.constant(1/3)), and the same in float64.
        assert run("DT_FLOAT", np.float32, [0.1, -1e20, 1 / 3]) == (
            "input[0] = <0.1>, input[1] = <-1e+20>, input[2] = <0.333333343>."
        )
        assert run("DT_DOUBLE", np.float64, [0.1, -1e20, 1 / 3]) == (
            "input[0] = <0.1>, input[1] = <-1e+20>, input[2] = <0.33333333333333331>."
        )
        assert run("DT_DOUBLE", np.float64, [1e-5, -2.5e16, 123456789.0]) == (
            "input[0] = <1e-05>, input[1] = <-2.5e+16>, input[2] = <123456789>."
        )
        assert run("DT_HALF", np.float16, [0.1, -3.0, 1.0]) == (
            "input[0] = <0.0999755859>, input[1] = <-3>, input[2] = <1>."
        )


class TestSummarizeValue:
    """Tensor::SummarizeValue(256) as TF 2.21 prints computed input tensors (ExpandDims' dim input)."""

    def test_shapes(self):
        assert summarize_value(np.array(5)) == "5"
        assert summarize_value(np.array([2, 3])) == "2 3"
        assert summarize_value(np.array([[1, 2], [3, 4]])) == "[1 2][3 4]"
        assert summarize_value(np.arange(8).reshape(2, 2, 2)) == "[[0 1][2 3]][[4 5][6 7]]"
        assert summarize_value(np.zeros([0], np.int32)) == ""
        assert summarize_value(np.zeros([2, 0], np.int32)) == ""

    def test_truncation(self):
        assert summarize_value(np.arange(256)) == " ".join(map(str, range(256)))
        assert summarize_value(np.arange(257)) == " ".join(map(str, range(256))) + "..."
        rows = "".join("[" + " ".join(str(r * 10 + c) for c in range(10)) + "]" for r in range(25))
        assert summarize_value(np.arange(300).reshape(30, 10)) == rows + "[250 251 252 253 254 255...]..."
        text = summarize_value(np.arange(300).reshape(3, 10, 10))
        assert text.startswith("[[0 1 2 3 4 5 6 7 8 9][10 11") and text.endswith("[250 251 252 253 254 255...]]...")
        assert summarize_value(np.arange(4), max_values=2) == "0 1..."

    def test_element_types(self):
        assert summarize_value(np.array([True, False])) == "1 0"
        assert summarize_value(np.array([b"ab", b'c\n"'])) == 'ab c\\n\\"'
        assert summarize_value(np.array([np.nan, np.inf, -np.inf], np.float32)) == "nan inf -inf"
        assert summarize_value(np.array([-0.0, 1.5])) == "-0 1.5"
