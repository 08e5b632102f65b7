"""Neural-network ops: BiasAdd, activations, softmax, Conv2D, DepthwiseConv2dNative, MaxPool, AvgPool.

OpDefs equal TensorFlow 2.21's registered ones; shape functions follow TF's C++
ones (NHWC/NCHW, strides, dilations, SAME/VALID/EXPLICIT padding).
"""

from __future__ import annotations

from modtensor.framework import common_shapes, errors
from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import InferenceContext
from modtensor.ops._shape_errors import invalid

_FLOATS = "{half, bfloat16, float, double}"

(
    register_op("BiasAdd")
    .input("value: T")
    .input("bias: T")
    .output("output: T")
    .attr("T: numbertype")
    .attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .set_shape_fn(common_shapes.bias_add_shape)
)


def _activation(name: str, types: str) -> object:
    return (
        register_op(name)
        .input("features: T")
        .output("activations: T")
        .attr(f"T: {types}")
        .set_shape_fn(common_shapes.unchanged_shape)
    )


_activation("Relu", "{realnumbertype, qint8}")
_activation("Relu6", "realnumbertype")
_activation("Elu", _FLOATS)
# Extras (not in the starter set) that TF-exported inference graphs commonly contain.
_activation("Softplus", _FLOATS)
# tf.nn.selu and tf.nn.softsign.
_activation("Selu", _FLOATS)
_activation("Softsign", _FLOATS)
(
    register_op("LeakyRelu")
    .input("features: T")
    .output("activations: T")
    .attr("alpha: float = 0.2")
    .attr(f"T: {_FLOATS} = DT_FLOAT")
    .set_shape_fn(common_shapes.unchanged_shape)
)

(
    register_op("Softmax")
    .input("logits: T")
    .output("softmax: T")
    .attr(f"T: {_FLOATS}")
    .set_shape_fn(common_shapes.unchanged_shape_with_rank_at_least(1))
)
(
    register_op("LogSoftmax")
    .input("logits: T")
    .output("logsoftmax: T")
    .attr(f"T: {_FLOATS}")
    .set_shape_fn(common_shapes.unchanged_shape_with_rank_at_least(1))
)

# --------------------------------------------------------------------------- convolutions

(
    register_op("Conv2D")
    .input("input: T")
    .input("filter: T")
    .output("output: T")
    .attr("T: {half, bfloat16, float, double, int32}")
    .attr("strides: list(int)")
    .attr("use_cudnn_on_gpu: bool = true")
    .attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .attr("explicit_paddings: list(int) = []")
    .attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .attr("dilations: list(int) = [1, 1, 1, 1]")
    .set_shape_fn(common_shapes.conv2d_shape)
)


def _as_str(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _explicit_padding_check(padding: str, explicit: list[int], data_format: str) -> None:
    """TF's CheckValidPadding for 4-D NHWC/NCHW tensors."""
    if padding == "EXPLICIT":
        if len(explicit) != 8:
            raise invalid(f"explicit_paddings attribute must contain 8 values, but got: {len(explicit)}")
        if any(p < 0 for p in explicit):
            raise invalid("All elements of explicit_paddings must be nonnegative")
        batch, channel = (0, 1) if data_format == "NCHW" else (0, 3)
        if any(explicit[2 * d] or explicit[2 * d + 1] for d in (batch, channel)):
            raise invalid("Nonzero explicit padding in the batch or depth dimensions is not supported")
    elif explicit:
        raise invalid("explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT")


def _depthwise_conv2d_shape(ctx: InferenceContext) -> None:
    """DepthwiseConv2dNative: filter [rows, cols, in_depth, multiplier]; out depth = in_depth * multiplier."""
    x = ctx.with_rank(ctx.input(0), 4)
    w = ctx.with_rank(ctx.input(1), 4)
    strides = list(ctx.get_attr("strides"))
    if len(strides) != 4:
        raise invalid(f"DepthwiseConv2D requires the stride attribute to contain 4 values, but got: {len(strides)}")
    dilations = list(ctx.get_attr("dilations"))
    if len(dilations) != 4:
        raise invalid(
            f"DepthwiseConv2D requires the dilations attribute to contain 4 values, but got: {len(dilations)}"
        )
    data_format = _as_str(ctx.get_attr("data_format"))
    if data_format == "NCHW":
        x = ctx.make_shape([ctx.dim(x, 0), ctx.dim(x, 2), ctx.dim(x, 3), ctx.dim(x, 1)])
        h, wi = 2, 3
    else:
        h, wi = 1, 2
    batch, in_rows, in_cols = ctx.dim(x, 0), ctx.dim(x, 1), ctx.dim(x, 2)
    filter_rows, filter_cols, multiplier = ctx.dim(w, 0), ctx.dim(w, 1), ctx.dim(w, 3)
    in_depth = ctx.merge_dim(ctx.dim(x, 3), ctx.dim(w, 2))
    out_depth = ctx.multiply(in_depth, multiplier)
    padding = _as_str(ctx.get_attr("padding"))
    explicit = [int(p) for p in ctx.get_attr("explicit_paddings")]
    _explicit_padding_check(padding, explicit, data_format)
    pads = explicit if padding == "EXPLICIT" else [0] * 8
    rows = common_shapes.get_windowed_output_size(
        in_rows, filter_rows, dilations[h], strides[h], padding, pads[2 * h], pads[2 * h + 1]
    )
    cols = common_shapes.get_windowed_output_size(
        in_cols, filter_cols, dilations[wi], strides[wi], padding, pads[2 * wi], pads[2 * wi + 1]
    )
    if data_format == "NCHW":
        ctx.set_output(0, ctx.make_shape([batch, out_depth, rows, cols]))
    else:
        ctx.set_output(0, ctx.make_shape([batch, rows, cols, out_depth]))


(
    register_op("DepthwiseConv2dNative")
    .input("input: T")
    .input("filter: T")
    .output("output: T")
    .attr(f"T: {_FLOATS}")
    .attr("strides: list(int)")
    .attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .attr("explicit_paddings: list(int) = []")
    .attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .attr("dilations: list(int) = [1, 1, 1, 1]")
    .set_shape_fn(_depthwise_conv2d_shape)
)

# --------------------------------------------------------------------------- pooling

(
    register_op("MaxPool")
    .input("input: T")
    .output("output: T")
    .attr("T: {half, bfloat16, float, double, int32, int64, uint8, int16, int8, uint16, qint8} = DT_FLOAT")
    .attr("ksize: list(int) >= 4")
    .attr("strides: list(int) >= 4")
    .attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .attr("explicit_paddings: list(int) = []")
    .attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .set_shape_fn(common_shapes.max_pool_shape)
)

(
    register_op("AvgPool")
    .input("value: T")
    .output("output: T")
    .attr("ksize: list(int) >= 4")
    .attr("strides: list(int) >= 4")
    .attr("padding: {'SAME', 'VALID'}")
    .attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .attr(f"T: {_FLOATS}")
    .set_shape_fn(common_shapes.avg_pool_shape)
)

# --------------------------------------------------------------------------- losses


def _softmax_cross_entropy_shape(ctx: InferenceContext) -> None:
    """Rank-2 features and labels of one shape, or shapes that broadcast to rank 2; loss is [batch]."""
    try:
        both = ctx.merge(ctx.with_rank(ctx.input(0), 2), ctx.input(1))
    except errors.InvalidArgumentError:
        both = None
    if both is not None:
        ctx.set_output(0, ctx.vector(ctx.dim(both, 0)))
        ctx.set_output(1, both)
        return
    backprop = common_shapes.broadcast_shapes(ctx, ctx.input(0), ctx.input(1))
    ctx.set_output(1, backprop)
    if backprop.dims is None:
        raise invalid("Shape must be broadcasted with rank 2, but is rank is unknown.")
    if len(backprop.dims) != 2:
        raise invalid(f"Shape must be broadcasted with rank 2, but is rank {len(backprop.dims)}")
    ctx.set_output(0, ctx.vector(ctx.dim(backprop, 0)))


(
    register_op("SoftmaxCrossEntropyWithLogits")
    .input("features: T")
    .input("labels: T")
    .output("loss: T")
    .output("backprop: T")
    .attr(f"T: {_FLOATS}")
    .set_shape_fn(_softmax_cross_entropy_shape)
)


def _sparse_softmax_cross_entropy_shape(ctx: InferenceContext) -> None:
    """features [batch, classes], labels [batch]: loss [batch], backprop like features."""
    features = ctx.with_rank(ctx.input(0), 2)
    labels = ctx.with_rank(ctx.input(1), 1)
    batch = ctx.merge_dim(ctx.dim(features, 0), ctx.dim(labels, 0))
    ctx.set_output(0, ctx.vector(batch))
    ctx.set_output(1, ctx.replace_dim(features, 0, batch))


(
    register_op("SparseSoftmaxCrossEntropyWithLogits")
    .input("features: T")
    .input("labels: Tlabels")
    .output("loss: T")
    .output("backprop: T")
    .attr(f"T: {_FLOATS}")
    .attr("Tlabels: {int32, int64} = DT_INT64")
    .set_shape_fn(_sparse_softmax_cross_entropy_shape)
)
register_op("L2Loss").input("t: T").output("output: T").attr(f"T: {_FLOATS}").set_shape_fn(
    common_shapes.scalar_shape
)


def _in_top_k_shape(ctx: InferenceContext) -> None:
    """InTopKV2: predictions a matrix, targets a vector over its rows; a bool per row."""
    predictions = ctx.with_rank(ctx.input(0), 2)
    targets = ctx.with_rank(ctx.input(1), 1)
    ctx.set_output(0, ctx.vector(ctx.merge_dim(ctx.dim(predictions, 0), ctx.dim(targets, 0))))


(
    register_op("InTopKV2")
    .input("predictions: float")
    .input("targets: T")
    .input("k: T")
    .output("precision: bool")
    .attr("T: {int32, int64} = DT_INT32")
    .set_shape_fn(_in_top_k_shape)
)


(
    register_op("LRN")
    .input("input: T")
    .output("output: T")
    .attr("depth_radius: int = 5")
    .attr("bias: float = 1")
    .attr("alpha: float = 1")
    .attr("beta: float = 0.5")
    .attr("T: {half, bfloat16, float} = DT_FLOAT")
    .set_shape_fn(common_shapes.unchanged_shape_with_rank(4))
)
