"""``tf.numpy_function`` and ``tf.py_function``: a Python callable as a graph op (``PyFunc``/``EagerPyFunc``).

The callable is registered in ``runtime.py_funcs`` under a token the node carries; the kernel
calls it with numpy arrays (``numpy_function``) or eager tensors (``py_function``). The graph
runs only in this process, as in TensorFlow.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from modtensor.api import dispatch
from modtensor.framework import dtypes
from modtensor.runtime import py_funcs

__all__ = ["numpy_function", "py_function"]


def _call(op: str, func: Callable[..., Any], inp: Sequence[Any], Tout: Any, name: str | None) -> Any:
    from modtensor.api.constant_op import convert_to_tensor

    single = not isinstance(Tout, (list, tuple))
    types = [dtypes.as_dtype(t) for t in ([Tout] if single else Tout)]
    token = py_funcs.insert(func)
    inputs = [convert_to_tensor(x) for x in inp]
    result = dispatch.apply_op(op, name=name, input=inputs, token=token, Tout=types)
    if isinstance(result, list):
        return result[0] if single and len(result) == 1 else result
    return result if single else [result]


def numpy_function(func: Callable[..., Any], inp: Sequence[Any], Tout: Any, stateful: bool = True, name: Any = None):
    """``func`` on the numpy values of ``inp``, returning ``Tout``-typed tensors (``PyFunc``)."""
    del stateful
    return _call("PyFunc", func, inp, Tout, name)


def py_function(func: Callable[..., Any], inp: Sequence[Any], Tout: Any, name: str | None = None) -> Any:
    """``func`` on eager tensors of ``inp``, returning ``Tout``-typed tensors (``EagerPyFunc``)."""
    from modtensor.api.constant_op import constant

    def eager_func(*arrays: Any) -> Any:
        return func(*[constant(a) for a in arrays])

    return _call("EagerPyFunc", eager_func, inp, Tout, name)
