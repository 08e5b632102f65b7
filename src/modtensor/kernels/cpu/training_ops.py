"""CPU kernels of the training ops: the optimizers' fused in-place updates of resource variables.

Each kernel takes its variables' locks (in a fixed order), makes their values safe to
write (copy-on-write, ``prepare_to_update``), checks what TensorFlow's kernel checks
with the same texts, and applies TensorFlow's update expression element by element
in the variable's dtype, with TF's order of operations (training_ops.cc), so float32
results match TensorFlow's bit for bit where TF's CPU kernel uses no approximate
instruction (TF's ``rsqrt`` in Adagrad v1 and the sparse RMSProp forms is Eigen's
fast approximation: those agree to a few ulps).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import numpy as np

from modtensor.framework import errors
from modtensor.framework.protos import types_pb2
from modtensor.kernels.cpu.fp_quiet import ignoring_fp_errors
from modtensor.runtime import resource_mgr
from modtensor.runtime.kernel_registry import KernelRegistration, KernelRegistry
from modtensor.runtime.op_kernel import OpKernel, OpKernelConstruction, OpKernelContext
from modtensor.runtime.resource_variable import Var, prepare_to_update

__all__ = ["TRAINING_OPS", "register_training_cpu_kernels"]

SOURCE = "modtensor.kernels.cpu"
_FLOAT_COMPLEX = ["half", "bfloat16", "float32", "float64", "complex64", "complex128"]  # TF_CALL_FLOAT + COMPLEX
_INDEX_TYPES = ["int32", "int64"]


def _dims(shape: Any) -> str:
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


# ------------------------------------------------------------------------------ dense update rules
# Each takes the variables' writable values, then the other inputs (scalars as numpy scalars of T), then attrs.


def _gradient_descent(var: np.ndarray, alpha: Any, delta: np.ndarray, **_: Any) -> None:
    var -= delta * alpha


def _momentum(var: np.ndarray, accum: np.ndarray, lr: Any, grad: np.ndarray, momentum: Any, *, use_nesterov: bool,
              **_: Any) -> None:  # fmt: skip
    accum *= momentum
    accum += grad
    if use_nesterov:
        var -= grad * lr + accum * momentum * lr
    else:
        var -= accum * lr


def _keras_momentum(var: np.ndarray, accum: np.ndarray, lr: Any, grad: np.ndarray, momentum: Any, *,
                    use_nesterov: bool, **_: Any) -> None:  # fmt: skip
    accum *= momentum
    accum -= grad * lr
    if use_nesterov:
        var += accum * momentum - grad * lr
    else:
        var += accum


def _adam_alpha(lr: Any, beta1_power: Any, beta2_power: Any) -> Any:
    one = type(lr)(1)
    return lr * np.sqrt(one - beta2_power) / (one - beta1_power)


def _adam(var: np.ndarray, m: np.ndarray, v: np.ndarray, beta1_power: Any, beta2_power: Any, lr: Any, beta1: Any,
          beta2: Any, epsilon: Any, grad: np.ndarray, *, use_nesterov: bool, **_: Any) -> None:  # fmt: skip
    one = type(lr)(1)
    alpha = _adam_alpha(lr, beta1_power, beta2_power)
    m += (grad - m) * (one - beta1)
    v += (grad * grad - v) * (one - beta2)
    if use_nesterov:
        var -= ((grad * (one - beta1) + beta1 * m) * alpha) / (np.sqrt(v) + epsilon)
    else:
        var -= (m * alpha) / (np.sqrt(v) + epsilon)


def _adam_amsgrad(var: np.ndarray, m: np.ndarray, v: np.ndarray, vhat: np.ndarray, beta1_power: Any,
                  beta2_power: Any, lr: Any, beta1: Any, beta2: Any, epsilon: Any, grad: np.ndarray,
                  **_: Any) -> None:  # fmt: skip
    one = type(lr)(1)
    alpha = _adam_alpha(lr, beta1_power, beta2_power)
    m += (grad - m) * (one - beta1)
    v += (grad * grad - v) * (one - beta2)
    np.maximum(vhat, v, out=vhat)
    var -= (m * alpha) / (np.sqrt(vhat) + epsilon)


def _rsqrt(x: np.ndarray) -> np.ndarray:
    return type(x.flat[0])(1) / np.sqrt(x) if x.size else x


def _adagrad(var: np.ndarray, accum: np.ndarray, lr: Any, grad: np.ndarray, *, update_slots: bool, **_: Any) -> None:
    if update_slots:
        accum += grad * grad
    var -= grad * lr * _rsqrt(accum)


def _adagrad_v2(var: np.ndarray, accum: np.ndarray, lr: Any, epsilon: Any, grad: np.ndarray, *, update_slots: bool,
                **_: Any) -> None:  # fmt: skip
    if update_slots:
        accum += grad * grad
    var -= grad * lr / (np.sqrt(accum) + epsilon)


def _rmsprop(var: np.ndarray, ms: np.ndarray, mom: np.ndarray, lr: Any, rho: Any, momentum: Any, epsilon: Any,
             grad: np.ndarray, **_: Any) -> None:  # fmt: skip
    one = type(lr)(1)
    ms += (grad * grad - ms) * (one - rho)
    mom *= momentum
    mom += (grad * lr) / np.sqrt(ms + epsilon)
    var -= mom


def _centered_rmsprop(var: np.ndarray, mg: np.ndarray, ms: np.ndarray, mom: np.ndarray, lr: Any, rho: Any,
                      momentum: Any, epsilon: Any, grad: np.ndarray, **_: Any) -> None:  # fmt: skip
    one = type(lr)(1)
    ms += (grad * grad - ms) * (one - rho)
    mg += (grad - mg) * (one - rho)
    denom = (ms - mg * mg) + epsilon
    mom *= momentum
    mom += (grad * lr) / np.sqrt(denom)
    var -= mom


# ------------------------------------------------------------------------------ sparse update rules (one row)
# Called per index in order: `rows` are the variables' rows at that index (views), `g` the gradient row.


def _sparse_momentum(rows: list[np.ndarray], g: np.ndarray, lr: Any, momentum: Any, *, use_nesterov: bool,
                     **_: Any) -> None:  # fmt: skip
    v, a = rows
    a[...] = a * momentum + g
    if use_nesterov:
        v -= lr * g + (lr * momentum) * a
    else:
        v -= lr * a


def _sparse_keras_momentum(rows: list[np.ndarray], g: np.ndarray, lr: Any, momentum: Any, *, use_nesterov: bool,
                           **_: Any) -> None:  # fmt: skip
    v, a = rows
    a[...] = a * momentum - g * lr
    if use_nesterov:
        v += a * momentum - g * lr
    else:
        v += a


def _sparse_adagrad(rows: list[np.ndarray], g: np.ndarray, lr: Any, epsilon: Any = None, *, update_slots: bool,
                    **_: Any) -> None:  # fmt: skip
    v, a = rows
    if update_slots:
        a += g * g
    if epsilon is None:
        v -= lr * g * _rsqrt(a)
    else:
        v -= lr * g / (np.sqrt(a) + epsilon)


def _sparse_adagrad_v2(rows: list[np.ndarray], g: np.ndarray, lr: Any, epsilon: Any, *, update_slots: bool,
                       **_: Any) -> None:  # fmt: skip
    _sparse_adagrad(rows, g, lr, epsilon, update_slots=update_slots)


def _sparse_rmsprop(rows: list[np.ndarray], g: np.ndarray, lr: Any, rho: Any, momentum: Any, epsilon: Any,
                    **_: Any) -> None:  # fmt: skip
    v, ms, mom = rows
    one = type(lr)(1)
    ms[...] = ms * rho + g * g * (one - rho)
    mom[...] = mom * momentum + _rsqrt(ms + epsilon) * lr * g
    v -= mom


def _sparse_centered_rmsprop(rows: list[np.ndarray], g: np.ndarray, lr: Any, rho: Any, momentum: Any, epsilon: Any,
                             **_: Any) -> None:  # fmt: skip
    v, mg, ms, mom = rows
    one = type(lr)(1)
    ms[...] = ms * rho + g * g * (one - rho)
    mg[...] = mg * rho + g * (one - rho)
    denom = ms + epsilon - mg * mg
    mom[...] = mom * momentum + _rsqrt(denom) * lr * g
    v -= mom


_DENSE: dict[str, Callable[..., None]] = {
    "ResourceApplyGradientDescent": _gradient_descent,
    "ResourceApplyMomentum": _momentum,
    "ResourceApplyKerasMomentum": _keras_momentum,
    "ResourceApplyAdam": _adam,
    "ResourceApplyAdamWithAmsgrad": _adam_amsgrad,
    "ResourceApplyAdagrad": _adagrad,
    "ResourceApplyAdagradV2": _adagrad_v2,
    "ResourceApplyRMSProp": _rmsprop,
    "ResourceApplyCenteredRMSProp": _centered_rmsprop,
}
_SPARSE: dict[str, Callable[..., None]] = {
    "ResourceSparseApplyMomentum": _sparse_momentum,
    "ResourceSparseApplyKerasMomentum": _sparse_keras_momentum,
    "ResourceSparseApplyAdagrad": _sparse_adagrad,
    "ResourceSparseApplyAdagradV2": _sparse_adagrad_v2,
    "ResourceSparseApplyRMSProp": _sparse_rmsprop,
    "ResourceSparseApplyCenteredRMSProp": _sparse_centered_rmsprop,
}
TRAINING_OPS = (*_DENSE, *_SPARSE)  # the ops with a CPU kernel here
# Kernels whose "lr is not a scalar" message has a space before the colon in TF 2.21.
_LR_SPACED = frozenset({"ResourceApplyAdam", "ResourceApplyAdamWithAmsgrad", "ResourceSparseApplyMomentum",
                        "ResourceSparseApplyKerasMomentum"})  # fmt: skip
_TENSOR_ARGS = frozenset({"grad", "delta", "indices"})


@contextlib.contextmanager
def _locked(variables: list[Var]) -> Any:
    """Hold every variable's lock, taken in one global order (TF's MaybeLockVariableInputMutexesInOrder)."""
    ordered = sorted({id(v): v for v in variables}.values(), key=id)
    with contextlib.ExitStack() as stack:
        for var in ordered:
            stack.enter_context(var.mu)
        yield


class ApplyKernel(OpKernel):
    """One ResourceApply*/ResourceSparseApply* op: TF's checks, then its update rule on the locked values."""

    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        self._sparse = ctx.type in _SPARSE
        self._rule = _SPARSE[ctx.type] if self._sparse else _DENSE[ctx.type]
        args = list(ctx.op_def.input_arg)
        self._resources = [i for i, a in enumerate(args) if a.type == types_pb2.DT_RESOURCE]
        self._resource_names = [args[i].name for i in self._resources]
        self._scalars = [(i, a.name) for i, a in enumerate(args) if a.type != types_pb2.DT_RESOURCE and a.name not in
                         _TENSOR_ARGS]  # fmt: skip
        names = [a.name for a in args]
        self._grad = names.index("grad") if "grad" in names else names.index("delta")
        self._grad_name = names[self._grad]
        self._indices = names.index("indices") if self._sparse else -1
        self._grad_position = sum(1 for i, _ in self._scalars if i < self._grad)
        self._attrs = {k: bool(ctx.get_attr(k)) for k in ("use_nesterov", "update_slots") if ctx.has_attr(k)}

    def _requested(self, ctx: OpKernelContext, index: int) -> str:
        """TF's requested_input(i): the node's input name (eager nodes have none: the variable's name)."""
        inputs = self.node_def.input
        return inputs[index] if index < len(inputs) else resource_mgr.handle_from_input(ctx, index).name

    @ignoring_fp_errors
    def compute(self, ctx: OpKernelContext) -> None:
        """Apply the update."""
        try:
            variables = [resource_mgr.lookup_resource(ctx, resource_mgr.handle_from_input(ctx, i), Var) for i in
                         self._resources]  # fmt: skip
        except errors.NotFoundError:
            raise errors.InternalError(None, None, "Invalid variable reference.") from None  # TF's text
        with _locked(variables):
            for i, var in zip(self._resources, variables, strict=True):
                if var.tensor is None:
                    raise errors.FailedPreconditionError(
                        None, None, f"Attempting to use uninitialized variables: {self._requested(ctx, i)}"
                    )
            inputs = ctx.inputs
            scalars = []
            for i, name in self._scalars:
                value = inputs[i]
                if value.ndim != 0:
                    colon = " :" if name == "lr" and self.type_string in _LR_SPACED else ":"  # TF's texts vary so
                    raise errors.InvalidArgumentError(None, None, f"{name} is not a scalar{colon} {_dims(value.shape)}")
                scalars.append(value[()])
            grad = inputs[self._grad]
            first = variables[0].tensor
            for name, var in zip(self._resource_names[1:], variables[1:], strict=True):
                if var.tensor.shape != first.shape:
                    raise errors.InvalidArgumentError(
                        None,
                        None,
                        f"{self._resource_names[0]} and {name} do not have the same shape"
                        f"{_dims(first.shape)} {_dims(var.tensor.shape)}",
                    )
            if self._sparse:
                self._apply_sparse(ctx, variables, scalars, grad, inputs[self._indices])
                return
            if first.shape != grad.shape:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"{self._resource_names[0]} and {self._grad_name} do not have the same shape"
                    f"{_dims(first.shape)} {_dims(grad.shape)}",
                )
            values = [prepare_to_update(ctx, var) for var in variables]
            rest = list(scalars)
            rest.insert(self._grad_position, grad)  # the dense rules take the non-resource inputs in op order
            self._rule(*values, *rest, **self._attrs)

    def _apply_sparse(
        self, ctx: OpKernelContext, variables: list[Var], scalars: list[Any], grad: np.ndarray, indices: np.ndarray
    ) -> None:
        first = variables[0].tensor
        if first.ndim < 1:
            raise errors.InvalidArgumentError(None, None, "var must be at least 1 dimensional")
        if indices.ndim != 1:
            raise errors.InvalidArgumentError(None, None, "indices must be one-dimensional")
        for d in range(1, first.ndim):
            if d >= grad.ndim or first.shape[d] != grad.shape[d]:
                raise errors.InvalidArgumentError(None, None, f"var and grad must match in dimension {d}")
        n = indices.shape[0]
        if grad.ndim < 1 or grad.shape[0] != n:
            raise errors.InvalidArgumentError(
                None, None, "grad must be the same size as indices in the first dimension."
            )
        limit = first.shape[0]
        for offset, index in enumerate(indices.tolist()):
            if not 0 <= index < limit:
                if self.type_string == "ResourceSparseApplyKerasMomentum":  # its functor reports TF's gather text
                    message = f"indices[{offset}] = {index} is not in [0, {limit})"
                else:
                    message = f"Index {index} at offset {offset} in indices is out of range"
                raise errors.InvalidArgumentError(None, None, message)
        values = [prepare_to_update(ctx, var) for var in variables]
        rule, attrs = self._rule, self._attrs
        for offset, index in enumerate(indices.tolist()):
            rule([value[index] for value in values], grad[offset], *scalars, **attrs)


def register_training_cpu_kernels(registry: KernelRegistry) -> list[KernelRegistration]:
    """Register every training op's CPU kernel (TF's CPU types: half, bfloat16, float, double, complex)."""
    regs = []
    for op in _DENSE:
        types = _FLOAT_COMPLEX if op != "ResourceApplyAdamWithAmsgrad" else _FLOAT_COMPLEX[:4]
        regs.append(registry.register(op, "CPU", ApplyKernel, constraints={"T": types}, source=SOURCE))
    for op in _SPARSE:
        types = [t for t in _FLOAT_COMPLEX if t != "bfloat16"] if "RMSProp" in op else _FLOAT_COMPLEX
        regs.append(
            registry.register(
                op, "CPU", ApplyKernel, constraints={"T": types, "Tindices": _INDEX_TYPES}, source=SOURCE
            )
        )
    return regs
