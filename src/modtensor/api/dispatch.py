"""``apply_op``: the one entry every op wrapper calls; runs the op eagerly or adds it to a graph.

Keyword arguments are the OpDef's input and attr names, as in
``framework.op_def_library.apply_op``; the result has the structure of TensorFlow's
generated wrappers (None, one tensor, or a list).
"""

from __future__ import annotations

from typing import Any

from modtensor.api import context
from modtensor.framework import op_def_library

__all__ = ["apply_op"]


def apply_op(op_type: str, name: str | None = None, **kwargs: Any) -> Any:
    """Run ``op_type`` now when executing eagerly, else add it to the default graph."""
    if context.executing_eagerly():
        from modtensor.runtime import eager

        return eager.apply_op_eager(op_type, name, kwargs)
    return op_def_library.apply_op_outputs(op_type, name=name, **kwargs)
