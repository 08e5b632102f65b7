"""Record TensorFlow v1 control-flow graphs (Switch/Merge/Enter/Exit/NextIteration/LoopCond) and their results.

Run with a Python that has TensorFlow (never imported by modtensor or its tests):
    /work/tfvenv/bin/python tools/make_golden_v1_control_flow.py

Each program is built in a TF1 graph with control flow v1 (``disable_control_flow_v2``), so
``tf.cond`` and ``tf.while_loop`` emit the v1 ops the dataflow executor runs. For each we
write ``tests/golden/v1_control_flow/NAME.pb`` (the GraphDef) and record, in
``cases.json``, the feeds, the fetches and TF's fetched values (or its error class and
message) for several feed values. ``tests/runtime/test_v1_control_flow.py`` replays them.
"""

from __future__ import annotations

import json
import os
import pathlib

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "golden" / "v1_control_flow"
v1 = tf.compat.v1


def cond_basic():
    x = v1.placeholder(tf.float32, [None], name="x")
    out = tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2.0, lambda: x - 1.0, name="cond")
    return {"x": x}, [out], [{"x": [1.0, 2.0]}, {"x": [-3.0, 1.0]}]


def cond_nested():
    x = v1.placeholder(tf.float32, [], name="x")

    def inner_true():
        return tf.cond(x > 10.0, lambda: x * 100.0, lambda: x * 10.0)

    out = tf.cond(x > 0.0, inner_true, lambda: -x, name="outer")
    return {"x": x}, [out], [{"x": 20.0}, {"x": 3.0}, {"x": -4.0}]


def cond_multiple_outputs():
    x = v1.placeholder(tf.int32, [], name="x")
    a, b = tf.cond(x > 0, lambda: (x + 1, tf.cast(x, tf.float32) * 0.5), lambda: (x - 1, tf.constant(7.0)))
    return {"x": x}, [a, b], [{"x": 4}, {"x": -2}]


def while_counter():
    n = v1.placeholder(tf.int32, [], name="n")
    i, acc = tf.while_loop(lambda i, acc: i < n, lambda i, acc: (i + 1, acc * 2.0), [tf.constant(0), tf.constant(1.0)])
    return {"n": n}, [i, acc], [{"n": 5}, {"n": 0}, {"n": 20}]


def while_invariant_capture():
    x = v1.placeholder(tf.float32, [3], name="x")
    w = tf.constant([1.0, 2.0, 3.0])
    _, out = tf.while_loop(
        lambda i, v: i < 4, lambda i, v: (i + 1, v * w + x), [tf.constant(0), tf.zeros([3])], parallel_iterations=1
    )
    return {"x": x}, [out], [{"x": [1.0, 0.5, -1.0]}]


def while_nested():
    n = v1.placeholder(tf.int32, [], name="n")

    def body(i, total):
        _, inner = tf.while_loop(lambda j, s: j < i, lambda j, s: (j + 1, s + j), [tf.constant(0), tf.constant(0)])
        return i + 1, total + inner

    i, total = tf.while_loop(lambda i, total: i < n, body, [tf.constant(0), tf.constant(0)])
    return {"n": n}, [i, total], [{"n": 6}, {"n": 1}]


def while_in_cond():
    x = v1.placeholder(tf.int32, [], name="x")

    def looping():
        return tf.while_loop(lambda i: i < 10, lambda i: i + 3, [x])[0]

    out = tf.cond(x < 5, looping, lambda: x * 100)
    return {"x": x}, [out], [{"x": 1}, {"x": 7}]


def cond_in_while():
    n = v1.placeholder(tf.int32, [], name="n")

    def body(i, acc):
        step = tf.cond(tf.equal(i % 2, 0), lambda: acc + 1.0, lambda: acc * 3.0)
        return i + 1, step

    i, acc = tf.while_loop(lambda i, acc: i < n, body, [tf.constant(0), tf.constant(0.0)])
    return {"n": n}, [acc], [{"n": 7}]


def while_parallel_matrix():
    x = v1.placeholder(tf.float32, [4, 4], name="x")
    _, out = tf.while_loop(
        lambda i, m: i < 6,
        lambda i, m: (i + 1, tf.nn.relu(tf.matmul(m, x) - 0.5)),
        [tf.constant(0), tf.constant(np.eye(4, dtype=np.float32))],
        parallel_iterations=10,
    )
    return {"x": x}, [out], [{"x": (np.arange(16, dtype=np.float32).reshape(4, 4) / 20.0).tolist()}]


def while_maximum_iterations():
    x = v1.placeholder(tf.float32, [], name="x")
    i, out = tf.while_loop(
        lambda i, v: v < 1e9, lambda i, v: [i + 1, v * 2.0], [tf.constant(0), x], maximum_iterations=7
    )
    return {"x": x}, [i, out], [{"x": 1.5}, {"x": 3e8}]


def while_error_in_body():
    n = v1.placeholder(tf.int32, [], name="n")

    def body(i, acc):
        checked = tf.debugging.check_numerics(acc, "acc exploded")
        return i + 1, checked * 1e30

    _, acc = tf.while_loop(lambda i, acc: i < n, body, [tf.constant(0), tf.constant(1.0)])
    return {"n": n}, [acc], [{"n": 1}, {"n": 4}]


def while_then_while():
    """Two loops in a row: the second starts from the first's results (both compiled, one feeding the other)."""
    n = v1.placeholder(tf.int32, [], name="n")
    i, acc = tf.while_loop(lambda i, acc: i < n, lambda i, acc: (i + 1, acc * 2.0), [tf.constant(0), tf.constant(1.0)])
    j, out = tf.while_loop(lambda j, v: j < i + 3, lambda j, v: (j + 1, v + acc), [i, acc], name="second")
    return {"n": n}, [j, out], [{"n": 3}, {"n": 0}]


PROGRAMS = [
    cond_basic,
    cond_nested,
    cond_multiple_outputs,
    while_counter,
    while_invariant_capture,
    while_nested,
    while_in_cond,
    cond_in_while,
    while_parallel_matrix,
    while_maximum_iterations,
    while_error_in_body,
    while_then_while,
]


def _value(array):
    array = np.asarray(array)
    return {"dtype": array.dtype.name, "shape": list(array.shape), "value": array.tolist()}


def main() -> None:
    v1.disable_eager_execution()
    v1.disable_control_flow_v2()
    OUT.mkdir(parents=True, exist_ok=True)
    cases = {}
    for program in PROGRAMS:
        graph = tf.Graph()
        with graph.as_default():
            feeds, fetches, runs = program()
        graph_def = graph.as_graph_def()
        ops = sorted({n.op for n in graph_def.node})
        (OUT / f"{program.__name__}.pb").write_bytes(graph_def.SerializeToString(deterministic=True))
        records = []
        with v1.Session(graph=graph) as sess:
            for run in runs:
                feed_dict = {feeds[k]: np.asarray(v, dtype=feeds[k].dtype.as_numpy_dtype) for k, v in run.items()}
                record = {"feeds": {feeds[k].name: _value(feed_dict[feeds[k]]) for k in run}}
                try:
                    values = sess.run(fetches, feed_dict)
                    record["fetches"] = [_value(v) for v in values]
                except tf.errors.OpError as e:
                    # The error's own text: drop TF Python's "Detected at node ... defined at" traceback lines.
                    skip = ("Graph execution error", "Detected at node", "File ", "Node: ", "\t [[")
                    lines = [line.strip() for line in e.message.split("\n")]
                    lines = [line for line in lines if line and not line.startswith(skip)]
                    record["error"] = {"class": type(e).__name__, "message": lines[0]}
                records.append(record)
        cases[program.__name__] = {"fetch_names": [t.name for t in fetches], "ops": ops, "runs": records}
        print(f"{program.__name__}: {len(graph_def.node)} nodes, ops {ops}")
    (OUT / "cases.json").write_text(json.dumps({"tensorflow": tf.__version__, "programs": cases}, indent=1) + "\n")


if __name__ == "__main__":
    main()
