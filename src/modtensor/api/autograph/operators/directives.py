"""``set_loop_options``: a statement at the top of a loop body that passes options to the staged loop.

The converter removes the call and hands its keyword arguments to the loop operator
(``parallel_iterations``, ``swap_memory``, ``maximum_iterations``, ``shape_invariants``),
as TensorFlow does. Called anywhere else (unconverted code) it does nothing.
"""

from __future__ import annotations

from typing import Any

__all__ = ["LOOP_OPTION_NAMES", "set_loop_options"]

LOOP_OPTION_NAMES = ("parallel_iterations", "swap_memory", "maximum_iterations", "shape_invariants")

_UNSET = object()


def set_loop_options(
    parallel_iterations: Any = _UNSET,
    swap_memory: Any = _UNSET,
    maximum_iterations: Any = _UNSET,
    shape_invariants: Any = _UNSET,
) -> None:
    """Options for the loop whose body this call starts (TF's ``tf.autograph.experimental.set_loop_options``).

    ``shape_invariants`` is a list of ``(variable, shape)`` pairs. Outside a converted loop
    this has no effect.
    """
    del parallel_iterations, swap_memory, maximum_iterations, shape_invariants
