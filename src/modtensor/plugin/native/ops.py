"""Ops defined in C (TF_RegisterOpDefinition) and their C shape functions.

A C op definition arrives as the spec strings and flags its TF_OpDefinitionBuilder
collected; it becomes an ``OpDefBuilder``, parsed by the same op-spec parser and
registered in the same ``OpRegistry`` as Python ops. Its shape function runs in
the same shape inference (``InferenceContext``) through the bridge.
"""

from __future__ import annotations

from typing import Any

from modtensor.framework import errors
from modtensor.framework.op_def_builder import OpDefBuilder
from modtensor.framework.op_registry import global_registry
from modtensor.framework.shape_inference import InferenceContext
from modtensor.plugin.registry import active_session

__all__ = ["NativeShapeFunction", "register_native_op"]

NATIVE_SOURCE = "<native code outside a plugin load>"


class NativeShapeFunction:
    """A plugin's C shape function, callable as a Python shape function ``fn(InferenceContext)``."""

    def __init__(self, address: int, op: str, source: str):
        self.address = address
        self.op = op
        self.source = source

    def __call__(self, ctx: InferenceContext) -> None:
        from modtensor.plugin.native import bridge

        try:
            bridge().run_shape_fn(self.address, ctx, self.source, self.op)
        except errors.OpError as e:
            raise type(e)(None, None, f"{e.message} [shape function of op '{self.op}' from {self.source}]") from None

    def __repr__(self) -> str:
        return f"<C shape function of {self.op} from {self.source}>"


def register_native_op(info: dict[str, Any]) -> None:
    """TF_RegisterOpDefinition: build the OpDef from the C builder's specs and register it.

    The op's source is the plugin being loaded; errors (a malformed spec, a name
    already taken) are recorded on the load so the plugin is rolled back, and
    raised so the plugin's TF_Status sees them too.
    """
    session = active_session()
    source = session.record.path if session is not None else NATIVE_SOURCE
    name = info["name"]
    try:
        builder = OpDefBuilder(name, source=source)
        for spec in info["attrs"]:
            builder.attr(spec)
        for spec in info["inputs"]:
            builder.input(spec)
        for spec in info["outputs"]:
            builder.output(spec)
        if info["is_commutative"]:
            builder.set_is_commutative()
        if info["is_aggregate"]:
            builder.set_is_aggregate()
        if info["is_stateful"]:
            builder.set_is_stateful()
        if info["allows_uninitialized_input"]:
            builder.set_allows_uninitialized_input()
        for _ in range(info["deprecation_calls"]):
            builder.deprecated(info["deprecation_version"], info["deprecation_explanation"])
        if info["shape_fn"] is not None:
            builder.set_shape_fn(NativeShapeFunction(info["shape_fn"], name, source))
        global_registry().register(builder, source=source)
    except errors.OpError as e:
        error = type(e)(None, None, f"TF_RegisterOpDefinition('{name}') failed: {e.message}")
        if session is not None:
            session.errors.append(error)
        raise error from None
    if session is not None:
        session.ops.append(name)
