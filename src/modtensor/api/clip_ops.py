"""``tf.clip_by_norm``: TF's composition (sum of squares, a safe sqrt, one scaling) over elementwise ops."""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.api import array_ops
from modtensor.api import math_ops as math
from modtensor.api.dispatch import apply_op
from modtensor.api.op_scope import constant, convert_to_tensor, op_scope
from modtensor.framework.tensor import Tensor

__all__ = ["clip_by_global_norm", "clip_by_norm"]


def clip_by_norm(t: Any, clip_norm: Any, axes: Any = None, name: str | None = None) -> Tensor:
    """``t`` scaled so its L2 norm (over ``axes``, default all) is at most ``clip_norm``."""
    with op_scope(name, "clip_by_norm", [t, clip_norm]) as scope:
        values = convert_to_tensor(t, name="t")
        if np.isscalar(clip_norm):
            clip_norm = max(clip_norm, 0)
        else:
            clip_norm = math.cast(math.maximum(clip_norm, 0), dtype=values.dtype)
        l2sum = math.reduce_sum(values * values, axes, keepdims=True)
        pred = l2sum > 0
        # TF 1's where (Select) and ones_like, as TF's clip_ops still uses them
        l2sum_safe = apply_op("Select", condition=pred, t=l2sum, e=array_ops._ones_like_v1(l2sum))
        l2norm = apply_op("Select", condition=pred, t=math.sqrt(l2sum_safe), e=l2sum)
        intermediate = values * clip_norm
        return array_ops.identity(math.truediv(intermediate, math.maximum(l2norm, clip_norm)), name=scope)


def global_norm(t_list: Any, name: str | None = None) -> Tensor:
    """``sqrt(sum of squares)`` of all tensors in ``t_list`` (None entries skipped), as TF's ``L2Loss`` sum."""
    from collections.abc import Sequence

    from modtensor.api.indexed_slices import IndexedSlices
    from modtensor.framework.graph import get_default_graph

    if not isinstance(t_list, Sequence) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    t_list = list(t_list)
    with op_scope(name, "global_norm", t_list):
        values = [
            convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t, name=f"t_{i}") if t is not None else t
            for i, t in enumerate(t_list)
        ]
        half_squared_norms = []
        for v in values:
            if v is not None:
                if _eager():
                    half_squared_norms.append(apply_op("L2Loss", t=v))
                else:
                    with get_default_graph().colocate_with(v.op):
                        half_squared_norms.append(apply_op("L2Loss", t=v))
        half_squared_norm = math.reduce_sum(array_ops.stack(half_squared_norms))
        return math.sqrt(
            half_squared_norm * constant(2.0, dtype=half_squared_norm.dtype), name="global_norm"
        )


def clip_by_global_norm(
    t_list: Any, clip_norm: Any, use_norm: Any = None, name: str | None = None
) -> tuple[list[Any], Tensor]:
    """Every tensor of ``t_list`` scaled by ``clip_norm / max(global_norm, clip_norm)``, and the global norm."""
    from collections.abc import Sequence

    from modtensor.api.indexed_slices import IndexedSlices
    from modtensor.framework.graph import get_default_graph

    if not isinstance(t_list, Sequence) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    t_list = list(t_list)
    if use_norm is None:
        use_norm = global_norm(t_list, name)
    with op_scope(name, "clip_by_global_norm", [*t_list, clip_norm]) as scope:
        scale_for_finite = clip_norm * math.minimum(1.0 / use_norm, constant(1.0, dtype=use_norm.dtype) / clip_norm)
        scale = scale_for_finite + (use_norm - use_norm)
        values = [
            convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t, name=f"t_{i}") if t is not None else t
            for i, t in enumerate(t_list)
        ]
        values_clipped: list[Any] = []
        for i, v in enumerate(values):
            if v is None:
                values_clipped.append(None)
            elif _eager():
                values_clipped.append(array_ops.identity(v * math.cast(scale, v.dtype)))
            else:
                with get_default_graph().colocate_with(v.op):
                    clipped = v * math.cast(scale, v.dtype)
                    values_clipped.append(array_ops.identity(clipped, name=f"{scope}_{i}"))
        list_clipped = [
            IndexedSlices(c, t.indices, t.dense_shape) if isinstance(t, IndexedSlices) else c
            for c, t in zip(values_clipped, t_list, strict=True)
        ]
    return list_clipped, use_norm


def _eager() -> bool:
    from modtensor.api.context import executing_eagerly

    return executing_eagerly()
