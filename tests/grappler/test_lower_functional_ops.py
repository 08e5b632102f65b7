"""The lowering pass (TF's LowerFunctionalOpsPass): If/Case/While become v1 control flow as TensorFlow builds it.

Golden graphs from TF 2.21 (``tools/make_golden_lowering.py``): each GraphDef with If/Case/While
nodes is lowered by modtensor's pass, pruned to what its fetches need (as a session prunes),
and the counts of control-flow and compute ops must equal those of the partition graphs
TensorFlow executed; the graphs also run through ``Session.run`` with TF's results.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from google.protobuf import text_format

import modtensor as tf
from modtensor.framework import errors
from modtensor.framework.protos import graph_pb2
from modtensor.grappler.graph_view import parse
from modtensor.grappler.passes.lower_functional_ops import lower_functional_ops, needs_lowering

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "control_flow" / "lowering"
RECORD = json.loads((GOLDEN / "lowering.json").read_text())
CASES = RECORD["cases"]


def _graph(name: str) -> graph_pb2.GraphDef:
    return text_format.Parse((GOLDEN / f"{name}.pbtxt").read_text(), graph_pb2.GraphDef())


def _pruned_counts(graph_def: graph_pb2.GraphDef, fetches: list[str]) -> dict[str, int]:
    """Op counts of the nodes the fetches need (data and control edges, back edges included)."""
    nodes = {n.name: n for n in graph_def.node}
    needed: set[str] = set()
    stack = [parse(f)[0] for f in fetches]
    while stack:
        name = stack.pop()
        if name in needed:
            continue
        needed.add(name)
        stack.extend(parse(text)[0] for text in nodes[name].input)
    counted = set(RECORD["counted_ops"])
    return dict(sorted(Counter(nodes[n].op for n in needed if nodes[n].op in counted).items()))


@pytest.mark.parametrize("name", sorted(CASES))
def test_lowered_graph_has_tensorflows_control_flow_structure(name: str) -> None:
    graph_def = _graph(name)
    assert needs_lowering(graph_def)
    lowered = lower_functional_ops(graph_def)
    assert not {n.op for n in lowered.node} & {"If", "StatelessIf", "Case", "StatelessCase", "While", "StatelessWhile"}
    assert not any(n.op in {f.signature.name for f in lowered.library.function} for n in lowered.node)
    assert _pruned_counts(lowered, CASES[name]["fetches"]) == CASES[name]["lowered_counts"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_graph_runs_in_a_session_with_tensorflows_results(name: str) -> None:
    case = CASES[name]
    graph = tf.Graph()
    with graph.as_default():
        tf.import_graph_def(_graph(name), name="")
    feeds = {f"{k}:0": np.asarray(v["value"], dtype=v["dtype"]) for k, v in case["feeds"].items()}
    with tf.compat.v1.Session(graph=graph) as sess:
        outputs = sess.run(case["fetches"], feeds)
    for got, expected in zip(outputs, case["outputs"], strict=True):
        np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_lowered_while_frame_and_back_edges() -> None:
    lowered = lower_functional_ops(_graph("while"))
    nodes = {n.name: n for n in lowered.node}
    enters = [n for n in lowered.node if n.op == "Enter"]
    assert {n.attr["frame_name"].s for n in enters} == {b"while"}
    assert {n.attr["parallel_iterations"].i for n in enters} == {10}
    for merge in (n for n in lowered.node if n.op == "Merge"):
        first, second = (nodes[parse(t)[0]].op for t in merge.input)
        assert (first, second) == ("Enter", "NextIteration")
    assert nodes["while"].op == "IdentityN"  # the lowered node keeps its name (fetchable)
    assert all(nodes[parse(t)[0]].op == "Exit" for t in nodes["while"].input)


def test_lowered_if_in_a_function_body_is_a_noop_and_readers_use_the_merges() -> None:
    graph_def = _graph("cond")
    lowered = lower_functional_ops(graph_def, keep_lowered_nodes_fetchable=False)
    nodes = {n.name: n for n in lowered.node}
    assert nodes["cond"].op == "NoOp"
    assert nodes["cond"].input == ["^cond/branch_executed"]
    assert nodes[parse(nodes["cond/Identity"].input[0])[0]].op == "Merge"


def test_nodes_without_the_attr_or_marked_for_xla_stay_functional() -> None:
    graph_def = _graph("cond")
    (node,) = [n for n in graph_def.node if n.op in ("If", "StatelessIf")]
    node.attr["_xla_compile_id"].s = b"cluster_0"
    assert "StatelessIf" in {n.op for n in lower_functional_ops(graph_def).node}
    del node.attr["_xla_compile_id"]
    node.attr["_lower_using_switch_merge"].b = False
    assert "StatelessIf" in {n.op for n in lower_functional_ops(graph_def).node}
    node.attr["_lower_using_switch_merge"].b = True
    assert "StatelessIf" in {n.op for n in lower_functional_ops(graph_def, functional_control_flow=True).node}


def test_function_calls_are_inlined_only_when_asked() -> None:
    @tf.function
    def inner(x):
        return x * 2.0

    @tf.function
    def outer(x):
        return inner(x) + 1.0

    graph_def = outer.get_concrete_function(tf.TensorSpec([2])).graph.as_graph_def()
    assert "PartitionedCall" in {n.op for n in lower_functional_ops(graph_def).node}
    inlined = lower_functional_ops(graph_def, lower_function_calls=True)
    assert "PartitionedCall" not in {n.op for n in inlined.node} and "Mul" in {n.op for n in inlined.node}


def test_non_bool_predicate_fails_as_in_tensorflow() -> None:
    graph_def = _graph("cond")
    (node,) = [n for n in graph_def.node if n.op in ("If", "StatelessIf")]
    node.attr["Tcond"].type = tf.int32.as_datatype_enum
    with pytest.raises(errors.InvalidArgumentError, match=r"Input 'pred' passed int32 expected bool while building "
                       r"NodeDef 'cond/switch_pred' using Op<name=Switch; signature=data:T, pred:bool"):  # fmt: skip
        lower_functional_ops(graph_def)


def test_constants_folded_inside_a_lowered_loop_stay_in_its_frame() -> None:
    """Constant folding after lowering: a value computed from the body's constants keeps their frame."""

    @tf.function
    def f(n):
        def body(i, v):
            return i + 1, v + tf.cast(tf.reduce_sum(tf.range(tf.rank(tf.ones([2, 2])))), tf.float32)

        return tf.while_loop(lambda i, v: i < n, body, [0, 0.0])[1]

    assert float(f(tf.constant(4)).numpy()) == 4.0  # range(2) sums to 1, four iterations
