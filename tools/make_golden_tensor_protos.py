"""Write TensorFlow-made TensorProto fixtures for modtensor's tensor_proto tests.

Run with a Python that has TensorFlow (never imported by modtensor or its tests):

    /tmp/tfvenv/bin/python tools/make_golden_tensor_protos.py

For each case of the table below it records in ``tests/golden/tensor_protos/cases.json``
the call, the serialized TensorProto TensorFlow's ``make_tensor_proto`` wrote (or a
hand-made proto for the reading cases) in hex, the error TensorFlow raised (if any),
and what TensorFlow's ``make_ndarray`` reads back (dtype, shape, and the raw bytes
in hex, or the strings in hex).
"""

from __future__ import annotations

import json
import pathlib
import sys

import ml_dtypes  # noqa: F401 - used by the case expressions
import numpy as np
import tensorflow as tf
from google.protobuf import text_format
from tensorflow.core.framework import tensor_pb2

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "golden" / "tensor_protos"

# name, values expression (evaluated with np and ml_dtypes), dtype name or None, shape, extra kwargs.
WRITE_CASES: list[tuple[str, str, str | None, list[int] | None, dict]] = [
    ("py_int", "1", None, None, {}),
    ("py_float", "1.5", None, None, {}),
    ("py_bool", "True", None, None, {}),
    ("py_complex", "1+2j", None, None, {}),
    ("py_str", "'héllo'", None, None, {}),
    ("py_bytes", "b'\\x00\\xff'", None, None, {}),
    ("py_big_int", "2**31", None, None, {}),
    ("py_neg_big_int", "-2**31 - 1", None, None, {}),
    ("py_uint64_int", "2**63", None, None, {}),
    ("py_int_list", "[1, 2, 3]", None, None, {}),
    ("py_mixed_list", "[1, 2.5]", None, None, {}),
    ("py_int_list_needs_int64", "[1, 2**31]", None, None, {}),
    ("py_nested", "[[1.0, 2.0], [3.0, 4.0]]", None, None, {}),
    ("py_bool_list", "[True, False, True]", None, None, {}),
    ("py_str_list", "[['a', b'b'], ['cc', '']]", None, None, {}),
    ("py_complex_list", "[1+2j, 3]", None, None, {}),
    ("py_empty", "[]", None, None, {}),
    ("py_one_elem_list", "[7]", None, None, {}),
    ("np_f32", "np.arange(6, dtype=np.float32).reshape(2, 3)", None, None, {}),
    ("np_f64_one", "np.array([1.5])", None, None, {}),
    ("np_f64_scalar", "np.array(2.5)", None, None, {}),
    ("np_f32_scalar", "np.float32(3.25)", None, None, {}),
    ("np_i8", "np.array([-1, 2, 3], np.int8)", None, None, {}),
    ("np_u8", "np.array([0, 255], np.uint8)", None, None, {}),
    ("np_i16", "np.array([-300, 300], np.int16)", None, None, {}),
    ("np_u16", "np.array([1, 65535], np.uint16)", None, None, {}),
    ("np_u16_one", "np.array([65535], np.uint16)", None, None, {}),
    ("np_i32", "np.array([[1, -2], [3, 4]], np.int32)", None, None, {}),
    ("np_i64", "np.array([1, -2**40], np.int64)", None, None, {}),
    ("np_i64_one", "np.array([-2**40], np.int64)", None, None, {}),
    ("np_u32", "np.array([1, 2**32 - 1], np.uint32)", None, None, {}),
    ("np_u32_scalar", "np.uint32(3)", None, None, {}),
    ("np_u64", "np.array([1, 2**64 - 1], np.uint64)", None, None, {}),
    ("np_u64_one", "np.array([2**64 - 1], np.uint64)", None, None, {}),
    ("np_f16", "np.array([1.0, -2.5, 65504.0], np.float16)", None, None, {}),
    ("np_f16_one", "np.array([1.5], np.float16)", None, None, {}),
    ("np_bf16", "np.array([1.0, -0.1], ml_dtypes.bfloat16)", None, None, {}),
    ("np_bf16_one", "np.array([0.1], ml_dtypes.bfloat16)", None, None, {}),
    ("np_f8e4m3fn", "np.array([1.5, -2.0, 448.0], ml_dtypes.float8_e4m3fn)", None, None, {}),
    ("np_f8e4m3fn_one", "np.array([1.5], ml_dtypes.float8_e4m3fn)", None, None, {}),
    ("np_f8e5m2", "np.array([1.5, 2.0], ml_dtypes.float8_e5m2)", None, None, {}),
    ("np_f8e5m2fnuz", "np.array([1.5, 2.0], ml_dtypes.float8_e5m2fnuz)", None, None, {}),
    ("np_f8e4m3fnuz", "np.array([1.5, 2.0], ml_dtypes.float8_e4m3fnuz)", None, None, {}),
    ("np_f8e4m3b11fnuz", "np.array([1.5, 2.0], ml_dtypes.float8_e4m3b11fnuz)", None, None, {}),
    ("np_f4e2m1fn", "np.array([1.5, -2.0, 6.0], ml_dtypes.float4_e2m1fn)", None, None, {}),
    ("np_f4e2m1fn_one", "np.array([1.5], ml_dtypes.float4_e2m1fn)", None, None, {}),
    ("np_i2", "np.array([1, -2], ml_dtypes.int2)", None, None, {}),
    ("np_i4", "np.array([1, -2, 7], ml_dtypes.int4)", None, None, {}),
    ("np_u4", "np.array([1, 15], ml_dtypes.uint4)", None, None, {}),
    ("np_c64", "np.array([1+2j, 3.5-1j], np.complex64)", None, None, {}),
    ("np_c128", "np.array([[1+2j], [3-4j]], np.complex128)", None, None, {}),
    ("np_bool", "np.array([[True, False]])", None, None, {}),
    ("np_unicode", "np.array(['ab', 'c'])", None, None, {}),
    ("np_object_bytes", "np.array([b'ab', b''], dtype=object)", None, None, {}),
    ("np_empty_2x0", "np.zeros((2, 0))", None, None, {}),
    ("np_big_f32", "np.linspace(0, 1, 50, dtype=np.float32)", None, None, {}),
    ("fill_scalar", "1", None, [2, 3], {}),
    ("fill_float_scalar", "7.0", "float32", [2, 2], {}),
    ("partial_list", "[1, 2]", None, [4], {}),
    ("partial_np", "np.array([1, 2])", None, [3], {}),
    ("reshape_list", "[1, 2, 3, 4, 5, 6]", None, [2, 3], {}),
    ("reshape_nested", "[[1, 2]]", None, [2], {}),
    ("reshape_np", "np.array([1, 2])", None, [2, 1], {}),
    ("zero_size_shape", "[]", "float32", [0, 3], {}),
    ("too_many", "[1, 2, 3, 4, 5, 6, 7]", None, [2, 3], {}),
    ("verify_shape_bad", "[1, 2]", None, [4], {"verify_shape": True}),
    ("verify_shape_ok", "[1, 2]", None, [2], {"verify_shape": True}),
    ("broadcast_scalar", "1", None, [2], {"allow_broadcast": True}),
    ("broadcast_bad", "[1, 2]", None, [2, 2], {"allow_broadcast": True}),
    ("dtype_int_to_float", "1", "float32", None, {}),
    ("dtype_list_to_f64", "[1, 2]", "float64", None, {}),
    ("dtype_np_float_to_int", "np.array([1.5, -2.7])", "int32", None, {}),
    ("dtype_np_int_to_float", "np.array([1, 2])", "float32", None, {}),
    ("dtype_float_to_int_err", "1.5", "int32", None, {}),
    ("dtype_str_to_int_err", "'a'", "int32", None, {}),
    ("dtype_int_to_string_err", "1", "string", None, {}),
    ("dtype_int_to_bool_err", "[1, 2]", "bool", None, {}),
    ("dtype_bool_to_int", "True", "int32", None, {}),
    ("dtype_wrap_uint8", "300", "uint8", None, {}),
    ("dtype_wrap_neg_uint8", "-1", "uint8", None, {}),
    ("dtype_int16", "[1, -2]", "int16", None, {}),
    ("dtype_half", "1", "float16", None, {}),
    ("dtype_half_list", "[1, 2.5]", "float16", None, {}),
    ("dtype_bf16", "1.5", "bfloat16", None, {}),
    ("dtype_f8", "[1.5, 2]", "float8_e5m2", None, {}),
    ("dtype_c64", "1", "complex64", None, {}),
    ("dtype_int4", "[5, -3]", "int4", None, {}),
    ("dtype_np_int8_to_qint8", "np.array([1, 2], np.int8)", "qint8", None, {}),
    ("none_err", "None", None, None, {}),
    ("mixed_str_int_err", "[1, 'a']", None, None, {}),
    ("ragged_err", "[[1, 2], [3]]", None, None, {}),
]

# Reading cases: hand-written TensorProto text (TensorFlow's message), read back by TensorFlow.
READ_CASES: list[tuple[str, str]] = [
    ("read_single_float_fills", "dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 2 } } float_val: 3.5"),
    ("read_last_value_repeats", "dtype: DT_INT32 tensor_shape { dim { size: 5 } } int_val: 1 int_val: 2"),
    ("read_no_values_zeros", "dtype: DT_DOUBLE tensor_shape { dim { size: 3 } }"),
    ("read_int64_repeat", "dtype: DT_INT64 tensor_shape { dim { size: 3 } } int64_val: -4"),
    ("read_half_val_fill", "dtype: DT_HALF tensor_shape { dim { size: 3 } } half_val: 15872"),
    ("read_bf16_half_val", "dtype: DT_BFLOAT16 tensor_shape { dim { size: 2 } } half_val: 16320 half_val: 49024"),
    ("read_bool_repeat", "dtype: DT_BOOL tensor_shape { dim { size: 3 } } bool_val: false bool_val: true"),
    ("read_string_fill", 'dtype: DT_STRING tensor_shape { dim { size: 2 } } string_val: "x"'),
    ("read_complex_fill", "dtype: DT_COMPLEX64 tensor_shape { dim { size: 2 } } scomplex_val: 1 scomplex_val: -1"),
    (
        "read_dcomplex",
        "dtype: DT_COMPLEX128 tensor_shape { dim { size: 2 } } dcomplex_val: [1, 2, 3, 4]",
    ),
    ("read_uint32_val", "dtype: DT_UINT32 tensor_shape { dim { size: 2 } } uint32_val: 4294967295 uint32_val: 7"),
    ("read_uint64_val", "dtype: DT_UINT64 tensor_shape { } uint64_val: 18446744073709551615"),
    ("read_uint8_int_val", "dtype: DT_UINT8 tensor_shape { dim { size: 2 } } int_val: 255 int_val: 1"),
    ("read_content_int16", 'dtype: DT_INT16 tensor_shape { dim { size: 2 } } tensor_content: "\\001\\000\\377\\377"'),
    (
        "read_content_f64",
        'dtype: DT_DOUBLE tensor_shape { dim { size: 1 } } tensor_content: "\\000\\000\\000\\000\\000\\000\\370?"',
    ),
    ("read_scalar_no_shape", "dtype: DT_FLOAT float_val: 2"),
    ("read_int4_int_val", "dtype: DT_INT4 tensor_shape { dim { size: 3 } } int_val: -8 int_val: 7"),
    ("read_float8_val", 'dtype: DT_FLOAT8_E4M3FN tensor_shape { dim { size: 2 } } float8_val: "8@"'),
]


def _expected(array: np.ndarray, dtype: tf.dtypes.DType) -> dict:
    out: dict = {"dtype": dtype.name, "shape": list(array.shape)}
    if dtype == tf.string:
        out["strings_hex"] = [bytes(x).hex() for x in array.reshape(-1)]
    else:
        out["bytes_hex"] = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes().hex()
    return out


def main() -> int:
    """Write every case's proto and expectations; print a one-line summary per case."""
    OUT.mkdir(parents=True, exist_ok=True)
    table = []
    namespace = {"np": np, "ml_dtypes": ml_dtypes}
    for name, expr, dtype, shape, kwargs in WRITE_CASES:
        entry: dict = {"name": name, "values": expr, "dtype": dtype, "shape": shape, **kwargs}
        values = eval(expr, namespace)  # noqa: S307 - the table above is ours
        tf_dtype = tf.dtypes.as_dtype(dtype) if dtype else None
        try:
            proto = tf.make_tensor_proto(values, dtype=tf_dtype, shape=shape, **kwargs)
        except Exception as e:  # noqa: BLE001 - recording TensorFlow's error is the point
            entry["error"] = type(e).__name__
            entry["message"] = str(e)
            print(f"{name}: {type(e).__name__}: {e}")
            table.append(entry)
            continue
        entry["proto_hex"] = proto.SerializeToString(deterministic=True).hex()
        entry["encoding"] = sorted(f.name for f, _ in proto.ListFields() if f.name not in ("dtype", "tensor_shape"))
        entry["expected"] = _expected(tf.make_ndarray(proto), tf.dtypes.as_dtype(proto.dtype))
        print(f"{name}: {text_format.MessageToString(proto, as_one_line=True)[:110]}")
        table.append(entry)
    for name, text in READ_CASES:
        proto = text_format.Parse(text, tensor_pb2.TensorProto())
        entry = {"name": name, "read_only": True, "text": text}
        entry["proto_hex"] = proto.SerializeToString(deterministic=True).hex()
        try:
            entry["expected"] = _expected(tf.make_ndarray(proto), tf.dtypes.as_dtype(proto.dtype))
        except Exception as e:  # noqa: BLE001
            entry["error"] = type(e).__name__
            entry["message"] = str(e)
        print(f"{name}: {entry.get('expected', entry.get('error'))}")
        table.append(entry)
    (OUT / "cases.json").write_text(json.dumps(table, indent=1, ensure_ascii=True) + "\n")
    print(f"wrote {len(table)} cases to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
