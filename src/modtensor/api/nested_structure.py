"""Python structures <-> ``StructuredValue`` protos (TF's ``nested_structure_coder``): how SavedModels record
function signatures (nested tuples, lists, dicts and named tuples of TensorSpecs and Python values).
"""

from __future__ import annotations

import collections
from typing import Any

from modtensor.framework import dtypes, tensor_shape
from modtensor.framework.func_graph import is_namedtuple
from modtensor.framework.protos import struct_pb2
from modtensor.framework.tensor import TensorSpec

__all__ = ["decode", "encode"]

_NAMEDTUPLES: dict[tuple[str, tuple[str, ...]], type] = {}


def _namedtuple(name: str, fields: tuple[str, ...]) -> type:
    key = (name, fields)
    cls = _NAMEDTUPLES.get(key)
    if cls is None:
        cls = _NAMEDTUPLES[key] = collections.namedtuple(name, fields)  # noqa: PYI024 - made from the proto
    return cls


def decode(value: struct_pb2.StructuredValue) -> Any:
    """The Python value a StructuredValue stands for (TensorSpecs for tensor specs)."""
    kind = value.WhichOneof("kind")
    if kind is None or kind == "none_value":
        return None
    if kind in ("float64_value", "int64_value", "string_value", "bool_value"):
        return getattr(value, kind)
    if kind == "list_value":
        return [decode(v) for v in value.list_value.values]
    if kind == "tuple_value":
        return tuple(decode(v) for v in value.tuple_value.values)
    if kind == "dict_value":
        return {k: decode(v) for k, v in value.dict_value.fields.items()}
    if kind == "named_tuple_value":
        named = value.named_tuple_value
        cls = _namedtuple(named.name, tuple(p.key for p in named.values))
        return cls(*(decode(p.value) for p in named.values))
    if kind == "tensor_shape_value":
        return tensor_shape.as_shape(value.tensor_shape_value)
    if kind == "tensor_dtype_value":
        return dtypes.as_dtype(value.tensor_dtype_value)
    if kind in ("tensor_spec_value", "bounded_tensor_spec_value"):
        spec = getattr(value, kind)
        return TensorSpec(tensor_shape.as_shape(spec.shape), dtypes.as_dtype(spec.dtype), spec.name or None)
    if kind in ("tensor_value", "numpy_value"):
        from modtensor.framework import tensor_proto

        return tensor_proto.make_ndarray(getattr(value, kind))
    if kind == "type_spec_value":
        spec = value.type_spec_value
        name = spec.type_spec_class_name or struct_pb2.TypeSpecProto.TypeSpecClass.Name(spec.type_spec_class)
        raise NotImplementedError(
            f"a SavedModel signature uses a {name} (composite tensors are not supported by modtensor's loader)"
        )
    raise NotImplementedError(f"StructuredValue kind {kind} is not supported")


def encode(value: Any) -> struct_pb2.StructuredValue:
    """A StructuredValue for ``value`` (TensorSpecs, shapes, dtypes, scalars, strings, nested containers)."""
    out = struct_pb2.StructuredValue()
    if value is None:
        out.none_value.SetInParent()
    elif isinstance(value, bool):
        out.bool_value = value
    elif isinstance(value, int):
        out.int64_value = value
    elif isinstance(value, float):
        out.float64_value = value
    elif isinstance(value, str):
        out.string_value = value
    elif isinstance(value, TensorSpec):
        spec = out.tensor_spec_value
        spec.name = value.name or ""
        spec.shape.CopyFrom(value.shape.as_proto())
        spec.dtype = value.dtype.as_datatype_enum
    elif isinstance(value, tensor_shape.TensorShape):
        out.tensor_shape_value.CopyFrom(value.as_proto())
    elif isinstance(value, dtypes.DType):
        out.tensor_dtype_value = value.as_datatype_enum
    elif is_namedtuple(value):
        named = out.named_tuple_value
        named.name = type(value).__name__
        for field, item in zip(value._fields, value, strict=True):
            named.values.add(key=field).value.CopyFrom(encode(item))
    elif isinstance(value, tuple):
        out.tuple_value.SetInParent()
        for item in value:
            out.tuple_value.values.add().CopyFrom(encode(item))
    elif isinstance(value, list):
        out.list_value.SetInParent()
        for item in value:
            out.list_value.values.add().CopyFrom(encode(item))
    elif isinstance(value, dict):
        out.dict_value.SetInParent()
        for key, item in value.items():
            out.dict_value.fields[str(key)].CopyFrom(encode(item))
    else:
        raise ValueError(f"Cannot encode {value!r} (of type {type(value).__name__}) in a SavedModel signature")
    return out
