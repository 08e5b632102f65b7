"""Gradients of array ops: identities, reshapes, and the ops that only move values around.

TensorFlow's rules (``tensorflow/python/ops/array_grad.py``).
"""

from __future__ import annotations

from typing import Any

from modtensor.api import array_ops
from modtensor.framework.gradient_registry import RegisterGradient, no_gradient

for _op in ("StopGradient", "PreventGradient", "Const", "Placeholder"):
    no_gradient(_op)


@RegisterGradient("Identity")
@RegisterGradient("Snapshot")
def _identity_grad(op: Any, grad: Any) -> Any:
    return grad


@RegisterGradient("IdentityN")
def _identity_n_grad(op: Any, *grads: Any) -> list[Any]:
    return list(grads)


@RegisterGradient("PlaceholderWithDefault")
def _placeholder_with_default_grad(op: Any, grad: Any) -> Any:
    return grad


@RegisterGradient("Reshape")
def _reshape_grad(op: Any, grad: Any) -> list[Any]:
    return [array_ops.reshape(grad, array_ops.shape(op.inputs[0])), None]
