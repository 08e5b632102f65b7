"""Shape refiner: constant and partial-shape facts for shape functions, matched to TensorFlow 2.21.

``tests/golden/construction/partial_shapes.pbtxt`` holds TF's static shapes (``_output_shapes``)
for Reshape/Fill/Range fed by Shape, StridedSlice, Pack, ConcatV2, Cast, arithmetic, ... .
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from google.protobuf import text_format

import modtensor.ops  # noqa: F401  (registers the standard ops)
from modtensor.framework import dtypes, graph_io, shape_refiner
from modtensor.framework.graph import Graph
from modtensor.framework.importer import import_graph_def
from modtensor.framework.op_def_library import apply_op_outputs as op
from modtensor.framework.protos import graph_pb2
from modtensor.framework.tensor_shape import TensorShape

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "construction" / "partial_shapes.pbtxt"


def golden() -> graph_pb2.GraphDef:
    return text_format.Parse(GOLDEN.read_text(), graph_pb2.GraphDef())


def tf_shapes(node) -> list[list[int | None] | None]:
    return [
        None if s.unknown_rank else [None if d.size == -1 else d.size for d in s.dim]
        for s in node.attr["_output_shapes"].list.shape
    ]


def test_imported_graph_gets_tensorflows_static_shapes():
    graph_def = golden()
    stripped = graph_pb2.GraphDef()
    stripped.CopyFrom(graph_def)
    for node in stripped.node:
        del node.attr["_output_shapes"]
    g = Graph()
    with g.as_default():
        import_graph_def(stripped, name="")
    mismatches = []
    for node in graph_def.node:
        got = [
            t.shape.as_list() if t.shape.rank is not None else None for t in g.get_operation_by_name(node.name).outputs
        ]
        if got != tf_shapes(node):
            mismatches.append(f"{node.name} ({node.op}): modtensor {got}, TensorFlow {tf_shapes(node)}")
    assert mismatches == []


def build_partial_shapes_graph() -> Graph:
    """The construction of tools/make_golden_graph_construction.py:partial_shapes, with modtensor."""
    g = Graph()
    with g.as_default():
        x = op("Placeholder", dtype=dtypes.float32, shape=[None, 10, 64], name="x")
        y = op("Placeholder", dtype=dtypes.float32, shape=[2, 3], name="y")
        s = op("Shape", input=x, name="s")

        def dim(i, name):
            return op("StridedSlice", input=s, begin=[i], end=[i + 1], strides=[1], shrink_axis_mask=1, name=name)

        d0, d1 = dim(0, "d0"), dim(1, "d1")
        op("Reshape", tensor=x, shape=op("Pack", values=[d0, -1, 8, 8], name="p1"), name="r_pack_unknown_batch")
        op("Reshape", tensor=x, shape=op("Pack", values=[d0, d1, 8, 8], name="p2"), name="r_pack_known_dim")
        tail = op("StridedSlice", input=s, begin=[1], end=[0], strides=[1], end_mask=1, name="tail")
        op("Fill", dims=tail, value=1.0, name="fill_tail")
        head = op("StridedSlice", input=s, begin=[0], end=[-1], strides=[1], name="head")
        op("Reshape", tensor=x, shape=op("ConcatV2", values=[head, [8, 8]], axis=0, name="c1"), name="r_concat")
        op("Range", start=0, limit=d1, delta=1, name="range_d1")
        d1x2 = op("Mul", x=d1, y=2, name="d1x2")
        op("Reshape", tensor=x, shape=op("Pack", values=[d1x2, -1], name="p3"), name="r_mul")
        d0xd1 = op("Mul", x=d0, y=d1, name="d0xd1")
        op("Reshape", tensor=x, shape=op("Pack", values=[d0xd1, 64], name="p4"), name="r_mul_unknown")
        prod = op("Prod", input=tail, reduction_indices=[0], name="prod_tail")
        op("Reshape", tensor=x, shape=op("Pack", values=[-1, prod], name="p5"), name="r_prod")
        op("Fill", dims=op("Cast", x=tail, DstT=dtypes.int64, name="tail64"), value=1.0, name="fill_cast")
        op("Fill", dims=op("ExpandDims", input=d1, dim=0, name="d1_vec"), value=1.0, name="fill_expand")
        sy = op("Shape", input=y, name="sy")
        op("Reshape", tensor=y, shape=op("AddV2", x=sy, y=[0, 0], name="sy_plus0"), name="r_add_const")
        sy_rev = op("GatherV2", params=sy, indices=[1, 0], axis=0, name="sy_rev")
        op("Fill", dims=sy_rev, value=1, name="fill_gather")
        size_rank = op(
            "Pack", values=[op("Size", input=y, name="size_y"), op("Rank", input=x, name="rank_x")], name="p6"
        )
        op("Fill", dims=size_rank, value=1, name="fill_size_rank")
        p7 = op("Identity", input=op("Pack", values=[d0, 10, 8, 8], name="p7"), name="p7_id")
        op("Reshape", tensor=x, shape=p7, name="r_identity")
        p8 = op("Cast", x=op("Pack", values=[d0, 10, 8, 8], name="p8"), DstT=dtypes.int64, name="p8_64")
        op("Reshape", tensor=x, shape=p8, name="r_cast")
        q = op("Placeholder", dtype=dtypes.int32, shape=[], name="q")
        op("Reshape", tensor=x, shape=op("Pack", values=[q, 10, 64], name="p9"), name="r_placeholder_dim")
        u = op("Placeholder", dtype=dtypes.int32, name="u")
        op("Fill", dims=op("ConcatV2", values=[u, [3]], axis=0, name="c2"), value=1.0, name="fill_unknown_rank")
        v = op("Placeholder", dtype=dtypes.int32, shape=[2], name="v")
        op("Fill", dims=op("ConcatV2", values=[v, [3]], axis=0, name="c3"), value=1.0, name="fill_vector_placeholder")
    return g


def test_built_graph_equals_tensorflows_graph_def_with_shapes():
    graph_def = build_partial_shapes_graph().as_graph_def(add_shapes=True)
    assert graph_io.graph_def_diff(graph_def, golden()) == []


def test_constant_values_of_shape_computations():
    g = Graph()
    with g.as_default():
        x = op("Placeholder", dtype=dtypes.float32, shape=[None, 10, 64], name="x")
        y = op("Placeholder", dtype=dtypes.float32, shape=[2, 3], name="y")
        s = op("Shape", input=x)
        assert shape_refiner.constant_value(s) is None  # not fully known
        assert shape_refiner.constant_value(op("Rank", input=x)).tolist() == 3
        assert shape_refiner.constant_value(op("Size", input=x)) is None
        d2 = op("StridedSlice", input=s, begin=[-1], end=[0], strides=[1], shrink_axis_mask=1)
        assert shape_refiner.constant_value(d2).tolist() == 64  # Shape(x)[-1] with that dim known
        sy = op("Shape", input=y, out_type=dtypes.int64)
        value = shape_refiner.constant_value(op("Prod", input=sy, reduction_indices=0))
        assert value.tolist() == 6 and value.dtype == np.int64
        div = op("FloorDiv", x=op("Size", input=y), y=0)
        assert shape_refiner.constant_value(div) is None  # int division by zero is not folded
        big = op("Fill", dims=[100, 100], value=1.0)
        assert shape_refiner.constant_value(big) is None  # larger than MAX_EVALUATED_ELEMENTS
        c = op("Const", value=np.zeros([100, 100], np.float32), dtype=dtypes.float32)
        assert shape_refiner.constant_value(c).shape == (100, 100)  # Consts are used up to MAX_CONST_ELEMENTS
        weights = op("Const", value=np.zeros([300, 300], np.float32), dtype=dtypes.float32)
        assert shape_refiner.constant_value(weights) is None  # weights are not parsed for shape inference


def test_partial_shapes():
    g = Graph()
    with g.as_default():
        x = op("Placeholder", dtype=dtypes.float32, shape=[None, 10, 64], name="x")
        s = op("Shape", input=x)
        assert shape_refiner.constant_partial_shape(s) == [None, 10, 64]
        assert shape_refiner.constant_partial_shape(op("StridedSlice", input=s, begin=[1], end=[3], strides=[1])) == [
            10,
            64,
        ]
        assert shape_refiner.constant_partial_shape(op("Pack", values=[-1, 3])) == [None, 3]  # -1: unknown
        assert shape_refiner.constant_partial_shape(x) is None  # float tensors are no shapes
        z = op("Placeholder", dtype=dtypes.float32, name="z")
        assert shape_refiner.constant_partial_shape(op("Shape", input=z)) is None  # unknown rank


def test_merge_shapes():
    assert shape_refiner.merge_shapes(TensorShape([None, 3]), TensorShape([2, None])).as_list() == [2, 3]
    assert shape_refiner.merge_shapes(TensorShape(None), TensorShape([1])).as_list() == [1]
    with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal, but are 1 and 2"):
        shape_refiner.merge_shapes(TensorShape([1]), TensorShape([2]))
