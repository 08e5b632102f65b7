"""The intra-op thread setting applied to the native CPU kernel library's thread pool.

The library (``modtensor/lib/libmodtensor_cpu_kernels.so``) keeps one pool for all of its
kernels and sets the process's BLAS (numpy's, which the numpy fallback kernels use) to one
thread, so one number, ``tf.config.threading.set_intra_op_parallelism_threads``, bounds the
threads every kernel uses. Discovery calls ``attach_native_library`` after loading the library; later changes of
the setting are pushed to it at once.
"""

from __future__ import annotations

import ctypes
import threading
from pathlib import Path

from modtensor.runtime import context

__all__ = ["attach_native_library", "force_generic_gemm", "native_gemm", "native_threads"]

_lock = threading.Lock()
_library: ctypes.CDLL | None = None


def _apply(which: str, num_threads: int) -> None:
    if which == "intra_op" and _library is not None:
        _library.modtensor_cpu_kernels_set_num_threads(ctypes.c_int(num_threads))


def attach_native_library(path: Path | str) -> None:
    """Bind the loaded native kernel library and give it the current intra-op setting."""
    global _library
    with _lock:
        if _library is not None:
            return
        try:
            library = ctypes.CDLL(str(path))
            library.modtensor_cpu_kernels_set_num_threads.argtypes = [ctypes.c_int]
            library.modtensor_cpu_kernels_get_num_threads.restype = ctypes.c_int
            library.modtensor_cpu_kernels_gemm.restype = ctypes.c_char_p
            library.modtensor_cpu_kernels_force_generic_gemm.argtypes = [ctypes.c_int]
        except (OSError, AttributeError):
            return
        _library = library
        context.add_threading_listener(_apply)
    _apply("intra_op", context.intra_op_parallelism_threads())


def native_threads() -> int | None:
    """Threads the native kernels use now (the setting, or every core for 0); None without the library."""
    return None if _library is None else int(_library.modtensor_cpu_kernels_get_num_threads())


def native_gemm() -> str | None:
    """The GEMM micro-kernel the native kernels use ("avx512", "avx2", "generic"); None without the library."""
    return None if _library is None else _library.modtensor_cpu_kernels_gemm().decode()


def force_generic_gemm(on: bool) -> None:
    """Make the native kernels use the portable micro-kernel instead of the CPU's best (tests of that path)."""
    if _library is not None:
        _library.modtensor_cpu_kernels_force_generic_gemm(1 if on else 0)
