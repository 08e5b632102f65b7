"""TF 2.21's stateless random ops: StatelessRandomGetKeyCounter (a seed pair to a Philox key and counter) and
StatelessRandomUniformV2 / NormalV2 / TruncatedNormalV2 / UniformIntV2 / UniformFullIntV2 (samples of a shape from
that key, counter and algorithm)."""

from __future__ import annotations

from modtensor.framework import errors
from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import InferenceContext
from modtensor.ops._shape_errors import invalid
from modtensor.ops.random_ops import multinomial_shape

_RNG_KEY_SIZE = 1
_RNG_MAX_COUNTER_SIZE = 2


def _get_key_counter_shape(ctx: InferenceContext) -> None:
    """TF's shape function: ``seed`` a vector of 2; key [1] and counter [2]."""
    seed = ctx.with_rank(ctx.input(0), 1)
    ctx.with_value(ctx.dim(seed, 0), 2)
    ctx.set_output(0, ctx.make_shape([_RNG_KEY_SIZE]))
    ctx.set_output(1, ctx.make_shape([_RNG_MAX_COUNTER_SIZE]))


def _stateless_shape_v2(ctx: InferenceContext) -> None:
    """TF's ``StatelessShapeV2``: key a vector of 1, counter a vector, alg a scalar; the output has ``shape``."""
    key = ctx.with_rank(ctx.input(1), 1)
    ctx.with_rank(ctx.input(2), 1)
    ctx.with_rank(ctx.input(3), 0)
    ctx.with_value(ctx.dim(key, 0), _RNG_KEY_SIZE)
    ctx.set_output(0, ctx.make_shape_from_shape_tensor(0))


def _uniform_int_shape_v2(ctx: InferenceContext) -> None:
    """StatelessRandomUniformIntV2: scalar bounds (TF's message), then the V2 shape."""
    for index, arg in ((4, "minval"), (5, "maxval")):
        try:
            ctx.with_rank(ctx.input(index), 0)
        except errors.InvalidArgumentError:
            raise invalid(
                f"{arg} must be a scalar; got a tensor of shape {ctx.debug_string(ctx.input(index))}"
            ) from None
    _stateless_shape_v2(ctx)


(
    register_op("StatelessRandomGetKeyCounter")
    .input("seed: Tseed")
    .output("key: uint64")
    .output("counter: uint64")
    .attr("Tseed: {int32, int64} = DT_INT64")
    .set_shape_fn(_get_key_counter_shape)
)

for _name in ("StatelessRandomUniformV2", "StatelessRandomNormalV2", "StatelessTruncatedNormalV2"):
    (
        register_op(_name)
        .input("shape: Tshape")
        .input("key: uint64")
        .input("counter: uint64")
        .input("alg: int32")
        .output("output: dtype")
        .attr("dtype: {half, bfloat16, float, double} = DT_FLOAT")
        .attr("Tshape: {int32, int64} = DT_INT32")
        .set_shape_fn(_stateless_shape_v2)
    )

(
    register_op("StatelessRandomUniformFullIntV2")
    .input("shape: Tshape")
    .input("key: uint64")
    .input("counter: uint64")
    .input("alg: int32")
    .output("output: dtype")
    .attr("dtype: {int32, int64, uint32, uint64} = DT_UINT64")
    .attr("Tshape: {int32, int64} = DT_INT32")
    .set_shape_fn(_stateless_shape_v2)
)

(
    register_op("StatelessRandomUniformIntV2")
    .input("shape: Tshape")
    .input("key: uint64")
    .input("counter: uint64")
    .input("alg: int32")
    .input("minval: dtype")
    .input("maxval: dtype")
    .output("output: dtype")
    .attr("dtype: {int32, int64, uint32, uint64}")
    .attr("Tshape: {int32, int64} = DT_INT32")
    .set_shape_fn(_uniform_int_shape_v2)
)


# Added with tf.random.stateless_categorical.
def _stateless_multinomial_shape(ctx: InferenceContext) -> None:
    """StatelessMultinomial: ``seed`` a vector of 2, then Multinomial's shape."""
    seed = ctx.with_rank(ctx.input(2), 1)
    ctx.with_value(ctx.dim(seed, 0), 2)
    multinomial_shape(ctx)


(
    register_op("StatelessMultinomial")
    .input("logits: T")
    .input("num_samples: int32")
    .input("seed: Tseed")
    .output("output: output_dtype")
    .attr("T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64}")
    .attr("Tseed: {int32, int64} = DT_INT64")
    .attr("output_dtype: {int32, int64} = DT_INT64")
    .set_shape_fn(_stateless_multinomial_shape)
)
