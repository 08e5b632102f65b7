"""Record how TensorFlow lowers functional control flow: graphs with If/Case/While and what TF runs for them.

Each case builds a TF1-style graph with TensorFlow 2's control flow (If/While/Case nodes
calling library functions), writes it to ``tests/golden/control_flow/lowering/NAME.pbtxt``,
runs it in a ``Session`` with the graph optimizers off (grappler and the L1 graph
optimizations: no CSE, no constant folding) and partition graphs recorded, and
stores in ``lowering.json``: the feeds and fetches, TF's results, and the op counts of
the partition graphs TF executed (its LowerFunctionalOpsPass output: Switch, Merge,
Enter, ...). ``tests/grappler/test_lower_functional_ops.py`` lowers the same GraphDefs
with modtensor's pass and runs them.

    /work/tfvenv/bin/python tools/make_golden_lowering.py
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.core.protobuf import config_pb2  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "golden" / "control_flow" / "lowering"
# Ops whose counts the test compares: the control-flow skeleton and the computation (not the inliner's plumbing).
COUNTED = {"Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond", "_SwitchN", "AddV2", "Mul", "Sub", "Less"}


def cond_graph():
    x = tf.compat.v1.placeholder(tf.float32, [None], name="x")
    y = tf.cond(tf.reduce_sum(x) > 0.0, lambda: x * 2.0, lambda: x - 1.0)
    return {"x": np.array([1.0, 2.0], np.float32)}, [y]


def while_graph():
    n = tf.compat.v1.placeholder(tf.int32, [], name="n")
    x = tf.compat.v1.placeholder(tf.float32, [2], name="x")
    i, v = tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v * 3.0 + 1.0), [tf.constant(0), x])
    return {"n": np.int32(4), "x": np.array([1.0, -1.0], np.float32)}, [i, v]


def cond_in_while_graph():
    n = tf.compat.v1.placeholder(tf.int32, [], name="n")

    def body(i, acc):
        acc = tf.cond(i < 2, lambda: acc + 1.0, lambda: acc * 2.0)
        return i + 1, acc

    i, acc = tf.while_loop(lambda i, acc: i < n, body, [tf.constant(0), tf.constant(1.0)])
    return {"n": np.int32(5)}, [i, acc]


def switch_case_graph():
    k = tf.compat.v1.placeholder(tf.int32, [], name="k")
    x = tf.compat.v1.placeholder(tf.float32, [], name="x")
    y = tf.switch_case(k, [lambda: x + 1.0, lambda: x * 10.0, lambda: x - 5.0])
    return {"k": np.int32(1), "x": np.float32(2.0)}, [y]


def nested_while_graph():
    n = tf.compat.v1.placeholder(tf.int32, [], name="n")

    def outer(i, total):
        _, inner_total = tf.while_loop(lambda j, t: j < i, lambda j, t: (j + 1, t + 1.0), [tf.constant(0), total])
        return i + 1, inner_total

    i, total = tf.while_loop(lambda i, t: i < n, outer, [tf.constant(0), tf.constant(0.0)])
    return {"n": np.int32(4)}, [i, total]


CASES = {
    "cond": cond_graph,
    "while": while_graph,
    "cond_in_while": cond_in_while_graph,
    "switch_case": switch_case_graph,
    "nested_while": nested_while_graph,
}


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    config = config_pb2.ConfigProto()
    config.graph_options.rewrite_options.disable_meta_optimizer = True
    config.graph_options.optimizer_options.opt_level = config_pb2.OptimizerOptions.L0  # no CSE, no constant folding
    options = config_pb2.RunOptions(output_partition_graphs=True)
    record = {"tensorflow_version": tf.__version__, "counted_ops": sorted(COUNTED), "cases": {}}
    for name, build in CASES.items():
        graph = tf.Graph()
        with graph.as_default():
            feeds, fetches = build()
        graph_def = graph.as_graph_def()
        (OUT / f"{name}.pbtxt").write_text(str(graph_def))
        metadata = config_pb2.RunMetadata()
        with tf.compat.v1.Session(graph=graph, config=config) as sess:
            feed_dict = {graph.get_tensor_by_name(f"{k}:0"): v for k, v in feeds.items()}
            values = sess.run(fetches, feed_dict, options=options, run_metadata=metadata)
        counts = Counter(n.op for g in metadata.partition_graphs for n in g.node if n.op in COUNTED)
        record["cases"][name] = {
            "feeds": {
                k: {"dtype": str(np.asarray(v).dtype), "value": np.asarray(v).tolist()} for k, v in feeds.items()
            },
            "fetches": [t.name for t in fetches],
            "outputs": [np.asarray(v).tolist() for v in values],
            "functional_ops": sorted(op.type for op in graph.get_operations() if op.type in _FUNCTIONAL),
            "lowered_counts": dict(sorted(counts.items())),
        }
        print(f"{name}: {dict(counts)}")
    (OUT / "lowering.json").write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


_FUNCTIONAL = {"If", "StatelessIf", "Case", "StatelessCase", "While", "StatelessWhile"}

if __name__ == "__main__":
    sys.exit(main())
