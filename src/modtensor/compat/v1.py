"""``modtensor.compat.v1``: TensorFlow 1 style programs: graphs, placeholders, ``Session``, ``ConfigProto``.

::

    tf.compat.v1.disable_eager_execution()
    x = tf.compat.v1.placeholder(tf.float32, [None, 3], name="x")
    y = tf.nn.relu(x)
    with tf.compat.v1.Session() as sess:
        print(sess.run(y, feed_dict={x: data}))

Names not defined here resolve to the top-level ``modtensor`` ones (``tf.compat.v1.add``).
"""

from __future__ import annotations

import importlib
from typing import Any

from modtensor.api import context as _context
from modtensor.api.dispatch import apply_op as _apply_op
from modtensor.framework.graph import Graph, get_default_graph, reset_default_graph
from modtensor.framework.importer import import_graph_def
from modtensor.framework.protos.config_pb2 import (
    ConfigProto,
    GPUOptions,
    GraphOptions,
    OptimizerOptions,
    RunMetadata,
    RunOptions,
)
from modtensor.framework.protos.graph_pb2 import GraphDef
from modtensor.runtime import context as _runtime_context

__all__ = [
    "ConfigProto",
    "GPUOptions",
    "Graph",
    "GraphDef",
    "GraphKeys",
    "GraphOptions",
    "OptimizerOptions",
    "RunMetadata",
    "RunOptions",
    "Session",  # noqa: F822 - loaded on first use (module __getattr__)
    "case",  # noqa: F822 - loaded on first use (module __getattr__)
    "colocate_with",
    "cond",  # noqa: F822 - loaded on first use (module __getattr__)
    "control_flow_v2_enabled",
    "device",
    "disable_control_flow_v2",
    "disable_eager_execution",
    "disable_v2_behavior",
    "enable_control_flow_v2",
    "enable_eager_execution",
    "enable_v2_behavior",
    "executing_eagerly",
    "get_default_graph",
    "import_graph_def",
    "name_scope",
    "placeholder",
    "placeholder_with_default",
    "reset_default_graph",
    "while_loop",  # noqa: F822 - loaded on first use (module __getattr__)
]

executing_eagerly = _context.executing_eagerly
device = _context.device_v1


def colocate_with(op: Any, ignore_existing: bool = False) -> Any:
    """Place ops created inside with ``op`` (``Graph.colocate_with`` of the default graph); eagerly, its device."""
    if _context.executing_eagerly():
        return _context.device_v1(op.device if op is not None else None)
    return get_default_graph().colocate_with(op, ignore_existing)


def disable_eager_execution() -> None:
    """Make ops build the default graph (run it with ``Session``) for the rest of the process."""
    _runtime_context.disable_eager_execution()


def enable_eager_execution(config: ConfigProto | None = None, device_policy: Any = None) -> None:
    """Run ops eagerly again (the default); the arguments are accepted for TF compatibility and ignored."""
    del config, device_policy
    _runtime_context.enable_eager_execution()


def disable_v2_behavior() -> None:
    """TensorFlow 1 behaviour: graphs instead of eager execution, and v1 control flow in those graphs."""
    disable_eager_execution()
    disable_control_flow_v2()


def enable_v2_behavior() -> None:
    """TensorFlow 2 behaviour (eager execution, control flow v2), the default."""
    enable_eager_execution()
    enable_control_flow_v2()


def enable_control_flow_v2() -> None:
    """Use functional control flow (If/While ops) in v1 graphs too: TensorFlow 2's default."""
    from modtensor.api import control_flow_util

    control_flow_util.enable_control_flow_v2()


def disable_control_flow_v2() -> None:
    """``cond``/``while_loop`` in v1 graphs build TF 1's Switch/Merge/Enter/Exit ops (functions keep v2)."""
    from modtensor.api import control_flow_util

    control_flow_util.disable_control_flow_v2()


def control_flow_v2_enabled() -> bool:
    """Whether v1 graphs get functional control flow."""
    from modtensor.api import control_flow_util

    return control_flow_util.control_flow_v2_enabled()


def placeholder(dtype: Any, shape: Any = None, name: str | None = None) -> Any:
    """A graph input of ``dtype`` and (possibly partial) ``shape`` that ``Session.run`` feeds.

    RuntimeError when executing eagerly, as in TensorFlow.
    """
    if _context.executing_eagerly():
        raise RuntimeError("tf.placeholder() is not compatible with eager execution.")
    if shape is None:
        return _apply_op("Placeholder", name=name, dtype=dtype)
    return _apply_op("Placeholder", name=name, dtype=dtype, shape=shape)


def placeholder_with_default(input: Any, shape: Any, name: str | None = None) -> Any:  # noqa: A002 - TF's name
    """``input`` unless a value of ``shape`` is fed in its place (eagerly: ``input`` itself)."""
    return _apply_op("PlaceholderWithDefault", name=name, input=input, shape=shape)


class name_scope:  # noqa: N801 - TensorFlow's name
    """TF1's ``name_scope(name, default_name=None, values=None)``: ``name``, else ``default_name``."""

    def __init__(self, name: str | None, default_name: str | None = None, values: Any = None):
        del values
        if name is None and default_name is None:
            raise ValueError("At least one of name (None) and default_name (None) must be provided.")
        self._scope = _context.name_scope(name if name is not None else default_name)  # type: ignore[arg-type]

    def __enter__(self) -> str:
        return self._scope.__enter__()

    def __exit__(self, *exc_info: Any) -> Any:
        return self._scope.__exit__(*exc_info)


class GraphKeys:
    """TF 1's collection names (the ones modtensor fills)."""

    GLOBAL_VARIABLES = "variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    LOCAL_VARIABLES = "local_variables"
    TABLE_INITIALIZERS = "table_initializer"


# v1 variable API (collections, initializers, get_variable, variable_scope), loaded on first use.
_VARIABLES_V1 = {
    "AUTO_REUSE", "assign", "assign_add", "assign_sub", "get_variable", "get_variable_scope", "global_variables",
    "global_variables_initializer", "initialize_all_variables", "is_variable_initialized", "local_variables",
    "local_variables_initializer", "trainable_variables", "variable_scope", "variables_initializer",
}  # fmt: skip

# TF 1's signatures of the control-flow functions (loaded on first use).
_V1_CONTROL_FLOW = {
    "cond": ("modtensor.api.cond", "cond_v1"),
    "case": ("modtensor.api.cond", "case_v1"),
    "while_loop": ("modtensor.api.while_loop", "while_loop_v1"),
    "gradients": ("modtensor.api.gradients_impl", "gradients"),  # TF 1's signature (colocate_gradients_with_ops)
}
# tf.io's byte and file ops, also top-level names in TF 1 (decode_raw with TF 1's signature)
_V1_IO = {
    name: ("modtensor.api.io_ops", attr)
    for name, attr in (("read_file", "read_file"), ("write_file", "write_file"), ("decode_raw", "decode_raw_v1"),
                       ("serialize_tensor", "serialize_tensor"), ("parse_tensor", "parse_tensor"))
}  # fmt: skip


def __getattr__(name: str) -> Any:
    if name == "Session":
        return importlib.import_module("modtensor.runtime.session").Session
    if name in _VARIABLES_V1:
        return getattr(importlib.import_module("modtensor.api.variables_v1"), name)
    if name == "Variable":  # TF 1's constructor (collections, expected_shape, use_resource)
        return importlib.import_module("modtensor.api.variables_v1").VariableV1
    if name == "train":
        return importlib.import_module("modtensor.compat.v1_train")
    if name == "image":
        return importlib.import_module("modtensor.compat.v1_image")
    if name == "lookup":
        return importlib.import_module("modtensor.compat.v1_lookup")
    if name in ("tables_initializer", "initialize_all_tables"):
        return getattr(importlib.import_module("modtensor.api.lookup_ops"), name)
    if name == "multinomial":  # TF 1's name of tf.random.categorical (also tf.compat.v1.random.multinomial)
        return importlib.import_module("modtensor.api.random_ops").multinomial
    if name in _V1_CONTROL_FLOW or name in _V1_IO:
        module, attr = {**_V1_CONTROL_FLOW, **_V1_IO}[name]
        return getattr(importlib.import_module(module), attr)
    import modtensor

    try:
        return getattr(modtensor, name)
    except AttributeError:
        raise AttributeError(f"module 'modtensor.compat.v1' has no attribute '{name}'") from None
