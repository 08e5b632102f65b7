"""Gradients of resource-variable reads: a read passes its gradient to the variable's handle.

``ReadVariableOp`` -> the gradient itself; ``ResourceGather`` (and ``ResourceGatherNd`` of whole rows) ->
``IndexedSlices`` rows of the
variable (TensorFlow's ``_GatherGrad`` for resources). Updates and handles are not differentiable.
"""

from __future__ import annotations

from typing import Any

from modtensor.api import array_ops
from modtensor.api.dispatch import apply_op
from modtensor.api.indexed_slices import IndexedSlices
from modtensor.framework.gradient_registry import RegisterGradient, no_gradient

for _op in (
    "VarHandleOp", "VarIsInitializedOp", "VariableShape", "AssignVariableOp", "AssignAddVariableOp",
    "AssignSubVariableOp", "DestroyResourceOp",
):  # fmt: skip
    no_gradient(_op)


@RegisterGradient("ReadVariableOp")
def _read_grad(op: Any, grad: Any) -> Any:
    return grad


@RegisterGradient("ResourceGather")
def _resource_gather_grad(op: Any, grad: Any) -> list[Any]:
    handle, indices = op.inputs
    if op.get_attr("batch_dims") != 0:
        raise NotImplementedError("The gradient of ResourceGather with batch_dims != 0 is not implemented.")
    variable_shape = apply_op("VariableShape", input=handle)
    size = array_ops.expand_dims(array_ops.size(indices), 0)
    values_shape = array_ops.concat([size, variable_shape[1:]], 0)
    values = array_ops.reshape(grad, values_shape)
    indices = array_ops.reshape(indices, size)
    return [IndexedSlices(values, indices, variable_shape), None]


@RegisterGradient("ResourceGatherNd")
def _resource_gather_nd_grad(op: Any, grad: Any) -> list[Any]:
    """GatherNd's gradient for a variable: ``IndexedSlices`` rows for ``[N, 1]`` indices, else a ``ScatterNd``."""
    from modtensor.api.gradients.array_grad import _gather_nd_grad_of

    handle, indices = op.inputs
    variable_shape = apply_op("VariableShape", input=handle, out_type=indices.dtype)
    return [_gather_nd_grad_of(grad, indices, variable_shape), None]
