"""Tensor element types: ``DType`` for every TensorFlow ``DataType`` enum value.

A ``DType`` wraps one ``DataType`` number and knows its TensorFlow name
(``float32``, ``int64``, ``float8_e4m3fn``, ``float32_ref``), its numpy type
(bfloat16, float8, float4 and the narrow integers come from ``ml_dtypes``, as in
TensorFlow), its size and its value range, so graphs, kernels and error
messages agree on one vocabulary of types.
"""

from __future__ import annotations

import builtins
from typing import Any

import ml_dtypes
import numpy as np

from modtensor.framework.protos import types_pb2

_REF_OFFSET = 100

# enum number -> (TF python name, numpy type or None, size in bytes). The C++
# DataTypeSize is 0 for string, resource and variant; TF reports the same.
_VALUE_TYPES: dict[int, tuple[str, Any, int]] = {
    types_pb2.DT_FLOAT: ("float32", np.float32, 4),
    types_pb2.DT_DOUBLE: ("float64", np.float64, 8),
    types_pb2.DT_INT32: ("int32", np.int32, 4),
    types_pb2.DT_UINT8: ("uint8", np.uint8, 1),
    types_pb2.DT_INT16: ("int16", np.int16, 2),
    types_pb2.DT_INT8: ("int8", np.int8, 1),
    types_pb2.DT_STRING: ("string", np.object_, 0),
    types_pb2.DT_COMPLEX64: ("complex64", np.complex64, 8),
    types_pb2.DT_INT64: ("int64", np.int64, 8),
    types_pb2.DT_BOOL: ("bool", np.bool_, 1),
    types_pb2.DT_QINT8: ("qint8", np.dtype([("qint8", np.int8)]), 1),
    types_pb2.DT_QUINT8: ("quint8", np.dtype([("quint8", np.uint8)]), 1),
    types_pb2.DT_QINT32: ("qint32", np.dtype([("qint32", np.int32)]), 4),
    types_pb2.DT_BFLOAT16: ("bfloat16", ml_dtypes.bfloat16, 2),
    types_pb2.DT_QINT16: ("qint16", np.dtype([("qint16", np.int16)]), 2),
    types_pb2.DT_QUINT16: ("quint16", np.dtype([("quint16", np.uint16)]), 2),
    types_pb2.DT_UINT16: ("uint16", np.uint16, 2),
    types_pb2.DT_COMPLEX128: ("complex128", np.complex128, 16),
    types_pb2.DT_HALF: ("float16", np.float16, 2),
    types_pb2.DT_RESOURCE: ("resource", None, 0),
    types_pb2.DT_VARIANT: ("variant", None, 0),
    types_pb2.DT_UINT32: ("uint32", np.uint32, 4),
    types_pb2.DT_UINT64: ("uint64", np.uint64, 8),
    types_pb2.DT_FLOAT8_E5M2: ("float8_e5m2", ml_dtypes.float8_e5m2, 1),
    types_pb2.DT_FLOAT8_E4M3FN: ("float8_e4m3fn", ml_dtypes.float8_e4m3fn, 1),
    types_pb2.DT_FLOAT8_E4M3FNUZ: ("float8_e4m3fnuz", ml_dtypes.float8_e4m3fnuz, 1),
    types_pb2.DT_FLOAT8_E4M3B11FNUZ: ("float8_e4m3b11fnuz", ml_dtypes.float8_e4m3b11fnuz, 1),
    types_pb2.DT_FLOAT8_E5M2FNUZ: ("float8_e5m2fnuz", ml_dtypes.float8_e5m2fnuz, 1),
    types_pb2.DT_INT4: ("int4", ml_dtypes.int4, 1),
    types_pb2.DT_UINT4: ("uint4", ml_dtypes.uint4, 1),
    types_pb2.DT_INT2: ("int2", ml_dtypes.int2, 1),
    types_pb2.DT_UINT2: ("uint2", ml_dtypes.uint2, 1),
    types_pb2.DT_FLOAT4_E2M1FN: ("float4_e2m1fn", ml_dtypes.float4_e2m1fn, 1),
}

_FLOATING = {
    types_pb2.DT_HALF,
    types_pb2.DT_FLOAT,
    types_pb2.DT_DOUBLE,
    types_pb2.DT_BFLOAT16,
    types_pb2.DT_FLOAT8_E5M2,
    types_pb2.DT_FLOAT8_E4M3FN,
    types_pb2.DT_FLOAT8_E4M3FNUZ,
    types_pb2.DT_FLOAT8_E4M3B11FNUZ,
    types_pb2.DT_FLOAT8_E5M2FNUZ,
    types_pb2.DT_FLOAT4_E2M1FN,
}
_UNSIGNED = {
    types_pb2.DT_UINT8,
    types_pb2.DT_UINT16,
    types_pb2.DT_UINT32,
    types_pb2.DT_UINT64,
    types_pb2.DT_UINT4,
    types_pb2.DT_UINT2,
}
_INTEGER = _UNSIGNED | {
    types_pb2.DT_INT8,
    types_pb2.DT_INT16,
    types_pb2.DT_INT32,
    types_pb2.DT_INT64,
    types_pb2.DT_INT4,
    types_pb2.DT_INT2,
}
_COMPLEX = {types_pb2.DT_COMPLEX64, types_pb2.DT_COMPLEX128}
_QUANTIZED = {
    types_pb2.DT_QINT8,
    types_pb2.DT_QUINT8,
    types_pb2.DT_QINT16,
    types_pb2.DT_QUINT16,
    types_pb2.DT_QINT32,
}
# TensorFlow's is_numeric set predates float8, float4 and the narrow integers.
_NUMERIC = (
    {
        types_pb2.DT_HALF,
        types_pb2.DT_FLOAT,
        types_pb2.DT_DOUBLE,
        types_pb2.DT_BFLOAT16,
        types_pb2.DT_INT8,
        types_pb2.DT_INT16,
        types_pb2.DT_INT32,
        types_pb2.DT_INT64,
        types_pb2.DT_UINT8,
        types_pb2.DT_UINT16,
        types_pb2.DT_UINT32,
        types_pb2.DT_UINT64,
    }
    | _COMPLEX
    | _QUANTIZED
)
# The C++ DataTypeString differs from the Python name for these three.
_CPP_NAMES = {types_pb2.DT_FLOAT: "float", types_pb2.DT_DOUBLE: "double", types_pb2.DT_HALF: "half"}


class DType:
    """One TensorFlow element type; compares equal to its enum number, name or numpy type.

    Instances are interned: ``DType(1) is float32``.
    """

    __slots__ = ("_type_enum",)
    _interned: dict[int, DType] = {}

    def __new__(cls, type_enum: int) -> DType:
        existing = cls._interned.get(type_enum)
        if existing is not None:
            return existing
        if not isinstance(type_enum, builtins.int) or isinstance(type_enum, builtins.bool):
            raise TypeError(f"DType expects a DataType enum number, got {type_enum!r}")
        if type_enum % _REF_OFFSET not in _VALUE_TYPES or type_enum // _REF_OFFSET > 1:
            raise TypeError(f"{type_enum} is not a valid DataType enum number (see types.proto)")
        obj = super().__new__(cls)
        obj._type_enum = type_enum
        cls._interned[type_enum] = obj
        return obj

    def __reduce__(self) -> tuple[Any, tuple[int]]:
        return (DType, (self._type_enum,))

    # ------------------------------------------------------------------ identity
    @property
    def as_datatype_enum(self) -> int:
        """The ``DataType`` enum number (``DT_FLOAT`` = 1, refs add 100)."""
        return self._type_enum

    @property
    def _base_enum(self) -> int:
        return self._type_enum - _REF_OFFSET if self._type_enum > _REF_OFFSET else self._type_enum

    @property
    def name(self) -> str:
        """TensorFlow's Python name: ``float32``, ``float16``, ``float32_ref``."""
        base = _VALUE_TYPES[self._base_enum][0]
        return base + "_ref" if self.is_ref_dtype else base

    @property
    def cpp_name(self) -> str:
        """TensorFlow's C++ DataTypeString (``float``, ``half``, ``double_ref``), used in kernel/op messages."""
        base = _CPP_NAMES.get(self._base_enum, _VALUE_TYPES[self._base_enum][0])
        return base + "_ref" if self.is_ref_dtype else base

    @property
    def enum_name(self) -> str:
        """The ``DataType`` enum's own name, as attr summaries print it: ``DT_FLOAT``."""
        return types_pb2.DataType.Name(self._type_enum)

    @property
    def is_ref_dtype(self) -> bool:
        """Whether this is a legacy reference type (``float32_ref``)."""
        return self._type_enum > _REF_OFFSET

    _is_ref_dtype = is_ref_dtype

    @property
    def base_dtype(self) -> DType:
        """The non-reference type: ``float32_ref`` -> ``float32``."""
        return DType(self._base_enum)

    @property
    def as_ref(self) -> DType:
        """The reference type of this type: ``float32`` -> ``float32_ref``."""
        return self if self.is_ref_dtype else DType(self._type_enum + _REF_OFFSET)

    _as_ref = as_ref

    @property
    def real_dtype(self) -> DType:
        """The type of the real part: ``complex64`` -> ``float32``; other types return themselves."""
        base = self._base_enum
        if base == types_pb2.DT_COMPLEX64:
            return float32
        if base == types_pb2.DT_COMPLEX128:
            return float64
        return self

    # ------------------------------------------------------------------ numpy
    @property
    def as_numpy_dtype(self) -> Any:
        """The numpy scalar type (``np.float32``, ``ml_dtypes.bfloat16``); quantized types are structured dtypes."""
        np_type = _VALUE_TYPES[self._base_enum][1]
        if np_type is None:
            raise TypeError(f"{self!r} has no numpy equivalent")
        return np_type

    @property
    def is_numpy_compatible(self) -> bool:
        """Whether the type has a numpy equivalent (everything but resource and variant)."""
        return _VALUE_TYPES[self._base_enum][1] is not None

    # ------------------------------------------------------------------ classification
    @property
    def is_floating(self) -> bool:
        """Whether this is a real floating-point type (half, bfloat16, float8, ...)."""
        return self._base_enum in _FLOATING

    @property
    def is_integer(self) -> bool:
        """Whether this is a non-quantized integer type (bool is not one)."""
        return self._base_enum in _INTEGER

    @property
    def is_unsigned(self) -> bool:
        """Whether this is an unsigned integer type."""
        return self._base_enum in _UNSIGNED

    @property
    def is_complex(self) -> bool:
        """Whether this is complex64 or complex128."""
        return self._base_enum in _COMPLEX

    @property
    def is_bool(self) -> bool:
        """Whether this is bool."""
        return self._base_enum == types_pb2.DT_BOOL

    @property
    def is_quantized(self) -> bool:
        """Whether this is one of the quantized integer types (qint8, quint8, ...)."""
        return self._base_enum in _QUANTIZED

    @property
    def is_numeric(self) -> bool:
        """TensorFlow's is_numeric: the classic numeric types (not bool, string, float8 or int4)."""
        return self._base_enum in _NUMERIC

    @property
    def size(self) -> int:
        """Bytes per element (0 for string, resource and variant, as TensorFlow's DataTypeSize)."""
        return _VALUE_TYPES[self._base_enum][2]

    # ------------------------------------------------------------------ range
    def _range_info(self, which: str) -> Any:
        if self.is_quantized or self.is_bool or self.is_complex or not self.is_numpy_compatible:
            raise TypeError(f"Cannot find {which} value of {self!r}: it has no ordered numeric range")
        if self._base_enum == types_pb2.DT_STRING:
            raise TypeError(f"Cannot find {which} value of {self!r}: it has no ordered numeric range")
        np_type = self.as_numpy_dtype
        if self.is_floating:
            return np.finfo(np_type) if np_type in (np.float16, np.float32, np.float64) else ml_dtypes.finfo(np_type)
        info = ml_dtypes.iinfo(np_type) if self._base_enum in _ML_INTS else np.iinfo(np_type)
        return info

    @property
    def min(self) -> Any:
        """The lowest finite value (numpy scalar for floats, int for integers); TypeError if unordered."""
        info = self._range_info("minimum")
        return builtins.int(info.min) if self.is_integer else info.min

    @property
    def max(self) -> Any:
        """The largest finite value (numpy scalar for floats, int for integers); TypeError if unordered."""
        info = self._range_info("maximum")
        return builtins.int(info.max) if self.is_integer else info.max

    # ------------------------------------------------------------------ comparison
    def is_compatible_with(self, other: Any) -> bool:
        """TF's rule: a value of type ``other`` may be used where ``self`` is expected (refs decay)."""
        other = as_dtype(other)
        return self._type_enum in (other._type_enum, other._base_enum)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DType):
            return self._type_enum == other._type_enum
        if other is None:
            return False
        try:
            return self._type_enum == as_dtype(other)._type_enum
        except TypeError:
            return False

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return self._type_enum

    def __repr__(self) -> str:
        return f"tf.{self.name}"

    def __str__(self) -> str:
        return f"<dtype: '{self.name}'>"


_ML_INTS = {types_pb2.DT_INT4, types_pb2.DT_UINT4, types_pb2.DT_INT2, types_pb2.DT_UINT2}

# ---------------------------------------------------------------------- constants
float16 = DType(types_pb2.DT_HALF)
half = float16
float32 = DType(types_pb2.DT_FLOAT)
float64 = DType(types_pb2.DT_DOUBLE)
double = float64
bfloat16 = DType(types_pb2.DT_BFLOAT16)
int8 = DType(types_pb2.DT_INT8)
int16 = DType(types_pb2.DT_INT16)
int32 = DType(types_pb2.DT_INT32)
int64 = DType(types_pb2.DT_INT64)
uint8 = DType(types_pb2.DT_UINT8)
uint16 = DType(types_pb2.DT_UINT16)
uint32 = DType(types_pb2.DT_UINT32)
uint64 = DType(types_pb2.DT_UINT64)
bool = DType(types_pb2.DT_BOOL)  # noqa: A001 - TensorFlow's name
string = DType(types_pb2.DT_STRING)
complex64 = DType(types_pb2.DT_COMPLEX64)
complex128 = DType(types_pb2.DT_COMPLEX128)
qint8 = DType(types_pb2.DT_QINT8)
quint8 = DType(types_pb2.DT_QUINT8)
qint16 = DType(types_pb2.DT_QINT16)
quint16 = DType(types_pb2.DT_QUINT16)
qint32 = DType(types_pb2.DT_QINT32)
resource = DType(types_pb2.DT_RESOURCE)
variant = DType(types_pb2.DT_VARIANT)
float8_e5m2 = DType(types_pb2.DT_FLOAT8_E5M2)
float8_e4m3fn = DType(types_pb2.DT_FLOAT8_E4M3FN)
float8_e4m3fnuz = DType(types_pb2.DT_FLOAT8_E4M3FNUZ)
float8_e4m3b11fnuz = DType(types_pb2.DT_FLOAT8_E4M3B11FNUZ)
float8_e5m2fnuz = DType(types_pb2.DT_FLOAT8_E5M2FNUZ)
int4 = DType(types_pb2.DT_INT4)
uint4 = DType(types_pb2.DT_UINT4)
int2 = DType(types_pb2.DT_INT2)
uint2 = DType(types_pb2.DT_UINT2)
float4_e2m1fn = DType(types_pb2.DT_FLOAT4_E2M1FN)

float16_ref = float16.as_ref
half_ref = float16_ref
float32_ref = float32.as_ref
float64_ref = float64.as_ref
double_ref = float64_ref
bfloat16_ref = bfloat16.as_ref
int8_ref = int8.as_ref
int16_ref = int16.as_ref
int32_ref = int32.as_ref
int64_ref = int64.as_ref
uint8_ref = uint8.as_ref
uint16_ref = uint16.as_ref
uint32_ref = uint32.as_ref
uint64_ref = uint64.as_ref
bool_ref = bool.as_ref
string_ref = string.as_ref
complex64_ref = complex64.as_ref
complex128_ref = complex128.as_ref
qint8_ref = qint8.as_ref
quint8_ref = quint8.as_ref
qint16_ref = qint16.as_ref
quint16_ref = quint16.as_ref
qint32_ref = qint32.as_ref
resource_ref = resource.as_ref
variant_ref = variant.as_ref
float8_e5m2_ref = float8_e5m2.as_ref
float8_e4m3fn_ref = float8_e4m3fn.as_ref
float8_e4m3fnuz_ref = float8_e4m3fnuz.as_ref
float8_e4m3b11fnuz_ref = float8_e4m3b11fnuz.as_ref
float8_e5m2fnuz_ref = float8_e5m2fnuz.as_ref
int4_ref = int4.as_ref
uint4_ref = uint4.as_ref
int2_ref = int2.as_ref
uint2_ref = uint2.as_ref
float4_e2m1fn_ref = float4_e2m1fn.as_ref

#: Every DType, value types then reference types, in enum order.
ALL_DTYPES: tuple[DType, ...] = tuple(DType(e) for e in sorted(_VALUE_TYPES)) + tuple(
    DType(e + _REF_OFFSET) for e in sorted(_VALUE_TYPES)
)
QUANTIZED_DTYPES: frozenset[DType] = frozenset(d for d in ALL_DTYPES if d.is_quantized)

# ---------------------------------------------------------------------- conversion
_NAME_TO_DTYPE: dict[str, DType] = {d.name: d for d in ALL_DTYPES}
for _alias, _dt in (("half", float16), ("float", float32), ("double", float64)):
    _NAME_TO_DTYPE[_alias] = _dt
    _NAME_TO_DTYPE[_alias + "_ref"] = _dt.as_ref

_NP_TO_DTYPE: dict[Any, DType] = {}
for _e, (_name, _np_type, _size) in _VALUE_TYPES.items():
    if _np_type is not None and _e != types_pb2.DT_STRING:
        _NP_TO_DTYPE[np.dtype(_np_type)] = DType(_e)
for _np_type in (np.object_, np.str_, np.bytes_):
    _NP_TO_DTYPE[np.dtype(_np_type)] = string

# float -> float32, bool -> bool and object -> string are TensorFlow's; int,
# str, bytes and complex are modtensor's extension (TensorFlow rejects them).
_PY_TO_DTYPE: dict[type, DType] = {
    builtins.float: float32,
    builtins.bool: bool,
    object: string,
    builtins.int: int32,
    builtins.str: string,
    builtins.bytes: string,
    builtins.complex: complex128,
}


def as_dtype(type_value: Any) -> DType:
    """Convert a DType, enum number, TF name (``"float32"``, ``"float"``), numpy dtype/type or python type.

    Raises TypeError naming the value when it is none of those.
    """
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, (builtins.int, np.integer)) and not isinstance(type_value, (builtins.bool, np.bool_)):
        enum = builtins.int(type_value)
        if enum % _REF_OFFSET in _VALUE_TYPES and enum // _REF_OFFSET <= 1:
            return DType(enum)
    elif isinstance(type_value, str):
        found = _NAME_TO_DTYPE.get(type_value)
        if found is not None:
            return found
    elif isinstance(type_value, type) and type_value in _PY_TO_DTYPE:
        return _PY_TO_DTYPE[type_value]
    else:
        try:
            is_np_type = isinstance(type_value, type) and issubclass(type_value, np.generic)
            np_dtype = np.dtype(type_value) if isinstance(type_value, np.dtype) or is_np_type else None
        except TypeError:
            np_dtype = None
        if np_dtype is not None:
            if np_dtype.kind in "biufc" and np_dtype.byteorder not in "=|":
                np_dtype = np_dtype.newbyteorder("=")
            found = _NP_TO_DTYPE.get(np_dtype)
            if found is None and np_dtype.kind in "USO":
                found = string
            if found is not None:
                return found
    raise TypeError(
        f"Cannot convert the argument `type_value`: {type_value!r} to a TensorFlow DType. "
        "Pass a DType, a DataType enum number, a name like 'float32', or a numpy dtype."
    )
