"""Array ops that gradient functions use: BroadcastGradientArgs and the backward ops of array ops.

OpDefs equal TensorFlow 2.21's (tests/golden/gradients/op_defs.pbtxt); shape functions follow TF's.
"""

from __future__ import annotations

from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import InferenceContext


def _two_unknown_vectors(ctx: InferenceContext) -> None:
    """BroadcastGradientArgs: both shapes are vectors; the reduction indices are vectors of unknown length."""
    ctx.with_rank(ctx.input(0), 1)
    ctx.with_rank(ctx.input(1), 1)
    ctx.set_output(0, ctx.vector(None))
    ctx.set_output(1, ctx.vector(None))


register_op("BroadcastGradientArgs").input("s0: T").input("s1: T").output("r0: T").output("r1: T").attr(
    "T: {int32, int64} = DT_INT32"
).set_shape_fn(_two_unknown_vectors)
