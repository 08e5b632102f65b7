"""Bitwise ops on integers: BitwiseAnd/Or/Xor, Invert, LeftShift, RightShift.

OpDefs equal TensorFlow 2.21's registered ones; the binary ops broadcast (TF's
BroadcastBinaryOpShapeFn) and Invert keeps its input's shape.
"""

from __future__ import annotations

from modtensor.framework import common_shapes
from modtensor.framework.op_registry import register_op

_INT_TYPES = "{int8, int16, int32, int64, uint8, uint16, uint32, uint64}"

for _name in ("BitwiseAnd", "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift"):
    _op = (
        register_op(_name)
        .input("x: T")
        .input("y: T")
        .output("z: T")
        .attr(f"T: {_INT_TYPES}")
        .set_shape_fn(common_shapes.broadcast_binary_op_shape)
    )
    if _name.startswith("Bitwise"):
        _op.set_is_commutative()

register_op("Invert").input("x: T").output("y: T").attr(f"T: {_INT_TYPES}").set_shape_fn(common_shapes.unchanged_shape)
