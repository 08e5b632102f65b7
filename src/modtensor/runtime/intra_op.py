"""The intra-op thread setting applied to the native CPU kernels' thread pool.

The native CPU kernel library keeps one pool for all of its kernels and sets the process's
BLAS (numpy's, which the numpy fallback kernels use) to one thread, so one number,
``tf.config.threading.set_intra_op_parallelism_threads``, bounds the threads every kernel uses.
The runtime knows the pool only through the small ``NativePool`` interface: the plugin layer binds
the loaded library (``plugin/native/cpu_kernels_library.py``) and attaches it here; later changes of
the setting are pushed to it at once.
"""

from __future__ import annotations

import os
import threading
from typing import Protocol

from modtensor.runtime import context

__all__ = [
    "NativePool",
    "attach_native_pool",
    "effective_threads",
    "force_generic_gemm",
    "native_gemm",
    "native_threads",
    "usable_cores",
]


class NativePool(Protocol):
    """What the runtime asks of the native kernels' pool."""

    def set_num_threads(self, num_threads: int) -> None:
        """Use ``num_threads`` threads (0: every core)."""

    def num_threads(self) -> int:
        """The threads in use now."""

    def gemm(self) -> str:
        """The GEMM micro-kernel in use ("avx512", "avx2", "generic")."""

    def force_generic_gemm(self, on: bool) -> None:
        """Use the portable micro-kernel instead of the CPU's best (tests of that path)."""


_lock = threading.Lock()
_pool: NativePool | None = None


def _apply(which: str, num_threads: int) -> None:
    if which == "intra_op" and _pool is not None:
        _pool.set_num_threads(num_threads)


def attach_native_pool(pool: NativePool) -> None:
    """Make ``pool`` follow the intra-op setting (the first pool attached stays; later ones are ignored)."""
    global _pool
    with _lock:
        if _pool is not None:
            return
        _pool = pool
        context.add_threading_listener(_apply)
    _apply("intra_op", context.intra_op_parallelism_threads())


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the OS reports one), at least 1."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def effective_threads() -> int:
    """The threads one op may use now: the intra-op setting, or every usable core for 0 (TF's default)."""
    configured = context.intra_op_parallelism_threads()
    return configured if configured > 0 else usable_cores()


def native_threads() -> int | None:
    """Threads the native kernels use now (the setting, or every core for 0); None without the library."""
    return None if _pool is None else _pool.num_threads()


def native_gemm() -> str | None:
    """The GEMM micro-kernel the native kernels use ("avx512", "avx2", "generic"); None without the library."""
    return None if _pool is None else _pool.gemm()


def force_generic_gemm(on: bool) -> None:
    """Make the native kernels use the portable micro-kernel instead of the CPU's best (tests of that path)."""
    if _pool is not None:
        _pool.force_generic_gemm(on)
