"""CPU kernels as plain numpy functions with TensorFlow's numerics.

Each function takes the op's inputs positionally as numpy arrays (a list for
list inputs such as ConcatV2's ``values``) and the attrs it needs as keyword
arguments named like TF's attrs (dtype attrs as numpy dtypes, names, or
objects with ``as_numpy_dtype``); type attrs like ``T`` are implied by the
inputs. It returns a numpy array, or a tuple for multi-output ops, and raises
``modtensor.framework.errors.InvalidArgumentError`` with TF's message.
``OP_FUNCTIONS`` maps each TF op name to its function, for kernel registration.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from modtensor.kernels.cpu import (
    activations,
    array,
    array_grad,
    audio,
    batch_norm,
    bessel,
    conv,
    csv,
    data_flow,
    elementwise,
    image,
    image_codecs,
    image_grad,
    indexing,
    linalg,
    linalg_grad,
    math_grad,
    matmul,
    nms,
    nn_grad,
    pooling,
    ragged,
    random,
    reductions,
    search_count,
    segments,
    sequences,
    sort,
    sparse,
    special_math,
    spectral,
    stateless_random,
    string_hash,
    strings,
    text,
    unicode,
)
from modtensor.kernels.cpu import strided_slice as _strided_slice

OP_FUNCTIONS: dict[str, Callable[..., object]] = {
    # elementwise arithmetic
    "Add": elementwise.add,
    "AddV2": elementwise.add,
    "Sub": elementwise.sub,
    "Mul": elementwise.mul,
    "RealDiv": elementwise.real_div,
    "Div": elementwise.div,
    "FloorDiv": elementwise.floor_div,
    "FloorMod": elementwise.floor_mod,
    "Maximum": elementwise.maximum,
    "Minimum": elementwise.minimum,
    "Pow": elementwise.pow,
    "SquaredDifference": elementwise.squared_difference,
    "Neg": elementwise.neg,
    "Abs": elementwise.abs,
    "Square": elementwise.square,
    "Sqrt": elementwise.sqrt,
    "Rsqrt": elementwise.rsqrt,
    "Exp": elementwise.exp,
    "Log": elementwise.log,
    "Log1p": elementwise.log1p,
    "Expm1": elementwise.expm1,
    "Erf": elementwise.erf,
    "Erfc": elementwise.erfc,
    "Sign": elementwise.sign,
    "Round": elementwise.round,
    "Floor": elementwise.floor,
    "Ceil": elementwise.ceil,
    "Sin": elementwise.sin,
    # the rest of tf.math's trigonometric and hyperbolic functions, rint, C division, multiply_no_nan, nextafter
    **{op: getattr(elementwise, name) for op, name in (
        ("Tan", "tan"), ("Asin", "asin"), ("Acos", "acos"), ("Atan", "atan"), ("Sinh", "sinh"), ("Cosh", "cosh"),
        ("Asinh", "asinh"), ("Acosh", "acosh"), ("Atanh", "atanh"), ("Rint", "rint"), ("Atan2", "atan2"),
        ("TruncateDiv", "truncate_div"), ("TruncateMod", "truncate_mod"), ("MulNoNan", "mul_no_nan"),
        ("NextAfter", "next_after"))},  # fmt: skip
    "Cos": elementwise.cos,
    "Reciprocal": elementwise.reciprocal,
    # comparisons, logic, select, cast
    "Less": elementwise.less,
    "LessEqual": elementwise.less_equal,
    "Greater": elementwise.greater,
    "GreaterEqual": elementwise.greater_equal,
    "Equal": elementwise.equal,
    "NotEqual": elementwise.not_equal,
    "LogicalAnd": elementwise.logical_and,
    "LogicalOr": elementwise.logical_or,
    "LogicalNot": elementwise.logical_not,
    "Select": elementwise.select,
    "SelectV2": elementwise.select_v2,
    "Cast": elementwise.cast,
    "CheckNumerics": array.check_numerics,
    # activations
    "Relu": activations.relu,
    "Relu6": activations.relu6,
    "Elu": activations.elu,
    "Sigmoid": activations.sigmoid,
    "Tanh": activations.tanh,
    "Softmax": activations.softmax,
    "LogSoftmax": activations.log_softmax,
    "BiasAdd": activations.bias_add,
    # linear algebra, convolution, pooling
    "MatMul": matmul.mat_mul,
    "BatchMatMulV2": matmul.batch_mat_mul_v2,
    "Conv2D": conv.conv2d,
    "DepthwiseConv2dNative": conv.depthwise_conv2d_native,
    "MaxPool": pooling.max_pool,
    "AvgPool": pooling.avg_pool,
    # reductions
    "Sum": reductions.reduce_sum,
    "EuclideanNorm": reductions.euclidean_norm,  # tf.math.reduce_euclidean_norm
    "Mean": reductions.reduce_mean,
    "Max": reductions.reduce_max,
    "Min": reductions.reduce_min,
    "Prod": reductions.reduce_prod,
    "All": reductions.reduce_all,
    "Any": reductions.reduce_any,
    "ArgMax": reductions.arg_max,
    "ArgMin": reductions.arg_min,
    # array manipulation
    "Reshape": array.reshape,
    "Transpose": array.transpose,
    "ConcatV2": array.concat_v2,
    "Pack": array.pack,
    "Unpack": array.unpack,
    "Squeeze": array.squeeze,
    "ExpandDims": array.expand_dims,
    "Shape": array.shape,
    "ShapeN": array.shape_n,  # added with tf.image.psnr
    "Size": array.size,
    "Rank": array.rank,
    "Fill": array.fill,
    "ZerosLike": array.zeros_like,
    "OnesLike": array.ones_like,
    "Range": array.range,
    "Tile": array.tile,
    "Pad": array.pad,
    "Slice": array.slice,
    "StridedSlice": _strided_slice.strided_slice,
    "GatherV2": array.gather_v2,
    "OneHot": array.one_hot,
    # added for the front end's tf.add_n, tf.nn.leaky_relu, one-argument tf.where and tf.pad's other modes
    "AddN": elementwise.add_n,
    "LeakyRelu": activations.leaky_relu,
    "Where": array.where,
    "PadV2": array.pad_v2,
    "MirrorPad": array.mirror_pad,
    # random
    "RandomStandardNormal": random.random_standard_normal,
    "RandomUniform": random.random_uniform,
    "RandomUniformInt": random.random_uniform_int,  # added with integer tf.random.uniform
    "TruncatedNormal": random.truncated_normal,  # added with tf.random.truncated_normal
    "RandomShuffle": random.random_shuffle,  # added with tf.random.shuffle
    "Multinomial": random.multinomial,  # added with tf.random.categorical
    "EnsureShape": array.ensure_shape,  # added with tf.ensure_shape
}

# Op breadth for real models (issue 13): each module keeps its own OP_FUNCTIONS and CPU_TYPE_CONSTRAINTS tables.
BREADTH_MODULES = (linalg, image, image_codecs, batch_norm, indexing, sort, segments, strings, special_math,
                   bessel, spectral, audio, data_flow, csv, nms, sequences, search_count, stateless_random, text,
                   string_hash, unicode, sparse, ragged)
# The backward ops of gradient functions (issue 11), in the same table form.
GRADIENT_MODULES = (array_grad, image_grad, linalg_grad, math_grad, nn_grad)
BREADTH_MODULES += GRADIENT_MODULES
for _module in BREADTH_MODULES:
    OP_FUNCTIONS.update(_module.OP_FUNCTIONS)


def register_cpu_kernels(registry: Any = None) -> list[Any]:
    """Register these functions (and Const, Placeholder, Identity, ...) as CPU kernels; see registrations.py."""
    from modtensor.kernels.cpu.registrations import register_cpu_kernels as register

    return register(registry)


__all__ = ["OP_FUNCTIONS", "register_cpu_kernels"]
