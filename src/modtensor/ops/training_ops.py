"""Training ops: the optimizers' fused updates of resource variables (``ResourceApply*``, ``ResourceSparseApply*``).

OpDefs equal TensorFlow 2.21's. Shape functions check what TF's do without the
variables' handle data: hyperparameters are scalars; for the sparse forms ``indices``
is a vector and ``grad`` has a first dimension equal to its length.
"""

from __future__ import annotations

from modtensor.framework import errors
from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import InferenceContext
from modtensor.ops._shape_errors import invalid


def _apply_shape(scalars: tuple[str, ...], sparse: bool) -> object:
    """A shape fn checking the scalar inputs (by name) and, for sparse forms, grad against indices."""

    def shape_fn(ctx: InferenceContext) -> None:
        for name in scalars:
            (index,) = range(*_arg_range(ctx, name))
            ctx.with_rank(ctx.input(index), 0)
        if sparse:
            (grad,) = range(*_arg_range(ctx, "grad"))
            (indices,) = range(*_arg_range(ctx, "indices"))
            idx = ctx.with_rank(ctx.input(indices), 1)
            g = ctx.with_rank_at_least(ctx.input(grad), 1)
            try:
                ctx.merge_dim(ctx.dim(idx, 0), ctx.dim(g, 0))
            except errors.InvalidArgumentError as exc:
                raise invalid(f"{exc.message}") from None

    return shape_fn


def _arg_range(ctx: InferenceContext, name: str) -> tuple[int, int]:
    names = [arg.name for arg in ctx.op_def.input_arg]  # every input of these ops is a single tensor
    return names.index(name), names.index(name) + 1


_T = "T: numbertype"
_LOCKING = "use_locking: bool = false"
_NESTEROV = "use_nesterov: bool = false"
_UPDATE_SLOTS = "update_slots: bool = true"
_TINDICES = "Tindices: {int32, int64}"


def _apply(
    name: str, resources: tuple[str, ...], tensors: tuple[str, ...], attrs: tuple[str, ...], scalars: tuple[str, ...]
) -> None:
    """Register a training op: resource inputs, then tensor inputs, then attrs; stateful, with its shape fn."""
    builder = register_op(name)
    for r in resources:
        builder = builder.input(f"{r}: resource")
    for t in tensors:
        builder = builder.input(f"{t}: Tindices" if t == "indices" else f"{t}: T")
    for a in attrs:
        builder = builder.attr(a)
    builder.set_is_stateful().set_shape_fn(_apply_shape(scalars, "indices" in tensors))


_apply("ResourceApplyGradientDescent", ("var",), ("alpha", "delta"), (_T, _LOCKING), ("alpha",))
for _op in ("ResourceApplyMomentum", "ResourceApplyKerasMomentum"):
    _apply(_op, ("var", "accum"), ("lr", "grad", "momentum"), (_T, _LOCKING, _NESTEROV), ("lr", "momentum"))
_apply(
    "ResourceApplyAdam",
    ("var", "m", "v"),
    ("beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad"),
    (_T, _LOCKING, _NESTEROV),
    ("beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon"),
)
_apply(
    "ResourceApplyAdamWithAmsgrad",
    ("var", "m", "v", "vhat"),
    ("beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad"),
    (_T, _LOCKING),
    ("beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon"),
)
_apply("ResourceApplyAdagrad", ("var", "accum"), ("lr", "grad"), (_T, _LOCKING, _UPDATE_SLOTS), ("lr",))
_apply(
    "ResourceApplyAdagradV2",
    ("var", "accum"),
    ("lr", "epsilon", "grad"),
    (_T, _LOCKING, _UPDATE_SLOTS),
    ("lr", "epsilon"),
)
_apply(
    "ResourceApplyRMSProp",
    ("var", "ms", "mom"),
    ("lr", "rho", "momentum", "epsilon", "grad"),
    (_T, _LOCKING),
    ("lr", "rho", "momentum", "epsilon"),
)
_apply(
    "ResourceApplyCenteredRMSProp",
    ("var", "mg", "ms", "mom"),
    ("lr", "rho", "momentum", "epsilon", "grad"),
    (_T, _LOCKING),
    ("lr", "rho", "momentum", "epsilon"),
)

# Sparse forms (embeddings): rows `indices` of the variable get the update with the rows of `grad`.
for _op in ("ResourceSparseApplyMomentum", "ResourceSparseApplyKerasMomentum"):
    _apply(
        _op,
        ("var", "accum"),
        ("lr", "grad", "indices", "momentum"),
        (_T, _TINDICES, _LOCKING, _NESTEROV),
        ("lr", "momentum"),
    )
_apply(
    "ResourceSparseApplyAdagrad",
    ("var", "accum"),
    ("lr", "grad", "indices"),
    (_T, _TINDICES, _LOCKING, _UPDATE_SLOTS),
    ("lr",),
)
_apply(
    "ResourceSparseApplyAdagradV2",
    ("var", "accum"),
    ("lr", "epsilon", "grad", "indices"),
    (_T, _TINDICES, _LOCKING, _UPDATE_SLOTS),
    ("lr", "epsilon"),
)
_apply(
    "ResourceSparseApplyRMSProp",
    ("var", "ms", "mom"),
    ("lr", "rho", "momentum", "epsilon", "grad", "indices"),
    (_T, _TINDICES, _LOCKING),
    ("lr", "rho", "momentum", "epsilon"),
)
_apply(
    "ResourceSparseApplyCenteredRMSProp",
    ("var", "mg", "ms", "mom"),
    ("lr", "rho", "momentum", "epsilon", "grad", "indices"),
    (_T, _TINDICES, _LOCKING),
    ("lr", "rho", "momentum", "epsilon"),
)
