"""``modtensor.raw_ops``: every registered op as a function taking its OpDef's inputs and attrs by keyword.

``tf.raw_ops.ReadVariableOp(resource=h, dtype=tf.float32)`` runs the op eagerly or adds it
to the graph being built, as TensorFlow's ``tf.raw_ops``; arguments must be keywords.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from modtensor.api.context import executing_eagerly
from modtensor.api.dispatch import apply_op, refuse_eager_tensor
from modtensor.framework import graph as graph_lib
from modtensor.framework import op_def_library
from modtensor.framework.op_registry import global_registry


def __getattr__(op_type: str) -> Callable[..., Any]:
    if op_type.startswith("__") or op_type not in global_registry():
        raise AttributeError(f"module 'modtensor.raw_ops' has no attribute '{op_type}'")

    def raw_op(*args: Any, name: str | None = None, **kwargs: Any) -> Any:
        if args:
            raise TypeError(f"raw_ops.{op_type} only takes keyword args (possible keys: {_keys(op_type)})")
        if executing_eagerly():
            result = apply_op(op_type, name=name, **kwargs)
            if type(result) is list:  # TF's structure: a namedtuple per op with several output args
                return op_def_library.wrapper_outputs(global_registry().get(op_type).op_def, result)
            return result
        if not graph_lib.get_default_graph().building_function:
            for arg_name, value in kwargs.items():
                refuse_eager_tensor(value, arg_name)
        op = op_def_library.apply_op(op_type, name=name, **kwargs)
        outputs = op_def_library.op_outputs_as_wrapper(op)
        return op if outputs is None else outputs  # TF's wrappers return an op without outputs itself

    raw_op.__name__ = op_type
    raw_op.__qualname__ = op_type
    raw_op.__doc__ = f"The {op_type} op; keyword arguments are its OpDef's inputs and attrs."
    globals()[op_type] = raw_op
    return raw_op


def _keys(op_type: str) -> list[str]:
    op_def = global_registry().get(op_type).op_def
    return [a.name for a in op_def.input_arg] + [a.name for a in op_def.attr] + ["name"]


def __dir__() -> list[str]:
    import modtensor.ops  # noqa: F401  (registers the standard ops)

    return sorted(global_registry().names())
