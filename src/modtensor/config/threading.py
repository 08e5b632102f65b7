"""``tf.config.threading``: the intra-op and inter-op thread settings, with TensorFlow's names.

``0`` means "the system picks" (every core), as in TensorFlow. The intra-op setting bounds
the threads of one op: the native CPU kernels' pool, which also runs the process's BLAS
(numpy's, set to one thread of its own), so one number covers every kernel; it applies to
the next op that runs. The inter-op setting is the executor's pool (``runtime/inter_op.py``),
read when a step starts. Unlike TensorFlow, both may be changed after the runtime started.
"""

from __future__ import annotations

from modtensor.runtime import context, inter_op

__all__ = [
    "get_inter_op_parallelism_threads",
    "get_intra_op_parallelism_threads",
    "set_inter_op_parallelism_threads",
    "set_intra_op_parallelism_threads",
]


def get_intra_op_parallelism_threads() -> int:
    """Threads one op may use; 0 means the system picks (every core)."""
    return context.intra_op_parallelism_threads()


def set_intra_op_parallelism_threads(num_threads: int) -> None:
    """Set the threads one op may use (0: every core)."""
    context.set_intra_op_parallelism_threads(num_threads)


def get_inter_op_parallelism_threads() -> int:
    """How many ops may run at once; 0 means the system picks."""
    return inter_op.get_inter_op_parallelism_threads()


def set_inter_op_parallelism_threads(num_threads: int) -> None:
    """Set how many ops may run at once (0: the system picks): the executor's inter-op pool (runtime/inter_op.py)."""
    if int(num_threads) < 0:
        raise ValueError(f"The number of threads must be >= 0, got {num_threads}")
    inter_op.set_inter_op_parallelism_threads(int(num_threads))
