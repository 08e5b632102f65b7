"""PyFunc and EagerPyFunc kernels: call the registered Python callable (``runtime.py_funcs``) on the inputs.

``PyFunc`` (``tf.numpy_function``) passes numpy arrays; ``EagerPyFunc`` (``tf.py_function``)
passes eager tensors (the API layer wraps the callable so that it receives them). Results
are converted to the ``Tout`` dtypes as TF's FuncRegistry does; a ``StopIteration`` raised by
the callable becomes ``OutOfRangeError`` (how ``Dataset.from_generator`` ends), other
exceptions ``InvalidArgumentError``/``UnknownError`` with TF's texts.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.framework import dtypes, errors
from modtensor.framework.protos import types_pb2
from modtensor.runtime import py_funcs
from modtensor.runtime.op_kernel import OpKernel, OpKernelConstruction, OpKernelContext

__all__ = ["PyFuncKernel"]


class PyFuncKernel(OpKernel):
    """PyFunc / EagerPyFunc on CPU."""

    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        self._token = ctx.get_attr("token")
        if isinstance(self._token, bytes):
            self._token = self._token.decode("utf-8")
        self._tout = [dtypes.as_dtype(t) for t in ctx.get_attr("Tout")]

    def compute(self, ctx: OpKernelContext) -> None:
        func = py_funcs.lookup(self._token)
        if func is None:
            raise errors.InvalidArgumentError(
                None, None, f"Attempting to call unregistered Python function token {self._token}"
            )
        args = [np.asarray(v) for v in ctx.inputs]
        try:
            result = func(*args)
        except StopIteration as e:
            raise errors.OutOfRangeError(None, None, f"StopIteration: {e}") from None
        except errors.OpError:
            raise
        except (TypeError, ValueError) as e:
            raise errors.InvalidArgumentError(None, None, f"{type(e).__name__}: {e}") from e
        except Exception as e:  # noqa: BLE001 - a user error, reported like TF's UnknownError
            raise errors.UnknownError(None, None, f"{type(e).__name__}: {e}") from e
        results = _as_list(result, len(self._tout))
        if len(results) != len(self._tout):
            raise errors.InvalidArgumentError(
                None, None, f"pyfunc_{self._token} returns {len(results)} values, but expects to see "
                f"{len(self._tout)} values."
            )
        for i, (value, dtype) in enumerate(zip(results, self._tout, strict=True)):
            ctx.set_output(i, _convert(value, dtype, i, self._token.removeprefix('pyfunc_')))


def _as_list(result: Any, expected: int) -> list[Any]:
    if result is None:
        return []
    if isinstance(result, (list, tuple)):
        return list(result)
    return [result]


def _type_string(dtype: dtypes.DType) -> str:
    """TF's DataTypeString: ``DT_FLOAT`` -> ``float``."""
    return types_pb2.DataType.Name(dtype.as_datatype_enum)[3:].lower()


def _convert(value: Any, dtype: dtypes.DType, index: int, token: str) -> np.ndarray:
    value = getattr(value, "_value", value)  # an eager tensor returned by a py_function
    if dtype == dtypes.string:
        array = np.asarray(value, dtype=object)
        flat = [x.encode("utf-8") if isinstance(x, str) else x for x in array.reshape(-1).tolist()]
        out = np.empty(len(flat), dtype=object)
        out[:] = flat
        return out.reshape(array.shape)
    array = np.asarray(value)
    if array.dtype.kind in "SUO":
        got = "string"
    else:
        try:
            got = _type_string(dtypes.as_dtype(array.dtype))
        except TypeError:
            got = str(array.dtype)
    if got != _type_string(dtype):
        raise errors.InvalidArgumentError(
            None, None, f"{index}-th value returned by pyfunc_{token} is {got}, but expects {_type_string(dtype)}"
        )
    return array
