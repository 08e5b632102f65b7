"""TensorFlow's internal fused ops the remapper creates: _FusedMatMul, _FusedConv2D, _FusedDepthwiseConv2dNative,
_MklLayerNorm.

OpDefs equal TensorFlow 2.21's; shapes are those of MatMul and Conv2D (the fused
BiasAdd and activation keep the shape), and x's for _MklLayerNorm (TF's oneDNN layer
normalization over the last axis: ``(x - mean) * rsqrt(variance + epsilon) * scale + offset``).
Imported by the remapper and by the CPU kernels for them (``kernels/cpu/fused.py``,
``kernels/cpu/layer_norm.py``), not by ``modtensor.ops``, since only optimized graphs contain them.
"""

from __future__ import annotations

from modtensor.framework import common_shapes
from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import InferenceContext


def _fused_depthwise_shape(ctx: InferenceContext) -> None:
    """DepthwiseConv2dNative's output shape (the op has no explicit paddings)."""
    x = ctx.with_rank(ctx.input(0), 4)
    w = ctx.with_rank(ctx.input(1), 4)
    strides = [int(v) for v in ctx.get_attr("strides")]
    dilations = [int(v) for v in ctx.get_attr("dilations")]
    nchw = ctx.get_attr("data_format") in (b"NCHW", "NCHW")
    padding = ctx.get_attr("padding")
    padding = padding.decode() if isinstance(padding, bytes) else str(padding)
    h, wi, c = (2, 3, 1) if nchw else (1, 2, 3)
    if len(strides) != 4 or len(dilations) != 4:
        ctx.set_output(0, ctx.unknown_shape_of_rank(4))
        return
    out_depth = ctx.multiply(ctx.merge_dim(ctx.dim(x, c), ctx.dim(w, 2)), ctx.dim(w, 3))
    rows = common_shapes.get_windowed_output_size(ctx.dim(x, h), ctx.dim(w, 0), dilations[h], strides[h], padding, 0, 0)
    cols = common_shapes.get_windowed_output_size(
        ctx.dim(x, wi), ctx.dim(w, 1), dilations[wi], strides[wi], padding, 0, 0
    )
    dims = [ctx.dim(x, 0), out_depth, rows, cols] if nchw else [ctx.dim(x, 0), rows, cols, out_depth]
    ctx.set_output(0, ctx.make_shape(dims))


(
    register_op("_FusedMatMul")
    .input("a: T")
    .input("b: T")
    .input("args: num_args * T")
    .output("product: T")
    .attr("transpose_a: bool = false")
    .attr("transpose_b: bool = false")
    .attr("T: {bfloat16, half, float}")
    .attr("num_args: int >= 0")
    .attr("fused_ops: list(string) = []")
    .attr("epsilon: float = 0.0001")
    .attr("leakyrelu_alpha: float = 0.2")
    .set_shape_fn(common_shapes.matmul_shape)
)
(
    register_op("_FusedConv2D")
    .input("input: T")
    .input("filter: T")
    .input("args: TArgs")
    .input("host_args: num_host_args * float")
    .output("output: T")
    .attr("T: {half, float, double, int8, qint8}")
    .attr("TArgs: list(type) >= 1")
    .attr("num_args: int >= 0")
    .attr("num_host_args: int >= 0 = 0")
    .attr("strides: list(int)")
    .attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .attr("explicit_paddings: list(int) = []")
    .attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .attr("filter_format: {'HWIO', 'OIHW', 'OIHW_VECT_I'} = 'HWIO'")
    .attr("dilations: list(int) = [1, 1, 1, 1]")
    .attr("use_cudnn_on_gpu: bool = true")
    .attr("fused_ops: list(string) = []")
    .attr("epsilon: float = 0.0001")
    .attr("leakyrelu_alpha: float = 0.2")
    .set_shape_fn(common_shapes.conv2d_shape)
)
(
    register_op("_FusedDepthwiseConv2dNative")
    .input("input: T")
    .input("filter: T")
    .input("args: num_args * T")
    .output("output: T")
    .attr("T: {half, bfloat16, float, double}")
    .attr("num_args: int >= 0")
    .attr("strides: list(int)")
    .attr("padding: {'SAME', 'VALID'}")
    .attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .attr("dilations: list(int) = [1, 1, 1, 1]")
    .attr("fused_ops: list(string) = []")
    .attr("epsilon: float = 0.0001")
    .attr("leakyrelu_alpha: float = 0.2")
    .set_shape_fn(_fused_depthwise_shape)
)
(
    register_op("_MklLayerNorm")
    .input("x: T")
    .input("scale: T")
    .input("offset: T")
    .output("y: T")
    .attr("T: {float, bfloat16, half}")
    .attr("epsilon: float = 0.001")
    .set_shape_fn(common_shapes.unchanged_shape)
)
