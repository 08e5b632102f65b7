"""DType names, numbers, numpy mapping, classification and ranges, as TensorFlow 2.21 reports them."""

from __future__ import annotations

import pickle

import ml_dtypes
import numpy as np
import pytest

from modtensor.framework import dtypes
from modtensor.framework.protos import types_pb2

# enum -> (name, size, is_floating, is_integer, is_unsigned, min, max), read from TensorFlow 2.21.
TF_FACTS = {
    1: ("float32", 4, True, False, False, -3.4028235e38, 3.4028235e38),
    2: ("float64", 8, True, False, False, -1.7976931348623157e308, 1.7976931348623157e308),
    3: ("int32", 4, False, True, False, -(2**31), 2**31 - 1),
    4: ("uint8", 1, False, True, True, 0, 255),
    5: ("int16", 2, False, True, False, -32768, 32767),
    6: ("int8", 1, False, True, False, -128, 127),
    7: ("string", 0, False, False, False, None, None),
    8: ("complex64", 8, False, False, False, None, None),
    9: ("int64", 8, False, True, False, -(2**63), 2**63 - 1),
    10: ("bool", 1, False, False, False, None, None),
    11: ("qint8", 1, False, False, False, None, None),
    12: ("quint8", 1, False, False, False, None, None),
    13: ("qint32", 4, False, False, False, None, None),
    14: ("bfloat16", 2, True, False, False, -3.38953e38, 3.38953e38),
    15: ("qint16", 2, False, False, False, None, None),
    16: ("quint16", 2, False, False, False, None, None),
    17: ("uint16", 2, False, True, True, 0, 65535),
    18: ("complex128", 16, False, False, False, None, None),
    19: ("float16", 2, True, False, False, -65504.0, 65504.0),
    20: ("resource", 0, False, False, False, None, None),
    21: ("variant", 0, False, False, False, None, None),
    22: ("uint32", 4, False, True, True, 0, 2**32 - 1),
    23: ("uint64", 8, False, True, True, 0, 2**64 - 1),
    24: ("float8_e5m2", 1, True, False, False, -57344, 57344),
    25: ("float8_e4m3fn", 1, True, False, False, -448, 448),
    26: ("float8_e4m3fnuz", 1, True, False, False, -240, 240),
    27: ("float8_e4m3b11fnuz", 1, True, False, False, -30, 30),
    28: ("float8_e5m2fnuz", 1, True, False, False, -57344, 57344),
    29: ("int4", 1, False, True, False, -8, 7),
    30: ("uint4", 1, False, True, True, 0, 15),
    31: ("int2", 1, False, True, False, -2, 1),
    32: ("uint2", 1, False, True, True, 0, 3),
    33: ("float4_e2m1fn", 1, True, False, False, -6, 6),
}


def test_every_enum_value_has_a_dtype_and_module_constant() -> None:
    enums = {v for v in types_pb2.DataType.values() if v != types_pb2.DT_INVALID}
    assert {d.as_datatype_enum for d in dtypes.ALL_DTYPES} == enums
    for d in dtypes.ALL_DTYPES:
        assert getattr(dtypes, d.name) is d


@pytest.mark.parametrize("enum", sorted(TF_FACTS))
def test_facts_match_tensorflow(enum: int) -> None:
    name, size, floating, integer, unsigned, lo, hi = TF_FACTS[enum]
    for d, suffix in ((dtypes.as_dtype(enum), ""), (dtypes.as_dtype(enum + 100), "_ref")):
        assert d.name == name + suffix
        assert repr(d) == f"tf.{name}{suffix}"
        assert str(d) == f"<dtype: '{name}{suffix}'>"
        assert (d.size, d.is_floating, d.is_integer, d.is_unsigned) == (size, floating, integer, unsigned)
        if lo is None:
            with pytest.raises(TypeError):
                _ = d.min
            with pytest.raises(TypeError):
                _ = d.max
        else:
            assert float(d.min) == pytest.approx(lo, rel=1e-5)
            assert float(d.max) == pytest.approx(hi, rel=1e-5)


def test_aliases_and_classification() -> None:
    assert dtypes.half is dtypes.float16 and dtypes.double is dtypes.float64
    assert dtypes.qint8.is_quantized and not dtypes.int8.is_quantized
    assert dtypes.complex64.is_complex and dtypes.bool.is_bool
    assert dtypes.float32.is_numeric and not dtypes.float8_e4m3fn.is_numeric and not dtypes.int4.is_numeric
    assert not dtypes.resource.is_numpy_compatible and dtypes.qint8.is_numpy_compatible
    assert isinstance(dtypes.int32.min, int) and isinstance(dtypes.float32.min, np.float32)


def test_numpy_types() -> None:
    assert dtypes.float32.as_numpy_dtype is np.float32
    assert dtypes.bfloat16.as_numpy_dtype is ml_dtypes.bfloat16
    assert dtypes.float8_e4m3fn.as_numpy_dtype is ml_dtypes.float8_e4m3fn
    assert dtypes.int4.as_numpy_dtype is ml_dtypes.int4
    assert dtypes.string.as_numpy_dtype is np.object_
    assert dtypes.qint8.as_numpy_dtype == np.dtype([("qint8", np.int8)])
    assert dtypes.float32_ref.as_numpy_dtype is np.float32
    with pytest.raises(TypeError, match="resource"):
        _ = dtypes.resource.as_numpy_dtype


def test_ref_base_and_real_dtypes() -> None:
    assert dtypes.float32_ref.base_dtype is dtypes.float32
    assert dtypes.float32.as_ref is dtypes.float32_ref and dtypes.float32_ref.is_ref_dtype
    assert dtypes.complex64.real_dtype is dtypes.float32
    assert dtypes.complex128_ref.real_dtype is dtypes.float64
    assert dtypes.int32.real_dtype is dtypes.int32
    assert dtypes.float32.is_compatible_with(dtypes.float32_ref)
    assert not dtypes.float32_ref.is_compatible_with(dtypes.float32)
    assert dtypes.float32.is_compatible_with(np.float32)


def test_cpp_and_enum_names() -> None:
    assert (dtypes.float32.cpp_name, dtypes.float16.cpp_name, dtypes.float64_ref.cpp_name) == (
        "float",
        "half",
        "double_ref",
    )
    assert dtypes.int64.cpp_name == "int64"
    assert dtypes.float32.enum_name == "DT_FLOAT" and dtypes.half_ref.enum_name == "DT_HALF_REF"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("float32", dtypes.float32),
        ("float", dtypes.float32),
        ("double", dtypes.float64),
        ("half", dtypes.float16),
        ("float_ref", dtypes.float32_ref),
        ("bfloat16", dtypes.bfloat16),
        (1, dtypes.float32),
        (101, dtypes.float32_ref),
        (np.int64(9), dtypes.int64),
        (np.float32, dtypes.float32),
        (np.dtype(">f4"), dtypes.float32),
        (np.dtype("<U3"), dtypes.string),
        (np.bytes_, dtypes.string),
        (np.object_, dtypes.string),
        (ml_dtypes.bfloat16, dtypes.bfloat16),
        (np.dtype(ml_dtypes.int4), dtypes.int4),
        (np.dtype([("qint8", np.int8)]), dtypes.qint8),
        (float, dtypes.float32),
        (bool, dtypes.bool),
        (object, dtypes.string),
        (int, dtypes.int32),  # extension: TensorFlow rejects python int
        (str, dtypes.string),  # extension
        (complex, dtypes.complex128),  # extension
        (dtypes.int8, dtypes.int8),
    ],
)
def test_as_dtype_accepts(value: object, expected: dtypes.DType) -> None:
    assert dtypes.as_dtype(value) is expected


@pytest.mark.parametrize(
    "value", ["DT_FLOAT", "tf.float32", "long", b"float32", 0, 34, 200, True, 3.0, None, [1], list]
)
def test_as_dtype_rejects_with_a_clear_message(value: object) -> None:
    with pytest.raises(TypeError, match=r"Cannot convert the argument `type_value`: .* to a TensorFlow DType"):
        dtypes.as_dtype(value)


def test_equality_hash_interning_and_pickle() -> None:
    assert dtypes.float32 == 1 and dtypes.float32 == "float32" and dtypes.float32 == np.float32
    assert dtypes.float32 != "garbage" and dtypes.float32 != None  # noqa: E711
    assert dtypes.float32 != dtypes.float32_ref
    assert hash(dtypes.float32) == 1 and len({dtypes.float32, dtypes.DType(1)}) == 1
    assert dtypes.DType(1) is dtypes.float32
    assert pickle.loads(pickle.dumps(dtypes.int4)) is dtypes.int4
    with pytest.raises(TypeError, match="not a valid DataType"):
        dtypes.DType(99)
