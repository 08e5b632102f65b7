"""Record TensorFlow's bitwise ops and boolean-mask indexing as golden fixtures under tests/golden/bitwise.

Run with the TensorFlow scratch venv (modtensor and its tests never import TensorFlow):

    /tmp/tfvenv/bin/python tools/make_golden_bitwise.py

Writes ``op_defs.pbtxt`` (the six bitwise OpDefs, docs dropped), and ``cases.json``:
TF 2.21's CPU kernel dtypes per op, kernel cases for every integer dtype (shift
amounts out of range included), operator and ``tf.bitwise`` results, ``tf.boolean_mask``
and ``t[bool_mask]`` results with the graph ``tf.function`` builds, and the errors TF raises.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from google.protobuf import text_format  # noqa: E402
from tensorflow.core.framework import op_def_pb2, types_pb2  # noqa: E402
from tensorflow.python.framework import kernels, op_def_registry  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden" / "bitwise"
OPS = ["BitwiseAnd", "BitwiseOr", "BitwiseXor", "Invert", "LeftShift", "RightShift"]
DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
RAW = {
    "BitwiseAnd": tf.raw_ops.BitwiseAnd,
    "BitwiseOr": tf.raw_ops.BitwiseOr,
    "BitwiseXor": tf.raw_ops.BitwiseXor,
    "LeftShift": tf.raw_ops.LeftShift,
    "RightShift": tf.raw_ops.RightShift,
}


def _values(dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """Operands spanning the dtype's range ([2, 6] x) and shift amounts in and out of range ([6] y)."""
    info = np.iinfo(dtype)
    bits = info.bits
    x = np.array([info.min, info.max, 0, 1, 5, info.max // 3, info.min // 2 if info.min else 7, 100,
                  3, info.max - 1, 12, 9], dtype=dtype).reshape(2, 6)  # fmt: skip
    shifts = [0, 1, 3, bits - 1, bits, bits + 5]
    y = np.array(shifts if info.min == 0 else [-1, *shifts[1:]], dtype=dtype)
    return x, y


def _json(a: Any) -> dict[str, Any]:
    a = np.asarray(a)
    return {"dtype": a.dtype.name, "shape": list(a.shape), "values": a.reshape(-1).tolist()}


def _error(fn: Any) -> dict[str, str]:
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - recording whatever TF raises
        return {"type": type(exc).__name__, "message": str(exc).split("\n")[0]}
    raise AssertionError("TF did not raise")


def kernel_cases() -> list[dict[str, Any]]:
    cases = []
    for dtype in DTYPES:
        x, y = _values(dtype)
        for op, fn in RAW.items():
            cases.append({"op": op, "inputs": [_json(x), _json(y)], "output": _json(fn(x=x, y=y).numpy())})
        cases.append({"op": "Invert", "inputs": [_json(x)], "output": _json(tf.raw_ops.Invert(x=x).numpy())})
    return cases


def frontend_cases() -> dict[str, Any]:
    i = np.array([[3, 5, -7], [12, 0, 255]], dtype=np.int32)
    b1, b2 = np.array([True, False, True, False]), np.array([True, True, False, False])
    ti = tf.constant(i)
    t3 = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    m23 = np.array([[True, False, True], [False, True, True]])
    m3 = np.array([False, True, True])
    m4 = np.array([True, False, False, True])
    operators = {
        "and": _json((ti & 6).numpy()),
        "rand": _json((6 & ti).numpy()),
        "or": _json((ti | 8).numpy()),
        "xor": _json((ti ^ ti[::-1]).numpy()),
        "invert": _json((~ti).numpy()),
        "bool_and": _json((tf.constant(b1) & b2).numpy()),
        "bool_or": _json((tf.constant(b1) | b2).numpy()),
        "bool_xor": _json((tf.constant(b1) ^ b2).numpy()),
        "bool_invert": _json((~tf.constant(b1)).numpy()),
        "module_left_shift": _json(tf.bitwise.left_shift(ti, 3).numpy()),
        "module_right_shift": _json(tf.bitwise.right_shift(ti, [[1], [40]]).numpy()),
    }
    masks = {
        "t3_m3_axis1": _json(tf.boolean_mask(t3, m3, axis=1).numpy()),
        "t3_m23": _json(tf.boolean_mask(t3, m23).numpy()),
        "t3_m4_axis2": _json(tf.boolean_mask(t3, m4, axis=2).numpy()),
        "t3_getitem_m23": _json(tf.constant(t3)[tf.constant(m23)].numpy()),
        "t3_getitem_np_m23": _json(tf.constant(t3)[m23].numpy()),
        "list_mask": _json(tf.boolean_mask([1, 2, 3], [True, False, True]).numpy()),
    }

    @tf.function
    def operator_graph(x: tf.Tensor, a: tf.Tensor, b: tf.Tensor) -> Any:
        return x & 6, 6 | x, ~x, x ^ x, a ^ b, tf.bitwise.left_shift(x, 2)

    @tf.function
    def mask_graph(t: tf.Tensor, m: tf.Tensor) -> Any:
        return tf.boolean_mask(t, m, axis=1)

    @tf.function
    def getitem_graph(t: tf.Tensor, m: tf.Tensor) -> Any:
        return t[m]

    graphs = {}
    for key, fn, args in [
        ("operators", operator_graph, (ti, tf.constant(b1), tf.constant(b2))),
        ("boolean_mask_axis1", mask_graph, (tf.constant(t3), tf.constant(m3))),
        ("getitem", getitem_graph, (tf.constant(t3), tf.constant(m23))),
    ]:
        result = fn(*args)
        nodes = fn.get_concrete_function(*args).graph.as_graph_def().node
        results = result if isinstance(result, tuple) else (result,)
        graphs[key] = {"nodes": [[n.op, n.name] for n in nodes], "outputs": [_json(r.numpy()) for r in results]}

    f32 = tf.constant([1.0, 2.0])
    t = tf.constant([[1, 2], [3, 4]])
    errors = {
        "float_and": _error(lambda: f32 & f32),
        "float_invert": _error(lambda: ~f32),
        "float_left_shift": _error(lambda: tf.bitwise.left_shift(f32, f32)),
        "scalar_mask": _error(lambda: tf.boolean_mask(t, True)),
        "mask_too_long": _error(lambda: tf.boolean_mask(t, [True, False, True])),
        "mask_rank_too_high": _error(lambda: tf.boolean_mask(t, [[[True]]])),
        "mask_axis_out_of_range": _error(lambda: tf.boolean_mask(t, [True, False], axis=2)),
    }
    return {"operators": operators, "masks": masks, "graphs": graphs, "errors": errors}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    op_list = op_def_pb2.OpList()
    cpu_types: dict[str, list[str]] = {}
    for name in OPS:
        op_def = op_list.op.add()
        op_def.CopyFrom(op_def_registry.get(name))
        op_def.ClearField("summary")
        op_def.ClearField("description")
        types = set()
        for kdef in kernels.get_registered_kernels_for_op(name).kernel:
            if kdef.device_type == "CPU":
                for c in kdef.constraint:
                    types.update(types_pb2.DataType.Name(t) for t in c.allowed_values.list.type)
        cpu_types[name] = sorted(types)
    (OUT / "op_defs.pbtxt").write_text(
        f"# Generated by tools/make_golden_bitwise.py from TensorFlow {tf.__version__}; do not edit.\n"
        + text_format.MessageToString(op_list)
    )
    data = {
        "meta": {"generated_by": "tools/make_golden_bitwise.py", "tensorflow": tf.__version__},
        "cpu_types": cpu_types,
        "kernels": kernel_cases(),
        **frontend_cases(),
    }
    (OUT / "cases.json").write_text(json.dumps(data, indent=None, sort_keys=True) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
