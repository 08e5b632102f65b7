"""``NUMPY_DEVICE``: an example device written in Python whose memory is numpy arrays behind a buffer class.

The buffers are not ndarrays, so the runtime must copy through ``from_host`` /
``to_host``, as for real device memory; each buffer is counted in the device's
memory statistics while it lives. Kernels: Const, AddV2, Relu, MatMul (float32).
"""

from __future__ import annotations

import numpy as np

from modtensor.framework import dtypes
from modtensor.runtime.kernels.plumbing import ConstKernel
from modtensor.runtime.op_kernel import OpKernelContext
from modtensor.runtime.python_device import PythonDevice, PythonDeviceRegistration, register_python_device

DEVICE_TYPE = "NUMPY_DEVICE"
FLOAT = {"T": [dtypes.float32]}


class NumpyBuffer:
    """Device memory of NUMPY_DEVICE: an array the host must not see directly."""

    __slots__ = ("_array", "__weakref__")

    def __init__(self, array: np.ndarray):
        self._array = array

    @property
    def shape(self) -> tuple[int, ...]:
        return self._array.shape

    @property
    def dtype(self) -> np.dtype:
        return self._array.dtype

    @property
    def nbytes(self) -> int:
        return self._array.nbytes

    def __repr__(self) -> str:
        return f"NumpyBuffer(shape={self.shape}, dtype={self.dtype})"


class NumpyDevice(PythonDevice):
    """A NUMPY_DEVICE: copies in and out, counts the copies (for tests), tracks buffer memory."""

    def __init__(self, attributes, physical_index: int = 0):
        super().__init__(attributes, physical_index)
        self.copies_in = 0
        self.copies_out = 0

    def wrap(self, array: np.ndarray) -> NumpyBuffer:
        """Take ``array`` (already private to the device) as a tracked device buffer."""
        return self.track(NumpyBuffer(np.ascontiguousarray(array)))

    def from_host(self, array: np.ndarray) -> NumpyBuffer:
        self.copies_in += 1
        return self.wrap(np.array(array, copy=True))

    def to_host(self, value: NumpyBuffer) -> np.ndarray:
        self.copies_out += 1
        return np.array(value._array, copy=True)


def add(x: NumpyBuffer, y: NumpyBuffer, device: NumpyDevice) -> NumpyBuffer:
    return device.wrap(np.add(x._array, y._array))


def relu(features: NumpyBuffer, device: NumpyDevice) -> NumpyBuffer:
    return device.wrap(np.maximum(features._array, np.float32(0)))


def matmul(
    a: NumpyBuffer, b: NumpyBuffer, device: NumpyDevice, transpose_a: bool = False, transpose_b: bool = False
) -> NumpyBuffer:
    left = a._array.T if transpose_a else a._array
    right = b._array.T if transpose_b else b._array
    return device.wrap(np.matmul(left, right))


class NumpyConst(ConstKernel):
    """Const on the device: the value copied in once per call (a fresh buffer each time)."""

    def compute(self, ctx: OpKernelContext) -> None:
        ctx.outputs[0] = ctx.device.from_host(self._value)


def register(count: int = 1) -> PythonDeviceRegistration:
    """Register NUMPY_DEVICE (``count`` devices) and its kernels; ``.unregister()`` undoes it."""
    registration = register_python_device(DEVICE_TYPE, NumpyDevice, count=count, details={"device_name": "numpy"})
    try:
        registration.register_kernel("Const", NumpyConst)
        registration.register_kernel("AddV2", add, constraints=FLOAT)
        registration.register_kernel("Relu", relu, constraints=FLOAT)
        registration.register_kernel("MatMul", matmul, constraints=FLOAT)
    except Exception:
        registration.unregister()
        raise
    return registration
