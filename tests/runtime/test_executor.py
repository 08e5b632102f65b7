"""The executor: plan order with control dependencies, moving values into their last consumer (forwarding),
transfers through the rendezvous (pausing on a missing tensor), errors naming node/op/device, dtype checks,
step stats, and stateful kernels shared through a kernel cache."""

from __future__ import annotations

import numpy as np
import pytest

from modtensor.framework import dtypes, errors, tensor_proto
from modtensor.framework.protos import graph_pb2, node_def_pb2, step_stats_pb2
from modtensor.kernels.cpu.registrations import register_cpu_kernels
from modtensor.runtime import device_factory
from modtensor.runtime.executor import Executor
from modtensor.runtime.kernel_registry import KernelRegistry
from modtensor.runtime.kernels import register_default_kernels
from modtensor.runtime.op_kernel import OpKernel, OpKernelContext
from modtensor.runtime.partitioner import set_transfer_attrs, transfer_key
from modtensor.runtime.rendezvous import LocalRendezvous as Rendezvous

from .support import make_node

F32 = dtypes.float32
CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"


class ProbeNeg(OpKernel):
    """Neg that reuses its input buffer when allowed; records (node, forwarded)."""

    log: list[tuple[str, bool]] = []

    def compute(self, ctx: OpKernelContext) -> None:
        shape = ctx.inputs[0].shape
        out, index = ctx.forward_input_or_allocate_output((0,), 0, shape)
        ProbeNeg.log.append((self.name, index == 0))
        np.negative(ctx.inputs[0], out=out)


class RecordingIdentity(OpKernel):
    """Identity that records the order nodes ran in and whether it was closed."""

    ran: list[str] = []
    closed: list[str] = []

    def compute(self, ctx: OpKernelContext) -> None:
        RecordingIdentity.ran.append(self.name)
        ctx.outputs[0] = ctx.inputs[0]

    def close(self) -> None:
        RecordingIdentity.closed.append(self.name)


class Failing(OpKernel):
    def compute(self, ctx: OpKernelContext) -> None:
        if self.name == "bad":
            raise errors.InvalidArgumentError(self.node_def, None, "Sqrt of a rock")
        raise ZeroDivisionError("division by zero")


@pytest.fixture
def registry(fresh_devices) -> KernelRegistry:
    reg = KernelRegistry()
    register_default_kernels(reg)
    register_cpu_kernels(reg)
    reg.register("Neg", "CPU", ProbeNeg, priority=1, source="test")
    reg.register("Identity", "CPU", RecordingIdentity, priority=1, source="test")
    reg.register("Sqrt", "CPU", Failing, priority=1, source="test")
    ProbeNeg.log, RecordingIdentity.ran, RecordingIdentity.closed = [], [], []
    return reg


def cpu():
    return device_factory.device_set().client_device


def const(name: str, value) -> node_def_pb2.NodeDef:
    value = np.asarray(value)
    return make_node("Const", name, value=tensor_proto.make_tensor_proto(value), dtype=dtypes.as_dtype(value.dtype))


def node(kind: str, name: str, *inputs: str, **attrs) -> node_def_pb2.NodeDef:
    return make_node(kind, name, inputs, **attrs)


def fetch(name: str, tensor: str, dtype=F32) -> node_def_pb2.NodeDef:
    """A client-terminated _Send, as graph_execution adds for a fetch."""
    send = node_def_pb2.NodeDef(name=name, op="_Send", input=[tensor])
    send.attr["T"].type = dtype.as_datatype_enum
    set_transfer_attrs(send, tensor, cpu(), cpu(), client_terminated=True)
    return send


def feed(name: str, dtype=F32) -> node_def_pb2.NodeDef:
    recv = node_def_pb2.NodeDef(name=name, op="_Recv")
    recv.attr["tensor_type"].type = dtype.as_datatype_enum
    set_transfer_attrs(recv, f"{name}:0", cpu(), cpu(), client_terminated=True)
    return recv


def graph(*nodes) -> graph_pb2.GraphDef:
    g = graph_pb2.GraphDef()
    g.node.extend(nodes)
    for n in g.node:
        n.device = CPU0
    return g


def run(executor: Executor, feeds: dict | None = None, **kwargs) -> dict:
    rendezvous = Rendezvous()
    for n in executor.nodes:
        if n.op == "_Recv":
            rendezvous.send(transfer_key(n), (feeds or {})[n.name], cpu(), True)
    executor.run(rendezvous, **kwargs)
    return {n.name: rendezvous.try_recv(transfer_key(n)).value for n in executor.nodes if n.op == "_Send"}


def test_values_move_into_their_last_consumer_so_kernels_can_forward(registry) -> None:
    g = graph(
        const("c", np.float32([1, 2])),
        node("Exp", "a", "c", T=F32),
        node("Neg", "n1", "a", T=F32),  # last use of a: forwarded
        node("Neg", "n2", "n1", T=F32),  # last use of n1: forwarded
        node("Exp", "b", "c", T=F32),
        node("Neg", "m1", "b", T=F32),  # b is read again below: not forwarded
        node("AddV2", "s", "b", "m1", T=F32),
        node("Neg", "k", "c", T=F32),  # a Const's value is read-only: never forwarded
        fetch("out_n2", "n2"),
        fetch("out_s", "s"),
        fetch("out_k", "k"),
    )
    out = run(Executor(g, cpu(), registry=registry))
    assert ProbeNeg.log == [("n1", True), ("n2", True), ("m1", False), ("k", False)]
    np.testing.assert_allclose(out["out_n2"], np.exp([1, 2]), rtol=1e-6)
    np.testing.assert_allclose(out["out_s"], [0, 0], atol=1e-6)
    np.testing.assert_allclose(out["out_k"], [-1, -2])


def test_fed_values_are_never_written_in_place(registry) -> None:
    g = graph(feed("x"), node("Neg", "n", "x", T=F32), fetch("out", "n"))
    value = np.float32([1, 2])
    out = run(Executor(g, cpu(), registry=registry), {"x": value})
    assert ProbeNeg.log == [("n", False)]
    np.testing.assert_array_equal(value, [1, 2])
    np.testing.assert_array_equal(out["out"], [-1, -2])


def test_control_dependencies_order_the_plan(registry) -> None:
    g = graph(
        const("c", np.float32(1)),
        node("Identity", "i1", "c", T=F32),
        node("Identity", "i2", "c", "^i3", T=F32),
        node("Identity", "i3", "c", T=F32),
        node("NoOp", "done", "^i1", "^i2"),
    )
    executor = Executor(g, cpu(), registry=registry)
    assert [n.name for n in executor.nodes] == ["c", "i1", "i3", "i2", "done"]
    executor.run(Rendezvous())
    executor.run(Rendezvous())
    assert RecordingIdentity.ran == ["i1", "i3", "i2"] * 2
    executor.close()
    assert sorted(RecordingIdentity.closed) == ["i1", "i2", "i3"]


def test_kernel_errors_keep_their_class_and_name_node_op_and_device(registry) -> None:
    g = graph(const("c", np.float32(1)), node("Sqrt", "bad", "c", T=F32), fetch("out", "bad"))
    with pytest.raises(errors.InvalidArgumentError) as info:
        run(Executor(g, cpu(), registry=registry))
    assert str(info.value) == f"Sqrt of a rock\n\t [[{{{{node bad}}}}]] (op Sqrt on {CPU0})"
    assert info.value.node_def.name == "bad" and info.value.node_def.device == CPU0
    assert isinstance(info.value.__cause__, errors.InvalidArgumentError)

    g = graph(const("c", np.float32(1)), node("Sqrt", "worse", "c", T=F32))
    with pytest.raises(errors.UnknownError) as info:
        Executor(g, cpu(), registry=registry).run(Rendezvous())
    assert str(info.value).startswith("ZeroDivisionError: division by zero\n\t [[{{node worse}}]] (op Sqrt on")
    assert isinstance(info.value.__cause__, ZeroDivisionError)


def test_function_kernel_errors_are_wrapped_too(fresh_devices) -> None:
    a = np.ones((2, 3), np.float32)
    g = graph(const("a", a), const("b", a), node("MatMul", "mm", "a", "b", T=F32), fetch("out", "mm"))
    with pytest.raises(errors.InvalidArgumentError) as info:
        run(Executor(g, cpu()))
    assert "[[{{node mm}}]] (op MatMul on" in str(info.value)


def test_the_c_plan_loop_and_the_python_loop_agree_and_name_failing_nodes(fresh_devices) -> None:
    """Direct-call kernels run in C (runtime/_plan_runner) when it is built; the Python loop is the fallback."""
    x = np.linspace(-2, 2, 6, dtype=np.float32).reshape(2, 3)
    g = graph(
        const("x", x),
        node("Exp", "e", "x", T=F32),
        node("Neg", "n", "e", T=F32),
        node("Relu", "r", "n", T=F32),
        node("AddV2", "s", "r", "x", T=F32),
        fetch("out", "s"),
    )
    executor = Executor(g, cpu())
    assert executor._fast_plan is not None  # the extension is built with the package
    with_c = run(executor)["out"]
    executor._fast_plan = None
    np.testing.assert_array_equal(run(executor)["out"], with_c)
    np.testing.assert_allclose(with_c, np.maximum(-np.exp(x), 0) + x, rtol=1e-6)
    bad = graph(const("a", np.ones((2, 3), np.float32)), node("Exp", "e", "a", T=F32),
                node("MatMul", "mm", "e", "e", T=F32), node("Neg", "n", "mm", T=F32), fetch("out", "n"))  # fmt: skip
    for fast in (True, False):
        failing = Executor(bad, cpu())
        if not fast:
            failing._fast_plan = None
        with pytest.raises(errors.InvalidArgumentError, match=r"\[\[\{\{node mm\}\}\]\] \(op MatMul on"):
            run(failing)


def _segment_graph(x_source) -> graph_pb2.GraphDef:
    """Native kernels with constants between them; `e` is read after the run of kernels (fetched), `x` twice."""
    return graph(
        x_source,
        const("three", np.float32(3)),
        const("bias", np.float32([0.5, -1, 2])),
        node("Exp", "e", "x", T=F32),
        node("Mul", "m", "e", "three", T=F32),
        node("Tanh", "t", "m", T=F32),
        node("AddV2", "b", "t", "bias", T=F32),
        node("Sub", "s", "b", "x", T=F32),
        node("Mul", "sq", "s", "s", T=F32),
        fetch("out", "sq"),
        fetch("out_e", "e"),
    )


def test_runs_of_native_kernels_run_as_segments_with_the_step_by_step_results(fresh_devices) -> None:
    """A straight run of native kernels (constants in between) is one segment of the C plan: its values are C
    tensors, written in place where nothing else reads them; results equal the Python loop's bit for bit, a value
    read after the segment keeps its value, and a fed array is never written."""
    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(4, 3)
    executor = Executor(_segment_graph(feed("x")), cpu())
    assert [s[2] for s in executor._fast_plan.segments] == [6]  # Exp .. Mul in one, the two Consts run first
    fed = x.copy()
    with_c = run(executor, {"x": fed})
    np.testing.assert_array_equal(fed, x)
    executor._fast_plan = None
    in_python = run(executor, {"x": x.copy()})
    for name in ("out", "out_e"):
        np.testing.assert_array_equal(with_c[name], in_python[name])
    e = np.exp(x)
    np.testing.assert_allclose(with_c["out_e"], e, rtol=1e-6)
    s = (np.tanh(e * np.float32(3)) + np.float32([0.5, -1, 2])) - x
    np.testing.assert_allclose(with_c["out"], s * s, rtol=1e-6)
    # a constant input: read-only, shared by every run; the same results run after run
    executor = Executor(_segment_graph(const("x", x)), cpu())
    first, second = run(executor), run(executor)
    np.testing.assert_array_equal(first["out"], in_python["out"])
    np.testing.assert_array_equal(second["out"], in_python["out"])


def test_a_segment_names_its_failing_node_and_runs_without_the_gil(fresh_devices) -> None:
    """A kernel failing inside a segment is reported on its node; while a segment's kernels run, other Python
    threads run (the GIL is released once for the whole segment, as TF's executor never holds one)."""
    import threading

    bad = graph(feed("x"), node("Exp", "e", "x", T=F32), node("MatMul", "mm", "e", "e", T=F32),
                node("Neg", "n", "mm", T=F32), fetch("out", "n"))  # fmt: skip
    failing = Executor(bad, cpu())
    assert failing._fast_plan.segments
    with pytest.raises(errors.InvalidArgumentError, match=r"\[\[\{\{node mm\}\}\]\] \(op MatMul on"):
        run(failing, {"x": np.ones((2, 3), np.float32)})
    chain = [feed("x")] + [node("Tanh" if i % 2 else "Exp", f"k{i}", "x" if i == 0 else f"k{i - 1}", T=F32)
                           for i in range(40)]  # fmt: skip
    executor = Executor(graph(*chain, fetch("out", "k39")), cpu())
    assert [s[2] for s in executor._fast_plan.segments] == [40]
    big = np.full(1 << 21, 0.5, np.float32)
    run(executor, {"x": big})
    ticks = 0
    finished = threading.Event()

    def count() -> None:
        nonlocal ticks
        while not finished.is_set():
            ticks += 1

    counter = threading.Thread(target=count)
    counter.start()
    try:
        out = run(executor, {"x": big})
    finally:
        finished.set()
        counter.join()
    assert ticks > 1000  # with the GIL held for the whole run the counter could not have run at all
    assert out["out"].shape == big.shape and np.all(np.isfinite(out["out"]))


def test_segments_of_several_threads_at_once_give_each_its_own_results(fresh_devices) -> None:
    """Plans of one graph run from several threads at once: each run's values stay its own."""
    import concurrent.futures

    executor = Executor(_segment_graph(feed("x")), cpu())
    inputs = [np.float32(np.random.default_rng(i).standard_normal((64, 3))) for i in range(16)]
    want = []
    for x in inputs:
        e = np.exp(x)
        s = (np.tanh(e * np.float32(3)) + np.float32([0.5, -1, 2])) - x
        want.append((s * s, e))

    def one(i: int) -> None:
        for _ in range(20):
            got = run(executor, {"x": inputs[i].copy()})
            np.testing.assert_allclose(got["out"], want[i][0], rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(got["out_e"], want[i][1], rtol=1e-6)

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        list(pool.map(one, range(16)))


def test_kernels_of_several_outputs_run_in_the_c_plan_loop(fresh_devices) -> None:
    """Split, SplitV, Unique and TopKV2 (numpy kernels of several outputs) are called by the C plan loop without a
    kernel context; results equal the Python loop's, and a wrong output count or dtype is still the executor's."""
    x = np.float32([[3, 1, 2, 1], [0, 5, 5, 4]])
    g = graph(
        const("x", x),
        const("axis", np.int32(1)),
        const("sizes", np.int32([1, 3])),
        const("k", np.int32(2)),
        const("flat_shape", np.int32([-1])),
        node("Split", "split", "axis", "x", T=F32, num_split=2),
        node("SplitV", "splitv", "x", "sizes", "axis", T=F32, Tlen=dtypes.int32, num_split=2),
        node("TopKV2", "top", "x", "k", T=F32, sorted=True),
        node("Reshape", "flat", "x", "flat_shape", T=F32, Tshape=dtypes.int32),
        node("Unique", "unique", "flat", T=F32, out_idx=dtypes.int32),
        node("AddV2", "sum", "split", "split:1", T=F32),
        fetch("s0", "sum"),
        fetch("v1", "splitv:1"),
        fetch("t0", "top"),
        fetch("t1", "top:1", dtypes.int32),
        fetch("u0", "unique"),
        fetch("u1", "unique:1", dtypes.int32),
    )
    executor = Executor(g, cpu())
    multi = [item.name for item in executor._items if item.multi is not None]
    assert sorted(multi) == ["split", "splitv", "top", "unique"]
    values, position, handed_back = [None] * executor._num_slots, 0, []
    while position < len(executor._plan):
        position = executor._fast_plan.run(values, position)
        if position < len(executor._plan):
            handed_back.append(executor._plan[position][1].node.op)
            position += 1
    assert set(handed_back) == {"_Send"}  # only the fetches go back to the executor
    with_c = run(executor)
    executor._fast_plan = None
    in_python = run(executor)
    for name, value in in_python.items():
        np.testing.assert_array_equal(with_c[name], value)
    np.testing.assert_array_equal(with_c["s0"], x[:, :2] + x[:, 2:])
    np.testing.assert_array_equal(with_c["v1"], x[:, 1:])
    np.testing.assert_array_equal(with_c["t0"], [[3, 2], [5, 5]])
    np.testing.assert_array_equal(with_c["t1"], [[0, 2], [1, 2]])
    np.testing.assert_array_equal(with_c["u0"], [3, 1, 2, 0, 5, 4])
    assert with_c["u1"].dtype == np.int32


def test_the_c_plan_hands_back_a_multi_output_call_with_the_wrong_count_or_dtype() -> None:
    pr = _plan_runner()
    f32 = np.dtype(np.float32)

    def halves(v):
        return np.split(v, 2)

    values = [np.float32([1, 2, 3, 4]), None, None]
    assert pr.Plan([(halves, (f32, f32), (0,), (0,), (1, 2), (), None)]).run(values, 0) == 1
    assert values[0] is None and list(values[1]) == [1, 2] and list(values[2]) == [3, 4]
    for wrong in (lambda v: [v], lambda v: [v, v.astype(np.int32)], lambda v: 7):
        values = [np.float32([1, 2]), None, None]
        assert pr.Plan([(wrong, (f32, f32), (0,), (0,), (1, 2), (), None)]).run(values, 0) == 0  # handed back
        assert values[0] is not None and values[1] is None and values[2] is None  # nothing changed
    many = 12  # more outputs than the plan keeps on its stack
    values = [np.arange(many, dtype=np.float32)] + [None] * many
    plan = pr.Plan([(lambda v: list(v), (f32,) * many, (0,), (), tuple(range(1, many + 1)), (3,), None)])
    assert plan.run(values, 0) == 1
    assert [float(v) for v in values[1:3]] == [0, 1] and values[3] is None and float(values[many]) == many - 1

    def broken(v):
        raise ValueError("broken split")

    failing = pr.Plan([(broken, (f32, f32), (0,), (0,), (1, 2), (), None)])
    values = [np.float32([1, 2]), None, None]
    with pytest.raises(ValueError, match="broken split"):
        failing.run(values, 0)
    assert failing.failed_at == 0 and values[0] is not None
    with pytest.raises(ValueError, match="one dtype per output"):
        pr.Plan([(halves, (f32,), (0,), (), (1, 2), (), None)])


def test_edge_dtype_mismatch_is_tensorflows_error(fresh_devices) -> None:
    g = graph(const("x", np.float32(1)), node("Neg", "y", "x", T=dtypes.int32))
    with pytest.raises(errors.InvalidArgumentError) as info:
        Executor(g, cpu())
    assert str(info.value) == "Input 0 of node y was passed float from x incompatible with expected int32."


def test_a_missing_tensor_pauses_the_run_until_it_is_sent(registry) -> None:
    g = graph(feed("x"), node("Exp", "e", "x", T=F32), fetch("out", "e"))
    executor = Executor(g, cpu(), registry=registry)
    rendezvous = Rendezvous()
    step = executor.start(rendezvous)
    assert step.advance() is False and step.position == 0 and not step.done
    assert step.waiting_on == transfer_key(executor.nodes[0])
    rendezvous.send(step.waiting_on, np.float32([0]), cpu(), True)
    assert step.advance() is True and step.done
    np.testing.assert_array_equal(rendezvous.try_recv(transfer_key(executor.nodes[-1])).value, [1])
    with pytest.raises(errors.InternalError, match="waiting for a tensor that was never sent"):
        executor.run(Rendezvous())


def test_step_stats_record_every_node(registry) -> None:
    g = graph(const("c", np.float32([1, 2])), node("Exp", "e", "c", T=F32), fetch("out", "e"))
    stats = step_stats_pb2.DeviceStepStats(device=CPU0)
    run(Executor(g, cpu(), registry=registry), stats=stats)
    assert [s.node_name for s in stats.node_stats] == ["c", "e", "out"]
    exp = stats.node_stats[1]
    assert exp.timeline_label == "e = Exp(c)"
    assert exp.all_start_micros > 0 and exp.all_end_rel_nanos >= exp.op_end_rel_nanos >= 0
    assert exp.output[0].tensor_description.dtype == F32.as_datatype_enum
    assert [d.size for d in exp.output[0].tensor_description.shape.dim] == [2]
    assert stats.node_stats[2].timeline_label == f"out = _Send(e @{CPU0})"


def test_stateful_kernels_come_from_the_kernel_cache(fresh_devices) -> None:
    shape = const("shape", np.int32([3]))
    uniform = node("RandomUniform", "u", "shape", T=dtypes.int32, dtype=F32, seed=7, seed2=9)
    cache: dict = {}
    first = Executor(graph(shape, uniform, fetch("out", "u")), cpu(), kernel_cache=cache)
    second = Executor(graph(shape, uniform, fetch("out", "u")), cpu(), kernel_cache=cache)
    alone = Executor(graph(shape, uniform, fetch("out", "u")), cpu())
    a1, a2 = run(alone)["out"], run(alone)["out"]
    b1, b2 = run(first)["out"], run(second)["out"]
    np.testing.assert_array_equal(b1, a1)
    np.testing.assert_array_equal(b2, a2)  # the second executor continued the first one's stream
    assert not np.array_equal(a1, a2)


# ---------------------------------------------------------------- host scalar ops and loop plans (csrc/plan)

_EDGES = {
    np.int32: [0, 1, -1, 7, np.iinfo(np.int32).max, np.iinfo(np.int32).min],
    np.int64: [0, 1, -1, 7, np.iinfo(np.int64).max, np.iinfo(np.int64).min],
    np.float32: [0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, np.nan, 3.4e38, 1e-45],
    np.float64: [0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, np.nan, 1.7e308, 5e-324],
    np.bool_: [False, True],
}


def _plan_runner():
    from modtensor.runtime import _plan_runner

    return _plan_runner


@pytest.mark.parametrize("dtype", list(_EDGES), ids=lambda t: np.dtype(t).name)
def test_scalar_ops_give_the_numpy_kernels_results_on_0d_operands(dtype) -> None:
    """The C path of the scalar ops (0-d operands of one dtype) equals the numpy kernel bit for bit: integers wrap
    around, NaN compares unequal, -0.0 keeps its sign; other shapes and mixed dtypes go to the kernel itself."""
    from modtensor.kernels.cpu import elementwise

    pr = _plan_runner()
    for name, code in pr.SCALAR_OPS.items():
        kernel = getattr(elementwise, name)
        op = pr.ScalarOp(code, kernel)
        for x in _EDGES[dtype]:
            for y in _EDGES[dtype]:
                a, b = np.array(x, dtype), np.array(y, dtype)
                try:
                    want = kernel(a, b)
                except Exception as exc:  # noqa: BLE001 - the op has no such dtype: the kernel's error either way
                    with pytest.raises(type(exc)):
                        op(a, b)
                    continue
                got = op(a, b)
                assert type(got) is np.ndarray and got.dtype == want.dtype and got.shape == (), (name, x, y)
                assert got.tobytes() == np.asarray(want).tobytes(), (name, x, y, got, want)
        vector = np.array(_EDGES[dtype][:2], dtype)
        try:
            want = kernel(vector, vector[:1])
        except Exception as exc:  # noqa: BLE001
            with pytest.raises(type(exc)):
                op(vector, vector[:1])
            continue
        np.testing.assert_array_equal(op(vector, vector[:1]), want)
    with pytest.raises(errors.InvalidArgumentError, match="Incompatible shapes"):
        pr.ScalarOp(pr.SCALAR_OPS["add"], elementwise.add)(np.ones(2, np.int32), np.ones(3, np.int32))


def test_scalar_ops_write_into_an_operand_only_when_the_plan_gives_it_up_and_nothing_else_holds_it() -> None:
    import weakref

    from modtensor.kernels.cpu import elementwise

    pr = _plan_runner()
    add = pr.ScalarOp(pr.SCALAR_OPS["add"], elementwise.add)
    one = np.array(1, np.int32)
    plan = pr.Plan([(elementwise.add, None, (0, 1), (0,), 2, (), (pr.SCALAR_CALL, add))])
    values = [np.array(5, np.int32), one, None]
    first = weakref.ref(values[0])
    assert plan.run(values, 0) == 1
    assert values[2] is first() and int(values[2]) == 6 and values[0] is None  # given up, only the plan held it
    held = np.array(5, np.int32)
    values = [held, one, None]
    plan.run(values, 0)
    assert values[2] is not held and int(held) == 5 and int(values[2]) == 6  # the caller still holds it
    constant = np.array(5, np.int32)
    constant.flags.writeable = False
    values = [constant, one, None]
    del constant
    plan.run(values, 0)
    assert values[2].flags.writeable and int(values[2]) == 6  # a read-only value is never written: a new array
    assert int(one) == 1


class _FakeItem:
    """What a LoopPlan reads of an executor item."""

    def __init__(self, name: str, call, native=None, num_inputs: int = 2):
        self.name = name
        self.call = call
        self.native = native
        self.num_inputs = num_inputs
        self.expected = None
        self.kernel = None

    def direct_call(self):
        return None if self.call is None else (self.call, self.native)


def _counter_plan(fail_at: int | None = None):
    """i < n through a Python step (an int predicate: n - i), i + 1 in C, acc + i through a Python step."""
    from modtensor.kernels.cpu import elementwise
    from modtensor.runtime.loop_plan import LoopPlan, LoopStep

    pr = _plan_runner()
    add = pr.ScalarOp(pr.SCALAR_OPS["add"], elementwise.add)
    sub = _FakeItem("left", None)  # handed back: run_step computes n - i
    inc = _FakeItem("inc", elementwise.add, (pr.SCALAR_CALL, add))
    acc = _FakeItem("acc", None)
    # slots: 0 i, 1 acc, 2 n, 3 one, 4 n - i, 5 i + 1, 6 acc + i
    head = [LoopStep(sub, (2, 0), (4,))]
    body = [LoopStep(inc, (0, 3), (5,)), LoopStep(acc, (1, 0), (6,))]
    plan = LoopPlan(7, head, body, 4, [(0, 5), (1, 6)], results=(0, 1))
    seen = []

    def run_step(step, inputs, iteration):
        seen.append((step.item.name, iteration))
        if step.item.name == "left":
            return [np.asarray(inputs[0] - inputs[1])]
        if step.item.name == "acc" and iteration == fail_at:
            raise ValueError("acc broke")
        return [np.asarray(inputs[0] + inputs[1])]

    values = [np.array(0, np.int32), np.array(0, np.int64), np.array(10, np.int32), np.array(1, np.int32)] + [None] * 3
    return plan, values, run_step, seen


@pytest.mark.parametrize("in_c", [True, False], ids=["c", "python"])
def test_a_loop_plan_aliases_identities_of_any_value_and_drops_no_ops(in_c: bool) -> None:
    """An Identity step of a non-array value (a TensorList, a resource) aliases its input slot like any Identity,
    and a NoOp (it only orders control edges, which the steps' order already does) is not a step at all."""
    from modtensor.kernels.cpu import elementwise
    from modtensor.runtime.kernels.functional import to_bool
    from modtensor.runtime.kernels.plumbing import IdentityKernel, NoOpKernel
    from modtensor.runtime.loop_plan import LoopPlan, LoopStep

    pr = _plan_runner()
    add = pr.ScalarOp(pr.SCALAR_OPS["add"], elementwise.add)
    left, inc, append = _FakeItem("left", None), _FakeItem("inc", elementwise.add, (pr.SCALAR_CALL, add)), _FakeItem(
        "append", None)  # fmt: skip
    ident = _FakeItem("ident", None, num_inputs=1)
    ident.kernel = IdentityKernel.__new__(IdentityKernel)
    no_op = _FakeItem("no_op", None, num_inputs=0)
    no_op.kernel = NoOpKernel.__new__(NoOpKernel)
    # slots: 0 i, 1 a Python list, 2 n, 3 one, 4 n - i, 5 i + 1, 6 the list through Identity, 7 the list appended to
    head = [LoopStep(left, (2, 0), (4,))]
    body = [LoopStep(no_op, (), ()), LoopStep(ident, (1,), (6,)), LoopStep(inc, (0, 3), (5,)),
            LoopStep(append, (6, 0), (7,))]  # fmt: skip
    plan = LoopPlan(8, head, body, 4, [(0, 5), (1, 7)], results=(0, 1))
    assert [step.item.name for step in plan.steps] == ["left", "inc", "append"] and plan.aliases == {6: 1}
    if not in_c:
        plan._fast = None

    def run_step(step, inputs, iteration):
        if step.item.name == "left":
            return [np.asarray(inputs[0] - inputs[1])]
        if step.item.name == "inc":  # the Python loop hands the scalar op back too
            return [np.asarray(inputs[0] + inputs[1])]
        return [[*inputs[0], int(inputs[1])]]

    values = [np.array(0, np.int32), [], np.array(4, np.int32), np.array(1, np.int32)] + [None] * 4
    assert plan.run(values, None, run_step, to_bool) == 4
    assert values[1] == [0, 1, 2, 3]


@pytest.mark.parametrize("in_c", [True, False], ids=["c", "python"])
def test_a_loop_plan_hands_back_steps_and_predicates_and_stops_on_cancel_and_failure(in_c: bool) -> None:
    from modtensor.runtime.cancellation import CancellationManager
    from modtensor.runtime.kernels.functional import to_bool
    from modtensor.runtime.loop_plan import LoopCancelled, LoopFailure

    plan, values, run_step, seen = _counter_plan()
    assert plan._fast is not None
    if not in_c:
        plan._fast = None
    assert plan.run(values, None, run_step, to_bool) == 10
    assert int(values[0]) == 10 and int(values[1]) == 45
    handed_back = [entry for entry in seen if entry[0] != "inc"]  # in C, the scalar op runs there
    assert handed_back[:3] == [("left", 0), ("acc", 0), ("left", 1)] and handed_back[-1] == ("left", 10)
    assert ("inc", 0) not in seen if in_c else ("inc", 0) in seen
    plan, values, run_step, _seen = _counter_plan(fail_at=4)
    if not in_c:
        plan._fast = None
    with pytest.raises(LoopFailure) as info:
        plan.run(values, None, run_step, to_bool)
    assert info.value.step.item.name == "acc" and info.value.iteration == 4 and "acc broke" in str(info.value.error)
    plan, values, run_step, _seen = _counter_plan()
    if not in_c:
        plan._fast = None
    cancellation = CancellationManager()
    cancellation.cancel()
    with pytest.raises(LoopCancelled):
        plan.run(values, cancellation, run_step, to_bool)
