"""v1 control flow (Switch/Merge/Enter/Exit/NextIteration/LoopCond) exported by TensorFlow 2.21 runs with TF's results.

The graphs and TF's fetched values (or errors) come from tools/make_golden_v1_control_flow.py:
conds (nested, several outputs), while loops (counters, loop invariants, nested loops,
parallel iterations, maximum_iterations), a loop inside the untaken branch of a cond (its
frame is dead), a cond inside a loop, and a failing node inside a loop iteration.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from modtensor.framework import errors, importer
from modtensor.framework.graph import Graph
from modtensor.framework.protos import graph_pb2, step_stats_pb2
from modtensor.runtime.graph_execution import ExecutionOptions, compile_graph
from modtensor.runtime.session import Session

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "v1_control_flow"
CASES = json.loads((GOLDEN / "cases.json").read_text())["programs"]


def load(name: str) -> Graph:
    graph_def = graph_pb2.GraphDef.FromString((GOLDEN / f"{name}.pb").read_bytes())
    graph = Graph()
    with graph.as_default():
        importer.import_graph_def(graph_def, name="")
    return graph


def array(record: dict) -> np.ndarray:
    return np.asarray(record["value"], dtype=record["dtype"]).reshape(record["shape"])


def replay(name: str, session: Session) -> None:
    program = CASES[name]
    for run in program["runs"]:
        feeds = {key: array(value) for key, value in run["feeds"].items()}
        if "error" in run:
            with pytest.raises(getattr(errors, run["error"]["class"])) as info:
                session.run(program["fetch_names"], feeds)
            assert run["error"]["message"] in info.value.message
            continue
        got = session.run(program["fetch_names"], feeds)
        for value, expected in zip(got, run["fetches"], strict=True):
            np.testing.assert_allclose(value, array(expected), rtol=1e-6)
            assert np.asarray(value).dtype == np.dtype(expected["dtype"])


@pytest.mark.parametrize("name", sorted(CASES))
def test_program_matches_tensorflow(name: str) -> None:
    graph = load(name)
    with Session(graph=graph) as session:
        replay(name, session)


@pytest.mark.parametrize("name", sorted(n for n in CASES if n.startswith("while")))
def test_loops_on_the_dataflow_machine_equal_compiled_loops(name: str) -> None:
    """Every loop also runs frame by frame on the dataflow machine (what loops the compiler refuses get)."""
    program = CASES[name]
    graph_def = load(name).as_graph_def()
    for run in program["runs"]:
        if "error" in run:
            continue
        feeds = [array(v) for v in run["feeds"].values()]
        results = []
        for compile_loops in (True, False):
            options = ExecutionOptions(compile_loops=compile_loops)
            compiled = compile_graph(graph_def, list(run["feeds"]), program["fetch_names"], options=options)
            has_compiled = any(e._loops for e in compiled._executors)
            assert has_compiled == compile_loops, name
            results.append(compiled.run(feeds))
        for a, b in zip(*results, strict=True):
            np.testing.assert_array_equal(a, b)


def test_failing_node_in_an_iteration_names_node_frame_and_iteration() -> None:
    graph = load("while_error_in_body")
    with Session(graph=graph) as session, pytest.raises(errors.InvalidArgumentError) as info:
        session.run("while/Exit_1:0", {"n:0": np.int32(4)})
    message = info.value.message
    assert "acc exploded : Tensor had Inf values" in message
    assert "[[{{node while/CheckNumerics}}]]" in message
    assert "frame 'while/while_context' iteration 2" in message


@pytest.mark.parametrize("dataflow", [False, True], ids=["plan", "dataflow_machine"])
def test_failing_node_in_a_compiled_loop_is_named_on_both_machines(dataflow: bool) -> None:
    compiled = compile_graph(load("while_error_in_body").as_graph_def(), ["n:0"], ["while/Exit_1:0"])
    assert all(executor._loops for executor in compiled._executors)  # the loop is compiled either way
    if dataflow:
        for executor in compiled._executors:
            executor.require_dataflow()
    with pytest.raises(errors.InvalidArgumentError) as info:
        compiled.run([np.int32(4)])
    assert "[[{{node while/CheckNumerics}}]]" in info.value.message
    assert "frame 'while/while_context' iteration 2" in info.value.message


def _loop_plans(compiled) -> list:
    """The LoopPlans of every compiled loop of ``compiled`` (nested ones included)."""
    plans = []
    items = [item for executor in compiled._executors for item in executor._loops.values()]
    for item in items:
        plans.append(item.loop._plan)
    return plans


@pytest.mark.parametrize("name", sorted(n for n in CASES if n.startswith("while")))
def test_compiled_loops_run_in_c_and_in_python_alike(name: str) -> None:
    """A compiled loop runs in the C loop of runtime/_plan_runner; without it, the same LoopPlan runs in Python:
    the same values, and a failing node names the same node, frame and iteration."""
    program = CASES[name]
    graph_def = load(name).as_graph_def()
    for run in program["runs"]:
        feeds = [array(v) for v in run["feeds"].values()]
        outcomes = []
        for in_c in (True, False):
            compiled = compile_graph(graph_def, list(run["feeds"]), program["fetch_names"])
            plans = _loop_plans(compiled)
            assert plans, name
            for plan in plans:
                assert plan._fast is not None  # the extension is built with the package
                if not in_c:
                    plan._fast = None
            try:
                outcomes.append(compiled.run(feeds))
            except errors.OpError as exc:
                outcomes.append((type(exc), exc.message))
            compiled.close()
        if "error" in run:
            assert outcomes[0] == outcomes[1] and run["error"]["message"] in outcomes[0][1]
            continue
        for a, b in zip(*outcomes, strict=True):
            np.testing.assert_array_equal(a, b)
            assert a.dtype == b.dtype


def test_a_compiled_loop_hoists_constants_aliases_identities_and_calls_scalar_kernels_in_c() -> None:
    """The counter loop's plan: Identity is slot aliasing, Const is read once, and the int32 counter's kernels
    (Less, AddV2) run in C through their scalar ops; a fed bound is never written."""
    graph_def = load("while_counter").as_graph_def()
    compiled = compile_graph(graph_def, ["n:0"], ["while/Exit:0"])
    (plan,) = _loop_plans(compiled)
    ops = [step.item.node.op for step in plan.steps]
    assert "Identity" not in ops and "Const" not in ops, ops
    assert plan._hoisted
    for step in plan.steps:
        call, native = step.item.direct_call()
        assert native is not None, step.item.name  # scalar ops: a C entry point
    n = np.array(1000, np.int32)
    (out,) = compiled.run([n])
    assert int(out) == 1000 and int(n) == 1000
    compiled.close()


@pytest.mark.parametrize(("name", "fused"), [("gru_lowered", True), ("lstm_lowered", False)])
def test_keras_rnn_loops_compile_with_the_optimizers_fused_kernels(name: str, fused: bool) -> None:
    """The lowered Keras RNN loops compile after the optimizer fused their MatMul + BiasAdd into _FusedMatMul (an
    internal op: before, any ``_`` op kept the loop on the dataflow machine, 2.2x slower here), with TF's outputs."""
    models = Path(__file__).resolve().parents[2] / "examples" / "models"
    graph_def = graph_pb2.GraphDef.FromString((models / f"{name}.pb").read_bytes())
    recorded = np.load(models / f"{name}.io.npz")
    compiled = compile_graph(graph_def, ["sequence:0"], ["Identity:0"])
    ops = {member.op for item in _loop_items(compiled) for member in item.loop.structure.members}
    assert ops, "the RNN loop was not compiled"
    assert ("_FusedMatMul" in ops) == fused, ops
    # No control flow is left around the compiled loop: the partition runs as a straight-line plan.
    assert [executor.dataflow for executor in compiled._executors] == [False]
    for batch in ("b1", "b8"):
        (got,) = compiled.run([recorded[f"{batch}/in/sequence:0"]])
        np.testing.assert_allclose(got, recorded[f"{batch}/out/Identity:0"], rtol=1e-5, atol=1e-6)
    stats = step_stats_pb2.StepStats()  # the traced plan runs the loop too, and records it as one node
    (got,) = compiled.run([recorded["b1/in/sequence:0"]], stats)
    np.testing.assert_allclose(got, recorded["b1/out/Identity:0"], rtol=1e-5, atol=1e-6)
    traced = [n.node_name for d in stats.dev_stats for n in d.node_stats]
    assert any(name.endswith("/_compiled_loop") for name in traced), traced


def _loop_items(compiled) -> list:
    return [item for executor in compiled._executors for item in executor._loops.values()]
