"""TensorFlow's internal fused ops that the remapper creates: ``_FusedMatMul`` and ``_FusedConv2D``.

OpDefs equal TensorFlow 2.21's; shapes are those of MatMul and Conv2D (the fused
BiasAdd and activation keep the shape). Imported by the remapper and by the CPU
kernels for them (``kernels/cpu/fused.py``), not by ``modtensor.ops``, since only
optimized graphs contain them.
"""

from __future__ import annotations

from modtensor.framework import common_shapes
from modtensor.framework.op_registry import register_op

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
