"""Ops defined in C: the OpDef lands in the one OpRegistry, the C shape function runs in the one shape inference."""

from __future__ import annotations

import numpy as np
import pytest

from modtensor.framework import dtypes, errors
from modtensor.framework.graph import Graph
from modtensor.framework.op_registry import global_registry
from modtensor.framework.shape_inference import InferenceContext, run_shape_fn

from .support import node

pytestmark = pytest.mark.usefixtures("api_plugin")


def infer(op: str, shapes: list, **attrs) -> list:
    nd = node(op, [f"in{i}" for i in range(len(shapes))], name="shaped", **attrs)
    registration = global_registry().get(op)
    ctx = InferenceContext(nd, registration.op_def, shapes)
    return [InferenceContext.debug_string(s) for s in run_shape_fn(registration, ctx)]


def test_c_op_definition_is_an_ordinary_op_def(api_plugin):
    registration = global_registry().get("MtApiInfo")
    op_def = registration.op_def
    assert [a.name for a in op_def.input_arg] == ["x", "scale"]
    assert (op_def.input_arg[0].number_attr, op_def.input_arg[0].type_attr) == ("N", "T")
    n_attr, t_attr = op_def.attr
    assert (n_attr.name, n_attr.has_minimum, n_attr.minimum) == ("N", True, 1)
    assert list(t_attr.allowed_values.list.type) == [dtypes.int32.as_datatype_enum, dtypes.float32.as_datatype_enum]
    assert registration.source == str(api_plugin)


@pytest.mark.parametrize(
    ("shape", "expected"),
    [
        ([2, 3, 5], "[2,3,10]"),  # WithRankAtLeast, Subshape(0, -1), Dim(-1), VectorFromSize, Concatenate
        ([4, None], "[4,3]"),  # an unknown last dimension: the shape function's own fallback
        ([7], "[14]"),
        (None, "?"),  # unknown rank: SetUnknownShape
    ],
)
def test_c_shape_function_runs_in_shape_inference(shape, expected):
    assert infer("MtApiReduce", [shape], T=(1, "type")) == [expected]


def test_c_shape_function_errors_read_like_tensorflows():
    with pytest.raises(errors.InvalidArgumentError) as info:
        infer("MtApiReduce", [[]], T=(1, "type"))
    message = info.value.message
    assert message.startswith("Shape must be at least rank 1 but is rank 0")
    assert "shape function of op 'MtApiReduce'" in message
    assert "for '{{node shaped}} = MtApiReduce[T=DT_FLOAT](in0)' with input shapes: []." in message
    with pytest.raises(errors.InvalidArgumentError, match="Shape must be at most rank 4 but is rank 5"):
        infer("MtApiReduce", [[1, 1, 1, 1, 1]], T=(1, "type"))
    with pytest.raises(errors.InvalidArgumentError, match="MtApiReduce: T must be float or double"):
        infer("MtApiReduce", [[3]], T=(3, "type"))  # TF_ShapeInferenceContext_GetAttrType


def test_with_rank_dim_out_of_range_and_set_output_out_of_range():
    assert infer("MtApiRank2", [[2, None]], T=(1, "type")) == ["[2,?]"]
    assert infer("MtApiRank2", [None], T=(1, "type")) == ["[?,?]"]
    with pytest.raises(errors.InvalidArgumentError, match="Shape must be rank 2 but is rank 1"):
        infer("MtApiRank2", [[3]], T=(1, "type"))


def test_graph_construction_uses_the_c_shape_function():
    g = Graph()
    with g.as_default():
        attrs = {"dtype": dtypes.float64, "shape": [6, 4]}
        x = g.create_op("Placeholder", [], [dtypes.float64], attrs=attrs).outputs[0]
        y = g.create_op("MtApiReduce", [x], [dtypes.float64], name="reduce").outputs[0]
    assert y.shape.as_list() == [6, 8]
    assert g.get_operation_by_name("reduce").get_attr("T") == dtypes.float64
    assert np.dtype(y.dtype.as_numpy_dtype) == np.float64
