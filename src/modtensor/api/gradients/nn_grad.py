"""Gradients of neural-network ops: activations, bias, convolutions, pooling, normalization, losses.

TensorFlow's rules (``tensorflow/python/ops/nn_grad.py``), through TF's backward ops
(``ReluGrad``, ``Conv2DBackpropInput``, ...) where TF uses them.
"""

from __future__ import annotations

from typing import Any

from modtensor.api import array_ops, math_ops
from modtensor.framework.gradient_registry import RegisterGradient


@RegisterGradient("Relu")
def _relu_grad(op: Any, grad: Any) -> Any:
    y = op.outputs[0]
    return array_ops.where(math_ops.greater(y, array_ops.zeros_like(y)), grad, array_ops.zeros_like(grad))
