"""``Dataset.padded_batch`` (TF's ``padded_batch_op``): padded shapes and padding values checked and converted
as TensorFlow does, then a ``PaddedBatchDatasetV2`` op."""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.api import dispatch
from modtensor.api.data import structure
from modtensor.framework import dtypes, tensor_shape
from modtensor.framework.tensor import TensorSpec

__all__ = ["padded_batch"]


def _compatible(padded: tensor_shape.TensorShape, component: tensor_shape.TensorShape) -> bool:
    if padded.rank is None or component.rank is None:
        return True
    if padded.rank != component.rank:
        return False
    return all(p is None or c is None or p >= c for p, c in zip(padded.as_list(), component.as_list(), strict=True))


def _padded_shape(padded: Any, component: tensor_shape.TensorShape) -> tuple[list[int], tensor_shape.TensorShape]:
    shape = tensor_shape.as_shape(padded)
    if not _compatible(shape, component):
        raise ValueError(
            f"The padded shape {shape} is not compatible with the shape {component} of the corresponding input "
            "component."
        )
    return [-1 if d is None else d for d in shape.as_list()], shape


def _padding_value(value: Any, dtype: dtypes.DType) -> Any:
    from modtensor.api.constant_op import convert_to_tensor

    tensor = convert_to_tensor(value, name="padding_value")
    if not tensor.shape.is_compatible_with(tensor_shape.TensorShape([])):
        raise ValueError(
            f"Invalid `padding_values`. `padding_values` values should be scalars, but got {tensor.shape}."
        )
    if tensor.dtype != dtype:
        raise TypeError(
            f"Invalid `padding_values`. `padding_values` values type {tensor.dtype!r} does not match type {dtype!r} "
            "of the corresponding input component."
        )
    return tensor


def _default_padding(dtype: dtypes.DType) -> Any:
    if dtype == dtypes.string:
        return ""
    if dtype == dtypes.variant:
        raise TypeError("Unable to create default padding value for a component of type 'variant'.")
    return np.zeros((), dtype=dtype.as_numpy_dtype)


def padded_batch(
    dataset: Any, batch_size: Any, padded_shapes: Any, padding_values: Any, drop_remainder: Any, name: Any
) -> Any:
    """See ``Dataset.padded_batch``."""
    from modtensor.api.data.dataset_ops import _bool, _constant_value, _int64, _metadata, _PaddedBatchDataset

    spec = dataset.element_spec
    leaves = structure.flatten(spec)
    for leaf in leaves:
        if not isinstance(leaf, TensorSpec):
            raise TypeError("`padded_batch` is not supported for datasets of datasets")
    if padded_shapes is None:
        padded_shapes = structure.map_structure(lambda s: s.shape, spec)
        for i, leaf in enumerate(leaves):
            if leaf.shape.rank is None:
                raise ValueError(
                    f"You must provide `padded_shapes` argument because component {i} has unknown rank."
                )
    flat_padded = [padded_shapes] if not isinstance(spec, (tuple, dict)) else structure.flatten(padded_shapes)
    if len(flat_padded) != len(leaves):
        raise ValueError("The two structures don't have the same sequence length.")
    shapes, static = [], []
    for leaf, padded in zip(leaves, flat_padded, strict=True):
        vector, shape = _padded_shape(padded, leaf.shape)
        shapes.append(np.array(vector, dtype=np.int64))
        static.append(shape)
    if padding_values is None:
        values = [_default_padding(leaf.dtype) for leaf in leaves]
    elif isinstance(spec, (tuple, dict)) and not isinstance(padding_values, (tuple, dict)):
        values = [padding_values] * len(leaves)
    else:
        values = structure.flatten(padding_values)
        values = [_default_padding(leaf.dtype) if v is None else v for v, leaf in zip(values, leaves, strict=True)]
    values = [_padding_value(v, leaf.dtype) for v, leaf in zip(values, leaves, strict=True)]
    known = _constant_value(batch_size) if drop_remainder is True else None
    out_spec = structure.pack(
        spec,
        [
            TensorSpec(tensor_shape.TensorShape([known]).concatenate(shape), leaf.dtype)
            for shape, leaf in zip(static, leaves, strict=True)
        ],
    )
    variant = dispatch.apply_op(
        "PaddedBatchDatasetV2",
        input_dataset=dataset._variant_tensor,
        batch_size=_int64(batch_size, "batch_size"),
        padded_shapes=[_int64(s, "padded_shapes") for s in shapes],
        padding_values=values,
        drop_remainder=_bool(drop_remainder, "drop_remainder"),
        output_shapes=structure.flat_shapes(out_spec),
        metadata=_metadata(name),
    )
    return _PaddedBatchDataset(variant, out_spec, (dataset,))
