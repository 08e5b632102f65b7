"""The scaling shortcuts keep their answers: validation against the pass's input, fan-in-only properties, the index."""

from __future__ import annotations

import numpy as np

from modtensor.framework.protos import node_def_pb2
from modtensor.grappler.graph_properties import GraphProperties
from modtensor.grappler.graph_view import GraphIndex, GraphView, topological_order
from modtensor.grappler.item import GrapplerItem
from modtensor.grappler.optimizer import OptimizerContext, copy_graph
from modtensor.grappler.validation import validate

from .support import build, const, node, op, placeholder


def model() -> None:
    x = placeholder("x", [2, 3])
    r = op("Reshape", "r", tensor=x, shape=const([3, 2], "s", np.int32))
    op("Shape", "sh", input=r)
    c = op("Cast", "c", x=r, DstT="int32")
    op("Neg", "n", x=c)


def test_validation_against_the_input_finds_what_a_pass_broke() -> None:
    good = build(model)
    item = GrapplerItem(good, fetches=("n:0",))
    assert validate(copy_graph(good), item, previous=good) == []

    # A changed node is type-checked: Reshape's shape must be int32.
    mistyped = copy_graph(good)
    node(mistyped, "r").input[1] = "x"
    assert validate(mistyped, item, previous=good) == ["Node 'r' input 1 expects int32, 'x' is float32"]

    # An unchanged node reading a changed one is checked too: Neg of a float now (Cast -> float).
    retyped = copy_graph(good)
    node(retyped, "c").attr["DstT"].type = node(good, "x").attr["dtype"].type
    assert validate(retyped, item, previous=good) == ["Node 'n' input 0 expects int32, 'c' is float32"]

    # Readers of a removed node and new cycles are found whatever changed.
    removed = copy_graph(good)
    del removed.node[[n.name for n in removed.node].index("sh")]
    node(removed, "c").input.append("^sh")
    assert validate(removed, item, previous=good) == ["Node 'c' reads '^sh', which is not in the graph"]
    cycle = copy_graph(good)
    node(cycle, "r").input.append("^n")
    assert validate(cycle, item, previous=good) == ["The graph has a cycle"]


def test_cycle_checks_through_the_previous_numbering_agree_with_a_full_sort() -> None:
    good = build(model)
    item = GrapplerItem(good, fetches=("n:0",))
    context = OptimizerContext()
    cycle = copy_graph(good)
    node(cycle, "r").input.append("^n")
    assert validate(cycle, item, previous=good, context=context) == ["The graph has a cycle"]
    backwards = copy_graph(good)  # an edge against the previous numbering, still acyclic
    node(backwards, "x").input.append("^s")  # s comes after x in the previous order
    assert validate(backwards, item, previous=good, context=context) == []
    assert context.index(backwards).positions is not None
    new_const = copy_graph(backwards)  # a new input-less node read by a changed node
    new_const.node.add(name="extra", op="NoOp")
    node(new_const, "n").input.append("^extra")
    assert validate(new_const, item, previous=backwards, context=context) == []
    loop = copy_graph(new_const)
    node(loop, "extra").input.append("^n")
    assert validate(loop, item, previous=new_const, context=context) == ["The graph has a cycle"]


def test_properties_for_some_nodes_cover_their_fan_in_only() -> None:
    graph_def = build(model)
    graph_def.node.add(name="bad", op="NoSuchOp")  # outside the fan-in of 'r': does not spoil it
    props = GraphProperties(GrapplerItem(graph_def, fetches=("n:0",)))
    assert props.infer_statically(assume_valid_feeds=True, nodes={"r"})
    assert props.output_shape("r").as_list() == [3, 2]
    assert props.output_shape("x").as_list() == [2, 3]
    assert props.output_shape("n").rank is None  # not asked for
    assert props.covers({"r"}) and not props.covers({"n"}) and not props.covers(None)

    context = OptimizerContext()
    item = GrapplerItem(build(model), fetches=("n:0",))
    partial = context.properties(item, nodes={"r"})
    assert context.properties(item, nodes={"r"}) is partial
    whole = context.properties(item)
    assert whole is not partial and whole.output_shape("n").as_list() == [3, 2]
    assert context.properties(item, nodes={"c"}) is whole  # the whole graph covers any nodes


def test_views_built_from_a_shared_index_match_views_built_from_the_graph() -> None:
    graph_def = build(model)
    index = GraphIndex.of(graph_def)
    copy = copy_graph(graph_def)
    shared, direct = GraphView(copy, index), GraphView(copy)
    assert shared.nodes.keys() == direct.nodes.keys() and shared.consumers == direct.consumers
    assert shared.nodes["r"] is not node(graph_def, "r")  # the view holds the copy's nodes
    assert [n.name for n in topological_order(copy, index)] == [n.name for n in topological_order(copy)]


def test_unique_names_skip_taken_ones_in_order() -> None:
    view = GraphView(build(model))
    first = view.unique_name("r")
    view.add(node_def_pb2.NodeDef(name=first, op="NoOp"))
    assert first == "r_1" and view.unique_name("r") == "r_2" and view.unique_name("fresh") == "fresh"
