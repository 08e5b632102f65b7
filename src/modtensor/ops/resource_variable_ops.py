"""Resource-variable ops: VarHandleOp, reads, assignments, gather/scatter, VariableShape, DestroyResourceOp.

OpDefs equal TensorFlow 2.21's. Shape functions follow TF's where they do not need
the resource's "handle data" (the dtype and shape TF's shape inference attaches to a
resource tensor); modtensor's graphs carry none, so a read has an unknown shape in
raw graphs and ``modtensor.Variable`` sets the known shape on the tensors it makes.
"""

from __future__ import annotations

from modtensor.framework import common_shapes
from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import InferenceContext
from modtensor.ops._shape_errors import invalid

(
    register_op("VarHandleOp")
    .output("resource: resource")
    .attr("container: string = ''")
    .attr("shared_name: string = ''")
    .attr("debug_name: string = ''")
    .attr("dtype: type")
    .attr("shape: shape")
    .attr("allowed_devices: list(string) = []")
    .set_is_stateful()
    .set_shape_fn(common_shapes.scalar_shape)
)
(
    register_op("ReadVariableOp")
    .input("resource: resource")
    .output("value: dtype")
    .attr("dtype: type")
    .set_is_stateful()
    .set_shape_fn(common_shapes.unknown_shape)
)
(
    register_op("AssignVariableOp")
    .input("resource: resource")
    .input("value: dtype")
    .attr("dtype: type")
    .attr("validate_shape: bool = false")
    .set_is_stateful()
    .set_shape_fn(common_shapes.no_outputs)
)
for _name in ("AssignAddVariableOp", "AssignSubVariableOp"):
    (
        register_op(_name)
        .input("resource: resource")
        .input("value: dtype")
        .attr("dtype: type")
        .set_is_stateful()
        .set_shape_fn(common_shapes.no_outputs)
    )
(
    register_op("VarIsInitializedOp")
    .input("resource: resource")
    .output("is_initialized: bool")
    .set_is_stateful()
    .set_shape_fn(common_shapes.scalar_shape)
)


def _variable_shape(ctx: InferenceContext) -> None:
    """A vector whose length is the variable's rank (unknown without handle data)."""
    ctx.set_output(0, ctx.vector(None))


(
    register_op("VariableShape")
    .input("input: resource")
    .output("output: out_type")
    .attr("out_type: {int32, int64} = DT_INT32")
    .set_is_stateful()
    .set_shape_fn(_variable_shape)
)
(
    register_op("DestroyResourceOp")
    .input("resource: resource")
    .attr("ignore_lookup_error: bool = true")
    .set_is_stateful()
    .set_shape_fn(common_shapes.no_outputs)
)


def _resource_gather_shape(ctx: InferenceContext) -> None:
    """Without the variable's shape the result's rank is unknown; batch_dims must be >= 0."""
    if ctx.get_attr("batch_dims") < 0:
        raise invalid(f"batch_dims is negative ({ctx.get_attr('batch_dims')})")
    ctx.set_output(0, ctx.unknown_shape())


(
    register_op("ResourceGather")
    .input("resource: resource")
    .input("indices: Tindices")
    .output("output: dtype")
    .attr("batch_dims: int = 0")
    .attr("validate_indices: bool = true")
    .attr("dtype: type")
    .attr("Tindices: {int32, int64}")
    .set_is_stateful()
    .set_shape_fn(_resource_gather_shape)
)
(
    register_op("ResourceGatherNd")
    .input("resource: resource")
    .input("indices: Tindices")
    .output("output: dtype")
    .attr("dtype: type")
    .attr("Tindices: {int32, int64}")
    .set_is_stateful()
    .set_shape_fn(common_shapes.unknown_shape)
)

for _name in (
    "ResourceScatterAdd",
    "ResourceScatterSub",
    "ResourceScatterMul",
    "ResourceScatterDiv",
    "ResourceScatterMin",
    "ResourceScatterMax",
    "ResourceScatterUpdate",
):
    (
        register_op(_name)
        .input("resource: resource")
        .input("indices: Tindices")
        .input("updates: dtype")
        .attr("dtype: type" if _name == "ResourceScatterUpdate" else "dtype: numbertype")
        .attr("Tindices: {int32, int64}")
        .set_is_stateful()
        .set_shape_fn(common_shapes.no_outputs)
    )
