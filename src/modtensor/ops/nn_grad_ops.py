"""Neural-network backward ops: ReluGrad, BiasAddGrad, Conv2DBackpropInput/Filter, MaxPoolGrad, ...

OpDefs equal TensorFlow 2.21's (tests/golden/gradient_ops/op_defs.pbtxt); shape functions follow TF's:
the activation gradients merge their two inputs' shapes, the convolution backprops take their
output shape from the ``*_sizes`` shape input, pooling gradients from the original input.
"""

from __future__ import annotations

from modtensor.framework import common_shapes
from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import DimensionHandle, InferenceContext, ShapeHandle
from modtensor.ops._shape_errors import invalid

_FLOATS = "{half, bfloat16, float, double}"


def _attr_str(ctx: InferenceContext, name: str, default: str | None = None) -> str:
    try:
        value = ctx.get_attr(name)
    except Exception:
        if default is None:
            raise
        return default
    return value.decode() if isinstance(value, bytes) else str(value)


def _merge_both_inputs(ctx: InferenceContext) -> None:
    """The gradients and the forward tensor have one shape, which the result takes."""
    ctx.set_output(0, ctx.merge(ctx.input(0), ctx.input(1)))


# --------------------------------------------------------------------------- activations

for _name, _second, _types in (
    ("ReluGrad", "features", "realnumbertype"),
    ("Relu6Grad", "features", "realnumbertype"),
    ("EluGrad", "outputs", _FLOATS),
    ("SoftplusGrad", "features", _FLOATS),
    ("SeluGrad", "outputs", _FLOATS),
    ("SoftsignGrad", "features", _FLOATS),
):
    (
        register_op(_name)
        .input("gradients: T")
        .input(f"{_second}: T")
        .output("backprops: T")
        .attr(f"T: {_types}")
        .set_shape_fn(_merge_both_inputs)
    )
(
    register_op("LeakyReluGrad")
    .input("gradients: T")
    .input("features: T")
    .output("backprops: T")
    .attr("alpha: float = 0.2")
    .attr(f"T: {_FLOATS} = DT_FLOAT")
    .set_shape_fn(_merge_both_inputs)
)

# --------------------------------------------------------------------------- bias


def _bias_add_grad_shape(ctx: InferenceContext) -> None:
    """A vector of the channel count: dim 1 of an NCHW gradient (rank >= 3), else the last dim (rank >= 2)."""
    if _attr_str(ctx, "data_format", "NHWC") == "NCHW":
        shape = ctx.with_rank_at_least(ctx.input(0), 3)
        ctx.set_output(0, ctx.vector(ctx.dim(shape, 1)))
    else:
        shape = ctx.with_rank_at_least(ctx.input(0), 2)
        ctx.set_output(0, ctx.vector(ctx.dim(shape, -1)))


(
    register_op("BiasAddGrad")
    .input("out_backprop: T")
    .output("output: T")
    .attr("T: numbertype")
    .attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .set_shape_fn(_bias_add_grad_shape)
)

# --------------------------------------------------------------------------- convolutions


def _nhwc_dims(shape: ShapeHandle, data_format: str) -> tuple[DimensionHandle, list[DimensionHandle], DimensionHandle]:
    """(batch, [rows, cols], depth) of a 4-D shape in ``data_format``."""
    dims = shape.dims
    if data_format == "NCHW":
        return dims[0], [dims[2], dims[3]], dims[1]
    return dims[0], [dims[1], dims[2]], dims[3]


def _from_nhwc_dims(batch: DimensionHandle, spatial: list[DimensionHandle], depth: DimensionHandle,
                    data_format: str) -> ShapeHandle:  # fmt: skip
    if data_format == "NCHW":
        return ShapeHandle([batch, depth, *spatial])
    return ShapeHandle([batch, *spatial, depth])


def _conv2d_backprop_input_shape(ctx: InferenceContext) -> None:
    """TF's Conv2DBackpropInputShape: ``input_sizes`` holds 4 dims, or the 2 spatial ones (batch from
    ``out_backprop``, depth from ``filter``); out_backprop's depth must match the filter's output depth."""
    data_format = _attr_str(ctx, "data_format", "NHWC")
    if data_format not in ("NHWC", "NCHW"):
        raise invalid(f"Invalid data format string: {data_format}")
    grad = ctx.with_rank(ctx.input(2), 4)
    filt = ctx.with_rank(ctx.input(1), 4)
    batch, _, grad_depth = _nhwc_dims(grad, data_format)
    ctx.merge_dim(grad_depth, ctx.dim(filt, 3))
    sizes = ctx.make_shape_from_shape_tensor(0)
    if sizes.rank is None:
        sizes = ctx.with_rank(sizes, 4)
    if sizes.rank == 4:
        sizes_batch, spatial, depth = _nhwc_dims(sizes, data_format)
        ctx.merge_dim(sizes_batch, batch)
    elif sizes.rank == 2:
        spatial, depth = [ctx.dim(sizes, 0), ctx.dim(sizes, 1)], ctx.dim(filt, 2)
    else:
        raise invalid(
            f"Conv2DBackpropInput requires input_sizes to contain 4 values or 2 values, but got: {sizes.rank}"
        )
    ctx.set_output(0, _from_nhwc_dims(batch, spatial, depth, data_format))


def _shape_from_sizes_input(index: int) -> common_shapes.ShapeFn:
    """The output is the 4-D shape that shape input ``index`` holds."""

    def shape_fn(ctx: InferenceContext) -> None:
        ctx.set_output(0, ctx.with_rank(ctx.make_shape_from_shape_tensor(index), 4))

    return shape_fn


_CONV_ATTRS = (
    "strides: list(int)",
    "padding: {'SAME', 'VALID', 'EXPLICIT'}",
    "explicit_paddings: list(int) = []",
    "data_format: {'NHWC', 'NCHW'} = 'NHWC'",
    "dilations: list(int) = [1, 1, 1, 1]",
)


def _conv_backprop(name: str, inputs: tuple[str, str, str], types: str, cudnn: bool, shape_fn: object) -> None:
    builder = register_op(name)
    for arg in inputs:
        builder = builder.input(arg)
    builder = builder.output("output: T").attr(f"T: {types}").attr(_CONV_ATTRS[0])
    if cudnn:
        builder = builder.attr("use_cudnn_on_gpu: bool = true")
    for attr in _CONV_ATTRS[1:]:
        builder = builder.attr(attr)
    builder.set_shape_fn(shape_fn)


_conv_backprop("Conv2DBackpropInput", ("input_sizes: int32", "filter: T", "out_backprop: T"),
               "{half, bfloat16, float, double, int32}", True, _conv2d_backprop_input_shape)  # fmt: skip
_conv_backprop("Conv2DBackpropFilter", ("input: T", "filter_sizes: int32", "out_backprop: T"), _FLOATS, True,
               _shape_from_sizes_input(1))  # fmt: skip
_conv_backprop("DepthwiseConv2dNativeBackpropInput", ("input_sizes: int32", "filter: T", "out_backprop: T"),
               _FLOATS, False, _shape_from_sizes_input(0))  # fmt: skip
_conv_backprop("DepthwiseConv2dNativeBackpropFilter", ("input: T", "filter_sizes: int32", "out_backprop: T"),
               _FLOATS, False, _shape_from_sizes_input(1))  # fmt: skip

# --------------------------------------------------------------------------- pooling


def _max_pool_grad_grad_shape(ctx: InferenceContext) -> None:
    """MaxPool's output shape; orig_input and grad share a shape, orig_output has the output's."""
    common_shapes.max_pool_shape(ctx)
    ctx.merge(ctx.input(0), ctx.input(2))
    ctx.merge(ctx.input(1), ctx.output(0))


(
    register_op("MaxPoolGrad")
    .input("orig_input: T")
    .input("orig_output: T")
    .input("grad: T")
    .output("output: T")
    .attr("ksize: list(int) >= 4")
    .attr("strides: list(int) >= 4")
    .attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .attr("explicit_paddings: list(int) = []")
    .attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .attr("T: realnumbertype = DT_FLOAT")
    .set_shape_fn(common_shapes.unchanged_shape_with_rank(4))
)
(
    register_op("MaxPoolGradGrad")
    .input("orig_input: T")
    .input("orig_output: T")
    .input("grad: T")
    .output("output: T")
    .attr("ksize: list(int) >= 4")
    .attr("strides: list(int) >= 4")
    .attr("padding: {'SAME', 'VALID'}")
    .attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .attr("T: realnumbertype")
    .set_shape_fn(_max_pool_grad_grad_shape)
)
(
    register_op("AvgPoolGrad")
    .input("orig_input_shape: int32")
    .input("grad: T")
    .output("output: T")
    .attr("ksize: list(int) >= 4")
    .attr("strides: list(int) >= 4")
    .attr("padding: {'SAME', 'VALID'}")
    .attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .attr(f"T: {_FLOATS}")
    .set_shape_fn(_shape_from_sizes_input(0))
)

# --------------------------------------------------------------------------- batch normalization


def _fused_batch_norm_grad_shape(ctx: InferenceContext) -> None:
    """x_backprop like y_backprop (and x), its channel dim merged with scale and the reserve spaces;
    scale and offset backprops are channel vectors, the last two outputs empty vectors."""
    data_format = _attr_str(ctx, "data_format")
    if data_format not in ("NHWC", "NCHW", "NDHWC", "NCDHW"):
        raise invalid(f"Invalid data format string: {data_format}")
    rank = 5 if data_format in ("NDHWC", "NCDHW") else 4
    y_backprop = ctx.with_rank(ctx.input(0), rank)
    x = ctx.with_rank(ctx.input(1), rank)
    channel_index = 1 if data_format.startswith("NC") else rank - 1
    channel = ctx.merge_dim(ctx.dim(y_backprop, channel_index), ctx.dim(x, channel_index))
    for i in range(2, 5):
        vec = ctx.with_rank(ctx.input(i), 1)
        channel = ctx.merge_dim(channel, ctx.dim(vec, 0))
    ctx.set_output(0, ctx.replace_dim(y_backprop, channel_index, channel))
    ctx.set_output(1, ctx.vector(channel))
    ctx.set_output(2, ctx.vector(channel))
    ctx.set_output(3, ctx.vector(0))
    ctx.set_output(4, ctx.vector(0))


(
    register_op("FusedBatchNormGrad")
    .input("y_backprop: T")
    .input("x: T")
    .input("scale: T")
    .input("reserve_space_1: T")
    .input("reserve_space_2: T")
    .output("x_backprop: T")
    .output("scale_backprop: T")
    .output("offset_backprop: T")
    .output("reserve_space_3: T")
    .output("reserve_space_4: T")
    .attr("T: {float}")
    .attr("epsilon: float = 0.0001")
    .attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .attr("is_training: bool = true")
    .set_shape_fn(_fused_batch_norm_grad_shape)
)
(
    register_op("FusedBatchNormGradV3")
    .input("y_backprop: T")
    .input("x: T")
    .input("scale: float")
    .input("reserve_space_1: U")
    .input("reserve_space_2: U")
    .input("reserve_space_3: U")
    .output("x_backprop: T")
    .output("scale_backprop: U")
    .output("offset_backprop: U")
    .output("reserve_space_4: U")
    .output("reserve_space_5: U")
    .attr("T: {half, bfloat16, float}")
    .attr("U: {float}")
    .attr("epsilon: float = 0.0001")
    .attr("data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'")
    .attr("is_training: bool = true")
    .set_shape_fn(_fused_batch_norm_grad_shape)
)


def _lrn_grad_shape(ctx: InferenceContext) -> None:
    """LRNGrad: the three 4-D inputs merge into the result's shape."""
    s = ctx.with_rank(ctx.input(0), 4)
    s = ctx.merge(s, ctx.input(1))
    ctx.set_output(0, ctx.merge(s, ctx.input(2)))


(
    register_op("LRNGrad")
    .input("input_grads: T")
    .input("input_image: T")
    .input("output_image: T")
    .output("output: T")
    .attr("depth_radius: int = 5")
    .attr("bias: float = 1")
    .attr("alpha: float = 1")
    .attr("beta: float = 0.5")
    .attr("T: {half, bfloat16, float} = DT_FLOAT")
    .set_shape_fn(_lrn_grad_shape)
)
