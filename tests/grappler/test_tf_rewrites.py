"""TensorFlow Grappler's rewrites the built-in passes make, each on a small graph: the graph after, same numbers.

Constant folding's shape materialization, multi-output folding, arithmetic simplifications on symbolic
shapes and MulConvPushDown; the pruner's trivial ops; the dependency optimizer's NoOp conversion,
Identity bypass and Const control edges; the arithmetic optimizer's AddOpsRewrite; CSE's canonical
operand order; symbolic shapes themselves.
"""

from __future__ import annotations

import numpy as np

from modtensor.framework.protos import graph_pb2
from modtensor.grappler.graph_properties import GraphProperties
from modtensor.grappler.graph_view import GraphView
from modtensor.grappler.item import GrapplerItem
from modtensor.grappler.passes.arithmetic_optimizer import ArithmeticOptimizer
from modtensor.grappler.passes.common_subgraph_elimination import CommonSubgraphElimination
from modtensor.grappler.passes.constant_folding import ConstantFolding
from modtensor.grappler.passes.dependency_optimizer import DependencyOptimizer
from modtensor.grappler.passes.model_pruner import ModelPruner
from modtensor.grappler.passes.shape_optimizer import ShapeOptimizer
from modtensor.grappler.symbolic_shapes import SymbolicShapes

from .support import apply_pass, build, const, node, op, ops, placeholder, same_numbers

RNG = np.random.default_rng(0)
X = RNG.standard_normal((5, 4)).astype(np.float32)


def _folded(before: graph_pb2.GraphDef, fetches: list[str]) -> graph_pb2.GraphDef:
    return apply_pass(ConstantFolding, before, fetches, feeds=("x:0",))


# ------------------------------------------------------------------ symbolic shapes


def test_symbolic_shapes_share_a_symbol_where_shape_functions_pass_a_dimension_on() -> None:
    def model():
        x = placeholder("x", [None, 4])
        e = op("Exp", "e", x=x)
        op("AddV2", "sum", x=e, y=op("ZerosLike", "z", x=e))
        op("Fill", "fill", dims=op("Shape", "shape", input=e), value=const(1.0, "one"))
        op("MatMul", "mm", a=x, b=const(np.ones((4, 3)), "w"))
        placeholder("other", [None, 4])

    graph_def = build(model)
    item = GrapplerItem(graph_def)
    props = GraphProperties(item)
    assert props.infer_statically(True)
    shapes = SymbolicShapes({n.name: n for n in graph_def.node}, props)
    batch = shapes.shape("x")[0]
    assert batch <= -2 and shapes.shape("x") == (batch, 4)
    assert shapes.shape("sum") == shapes.shape("e") == shapes.shape("fill") == (batch, 4)
    assert shapes.shape("mm") == (batch, 3)
    assert shapes.shape("other")[0] not in (batch, -1) and not shapes.equal("other", "x")
    proto = shapes.proto("mm")  # what plugins get from TF_InferStatically
    assert [d.size for d in proto.dim] == [batch, 3]


# ------------------------------------------------------------------ constant folding


def test_constant_folding_materializes_shapes_with_a_control_edge_and_folds_pack_unpack_chains() -> None:
    def model():
        x = placeholder("x", [None, 4])
        packed = op("Pack", "dims", values=[op("Rank", "rank", input=x), const(3, "three", np.int32)])
        rows = op("Unpack", "rows", value=op("Fill", "fill", dims=packed, value=const(0.25, "v")), num=2)
        op("Pack", "stack", values=rows)
        op("Size", "size", input=x)  # the batch is unknown: stays

    before = build(model)
    after = _folded(before, ["stack:0", "size:0"])
    stack = node(after, "stack")
    assert stack.op == "Const" and list(stack.input) == ["^x"]  # Rank(x) ran where x did
    assert {"rows", "fill", "dims"}.isdisjoint(ops(after)) and ops(after)["size"] == "Size"
    same_numbers(before, after, ["stack:0", "size:0"], {"x:0": X})


def test_constant_folding_gives_a_multi_output_node_one_const_per_output_read() -> None:
    def model():
        parts = op(
            "Split", "split", split_dim=const(0, "axis", np.int32), value=const(np.arange(6.0), "v"), num_split=3
        )
        x = placeholder("x", [2])
        op("AddV2", "a", x=x, y=parts[0])
        op("Mul", "b", x=x, y=parts[2])

    before = build(model)
    after = _folded(before, ["a:0", "b:0"])
    assert "split" not in ops(after)
    assert node(after, "a").input[1] == "ConstantFolding/split-folded-0"
    assert node(after, "b").input[1] == "ConstantFolding/split-folded-2"
    same_numbers(before, after, ["a:0", "b:0"], {"x:0": np.ones(2, np.float32)})


def test_constant_folding_x_times_zero_is_a_constant_but_a_random_x_still_runs() -> None:
    def model():
        noise = op("RandomUniform", "noise", shape=const([2, 3], "shape", np.int32), dtype="float32")
        scaled = op("Mul", "scaled", x=noise, y=const(0.0, "zero"))
        op("AddV2", "y", x=const(np.full((2, 3), 2.0), "c"), y=scaled)

    before = build(model)
    after = _folded(before, ["y:0"])
    y = node(after, "y")
    assert y.op == "Const" and "^noise" in y.input and ops(after)["noise"] == "RandomUniform"
    same_numbers(before, after, ["y:0"])


def test_constant_folding_forwards_x_for_neutral_operands_on_symbolic_shapes() -> None:
    def model():
        x = placeholder("x", [None, 4])
        e = op("Exp", "e", x=x)
        op("AddV2", "plus_zeros_like", x=e, y=op("ZerosLike", "z", x=e))
        op("Mul", "times_ones", x=op("OnesLike", "o", x=x), y=x)
        op("AddV2", "plus_row", x=x, y=const(np.zeros(4), "zero_row"))
        op("Sub", "neg", x=const(0.0, "zero"), y=x)
        op("RealDiv", "inv", x=const(1.0, "one"), y=e)
        op("AddV2", "grows", x=x, y=const(np.zeros((5, 4)), "zeros_5x4"))  # [?,4] + [5,4]: a BroadcastTo

    fetches = ["plus_zeros_like:0", "times_ones:0", "plus_row:0", "neg:0", "inv:0", "grows:0"]
    before = build(model)
    after = _folded(before, fetches)
    got = ops(after)
    assert got["plus_zeros_like"] == got["times_ones"] == got["plus_row"] == "Identity"
    assert list(node(after, "plus_zeros_like").input) == ["e", "^z"]
    assert got["neg"] == "Neg" and got["inv"] == "Reciprocal" and got["grows"] == "BroadcastTo"
    same_numbers(before, after, fetches, {"x:0": X})


def test_constant_folding_pushes_a_per_channel_mul_into_the_conv2d_filter() -> None:
    f = RNG.standard_normal((3, 3, 2, 4)).astype(np.float32)
    scale = np.array([0.5, -2.0, 1.5, 3.0], np.float32)

    def model():
        x = placeholder("x", [None, 6, 6, 2])
        conv = op("Conv2D", "conv", input=x, filter=const(f, "filter"), strides=[1, 1, 1, 1], padding="SAME")
        op("AddV2", "bn", x=op("Mul", "scaled", x=conv, y=const(scale, "scale")), y=const(np.ones(4), "offset"))
        other = op("Conv2D", "conv2", input=x, filter=const(f, "filter2"), strides=[1, 1, 1, 1], padding="SAME")
        op("Mul", "spatial", x=other, y=const(np.full((6, 1, 1), 2.0), "not_per_channel"))

    before = build(model)
    after = _folded(before, ["bn:0", "spatial:0"])
    scaled = node(after, "scaled")
    assert scaled.op == "Conv2D" and list(scaled.input) == ["x", "conv/merged_input"]
    assert ops(after)["conv/merged_input"] == "Const" and "conv" not in ops(after)
    assert ops(after)["spatial"] == "Mul"  # broadcasting over H: not a filter scale
    feeds = {"x:0": RNG.standard_normal((2, 6, 6, 2)).astype(np.float32)}
    same_numbers(before, after, ["bn:0", "spatial:0"], feeds, rtol=1e-5)


def test_constant_folding_turns_identity_like_ops_into_identities() -> None:
    def model():
        x = placeholder("x", [5, 4])
        op("Tile", "tile", input=x, multiples=const([1, 1], "ones", np.int32))
        op("Pad", "pad", input=x, paddings=const(np.zeros((2, 2)), "no_pad", np.int32))
        op("Reshape", "reshape", tensor=x, shape=const([-1, 4], "same_shape", np.int32))
        op("Transpose", "transpose", x=x, perm=const([0, 1], "perm", np.int32))
        op("Slice", "slice", input=x, begin=const([0, 0], "begin", np.int32), size=const([-1, 4], "all", np.int32))
        op("Squeeze", "squeeze", input=x)
        op("Split", "split", split_dim=const(1, "axis", np.int32), value=x, num_split=1)
        op("Tile", "real_tile", input=x, multiples=const([2, 1], "twice", np.int32))

    names = ["tile", "pad", "reshape", "transpose", "slice", "squeeze", "split", "real_tile"]
    before = build(model)
    after = _folded(before, [n + ":0" for n in names])
    assert {n: ops(after)[n] for n in names} == {**dict.fromkeys(names[:-1], "Identity"), "real_tile": "Tile"}
    same_numbers(before, after, [n + ":0" for n in names], {"x:0": X})


def test_shape_optimizer_materializes_with_the_input_as_a_control_edge() -> None:
    before = build(lambda: op("Shape", "shape", input=op("Relu", "r", features=placeholder("x", [2, 3]))))
    after = apply_pass(ShapeOptimizer, before, ["shape:0"])
    assert node(after, "shape").op == "Const" and list(node(after, "shape").input) == ["^r"]


# ------------------------------------------------------------------ pruning, dependencies


def test_pruning_bypasses_stop_gradient_and_single_input_add_n_moving_their_control_inputs() -> None:
    def model():
        x = placeholder("x", [5, 4])
        op("NoOp", "gate")
        op("Relu", "y", features=op("AddN", "sum1", inputs=[op("StopGradient", "sg", input=x)]))

    before = build(model)
    node(before, "sg").input.append("^gate")
    after = apply_pass(ModelPruner, before, ["y:0"])
    assert {"sg", "sum1"}.isdisjoint(ops(after))
    assert list(node(after, "y").input) == ["x", "^gate"]
    same_numbers(before, after, ["y:0"], {"x:0": X})


def test_dependency_optimizer_bypasses_identities_and_drops_control_edges_from_constants() -> None:
    def model():
        x = placeholder("x", [5, 4])
        c = const(2.0, "c")
        scaled = op("Mul", "scaled", x=op("Identity", "xi", input=x), y=c)
        op("Relu", "y", features=scaled)

    before = build(model)
    node(before, "y").input.append("^c")
    after = apply_pass(DependencyOptimizer, before, ["y:0"])
    assert "xi" not in ops(after) and list(node(after, "scaled").input) == ["x", "c"]
    assert list(node(after, "y").input) == ["scaled"]  # a Const without inputs runs first anyway
    same_numbers(before, after, ["y:0"], {"x:0": X})


def test_dependency_optimizer_keeps_identities_that_are_fetched_or_read_a_recv() -> None:
    def model():
        x = placeholder("x", [5, 4])
        op("Identity", "fetched", input=x)
        op("Relu", "y", features=op("Identity", "after_recv", input=x))

    before = build(model)
    node(before, "x").op = "_Recv"  # what a fed tensor is once compile_graph has cut the graph
    after = apply_pass(DependencyOptimizer, before, ["fetched:0", "y:0"])
    assert {"fetched", "after_recv"} <= set(ops(after))


# ------------------------------------------------------------------ arithmetic, CSE


def test_add_ops_rewrite_collapses_an_add_tree_of_one_shape_into_add_n() -> None:
    def model():
        x = placeholder("x", [None, 4])
        a, b = op("Exp", "a", x=x), op("Tanh", "b", x=x)
        inner = op("AddV2", "scope/inner", x=a, y=b)
        op("Shape", "shape", input=inner)  # shape readers do not count as readers
        op("Relu", "y", features=op("AddV2", "scope/root", x=inner, y=op("Sigmoid", "c", x=x)))
        op("AddV2", "mixed", x=op("AddV2", "m1", x=a, y=const(np.ones(4), "row")), y=b)  # leaves [?,4] and [4]

    before = build(model)
    fetches = ["y:0", "shape:0", "mixed:0"]
    after = apply_pass(ArithmeticOptimizer, before, fetches, feeds=("x:0",))
    add_n = node(after, "scope/ArithmeticOptimizer/AddOpsRewrite_root")
    assert add_n.op == "AddN" and list(add_n.input) == ["a", "b", "c"] and add_n.attr["N"].i == 3
    assert node(after, "y").input[0] == add_n.name
    assert not any(n.op == "AddN" and "mixed" in n.name for n in after.node)
    same_numbers(before, after, fetches, {"x:0": X}, rtol=1e-5)


def test_cse_canonicalizes_commutative_operands_and_control_inputs() -> None:
    def model():
        x, w = placeholder("x", [5, 4]), placeholder("w", [5, 4])
        op("NoOp", "b_gate"), op("NoOp", "a_gate")
        op("Mul", "mul", x=w, y=x)
        op("Sub", "sub", x=w, y=x)

    before = build(model)
    node(before, "mul").input.extend(["^b_gate", "^a_gate", "^b_gate"])
    after = apply_pass(CommonSubgraphElimination, before, ["mul:0", "sub:0"])
    assert list(node(after, "mul").input) == ["w", "x", "^a_gate", "^b_gate"]  # "w" < "x": already sorted
    node(before, "mul").input[:2] = ["x", "w"]
    after = apply_pass(CommonSubgraphElimination, before, ["mul:0", "sub:0"])
    assert list(node(after, "mul").input)[:2] == ["w", "x"] and list(node(after, "sub").input) == ["w", "x"]
    view = GraphView(after)
    assert view.consumers["x"] == {"mul", "sub"}
