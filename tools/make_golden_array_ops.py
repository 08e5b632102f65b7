"""Record what TensorFlow's partition, stitch, sequence-reversal and counting functions build and compute.

    /work/tfvenv/bin/python tools/make_golden_array_ops.py

Writes ``tests/golden/array_ops/``: ``graph_cases.json`` and ``eager_cases.json`` (snippets of
``tf.dynamic_partition``, ``tf.dynamic_stitch``, ``tf.reverse_sequence`` and ``tf.unique_with_counts``: values,
TF's graphs and static shapes (constant indices give the stitched length), gradients through ``tf.GradientTape``
and TF's errors, ids ``arrayop_...``, read by ``tests/api/test_array_ops_golden.py``), and in ``ops/`` the files
``tools/make_golden_op_breadth.py`` writes (OpDefs, CPU kernel constraints, shape and kernel cases) for
DynamicPartition, DynamicStitch, ParallelDynamicStitch, ReverseSequence and UniqueWithCounts.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import make_golden_frontend_breadth  # noqa: E402, F401  (its scalar-bytes encoding of eager values)
import make_golden_frontend_ops as base  # noqa: E402
import make_golden_op_breadth as breadth  # noqa: E402
import numpy as np  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "array_ops"
OPS = ["DynamicPartition", "DynamicStitch", "ParallelDynamicStitch", "ReverseSequence", "UniqueWithCounts"]

M = "tf.reshape(tf.range(24.0), [2, 3, 4])"

CASES: list[tuple[str, str, str]] = [
    ("arrayop_dynamic_partition", "tf.dynamic_partition(tf.range(10) * 3, [0, 1, 0, 2, 1, 2, 2, 0, 1, 1], 3)", "ge"),
    ("arrayop_dynamic_partition_2d",
     f"tf.dynamic_partition({M}, [[1, 0, 1], [0, 0, 1]], 2, name='dp')", "ge"),
    ("arrayop_dynamic_partition_empty_part", "tf.dynamic_partition(tf.constant(['a', 'b']), [0, 0], 3)", "e"),
    ("arrayop_dynamic_partition_ph", "tf.dynamic_partition(ph(tf.float32, [None, 5]), ph(tf.int32, [None]), 2)",
     "g"),
    ("arrayop_dynamic_partition_out_of_range", "tf.dynamic_partition(tf.range(4), [0, 1, 2, 1], 2)", "e"),
    ("arrayop_dynamic_partition_bad_prefix", "tf.dynamic_partition(tf.range(4), [0, 1], 2)", "ge"),
    ("arrayop_dynamic_stitch",
     "tf.dynamic_stitch([[6], [4, 1], [[5, 2], [0, 3]]], [[61.0], [41.0, 11.0], [[51.0, 21.0], [1.0, 31.0]]])", "ge"),
    ("arrayop_dynamic_stitch_rows", "tf.dynamic_stitch([[0, 2], [1]], [[[1, 2], [5, 6]], [[3, 4]]], name='ds')",
     "ge"),
    ("arrayop_dynamic_stitch_repeat", "tf.dynamic_stitch([[0, 1], [1, 2]], [[1.0, 2.0], [3.0, 4.0]])", "e"),
    ("arrayop_dynamic_stitch_gap", "tf.dynamic_stitch([[0, 4]], [[1.0, 2.0]])", "e"),
    ("arrayop_dynamic_stitch_ph", "tf.dynamic_stitch([ph(tf.int32, [None]), [3, 4]], [ph(tf.float32, [None, 2]), "
     "ph(tf.float32, [2, 2])])", "g"),  # fmt: skip
    ("arrayop_dynamic_stitch_negative", "tf.dynamic_stitch([[0, -1]], [[1.0, 2.0]])", "e"),
    ("arrayop_dynamic_stitch_bad_data", "tf.dynamic_stitch([[0, 1]], [[1.0, 2.0, 3.0]])", "ge"),
    ("arrayop_reverse_sequence", "tf.reverse_sequence(tf.reshape(tf.range(12), [3, 4]), [1, 3, 4], seq_axis=1)",
     "ge"),
    ("arrayop_reverse_sequence_batch_axis",
     f"tf.reverse_sequence({M}, tf.constant([2, 0, 1, 2], tf.int64), seq_axis=0, batch_axis=2, name='rs')", "ge"),
    ("arrayop_reverse_sequence_ph",
     "tf.reverse_sequence(ph(tf.float32, [None, 7, 3]), ph(tf.int32, [5]), seq_axis=1)", "g"),
    ("arrayop_reverse_sequence_too_long", "tf.reverse_sequence(tf.zeros([3, 4]), [1, 3, 5], seq_axis=1)", "e"),
    ("arrayop_reverse_sequence_negative", "tf.reverse_sequence(tf.zeros([3, 4]), [1, -1, 2], seq_axis=1)", "e"),
    ("arrayop_reverse_sequence_length", "tf.reverse_sequence(tf.zeros([3, 4]), [1, 3], seq_axis=1)", "e"),
    ("arrayop_reverse_sequence_same_axes", "tf.reverse_sequence(tf.zeros([3, 4]), [1, 2, 3], seq_axis=0)", "e"),
    ("arrayop_reverse_sequence_rank", "tf.reverse_sequence(tf.zeros([3, 4]), [1, 2, 3], seq_axis=2)", "ge"),
    ("arrayop_unique_with_counts", "tf.unique_with_counts([1, 1, 2, 4, 4, 4, 7, 8, 8])", "ge"),
    ("arrayop_unique_with_counts_int64",
     "tf.unique_with_counts(tf.constant(['b', 'a', 'b', 'c', 'a']), out_idx=tf.int64, name='uwc')", "ge"),
    ("arrayop_unique_with_counts_fields",
     "r = tf.unique_with_counts(tf.constant([2.5, -1.0, 2.5, 0.0, -0.0]))\n[r.count, r.y, r.idx]", "e"),
    ("arrayop_unique_with_counts_matrix", "tf.unique_with_counts(tf.zeros([2, 2]))", "ge"),
    ("arrayop_grad_dynamic_partition",
     "x = tf.reshape(tf.range(6.0), [3, 2])\nwith tf.GradientTape() as t:\n    t.watch(x)\n"
     "    a, b = tf.dynamic_partition(x, [1, 0, 1], 2)\n    y = tf.reduce_sum(a * 2.0) + tf.reduce_sum(b * b)\n"
     "t.gradient(y, x)", "e"),
    ("arrayop_grad_dynamic_stitch",
     "a = tf.constant([1.0, 2.0])\nb = tf.constant([[3.0], [4.0]])\nwith tf.GradientTape() as t:\n"
     "    t.watch([a, b])\n    y = tf.reduce_sum(tf.dynamic_stitch([[0, 2], [[1], [2]]], [a, tf.reshape(b, [2])]) "
     "* tf.constant([1.0, 10.0, 100.0]))\nt.gradient(y, [a, b])", "e"),
    ("arrayop_grad_reverse_sequence",
     f"x = {M}\nwith tf.GradientTape() as t:\n    t.watch(x)\n    y = tf.reduce_sum(tf.reverse_sequence(x, [3, 1], "
     "seq_axis=2) * tf.range(4.0))\nt.gradient(y, x)", "e"),
]  # fmt: skip


def write_op_goldens() -> int:
    """The op-breadth goldens (OpDefs, CPU constraints, shape and kernel cases) of these ops."""
    P, C, U, shape_case, kernel_case = breadth.P, breadth.C, breadth.U, breadth.shape_case, breadth.kernel_case
    breadth.begin(OUT / "ops", "tools/make_golden_array_ops.py", OPS)
    rng = np.random.default_rng(20261206)
    data = rng.normal(size=(4, 3, 2)).astype(np.float32)
    kernel_case("DynamicPartition", data, np.array([2, 0, 2, 1], np.int32), num_partitions=3)
    kernel_case("DynamicPartition", data, np.array([[0, 1, 0], [1, 1, 0], [0, 0, 0], [1, 0, 1]], np.int32),
                num_partitions=2)  # fmt: skip
    kernel_case("DynamicPartition", np.arange(6, dtype=np.int64), np.array([1, 1, 1, 1, 1, 1], np.int32),
                num_partitions=4)  # fmt: skip
    kernel_case("DynamicPartition", np.array([True, False, True]), np.array([0, 1, 0], np.int32), num_partitions=2)
    kernel_case("DynamicPartition", np.zeros((0, 3), np.float32), np.zeros((0,), np.int32), num_partitions=2)
    kernel_case("DynamicPartition", data, np.array([0, 5, 0, 0], np.int32), num_partitions=2)
    kernel_case("DynamicPartition", data, np.array([0, 1], np.int32), num_partitions=2)
    for op in ("DynamicStitch", "ParallelDynamicStitch"):
        pieces = [rng.normal(size=(2, 2)).astype(np.float32), rng.normal(size=(2, 1, 2)).astype(np.float32)]
        kernel_case(op, [np.array([0, 3], np.int32), np.array([[1], [2]], np.int32)], pieces)
        kernel_case(op, [np.array([4, 0], np.int32)], [np.array([1.5, 2.5], np.float64)])
        kernel_case(op, [np.array(2, np.int32), np.array([0], np.int32)], [np.array(7, np.int32), np.array([8],
                    np.int32)])  # fmt: skip
        kernel_case(op, [np.array([0, -2], np.int32)], [np.array([1.0, 2.0], np.float32)])
        kernel_case(op, [np.array([0, 1], np.int32)], [np.array([1.0, 2.0, 3.0], np.float32)])
    kernel_case("DynamicStitch", [np.array([0, 1, 1], np.int32), np.array([1], np.int32)],
                [np.array([1, 2, 3], np.int32), np.array([4], np.int32)])  # fmt: skip
    seqs = rng.normal(size=(3, 5, 2)).astype(np.float32)
    for lengths_dtype in (np.int32, np.int64):
        kernel_case("ReverseSequence", seqs, np.array([5, 0, 3], lengths_dtype), seq_dim=1, batch_dim=0)
    kernel_case("ReverseSequence", seqs, np.array([2, 1, 3, 0, 3], np.int64), seq_dim=0, batch_dim=1)
    kernel_case("ReverseSequence", np.array([[b"a", b"b", b"c"], [b"d", b"e", b"f"]], dtype=object),
                np.array([2, 3], np.int64), seq_dim=1)  # fmt: skip
    kernel_case("ReverseSequence", seqs, np.array([6, 1, 1], np.int64), seq_dim=1)
    kernel_case("ReverseSequence", seqs, np.array([1, 1], np.int64), seq_dim=1)
    kernel_case("ReverseSequence", seqs, np.array([1, 1, 1], np.int64), seq_dim=0)
    kernel_case("UniqueWithCounts", np.array([3, 1, 3, 3, 2, 1], np.int32))
    kernel_case("UniqueWithCounts", np.array([0.5, np.nan, 0.5, -0.0, 0.0, np.nan], np.float32), out_idx=np.int64)
    kernel_case("UniqueWithCounts", np.array([b"x", b"y", b"x"], dtype=object))
    kernel_case("UniqueWithCounts", np.zeros((0,), np.int64))
    kernel_case("UniqueWithCounts", np.zeros((2, 2), np.int64))
    shape_case("DynamicPartition", P([4, U, 2], "float32"), P([4, 3], "int32"), num_partitions=2)
    shape_case("DynamicPartition", P(None, "float32"), P([U], "int32"), num_partitions=3)
    shape_case("DynamicPartition", P([4, 2], "float32"), P(None, "int32"), num_partitions=2)
    shape_case("DynamicPartition", P([4, 2], "float32"), P([5], "int32"), num_partitions=2)
    shape_case("DynamicStitch", [C([0, 5], "int32"), C([[2], [1]], "int32")], [P([2, 3], "float32"),
               P([2, 1, 3], "float32")])  # fmt: skip
    shape_case("DynamicStitch", [P([U], "int32"), C([3], "int32")], [P([U, 2], "float32"), P([1, U], "float32")])
    shape_case("DynamicStitch", [C([0], "int32")], [P([2, 2], "float32")])
    shape_case("ParallelDynamicStitch", [P([2], "int32"), C([3], "int32")],
               [P([2, 4], "float32"), P([1, 4], "float32")])  # fmt: skip
    shape_case("ReverseSequence", P([U, 7, 3], "float32"), P([5], "int64"), seq_dim=1)
    shape_case("ReverseSequence", P([4, 7], "float32"), P([5], "int64"), seq_dim=1)
    shape_case("ReverseSequence", P([4, 7], "float32"), P([4], "int64"), seq_dim=3)
    shape_case("ReverseSequence", P(None, "float32"), P([4], "int32"), seq_dim=1, batch_dim=2)
    shape_case("UniqueWithCounts", P([U], "int32"))
    shape_case("UniqueWithCounts", P([2, 2], "int32"))
    breadth.write_op_defs()
    breadth.write_shape_cases()
    return breadth.kernel_gen.write_cases(breadth.KERNEL_CASES, breadth.OUT / "kernels")


def main() -> int:
    base.record_snippets(CASES, OUT, "tools/make_golden_array_ops.py")
    return write_op_goldens()


if __name__ == "__main__":
    sys.exit(main())
