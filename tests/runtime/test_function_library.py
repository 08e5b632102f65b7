"""The function library runtime and the functional kernels (If, Case, While, PartitionedCall) run as kernels.

Graphs are compiled with lowering off (``ExecutionOptions.lower_control_flow=False``, TF's
``disable_functional_ops_lowering``), so the functional ops run through their kernels and the
library functions through ``FunctionLibraryRuntime``: instantiated once per (function, attrs,
device), run many times, concurrently; values stay on their device; errors name the function,
the node, its op and the loop iteration. The same programs lowered (the default) give the same
numbers.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import modtensor as tf
from modtensor.framework import errors, function_def_lib
from modtensor.framework.func_graph import func_graph_from_py_func
from modtensor.framework.protos import config_pb2
from modtensor.framework.tensor import TensorSpec
from modtensor.runtime import function_library, graph_execution
from modtensor.runtime.function_library import FunctionLibraryRuntime


def _compile(fn, *specs, lower: bool | None = False, optimize: bool = True):
    """``fn`` traced for ``specs`` and compiled with the given lowering: (compiled graph, concrete function)."""
    concrete = tf.function(fn).get_concrete_function(*specs)
    graph = concrete.graph
    options = graph_execution.ExecutionOptions(
        allow_soft_placement=True, lower_control_flow=lower, optimize_graph=optimize
    )
    compiled = graph_execution.compile_graph(
        graph.as_graph_def(), [t.name for t in graph.inputs], [t.name for t in graph.outputs], (), options
    )
    return compiled, concrete


def _ops(compiled) -> set[str]:
    return {n.op for g in compiled.partition_graphs for n in g.node}


def loop_program(x, n):
    i, y = tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v * 2.0 + 1.0), [0, x])
    z = tf.cond(tf.reduce_sum(y) > 100.0, lambda: y / 10.0, lambda: -y)
    return i, z, tf.switch_case(n % 3, [lambda: z, lambda: z + 1.0, lambda: z * 0.0])


SPECS = (tf.TensorSpec([2], tf.float32), tf.TensorSpec([], tf.int32))


def test_functional_kernels_and_lowered_graph_give_the_same_numbers() -> None:
    functional, _ = _compile(loop_program, *SPECS, lower=False)
    lowered, _ = _compile(loop_program, *SPECS, lower=None)
    assert {"StatelessWhile", "StatelessIf", "StatelessCase"} <= _ops(functional)
    assert {"Enter", "Merge", "Switch", "_SwitchN"} <= _ops(lowered) and "StatelessWhile" not in _ops(lowered)
    for n in (0, 1, 5, 7):
        feeds = [np.array([1.0, -2.0], np.float32), np.array(n, np.int32)]
        a = functional.run(feeds)
        b = lowered.run(feeds)
        for got, want in zip(a, b, strict=True):
            np.testing.assert_allclose(got, want)
    y = np.array([1.0, -2.0], np.float32)
    for _ in range(5):
        y = y * 2 + 1
    np.testing.assert_allclose(functional.run([np.array([1.0, -2.0], np.float32), np.array(5, np.int32)])[1], -y)
    functional.close()
    lowered.close()


def test_a_loop_of_10000_iterations_instantiates_its_functions_once(monkeypatch) -> None:
    compiled_bodies: list[str] = []
    original = FunctionLibraryRuntime._compile

    def counting(self, function, attrs, device):
        compiled_bodies.append(function.signature.name)
        return original(self, function, attrs, device)

    monkeypatch.setattr(FunctionLibraryRuntime, "_compile", counting)

    def count(n):
        return tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + 2), [0, 0])

    compiled, _ = _compile(count, tf.TensorSpec([], tf.int32))
    for _ in range(2):
        i, s = compiled.run([np.array(10_000, np.int32)])
        assert int(i) == 10_000 and int(s) == 20_000
    assert sorted(name.split("_")[1] for name in compiled_bodies) == ["body", "cond"]
    compiled.close()


def test_nested_calls_and_conds_inside_loop_bodies_run_through_the_library() -> None:
    @tf.function
    def step(v):
        return tf.cond(v > 10.0, lambda: v - 10.0, lambda: v * 3.0)

    def program(x, n):
        return tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, step(v)), [0, x])[1]

    compiled, _ = _compile(program, tf.TensorSpec([], tf.float32), tf.TensorSpec([], tf.int32), optimize=False)
    assert "StatelessWhile" in _ops(compiled)
    v = 1.0
    for _ in range(6):
        v = v - 10.0 if v > 10.0 else v * 3.0
    assert float(compiled.run([np.array(1.0, np.float32), np.array(6, np.int32)])[0]) == v
    compiled.close()


def test_error_in_a_loop_body_names_function_node_op_and_iteration() -> None:
    def program(x):
        def body(i, acc):
            return i + 1, acc + tf.gather(x, [i])

        return tf.while_loop(lambda i, acc: i < 5, body, [tf.constant(0), tf.constant([0.0])])

    compiled, _ = _compile(program, tf.TensorSpec([3], tf.float32))
    with pytest.raises(errors.InvalidArgumentError) as info:
        compiled.run([np.array([1.0, 2.0, 3.0], np.float32)])
    message = info.value.message
    assert message.startswith("indices[0] = 3 is not in [0, 3)")
    assert "[[{{node while/GatherV2}}]] (op GatherV2 on /job:localhost/replica:0/task:0/device:CPU:0)" in message
    assert "[[{{function_node while_body_" in message and "(iteration 3 of the loop 'while')" in message
    assert "[[{{node while}}]] (op StatelessWhile" in message
    # The step ended cleanly: the same plan runs (and fails the same way) again, nothing left waiting.
    with pytest.raises(errors.InvalidArgumentError, match="iteration 3"):
        compiled.run([np.array([1.0, 2.0, 3.0], np.float32)])
    compiled.close()


def test_concurrent_calls_share_the_instantiation() -> None:
    compiled, _ = _compile(loop_program, *SPECS)
    results: dict[int, list] = {}

    def worker(n: int) -> None:
        results[n] = compiled.run([np.array([1.0, 1.0], np.float32), np.array(n, np.int32)])

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for n in range(8):
        assert int(results[n][0]) == n
        np.testing.assert_allclose(results[n][1], compiled.run([np.array([1.0, 1.0], np.float32), np.int32(n)])[1])
    compiled.close()


def test_session_config_turns_lowering_off() -> None:
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [], name="x")
        y = tf.cond(x > 0.0, lambda: x * 2.0, lambda: x - 1.0)
    for disable in (False, True):
        config = config_pb2.ConfigProto()
        config.experimental.disable_functional_ops_lowering = disable
        options = config_pb2.RunOptions(output_partition_graphs=True)
        metadata = config_pb2.RunMetadata()
        with tf.compat.v1.Session(graph=g, config=config) as sess:
            assert sess.run(y, {x: 3.0}, options=options, run_metadata=metadata) == 6.0
            assert sess.run(y, {x: -3.0}) == -4.0
        ops = {n.op for p in metadata.partition_graphs for n in p.node}
        assert ("StatelessIf" in ops) == disable and ("Merge" in ops) != disable


def test_instantiation_is_cached_per_function_attrs_and_device() -> None:
    def double(x):
        return x * 2.0

    graph = func_graph_from_py_func("double", double, (TensorSpec([2]),), {}, ["x"])
    fdef = function_def_lib.graph_to_function_def(graph, "double", graph.inputs, graph.outputs)
    library = tf.Graph()._function_library()
    library.function.add().CopyFrom(fdef)
    from modtensor.runtime import device_factory

    devices = device_factory.device_set()
    runtime = FunctionLibraryRuntime(library, devices)
    cpu = devices.client_device
    first = runtime.instantiate("double", {}, cpu)
    assert runtime.instantiate("double", {}, cpu) is first
    (out,) = first.run([function_library.SentTensor(np.array([1.0, 2.5], np.float32), cpu, True)])
    np.testing.assert_array_equal(out.value, [2.0, 5.0])
    assert out.device is cpu
    with pytest.raises(errors.NotFoundError, match="Function missing is not defined."):
        runtime.instantiate("missing", {}, cpu)
    with pytest.raises(errors.InvalidArgumentError, match="takes 1 arguments, got 0"):
        first.run([])
    runtime.close()
    with pytest.raises(errors.CancelledError):
        runtime.instantiate("double", {}, cpu)


def test_kernel_outside_a_graph_with_a_library_fails_clearly() -> None:
    from modtensor.framework.protos import graph_pb2

    graph_def = graph_pb2.GraphDef()
    node = graph_def.node.add(name="call", op="PartitionedCall")
    node.attr["f"].func.name = "nowhere"
    node.attr["Tin"].list.SetInParent()
    node.attr["Tout"].list.SetInParent()
    with pytest.raises(errors.FailedPreconditionError, match="compiled without a function library"):
        graph_execution.compile_graph(graph_def, [], [], ["call"])


def test_nested_function_with_constants_inside_a_lowered_loop_body() -> None:
    """The inlined call's constants join the loop's frame (they wait for the call's arguments)."""
    w = np.array([[0.5, -1.0], [2.0, 0.25]], np.float32)

    @tf.function
    def inner(v):
        return tf.nn.relu(tf.matmul(v, tf.constant(w)) + 0.5)

    def program(x, n):
        return tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, inner(v) * 0.5 + v), [0, x])[1]

    x = np.array([[1.0, -2.0]], np.float32)
    expected = program(tf.constant(x), tf.constant(3)).numpy()  # eagerly
    np.testing.assert_allclose(tf.function(program)(tf.constant(x), tf.constant(3)).numpy(), expected, rtol=1e-6)


def _while_kernels(compiled) -> list:
    from modtensor.runtime.kernels.functional import WhileKernel

    return [item.kernel for e in compiled._executors for item in e._items if isinstance(item.kernel, WhileKernel)]


def test_the_while_kernel_runs_cond_and_body_as_one_loop_plan() -> None:
    """On the host, cond's and body's straight-line plans become one LoopPlan (run in C): the same numbers as
    calling both functions every iteration, and as the LoopPlan's Python loop."""
    from modtensor.runtime.loop_plan import LoopPlan

    compiled, _ = _compile(loop_program, *SPECS)
    results = []
    for way in ("c", "python", "calls"):
        for n in (0, 1, 7):
            results.append((way, n, compiled.run([np.array([1.0, -2.0], np.float32), np.array(n, np.int32)])))
        (kernel,) = _while_kernels(compiled)
        if way == "c":
            assert isinstance(kernel._loop, LoopPlan) and kernel._loop._fast is not None
            kernel._loop._fast = None
        elif way == "python":
            kernel._loop = None  # from now on every iteration calls cond and body through InstantiatedFunction.run
    for (_, n, got), (_, m, want) in zip(results[3:], results[:6], strict=True):
        assert n == m
        for a, b in zip(got, want, strict=True):
            np.testing.assert_array_equal(a, b)
    compiled.close()


def _error_messages(program, specs, feeds) -> list[tuple[type, str]]:
    """The error of ``program`` through the loop plan in C, in Python, and through function calls."""
    compiled, _ = _compile(program, *specs)
    outcomes = []
    for way in ("c", "python", "calls"):
        with pytest.raises(errors.OpError) as info:
            compiled.run(feeds)
        outcomes.append((type(info.value), info.value.message))
        (kernel,) = _while_kernels(compiled)
        if way == "c":
            kernel._loop._fast = None
        else:
            kernel._loop = None
    compiled.close()
    return outcomes


def test_while_kernel_errors_in_cond_and_body_are_the_same_on_every_path() -> None:
    def in_body(x):
        return tf.while_loop(lambda i, acc: i < 5, lambda i, acc: (i + 1, acc + tf.gather(x, [i])),
                             [tf.constant(0), tf.constant([0.0])])  # fmt: skip

    def in_cond(x):
        return tf.while_loop(lambda i: tf.gather(x, [i])[0] < 10.0, lambda i: i + 1, [tf.constant(0)])

    feeds = [np.array([1.0, 2.0, 3.0], np.float32)]
    for program, function, iteration in ((in_body, "while_body_", 3), (in_cond, "while_cond_", 3)):
        outcomes = _error_messages(program, (tf.TensorSpec([3], tf.float32),), feeds)
        assert outcomes[0] == outcomes[1] == outcomes[2], outcomes
        cls, message = outcomes[0]
        assert cls is errors.InvalidArgumentError
        assert "[[{{node while/GatherV2}}]] (op GatherV2 on /job:localhost/replica:0/task:0/device:CPU:0)" in message
        assert f"[[{{{{function_node {function}" in message
        assert f"(iteration {iteration} of the loop 'while')" in message and "[[{{node while}}]]" in message


def test_a_run_timeout_stops_an_endless_while_kernel_promptly() -> None:
    """Lowering off: the While kernel's loop (in C) checks the step's cancellation before every iteration."""
    import time

    graph = tf.Graph()
    with graph.as_default():
        n = tf.compat.v1.placeholder(tf.int32, [], name="n")
        out = tf.while_loop(lambda i, acc: i < n, lambda i, acc: (i + 1, acc * 0.5 + 1.0), [0, tf.constant(0.0)])
    config = config_pb2.ConfigProto()
    config.experimental.disable_functional_ops_lowering = True
    with tf.compat.v1.Session(graph=graph, config=config) as session:
        assert int(session.run(out, {n: np.int32(10)})[0]) == 10
        started = time.monotonic()
        with pytest.raises(errors.DeadlineExceededError):
            session.run(out, {n: np.int32(2**31 - 1)}, options=config_pb2.RunOptions(timeout_in_ms=200))
        assert time.monotonic() - started < 30
        assert int(session.run(out, {n: np.int32(7)})[0]) == 7
