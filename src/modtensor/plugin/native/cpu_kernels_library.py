"""The built-in native CPU kernel library's own controls (its thread pool and GEMM choice), bound with ctypes.

Its kernels register through the kernel C API like any plugin's (``plugin/loader.py``); besides
that, the library exports a few ``modtensor_cpu_kernels_*`` functions for its pool. This module binds
them and attaches the pool to the runtime's intra-op setting (``runtime/intra_op.py``), so the C ABI
stays inside ``plugin/native``.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

from modtensor.runtime import intra_op

__all__ = ["CpuKernelsPool", "attach_cpu_kernels_library"]


class CpuKernelsPool:
    """``intra_op.NativePool`` over the loaded library's exported controls."""

    def __init__(self, library: ctypes.CDLL):
        library.modtensor_cpu_kernels_set_num_threads.argtypes = [ctypes.c_int]
        library.modtensor_cpu_kernels_get_num_threads.restype = ctypes.c_int
        library.modtensor_cpu_kernels_gemm.restype = ctypes.c_char_p
        library.modtensor_cpu_kernels_force_generic_gemm.argtypes = [ctypes.c_int]
        self._library = library

    def set_num_threads(self, num_threads: int) -> None:
        """Use ``num_threads`` threads (0: every core)."""
        self._library.modtensor_cpu_kernels_set_num_threads(num_threads)

    def num_threads(self) -> int:
        """The threads in use now."""
        return int(self._library.modtensor_cpu_kernels_get_num_threads())

    def gemm(self) -> str:
        """The GEMM micro-kernel in use."""
        return self._library.modtensor_cpu_kernels_gemm().decode()

    def force_generic_gemm(self, on: bool) -> None:
        """Use the portable micro-kernel (or the CPU's best again)."""
        self._library.modtensor_cpu_kernels_force_generic_gemm(1 if on else 0)


def attach_cpu_kernels_library(path: Path | str) -> bool:
    """Bind the loaded library at ``path`` and attach its pool to the intra-op setting; False when it lacks the
    controls (then its kernels still run, on the pool's default of every core)."""
    try:
        pool = CpuKernelsPool(ctypes.CDLL(str(path)))
    except (OSError, AttributeError):
        return False
    intra_op.attach_native_pool(pool)
    return True
