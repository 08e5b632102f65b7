"""TF-named gather/scatter, broadcast, reverse, split and unique wrappers (``tf.gather_nd``, ``tf.scatter_nd``, ...).

Each function has TensorFlow 2's signature and builds TF's op; ``__all__`` lists TF's top-level names.
"""

from __future__ import annotations

import numbers
from typing import Any

from modtensor.api.dispatch import apply_op
from modtensor.api.op_scope import convert_to_tensor
from modtensor.framework import dtypes, op_def_library
from modtensor.framework.op_registry import global_registry
from modtensor.framework.tensor import Tensor

__all__ = [
    "broadcast_to",
    "dynamic_partition",
    "dynamic_stitch",
    "gather_nd",
    "reverse",
    "reverse_sequence",
    "scatter_nd",
    "split",
    "tensor_scatter_nd_add",
    "tensor_scatter_nd_update",
    "unique",
    "unique_with_counts",
]


def gather_nd(params: Any, indices: Any, batch_dims: int = 0, name: str | None = None) -> Tensor:
    """Slices of ``params`` picked by the last dim of ``indices`` (``GatherNd``)."""
    if batch_dims != 0:
        raise NotImplementedError("gather_nd with batch_dims > 0 is not implemented yet (TF builds it from GatherNd)")
    return apply_op("GatherNd", name=name, params=params, indices=indices)


def scatter_nd(indices: Any, updates: Any, shape: Any, name: str | None = None) -> Tensor:
    """Zeros of ``shape`` with ``updates`` added at ``indices`` (``ScatterNd``)."""
    return apply_op("ScatterNd", name=name, indices=indices, updates=updates, shape=shape)


def tensor_scatter_nd_update(tensor: Any, indices: Any, updates: Any, name: str | None = None) -> Tensor:
    """``tensor`` with the slices at ``indices`` replaced by ``updates`` (``TensorScatterUpdate``)."""
    return apply_op("TensorScatterUpdate", name=name, tensor=tensor, indices=indices, updates=updates)


def tensor_scatter_nd_add(tensor: Any, indices: Any, updates: Any, name: str | None = None) -> Tensor:
    """``tensor`` with ``updates`` added at ``indices`` (``TensorScatterAdd``)."""
    return apply_op("TensorScatterAdd", name=name, tensor=tensor, indices=indices, updates=updates)


def broadcast_to(input: Any, shape: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """``input`` broadcast to ``shape`` (``BroadcastTo``)."""
    return apply_op("BroadcastTo", name=name, input=input, shape=shape)


def reverse(tensor: Any, axis: Any, name: str | None = None) -> Tensor:
    """``tensor`` with the dims in ``axis`` reversed (``ReverseV2``)."""
    return apply_op("ReverseV2", name=name, tensor=tensor, axis=axis)


def split(
    value: Any, num_or_size_splits: Any, axis: Any = 0, num: int | None = None, name: str = "split"
) -> list[Tensor]:
    """``value`` cut along ``axis`` into N equal pieces (``Split``) or pieces of the given sizes (``SplitV``)."""
    if isinstance(num_or_size_splits, numbers.Integral):
        return apply_op("Split", name=name, split_dim=axis, value=value, num_split=int(num_or_size_splits))
    size_splits = convert_to_tensor(num_or_size_splits)
    if size_splits.shape.rank == 0:
        raise ValueError(
            "Rank-0 tensors are not supported as the num_or_size_splits argument to split. Argument provided: "
            f"{num_or_size_splits}"
        )
    if num is None:
        if size_splits.shape.rank is not None and size_splits.shape.as_list():
            num = size_splits.shape.as_list()[0]
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {num_or_size_splits}")
    return apply_op("SplitV", name=name, value=value, size_splits=size_splits, split_dim=axis, num_split=num)


def unique_with_counts(x: Any, out_idx: Any = dtypes.int32, name: str | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """``unique``'s values and indices and how often each value occurs: TF's ``UniqueWithCounts(y, idx, count)``."""
    outputs = apply_op("UniqueWithCounts", name=name, x=x, out_idx=dtypes.as_dtype(out_idx))
    return op_def_library.wrapper_outputs(global_registry().get("UniqueWithCounts").op_def, list(outputs))


def reverse_sequence(input: Any, seq_lengths: Any, seq_axis: int | None = None,  # noqa: A002 - TF's name
                     batch_axis: int | None = None, name: str | None = None) -> Tensor:  # fmt: skip
    """Along ``seq_axis``, the first ``seq_lengths[i]`` entries of each slice ``i`` along ``batch_axis`` (default
    0) reversed (``ReverseSequence``): the time-reversal of padded sequences in bidirectional RNNs."""
    attrs: dict[str, Any] = {"seq_dim": seq_axis}
    if batch_axis is not None:
        attrs["batch_dim"] = batch_axis
    return apply_op("ReverseSequence", name=name, input=input, seq_lengths=seq_lengths, **attrs)


def dynamic_partition(data: Any, partitions: Any, num_partitions: int, name: str | None = None) -> list[Tensor]:
    """``data``'s slices sorted into ``num_partitions`` tensors by the int32 ``partitions`` (``DynamicPartition``)."""
    outputs = apply_op("DynamicPartition", name=name, data=data, partitions=partitions, num_partitions=num_partitions)
    return list(outputs)


def dynamic_stitch(indices: Any, data: Any, name: str | None = None) -> Tensor:
    """The ``data`` pieces merged at positions ``indices`` (later pieces win where they repeat; ``DynamicStitch``)."""
    return apply_op("DynamicStitch", name=name, indices=indices, data=data)


def unique(x: Any, out_idx: Any = dtypes.int32, name: str | None = None) -> tuple[Tensor, Tensor]:
    """The distinct values of a vector in first-seen order and each element's index into them: TF's
    ``Unique(y, idx)``."""
    outputs = apply_op("Unique", name=name, x=x, out_idx=dtypes.as_dtype(out_idx))
    return op_def_library.wrapper_outputs(global_registry().get("Unique").op_def, list(outputs))
