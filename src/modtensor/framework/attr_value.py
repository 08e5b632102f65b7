"""Python values <-> ``AttrValue`` protos, and attr printing as TensorFlow prints it.

``from_attr_value`` gives what TensorFlow's ``Operation.get_attr`` returns,
``to_attr_value`` builds an ``AttrValue`` for an OpDef attr type (``"int"``,
``"list(type)"``, ...), and ``format_attr_value`` is TensorFlow's
SummarizeAttrValue, the text inside node summaries of error messages such as
``{{node conv}} = Conv2D[T=DT_FLOAT, padding="SAME", strides=[1, 1, 1, 1]](x, w)``.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from modtensor.framework import dtypes, tensor_shape
from modtensor.framework.protos import attr_value_pb2, tensor_pb2, tensor_shape_pb2, types_pb2

AttrValue = attr_value_pb2.AttrValue
NameAttrList = attr_value_pb2.NameAttrList

# TensorFlow's summary limits: strings whose escaped form has >= 80 chars and
# lists of >= 30 items are shortened; tensors print their first 3 values.
_MAX_STRING_SUMMARY = 80
_MAX_LIST_SUMMARY = 30
_TENSOR_SUMMARY_ENTRIES = 3
_MAX_TENSOR_SUMMARY_BYTES = 32 * 1024 * 1024

_LIST_FIELDS = ("s", "i", "f", "b", "type", "shape", "tensor", "func")
_SCALAR_TYPES = ("string", "int", "float", "bool", "type", "shape", "tensor", "func")


# ====================================================================== AttrValue -> python


def from_attr_value(value: attr_value_pb2.AttrValue) -> Any:
    """The python value of an attr as ``Operation.get_attr`` returns it.

    s -> bytes, i -> int, f -> float, b -> bool, type -> DType, shape -> TensorShapeProto,
    tensor -> TensorProto, func -> NameAttrList, list -> list of those (empty list -> []),
    placeholder -> its name; an AttrValue with nothing set -> [].
    """
    value = _coerce_message(value, AttrValue, "AttrValue")
    which = value.WhichOneof("value")
    if which is None:
        return []
    if which == "list":
        for field in _LIST_FIELDS:
            items = getattr(value.list, field)
            if len(items):
                if field == "type":
                    return [dtypes.as_dtype(t) for t in items]
                return list(items)
        return []
    if which == "type":
        return dtypes.as_dtype(value.type)
    return getattr(value, which)


# ====================================================================== python -> AttrValue


def to_attr_value(value: Any, attr_type: str | None = None, *, name: str | None = None) -> attr_value_pb2.AttrValue:
    """Build the AttrValue of ``value`` for an OpDef attr type such as ``"int"`` or ``"list(shape)"``.

    An AttrValue passes through unchanged. ``attr_type=None`` infers the type from
    the value (bool, int, float, str/bytes, DType, TensorShape, TensorProto, ndarray, lists).
    ``name`` is the attr's name, used in error messages. Raises TypeError when the
    value does not fit the type, ValueError for an unknown attr type.
    """
    if isinstance(value, AttrValue):
        return value
    if _is_message_named(value, "AttrValue"):
        return _coerce_message(value, AttrValue, "AttrValue")
    what = f"attr '{name}'" if name else "attr"
    if attr_type is None:
        attr_type = _infer_attr_type(value, what)
    if attr_type.startswith("list(") and attr_type.endswith(")"):
        item_type = attr_type[5:-1]
        if item_type not in _SCALAR_TYPES:
            raise ValueError(f"Unrecognized attr type '{attr_type}' for {what}")
        is_sequence = isinstance(value, (list, tuple)) or (isinstance(value, np.ndarray) and value.ndim == 1)
        if not is_sequence:
            raise TypeError(f"Expected list for {what}, obtained {type(value).__name__} instead: {value!r}")
        result = AttrValue()
        result.list.SetInParent()
        target = getattr(result.list, _FIELD_OF_TYPE[item_type])
        converted = [_CONVERTERS[item_type](v, what) for v in value]
        if item_type in ("shape", "tensor", "func"):
            for item in converted:
                target.add().CopyFrom(item)
        else:
            target.extend(converted)
        return result
    if attr_type not in _SCALAR_TYPES:
        raise ValueError(f"Unrecognized attr type '{attr_type}' for {what}")
    converted = _CONVERTERS[attr_type](value, what)
    field = _FIELD_OF_TYPE[attr_type]
    result = AttrValue()
    if attr_type in ("shape", "tensor", "func"):
        getattr(result, field).CopyFrom(converted)
    else:
        setattr(result, field, converted)
    return result


def _infer_attr_type(value: Any, what: str) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, (int, np.integer)):
        return "int"
    if isinstance(value, (float, np.floating)):
        return "float"
    if isinstance(value, (str, bytes)):
        return "string"
    if isinstance(value, dtypes.DType):
        return "type"
    if isinstance(value, (tensor_shape.TensorShape, tensor_shape_pb2.TensorShapeProto)):
        return "shape"
    if isinstance(value, (tensor_pb2.TensorProto, np.ndarray)):
        return "tensor"
    if isinstance(value, NameAttrList):
        return "func"
    if isinstance(value, (list, tuple)):
        if not value:
            return "list(int)"  # an empty list is the same AttrValue whatever the item type
        return f"list({_infer_attr_type(value[0], what)})"
    raise TypeError(f"Cannot infer the attr type of {what} from {value!r} of type {type(value).__name__}")


def _to_string(value: Any, what: str) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, np.bytes_):
        return bytes(value)
    raise TypeError(f"Expected string for {what}, got {value!r} of type {type(value).__name__}")


def _to_int(value: Any, what: str) -> int:
    if isinstance(value, (str, bytes, bool, np.bool_)):
        raise TypeError(f"Expected int for {what}, got {value!r} of type {type(value).__name__}")
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return int(value)
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"Expected int for {what}, got {value!r} of type {type(value).__name__}") from None


def _to_float(value: Any, what: str) -> float:
    if isinstance(value, (str, bytes, bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise TypeError(f"Expected float for {what}, got {value!r} of type {type(value).__name__}")
    return float(value)


def _to_bool(value: Any, what: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"Expected bool for {what}, got {value!r} of type {type(value).__name__}")
    return bool(value)


def _to_type(value: Any, what: str) -> int:
    try:
        return dtypes.as_dtype(value).base_dtype.as_datatype_enum
    except TypeError:
        raise TypeError(f"Expected DataType for {what}, got {value!r}") from None


def _to_shape(value: Any, what: str) -> tensor_shape_pb2.TensorShapeProto:
    if isinstance(value, tensor_shape_pb2.TensorShapeProto):
        return value
    if _is_message_named(value, "TensorShapeProto"):
        return _coerce_message(value, tensor_shape_pb2.TensorShapeProto, "TensorShapeProto")
    try:
        return tensor_shape.as_shape(value).as_proto()
    except (TypeError, ValueError) as e:
        raise TypeError(f"Expected shape for {what}, got {value!r}: {e}") from None


def _to_tensor(value: Any, what: str) -> tensor_pb2.TensorProto:
    if isinstance(value, tensor_pb2.TensorProto):
        return value
    if _is_message_named(value, "TensorProto"):
        return _coerce_message(value, tensor_pb2.TensorProto, "TensorProto")
    from modtensor.framework.tensor_proto import make_tensor_proto

    try:
        return make_tensor_proto(value)
    except (TypeError, ValueError) as e:
        raise TypeError(f"Expected tensor for {what}, got {value!r}: {e}") from None


def _to_func(value: Any, what: str) -> attr_value_pb2.NameAttrList:
    if isinstance(value, NameAttrList):
        return value
    if _is_message_named(value, "NameAttrList"):
        return _coerce_message(value, NameAttrList, "NameAttrList")
    if isinstance(value, (str, bytes)):
        return NameAttrList(name=value.decode() if isinstance(value, bytes) else value)
    as_list = getattr(value, "_as_name_attr_list", None)
    if as_list is not None:
        return _to_func(as_list, what)
    fn_name = getattr(value, "name", None)
    if isinstance(fn_name, str):
        return NameAttrList(name=fn_name)
    raise TypeError(f"Expected a function (name or NameAttrList) for {what}, got {value!r}")


_CONVERTERS: dict[str, Callable[[Any, str], Any]] = {
    "string": _to_string,
    "int": _to_int,
    "float": _to_float,
    "bool": _to_bool,
    "type": _to_type,
    "shape": _to_shape,
    "tensor": _to_tensor,
    "func": _to_func,
}
_FIELD_OF_TYPE = {
    "string": "s",
    "int": "i",
    "float": "f",
    "bool": "b",
    "type": "type",
    "shape": "shape",
    "tensor": "tensor",
    "func": "func",
}


def _is_message_named(value: Any, message_name: str) -> bool:
    descriptor = getattr(value, "DESCRIPTOR", None)
    return descriptor is not None and getattr(descriptor, "name", None) == message_name


def _coerce_message(value: Any, cls: Any, message_name: str) -> Any:
    """``value`` as modtensor's ``cls``; a same-named message of another package (TF's) is re-parsed."""
    if isinstance(value, cls):
        return value
    if _is_message_named(value, message_name):
        return cls.FromString(value.SerializeToString())
    raise TypeError(f"Expected an {message_name} proto, got {type(value).__name__}")


# ====================================================================== printing


def format_attr_value(value: attr_value_pb2.AttrValue) -> str:
    """TensorFlow's SummarizeAttrValue: ``DT_FLOAT``, ``true``, ``"SAME"``, ``[1, 2, 2, 1]``, ``[?,3]``."""
    value = _coerce_message(value, AttrValue, "AttrValue")
    which = value.WhichOneof("value")
    if which == "s":
        return _summarize_string(value.s)
    if which == "i":
        return str(value.i)
    if which == "f":
        return _format_float32(value.f)
    if which == "b":
        return "true" if value.b else "false"
    if which == "type":
        return _enum_name(value.type)
    if which == "shape":
        return format_shape_proto(value.shape)
    if which == "tensor":
        return summarize_tensor(value.tensor)
    if which == "func":
        return _summarize_func(value.func)
    if which == "placeholder":
        return "$" + value.placeholder
    if which == "list":
        return _summarize_list(value)
    return "<Unknown AttrValue type>"


def _summarize_list(value: attr_value_pb2.AttrValue) -> str:
    lst = value.list
    items: list[str] = []
    for field, fmt in (
        ("s", _summarize_string),
        ("i", str),
        ("f", _format_float32),
        ("b", lambda b: "true" if b else "false"),
        ("type", _enum_name),
        ("shape", format_shape_proto),
        ("tensor", summarize_tensor),
        ("func", _summarize_func),
    ):
        entries = getattr(lst, field)
        if len(entries):
            items = [fmt(e) for e in entries]
            break
    if len(items) >= _MAX_LIST_SUMMARY:
        head, tail = items[:5], items[-5:]
        return "[" + ", ".join([*head, "...", *tail]) + "]{attr_hash=" + str(attr_value_hash(value)) + "}"
    return "[" + ", ".join(items) + "]"


def _summarize_func(func: attr_value_pb2.NameAttrList) -> str:
    parts = [f"{key}={format_attr_value(func.attr[key])}" for key in sorted(func.attr)]
    return f"{func.name}[{', '.join(parts)}]"


def _enum_name(enum: int) -> str:
    try:
        return types_pb2.DataType.Name(enum)
    except ValueError:
        return f"<Unknown DataType {enum}>"


def format_shape_proto(shape: tensor_shape_pb2.TensorShapeProto) -> str:
    """TensorFlow's shape DebugString: ``[2,?]``, ``[]``, ``<unknown>`` (dim names are not printed)."""
    if shape.unknown_rank:
        return "<unknown>"
    return "[" + ",".join("?" if d.size < 0 else str(d.size) for d in shape.dim) + "]"


def _c_escape(data: bytes, keep_utf8: bool) -> str:
    """C-style escaping as absl's CEscape (or Utf8SafeCEscape, which keeps valid UTF-8 sequences)."""
    out: list[str] = []
    i, n = 0, len(data)
    while i < n:
        c = data[i]
        if c >= 0x80 and keep_utf8:
            width = 2 if 0xC0 <= c < 0xE0 else 3 if 0xE0 <= c < 0xF0 else 4 if 0xF0 <= c < 0xF8 else 0
            chunk = data[i : i + width]
            if width and len(chunk) == width:
                try:
                    out.append(chunk.decode("utf-8"))
                    i += width
                    continue
                except UnicodeDecodeError:
                    pass
        if c == 0x0A:
            out.append("\\n")
        elif c == 0x0D:
            out.append("\\r")
        elif c == 0x09:
            out.append("\\t")
        elif c == 0x22:
            out.append('\\"')
        elif c == 0x27:
            out.append("\\'")
        elif c == 0x5C:
            out.append("\\\\")
        elif c < 0x20 or c >= 0x7F:
            out.append(f"\\{c:03o}")
        else:
            out.append(chr(c))
        i += 1
    return "".join(out)


def _summarize_string(data: bytes) -> str:
    escaped = _c_escape(data, keep_utf8=False)
    if len(escaped) >= _MAX_STRING_SUMMARY:
        return f'"{escaped[:10]}...{escaped[-10:]}"'
    return f'"{escaped}"'


def _format_float32(x: float) -> str:
    """Shortest of %.6g / %.9g that reads back as the same float32, as TensorFlow's StrCat(float)."""
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    short = f"{x:.6g}"
    return short if np.float32(short) == np.float32(x) else f"{x:.9g}"


def _format_float64(x: float) -> str:
    """Shortest of %.15g / %.17g that reads back as the same double, as TensorFlow's StrCat(double)."""
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    short = f"{x:.15g}"
    return short if float(short) == x else f"{x:.17g}"


def summarize_tensor(tensor: tensor_pb2.TensorProto, max_entries: int = _TENSOR_SUMMARY_ENTRIES) -> str:
    """TensorFlow's Tensor DebugString of a TensorProto: ``Tensor<type: float shape: [2,3] values: [0 1 2]...>``."""
    from google.protobuf import text_format

    from modtensor.framework.tensor_proto import make_ndarray

    tensor = _coerce_message(tensor, tensor_pb2.TensorProto, "TensorProto")
    one_line = text_format.MessageToString(tensor, as_one_line=True)
    try:
        dtype = dtypes.as_dtype(tensor.dtype)
        shape = tensor_shape.TensorShape(tensor.tensor_shape)
        num = shape.num_elements()
        if num is not None and dtype.size and num * dtype.size > _MAX_TENSOR_SUMMARY_BYTES:
            return f"<TensorProto: {one_line}>"
        array = make_ndarray(tensor)
    except Exception:  # noqa: BLE001 - any malformed proto is reported, never raised, in a summary
        return f"<Invalid TensorProto: {one_line}>"
    values = _summarize_values(array, dtype, max_entries)
    return f"Tensor<type: {dtype.cpp_name} shape: {format_shape_proto(tensor.tensor_shape)} values: {values}>"


def _element_formatter(dtype: dtypes.DType) -> Callable[[Any], str]:
    if dtype.is_complex or not dtype.is_numpy_compatible:
        return lambda _: "?"
    if dtype.base_dtype == dtypes.float64:
        return lambda v: _format_float64(float(v))
    if dtype.is_floating:
        return lambda v: _format_float32(float(v))
    if dtype.is_bool:
        return lambda v: "1" if v else "0"
    if dtype.base_dtype == dtypes.string:
        return lambda v: _c_escape(v if isinstance(v, bytes) else str(v).encode("utf-8"), keep_utf8=True)
    if dtype.is_quantized:
        return lambda v: str(int(v[0]))
    return lambda v: str(int(v))


def _summarize_values(array: np.ndarray, dtype: dtypes.DType, max_entries: int) -> str:
    """The first ``max_entries`` values, bracketed by rows for rank >= 2, "..." when cut short."""
    flat = array.reshape(-1)
    total = flat.size
    limit = min(max_entries, total) if max_entries >= 0 else total
    fmt = _element_formatter(dtype)
    shape = array.shape
    out: list[str] = []
    if array.ndim == 0:
        out.append(fmt(flat[0]))
    elif array.ndim == 1:
        out.append(" ".join(fmt(flat[k]) for k in range(limit)))
    else:
        cursor = [0]

        def emit(axis: int) -> None:
            if cursor[0] >= limit:
                return
            if axis == len(shape) - 1:
                for i in range(shape[axis]):
                    if cursor[0] >= limit:
                        out.append("...")
                        return
                    if i:
                        out.append(" ")
                    out.append(fmt(flat[cursor[0]]))
                    cursor[0] += 1
                return
            for _ in range(shape[axis]):
                opened = cursor[0] < limit
                if opened:
                    out.append("[")
                emit(axis + 1)
                if opened:
                    out.append("]")

        emit(0)
    if limit < total:
        out.append("...")
    return "".join(out)


# ====================================================================== hashing and equality

_MASK64 = (1 << 64) - 1


def _hash64(data: bytes, seed: int = 0xDECAFCAFFE) -> int:
    """64-bit MurmurHash2 (MurmurHash64A) of ``data``: stable across runs and platforms."""
    m, r = 0xC6A4A7935BD1E995, 47
    h = (seed ^ (len(data) * m)) & _MASK64
    full = len(data) - len(data) % 8
    for off in range(0, full, 8):
        k = (int.from_bytes(data[off : off + 8], "little") * m) & _MASK64
        k ^= k >> r
        k = (k * m) & _MASK64
        h = ((h ^ k) * m) & _MASK64
    tail = data[full:]
    if tail:
        h = ((h ^ int.from_bytes(tail, "little")) * m) & _MASK64
    h ^= h >> r
    h = (h * m) & _MASK64
    h ^= h >> r
    return h


def attr_value_hash(value: attr_value_pb2.AttrValue) -> int:
    """A stable 64-bit hash of an AttrValue's deterministic serialization (modtensor's own, not TF's value)."""
    return _hash64(value.SerializeToString(deterministic=True))


def attr_value_equal(a: attr_value_pb2.AttrValue, b: attr_value_pb2.AttrValue) -> bool:
    """Semantic equality: tensors compare by dtype, shape and values (any encoding); funcs by name and attrs."""
    a = _coerce_message(a, AttrValue, "AttrValue")
    b = _coerce_message(b, AttrValue, "AttrValue")
    which = a.WhichOneof("value")
    if which != b.WhichOneof("value"):
        return False
    if which == "tensor":
        return _tensors_equal(a.tensor, b.tensor)
    if which == "func":
        return _funcs_equal(a.func, b.func)
    if which == "list":
        if len(a.list.tensor) or len(b.list.tensor):
            la, lb = a.list.tensor, b.list.tensor
            return len(la) == len(lb) and all(_tensors_equal(x, y) for x, y in zip(la, lb, strict=True))
        if len(a.list.func) or len(b.list.func):
            la, lb = a.list.func, b.list.func
            return len(la) == len(lb) and all(_funcs_equal(x, y) for x, y in zip(la, lb, strict=True))
    return a.SerializeToString(deterministic=True) == b.SerializeToString(deterministic=True)


def _funcs_equal(a: attr_value_pb2.NameAttrList, b: attr_value_pb2.NameAttrList) -> bool:
    if a.name != b.name or set(a.attr) != set(b.attr):
        return False
    return all(attr_value_equal(a.attr[k], b.attr[k]) for k in a.attr)


def _tensors_equal(a: tensor_pb2.TensorProto, b: tensor_pb2.TensorProto) -> bool:
    from modtensor.framework.tensor_proto import make_ndarray

    if a.dtype != b.dtype or tensor_shape.TensorShape(a.tensor_shape) != tensor_shape.TensorShape(b.tensor_shape):
        return False
    try:
        x, y = make_ndarray(a), make_ndarray(b)
    except (TypeError, ValueError):
        return a.SerializeToString(deterministic=True) == b.SerializeToString(deterministic=True)
    if x.dtype == object:
        return x.shape == y.shape and all(p == q for p, q in zip(x.reshape(-1), y.reshape(-1), strict=True))
    return x.shape == y.shape and x.tobytes() == y.tobytes()
