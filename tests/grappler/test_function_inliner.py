"""Function inlining: call nodes become the function body, readers of the call keep working, TF's numbers."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import modtensor as mt
from modtensor.framework.protos import function_pb2, graph_pb2, types_pb2
from modtensor.grappler import meta_optimizer
from modtensor.grappler.item import GrapplerItem
from modtensor.grappler.passes.function_inliner import FunctionInliner

from .support import RC, apply_pass, context, node, ops, run

GOLDEN = pathlib.Path(__file__).resolve().parent.parent / "golden" / "functions_graph"


def _golden() -> tuple[graph_pb2.GraphDef, dict[str, np.ndarray]]:
    graph_def = graph_pb2.GraphDef()
    graph_def.ParseFromString((GOLDEN / "graph.pb").read_bytes())
    return graph_def, dict(np.load(GOLDEN / "values.npz"))


def test_tf_function_graph_with_partitioned_calls_imports_and_runs_with_tf_outputs() -> None:
    graph_def, values = _golden()
    assert {n.op for n in graph_def.node} >= {"PartitionedCall"} and len(graph_def.library.function) == 2
    graph = mt.Graph()
    with graph.as_default():
        mt.import_graph_def(graph_def, name="")
    with mt.compat.v1.Session(graph=graph) as session:
        z, twice = session.run(["Identity:0", "Identity_1:0"], {"x:0": values["x"], "w:0": values["w"]})
    np.testing.assert_allclose(z, values["z"], rtol=1e-6)
    np.testing.assert_allclose(twice, values["twice"], rtol=1e-6)


def test_nested_calls_are_inlined_under_the_call_name_and_call_outputs_keep_their_names() -> None:
    graph_def, values = _golden()
    after = apply_pass(FunctionInliner, graph_def, ["Identity:0", "Identity_1:0"])
    kinds = ops(after)
    assert "PartitionedCall" not in kinds.values() and not after.HasField("library")
    assert kinds["PartitionedCall"] == "IdentityN" and kinds["PartitionedCall/a"] == "Identity"
    assert kinds["PartitionedCall_1/PartitionedCall/mul"] == "Mul"  # inner's call of leaf, inlined in turn
    assert list(node(after, "Identity_1").input) == ["PartitionedCall:1"]
    got = run(after, ["Identity:0", "Identity_1:0"], {"x:0": values["x"], "w:0": values["w"]})
    np.testing.assert_allclose(got[0], values["z"], rtol=1e-6)
    np.testing.assert_allclose(got[1], values["twice"], rtol=1e-6)


def _scale_function() -> function_pb2.FunctionDef:
    """``scale(v) = v * 3`` with a constant inside the body (a node with no inputs)."""
    f = function_pb2.FunctionDef()
    f.signature.name = "scale"
    f.signature.input_arg.add(name="v", type=types_pb2.DT_FLOAT)
    f.signature.output_arg.add(name="out", type=types_pb2.DT_FLOAT)
    three = f.node_def.add(name="three", op="Const")
    three.attr["dtype"].type = types_pb2.DT_FLOAT
    three.attr["value"].tensor.dtype = types_pb2.DT_FLOAT
    three.attr["value"].tensor.float_val.append(3.0)
    mul = f.node_def.add(name="mul", op="Mul", input=["v", "three:output:0"])
    mul.attr["T"].type = types_pb2.DT_FLOAT
    f.ret["out"] = "mul:z:0"
    return f


@pytest.mark.parametrize("call_op", ["scale", "StatefulPartitionedCall"])
def test_calls_keep_control_dependencies(call_op: str) -> None:
    graph_def = graph_pb2.GraphDef()
    graph_def.library.function.append(_scale_function())
    x = graph_def.node.add(name="x", op="Placeholder")
    x.attr["dtype"].type = types_pb2.DT_FLOAT
    graph_def.node.add(name="first", op="NoOp")
    call = graph_def.node.add(name="call", op=call_op, input=["x", "^first"])
    if call_op != "scale":  # through the call op rather than by the function's name
        call.attr["f"].func.name = "scale"
        call.attr["Tin"].list.type.append(types_pb2.DT_FLOAT)
        call.attr["Tout"].list.type.append(types_pb2.DT_FLOAT)
    after_call = graph_def.node.add(name="y", op="Neg", input=["call"])
    after_call.attr["T"].type = types_pb2.DT_FLOAT
    graph_def.node.add(name="last", op="NoOp", input=["^call"])
    after = apply_pass(FunctionInliner, graph_def, ["y:0", "last"])
    gate = node(after, "call/input_control_node")
    assert list(gate.input) == ["^first"]
    assert "^call/input_control_node" in node(after, "call/v").input
    assert "^call/input_control_node" in node(after, "call/three").input  # input-less body nodes wait too
    assert ops(after)["call"] == "IdentityN" and list(node(after, "last").input) == ["^call"]
    got = run(after, ["y:0"], {"x:0": np.array([1.0, -2.0], np.float32)})
    np.testing.assert_allclose(got[0], [-3.0, 6.0])


def test_meta_optimizer_reports_function_optimization_as_run() -> None:
    graph_def, _ = _golden()
    item = GrapplerItem(graph_def, fetches=("Identity:0", "Identity_1:0"))
    result = meta_optimizer.optimize(item, RC(), host_evaluator=context().host_evaluator)
    stats = [s for s in result.stats if s.name == "function_optimization"]
    assert stats[0].status == "ran" and stats[0].nodes_after > stats[0].nodes_before
    assert "function_optimization" not in meta_optimizer.NOT_BUILT
    off = meta_optimizer.optimize(item, RC(function_optimization=RC.OFF), host_evaluator=context().host_evaluator)
    assert "PartitionedCall" in {n.op for n in off.graph_def.node}
