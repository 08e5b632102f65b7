"""CPU kernels of the variable ops that compute: AssignAdd/AssignSub, ResourceGather(Nd), ResourceScatter*.

They update the variable's value in place under its lock, after copying it when
anything else still holds it (``prepare_to_update``: TF's copy-on-write), with
TF's checks and error texts.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.framework import errors
from modtensor.kernels.cpu import array as array_kernels
from modtensor.runtime.kernel_registry import KernelRegistration, KernelRegistry
from modtensor.runtime.op_kernel import OpKernel, OpKernelConstruction, OpKernelContext
from modtensor.runtime.resource_variable import prepare_to_update, variable_for_update

__all__ = ["VARIABLE_OPS", "register_variable_cpu_kernels"]

SOURCE = "modtensor.kernels.cpu"

_FLOATS = ["half", "bfloat16", "float32", "float64"]
_INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
_COMPLEX = ["complex64", "complex128"]
NUMBER_TYPES = [*_FLOATS, *_INTS, *_COMPLEX]  # TF_CALL_NUMBER_TYPES
REAL_NUMBER_TYPES = [*_FLOATS, *_INTS]  # TF_CALL_REAL_NUMBER_TYPES
INDEX_TYPES = ["int32", "int64"]


def _dims(shape: Any) -> str:
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


class AssignUpdateVariableKernel(OpKernel):
    """AssignAddVariableOp / AssignSubVariableOp: the variable's value plus/minus ``value``, in place."""

    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        self._ufunc = np.add if ctx.type == "AssignAddVariableOp" else np.subtract

    def compute(self, ctx: OpKernelContext) -> None:
        """Update the variable."""
        var = variable_for_update(ctx, 0)
        value = ctx.inputs[1]
        with var.mu:
            if tuple(var.tensor.shape) != tuple(value.shape):
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Cannot update variable with shape {_dims(var.tensor.shape)} using a Tensor with shape "
                    f"{_dims(value.shape)}, shapes must be equal.",
                )
            target = prepare_to_update(ctx, var)
            self._ufunc(target, value, out=target)


class ResourceGatherKernel(OpKernel):
    """ResourceGather: rows of the variable's value picked by ``indices`` (``batch_dims`` as GatherV2's)."""

    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        self._batch_dims = int(ctx.get_attr("batch_dims"))

    def compute(self, ctx: OpKernelContext) -> None:
        """Gather."""
        var = variable_for_update(ctx, 0)
        indices = ctx.inputs[1]
        with var.mu:
            params = var.tensor
            if params.ndim < 1:
                raise errors.InvalidArgumentError(None, None, "params must be at least 1 dimensional")
            if params.ndim < self._batch_dims:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"params must have at least {self._batch_dims} (batch_dims) dimensions but it has shape "
                    f"{_dims(params.shape)}",
                )
            axis = np.array(self._batch_dims, dtype=np.int64)
            ctx.outputs[0] = array_kernels.gather_v2(params, indices, axis, batch_dims=self._batch_dims)


class ResourceGatherNdKernel(OpKernel):
    """ResourceGatherNd: slices of the variable's value at the index tuples of ``indices``' last dimension."""

    def compute(self, ctx: OpKernelContext) -> None:
        """Gather slices."""
        var = variable_for_update(ctx, 0)
        indices = np.asarray(ctx.inputs[1])
        with var.mu:
            params = var.tensor
            depth = indices.shape[-1] if indices.ndim else 0
            if indices.ndim < 1 or depth > params.ndim:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"index innermost dimension length must be <= params rank; saw: {depth} vs. {params.ndim}",
                )
            flat = indices.reshape(-1, depth)
            for row, index in enumerate(flat):
                for axis, i in enumerate(index):
                    if not 0 <= i < params.shape[axis]:
                        where = ", ".join(str(int(x)) for x in np.unravel_index(row, indices.shape[:-1]))
                        raise errors.InvalidArgumentError(
                            None,
                            None,
                            f"indices[{where}] = [{', '.join(str(int(x)) for x in index)}] does not index into "
                            f"param shape {_dims(params.shape)}, node name: {self.name}",
                        )
            picked = params[tuple(flat.T)] if depth else np.broadcast_to(params, (flat.shape[0], *params.shape))
            ctx.outputs[0] = np.ascontiguousarray(picked.reshape(indices.shape[:-1] + params.shape[depth:]))


_SCATTER = {
    "ResourceScatterAdd": np.add,
    "ResourceScatterSub": np.subtract,
    "ResourceScatterMul": np.multiply,
    "ResourceScatterDiv": None,  # division: integers divide as C does (truncating)
    "ResourceScatterMin": np.minimum,
    "ResourceScatterMax": np.maximum,
    "ResourceScatterUpdate": None,
}


def _divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype.kind in "iu":
        with np.errstate(divide="raise"):
            quotient = np.abs(a) // np.abs(b)
        return (np.sign(a) * np.sign(b) * quotient).astype(a.dtype)
    return a / b


class ResourceScatterKernel(OpKernel):
    """ResourceScatter{Add,Sub,Mul,Div,Min,Max,Update}: combine ``updates`` into the rows ``indices`` names,
    in index order (repeated indices accumulate), as TF's scatter functor."""

    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        self._op = ctx.type
        self._ufunc = _SCATTER[ctx.type]

    def compute(self, ctx: OpKernelContext) -> None:
        """Scatter into the variable."""
        var = variable_for_update(ctx, 0)
        indices = np.asarray(ctx.inputs[1])
        updates = ctx.inputs[2]
        with var.mu:
            params = var.tensor
            if params.ndim < 1:
                raise errors.InvalidArgumentError(None, None, "params must be at least 1 dimensional")
            flat = indices.reshape(-1)
            n = flat.size
            scalar = updates.ndim == 0
            expected = tuple(indices.shape) + tuple(params.shape[1:])
            if not scalar and tuple(updates.shape) != expected:
                if tuple(updates.shape[: indices.ndim]) != tuple(indices.shape):
                    message = (
                        f"The shape of indices ({_dims(indices.shape)}) must be a prefix of the shape of updates "
                        f"({_dims(updates.shape)})"
                    )
                else:
                    message = (
                        f"Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], got "
                        f"updates.shape {_dims(updates.shape)}, indices.shape {_dims(indices.shape)}, params.shape "
                        f"{_dims(params.shape)}"
                    )
                raise errors.InvalidArgumentError(None, None, message)
            limit = params.shape[0]
            bad = np.flatnonzero((flat < 0) | (flat >= limit))
            if bad.size:
                i = int(bad[0])
                raise errors.InvalidArgumentError(
                    None, None, f"indices[{i}] = {int(flat[i])} is not in [0, {limit})"
                )
            target = prepare_to_update(ctx, var)
            rows = np.broadcast_to(updates, (n, *params.shape[1:])) if scalar else updates.reshape(n, *params.shape[1:])
            if self._op == "ResourceScatterUpdate":
                target[flat] = rows  # later duplicates win, as TF's sequential update
            elif self._op == "ResourceScatterDiv":
                for k in range(n):
                    target[flat[k]] = _divide(target[flat[k]], rows[k])
            else:
                self._ufunc.at(target, flat, rows)


VARIABLE_OPS = ("AssignAddVariableOp", "AssignSubVariableOp", "ResourceGather", "ResourceGatherNd", *_SCATTER)


def register_variable_cpu_kernels(registry: KernelRegistry) -> list[KernelRegistration]:
    """Register the computing variable kernels for CPU with TF 2.21's CPU type constraints."""
    regs = []
    for op in ("AssignAddVariableOp", "AssignSubVariableOp"):
        regs.append(
            registry.register(op, "CPU", AssignUpdateVariableKernel, constraints={"dtype": NUMBER_TYPES}, source=SOURCE)
        )
    gather_types = [*NUMBER_TYPES, "bool", "string", "variant"]
    regs.append(
        registry.register(
            "ResourceGather",
            "CPU",
            ResourceGatherKernel,
            constraints={"dtype": [t for t in gather_types if t != "variant"], "Tindices": INDEX_TYPES},
            source=SOURCE,
        )
    )
    regs.append(
        registry.register(
            "ResourceGatherNd",
            "CPU",
            ResourceGatherNdKernel,
            constraints={"dtype": [t for t in gather_types if t != "variant"], "Tindices": INDEX_TYPES},
            source=SOURCE,
        )
    )
    for op in _SCATTER:
        if op == "ResourceScatterUpdate":
            types = [*NUMBER_TYPES, "bool", "string"]
        elif op in ("ResourceScatterMin", "ResourceScatterMax"):
            types = REAL_NUMBER_TYPES
        else:
            types = NUMBER_TYPES
        regs.append(
            registry.register(
                op, "CPU", ResourceScatterKernel, constraints={"dtype": types, "Tindices": INDEX_TYPES}, source=SOURCE
            )
        )
    return regs

