"""The dataflow executor side by side with TensorFlow: while loops, inter-op parallelism, a loop on two devices.

* v1 ``while_loop`` of 10,000 small iterations (the TF-exported counter loop of
  tests/golden/v1_control_flow: ``i < n``, ``i + 1``, ``acc * 2``), run through ``Session.run``:
  time per iteration, modtensor's compiled loop and its dataflow machine, against TF's executor.
* Two independent 1024x1024 MatMul branches joined by an add: wall time with 2 inter-op
  threads against 1, each MatMul on one intra-op thread (modtensor; TF at its defaults, which
  uses both cores inside each MatMul); close to 0.5 means the branches overlap.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from timing import Environment, Row, measure_interleaved

GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "golden" / "v1_control_flow"
ITERATIONS = 10_000
N = 1024


def _loop_session(tf: Any, config: Any = None) -> tuple[Any, Any]:
    graph = tf.Graph()
    with graph.as_default():
        graph_def = tf.compat.v1.GraphDef.FromString((GOLDEN / "while_counter.pb").read_bytes())
        tf.import_graph_def(graph_def, name="")
    session = tf.compat.v1.Session(graph=graph, config=config)
    return session, lambda: session.run("while/Exit:0", {"n:0": np.int32(ITERATIONS)})


def _branches(tf: Any, threads: int | None) -> tuple[Any, Any]:
    graph = tf.Graph()
    with graph.as_default():
        a = tf.compat.v1.placeholder(tf.float32, [N, N], name="a")
        b = tf.compat.v1.placeholder(tf.float32, [N, N], name="b")
        out = tf.matmul(tf.matmul(a, a), a) + tf.matmul(tf.matmul(b, b), b)
    config = None if threads is None else tf.compat.v1.ConfigProto(inter_op_parallelism_threads=threads)
    session = tf.compat.v1.Session(graph=graph, config=config)
    rng = np.random.default_rng(0)
    feeds = {a: rng.standard_normal((N, N), np.float32) / 32, b: rng.standard_normal((N, N), np.float32) / 32}
    return session, lambda: session.run(out, feeds)


def run(env: Environment) -> list[Row]:
    """Rows for the loop (per iteration) and the two-branch graph (per run)."""
    import modtensor
    from modtensor.framework.protos import config_pb2

    tf = env.tensorflow
    sessions = []
    compiled, compiled_run = _loop_session(modtensor)
    dataflow, dataflow_run = _loop_session(modtensor)
    dataflow._options.compile_loops = False  # the same loop frame by frame on the dataflow machine
    sessions += [compiled, dataflow]
    assert compiled_run() == ITERATIONS and dataflow_run() == ITERATIONS
    tf_run = None
    if tf is not None:
        tf_session, tf_run = _loop_session(tf)
        sessions.append(tf_session)
    loop = measure_interleaved(
        {"compiled": compiled_run, "dataflow": dataflow_run, "tf": tf_run}, repeats=max(3, env.repeats // 4)
    )
    intra = modtensor.config.threading.get_intra_op_parallelism_threads()
    modtensor.config.threading.set_intra_op_parallelism_threads(1)  # parallelism between the ops, not in them
    one, one_run = _branches(modtensor, 1)
    two, two_run = _branches(modtensor, 2)
    sessions += [one, two]
    np.testing.assert_allclose(one_run(), two_run(), rtol=1e-5)
    tf_branches = None
    if tf is not None:
        tf_two, tf_branches = _branches(tf, None)
        sessions.append(tf_two)
    branches = measure_interleaved(
        {"one": one_run, "two": two_run, "tf": tf_branches}, repeats=max(3, env.repeats // 4)
    )
    modtensor.config.threading.set_intra_op_parallelism_threads(intra)
    for session in sessions:
        session.close()
    del config_pb2
    loop_note = "TF-exported v1 loop (i < n; i + 1; acc * 2), Session.run, per iteration"
    return [
        Row("while_loop (10,000 iterations)", "compiled loop, per iteration", loop["compiled"], None, loop["tf"],
            ITERATIONS, loop_note),
        Row("while_loop (10,000 iterations)", "dataflow machine, per iteration", loop["dataflow"], None, loop["tf"],
            ITERATIONS, loop_note + " (compile_loops off)"),
        Row("two independent 1024^2 MatMul branches", "2 inter-op threads, 1 intra-op (numpy: 1 inter-op)",
            branches["two"], branches["one"], branches["tf"], 1,
            "the NumPy column is modtensor with 1 inter-op thread: the ratio is the parallel speedup"),
    ]  # fmt: skip
