"""``tf.io`` example parsing: FixedLenFeature, VarLenFeature, FixedLenSequenceFeature, parse_example,
parse_single_example (TF's feature specs, defaults and checks), over ParseExampleV2 / ParseSingleExample."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from modtensor.api import dispatch
from modtensor.api.sparse_tensor import SparseTensor
from modtensor.framework import dtypes, tensor_shape

__all__ = ["FixedLenFeature", "FixedLenSequenceFeature", "VarLenFeature", "decode_csv", "parse_example",
           "parse_single_example"]  # fmt: skip


class VarLenFeature(namedtuple("VarLenFeature", ["dtype"])):
    """A variable-length feature, parsed into a SparseTensor."""


class FixedLenFeature(namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])):
    """A fixed-shape feature, parsed into a dense tensor (``default_value`` when absent; required without one)."""

    def __new__(cls, shape: Any, dtype: Any, default_value: Any = None) -> FixedLenFeature:
        return super().__new__(cls, shape, dtype, default_value)


class FixedLenSequenceFeature(
    namedtuple("FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])
):
    """Any number of values of ``shape``, parsed into ``[n, *shape]`` (batches padded with ``default_value``)."""

    def __new__(
        cls, shape: Any, dtype: Any, allow_missing: bool = False, default_value: Any = None
    ) -> FixedLenSequenceFeature:
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


_ALLOWED = (dtypes.float32, dtypes.int64, dtypes.string)


def _split(features: dict[str, Any]) -> tuple[list, list, list, list, list]:
    if not features:
        raise ValueError("Missing: features was {}.")
    sparse_keys, sparse_types, dense_keys, dense_types, dense_specs = [], [], [], [], []
    for key in sorted(features):
        feature = features[key]
        dtype = dtypes.as_dtype(feature.dtype)
        if dtype not in _ALLOWED:
            raise ValueError(f"Unsupported {type(feature).__name__} {feature}.")
        if isinstance(feature, VarLenFeature):
            sparse_keys.append(key)
            sparse_types.append(dtype)
        elif isinstance(feature, (FixedLenFeature, FixedLenSequenceFeature)):
            dense_keys.append(key)
            dense_types.append(dtype)
            dense_specs.append(feature)
        else:
            raise ValueError(f"Unsupported feature type: {type(feature).__name__}")
    return sparse_keys, sparse_types, dense_keys, dense_types, dense_specs


def _dense_args(dense_keys: list[str], dense_types: list[Any], specs: list[Any]) -> tuple[list, list]:
    from modtensor.api.constant_op import convert_to_tensor

    defaults, shapes = [], []
    for key, dtype, spec in zip(dense_keys, dense_types, specs, strict=True):
        shape = tensor_shape.as_shape(spec.shape)
        np_dtype = object if dtype == dtypes.string else dtype.as_numpy_dtype
        if isinstance(spec, FixedLenSequenceFeature):
            shapes.append(tensor_shape.TensorShape([None]).concatenate(shape))
            value = spec.default_value
            default = np.zeros((0,), dtype=np_dtype) if value is None else np.asarray(value, dtype=np_dtype)
        else:
            shapes.append(shape)
            if spec.default_value is None:
                default = np.zeros((0,), dtype=np_dtype)
            else:
                default = np.asarray(spec.default_value, dtype=np_dtype)
                if default.size != max(1, shape.num_elements() or 1) and default.size != 1:
                    raise ValueError(
                        f"Cannot reshape a tensor with {default.size} elements to shape {shape} for default value of "
                        f"'{key}'"
                    )
                default = np.broadcast_to(default.reshape(-1) if default.size != 1 else default, shape.as_list())
        defaults.append(convert_to_tensor(np.array(default), dtype=dtype, name=f"key_{key}"))
    return defaults, shapes


def _assemble(outputs: Any, sparse_keys: list[str], dense_keys: list[str]) -> dict[str, Any]:
    outputs = outputs if isinstance(outputs, list) else [outputs]
    n = len(sparse_keys)
    result: dict[str, Any] = {}
    for i, key in enumerate(sparse_keys):
        result[key] = SparseTensor(outputs[i], outputs[n + i], outputs[2 * n + i])
    for i, key in enumerate(dense_keys):
        result[key] = outputs[3 * n + i]
    return result


def parse_example(
    serialized: Any, features: dict[str, Any], example_names: Any = None, name: str | None = None
) -> dict[str, Any]:
    """Parse a batch (vector) of serialized ``tf.train.Example`` protos into a dict of tensors and SparseTensors."""
    from modtensor.api.constant_op import convert_to_tensor

    sparse_keys, sparse_types, dense_keys, dense_types, specs = _split(features)
    defaults, shapes = _dense_args(dense_keys, dense_types, specs)
    outputs = dispatch.apply_op(
        "ParseExampleV2",
        name=name,
        serialized=convert_to_tensor(serialized, dtype=dtypes.string, name="serialized"),
        names=convert_to_tensor([] if example_names is None else example_names, dtype=dtypes.string),
        sparse_keys=convert_to_tensor(np.asarray(sparse_keys, dtype=object).reshape(-1), dtype=dtypes.string),
        dense_keys=convert_to_tensor(np.asarray(dense_keys, dtype=object).reshape(-1), dtype=dtypes.string),
        ragged_keys=convert_to_tensor(np.zeros((0,), dtype=object), dtype=dtypes.string),
        dense_defaults=defaults,
        num_sparse=len(sparse_keys),
        sparse_types=sparse_types,
        ragged_value_types=[],
        ragged_split_types=[],
        dense_shapes=shapes,
    )
    return _assemble(outputs, sparse_keys, dense_keys)


def parse_single_example(
    serialized: Any, features: dict[str, Any], example_names: Any = None, name: str | None = None
) -> dict[str, Any]:
    """Parse one serialized ``tf.train.Example`` (a scalar string) into a dict of tensors and SparseTensors.

    As TF 2 does, this is ``ParseExampleV2`` on a scalar input.
    """
    return parse_example(serialized, features, example_names, name)


def decode_csv(records: Any, record_defaults: Any, field_delim: str = ",", use_quote_delim: bool = True,
               na_value: str = "", select_cols: Any = None, name: str | None = None) -> list[Any]:  # fmt: skip
    """CSV records (a string tensor) split into columns (``DecodeCSV``): one tensor per entry of
    ``record_defaults``, of its type and the records' shape; an empty default makes the column required.
    ``select_cols`` (increasing) keeps only those columns."""
    if select_cols is not None and any(select_cols[i] >= select_cols[i + 1] for i in range(len(select_cols) - 1)):
        raise ValueError("select_cols is not strictly increasing.")
    if select_cols is not None and select_cols[0] < 0:
        raise ValueError("select_cols contains negative values.")
    if select_cols is not None and len(select_cols) != len(record_defaults):
        raise ValueError("Length of select_cols and record_defaults do not match.")
    outputs = dispatch.apply_op(
        "DecodeCSV", name=name, records=records, record_defaults=record_defaults, field_delim=field_delim,
        use_quote_delim=use_quote_delim, na_value=na_value, select_cols=list(select_cols or []),
    )  # fmt: skip
    return list(outputs)
