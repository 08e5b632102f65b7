"""Random ops: RandomStandardNormal, RandomUniform, TruncatedNormal (stateful; output shape = the `shape` input)."""

from __future__ import annotations

from modtensor.framework import errors
from modtensor.framework.common_shapes import unchanged_shape
from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import InferenceContext
from modtensor.ops._shape_errors import invalid


def _random_shape(ctx: InferenceContext) -> None:
    """The output shape is the value of the 1-D `shape` input (partially known where it is)."""
    ctx.set_output(0, ctx.make_shape_from_shape_tensor(0))


for _name in ("RandomStandardNormal", "RandomUniform", "TruncatedNormal"):
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


# Extra (added for tf.random.uniform with an integer dtype; not in the starter set).
def _random_uniform_int_shape(ctx: InferenceContext) -> None:
    """RandomUniformInt: scalar bounds; the output shape is the value of `shape`."""
    for index, arg in ((1, "minval"), (2, "maxval")):
        try:
            ctx.with_rank(ctx.input(index), 0)
        except errors.InvalidArgumentError:
            raise invalid(
                f"{arg} must be a scalar; got a tensor of shape {ctx.debug_string(ctx.input(index))}"
            ) from None
    ctx.set_output(0, ctx.make_shape_from_shape_tensor(0))


(
    register_op("RandomUniformInt")
    .input("shape: T")
    .input("minval: Tout")
    .input("maxval: Tout")
    .output("output: Tout")
    .attr("seed: int = 0")
    .attr("seed2: int = 0")
    .attr("Tout: {int32, int64}")
    .attr("T: {int32, int64}")
    .set_is_stateful()
    .set_shape_fn(_random_uniform_int_shape)
)


# Added with tf.random.shuffle.
(
    register_op("RandomShuffle")
    .input("value: T")
    .output("output: T")
    .attr("seed: int = 0")
    .attr("seed2: int = 0")
    .attr("T: type")
    .set_is_stateful()
    .set_shape_fn(unchanged_shape)
)


# Added with tf.random.categorical.
_REAL = "{float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64}"


def multinomial_shape(ctx: InferenceContext) -> None:
    """Multinomial / StatelessMultinomial: logits a matrix, num_samples a scalar; output [batch, num_samples]."""
    logits = ctx.with_rank(ctx.input(0), 2)
    ctx.with_rank(ctx.input(1), 0)
    num_samples = ctx.make_dim_for_scalar_input(1)
    ctx.set_output(0, ctx.matrix(ctx.dim(logits, 0), num_samples))


(
    register_op("Multinomial")
    .input("logits: T")
    .input("num_samples: int32")
    .output("output: output_dtype")
    .attr("seed: int = 0")
    .attr("seed2: int = 0")
    .attr(f"T: {_REAL}")
    .attr("output_dtype: {int32, int64} = DT_INT64")
    .set_is_stateful()
    .set_shape_fn(multinomial_shape)
)
