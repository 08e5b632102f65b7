"""CPU kernels of the loss ops: SoftmaxCrossEntropyWithLogits, SparseSoftmaxCrossEntropyWithLogits, L2Loss,
and IsFinite (which ``tf.math.reduce_logsumexp`` uses), as numpy functions with TF's checks and texts.

The cross entropies follow TF's xent kernels: logits shifted by their row maximum,
``loss = sum(labels * (log(sum(exp(shifted))) - shifted))``, ``backprop = softmax - labels``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from modtensor.framework import errors
from modtensor.kernels.cpu.fp_quiet import ignoring_fp_errors

__all__ = ["OP_FUNCTIONS", "TYPE_CONSTRAINTS"]


def _dims(shape: Any) -> str:
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


@ignoring_fp_errors
def softmax_cross_entropy_with_logits(features: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-row cross entropy of ``labels`` (probabilities) against softmax(``features``), and its gradient."""
    try:
        shape = np.broadcast_shapes(features.shape, labels.shape)
    except ValueError:
        raise _invalid(
            f"logits and labels must be broadcastable: logits_size={_dims(features.shape)} "
            f"labels_size={_dims(labels.shape)}"
        ) from None
    if len(shape) != 2:
        raise _invalid("logits and labels must be either 2-dimensional, or broadcasted to be 2-dimensional")
    logits = np.broadcast_to(features, shape)
    labels = np.broadcast_to(labels, shape)
    dtype = features.dtype
    shifted = logits - logits.max(axis=1, keepdims=True) if shape[1] else logits.astype(dtype)
    sum_exp = np.exp(shifted).sum(axis=1, keepdims=True, dtype=dtype)
    loss = (labels * (np.log(sum_exp) - shifted)).sum(axis=1, dtype=dtype)
    backprop = np.exp(shifted) / sum_exp - labels
    return loss.astype(dtype, copy=False), backprop.astype(dtype, copy=False)


@ignoring_fp_errors
def sparse_softmax_cross_entropy_with_logits(
    features: np.ndarray, labels: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Cross entropy of class indices ``labels`` against softmax(``features``) per row, and its gradient."""
    if features.ndim != 2:
        raise _invalid(f"logits must be 2-D, but got shape {_dims(features.shape)}")
    if labels.ndim != 1:
        raise _invalid(f"labels must be 1-D, but got shape {_dims(labels.shape)}")
    if features.shape[0] != labels.shape[0]:
        raise _invalid(
            f"logits and labels must have the same first dimension, got logits shape {_dims(features.shape)} "
            f"and labels shape {_dims(labels.shape)}"
        )
    classes = features.shape[1]
    if classes == 0:
        raise _invalid(f"Must have at least one class, but got logits shape {_dims(features.shape)}")
    bad = (labels < 0) | (labels >= classes)
    if bad.any():
        first = int(labels[np.flatnonzero(bad)[0]])
        values = " ".join(str(int(v)) for v in labels)
        raise _invalid(
            f"Received a label value of {first} which is outside the valid range of [0, {classes}).  "
            f"Label values: {values}"
        )
    dtype = features.dtype
    rows = np.arange(features.shape[0])
    shifted = features - features.max(axis=1, keepdims=True)
    sum_exp = np.exp(shifted).sum(axis=1, keepdims=True, dtype=dtype)
    loss = np.log(sum_exp[:, 0]) - shifted[rows, labels]
    backprop = np.exp(shifted) / sum_exp
    backprop[rows, labels] -= dtype.type(1)
    return loss.astype(dtype, copy=False), backprop.astype(dtype, copy=False)


@ignoring_fp_errors
def l2_loss(t: np.ndarray) -> np.ndarray:
    """sum(t ** 2) / 2 as TF computes it: ``(t * t * 0.5).sum()`` in t's dtype."""
    return np.asarray((t * t * t.dtype.type(0.5)).sum(dtype=t.dtype), dtype=t.dtype)


def is_finite(x: np.ndarray) -> np.ndarray:
    """Elementwise: neither inf nor nan."""
    return np.isfinite(x)


OP_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "SoftmaxCrossEntropyWithLogits": softmax_cross_entropy_with_logits,
    "SparseSoftmaxCrossEntropyWithLogits": sparse_softmax_cross_entropy_with_logits,
    "L2Loss": l2_loss,
    "IsFinite": is_finite,
}

_FLOATS = ["half", "bfloat16", "float32", "float64"]
# TF 2.21's CPU kernels (tests/golden/variables/cases.json "cpu_kernels" holds TF's registrations).
TYPE_CONSTRAINTS: dict[str, dict[str, list[str]]] = {
    "SoftmaxCrossEntropyWithLogits": {"T": _FLOATS},
    "SparseSoftmaxCrossEntropyWithLogits": {"T": _FLOATS, "Tlabels": ["int32", "int64"]},
    "L2Loss": {"T": _FLOATS},
    "IsFinite": {"T": _FLOATS},
}
