"""Shared shape functions, checked against shapes and messages TensorFlow 2.21 gives in graph mode."""

from __future__ import annotations

import re

import numpy as np
import pytest

from modtensor.framework import common_shapes as cs
from modtensor.framework import errors
from modtensor.framework import node_def as node_def_lib
from modtensor.framework.op_def_builder import OpDefBuilder
from modtensor.framework.protos import attr_value_pb2, node_def_pb2, types_pb2
from modtensor.framework.shape_inference import InferenceContext, ShapeHandle, run_shape_fn

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


FORMAT = "attr data_format: {'NHWC', 'NCHW'} = 'NHWC'"
OPS = {
    "AddV2": _op("AddV2", "input x: T", "input y: T", "output z: T", "attr T: type"),
    "Relu": _op("Relu", "input features: T", "output activations: T", "attr T: type"),
    "IdentityN": _op("IdentityN", "input input: T", "output output: T", "attr T: list(type) >= 1"),
    "NoOp": _op("NoOp"),
    "Sum": _op(
        "Sum",
        "input input: T",
        "input reduction_indices: Tidx",
        "output output: T",
        "attr keep_dims: bool = false",
        "attr T: type",
        "attr Tidx: {int32, int64} = DT_INT32",
    ),
    "MatMul": _op(
        "MatMul",
        "input a: T",
        "input b: T",
        "output product: T",
        "attr transpose_a: bool = false",
        "attr transpose_b: bool = false",
        "attr T: type",
        "attr grad_a: bool = false",
        "attr grad_b: bool = false",
    ),
    "BiasAdd": _op("BiasAdd", "input value: T", "input bias: T", "output output: T", "attr T: type", FORMAT),
    "Conv2D": _op(
        "Conv2D",
        "input input: T",
        "input filter: T",
        "output output: T",
        "attr T: type",
        "attr strides: list(int)",
        "attr use_cudnn_on_gpu: bool = true",
        "attr padding: {'SAME', 'VALID', 'EXPLICIT'}",
        "attr explicit_paddings: list(int) = []",
        FORMAT,
        "attr dilations: list(int) = [1, 1, 1, 1]",
    ),
    "MaxPool": _op(
        "MaxPool",
        "input input: T",
        "output output: T",
        "attr T: type",
        "attr ksize: list(int) >= 4",
        "attr strides: list(int) >= 4",
        "attr padding: {'SAME', 'VALID', 'EXPLICIT'}",
        "attr explicit_paddings: list(int) = []",
        FORMAT,
    ),
    "AvgPool": _op(
        "AvgPool",
        "input value: T",
        "output output: T",
        "attr ksize: list(int) >= 4",
        "attr strides: list(int) >= 4",
        "attr padding: {'SAME', 'VALID'}",
        FORMAT,
        "attr T: type",
    ),
}


def make_ctx(op: str, name: str, inputs: list[str], shapes: list, tensors=(), **attrs) -> InferenceContext:
    op_def = OPS[op]
    nd = node_def_pb2.NodeDef(name=name, op=op, input=inputs)
    for key, value in attrs.items():
        if key == "T_list":
            nd.attr["T"].list.type.extend(types_pb2.DataType.Value(t) for t in value)
        else:
            nd.attr[key].CopyFrom(_attr(value))
    node_def_lib.add_default_attrs(nd, op_def)
    return IC(nd, op_def, shapes, tensors)


def infer(fn, op: str, shapes: list, tensors=(), **attrs) -> list:
    inputs = [f"in{i}" for i in range(len(shapes))]
    ctx = make_ctx(op, op, inputs, shapes, tensors, **attrs)
    return [dims(s) for s in run_shape_fn(fn, ctx)]


def dims(s: ShapeHandle):
    return None if s.dims is None else [d.value for d in s.dims]


def raises(message: str):
    return pytest.raises(errors.InvalidArgumentError, match="^" + re.escape(message) + "$")


# ------------------------------------------------------------------ simple ones


class TestSimple:
    def test_unchanged_shape_keeps_the_handle(self):
        ctx = make_ctx("Relu", "r", ["x"], [[2, None]], T="DT_FLOAT")
        cs.unchanged_shape(ctx)
        assert ctx.output(0) is ctx.input(0)

    def test_unchanged_with_rank(self):
        assert infer(cs.unchanged_shape_with_rank(2), "Relu", [[2, 3]], T="DT_FLOAT") == [[2, 3]]
        assert infer(cs.unchanged_shape_with_rank(2), "Relu", [None], T="DT_FLOAT") == [[None, None]]
        assert infer(cs.unchanged_shape_with_rank_at_least(2), "Relu", [[1, 2, 3]], T="DT_FLOAT") == [[1, 2, 3]]
        assert infer(cs.unchanged_shape_with_rank_at_least(2), "Relu", [None], T="DT_FLOAT") == [None]
        assert infer(cs.unchanged_shape_with_rank_at_most(2), "Relu", [[5]], T="DT_FLOAT") == [[5]]
        summary = "'{{node Relu}} = Relu[T=DT_FLOAT](in0)' with input shapes: [1,2,3]."
        with raises(f"Shape must be rank 2 but is rank 3 for {summary}"):
            infer(cs.unchanged_shape_with_rank(2), "Relu", [[1, 2, 3]], T="DT_FLOAT")
        with raises(f"Shape must be at least rank 4 but is rank 3 for {summary}"):
            infer(cs.unchanged_shape_with_rank_at_least(4), "Relu", [[1, 2, 3]], T="DT_FLOAT")
        with raises(f"Shape must be at most rank 2 but is rank 3 for {summary}"):
            infer(cs.unchanged_shape_with_rank_at_most(2), "Relu", [[1, 2, 3]], T="DT_FLOAT")

    def test_scalar_unknown_and_no_outputs(self):
        assert infer(cs.scalar_shape, "Relu", [[2, 3]], T="DT_FLOAT") == [[]]
        shapes = [[1], [2, 3]]
        assert infer(cs.unknown_shape, "IdentityN", shapes, T_list=["DT_FLOAT", "DT_INT32"]) == [None, None]
        assert infer(cs.no_outputs, "NoOp", []) == []


# -------------------------------------------------------------------- broadcast


def bcast(x, y, **kw):
    return dims(
        cs.broadcast_shapes(
            IC,
            IC.make_shape(x) if x is not None else IC.unknown_shape(),
            IC.make_shape(y) if y is not None else IC.unknown_shape(),
            **kw,
        )
    )


class TestBroadcast:
    @pytest.mark.parametrize(
        ("x", "y", "expected"),
        [
            ([2, 3], [2, 3], [2, 3]),
            ([2, 3], [3], [2, 3]),
            ([3], [2, 3], [2, 3]),
            ([2, 1], [1, 4], [2, 4]),
            ([], [5, 6], [5, 6]),
            ([1], [1], [1]),
            ([0], [1], [0]),
            ([2, 1, 3], [4, 1], [2, 4, 3]),
            ([None], [5], [5]),
            ([5], [None], [5]),
            ([1], [None], [None]),
            ([None], [1], [None]),
            ([None], [None], [None]),
            ([None, 3], [3], [None, 3]),
            # TF 2.21 graph mode: AddV2([?,3,1], [2,1,?,4]) -> (2, ?, 3, 4); AddV2([1], [?]) -> (?,)
            ([None, 3, 1], [2, 1, None, 4], [2, None, 3, 4]),
            (None, [2], None),
            ([2], None, None),
        ],
    )
    def test_shapes(self, x, y, expected):
        assert bcast(x, y) == expected

    def test_unknown_dim_identity(self):
        d, e = IC.unknown_dim(), IC.unknown_dim()
        # The same unknown dim on both sides: known equal, so the output keeps it.
        out = cs.broadcast_shapes(IC, IC.make_shape([d, 2]), IC.make_shape([d, 2]))
        assert out.dims[0] is d
        # Two different unknown dims: a new unknown dim, neither of them.
        out = cs.broadcast_shapes(IC, IC.make_shape([d]), IC.make_shape([e]))
        assert out.dims[0] is not d and out.dims[0] is not e and out.dims[0].value is None
        # 1 against unknown: the unknown dim itself; known > 1 against unknown: the known one.
        one, five = IC.make_dim(1), IC.make_dim(5)
        assert cs.broadcast_shapes(IC, IC.make_shape([one]), IC.make_shape([d])).dims[0] is d
        assert cs.broadcast_shapes(IC, IC.make_shape([d]), IC.make_shape([five])).dims[0] is five
        # A rank-extended side contributes 1: the other side's dim handle is kept.
        assert cs.broadcast_shapes(IC, IC.make_shape([d, 3]), IC.make_shape([3])).dims[0] is d

    def test_without_incompatible_shape_error(self):
        assert bcast([2, 3], [4], incompatible_shape_error=False) == []
        assert bcast([None], [5], incompatible_shape_error=False) is None
        assert bcast([0], [None], incompatible_shape_error=False) is None
        assert bcast([1], [None], incompatible_shape_error=False) == [None]
        assert bcast([0], [None]) == [None]

    def test_binary_op_messages(self):
        ctx = make_ctx("AddV2", "AddV2", ["x", "y"], [[2, 3], [4]], T="DT_FLOAT")
        # TF 2.21: tf.raw_ops.AddV2(x=placeholder([2,3]), y=placeholder([4]))
        with raises(
            "Dimensions must be equal, but are 3 and 4 for '{{node AddV2}} = AddV2[T=DT_FLOAT](x, y)' "
            "with input shapes: [2,3], [4]."
        ):
            run_shape_fn(cs.broadcast_binary_op_shape, ctx)
        ctx = make_ctx("AddV2", "AddV2", ["x", "y"], [[2, 3], [5, 2, 4]], T="DT_FLOAT")
        with raises(
            "Dimensions must be equal, but are 3 and 4 for '{{node AddV2}} = AddV2[T=DT_FLOAT](x, y)' "
            "with input shapes: [2,3], [5,2,4]."
        ):
            run_shape_fn(cs.broadcast_binary_op_shape, ctx)

    def test_binary_op(self):
        assert infer(cs.broadcast_binary_op_shape, "AddV2", [[2, 1], [3]], T="DT_FLOAT") == [[2, 3]]


# -------------------------------------------------------------------- reduction


def sum_shape(shape, axes, keep_dims=False, axes_shape=None):
    tensor = None if axes is None else np.asarray(axes, dtype=np.int32 if not hasattr(axes, "dtype") else axes.dtype)
    if axes_shape is None:
        axes_shape = list(tensor.shape) if tensor is not None else [None]
    return infer(cs.reduction_shape, "Sum", [shape, axes_shape], [None, tensor], T="DT_FLOAT", keep_dims=keep_dims)[0]


class TestReduction:
    def test_constant_axes(self):
        assert sum_shape([2, 3, 4], [1]) == [2, 4]
        assert sum_shape([2, 3, 4], 1) == [2, 4]
        assert sum_shape([2, 3, 4], [-1, 0]) == [3]
        assert sum_shape([2, 3, 4], [1, -1], keep_dims=True) == [2, 1, 1]  # TF 2.21: (2, 1, 1)
        assert sum_shape([2, 3, 4], [1, -2, 0]) == [4]  # duplicates count once
        assert sum_shape([2, 3, 4], np.zeros([0], np.int32)) == [2, 3, 4]
        assert sum_shape([2, 3, 4], np.array([0, 2], np.int64)) == [3]
        assert sum_shape([None, 3], [1]) == [None]

    def test_reduced_dims_and_kept_handles(self):
        ctx = make_ctx("Sum", "Sum", ["x", "i"], [[None, 3, 4], [1]], [None, np.array([1], np.int32)], T="DT_FLOAT")
        cs.reduction_shape(ctx)
        assert ctx.output(0).dims[0] is ctx.input(0).dims[0] and ctx.output(0).dims[1] is ctx.input(0).dims[2]

    def test_unknown_axes_or_input(self):
        assert sum_shape([2, 3], None, keep_dims=True) == [None, None]  # TF 2.21: (None, None)
        assert sum_shape([2, 3], None) is None
        assert sum_shape(None, [1], keep_dims=True) is None

    def test_messages(self):
        # TF 2.21: tf.reduce_sum(placeholder([2,3]), 5)
        with raises(
            "Invalid reduction dimension 5 for input with 2 dimensions. for '{{node Sum}} = "
            "Sum[T=DT_FLOAT, Tidx=DT_INT32, keep_dims=false](x, Sum/reduction_indices)' with input shapes: "
            "[2,3], [] and with computed input tensors: input[1] = <5>."
        ):
            ctx = make_ctx(
                "Sum", "Sum", ["x", "Sum/reduction_indices"], [[2, 3], []], [None, np.array(5, np.int32)], T="DT_FLOAT"
            )
            run_shape_fn(cs.reduction_shape, ctx)
        with raises(
            "Invalid reduction dimension -3 for input with 2 dimensions. for '{{node Sum}} = "
            "Sum[T=DT_FLOAT, Tidx=DT_INT32, keep_dims=false](x, Sum/reduction_indices)' with input shapes: "
            "[2,3], [2] and with computed input tensors: input[1] = <0 -3>."
        ):
            ctx = make_ctx(
                "Sum",
                "Sum",
                ["x", "Sum/reduction_indices"],
                [[2, 3], [2]],
                [None, np.array([0, -3], np.int32)],
                T="DT_FLOAT",
            )
            run_shape_fn(cs.reduction_shape, ctx)
        # TF 2.21: tf.raw_ops.Sum(input=placeholder([2,3]), axis=[[1]], keep_dims=True)
        with raises(
            "Shape must be at most rank 1 but is rank 2 for '{{node Sum}} = Sum[T=DT_FLOAT, Tidx=DT_INT32, "
            "keep_dims=true](x, Sum/reduction_indices)' with input shapes: [2,3], [1,1]."
        ):
            ctx = make_ctx("Sum", "Sum", ["x", "Sum/reduction_indices"], [[2, 3], [1, 1]], T="DT_FLOAT", keep_dims=True)
            run_shape_fn(cs.reduction_shape, ctx)

    def test_axes_dtype(self):
        with pytest.raises(errors.InvalidArgumentError, match="^reduction_indices can only be int32 or int64 for"):
            sum_shape([2, 3], np.array([1.0], np.float32))


# ------------------------------------------------------------- matmul, bias add


MATMUL = "'{{node MatMul}} = MatMul[T=DT_FLOAT, grad_a=false, grad_b=false, transpose_a=false, transpose_b=%s](a, b)'"


class TestMatMul:
    def run(self, a, b, **attrs):
        ctx = make_ctx("MatMul", "MatMul", ["a", "b"], [a, b], T="DT_FLOAT", **attrs)
        return [dims(s) for s in run_shape_fn(cs.matmul_shape, ctx)][0]

    def test_shapes(self):
        assert self.run([2, 3], [3, 4]) == [2, 4]
        assert self.run([3, 2], [5, 3], transpose_a=True, transpose_b=True) == [2, 5]  # TF 2.21: (2, 5)
        assert self.run([3, 2], [3, 4], transpose_a=True) == [2, 4]
        assert self.run([2, 3], [4, 3], transpose_b=True) == [2, 4]
        assert self.run(None, [3, 4]) == [None, 4]
        assert self.run([2, None], [None, None]) == [2, None]

    def test_messages(self):
        with raises(
            f"Dimensions must be equal, but are 3 and 4 for {MATMUL % 'false'} with input shapes: [2,3], [4,5]."
        ):
            self.run([2, 3], [4, 5])
        with raises(
            f"Dimensions must be equal, but are 2 and 3 for {MATMUL % 'true'} with input shapes: [3,2], [5,3]."
        ):
            self.run([3, 2], [5, 3], transpose_b=True)
        with raises(f"Shape must be rank 2 but is rank 3 for {MATMUL % 'false'} with input shapes: [2,3,4], [4,5]."):
            self.run([2, 3, 4], [4, 5])


class TestBiasAdd:
    def run(self, x, b, data_format="NHWC"):
        ctx = make_ctx("BiasAdd", "BiasAdd", ["x", "b"], [x, b], T="DT_FLOAT", data_format=data_format)
        return dims(run_shape_fn(cs.bias_add_shape, ctx)[0])

    def test_shapes(self):
        assert self.run([2, None], [4]) == [2, 4]
        assert self.run([2, 5, 3], [None]) == [2, 5, 3]
        assert self.run([2, None, 5, 6], [4], "NCHW") == [2, 4, 5, 6]  # TF 2.21: (2, 4, 5, 6)
        assert self.run(None, [4]) is None

    def test_messages(self):
        def summary(fmt):
            return f"'{{{{node BiasAdd}}}} = BiasAdd[T=DT_FLOAT, data_format=\"{fmt}\"](x, b)'"

        with raises(f"Dimensions must be equal, but are 3 and 4 for {summary('NHWC')} with input shapes: [2,3], [4]."):
            self.run([2, 3], [4])
        with raises(f"Shape must be at least rank 2 but is rank 1 for {summary('NHWC')} with input shapes: [2], [4]."):
            self.run([2], [4])
        with raises(
            f"Shape must be at least rank 3 but is rank 2 for {summary('NCHW')} with input shapes: [2,3], [3]."
        ):
            self.run([2, 3], [3], "NCHW")
        with raises(f"Shape must be rank 1 but is rank 2 for {summary('NHWC')} with input shapes: [2,4], [4,1]."):
            self.run([2, 4], [4, 1])


# ---------------------------------------------------------------- windowed ops


class TestWindowedOutputSize:
    @pytest.mark.parametrize(
        ("args", "expected"),
        [
            ((8, 3, 1, 1, "VALID"), 6),
            ((8, 3, 1, 2, "VALID"), 3),
            ((9, 3, 1, 2, "VALID"), 4),
            ((3, 3, 1, 1, "VALID"), 1),
            ((8, 3, 2, 1, "VALID"), 4),
            ((9, 3, 3, 1, "VALID"), 3),
            ((8, 3, 1, 2, "SAME"), 4),
            ((9, 3, 1, 3, "SAME"), 3),
            ((1, 5, 1, 2, "SAME"), 1),
            ((8, 3, 1, 2, b"SAME"), 4),
            ((8, 3, 1, 2, "EXPLICIT", 1, 2), 5),
            ((9, 3, 1, 1, "EXPLICIT", 3, 4), 14),
            ((8, 3, 1, 2, "VALID", 5, 5), 3),  # VALID ignores paddings
            ((None, 3, 1, 1, "VALID"), None),
            ((8, None, 1, 1, "VALID"), None),
            ((8, None, 1, 2, "SAME"), 4),
            ((None, 3, 1, 2, "SAME"), None),
        ],
    )
    def test_sizes(self, args, expected):
        assert cs.get_windowed_output_size(*args).value == expected

    def test_accepts_handles(self):
        d = IC.make_dim(8)
        assert cs.get_windowed_output_size(d, IC.make_dim(3), 1, 1, "VALID").value == 6
        assert cs.get_windowed_output_size(d, 1, 1, 1, "SAME") is d

    def test_errors(self):
        with raises("Negative dimension size caused by subtracting 5 from 3"):
            cs.get_windowed_output_size(3, 5, 1, 1, "VALID")
        with raises("Negative dimension size caused by subtracting 5 from 3"):
            cs.get_windowed_output_size(3, 3, 2, 1, "VALID")
        with raises("Stride must be > 0, but got 0"):
            cs.get_windowed_output_size(3, 1, 1, 0, "SAME")
        with raises("Dilation rate must be >= 1, but got 0"):
            cs.get_windowed_output_size(3, 1, 0, 1, "SAME")
        with raises("Invalid padding 'FULL'; expected one of 'VALID', 'SAME', 'EXPLICIT'"):
            cs.get_windowed_output_size(3, 1, 1, 1, "FULL")


def conv(x, w, strides=(1, 1, 1, 1), padding="VALID", **attrs):
    ctx = make_ctx(
        "Conv2D", "Conv2D", ["x", "w"], [x, w], T="DT_FLOAT", strides=list(strides), padding=padding, **attrs
    )
    return dims(run_shape_fn(cs.conv2d_shape, ctx)[0])


def conv_summary(strides="1, 1, 1, 1", padding="VALID", dilations="1, 1, 1, 1", explicit=""):
    return (
        f'\'{{{{node Conv2D}}}} = Conv2D[T=DT_FLOAT, data_format="NHWC", dilations=[{dilations}], '
        f'explicit_paddings=[{explicit}], padding="{padding}", strides=[{strides}], use_cudnn_on_gpu=true](x, w)\''
    )


class TestConv2D:
    def test_shapes(self):
        # Each expected shape is what TF 2.21 infers for the same tf.raw_ops.Conv2D call.
        assert conv([1, 8, 9, 4], [3, 3, 4, 5], [1, 2, 3, 1], "SAME") == [1, 4, 3, 5]
        assert conv([1, 8, 9, 4], [3, 3, 4, 5], [1, 2, 1, 1], dilations=[1, 2, 3, 1]) == [1, 2, 3, 5]
        explicit = [0, 0, 1, 2, 3, 4, 0, 0]
        assert conv([1, 8, 9, 4], [3, 3, 4, 5], [1, 2, 1, 1], "EXPLICIT", explicit_paddings=explicit) == [1, 5, 14, 5]
        assert conv([1, 4, 8, 9], [3, 3, 4, 5], [1, 1, 2, 1], data_format="NCHW") == [1, 5, 3, 7]
        assert conv([None, None, 8, 4], None, [1, 1, 2, 1]) == [None, None, None, None]
        assert conv(None, [3, 3, 4, 5], [1, 1, 2, 1], "SAME") == [None, None, None, 5]
        assert conv([1, 8, 8, 4], [3, 3, 2, 6]) == [1, 6, 6, 6]  # 2 groups

    def test_messages(self):
        shapes = " with input shapes: [1,8,8,4], [3,3,4,5]."
        cases = [
            (
                dict(x=[1, 8, 8, 3], w=[3, 3, 2, 4]),
                "Depth of input (3) is not a multiple of input depth of filter (2) for "
                + conv_summary()
                + " with input shapes: [1,8,8,3], [3,3,2,4].",
            ),
            (
                dict(x=[1, 8, 8, 4], w=[3, 3, 2, 5]),
                "Depth of output (5) is not a multiple of the number of groups (2) for "
                + conv_summary()
                + " with input shapes: [1,8,8,4], [3,3,2,5].",
            ),
            (
                dict(x=[1, 8, 8, 4], w=[3, 3, 4, 5], strides=[1, 1, 1]),
                "Conv2D on data format NHWC requires the stride attribute to contain 4 values, but got: 3 for "
                + conv_summary(strides="1, 1, 1")
                + shapes,
            ),
            (
                dict(x=[1, 8, 8, 4], w=[3, 3, 4, 5], dilations=[1, 2]),
                "Conv2D requires the dilation attribute to contain 4 values, but got: 2 for "
                + conv_summary(dilations="1, 2")
                + shapes,
            ),
            (
                dict(x=[8, 8, 4], w=[3, 3, 4, 5], padding="SAME"),
                "Shape must be rank 4 but is rank 3 for "
                + conv_summary(padding="SAME")
                + " with input shapes: [8,8,4], [3,3,4,5].",
            ),
            (
                dict(x=[1, 8, 8, 4], w=[3, 3, 4, 5], strides=[1, 0, 1, 1], padding="SAME"),
                "Stride must be > 0, but got 0 for " + conv_summary(strides="1, 0, 1, 1", padding="SAME") + shapes,
            ),
            (
                dict(x=[1, 8, 8, 4], w=[3, 3, 4, 5], dilations=[1, 0, 1, 1], padding="SAME"),
                "Dilation rate must be >= 1, but got 0 for "
                + conv_summary(dilations="1, 0, 1, 1", padding="SAME")
                + shapes,
            ),
            (
                dict(x=[1, 8, 8, 4], w=[3, 3, 0, 5], padding="SAME"),
                "Depth of filter must not be 0 for "
                + conv_summary(padding="SAME")
                + " with input shapes: [1,8,8,4], [3,3,0,5].",
            ),
            (
                dict(x=[1, 3, 3, 1], w=[5, 5, 1, 1]),
                "Negative dimension size caused by subtracting 5 from 3 for "
                + conv_summary()
                + " with input shapes: [1,3,3,1], [5,5,1,1].",
            ),
        ]
        for kwargs, message in cases:
            with raises(message):
                conv(**kwargs)

    def test_explicit_padding_messages(self):
        shapes = " with input shapes: [1,8,9,4], [3,3,4,5]."
        for paddings, padding, text in [
            ([0, 0, 1, 2, 3, 4], "EXPLICIT", "explicit_paddings attribute must contain 8 values, but got: 6"),
            ([0, 0, 1, -2, 3, 4, 0, 0], "EXPLICIT", "All elements of explicit_paddings must be nonnegative"),
            (
                [1, 0, 1, 2, 3, 4, 0, 0],
                "EXPLICIT",
                "Nonzero explicit padding in the batch or depth dimensions is not supported",
            ),
            (
                [0, 0, 1, 2, 3, 4, 0, 0],
                "SAME",
                "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT",
            ),
        ]:
            summary = conv_summary(strides="1, 2, 1, 1", padding=padding, explicit=", ".join(map(str, paddings)))
            with raises(f"{text} for {summary}{shapes}"):
                conv([1, 8, 9, 4], [3, 3, 4, 5], [1, 2, 1, 1], padding, explicit_paddings=paddings)


def pool(fn, op, x, ksize, strides, padding="VALID", **attrs):
    ctx = make_ctx(op, op, ["x"], [x], T="DT_FLOAT", ksize=ksize, strides=strides, padding=padding, **attrs)
    return dims(run_shape_fn(fn, ctx)[0])


class TestPool:
    def test_max_pool_shapes(self):
        # Each expected shape is what TF 2.21 infers for the same tf.raw_ops.MaxPool call.
        mp = cs.max_pool_shape
        assert pool(mp, "MaxPool", [1, 8, 9, 4], [1, 3, 2, 1], [1, 2, 2, 1]) == [1, 3, 4, 4]
        assert pool(mp, "MaxPool", [1, 8, 9, 4], [1, 3, 2, 1], [1, 2, 2, 1], "SAME") == [1, 4, 5, 4]
        assert pool(mp, "MaxPool", [1, 8, 9, 4], [1, 3, 2, 2], [1, 2, 2, 2]) == [1, 3, 4, 2]
        assert pool(mp, "MaxPool", [1, 4, 8, 9], [1, 1, 3, 2], [1, 1, 2, 2], data_format="NCHW") == [1, 4, 3, 4]
        assert pool(mp, "MaxPool", [4, 8, 9, 4], [2, 3, 2, 1], [2, 2, 2, 1]) == [4, 3, 4, 4]
        explicit = [0, 0, 1, 1, 2, 2, 0, 0]
        assert pool(
            mp, "MaxPool", [1, 8, 9, 4], [1, 3, 2, 1], [1, 2, 2, 1], "EXPLICIT", explicit_paddings=explicit
        ) == [
            1,
            4,
            6,
            4,
        ]
        assert pool(mp, "MaxPool", None, [1, 3, 2, 1], [1, 2, 2, 1]) == [None, None, None, None]

    def test_avg_pool_shapes(self):
        ap = cs.avg_pool_shape
        assert pool(ap, "AvgPool", [1, 8, 9, 4], [1, 3, 2, 1], [1, 2, 2, 1]) == [1, 3, 4, 4]
        assert pool(ap, "AvgPool", None, [1, 3, 2, 1], [1, 2, 2, 1]) == [None, None, None, None]

    def test_messages(self):
        # TF 2.21: tf.nn.max_pool2d(placeholder([1,3,3,1]), 5, 1, "VALID") named MaxPool here.
        with raises(
            "Negative dimension size caused by subtracting 5 from 3 for '{{node MaxPool}} = MaxPool[T=DT_FLOAT, "
            'data_format="NHWC", explicit_paddings=[], ksize=[1, 5, 5, 1], padding="VALID", strides=[1, 1, 1, 1]](x)\' '
            "with input shapes: [1,3,3,1]."
        ):
            pool(cs.max_pool_shape, "MaxPool", [1, 3, 3, 1], [1, 5, 5, 1], [1, 1, 1, 1])
        with raises(
            'Shape must be rank 4 but is rank 3 for \'{{node MaxPool}} = MaxPool[T=DT_FLOAT, data_format="NHWC", '
            'explicit_paddings=[], ksize=[1, 3, 2, 1], padding="VALID", strides=[1, 2, 2, 1]](x)\' '
            "with input shapes: [8,9,4]."
        ):
            pool(cs.max_pool_shape, "MaxPool", [8, 9, 4], [1, 3, 2, 1], [1, 2, 2, 1])
        with raises(
            "Negative dimension size caused by subtracting 3 from 2 for '{{node AvgPool}} = AvgPool[T=DT_FLOAT, "
            'data_format="NHWC", ksize=[1, 3, 2, 1], padding="VALID", strides=[1, 2, 2, 1]](x)\' '
            "with input shapes: [1,2,9,4]."
        ):
            pool(cs.avg_pool_shape, "AvgPool", [1, 2, 9, 4], [1, 3, 2, 1], [1, 2, 2, 1])

    def test_attr_length_messages(self):
        # Graph construction rejects these first in TF (list minimum 4); the shape fn checks them too.
        ctx = make_ctx(
            "MaxPool", "m", ["x"], [[1, 8, 9, 4]], T="DT_FLOAT", ksize=[1, 3, 2, 1], strides=[1, 2, 2], padding="VALID"
        )
        with pytest.raises(
            errors.InvalidArgumentError,
            match=r"^MaxPool requires the stride attribute to contain 4 values, but got: 3 for",
        ):
            run_shape_fn(cs.max_pool_shape, ctx)
        ctx = make_ctx(
            "AvgPool", "a", ["x"], [[1, 8, 9, 4]], T="DT_FLOAT", ksize=[1, 3], strides=[1, 2, 2, 1], padding="VALID"
        )
        with pytest.raises(
            errors.InvalidArgumentError,
            match=r"^AvgPool requires the ksize attribute to contain 4 values, but got: 2 for",
        ):
            run_shape_fn(cs.avg_pool_shape, ctx)
