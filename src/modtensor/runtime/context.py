"""Process-wide execution state: eager on/off, each thread's eager device and name scopes, the global seed.

The front end (``api.context``) reads and changes this state; ``runtime.eager``
reads the device scope to place ops. Graph-building state (default graph, graph
device scopes) lives with the graph in ``framework.graph``.
"""

from __future__ import annotations

import random
import threading

from modtensor.framework.device_spec import DeviceSpec

__all__ = [
    "EagerScope",
    "disable_eager_execution",
    "eager_device_scope",
    "eager_enabled",
    "eager_name_scope",
    "enable_eager_execution",
    "add_threading_listener",
    "global_seed",
    "internal_operation_seed",
    "intra_op_parallelism_threads",
    "set_eager_device_scope",
    "set_eager_name_scope",
    "set_global_seed",
    "set_intra_op_parallelism_threads",
]

_eager_enabled = True


def eager_enabled() -> bool:
    """True unless ``disable_eager_execution()`` was called."""
    return _eager_enabled


def enable_eager_execution() -> None:
    """Make ops run immediately outside graph-building blocks (the default)."""
    global _eager_enabled
    _eager_enabled = True


def disable_eager_execution() -> None:
    """Make ops build the default graph (TensorFlow 1 style) for the rest of the process."""
    global _eager_enabled
    _eager_enabled = False


class EagerScope:
    """An eager device scope: the merged device spec and its canonical string (the placement cache key)."""

    __slots__ = ("name", "spec")

    def __init__(self, name: str, spec: DeviceSpec):
        self.name = name
        self.spec = spec

    def __repr__(self) -> str:
        return f"EagerScope({self.name!r})"


class _ThreadState(threading.local):
    def __init__(self) -> None:
        self.device: EagerScope | None = None
        self.name_scope = ""


_thread = _ThreadState()


def eager_device_scope() -> EagerScope | None:
    """This thread's eager device scope, None when ops are placed automatically."""
    return _thread.device


def set_eager_device_scope(scope: EagerScope | None) -> None:
    """Set (or clear, with None) this thread's eager device scope; callers restore the previous one."""
    _thread.device = scope


def eager_name_scope() -> str:
    """This thread's eager name scope, ``"outer/inner/"`` or ``""``."""
    return _thread.name_scope


def set_eager_name_scope(scope: str) -> None:
    """Set this thread's eager name scope (callers restore the previous one)."""
    _thread.name_scope = scope


# ----------------------------------------------------------------------------- seeds

_seed_lock = threading.Lock()
_global_seed: int | None = None
_op_seed_rng = random.Random(0)


def global_seed() -> int | None:
    """The seed set by ``set_global_seed`` (``tf.random.set_seed``), None when unset."""
    return _global_seed


def set_global_seed(seed: int | None) -> None:
    """Set the global seed and restart the sequence of operation seeds eager ops draw from it (as TF)."""
    global _global_seed, _op_seed_rng
    with _seed_lock:
        _global_seed = None if seed is None else int(seed)
        _op_seed_rng = random.Random(_global_seed)


def internal_operation_seed() -> int:
    """The next operation seed for an eager random op that was given none while a global seed is set.

    TensorFlow draws these from a generator seeded by the global seed, so a program
    that sets the seed gets the same sequence of random ops every run.
    """
    with _seed_lock:
        return _op_seed_rng.randint(0, 2**31 - 1)


# ----------------------------------------------------------------------------- threads

# TensorFlow's intra-op setting (tf.config.threading): the threads one kernel may use, 0 meaning "the
# system picks" (every core); the native CPU kernels' pool follows it (runtime/intra_op.py). The
# inter-op setting lives with the executor's pool (runtime/inter_op.py).
_intra_op = 0
_threading_listeners: list = []


def intra_op_parallelism_threads() -> int:
    """The number of threads one op may use (0: every core), as ``tf.config.threading`` reports it."""
    return _intra_op


def set_intra_op_parallelism_threads(num_threads: int) -> None:
    """Set the threads one op may use (0: every core); applies to the next op that runs."""
    global _intra_op
    num_threads = int(num_threads)
    if num_threads < 0:
        raise ValueError(f"The number of threads must be >= 0, got {num_threads}")
    _intra_op = num_threads
    for listener in list(_threading_listeners):
        listener("intra_op", num_threads)


def add_threading_listener(listener) -> None:  # noqa: ANN001 - Callable[[str, int], None]
    """Call ``listener("intra_op", num_threads)`` whenever the intra-op setting changes."""
    _threading_listeners.append(listener)
