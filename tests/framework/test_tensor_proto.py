"""TensorProto <-> numpy, checked against fixtures TensorFlow made (tools/make_golden_tensor_protos.py)."""

from __future__ import annotations

import json
import pathlib

import ml_dtypes
import numpy as np
import pytest

from modtensor.framework import dtypes
from modtensor.framework.protos import tensor_pb2
from modtensor.framework.tensor_proto import make_ndarray, make_tensor_proto

GOLDEN = pathlib.Path(__file__).resolve().parent.parent / "golden" / "tensor_protos" / "cases.json"
CASES = json.loads(GOLDEN.read_text())
WRITE_CASES = [c for c in CASES if not c.get("read_only")]
OK_CASES = [c for c in CASES if "error" not in c]
ERROR_CASES = [c for c in WRITE_CASES if "error" in c]


def _expected_array(expected: dict) -> np.ndarray:
    dtype = dtypes.as_dtype(expected["dtype"])
    if "strings_hex" in expected:
        out = np.empty(len(expected["strings_hex"]), dtype=object)
        out[:] = [bytes.fromhex(h) for h in expected["strings_hex"]]
        return out.reshape(expected["shape"])
    np_dtype = np.dtype(dtype.as_numpy_dtype)
    raw = bytes.fromhex(expected["bytes_hex"])
    if np_dtype.kind in "iufc":
        return np.frombuffer(raw, dtype=np_dtype.newbyteorder("<")).astype(np_dtype).reshape(expected["shape"])
    return np.frombuffer(raw, dtype=np_dtype).reshape(expected["shape"])


def _same(actual: np.ndarray, expected: np.ndarray) -> None:
    assert actual.shape == expected.shape
    assert actual.dtype == expected.dtype
    if expected.dtype == object:
        assert actual.tolist() == expected.tolist()
    else:
        assert actual.tobytes() == expected.tobytes()


def _call(case: dict) -> tensor_pb2.TensorProto:
    values = eval(case["values"], {"np": np, "ml_dtypes": ml_dtypes})  # noqa: S307 - committed fixture
    kwargs = {k: case[k] for k in ("verify_shape", "allow_broadcast") if k in case}
    return make_tensor_proto(values, dtype=case["dtype"], shape=case["shape"], **kwargs)


@pytest.mark.parametrize("case", OK_CASES, ids=[c["name"] for c in OK_CASES])
def test_make_ndarray_reads_what_tensorflow_reads(case: dict) -> None:
    proto = tensor_pb2.TensorProto.FromString(bytes.fromhex(case["proto_hex"]))
    _same(make_ndarray(proto), _expected_array(case["expected"]))


@pytest.mark.parametrize("case", [c for c in OK_CASES if not c.get("read_only")], ids=lambda c: c["name"])
def test_make_tensor_proto_writes_what_tensorflow_writes(case: dict) -> None:
    proto = _call(case)
    theirs = tensor_pb2.TensorProto.FromString(bytes.fromhex(case["proto_hex"]))
    # Same encoding choice (tensor_content vs typed values) and same bytes.
    assert proto.SerializeToString(deterministic=True) == theirs.SerializeToString(deterministic=True), (
        f"{proto}\n!=\n{theirs}"
    )
    _same(make_ndarray(proto), _expected_array(case["expected"]))


@pytest.mark.parametrize("case", ERROR_CASES, ids=[c["name"] for c in ERROR_CASES])
def test_make_tensor_proto_rejects_what_tensorflow_rejects(case: dict) -> None:
    error = {"TypeError": TypeError, "ValueError": ValueError}[case["error"]]
    with pytest.raises(error) as info:
        _call(case)
    if case["name"] in ("too_many", "verify_shape_bad", "broadcast_bad", "none_err") or case["name"].startswith(
        "dtype_"
    ):
        assert str(info.value) == case["message"]


def test_golden_table_covers_both_encodings_and_errors() -> None:
    encodings = {tuple(c.get("encoding", ())) for c in WRITE_CASES}
    assert ("tensor_content",) in encodings
    assert ("half_val",) in encodings and ("float8_val",) in encodings and ("int_val",) in encodings
    assert len(ERROR_CASES) >= 8


def test_big_endian_input_is_written_little_endian() -> None:
    proto = make_tensor_proto(np.array([1, 2], dtype=">i4"))
    assert proto.tensor_content == b"\x01\x00\x00\x00\x02\x00\x00\x00"
    np.testing.assert_array_equal(make_ndarray(proto), [1, 2])


def test_proto_passes_through_and_strings_roundtrip() -> None:
    proto = make_tensor_proto([["a", "é"], [b"\x00", b""]])
    assert make_tensor_proto(proto) is proto
    out = make_ndarray(proto)
    assert out.dtype == object and out.tolist() == [[b"a", "é".encode()], [b"\x00", b""]]


@pytest.mark.parametrize(
    "dtype",
    [d for d in dtypes.ALL_DTYPES if d.is_numpy_compatible and not d.is_ref_dtype and d != dtypes.string],
    ids=lambda d: d.name,
)
def test_every_numeric_dtype_roundtrips(dtype: dtypes.DType) -> None:
    np_dtype = np.dtype(dtype.as_numpy_dtype)
    if dtype.is_quantized:
        array = np.array([[1, 2, 3]], dtype=np_dtype[0]).view(np_dtype)
    elif dtype.is_bool:
        array = np.array([[True, False, True]])
    else:
        array = np.array([[0, 1, 2]]).astype(np_dtype)
    for values in (array, array[:, :1]):
        proto = make_tensor_proto(values, dtype=dtype)
        assert proto.dtype == dtype.as_datatype_enum
        back = make_ndarray(proto)
        assert back.dtype == np_dtype and back.shape == values.shape
        assert back.tobytes() == np.ascontiguousarray(values).tobytes()


def test_python_int_inference() -> None:
    assert make_tensor_proto(2**31 - 1).dtype == dtypes.int32.as_datatype_enum
    assert make_tensor_proto([-(2**63)]).dtype == dtypes.int64.as_datatype_enum
    assert make_tensor_proto(2**64 - 1).dtype == dtypes.uint64.as_datatype_enum
    with pytest.raises(ValueError, match="out of range"):
        make_tensor_proto(2**64)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('dtype: DT_FLOAT tensor_shape { dim { size: 2 } } tensor_content: "abc"', "tensor_content has 3 bytes"),
        ("dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: [1, 2]", "2 values in int_val"),
        ("dtype: DT_INT32 tensor_shape { dim { size: -1 } }", "not fully defined"),
        ("dtype: DT_INT32 tensor_shape { unknown_rank: true }", "not fully defined"),
        ("dtype: DT_COMPLEX64 tensor_shape { } scomplex_val: 1", "odd number"),
    ],
)
def test_make_ndarray_errors_name_the_problem(text: str, message: str) -> None:
    from google.protobuf import text_format

    with pytest.raises(ValueError, match=message):
        make_ndarray(text_format.Parse(text, tensor_pb2.TensorProto()))


def test_make_ndarray_rejects_invalid_dtype_and_non_protos() -> None:
    with pytest.raises(TypeError, match="DT_INVALID"):
        make_ndarray(tensor_pb2.TensorProto())
    with pytest.raises(TypeError, match="expects a TensorProto"):
        make_ndarray(np.zeros(2))  # type: ignore[arg-type]


def test_make_tensor_proto_errors() -> None:
    with pytest.raises(ValueError, match="fully defined shape"):
        make_tensor_proto(1, shape=[None, 2])
    with pytest.raises(TypeError, match="resource"):
        make_tensor_proto(1, dtype=dtypes.resource)
    with pytest.raises(TypeError, match="Failed to convert"):
        make_tensor_proto(object())
    with pytest.raises(ValueError, match="non-rectangular"):
        make_tensor_proto([[1, 2], [3]])
    with pytest.raises(TypeError, match="Cannot convert"):
        make_tensor_proto(1, dtype="no_such_type")


def test_integer_wrapping_for_narrow_types() -> None:
    assert make_ndarray(make_tensor_proto(2**40 + 5, dtype=dtypes.int32)) == 5
    assert make_ndarray(make_tensor_proto([9], dtype=dtypes.int4)).tolist() == [-7]
    assert make_ndarray(make_tensor_proto(-1, dtype=dtypes.uint16)) == 65535
