"""``apply_op``: the one entry every op wrapper calls; runs the op eagerly or adds it to a graph.

Keyword arguments are the OpDef's input and attr names, as in
``framework.op_def_library.apply_op``; the result has the structure of TensorFlow's
generated wrappers (None, one tensor, or a list).
"""

from __future__ import annotations

from typing import Any

from modtensor.framework import graph as graph_lib
from modtensor.framework import op_def_library
from modtensor.runtime import context as runtime_context

__all__ = ["apply_op", "refuse_eager_tensor"]

_graph_stack = graph_lib._default_graph_stack
_apply_op_eager: Any = None


def apply_op(op_type: str, name: str | None = None, **kwargs: Any) -> Any:
    """Run ``op_type`` now when executing eagerly, else add it to the default graph.

    Eagerly, ``name`` only shows in error messages. While building a v1 graph an eager
    tensor argument is TF's RuntimeError (only function traces capture eager tensors).
    """
    if runtime_context._eager_enabled and not _graph_stack():
        global _apply_op_eager
        if _apply_op_eager is None:
            from modtensor.runtime.eager import apply_op_eager

            _apply_op_eager = apply_op_eager
        return _apply_op_eager(op_type, name, kwargs)
    if not graph_lib.get_default_graph().building_function:
        for arg_name, value in kwargs.items():
            refuse_eager_tensor(value, arg_name)
    return op_def_library.apply_op_outputs(op_type, name=name, **kwargs)


def refuse_eager_tensor(value: Any, name: str | None) -> None:
    """TF's RuntimeError for an eager tensor (also inside a list) used while building a graph that is no function."""
    from modtensor.runtime.eager import EagerTensor

    if isinstance(value, EagerTensor) or (
        isinstance(value, (list, tuple)) and any(isinstance(v, EagerTensor) for v in value)
    ):
        prefix = f"{name}: " if name else ""
        raise RuntimeError(f"{prefix}Attempting to capture an EagerTensor without building a function.")
