"""Bitwise ops and boolean-mask indexing match TensorFlow 2.21 (tests/golden/bitwise, tools/make_golden_bitwise.py).

OpDefs and CPU kernel dtypes equal TF's; the kernels give TF's numbers for every
integer dtype, shift amounts outside ``[0, bits)`` included; the operators,
``tf.bitwise``, ``tf.boolean_mask`` and ``t[bool_mask]`` give TF's results and,
under ``tf.function``, build TF's graph; misuse raises TF's errors.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from google.protobuf import text_format

import modtensor as tf
from modtensor.framework import dtypes
from modtensor.framework.op_registry import global_registry
from modtensor.framework.protos import op_def_pb2
from modtensor.kernels.cpu import bitwise
from modtensor.runtime.kernel_registry import global_kernel_registry

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "bitwise"
CASES = json.loads((GOLDEN / "cases.json").read_text())
TF_OP_DEFS = text_format.Parse((GOLDEN / "op_defs.pbtxt").read_text(), op_def_pb2.OpList()).op


def _array(entry: dict[str, Any]) -> np.ndarray:
    return np.array(entry["values"], dtype=entry["dtype"]).reshape(entry["shape"])


def _assert_same(got: Any, entry: dict[str, Any]) -> None:
    got = np.asarray(got.numpy() if hasattr(got, "numpy") else got)
    want = _array(entry)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("tf_op_def", TF_OP_DEFS, ids=lambda o: o.name)
def test_op_defs_equal_tensorflows(tf_op_def: op_def_pb2.OpDef) -> None:
    ours = op_def_pb2.OpDef()
    ours.CopyFrom(global_registry().get(tf_op_def.name).op_def)
    for item in (*ours.input_arg, *ours.output_arg, *ours.attr):
        item.ClearField("description")
    ours.ClearField("summary")
    ours.ClearField("description")
    assert ours == tf_op_def


@pytest.mark.parametrize("op", sorted(CASES["cpu_types"]))
def test_cpu_kernel_dtypes_are_tensorflows(op: str) -> None:
    (kernel,) = [k for k in global_kernel_registry().kernels_for_op(op) if k.kernel_def.device_type == "CPU"]
    ours = {dtypes.as_dtype(t).as_datatype_enum for _, types in kernel.kernel_def.constraints for t in types}
    assert ours == {dtypes.as_dtype(name[3:].lower()).as_datatype_enum for name in CASES["cpu_types"][op]}


@pytest.mark.parametrize("case", CASES["kernels"], ids=lambda c: f"{c['op']}-{c['inputs'][0]['dtype']}")
def test_kernels_match_tensorflow(case: dict[str, Any]) -> None:
    inputs = [_array(e) for e in case["inputs"]]
    _assert_same(bitwise.OP_FUNCTIONS[case["op"]](*inputs), case["output"])


def test_kernels_through_eager_ops_match_tensorflow() -> None:
    for case in CASES["kernels"][:12]:  # int8 and int16 through the public API and the runtime
        fn = {"BitwiseAnd": tf.bitwise.bitwise_and, "BitwiseOr": tf.bitwise.bitwise_or,
              "BitwiseXor": tf.bitwise.bitwise_xor, "LeftShift": tf.bitwise.left_shift,
              "RightShift": tf.bitwise.right_shift, "Invert": tf.bitwise.invert}[case["op"]]  # fmt: skip
        _assert_same(fn(*[tf.constant(_array(e)) for e in case["inputs"]]), case["output"])


def test_kernel_rejects_unbroadcastable_shapes() -> None:
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Incompatible shapes: \[2\] vs. \[3\]"):
        tf.bitwise.bitwise_and(tf.constant([1, 2]), tf.constant([1, 2, 3]))


def _operands() -> tuple[Any, Any, Any]:
    i = tf.constant(np.array([[3, 5, -7], [12, 0, 255]], dtype=np.int32))
    return i, tf.constant([True, False, True, False]), np.array([True, True, False, False])


def test_operators_and_module_match_tensorflow() -> None:
    ti, b1, b2 = _operands()
    want = CASES["operators"]
    got = {
        "and": ti & 6, "rand": 6 & ti, "or": ti | 8, "xor": ti ^ ti[::-1], "invert": ~ti,
        "bool_and": b1 & b2, "bool_or": b1 | b2, "bool_xor": b1 ^ b2, "bool_invert": ~b1,
        "module_left_shift": tf.bitwise.left_shift(ti, 3),
        "module_right_shift": tf.bitwise.right_shift(ti, [[1], [40]]),
    }  # fmt: skip
    assert set(got) == set(want)
    for key, value in got.items():
        _assert_same(value, want[key])


def test_boolean_mask_and_bool_getitem_match_tensorflow() -> None:
    t3 = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    m23 = np.array([[True, False, True], [False, True, True]])
    want = CASES["masks"]
    _assert_same(tf.boolean_mask(t3, np.array([False, True, True]), axis=1), want["t3_m3_axis1"])
    _assert_same(tf.boolean_mask(t3, m23), want["t3_m23"])
    _assert_same(tf.boolean_mask(t3, np.array([True, False, False, True]), axis=2), want["t3_m4_axis2"])
    _assert_same(tf.constant(t3)[tf.constant(m23)], want["t3_getitem_m23"])
    _assert_same(tf.constant(t3)[m23], want["t3_getitem_np_m23"])
    _assert_same(tf.boolean_mask([1, 2, 3], [True, False, True]), want["list_mask"])


def _graph_case(key: str, fn: Any, *args: Any) -> None:
    want = CASES["graphs"][key]
    traced = tf.function(fn)
    result = traced(*args)
    results = result if isinstance(result, tuple) else (result,)
    for got, expected in zip(results, want["outputs"], strict=True):
        _assert_same(got, expected)
    nodes = traced.get_concrete_function(*args).graph.as_graph_def().node
    assert [[n.op, n.name] for n in nodes] == want["nodes"]


def test_graph_mode_builds_tensorflows_graphs() -> None:
    ti, b1, b2 = _operands()
    t3 = tf.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    _graph_case(
        "operators", lambda x, a, b: (x & 6, 6 | x, ~x, x ^ x, a ^ b, tf.bitwise.left_shift(x, 2)), ti, b1,
        tf.constant(b2),
    )  # fmt: skip
    _graph_case("boolean_mask_axis1", lambda t, m: tf.boolean_mask(t, m, axis=1), t3, tf.constant([False, True, True]))
    _graph_case("getitem", lambda t, m: t[m], t3, tf.constant([[True, False, True], [False, True, True]]))


def test_errors_match_tensorflow() -> None:
    f32 = tf.constant([1.0, 2.0])
    t = tf.constant([[1, 2], [3, 4]])
    calls = {
        "float_and": lambda: f32 & f32,
        "float_invert": lambda: ~f32,
        "float_left_shift": lambda: tf.bitwise.left_shift(f32, f32),
        "scalar_mask": lambda: tf.boolean_mask(t, True),
        "mask_too_long": lambda: tf.boolean_mask(t, [True, False, True]),
        "mask_rank_too_high": lambda: tf.boolean_mask(t, [[[True]]]),
        "mask_axis_out_of_range": lambda: tf.boolean_mask(t, [True, False], axis=2),
    }
    for key, call in calls.items():
        want = CASES["errors"][key]
        with pytest.raises(Exception) as info:  # noqa: PT011 - class checked by name below, as TF names it
            call()
        assert type(info.value).__name__ == want["type"], key
        assert want["message"] in str(info.value), key
