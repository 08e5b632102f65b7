"""``TensorProto`` <-> numpy with TensorFlow's encoding rules.

``make_tensor_proto`` infers dtypes from python values as TensorFlow does
(python float -> float32, int -> int32 unless it needs int64/uint64), writes
``tensor_content`` for numeric arrays of more than one element and the typed
``*_val`` fields otherwise. ``make_ndarray`` reads either encoding, including
TensorFlow's "one value fills the shape" and "the last value repeats" rules.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from modtensor.framework import dtypes, tensor_shape
from modtensor.framework.protos import tensor_pb2, types_pb2

_MAX_CONTENT_BYTES = 1 << 31

# Types whose arrays of > 1 element TensorFlow writes as raw tensor_content.
_CONTENT_TYPES = frozenset(
    {
        types_pb2.DT_HALF,
        types_pb2.DT_FLOAT,
        types_pb2.DT_DOUBLE,
        types_pb2.DT_INT32,
        types_pb2.DT_UINT8,
        types_pb2.DT_INT16,
        types_pb2.DT_INT8,
        types_pb2.DT_INT64,
        types_pb2.DT_UINT32,
        types_pb2.DT_UINT64,
        types_pb2.DT_BFLOAT16,
        types_pb2.DT_QINT8,
        types_pb2.DT_QUINT8,
        types_pb2.DT_QINT16,
        types_pb2.DT_QUINT16,
        types_pb2.DT_QINT32,
        types_pb2.DT_FLOAT8_E5M2,
        types_pb2.DT_FLOAT8_E4M3FN,
        types_pb2.DT_FLOAT8_E4M3FNUZ,
        types_pb2.DT_FLOAT8_E4M3B11FNUZ,
        types_pb2.DT_FLOAT8_E5M2FNUZ,
        types_pb2.DT_FLOAT4_E2M1FN,
    }
)

# The typed field each type's values live in when not in tensor_content.
_VAL_FIELD = {
    types_pb2.DT_FLOAT: "float_val",
    types_pb2.DT_DOUBLE: "double_val",
    types_pb2.DT_INT32: "int_val",
    types_pb2.DT_UINT8: "int_val",
    types_pb2.DT_INT16: "int_val",
    types_pb2.DT_INT8: "int_val",
    types_pb2.DT_UINT16: "int_val",
    types_pb2.DT_QINT8: "int_val",
    types_pb2.DT_QUINT8: "int_val",
    types_pb2.DT_QINT16: "int_val",
    types_pb2.DT_QUINT16: "int_val",
    types_pb2.DT_QINT32: "int_val",
    types_pb2.DT_INT4: "int_val",
    types_pb2.DT_UINT4: "int_val",
    types_pb2.DT_INT2: "int_val",
    types_pb2.DT_UINT2: "int_val",
    types_pb2.DT_INT64: "int64_val",
    types_pb2.DT_UINT32: "uint32_val",
    types_pb2.DT_UINT64: "uint64_val",
    types_pb2.DT_BOOL: "bool_val",
    types_pb2.DT_STRING: "string_val",
    types_pb2.DT_COMPLEX64: "scomplex_val",
    types_pb2.DT_COMPLEX128: "dcomplex_val",
    types_pb2.DT_HALF: "half_val",
    types_pb2.DT_BFLOAT16: "half_val",
    types_pb2.DT_FLOAT8_E5M2: "float8_val",
    types_pb2.DT_FLOAT8_E4M3FN: "float8_val",
    types_pb2.DT_FLOAT8_E4M3FNUZ: "float8_val",
    types_pb2.DT_FLOAT8_E4M3B11FNUZ: "float8_val",
    types_pb2.DT_FLOAT8_E5M2FNUZ: "float8_val",
    types_pb2.DT_FLOAT4_E2M1FN: "float8_val",
    types_pb2.DT_RESOURCE: "resource_handle_val",
    types_pb2.DT_VARIANT: "variant_val",
}


# ====================================================================== writing


def make_tensor_proto(
    values: Any,
    dtype: Any = None,
    shape: Any = None,
    verify_shape: bool = False,
    allow_broadcast: bool = False,
) -> tensor_pb2.TensorProto:
    """A TensorProto holding ``values`` (python scalars/lists, numpy arrays), as TensorFlow encodes it.

    ``dtype`` forces the element type; ``shape`` reshapes (or, with fewer values,
    leaves the rest to the reader's "last value repeats" rule); ``verify_shape``
    requires ``values`` to have exactly ``shape``; ``allow_broadcast`` lets a single
    value fill ``shape``. Raises TypeError for values that do not fit ``dtype`` and
    ValueError for too many values or unsupported inputs.
    """
    if isinstance(values, tensor_pb2.TensorProto):
        return values
    dtype = dtypes.as_dtype(dtype).base_dtype if dtype is not None else None
    if dtype is not None and not dtype.is_numpy_compatible:
        raise TypeError(f"make_tensor_proto cannot build a {dtype.name} tensor from python or numpy values")

    target_shape: list[int] | None = None
    if shape is not None:
        parsed = tensor_shape.as_shape(shape)
        if not parsed.is_fully_defined():
            raise ValueError(f"make_tensor_proto needs a fully defined shape, got {parsed}")
        target_shape = [int(d) for d in parsed.as_list()]  # type: ignore[arg-type]

    nparray = _to_numpy(values, dtype, target_shape)
    if dtype is None:
        dtype = dtypes.as_dtype(nparray.dtype)
    np_dtype = np.dtype(dtype.as_numpy_dtype)
    if nparray.dtype != np_dtype:
        nparray = nparray.astype(np_dtype)

    if target_shape is None:
        target_shape = list(nparray.shape)
        is_same_size = True
    else:
        shape_size = int(np.prod(target_shape, dtype=np.int64))
        if verify_shape and list(nparray.shape) != target_shape:
            raise TypeError(
                f"Expected Tensor's shape: {_tuple_str(target_shape)}, but got {_tuple_str(nparray.shape)}."
            )
        if allow_broadcast:
            if nparray.shape not in ((1,), ()) and nparray.size != shape_size:
                raise TypeError(
                    f"Expected Tensor's shape: {_tuple_str(target_shape)}, but got {_tuple_str(nparray.shape)}."
                )
        elif nparray.size > shape_size:
            raise ValueError(f"Too many elements provided. Takes at most {shape_size}, but got {nparray.size}.")
        is_same_size = nparray.size == shape_size

    proto = tensor_pb2.TensorProto(dtype=dtype.as_datatype_enum)
    proto.tensor_shape.CopyFrom(tensor_shape.TensorShape(target_shape).as_proto())
    num_elements = int(np.prod(target_shape, dtype=np.int64))
    enum = dtype.as_datatype_enum
    if is_same_size and enum in _CONTENT_TYPES and num_elements > 1:
        if nparray.nbytes >= _MAX_CONTENT_BYTES:
            raise ValueError("Cannot create a tensor proto whose content is larger than 2GB.")
        proto.tensor_content = _little_endian(nparray).tobytes()
        return proto
    _write_typed_values(proto, nparray.reshape(-1), dtype)
    return proto


def as_proto_tensor_content(value: np.ndarray, dtype: dtypes.DType) -> tensor_pb2.TensorProto:
    """TF's ``Tensor::AsProtoTensorContent``: strings in ``string_val``, every other type's values little-endian in
    ``tensor_content`` (whatever their number; what SerializeTensor writes)."""
    proto = tensor_pb2.TensorProto(dtype=dtype.as_datatype_enum)
    proto.tensor_shape.SetInParent()
    for d in value.shape:
        proto.tensor_shape.dim.add(size=int(d))
    if dtype == dtypes.string:
        proto.string_val.extend(_as_bytes(x) for x in value.reshape(-1).tolist())
    elif value.size:
        proto.tensor_content = _little_endian(np.asarray(value, dtype=dtype.as_numpy_dtype)).tobytes()
    return proto


def _tuple_str(shape: Any) -> str:
    return str(tuple(int(d) for d in shape))


def _little_endian(array: np.ndarray) -> np.ndarray:
    if array.dtype.byteorder == ">" or (array.dtype.byteorder == "=" and np.little_endian is False):
        return array.astype(array.dtype.newbyteorder("<"))
    return np.ascontiguousarray(array)


def _write_typed_values(proto: tensor_pb2.TensorProto, flat: np.ndarray, dtype: dtypes.DType) -> None:
    enum = dtype.as_datatype_enum
    field = _VAL_FIELD[enum]
    if flat.size == 0:
        return
    if dtype.is_quantized:
        flat = flat.view(flat.dtype[0])
    if field == "half_val":
        proto.half_val.extend(int(x) for x in flat.view(np.uint16))
    elif field == "float8_val":
        proto.float8_val = flat.view(np.uint8).tobytes()
    elif field in ("scomplex_val", "dcomplex_val"):
        pairs = np.stack([flat.real, flat.imag], axis=-1).reshape(-1)
        getattr(proto, field).extend(float(x) for x in pairs)
    elif field == "string_val":
        proto.string_val.extend(_as_bytes(x) for x in flat)
    elif field == "bool_val":
        proto.bool_val.extend(bool(x) for x in flat)
    elif field in ("float_val", "double_val"):
        getattr(proto, field).extend(float(x) for x in flat)
    else:
        getattr(proto, field).extend(int(x) for x in flat)


def _as_bytes(value: Any) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    raise TypeError(f"Expected string, but got {value!r} of type '{type(value).__name__}'.")


# ---------------------------------------------------------------------- python values -> numpy


def _to_numpy(values: Any, dtype: dtypes.DType | None, target_shape: list[int] | None) -> np.ndarray:
    if isinstance(values, (np.ndarray, np.generic)):
        array = np.asarray(values)
        if dtype is not None and dtype.is_quantized:
            base = np.dtype(dtype.as_numpy_dtype)
            return array.astype(base[0]).view(base) if array.dtype != base else array
        if dtype is not None and dtype == dtypes.string and array.dtype.kind != "O":
            return _string_array(array.tolist())
        if array.dtype.kind in "US":
            return _string_array(array.tolist())
        if array.dtype.kind == "O":
            return _string_array(array.tolist())
        return array
    if values is None:
        raise ValueError("None values not supported.")
    if target_shape is not None and int(np.prod(target_shape, dtype=np.int64)) == 0:
        np_dt = np.dtype(dtype.as_numpy_dtype) if dtype is not None else np.dtype(np.float32)
        return np.empty(target_shape, dtype=np_dt)

    leaves, dims = _flatten(values)
    kinds = {_leaf_kind(leaf, values) for leaf in leaves}
    if dtype is not None:
        for leaf in leaves:
            _check_compatible(leaf, dtype)
    if "str" in kinds:
        if len(kinds) > 1:
            raise TypeError(_failed_to_convert(values))
        return _string_array(leaves).reshape(dims)
    if dtype is not None:
        np_dt = np.dtype(dtype.as_numpy_dtype)
        if dtype.is_quantized:
            return np.array(leaves, dtype=np_dt[0]).reshape(dims).view(np_dt)
        if dtype.is_integer and kinds <= {"bool", "int"}:
            # Out-of-range python ints wrap around, as TensorFlow's conversion does.
            return np.array(_wrap_ints(leaves, dtype)).astype(np_dt).reshape(dims)
        return np.array(leaves, dtype=np_dt).reshape(dims)
    if not leaves:
        return np.zeros(dims, dtype=np.float32)
    try:
        array = np.array(leaves)
    except (OverflowError, ValueError):
        raise ValueError(f"Can't convert Python value {values!r} to a tensor: an integer is out of range") from None
    if array.dtype.kind == "O":
        if kinds <= {"int", "bool"}:
            raise ValueError(f"Can't convert Python value {values!r} to a tensor: an integer is out of range")
        raise TypeError(_failed_to_convert(values))
    array = array.reshape(dims)
    if array.dtype == np.float64:
        array = array.astype(np.float32)
    elif array.dtype == np.int64:
        narrowed = array.astype(np.int32)
        if np.array_equal(narrowed, array):
            array = narrowed
    return array


def _wrap_ints(leaves: list[Any], dtype: dtypes.DType) -> np.ndarray:
    """Python ints reduced modulo 2**bits of ``dtype`` (two's complement for signed types)."""
    bits = {dtypes.int4: 4, dtypes.uint4: 4, dtypes.int2: 2, dtypes.uint2: 2}.get(dtype.base_dtype, 8 * dtype.size)
    mask = (1 << bits) - 1
    wrapped = [int(x) & mask for x in leaves]
    if dtype.is_unsigned:
        return np.array(wrapped, dtype=np.uint64)
    sign = 1 << (bits - 1)
    return np.array([v - (1 << bits) if v >= sign else v for v in wrapped], dtype=np.int64)


def _failed_to_convert(values: Any) -> str:
    return (
        f"Failed to convert elements of {values!r} to Tensor. Consider casting elements to a supported type "
        "(numbers, bool, str/bytes, or numpy arrays of those)."
    )


def _flatten(values: Any) -> tuple[list[Any], list[int]]:
    """Leaves in row-major order and the dense dims of a nested list; ValueError for ragged nesting."""
    if not isinstance(values, (list, tuple)):
        if isinstance(values, np.ndarray):
            return list(values.reshape(-1)), list(values.shape)
        return [values], []
    if not values:
        return [], [0]
    parts = [_flatten(v) for v in values]
    inner = parts[0][1]
    for _, dims in parts[1:]:
        if dims != inner:
            raise ValueError(
                f"Can't convert non-rectangular Python sequence to Tensor: {values!r} has rows of different shapes."
            )
    return [leaf for leaves, _ in parts for leaf in leaves], [len(values), *inner]


def _leaf_kind(leaf: Any, whole: Any) -> str:
    if isinstance(leaf, (bool, np.bool_)):
        return "bool"
    if isinstance(leaf, (int, np.integer)):
        return "int"
    if isinstance(leaf, (float, np.floating)):
        return "float"
    if isinstance(leaf, (complex, np.complexfloating)):
        return "complex"
    if isinstance(leaf, (str, bytes, np.str_, np.bytes_)):
        return "str"
    if isinstance(leaf, np.generic) and leaf.dtype.kind == "V":  # ml_dtypes scalars
        return "float"
    raise TypeError(_failed_to_convert(whole))


def _check_compatible(leaf: Any, dtype: dtypes.DType) -> None:
    """TensorFlow's per-value check against a requested dtype (ints for int types, bools for bool, ...)."""
    if dtype == dtypes.string:
        ok = isinstance(leaf, (str, bytes, np.str_, np.bytes_))
    elif dtype.is_bool:
        ok = isinstance(leaf, (bool, np.bool_))
    elif dtype.is_integer or dtype.is_quantized:
        ok = isinstance(leaf, (numbers.Integral, np.integer, np.bool_))
    elif dtype.is_floating:
        ok = isinstance(leaf, (numbers.Real, np.number, np.bool_)) or (
            isinstance(leaf, np.generic) and leaf.dtype.kind == "V"
        )
        ok = ok and not isinstance(leaf, (complex, np.complexfloating))
    elif dtype.is_complex:
        ok = isinstance(leaf, (numbers.Number, np.number, np.bool_))
    else:
        ok = True
    if not ok:
        raise TypeError(f"Expected {dtype.name}, but got {leaf} of type '{type(leaf).__name__}'.")


def _string_array(values: Any) -> np.ndarray:
    leaves, dims = _flatten(values)
    out = np.empty(len(leaves), dtype=object)
    for k, leaf in enumerate(leaves):
        if isinstance(leaf, (str, np.str_)):
            out[k] = str(leaf).encode("utf-8")
        elif isinstance(leaf, (bytes, np.bytes_)):
            out[k] = bytes(leaf)
        else:
            raise TypeError(f"Expected string, but got {leaf!r} of type '{type(leaf).__name__}'.")
    return out.reshape(dims)


# ====================================================================== reading


def make_ndarray(tensor: tensor_pb2.TensorProto) -> np.ndarray:
    """The numpy array a TensorProto holds (from tensor_content or the typed ``*_val`` field).

    A single typed value fills the whole shape, fewer values than elements repeat
    the last one, no values give zeros. Strings come back as an object array of
    bytes, resource and variant tensors as object arrays of their protos.
    Raises ValueError for an unknown shape or a size mismatch, TypeError for DT_INVALID.
    """
    if not isinstance(tensor, tensor_pb2.TensorProto):
        descriptor = getattr(tensor, "DESCRIPTOR", None)
        if descriptor is None or descriptor.name != "TensorProto":
            raise TypeError(f"make_ndarray expects a TensorProto, got {type(tensor).__name__}")
        tensor = tensor_pb2.TensorProto.FromString(tensor.SerializeToString())
    if tensor.dtype == types_pb2.DT_INVALID:
        raise TypeError("TensorProto has dtype DT_INVALID; set its dtype")
    dtype = dtypes.as_dtype(tensor.dtype).base_dtype
    shape = tensor_shape.TensorShape(tensor.tensor_shape)
    if not shape.is_fully_defined():
        raise ValueError(f"TensorProto has a shape that is not fully defined: {shape}")
    dims = [int(d) for d in shape.as_list()]  # type: ignore[arg-type]
    num = int(np.prod(dims, dtype=np.int64))
    enum = dtype.as_datatype_enum

    if tensor.tensor_content:
        if not dtype.is_numpy_compatible or dtype == dtypes.string:
            raise ValueError(f"TensorProto of {dtype.name} cannot hold tensor_content")
        np_dtype = np.dtype(dtype.as_numpy_dtype)
        if len(tensor.tensor_content) != num * np_dtype.itemsize:
            raise ValueError(
                f"TensorProto tensor_content has {len(tensor.tensor_content)} bytes, but shape {dims} of "
                f"{dtype.name} needs {num * np_dtype.itemsize}"
            )
        return np.frombuffer(tensor.tensor_content, dtype=_little_endian_dtype(np_dtype)).astype(np_dtype).reshape(dims)

    field = _VAL_FIELD[enum]
    if field in ("resource_handle_val", "variant_val"):
        items = list(getattr(tensor, field))
        out = np.empty(len(items), dtype=object)
        out[:] = items
        return _fill(out, num, dims, field)
    if dtype.is_quantized:
        np_dtype = np.dtype(dtype.as_numpy_dtype)
        base = np.array(list(tensor.int_val), dtype=np_dtype[0])
        return np.ascontiguousarray(_fill(base, num, dims, field)).view(np_dtype)
    np_dtype = np.dtype(dtype.as_numpy_dtype)
    if field == "half_val":
        values = np.array([x & 0xFFFF for x in tensor.half_val], dtype=np.uint16).view(np_dtype)
    elif field == "float8_val":
        values = np.frombuffer(tensor.float8_val, dtype=np.uint8).view(np_dtype)
    elif field in ("scomplex_val", "dcomplex_val"):
        raw = np.array(list(getattr(tensor, field)), dtype=np.float64)
        if raw.size % 2:
            raise ValueError(
                f"TensorProto {field} has an odd number of entries ({raw.size}); expected (real, imag) pairs"
            )
        values = (raw[0::2] + 1j * raw[1::2]).astype(np_dtype)
    elif field == "string_val":
        values = np.empty(len(tensor.string_val), dtype=object)
        values[:] = list(tensor.string_val)
    elif field in ("int_val", "int64_val", "uint32_val", "uint64_val") and np_dtype.kind == "V":
        values = np.array(list(getattr(tensor, field)), dtype=np.int64).astype(np_dtype)  # int4 / int2
    else:
        values = np.array(list(getattr(tensor, field)), dtype=np_dtype)
    return _fill(values, num, dims, field)


def _little_endian_dtype(np_dtype: np.dtype) -> np.dtype:
    return np_dtype.newbyteorder("<") if np_dtype.kind in "iufc" else np_dtype


def _fill(values: np.ndarray, num: int, dims: list[int], field: str) -> np.ndarray:
    """Apply TensorFlow's rules: no values -> zeros, fewer values -> the last one repeats."""
    if values.size == num:
        return values.reshape(dims)
    if values.size > num:
        raise ValueError(f"TensorProto has {values.size} values in {field} but its shape {dims} holds only {num}")
    if values.size == 0:
        if values.dtype == object:
            filler = b"" if field == "string_val" else None
            out = np.empty(num, dtype=object)
            out[:] = [filler] * num
            return out.reshape(dims)
        return np.zeros(dims, dtype=values.dtype)
    pad = np.repeat(values[-1:], num - values.size)
    return np.concatenate([values, pad]).reshape(dims)
