"""The registry of gradient functions: op type -> ``grad_fn(op, *output_grads) -> input grads``.

TensorFlow's ``tf.RegisterGradient("OpType")`` and ``tf.no_gradient("OpType")``: one
registry, which modtensor's own gradient functions (``api/gradients/``), Python code of
users and plugins (a plugin's C op gets its gradient from Python) all fill. A gradient
function is called with the forward op (a graph ``Operation``, or in eager mode an op
record with the same ``type``/``inputs``/``outputs``/``get_attr``) and one gradient per
output; it returns one gradient (or None) per input. A graph's
``gradient_override_map`` sets an op's ``_gradient_op_type`` attr, which is looked up
before the op's type, as in TensorFlow. This module knows nothing of execution.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

__all__ = [
    "RegisterGradient",
    "gradient_function_for",
    "is_registered",
    "no_gradient",
    "registered_gradient",
]

GradientFunction = Callable[..., Any]

_LOCK = threading.Lock()
# op type -> gradient function, or None for ops declared not differentiable.
_REGISTRY: dict[str, GradientFunction | None] = {}
_SOURCES: dict[str, str] = {}
# Called once before the first lookup: loads the built-in gradient functions (set by modtensor.api).
_loaders: list[Callable[[], None]] = []


def add_loader(loader: Callable[[], None]) -> None:
    """Run ``loader`` (registers built-in gradients) before the next lookup; keeps ``import modtensor`` light."""
    with _LOCK:
        _loaders.append(loader)


def _load() -> None:
    while _loaders:
        with _LOCK:
            if not _loaders:
                return
            loader = _loaders.pop(0)
        loader()


def _source_of(fn: Any) -> str:
    code = getattr(fn, "__code__", None)
    if code is None:
        return repr(fn)
    return f"{code.co_filename}:{code.co_firstlineno}"


def _register(op_type: str, fn: GradientFunction | None, source: str) -> None:
    if not isinstance(op_type, str):
        raise TypeError(f"op_type must be a string, got {op_type!r}")
    with _LOCK:
        if op_type in _REGISTRY:
            raise KeyError(
                f"Registering two gradient with name '{op_type}'! (Previous registration was in {_SOURCES[op_type]})"
            )
        _REGISTRY[op_type] = fn
        _SOURCES[op_type] = source


class RegisterGradient:
    """Decorator registering the gradient function of an op type (TensorFlow's ``tf.RegisterGradient``).

    ``@RegisterGradient("MyOp")`` on ``def _my_op_grad(op, grad): ...``. Registering an op
    type twice is TF's KeyError.
    """

    def __init__(self, op_type: str):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, fn: GradientFunction) -> GradientFunction:
        _register(self._op_type, fn, _source_of(fn))
        return fn


def no_gradient(op_type: str) -> None:
    """Declare ``op_type`` not differentiable: its inputs get no gradient (TF's ``tf.no_gradient``)."""
    _register(op_type, None, "no_gradient")


def remove(op_type: str) -> None:
    """Forget the registration of ``op_type`` (a plugin's rollback; tests)."""
    with _LOCK:
        _REGISTRY.pop(op_type, None)
        _SOURCES.pop(op_type, None)


def is_registered(op_type: str) -> bool:
    """Whether ``op_type`` has a gradient function or was declared not differentiable."""
    _load()
    return op_type in _REGISTRY


def registered_gradient(op_type: str) -> GradientFunction | None:
    """The function registered for ``op_type`` (None: not differentiable); LookupError when there is none."""
    _load()
    try:
        return _REGISTRY[op_type]
    except KeyError:
        raise LookupError(f"gradient registry has no entry for: {op_type}") from None


def gradient_function_for(op_name: str, op_type: str, override_type: str | None = None) -> GradientFunction | None:
    """The gradient function of an op named ``op_name``: its ``_gradient_op_type`` override, else its type's.

    None for an op declared not differentiable; TensorFlow's LookupError for an op with no gradient.
    """
    _load()
    key = override_type or op_type
    if key in _REGISTRY:
        return _REGISTRY[key]
    raise LookupError(
        f"No gradient defined for operation'{op_name}' (op type: {op_type}). In general every operation must have "
        "an associated `@tf.RegisterGradient` for correct autodiff, which this op is lacking. If you want to pretend "
        "this operation is a constant in your program, you may insert `tf.stop_gradient`. This can be useful to "
        "silence the error in cases where you know gradients are not needed, e.g. the forward pass of "
        "tf.custom_gradient. Please see more details in https://www.tensorflow.org/api_docs/python/tf/custom_gradient."
    )
