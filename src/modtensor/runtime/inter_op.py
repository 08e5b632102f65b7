"""The inter-op thread pool: where independent ready nodes of a step run concurrently.

``inter_op_parallelism_threads`` (``ConfigProto`` field, ``tf.config.threading``) sets
how many nodes of a step may compute at once: 0 picks the number of cores (TF's
default), 1 runs every node on the thread that called ``run``. With ``n > 1`` the
calling thread runs nodes itself and ``n - 1`` pool threads take the expensive nodes
that are ready at the same time (numpy and BLAS release the GIL, so two MatMuls
overlap). Cheap nodes always run inline: handing a microsecond-long kernel to
another thread costs more than it saves.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

from modtensor.runtime import intra_op

__all__ = ["InterOpPool", "get_inter_op_parallelism_threads", "pool_for", "set_inter_op_parallelism_threads"]

_setting = 0  # TF's default: 0 = one thread per core
_lock = threading.Lock()
_pools: dict[int, InterOpPool] = {}


def get_inter_op_parallelism_threads() -> int:
    """The process default (0: as many as cores), as ``tf.config.threading.get_inter_op_parallelism_threads``."""
    return _setting


def set_inter_op_parallelism_threads(num_threads: int) -> None:
    """Set the process default for steps whose session config does not set one (0: as many as cores)."""
    global _setting
    if not isinstance(num_threads, int) or num_threads < 0:
        raise ValueError(f"inter_op_parallelism_threads must be an int >= 0, got {num_threads!r}")
    _setting = num_threads


def effective_threads(configured: int | None = None) -> int:
    """How many nodes may run at once for a configured value (None or 0: the process setting, then the cores)."""
    value = configured if configured else _setting
    if value <= 0:
        value = intra_op.usable_cores()
    return max(1, value)


def pool_for(num_threads: int) -> InterOpPool | None:
    """The shared pool giving ``num_threads`` concurrent nodes (the caller is one of them); None for 1."""
    if num_threads <= 1:
        return None
    with _lock:
        pool = _pools.get(num_threads)
        if pool is None:
            pool = _pools[num_threads] = InterOpPool(num_threads - 1)
        return pool


class InterOpPool:
    """A fixed set of daemon worker threads running submitted closures in FIFO order."""

    def __init__(self, num_workers: int):
        self.num_workers = num_workers
        self._tasks: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._threads = [
            threading.Thread(target=self._work, name=f"modtensor-inter-op-{i}", daemon=True) for i in range(num_workers)
        ]
        for thread in self._threads:
            thread.start()

    def submit(self, task: Callable[[], None]) -> None:
        """Run ``task()`` on a worker; it must not raise (executors report errors through their own state)."""
        self._tasks.put(task)

    def _work(self) -> None:
        while True:
            task = self._tasks.get()
            try:
                task()
            except BaseException as exc:  # noqa: BLE001 - a worker must survive a broken task; report it
                import sys
                import traceback

                print(f"modtensor: an inter-op task raised {type(exc).__name__}: {exc}", file=sys.stderr)
                traceback.print_exc()
