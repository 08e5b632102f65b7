"""Random ops: RandomStandardNormal and RandomUniform (stateful; output shape from the `shape` input)."""

from __future__ import annotations

from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import InferenceContext


def _random_shape(ctx: InferenceContext) -> None:
    """The output shape is the value of the 1-D `shape` input (partially known where it is)."""
    ctx.set_output(0, ctx.make_shape_from_shape_tensor(0))


for _name in ("RandomStandardNormal", "RandomUniform"):
    (
        register_op(_name)
        .input("shape: T")
        .output("output: dtype")
        .attr("seed: int = 0")
        .attr("seed2: int = 0")
        .attr("dtype: {half, bfloat16, float, double}")
        .attr("T: {int32, int64}")
        .set_is_stateful()
        .set_shape_fn(_random_shape)
    )
