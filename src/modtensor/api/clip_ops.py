"""``tf.clip_by_norm``: TF's composition (sum of squares, a safe sqrt, one scaling) over elementwise ops."""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.api import array_ops
from modtensor.api import math_ops as math
from modtensor.api.dispatch import apply_op
from modtensor.api.op_scope import convert_to_tensor, op_scope
from modtensor.framework.tensor import Tensor

__all__ = ["clip_by_norm"]


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
