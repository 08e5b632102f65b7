"""Record what TensorFlow's ragged tensors build and compute: the ops RaggedTensorToTensor, RaggedRange, RaggedGather
and RaggedTensorToSparse, and ``tf.RaggedTensor``'s constructors and methods, ``tf.ragged.constant``, ``range`` and
``map_flat_values``.

    cd /tmp/somewhere && /work/tfvenv/bin/python /work/main/tools/make_golden_ragged.py

Writes ``tests/golden/ragged/``: ``graph_cases.json`` and ``eager_cases.json`` (snippets, ids ``ragged_...``, read
by ``tests/api/test_ragged_golden.py``), and in ``ops/`` the files ``tools/make_golden_op_breadth.py`` writes
(OpDefs, CPU kernel constraints, shape and kernel cases): row splits and value row ids, padding and truncation to a
shape, default values broadcast over inner dimensions, empty rows and tensors, int32 and int64 partitions, and the
errors TF reports for malformed partitions.
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

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "ragged"
OPS = ["RaggedTensorToTensor", "RaggedRange", "RaggedGather", "RaggedTensorToSparse"]

RT = "tf.ragged.constant([[1, 2], [], [3, 4, 5]])"
RT2 = "tf.ragged.constant([[[1, 2], [3]], [], [[4, 5, 6], [], [7]]])"
PARTS = "[rt.flat_values, *rt.nested_row_splits]"

CASES: list[tuple[str, str, str]] = [
    # the ops through tf.raw_ops (graph: TF's nodes)
    ("ragged_raw_to_tensor", "tf.raw_ops.RaggedTensorToTensor(shape=[-1, -1], values=[1.0, 2.0, 3.0], "
     "default_value=0.0, row_partition_tensors=[tf.constant([0, 2, 2, 3], tf.int64)], "
     "row_partition_types=['ROW_SPLITS'])", "ge"),
    ("ragged_raw_to_tensor_rowids", "tf.raw_ops.RaggedTensorToTensor(shape=[4, 3], values=['a', 'b', 'c'], "
     "default_value='-', row_partition_tensors=[tf.constant(3, tf.int64), tf.constant([0, 0, 2], tf.int64)], "
     "row_partition_types=['FIRST_DIM_SIZE', 'VALUE_ROWIDS'])", "ge"),
    ("ragged_raw_range", "tf.raw_ops.RaggedRange(starts=[0, 5, 2], limits=[3, 5, 8], deltas=[1, 1, 3])", "ge"),
    ("ragged_raw_gather", "r = tf.raw_ops.RaggedGather(params_nested_splits=[tf.constant([0, 2, 2, 3], tf.int64)], "
     "params_dense_values=[1, 2, 3], indices=[2, 0, 2], OUTPUT_RAGGED_RANK=1)\n[*r[0], r[1]]", "ge"),
    ("ragged_raw_to_sparse", "tf.raw_ops.RaggedTensorToSparse(rt_nested_splits=[tf.constant([0, 2, 2, 3], "
     "tf.int64)], rt_dense_values=[1.0, 2.0, 3.0])", "ge"),
    # constructors
    ("ragged_constant", f"rt = {RT}\n{PARTS}", "e"),
    ("ragged_constant_rank2", f"rt = {RT2}\n{PARTS}", "e"),
    ("ragged_constant_strings", "rt = tf.ragged.constant([['a', 'b'], ['c']])\n[rt.flat_values, rt.row_splits]",
     "e"),
    ("ragged_constant_float", "rt = tf.ragged.constant([[1.5], [2, 3]])\n[rt.flat_values, rt.row_splits]", "e"),
    ("ragged_constant_dtype", "rt = tf.ragged.constant([[1], [2, 3]], dtype=tf.int64, row_splits_dtype=tf.int32)\n"
     "[rt.flat_values, rt.row_splits]", "e"),
    ("ragged_constant_inner_shape", "rt = tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1)\n"
     f"{PARTS}", "e"),
    ("ragged_constant_empty", "rt = tf.ragged.constant([[], []])\n[rt.flat_values, rt.row_splits]", "e"),
    ("ragged_constant_mixed_depth", "tf.ragged.constant([[1, [2]], [3]])", "e"),
    ("ragged_from_row_splits", "rt = tf.RaggedTensor.from_row_splits([1, 2, 3, 4], [0, 1, 1, 4])\n"
     "[rt.values, rt.row_splits, rt.row_lengths(), rt.nrows(), rt.value_rowids()]", "e"),
    ("ragged_from_row_splits_bad", "tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 2, 1, 3])", "e"),
    ("ragged_from_row_splits_start", "tf.RaggedTensor.from_row_splits([1, 2, 3], [1, 3])", "e"),
    ("ragged_from_row_splits_end", "tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 2])", "e"),
    ("ragged_from_row_lengths", "rt = tf.RaggedTensor.from_row_lengths([1, 2, 3, 4], [2, 0, 1, 1])\n"
     "[rt.values, rt.row_splits, rt.to_tensor()]", "e"),
    ("ragged_from_row_lengths_bad", "tf.RaggedTensor.from_row_lengths([1, 2, 3], [2, 2])", "e"),
    ("ragged_from_value_rowids", "rt = tf.RaggedTensor.from_value_rowids([1, 2, 3, 4], [0, 0, 2, 2], nrows=4)\n"
     "[rt.values, rt.row_splits, rt.to_tensor(default_value=-1)]", "e"),
    ("ragged_from_value_rowids_no_nrows", "rt = tf.RaggedTensor.from_value_rowids([1, 2, 3], [1, 1, 3])\n"
     "[rt.row_splits, rt.row_lengths()]", "e"),
    ("ragged_from_nested_row_splits", "rt = tf.RaggedTensor.from_nested_row_splits([1, 2, 3, 4, 5], "
     "([0, 2, 3], [0, 2, 2, 5]))\n[rt.to_tensor(), rt.bounding_shape()]", "e"),
    ("ragged_from_nested_row_lengths", "rt = tf.RaggedTensor.from_nested_row_lengths([1, 2, 3], ([1, 2], [1, 0, 2]))"
     f"\n{PARTS}", "e"),
    ("ragged_from_tensor", "rt = tf.RaggedTensor.from_tensor([[1, 2, 0], [3, 0, 0], [0, 0, 0]], padding=0)\n"
     "[rt.values, rt.row_splits]", "e"),
    ("ragged_from_tensor_lengths", "rt = tf.RaggedTensor.from_tensor([[1, 2, 0], [3, 0, 0]], lengths=[1, 3])\n"
     "[rt.values, rt.row_splits]", "e"),
    ("ragged_from_tensor_plain", "rt = tf.RaggedTensor.from_tensor([[1.0, 2.0], [3.0, 4.0]])\n"
     "[rt.values, rt.row_splits, rt.bounding_shape()]", "e"),
    ("ragged_from_tensor_rank3", "rt = tf.RaggedTensor.from_tensor(tf.reshape(tf.range(12), [2, 3, 2]), "
     "padding=[0, 0])\n[rt.values, rt.row_splits]", "e"),
    ("ragged_from_tensor_ragged_rank2", "rt = tf.RaggedTensor.from_tensor([[[1, 0], [0, 0]], [[2, 3], [4, 0]]], "
     f"padding=0, ragged_rank=2)\n{PARTS}", "e"),
    # methods
    ("ragged_to_tensor", f"{RT}.to_tensor()", "e"),
    ("ragged_to_tensor_default", f"{RT}.to_tensor(default_value=9)", "e"),
    ("ragged_to_tensor_shape", f"{RT}.to_tensor(shape=[2, 4])", "e"),
    ("ragged_to_tensor_shape_partial", f"{RT}.to_tensor(shape=[None, 2])", "e"),
    ("ragged_to_tensor_rank2", f"{RT2}.to_tensor(default_value=-1)", "e"),
    ("ragged_to_tensor_rank2_shape", f"{RT2}.to_tensor(shape=[2, 2, 4])", "e"),
    ("ragged_to_tensor_strings", "tf.ragged.constant([['a'], ['b', 'c']]).to_tensor(default_value='<pad>')", "e"),
    ("ragged_to_tensor_inner_dims", "rt = tf.RaggedTensor.from_row_splits(tf.reshape(tf.range(6.0), [3, 2]), "
     "[0, 1, 1, 3])\n[rt.to_tensor(), rt.to_tensor(default_value=[7.0, 8.0]), rt.to_tensor(shape=[2, 1, 2])]",
     "e"),
    ("ragged_to_tensor_bad_default", f"{RT}.to_tensor(default_value=[1, 2])", "e"),
    ("ragged_to_tensor_empty", "tf.RaggedTensor.from_row_splits(tf.zeros([0]), [0]).to_tensor()", "e"),
    ("ragged_to_sparse", f"st = {RT2}.to_sparse()\n[st.indices, st.values, st.dense_shape]", "e"),
    ("ragged_row_methods", f"rt = {RT2}\n[rt.row_lengths(), rt.row_lengths(axis=2).flat_values, rt.value_rowids(), "
     "rt.nrows(), rt.bounding_shape(), rt.values.value_rowids(), rt.row_starts(), rt.row_limits()]", "e"),
    ("ragged_nrows_int32", "rt = tf.RaggedTensor.from_row_splits([1, 2], tf.constant([0, 2, 2], tf.int32))\n"
     "[rt.nrows(), rt.row_lengths(), rt.bounding_shape(), rt.nrows(out_type=tf.int64)]", "e"),
    ("ragged_merge_dims", f"rt = {RT2}.merge_dims(0, 1)\n{PARTS}", "e"),
    ("ragged_merge_dims_all", f"{RT2}.merge_dims(0, -1)", "e"),
    ("ragged_merge_dims_inner", f"rt = {RT2}.merge_dims(1, 2)\n{PARTS}", "e"),
    ("ragged_with_values", f"rt = {RT}.with_values(tf.constant([10, 20, 30, 40, 50]))\n{PARTS}", "e"),
    ("ragged_with_flat_values", f"rt = {RT2}.with_flat_values(tf.range(7.0))\n{PARTS}", "e"),
    ("ragged_map_flat_values", f"rt = tf.ragged.map_flat_values(tf.multiply, {RT}, 10)\n{PARTS}", "e"),
    ("ragged_map_flat_values_strings", "rt = tf.ragged.map_flat_values(tf.strings.length, "
     "tf.ragged.constant([['ab', 'c'], []]))\n[rt.flat_values, rt.row_splits]", "e"),
    ("ragged_range", "rt = tf.ragged.range([3, 0, 2])\n[rt.values, rt.row_splits]", "e"),
    ("ragged_range_starts", "rt = tf.ragged.range([0, 5, 8], [3, 3, 12], 2)\n[rt.values, rt.row_splits]", "e"),
    ("ragged_range_float", "rt = tf.ragged.range(0.0, [1.0, 2.5], 0.5)\n[rt.values, rt.row_splits]", "e"),
    ("ragged_range_negative", "rt = tf.ragged.range([5, 0], [0, 5], [-2, 2])\n[rt.values, rt.row_splits]", "e"),
    ("ragged_range_splits_int32", "rt = tf.ragged.range([2, 1], row_splits_dtype=tf.int32)\n"
     "[rt.values, rt.row_splits]", "e"),
    ("ragged_range_zero_delta", "tf.ragged.range([2], [5], 0)", "e"),
    ("ragged_boolean_mask", "rt = tf.ragged.boolean_mask([[1, 2, 3], [4, 5, 6]], [[True, False, True], "
     "[False, False, True]])\n[rt.values, rt.row_splits]", "e"),
    ("ragged_shape", f"rt = {RT2}\n[tf.constant(rt.ragged_rank), tf.constant(rt.shape.rank)]", "e"),
    ("ragged_strings_split_to_tensor", "rt = tf.strings.split(['a b c', '', 'd'])\n"
     "[rt.to_tensor(shape=[3, 2]), rt.to_tensor(default_value='?'), rt.row_lengths()]", "e"),
]  # fmt: skip


def write_op_goldens() -> int:
    """The op-breadth goldens (OpDefs, CPU constraints, shape and kernel cases) of the ragged ops."""
    P, C, U, shape_case, kernel_case = breadth.P, breadth.C, breadth.U, breadth.shape_case, breadth.kernel_case
    I32, I64 = np.int32, np.int64  # noqa: N806
    breadth.begin(OUT / "ops", "tools/make_golden_ragged.py", OPS)
    # RaggedTensorToTensor
    splits = np.array([0, 2, 2, 5], I64)
    values = np.array([1, 2, 3, 4, 5], np.float32)
    rs = ["ROW_SPLITS"]

    def to_tensor(shape, vals, default, parts, types, **kw) -> None:
        kernel_case("RaggedTensorToTensor", np.asarray(shape, kw.pop("shape_dtype", I64)), vals, default, parts,
                    row_partition_types=types, **kw)  # fmt: skip

    for shape in (-1, [-1, -1], [3, 3], [3, 4], [2, 2], [4, 2], [-1, 1], [5, -1], [0, -1], [3, 0]):
        to_tensor(shape, values, np.float32(0), [splits], rs)
    to_tensor([-1, -1], values, np.float32(-1), [splits.astype(I32)], rs)
    to_tensor(np.array([4, 4], I32), values.astype(np.int32), np.int32(7), [splits], rs, shape_dtype=I32)
    to_tensor(-1, breadth.S("a", "b", "c", "d", "e"), breadth.bytes_scalar(b"pad"), [splits], rs)
    to_tensor(-1, values.astype(np.float64), np.float64(0.5), [np.array([0, 0, 5], I64)], rs)
    to_tensor(-1, np.zeros((0,), np.float32), np.float32(0), [np.array([0, 0, 0], I64)], rs)
    to_tensor(-1, np.zeros((0,), np.float32), np.float32(0), [np.array([0], I64)], rs)
    to_tensor([2, -1], np.zeros((0,), np.float32), np.float32(3), [np.array([0], I64)], rs)
    # flat values of rank 2 and default values broadcast over them
    values2 = np.arange(10, dtype=np.float32).reshape(5, 2)
    for default in (np.float32(0), np.array([8, 9], np.float32), np.array([7], np.float32)):
        to_tensor(-1, values2, default, [splits], rs)
    to_tensor([3, 2, 2], values2, np.float32(0), [splits], rs)
    to_tensor([3, 2, 3], values2, np.float32(0), [splits], rs)
    to_tensor([3, 2, 1], values2, np.float32(0), [splits], rs)
    to_tensor([3, 2], values2, np.float32(0), [splits], rs)
    to_tensor(-1, values2, np.array([1, 2, 3], np.float32), [splits], rs)
    to_tensor(-1, values2, np.zeros((1, 2), np.float32), [splits], rs)
    to_tensor(-1, values, np.array([1], np.float32), [splits], rs)
    to_tensor(-1, np.arange(12, dtype=np.int64).reshape(3, 2, 2), np.array([[0, 1], [2, 3]], I64),
              [np.array([0, 1, 3], I64)], rs)  # fmt: skip
    to_tensor(-1, np.arange(12, dtype=np.int64).reshape(3, 2, 2), np.array([5, 6], I64),
              [np.array([0, 1, 3], I64)], rs)  # fmt: skip
    # ragged rank 2
    outer, inner = np.array([0, 2, 2, 3], I64), np.array([0, 1, 3, 5], I64)
    for shape in (-1, [3, 2, 2], [2, 3, 4], [-1, 1, -1], [4, 3, 2]):
        to_tensor(shape, values, np.float32(0), [outer, inner], ["ROW_SPLITS", "ROW_SPLITS"])
    # FIRST_DIM_SIZE + VALUE_ROWIDS
    vr = ["FIRST_DIM_SIZE", "VALUE_ROWIDS"]
    rowids = np.array([0, 0, 2, 2, 2], I64)
    for shape in (-1, [3, 3], [4, 4], [2, 2], [-1, 1]):
        to_tensor(shape, values, np.float32(0), [I64(3), rowids], vr)
    to_tensor(-1, values, np.float32(0), [I64(5), rowids], vr)
    to_tensor(-1, values2, np.array([8, 9], np.float32), [I64(4), rowids], vr)
    to_tensor(-1, values, np.float32(0), [I32(3), rowids.astype(I32)], vr)
    to_tensor(-1, np.zeros((0,), np.float32), np.float32(0), [I64(2), np.zeros((0,), I64)], vr)
    to_tensor(-1, values, np.float32(0), [I64(2), np.array([0, 1], I64), np.array([0, 0, 1, 1, 1], I64)],
              ["FIRST_DIM_SIZE", "VALUE_ROWIDS", "VALUE_ROWIDS"])  # fmt: skip
    to_tensor(-1, values, np.float32(0), [I64(2), np.array([0, 1], I64), np.array([0, 3, 5], I64)],
              ["FIRST_DIM_SIZE", "VALUE_ROWIDS", "ROW_SPLITS"])  # fmt: skip
    # errors
    to_tensor(-1, values, np.float32(0), [I64(2), rowids], vr)
    to_tensor(-1, values, np.float32(0), [I64(3), np.array([-1, 0, 0, 0, 0], I64)], vr)
    to_tensor(-1, values, np.float32(0), [I64(3), rowids[:4]], vr)
    to_tensor(-1, values, np.float32(0), [I64(-1), rowids], vr)
    to_tensor(-1, values, np.float32(0), [np.array([0, 2, 1, 5], I64)], rs)
    to_tensor(-1, values, np.float32(0), [np.array([1, 2, 5], I64)], rs)
    to_tensor(-1, values, np.float32(0), [np.array([0, 2, 4], I64)], rs)
    to_tensor(-1, values, np.float32(0), [np.array([0, 2, 6], I64)], rs)
    to_tensor(-1, values, np.float32(0), [np.zeros((0,), I64)], rs)
    to_tensor(-1, values, np.float32(0), [splits], ["ROW_LENGTHS"])
    to_tensor(-1, values, np.float32(0), [splits], ["BAD_TYPE"])
    to_tensor(-1, values, np.float32(0), [I64(3), rowids], ["VALUE_ROWIDS", "FIRST_DIM_SIZE"])
    to_tensor([3], values, np.float32(0), [splits], rs)
    to_tensor([3, 3, 3], values, np.float32(0), [splits], rs)
    to_tensor([-2, 3], values, np.float32(0), [splits], rs)
    to_tensor(-1, values, np.array([1, 2], np.float32), [splits], rs)
    to_tensor(-1, values2, np.array([[1, 2]], np.float32).reshape(1, 1, 2), [splits], rs)
    for types, parts in ((rs, [P([U], "int64")]), (vr, [P([], "int64"), P([U], "int64")]),
                         (["ROW_SPLITS", "ROW_SPLITS"], [P([4], "int64"), P([U], "int64")])):  # fmt: skip
        ragged = len(parts) - (1 if types[0] == "FIRST_DIM_SIZE" else 0)
        for shape in (C(-1, "int64"), C([-1] * (ragged + 1), "int64"), C([3] + [5] * ragged, "int64"),
                      P([ragged + 1], "int64"), P(None, "int64")):  # fmt: skip
            shape_case("RaggedTensorToTensor", shape, P([U], "float32"), P([], "float32"), parts,
                       row_partition_types=types)  # fmt: skip
        shape_case("RaggedTensorToTensor", C(-1, "int64"), P([U, 3], "float32"), P([3], "float32"), parts,
                   row_partition_types=types)  # fmt: skip
        shape_case("RaggedTensorToTensor", C(-1, "int64"), P(None, "float32"), P([], "float32"), parts,
                   row_partition_types=types)  # fmt: skip
    for shape, vshape, dshape in (([-1, -1, 4], [U, 3], []), ([-1, -1], [U, 3], []), ([2, 3, -1], [U, 4], [1]),
                                  ([-1], [U], []), ([-1, -1, -1], [U, 3], [2]), ([-1, -1, -1], [U, 3], [U]),
                                  ([-1, -1, -1, -1], [U, 2, 3], [3]), ([-1, -1, -1, -1], [U, 2, 3], [2, 1]),
                                  ([-1, -1, -1], [U, 3], [1, 3]), ([-1, -1, -1], [U, U], [4])):  # fmt: skip
        shape_case("RaggedTensorToTensor", C(shape, "int64"), P(vshape, "float32"), P(dshape, "float32"),
                   [P([U], "int64")], row_partition_types=rs)  # fmt: skip
    shape_case("RaggedTensorToTensor", C([-1, -1], "int32"), P([U], "float32"), P([], "float32"),
               [P([U], "int64")], row_partition_types=["ROW_LENGTHS"])  # fmt: skip
    shape_case("RaggedTensorToTensor", P([2, 2], "int64"), P([U], "float32"), P([], "float32"),
               [P([U], "int64")], row_partition_types=rs)  # fmt: skip
    # RaggedRange
    for starts, limits, deltas in ((0, 5, 1), ([0, 5, 2], [3, 5, 8], [1, 1, 3]), ([4, 1], 0, -1), (0, [3, 0, 2], 1),
                                   ([0, 0], [10, -10], [3, -3]), ([], [], []), (5, 0, 1), ([1, 2], [1, 2], 1),
                                   (0, [2**31 - 5, 3], 2**30)):  # fmt: skip
        for dtype in (I32, I64):
            kernel_case("RaggedRange", np.array(starts, dtype), np.array(limits, dtype), np.array(deltas, dtype))
    for dtype in (np.float32, np.float64):
        kernel_case("RaggedRange", np.array([0, 1.5], dtype), np.array([1, 0.2], dtype), np.array([0.25, -0.5], dtype))
        kernel_case("RaggedRange", np.array(0, dtype), np.array(1, dtype), np.array(0.3, dtype))
    kernel_case("RaggedRange", np.array([0, 3], I32), np.array([5, 4], I32), I32(2), Tsplits=np.int32)
    kernel_case("RaggedRange", np.array([0, 3], I32), np.array([5, 4], I32), np.array([1, 0], I32))
    kernel_case("RaggedRange", np.array([0, 3], I32), np.array([5, 4, 6], I32), I32(1))
    kernel_case("RaggedRange", np.array([[0]], I32), np.array(5, I32), I32(1))
    kernel_case("RaggedRange", np.array(0, I32), np.array(5, I32), np.array([[1]], I32))
    for shapes in (([], [], []), ([3], [], []), ([U], [4], []), ([], [], [2]), ([3], [4], []), ([U], [U], [U]),
                   ([2, 2], [], []), (None, [], []), ([], None, [5])):  # fmt: skip
        shape_case("RaggedRange", *[P(s, "int32") for s in shapes])
    shape_case("RaggedRange", P([3], "float32"), P([], "float32"), P([], "float32"), Tsplits="int32")
    # RaggedGather
    gvalues = np.array([10, 11, 12, 13, 14], np.int32)
    for indices in ([2, 0, 1, 2], [], [1, 1]):
        kernel_case("RaggedGather", [splits], gvalues, np.array(indices, I32), OUTPUT_RAGGED_RANK=1)
    kernel_case("RaggedGather", [splits.astype(I32)], gvalues, np.array([2, 0], I64), OUTPUT_RAGGED_RANK=1)
    kernel_case("RaggedGather", [splits], gvalues, np.array([[2, 0], [1, 2], [0, 0]], I32), OUTPUT_RAGGED_RANK=2)
    kernel_case("RaggedGather", [splits], gvalues, I32(2), OUTPUT_RAGGED_RANK=0)
    kernel_case("RaggedGather", [splits], gvalues, I32(1), OUTPUT_RAGGED_RANK=0)
    kernel_case("RaggedGather", [outer, inner], gvalues, np.array([2, 0, 1], I32), OUTPUT_RAGGED_RANK=2)
    kernel_case("RaggedGather", [outer, inner], gvalues, I32(0), OUTPUT_RAGGED_RANK=1)
    kernel_case("RaggedGather", [splits], values2, np.array([2, 0], I32), OUTPUT_RAGGED_RANK=1)
    kernel_case("RaggedGather", [splits], breadth.S("a", "b", "c", "d", "e"), np.array([0, 2], I32),
                OUTPUT_RAGGED_RANK=1)  # fmt: skip
    kernel_case("RaggedGather", [splits], gvalues, np.array([3], I32), OUTPUT_RAGGED_RANK=1)
    kernel_case("RaggedGather", [splits], gvalues, np.array([-1], I32), OUTPUT_RAGGED_RANK=1)
    kernel_case("RaggedGather", [np.array([0, 2, 1, 5], I64)], gvalues, np.array([0], I32), OUTPUT_RAGGED_RANK=1)
    kernel_case("RaggedGather", [np.array([0, 2, 6], I64)], gvalues, np.array([1], I32), OUTPUT_RAGGED_RANK=1)
    kernel_case("RaggedGather", [np.array([1, 2, 5], I64)], gvalues, np.array([0], I32), OUTPUT_RAGGED_RANK=1)
    kernel_case("RaggedGather", [np.zeros((0,), I64)], gvalues, np.array([0], I32), OUTPUT_RAGGED_RANK=1)
    for prr, orr, ishape in ((1, 1, [U]), (1, 2, [2, 3]), (2, 2, [U]), (1, 0, []), (1, 1, [2, 2]), (2, 1, [])):
        shape_case("RaggedGather", [P([U], "int64")] * prr, P([U, 4], "float32"), P(ishape, "int32"),
                   OUTPUT_RAGGED_RANK=orr)  # fmt: skip
    shape_case("RaggedGather", [P([U, 2], "int64")], P([U], "float32"), P([3], "int32"),
               OUTPUT_RAGGED_RANK=1)  # fmt: skip
    shape_case("RaggedGather", [P([U], "int64")], P([], "float32"), P([3], "int32"),
               OUTPUT_RAGGED_RANK=1)  # fmt: skip
    # RaggedTensorToSparse
    kernel_case("RaggedTensorToSparse", [splits], values)
    kernel_case("RaggedTensorToSparse", [splits.astype(I32)], breadth.S("a", "b", "c", "d", "e"))
    kernel_case("RaggedTensorToSparse", [outer, inner], gvalues)
    kernel_case("RaggedTensorToSparse", [splits], values2)
    kernel_case("RaggedTensorToSparse", [np.array([0, 0, 0], I64)], np.zeros((0,), np.float32))
    kernel_case("RaggedTensorToSparse", [np.array([0], I64)], np.zeros((0,), np.float32))
    kernel_case("RaggedTensorToSparse", [np.array([0, 2, 1, 5], I64)], values)
    kernel_case("RaggedTensorToSparse", [np.array([0, 2, 4], I64)], values)
    kernel_case("RaggedTensorToSparse", [np.array([1, 2, 5], I64)], values)
    kernel_case("RaggedTensorToSparse", [np.array([0, 2, 3], I64), np.array([0, 1, 3], I64)], values)
    kernel_case("RaggedTensorToSparse", [np.zeros((0,), I64)], values)
    for parts, vshape in (
        ([P([U], "int64")], [U]),
        ([P([U], "int64")] * 2, [5, 3]),
        ([P([U], "int64")], None),
        ([P([4], "int64")], [6, 2, U]),
        ([P([U, 1], "int64")], [3]),
        ([P([U], "int64")], []),
    ):
        shape_case("RaggedTensorToSparse", parts, P(vshape, "float32"))
    breadth.write_op_defs()
    breadth.write_shape_cases()
    return breadth.kernel_gen.write_cases(breadth.KERNEL_CASES, breadth.OUT / "kernels")


def main() -> int:
    base.record_snippets(CASES, OUT, "tools/make_golden_ragged.py")
    return write_op_goldens()


if __name__ == "__main__":
    sys.exit(main())
