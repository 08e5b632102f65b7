"""Math ops that gradient functions use: the backward ops of elementwise math (SigmoidGrad, TanhGrad, ...), and
``Conj`` (complex inputs' gradients are conjugated).

Each takes a unary op's output ``y`` and the gradient ``dy`` flowing into it, and gives the
gradient of the op's input. OpDefs equal TensorFlow 2.21's (tests/golden/gradient_ops/op_defs.pbtxt);
the shape is ``y``'s (TF's UnchangedShape).
"""

from __future__ import annotations

from modtensor.framework import common_shapes
from modtensor.framework.op_registry import register_op

# The ops whose gradient has the form f(y) * dy, in TF's op order.
UNARY_GRADIENT_OPS = ("SigmoidGrad", "TanhGrad", "SqrtGrad", "RsqrtGrad", "ReciprocalGrad")

for _name in UNARY_GRADIENT_OPS:
    (
        register_op(_name)
        .input("y: T")
        .input("dy: T")
        .output("z: T")
        .attr("T: {bfloat16, half, float, double, complex64, complex128}")
        .set_shape_fn(common_shapes.unchanged_shape)
    )

# The complex conjugate (a variant's elements' conjugates in TF; modtensor's kernels take the complex types).
register_op("Conj").input("input: T").output("output: T").attr(
    "T: {complex64, complex128, variant} = DT_COMPLEX64"
).set_shape_fn(common_shapes.unchanged_shape)
