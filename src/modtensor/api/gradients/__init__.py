"""modtensor's gradient functions, one module per op family, registered in ``framework.gradient_registry``.

Each module decorates ``grad_fn(op, *output_grads)`` functions with
``@RegisterGradient("OpType")`` and lists the ops that have no gradient with
``no_gradient``. They build ops through the public wrappers, so one function serves
eager tapes, tapes inside ``tf.function`` and ``tf.gradients`` in graphs. The package is
imported on the registry's first lookup (``load``), keeping ``import modtensor`` light.
"""

from __future__ import annotations

import importlib

_MODULES = (
    "array_grad",
    "control_flow_grad",
    "function_grad",
    "image_grad",
    "linalg_grad",
    "list_grad",
    "math_grad",
    "nn_grad",
    "no_gradient_ops",
    "resource_variable_grad",
    "sparse_grad",
    "spectral_grad",
)


def load() -> None:
    """Register every built-in gradient function (idempotent: Python imports each module once)."""
    for name in _MODULES:
        importlib.import_module(f"{__name__}.{name}")
