"""Python and numpy values to host arrays with TensorFlow's eager conversion rules (its ``py_seq_tensor``).

Eager execution converts the values a program passes to ops and to ``constant``
here. Without a requested dtype: python ``float`` -> float32, ``int`` -> int32
(int64 when it does not fit), ``bool`` -> bool, ``str``/``bytes`` -> string,
``complex`` -> complex128, numpy values keep their dtype (numpy integers inside
python lists count as python ints). With a dtype: every element must be of a kind
that fits it (TypeError ``Cannot convert 2.5 to EagerTensor of dtype int32``),
python ints wrap to narrower integer types, numpy arrays are cast. Graph mode
uses ``framework.tensor_proto`` instead, whose messages are TensorFlow's graph ones.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.framework import dtypes, tensor_shape
from modtensor.framework.tensor import Tensor

__all__ = ["cannot_convert", "convert_value", "numpy_dtype"]

_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_UINT64_MAX = 2**64 - 1

_NP_FLOAT32 = np.dtype(np.float32)
_NP_INT32 = np.dtype(np.int32)
_NP_INT64 = np.dtype(np.int64)
_NP_BOOL = np.dtype(np.bool_)
_NP_OBJECT = np.dtype(object)
_NP_COMPLEX128 = np.dtype(np.complex128)

_NUMPY_DTYPES: dict[int, np.dtype] = {}


def numpy_dtype(dtype: dtypes.DType) -> np.dtype:
    """The numpy dtype holding values of ``dtype`` on the host (object for string)."""
    enum = dtype.as_datatype_enum
    found = _NUMPY_DTYPES.get(enum)
    if found is None:
        found = np.dtype(dtype.base_dtype.as_numpy_dtype)
        _NUMPY_DTYPES[enum] = found
    return found


def cannot_convert(value: Any, dtype: dtypes.DType) -> TypeError:
    """TensorFlow's eager conversion TypeError (dtype in its C++ spelling: ``float``, ``int32``)."""
    return TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype.cpp_name}")


def _unsupported(value: Any) -> ValueError:
    return ValueError(f"Attempt to convert a value ({value!r}) with an unsupported type ({type(value)}) to a Tensor.")


def _out_of_range() -> ValueError:
    return ValueError("Can't convert Python sequence with out-of-range integer to Tensor.")


def convert_value(value: Any, dtype: dtypes.DType | None = None) -> np.ndarray:
    """``value`` as a C-contiguous host array of ``dtype`` (or of the dtype TF infers), TF eager's rules.

    ``value`` may be a python scalar, a nested list/tuple (of scalars, numpy values or
    host tensors), a numpy array or scalar, or a tensor with a host value. The result
    never shares memory with a writeable array of the caller (it is copied then).
    Raises TypeError when an element does not fit ``dtype`` and ValueError for
    values TensorFlow cannot convert at all (None, ragged lists, huge ints).
    """
    kind = type(value)
    if kind is float:
        if dtype is None or dtype is dtypes.float32:
            return np.array(value, _NP_FLOAT32)
    elif kind is int:
        if dtype is None:
            if _INT32_MIN <= value <= _INT32_MAX:
                return np.array(value, _NP_INT32)
            if _INT64_MIN <= value <= _INT64_MAX:
                return np.array(value, _NP_INT64)
            raise _out_of_range()
        if dtype is dtypes.int32 and _INT32_MIN <= value <= _INT32_MAX:
            return np.array(value, _NP_INT32)
    elif kind is bool and (dtype is None or dtype is dtypes.bool):
        return np.array(value, _NP_BOOL)
    elif (kind is list or kind is tuple) and value and (dtype is None or dtype is dtypes.int32):
        # A flat list of python ints that fit int32 (shapes, axes, perms): the common case, kept cheap.
        for v in value:
            if type(v) is not int:
                break
        else:
            if min(value) >= _INT32_MIN and max(value) <= _INT32_MAX:
                return np.array(value, _NP_INT32)
    if isinstance(value, (np.ndarray, np.generic)):
        array = _convert_numpy(np.asarray(value), value, dtype)
        if array is value and value.flags.writeable:
            return array.copy()  # the caller's array may change later; a tensor's value must not
        return array
    if isinstance(value, Tensor):
        return _convert_numpy(np.asarray(value), value, dtype)
    if isinstance(value, tensor_shape.TensorShape):
        dims, shape_dtype = tensor_shape.shape_conversion_dims(value, dtype)
        return np.array(dims, dtype=numpy_dtype(shape_dtype)).reshape(len(dims))
    return _convert_python(value, dtype)


# ----------------------------------------------------------------------------- numpy values


def _convert_numpy(array: np.ndarray, original: Any, dtype: dtypes.DType | None) -> np.ndarray:
    if array.dtype.kind in "USO":
        if dtype is not None and dtype != dtypes.string:
            raise cannot_convert(original, dtype)
        return _string_array(array, original)
    if dtype is None:
        return _c_order(array)
    if dtype == dtypes.string or not dtype.is_numpy_compatible:
        raise cannot_convert(original, dtype)
    target = numpy_dtype(dtype)
    if array.dtype == target:
        return _c_order(array)
    if dtype.is_quantized:
        return _c_order(array.astype(target[0]).view(target))
    with np.errstate(all="ignore"):
        return _c_order(array.astype(target))


def _c_order(array: np.ndarray) -> np.ndarray:
    """``array`` in C order (0-d arrays stay 0-d, unlike ``np.ascontiguousarray``)."""
    return array if array.flags.c_contiguous else array.copy(order="C")


def _string_array(array: np.ndarray, original: Any) -> np.ndarray:
    out = np.empty(array.shape, dtype=object)
    flat_out = out.reshape(-1)
    for i, item in enumerate(array.reshape(-1).tolist()):
        if isinstance(item, str):
            flat_out[i] = item.encode("utf-8")
        elif isinstance(item, bytes):
            flat_out[i] = item
        else:
            raise ValueError(
                f"Failed to convert a NumPy array to a Tensor (Unsupported object type {type(item).__name__})."
            )
    return out


# ----------------------------------------------------------------------------- python values

_BOOL, _INT, _FLOAT, _COMPLEX, _STR = 1, 2, 3, 4, 5


def _flatten(value: Any, leaves: list[Any]) -> list[int]:
    """Append the leaves of ``value`` in row-major order to ``leaves``; return its dims."""
    if isinstance(value, (list, tuple, range)):
        if not value:
            return [0]
        inner: list[int] | None = None
        for item in value:
            dims = _flatten(item, leaves)
            if inner is None:
                inner = dims
            elif dims != inner:
                raise ValueError("Can't convert non-rectangular Python sequence to Tensor.")
        return [len(value), *inner]  # type: ignore[misc]
    if isinstance(value, Tensor):
        value = np.asarray(value)
    if isinstance(value, np.ndarray) and value.ndim:
        if value.dtype.kind in "USO":
            leaves.extend(value.reshape(-1).tolist())
        else:
            leaves.extend(value.reshape(-1))
        return list(value.shape)
    leaves.append(value[()] if isinstance(value, np.ndarray) else value)
    return []


def _leaf_kind(leaf: Any, whole: Any) -> int:
    if isinstance(leaf, (bool, np.bool_)):
        return _BOOL
    if isinstance(leaf, (int, np.integer)):
        return _INT
    if isinstance(leaf, (float, np.floating)):
        return _FLOAT
    if isinstance(leaf, (complex, np.complexfloating)):
        return _COMPLEX
    if isinstance(leaf, (str, bytes, np.str_, np.bytes_)):
        return _STR
    if isinstance(leaf, np.generic) and leaf.dtype.kind == "V":  # ml_dtypes scalars (bfloat16, float8)
        return _FLOAT
    raise _unsupported(whole)


def _inferred_dtype(leaves: list[Any], kinds: set[int]) -> np.dtype:
    """TensorFlow's dtype for a python sequence without a requested dtype."""
    if _STR in kinds:
        if len(kinds) > 1:
            raise ValueError("Can't convert Python sequence with mixed types to Tensor.")
        return _NP_OBJECT
    if _COMPLEX in kinds:
        return _NP_COMPLEX128
    if _FLOAT in kinds:
        for leaf in leaves:
            if isinstance(leaf, np.generic) and not isinstance(leaf, (np.integer, np.bool_)):
                return leaf.dtype
        return _NP_FLOAT32
    if _INT in kinds:
        ints = [int(x) for x in leaves]
        low, high = min(ints), max(ints)
        if low >= _INT32_MIN and high <= _INT32_MAX:
            return _NP_INT32
        if low >= _INT64_MIN and high <= _INT64_MAX:
            return _NP_INT64
        raise _out_of_range()
    return _NP_BOOL


def _fits(kind: int, dtype: dtypes.DType) -> bool:
    if dtype == dtypes.string:
        return kind == _STR
    if dtype.is_bool:
        return kind == _BOOL
    if dtype.is_integer or dtype.is_quantized:
        return kind in (_BOOL, _INT)
    if dtype.is_floating:
        return kind in (_BOOL, _INT, _FLOAT)
    if dtype.is_complex:
        return kind in (_BOOL, _INT, _FLOAT, _COMPLEX)
    return False


def _convert_python(value: Any, dtype: dtypes.DType | None) -> np.ndarray:
    if not isinstance(value, (list, tuple, range, bool, int, float, complex, str, bytes)):
        raise _unsupported(value)
    leaves: list[Any] = []
    dims = _flatten(value, leaves)
    kinds = {_leaf_kind(leaf, value) for leaf in leaves}
    if dtype is None:
        target = _inferred_dtype(leaves, kinds) if leaves else _NP_FLOAT32
        is_int = target.kind in "iu"
    else:
        if not dtype.is_numpy_compatible or any(not _fits(k, dtype) for k in kinds):
            raise cannot_convert(value, dtype)
        target = numpy_dtype(dtype)
        is_int = dtype.is_integer or dtype.is_quantized
    if target is _NP_OBJECT or target == _NP_OBJECT:
        out = np.empty(len(leaves), dtype=object)
        for i, leaf in enumerate(leaves):
            out[i] = leaf.encode("utf-8") if isinstance(leaf, str) else bytes(leaf)
        return out.reshape(dims)
    if is_int:
        return _int_array(leaves, dims, target, dtype)
    with np.errstate(all="ignore"):
        return np.array(leaves, dtype=target).reshape(dims)


def _int_array(leaves: list[Any], dims: list[int], target: np.dtype, dtype: dtypes.DType | None) -> np.ndarray:
    """Python ints as ``target``: they must fit int64 (uint64 for a uint64 target), then wrap like a C cast."""
    ints = [int(x) for x in leaves]
    unsigned64 = dtype is not None and dtype == dtypes.uint64
    if ints:
        low, high = min(ints), max(ints)
        if unsigned64:
            if low < _INT64_MIN or high > _UINT64_MAX:
                raise _out_of_range()
            wide = np.array([x & _UINT64_MAX for x in ints], dtype=np.uint64)
        else:
            if low < _INT64_MIN or high > _INT64_MAX:
                raise _out_of_range()
            wide = np.array(ints, dtype=np.int64)
    else:
        wide = np.zeros(0, dtype=np.int64)
    if dtype is not None and dtype.is_quantized:
        return wide.astype(target[0]).view(target).reshape(dims)
    return wide.astype(target).reshape(dims)
