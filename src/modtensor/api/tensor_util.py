"""TF's ``tensor_util`` names at the top level: ``is_tensor``, ``get_static_value``, ``make_ndarray`` and
``make_tensor_proto``, over modtensor's tensors, shape refiner and TensorProto codec."""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.api.op_scope import is_tensor
from modtensor.framework import shape_refiner, tensor_proto
from modtensor.framework.graph import SymbolicTensor
from modtensor.framework.protos import tensor_pb2

__all__ = ["get_static_value", "is_tensor", "make_ndarray", "make_tensor_proto"]


# The ops TF's ``_ConstantValue`` evaluates: of their inputs' static shapes, or of their inputs' values.
_OF_SHAPES = frozenset({"Shape", "Size", "Rank"})
_OF_VALUES = frozenset({
    "Const", "Range", "Cast", "Concat", "ConcatV2", "Pack", "Unpack", "Split", "Fill", "Equal", "NotEqual",
    "StopGradient", "CheckNumericsV2", "DebugIdentityV2", "Identity",
})  # fmt: skip


def _tf_evaluates(tensor: SymbolicTensor) -> bool:
    """Whether TF's ``constant_value`` computes ``tensor`` (only the ops above, on inputs it computes)."""
    op = tensor.op
    if op.type in _OF_SHAPES:
        return True
    return op.type in _OF_VALUES and all(_tf_evaluates(t) for t in op.inputs)


def get_static_value(tensor: Any, partial: bool = False) -> Any:
    """The value of ``tensor`` when known without running anything (TF's ``tensor_util.constant_value``): an
    eager tensor's numpy value, a graph tensor's value when TF's few foldable ops give it (else None), a
    non-tensor unchanged."""
    if isinstance(tensor, SymbolicTensor):
        return shape_refiner.constant_value(tensor) if _tf_evaluates(tensor) else None
    if is_tensor(tensor):
        return tensor.numpy()  # type: ignore[attr-defined]
    return tensor


def make_ndarray(tensor: tensor_pb2.TensorProto) -> np.ndarray:
    """The numpy array a TensorProto holds (TF's ``tensor_util.MakeNdarray``)."""
    return tensor_proto.make_ndarray(tensor)


def make_tensor_proto(
    values: Any, dtype: Any = None, shape: Any = None, verify_shape: bool = False, allow_broadcast: bool = False
) -> tensor_pb2.TensorProto:
    """A TensorProto holding ``values`` as TF encodes it (TF's ``tensor_util.make_tensor_proto``)."""
    if is_tensor(values) and not isinstance(values, SymbolicTensor):
        values = values.numpy()
    return tensor_proto.make_tensor_proto(
        values, dtype=dtype, shape=shape, verify_shape=verify_shape, allow_broadcast=allow_broadcast
    )
