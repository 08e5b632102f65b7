"""GraphProperties (static shapes, dtypes, constants; assume_valid_feeds) and the validator's findings."""

from __future__ import annotations

import numpy as np

from modtensor.framework import dtypes
from modtensor.grappler.graph_properties import GraphProperties
from modtensor.grappler.item import GrapplerItem
from modtensor.grappler.validation import validate

from .support import build, const, node, op, placeholder


def model() -> None:
    x = placeholder("x", [2, 3])
    r = op("Reshape", "r", tensor=x, shape=const([3, 2], "s", np.int32))
    op("Shape", "sh", input=r)
    op("Cast", "c", x=r, DstT="int32")


def test_shapes_dtypes_and_constants_are_inferred_with_valid_feeds() -> None:
    props = GraphProperties(GrapplerItem(build(model), feeds=("x:0",), fetches=("c:0",)))
    assert props.infer_statically(assume_valid_feeds=True)
    assert props.output_shape("r").as_list() == [3, 2]
    assert props.output_dtype("c") == dtypes.int32
    np.testing.assert_array_equal(props.constant_value("sh"), [3, 2])  # constant propagation through Shape
    assert props.output_shape("nope").rank is None


def test_without_assume_valid_feeds_a_fed_placeholder_is_unknown() -> None:
    props = GraphProperties(GrapplerItem(build(model), feeds=("x:0",), fetches=("c:0",)))
    assert props.infer_statically(assume_valid_feeds=False)
    assert props.output_shape("x").rank is None
    assert props.output_shape("r").as_list() == [3, 2]  # the Reshape's constant shape still gives it


def test_a_graph_that_cannot_be_imported_has_no_properties() -> None:
    graph_def = build(model)
    graph_def.node.add(name="bad", op="NoSuchOp")
    props = GraphProperties(GrapplerItem(graph_def))
    assert not props.infer_statically() and "NoSuchOp" in props.error
    assert props.output_shape("r").rank is None


def test_validation_accepts_a_good_graph_and_names_each_problem() -> None:
    graph_def = build(model)
    item = GrapplerItem(graph_def, fetches=("c:0",))
    assert validate(graph_def, item) == []

    missing = build(model)
    node(missing, "c").input[0] = "gone"
    assert validate(missing, item) == ["Node 'c' reads 'gone', which is not in the graph"]

    removed = build(model)
    del removed.node[-1]
    assert validate(removed, item) == ["Fetched or preserved node 'c' was removed"]

    mistyped = build(model)
    node(mistyped, "r").input[1] = "x"  # Reshape's shape must be int32
    assert "Node 'r' input 1 expects int32, 'x' is float32" in validate(mistyped, item)

    cyclic = build(model)
    node(cyclic, "r").input.append("^c")
    assert validate(cyclic, item) == ["The graph has a cycle"]
