"""The dataflow executor's machinery beyond plain graphs: asynchronous kernels finishing while other nodes run,
independent expensive nodes running concurrently on the inter-op pool, cancelling a step from another thread
(``Session.close``) or by a timeout, dead fetches, and errors from asynchronous kernels."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from modtensor.framework import common_shapes, dtypes, errors, importer, tensor_proto
from modtensor.framework.graph import Graph
from modtensor.framework.op_registry import register_op
from modtensor.framework.protos import config_pb2, graph_pb2
from modtensor.kernels.cpu.registrations import register_cpu_kernels
from modtensor.runtime import inter_op
from modtensor.runtime.graph_execution import ExecutionOptions, compile_graph
from modtensor.runtime.kernel_registry import KernelRegistry
from modtensor.runtime.kernels import register_default_kernels
from modtensor.runtime.op_kernel import AsyncOpKernel, OpKernel, OpKernelContext
from modtensor.runtime.session import Session

from .support import make_node

F32 = dtypes.float32
GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "v1_control_flow"

for _name in ("MtTestLater", "MtTestMeet", "MtTestRecord", "MtTestBroken"):
    register_op(_name).input("x: float").output("y: float").set_is_stateful().set_shape_fn(
        common_shapes.unchanged_shape
    )

EVENTS: list[str] = []
MEETING = threading.Barrier(2, timeout=20)


class Later(AsyncOpKernel):
    """Finishes from another thread once the ``Record`` chain has run (so other nodes run meanwhile)."""

    def compute_async(self, ctx: OpKernelContext, done) -> None:
        EVENTS.append("later started")

        def finish() -> None:
            for _ in range(200):
                if "record c3" in EVENTS:
                    break
                time.sleep(0.01)
            EVENTS.append("later done")
            ctx.outputs[0] = ctx.inputs[0] + 1
            done()

        threading.Thread(target=finish).start()


class Record(OpKernel):
    def compute(self, ctx: OpKernelContext) -> None:
        EVENTS.append(f"record {self.name}")
        ctx.outputs[0] = ctx.inputs[0]


class Meet(OpKernel):
    """Waits at a two-party barrier: it completes only if two Meet nodes run at the same time."""

    def compute(self, ctx: OpKernelContext) -> None:
        MEETING.wait()
        EVENTS.append(threading.current_thread().name)
        ctx.outputs[0] = ctx.inputs[0] * 2


class Broken(AsyncOpKernel):
    def compute_async(self, ctx: OpKernelContext, done) -> None:
        def fail() -> None:
            ctx.fail(errors.InternalError(self.node_def, None, "the device fell over"))
            done()

        threading.Thread(target=fail).start()


@pytest.fixture
def registry(fresh_devices) -> KernelRegistry:
    reg = KernelRegistry()
    register_default_kernels(reg)
    register_cpu_kernels(reg)
    reg.register("MtTestLater", "CPU", Later, source="test")
    reg.register("MtTestRecord", "CPU", Record, source="test")
    reg.register("MtTestMeet", "CPU", Meet, source="test")
    reg.register("MtTestBroken", "CPU", Broken, source="test")
    EVENTS.clear()
    MEETING._timeout = 20  # a test below shortens it
    MEETING.reset()
    return reg


def const(name: str, value) -> object:
    value = np.asarray(value, np.float32)
    return make_node("Const", name, value=tensor_proto.make_tensor_proto(value), dtype=F32)


def graph(*nodes) -> graph_pb2.GraphDef:
    g = graph_pb2.GraphDef()
    g.node.extend(nodes)
    return g


def test_an_async_kernel_finishes_later_while_other_nodes_run(registry) -> None:
    g = graph(
        const("x", [1.0, 2.0]),
        make_node("MtTestLater", "later", ("x",)),
        make_node("MtTestRecord", "c1", ("x",)),
        make_node("MtTestRecord", "c2", ("c1",)),
        make_node("MtTestRecord", "c3", ("c2",)),
        make_node("AddV2", "sum", ("later", "c3"), T=F32),
    )
    # Unoptimized and on one thread, the ready order is the GraphDef's: the async kernel starts first.
    options = ExecutionOptions(optimize_graph=False, inter_op_threads=1)
    compiled = compile_graph(g, (), ("sum",), options=options, registry=registry)
    (out,) = compiled.run([])
    np.testing.assert_allclose(out, [3.0, 5.0])
    assert EVENTS.index("later started") < EVENTS.index("record c3") < EVENTS.index("later done")


def test_independent_expensive_nodes_run_at_once_on_the_inter_op_pool(registry) -> None:
    g = graph(
        const("x", [1.0]),
        make_node("MtTestMeet", "a", ("x",)),
        make_node("MtTestMeet", "b", ("x",)),
        make_node("AddV2", "sum", ("a", "b"), T=F32),
    )
    options = ExecutionOptions(inter_op_threads=2)
    (out,) = compile_graph(g, (), ("sum",), options=options, registry=registry).run([])
    np.testing.assert_allclose(out, [4.0])
    assert len(set(EVENTS)) == 2  # two threads met at the barrier


def test_fed_branches_run_at_once_on_the_inter_op_pool(registry) -> None:
    # Each branch starts from a feed: the receives are taken on the calling thread, which keeps one branch and
    # hands the other to the pool (before, both went to the pool's one worker from the receives' callbacks).
    g = graph(
        make_node("Placeholder", "p", dtype=F32),
        make_node("Placeholder", "q", dtype=F32),
        make_node("MtTestMeet", "a", ("p",)),
        make_node("MtTestMeet", "b", ("q",)),
        make_node("AddV2", "sum", ("a", "b"), T=F32),
    )
    compiled = compile_graph(g, ("p", "q"), ("sum",), options=ExecutionOptions(inter_op_threads=2), registry=registry)
    (out,) = compiled.run([np.float32([1.0]), np.float32([3.0])])
    np.testing.assert_allclose(out, [8.0])
    assert len(set(EVENTS)) == 2  # two threads met at the barrier


def test_with_one_inter_op_thread_nothing_runs_concurrently(registry) -> None:
    g = graph(const("x", [1.0]), make_node("MtTestMeet", "a", ("x",)), make_node("MtTestMeet", "b", ("x",)))
    MEETING._timeout = 0.5  # the barrier cannot be met by one thread: it breaks
    compiled = compile_graph(g, (), ("a", "b"), options=ExecutionOptions(inter_op_threads=1), registry=registry)
    with pytest.raises(errors.UnknownError, match="BrokenBarrierError"):
        compiled.run([])


def test_an_async_kernel_failure_fails_the_step_naming_the_node(registry) -> None:
    g = graph(const("x", [1.0]), make_node("MtTestBroken", "flaky", ("x",)))
    with pytest.raises(errors.InternalError) as info:
        compile_graph(g, (), ("flaky",), registry=registry).run([])
    assert "the device fell over" in info.value.message
    assert "[[{{node flaky}}]]" in info.value.message


def _endless_loop() -> Graph:
    """TF's while_counter graph: run with a huge ``n`` it loops for minutes."""
    graph_def = graph_pb2.GraphDef.FromString((GOLDEN / "while_counter.pb").read_bytes())
    g = Graph()
    with g.as_default():
        importer.import_graph_def(graph_def, name="")
    return g


def test_session_close_from_another_thread_cancels_a_running_loop() -> None:
    session = Session(graph=_endless_loop())
    session.run("while/Exit:0", {"n:0": np.int32(3)})  # compiled, runs fine
    timer = threading.Timer(0.3, session.close)
    timer.start()
    started = time.monotonic()
    with pytest.raises(errors.CancelledError, match="Session has been closed"):
        session.run("while/Exit:0", {"n:0": np.int32(2**30)})
    assert time.monotonic() - started < 30  # promptly, not after 2**30 iterations
    with pytest.raises(RuntimeError, match="closed Session"):
        session.run("while/Exit:0", {"n:0": np.int32(3)})


def test_a_run_timeout_stops_the_loop_with_deadline_exceeded_and_the_session_goes_on() -> None:
    with Session(graph=_endless_loop()) as session:
        options = config_pb2.RunOptions(timeout_in_ms=200)
        with pytest.raises(errors.DeadlineExceededError):
            session.run("while/Exit:0", {"n:0": np.int32(2**30)}, options=options)
        assert session.run("while/Exit:0", {"n:0": np.int32(5)}) == 5


def test_fetching_the_dead_output_of_a_switch_is_tf_error() -> None:
    g = Graph()
    with g.as_default():
        from modtensor.framework import op_def_library

        x = op_def_library.apply_op_outputs("Placeholder", "x", dtype="float32", shape=[])
        pred = op_def_library.apply_op_outputs("Greater", "pred", x=x, y=op_def_library.constant(0.0, name="zero"))
        op_def_library.apply_op_outputs("Switch", "switch", data=x, pred=pred)
    with Session(graph=g) as session:
        assert session.run("switch:1", {"x:0": np.float32(3.0)}) == 3.0
        with pytest.raises(errors.InvalidArgumentError, match=r"Retval\[0\] does not have value"):
            session.run("switch:0", {"x:0": np.float32(3.0)})


def test_loops_in_concurrent_steps_of_one_session_do_not_mix() -> None:
    cases = json.loads((GOLDEN / "cases.json").read_text())["programs"]["while_nested"]
    with Session(graph=_golden("while_nested")) as session:
        results: dict[int, list] = {}

        def work(n: int) -> None:
            results[n] = [session.run(cases["fetch_names"], {"n:0": np.int32(n)}) for _ in range(20)]

        threads = [threading.Thread(target=work, args=(n,)) for n in (3, 5, 8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for n, runs in results.items():
            expected = [n, sum(i * (i - 1) // 2 for i in range(n))]
            assert all([int(v) for v in r] == expected for r in runs), (n, runs[0])


def _golden(name: str) -> Graph:
    graph_def = graph_pb2.GraphDef.FromString((GOLDEN / f"{name}.pb").read_bytes())
    g = Graph()
    with g.as_default():
        importer.import_graph_def(graph_def, name="")
    return g


def test_inter_op_setting_validates_its_value() -> None:
    with pytest.raises(ValueError, match="inter_op_parallelism_threads"):
        inter_op.set_inter_op_parallelism_threads(-1)
    assert inter_op.effective_threads(3) == 3


def test_a_control_trigger_runs_live_after_dead_inputs() -> None:
    """TF's ControlTrigger: it fires when its inputs are done, dead or not, and what waits on it is live."""
    g = Graph()
    with g.as_default():
        from modtensor.framework import op_def_library

        x = op_def_library.apply_op_outputs("Placeholder", "x", dtype="float32", shape=[])
        pred = op_def_library.apply_op_outputs("Greater", "pred", x=x, y=op_def_library.constant(0.0, name="zero"))
        _false, true = op_def_library.apply_op_outputs("Switch", "switch", data=x, pred=pred)
        taken = op_def_library.apply_op_outputs("Identity", "taken", input=true)
        trigger = op_def_library.apply_op("ControlTrigger", name="trigger")
        trigger._add_control_input(taken.op)
        with g.control_dependencies([trigger]):
            op_def_library.constant(7.0, name="after")
        with g.control_dependencies([taken.op]):
            dead_after = op_def_library.constant(8.0, name="dead_after")
    with Session(graph=g) as session:
        assert session.run("after:0", {"x:0": np.float32(-1.0)}) == 7.0  # Identity dead, the trigger live
        with pytest.raises(errors.InvalidArgumentError, match=r"Retval\[0\] does not have value"):
            session.run(dead_after, {"x:0": np.float32(-1.0)})  # a plain control edge carries the deadness
        assert session.run(dead_after, {"x:0": np.float32(1.0)}) == 8.0
