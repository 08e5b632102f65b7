"""``modtensor.optimizers``: Keras 3's optimizers (names, arguments, update rules), applied by TF's fused kernels.

``tf.keras.optimizers`` belongs to Keras; modtensor provides the same classes here:
``SGD`` (momentum, nesterov), ``Adam`` (amsgrad), ``AdamW``, ``Adagrad``, ``RMSprop``
(momentum, centered). ``apply_gradients(zip(grads, variables))`` creates the slot variables
on first use (lifted out of a function being traced, as Keras's are created eagerly),
applies the optional gradient clipping and weight decay, runs one training op per
variable and counts ``iterations``.

Each update is one TF training kernel (``ResourceApplyGradientDescent``,
``ResourceApplyKerasMomentum``, ``ResourceApplyAdam``, ``ResourceApplyAdamWithAmsgrad``,
``ResourceApplyAdagradV2``, ``ResourceApplyRMSProp``, ``ResourceApplyCenteredRMSProp``), so a
device plugin implements a whole update as one kernel. Keras 3 writes the same rules as
elementwise ops: SGD and momentum agree to float32 rounding; Adam and RMSprop differ by about
1e-5 relative per step, because TF's kernels compute ``1 - beta_1``, ``1 - beta_2`` and
``1 - rho`` in the variable's dtype where Keras 3 takes them from Python floats (and TF's
RMSprop writes its average as ``ms + (g * g - ms) * (1 - rho)``); TF's Adagrad kernel divides by
``sqrt(accumulator) + epsilon``, Keras 3 by ``sqrt(accumulator + epsilon)``. A long run drifts
accordingly (``examples/train_mlp.py --layers nn``: 1e-4 of loss after 50 Adam steps); Keras 3's
rule op by op (below) reproduces Keras 3's numbers to float32 rounding.

Where a variable's device has no kernel for the fused op (a device plugin that implements
only the assign ops, as Keras 3 needs), the update runs Keras 3's rule op by op instead
(``AssignVariableOp``/``AssignAddVariableOp``/``AssignSubVariableOp`` on the variable's
device, the arithmetic wherever it has kernels), exactly as Keras 3 computes it.

Sparse gradients (``IndexedSlices``, the gradients of gathers and embedding lookups) are
applied as Keras 3 applies them to TF variables: ``SGD`` without momentum subtracts
``learning_rate * values`` from the rows (``ResourceScatterSub``); ``Adagrad`` adds the
squared rows to its accumulator (``ResourceScatterAdd``) and subtracts the scaled rows;
``RMSprop`` keeps its moving averages dense and subtracts the increment from the rows (or
through its dense momentum); ``Adam`` and ``AdamW`` update ``m`` with the densified gradient
and ``v`` with the densified squared rows (op by op: repeated rows are squared before they
are summed, which no fused kernel does); ``SGD`` with momentum densifies the gradient (Keras
3's rule mixes it with its dense slot) and applies its fused kernel. On a device without scatter
kernels the rows are densified and assigned instead.

``minimize(loss, var_list, tape=None)`` is the ``minimize`` of Keras 2's optimizers (Keras 3
dropped it; TensorFlow 1 and 2 code calls it): a callable ``loss`` is recorded on a new
``GradientTape`` (watching ``var_list``; a callable ``var_list`` is called after the loss, so
it may name variables the loss created), a tensor ``loss`` needs the ``tape`` that recorded
it; then ``apply_gradients``.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from typing import Any

from modtensor.api import device_kernels, math_ops
from modtensor.api.dispatch import apply_op
from modtensor.api.indexed_slices import IndexedSlices
from modtensor.api.op_scope import convert_to_tensor
from modtensor.api.trackable import ListWrapper, Trackable
from modtensor.api.variables import Variable, init_scope
from modtensor.framework import dtypes

__all__ = ["SGD", "Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop"]

_names: dict[str, int] = {}


def _auto_name(cls_name: str) -> str:
    """Keras's auto_name: the snake_case class name, numbered after the first (``adam``, ``adam_1``)."""
    snake = "".join("_" + c.lower() if c.isupper() and i and not cls_name[i - 1].isupper() else c.lower()
                    for i, c in enumerate(cls_name))  # fmt: skip
    count = _names.get(snake, 0)
    _names[snake] = count + 1
    return snake if count == 0 else f"{snake}_{count}"


class Optimizer(Trackable):
    """Keras 3's optimizer base: learning rate (float, schedule or callable), iterations, slots, clipping,
    weight decay. Subclasses define ``build`` (their slot variables) and ``update_step``.

    Trackable with Keras 3's checkpoint keys (``optimizer/_iterations``, ``optimizer/_learning_rate``,
    ``optimizer/_variables/<i>`` for the slots in creation order): a checkpoint restored before the
    first ``apply_gradients`` fills the slots when ``build`` makes them (deferred restoration).
    """

    def __init__(
        self,
        learning_rate: Any,
        weight_decay: float | None = None,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        use_ema: bool = False,
        ema_momentum: float = 0.99,
        ema_overwrite_frequency: int | None = None,
        loss_scale_factor: float | None = None,
        gradient_accumulation_steps: int | None = None,
        name: str | None = None,
        **kwargs: Any,
    ):
        if kwargs:
            raise ValueError(f"Argument(s) not recognized: {kwargs}")
        if use_ema or gradient_accumulation_steps:
            raise NotImplementedError(
                "modtensor.optimizers does not support use_ema or gradient_accumulation_steps yet"
            )
        del ema_momentum, ema_overwrite_frequency
        if sum(a is not None for a in (clipnorm, clipvalue, global_clipnorm)) > 1:
            raise ValueError(
                "Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set. Received: "
                f"clipnorm={clipnorm}, clipvalue={clipvalue}, global_clipnorm={global_clipnorm}"
            )
        self.name = name or _auto_name(type(self).__name__)
        self.weight_decay = weight_decay
        self.clipnorm = clipnorm
        self.clipvalue = clipvalue
        self.global_clipnorm = global_clipnorm
        self.loss_scale_factor = loss_scale_factor
        self.built = False
        self._slots: dict[Any, dict[str, Variable]] = {}  # variable ref -> slot name -> slot variable
        self._variables: list[Variable] = ListWrapper()  # slots appended here get deferred restorations
        self._trainable_variables: list[Variable] = []
        self._step_cache: dict[Any, Any] | None = None
        # The step count and learning rate are host scalars (a device plugin need not have int64 kernels).
        with init_scope(), _host_device():
            self._iterations = Variable(0, name=f"{self.name}/iteration", dtype=dtypes.int64, trainable=False)
            self._variables.append(self._iterations)
            if callable(learning_rate):
                self._learning_rate: Any = learning_rate
            else:
                if not isinstance(learning_rate, float):
                    raise ValueError(
                        "Argument `learning_rate` should be float, or an instance of LearningRateSchedule, or a "
                        "callable (that takes in the current iteration value and returns the corresponding "
                        f"learning rate value). Received instead: learning_rate={learning_rate}"
                    )
                self._learning_rate = Variable(
                    learning_rate, name=f"{self.name}/learning_rate", dtype=dtypes.float32, trainable=False
                )
                self._variables.append(self._learning_rate)

    def _trackable_children(self, save_type: str = "checkpoint") -> dict[str, Any]:
        """Keras 3's tracked attributes: ``_iterations``, ``_learning_rate``, ``_variables``,
        ``_trainable_variables``."""
        del save_type
        children: dict[str, Any] = {"_iterations": self._iterations}
        if isinstance(self._learning_rate, Variable):
            children["_learning_rate"] = self._learning_rate
        children["_variables"] = self._variables
        children["_trainable_variables"] = ListWrapper(self._trainable_variables)
        return children

    # ------------------------------------------------------------------ state

    @property
    def iterations(self) -> Variable:
        """How many times ``apply_gradients`` ran (an int64 variable)."""
        return self._iterations

    @property
    def learning_rate(self) -> Any:
        """The current learning rate (a schedule is evaluated at ``iterations``)."""
        rate = self._learning_rate
        if isinstance(rate, Variable):
            return rate
        try:
            return rate(self._iterations)  # a LearningRateSchedule takes the step
        except TypeError:
            return rate()

    @learning_rate.setter
    def learning_rate(self, value: Any) -> None:
        if isinstance(self._learning_rate, Variable) and not callable(value):
            self._learning_rate.assign(value)
        else:
            self._learning_rate = value

    @property
    def variables(self) -> list[Variable]:
        """The optimizer's own variables: iterations, learning rate, then the slots."""
        return list(self._variables)

    def get_slot(self, variable: Variable, name: str) -> Variable:
        """The slot ``name`` (``momentum``, ``velocity``, ...) of ``variable``."""
        return self._slots[variable.ref()][name]

    def add_variable_from_reference(self, reference: Variable, name: str, initial: float = 0.0) -> Variable:
        """A slot variable shaped like ``reference`` (zeros, or ``initial``), named like Keras's."""
        import numpy as np

        with init_scope():
            value = np.full(reference.shape.as_list(), initial, dtype=reference.dtype.as_numpy_dtype)
            base = reference.name.split(":")[0].replace("/", "_")
            with _device_of(reference):
                slot = Variable(value, name=f"{self.name}/{base}_{name}", trainable=False)
        self._slots.setdefault(reference.ref(), {})[name] = slot
        self._variables.append(slot)
        return slot

    def build(self, variables: Sequence[Variable]) -> None:
        """Create the slot variables of ``variables`` (called by the first ``apply_gradients``)."""
        self._trainable_variables = list(variables)
        self.built = True

    # ------------------------------------------------------------------ applying

    def apply_gradients(self, grads_and_vars: Iterable[tuple[Any, Variable]]) -> Variable:
        """Apply one step: ``grads_and_vars`` pairs each gradient (None: skipped, with Keras's warning) with its
        variable. Returns ``iterations``, as Keras does."""
        pairs = list(grads_and_vars)
        if not pairs:
            return self._iterations
        grads, variables = zip(*pairs, strict=True)
        self.apply(list(grads), list(variables))
        return self._iterations

    def apply(self, grads: Sequence[Any], trainable_variables: Sequence[Variable] | None = None) -> None:
        """Keras's ``apply``: the gradients of ``trainable_variables`` (default: the variables built on)."""
        if len(grads) == 0:
            return
        if trainable_variables is None:
            if not self.built:
                raise ValueError(
                    "When passing `grads` without `variables`, the optimizer must already be built on a list of "
                    "variables. Call `optimizer.build(trainable_variables)` first. "
                )
            trainable_variables = self._trainable_variables
        trainable_variables = list(trainable_variables)
        if not self.built:
            self.build(trainable_variables)
        missing = [v for v in trainable_variables if v.ref() not in self._slots and self._needs_slots()]
        if missing:
            self._build_more(missing)
        pairs = [(g, v) for g, v in zip(grads, trainable_variables, strict=True) if g is not None]
        skipped = [v.name for g, v in zip(grads, trainable_variables, strict=True) if g is None]
        if not pairs:
            raise ValueError("No gradients provided for any variable.")
        if skipped:
            warnings.warn(
                f"Gradients do not exist for variables {skipped} when minimizing the loss. If using "
                "`model.compile()`, did you forget to provide a `loss` argument?",
                stacklevel=3,
            )
        grads = [_as_gradient(g) for g, _ in pairs]
        variables = [v for _, v in pairs]
        if self.loss_scale_factor is not None:
            grads = [_map_values(g, lambda t: math_ops.truediv(t, self.loss_scale_factor)) for g in grads]
        grads = self._clip_gradients(grads)
        self._apply_weight_decay(variables)
        learning_rate = self.learning_rate
        self._step_cache = {}  # per dtype: the learning rate, hyperparameter constants, Adam's powers
        try:
            for grad, variable in zip(grads, variables, strict=True):
                dtype = variable.dtype
                grad = _map_values(grad, lambda t, dtype=dtype: math_ops.cast(t, dtype))
                lr = self._cached(("learning_rate", dtype), lambda dtype=dtype: math_ops.cast(learning_rate, dtype))
                self.update_step(grad, variable, lr)
        finally:
            self._step_cache = None
        for variable in variables:
            if variable.constraint is not None:
                variable.assign(variable.constraint(variable))
        self._iterations.assign_add(1)

    def _needs_slots(self) -> bool:
        return True

    def _build_more(self, variables: list[Variable]) -> None:
        """Slots for variables first seen after the optimizer was built (Keras raises; we extend)."""
        known = self._trainable_variables
        self.build(variables)
        self._trainable_variables = known + variables

    # Subclasses give their fused kernel (``_fused_op``, ``_fused_step``) and Keras 3's rule written op by op
    # (``_keras_step``, for a dense gradient or an IndexedSlices); ``_densify_sparse``: Keras 3's rule mixes a
    # sparse gradient with dense slots, so it is densified first (and the fused kernel applies it).
    _densify_sparse = True

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        """Update ``variable`` with ``gradient`` (a tensor or ``IndexedSlices``) at ``learning_rate``.

        A dense gradient runs the fused training kernel when the variable's device has one,
        else Keras 3's rule op by op; a sparse one runs Keras 3's sparse rule (or is densified
        where Keras 3 densifies it).
        """
        if isinstance(gradient, IndexedSlices):
            if not self._densify_sparse:
                self._keras_step(gradient, variable, learning_rate)
                return
            gradient = gradient.to_dense()
        if _has_fused_kernel(self._fused_op(), variable):
            self._fused_step(gradient, variable, learning_rate)
        else:
            self._keras_step(gradient, variable, learning_rate)

    def _fused_op(self) -> str:
        """The training op ``_fused_step`` runs (its kernel on the variable's device decides the path)."""
        raise NotImplementedError(f"{type(self).__name__} must define update_step")

    def _fused_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        raise NotImplementedError

    def _keras_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        raise NotImplementedError

    def minimize(self, loss: Any, var_list: Any, tape: Any = None) -> Variable:
        """Minimize ``loss`` by updating ``var_list``: the gradients from a tape, then ``apply_gradients``.

        ``loss`` is a callable taking no arguments (recorded on a new tape, or on ``tape``), or
        a tensor computed under ``tape``. ``var_list`` is a list of variables, or a callable
        returning them (called after ``loss``, so the loss may create them). Returns
        ``iterations`` (Keras 2's ``minimize``; Keras 3's optimizers have none).
        """
        grads_and_vars = self._compute_gradients(loss, var_list, tape)
        return self.apply_gradients(grads_and_vars)

    def _compute_gradients(self, loss: Any, var_list: Any, tape: Any = None) -> list[tuple[Any, Variable]]:
        """Keras 2's ``compute_gradients``: ``(gradient, variable)`` pairs of ``loss``."""
        from modtensor.api.backprop import GradientTape
        from modtensor.framework.func_graph import flatten_structure

        if not callable(loss) and tape is None:
            raise ValueError(f"`tape` is required when a `Tensor` loss is passed. Received: loss={loss}, tape={tape}.")
        if tape is None:
            tape = GradientTape()
        if callable(loss):
            with tape:
                if not callable(var_list):
                    tape.watch(var_list)
                loss = loss()
                if callable(var_list):
                    var_list = var_list()
        variables = flatten_structure(var_list)
        grads = tape.gradient(loss, variables)
        return list(zip(grads, variables, strict=True))

    def _clip_gradients(self, grads: list[Any]) -> list[Any]:
        """Keras's clipping; an IndexedSlices is clipped by its values, as ``tf.clip_by_norm``/``clip_by_value``."""
        if self.clipnorm and self.clipnorm > 0:
            return [_map_values(g, lambda t: _clip_by_norm(t, self.clipnorm)) for g in grads]
        if self.global_clipnorm and self.global_clipnorm > 0:
            return _clip_by_global_norm(grads, self.global_clipnorm)
        if self.clipvalue and self.clipvalue > 0:
            return [_map_values(g, lambda t: math_ops.clip_by_value(t, -self.clipvalue, self.clipvalue))
                    for g in grads]  # fmt: skip
        return grads

    def _apply_weight_decay(self, variables: list[Variable]) -> None:
        """Keras: ``variable -= variable * weight_decay * learning_rate`` before the update."""
        if self.weight_decay is None:
            return
        for variable in variables:
            lr = math_ops.cast(self.learning_rate, variable.dtype)
            wd = math_ops.cast(self.weight_decay, variable.dtype)
            variable.assign_sub(math_ops.multiply(math_ops.multiply(variable, wd), lr), read_value=False)

    def _scalar(self, value: float, variable: Variable) -> Any:
        dtype = variable.dtype
        return self._cached(("scalar", value, dtype), lambda: convert_to_tensor(value, dtype=dtype))

    def _cached(self, key: Any, make: Any) -> Any:
        """``make()``, made once per ``apply`` call (the variables of one dtype share it)."""
        cache = self._step_cache
        if cache is None:
            return make()
        found = cache.get(key)
        if found is None:
            found = cache[key] = make()
        return found

    def __repr__(self) -> str:
        return f"<modtensor.optimizers.{type(self).__name__} name={self.name!r}>"


def _host_device() -> Any:
    from modtensor.api.context import device

    return device("/CPU:0")


def _device_of(variable: Variable) -> Any:
    """Slots live where their variable lives (Keras/TF colocate them)."""
    from modtensor.api.context import device

    return device(variable.device) if variable.device else _Null()


class _Null:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def _l2_norm(t: Any) -> Any:
    return math_ops.sqrt(math_ops.reduce_sum(math_ops.square(t)))


def _clip_by_norm(t: Any, clip_norm: float) -> Any:
    """Keras's clip by norm: ``t * clip_norm / max(norm(t), clip_norm)``."""
    norm = _l2_norm(t)
    return math_ops.truediv(math_ops.multiply(t, clip_norm), math_ops.maximum(norm, clip_norm))


def _clip_by_global_norm(grads: list[Any], clip_norm: float) -> list[Any]:
    total = math_ops.sqrt(math_ops.add_n([math_ops.reduce_sum(math_ops.square(_values(g))) for g in grads]))
    scale = math_ops.truediv(clip_norm, math_ops.maximum(total, clip_norm))
    return [_map_values(g, lambda t: math_ops.multiply(t, math_ops.cast(scale, t.dtype))) for g in grads]


# ---------------------------------------------------------------------------------------------- gradients


def _as_gradient(value: Any) -> Any:
    """A gradient as the optimizer takes it: an ``IndexedSlices`` as it is, anything else as a tensor."""
    if isinstance(value, IndexedSlices):
        return value
    return convert_to_tensor(value)


def _values(gradient: Any) -> Any:
    return gradient.values if isinstance(gradient, IndexedSlices) else gradient


def _map_values(gradient: Any, fn: Any) -> Any:
    """``fn`` of a dense gradient, or of an IndexedSlices' values (the rows keep their indices)."""
    if isinstance(gradient, IndexedSlices):
        return IndexedSlices(fn(gradient.values), gradient.indices, gradient.dense_shape)
    return fn(gradient)


# Keras 3's backend ops on a gradient that may be an IndexedSlices (keras/src/backend/tensorflow/sparse.py):
# products with a dense tensor or scalar keep the rows, a sum with a dense tensor densifies, a quotient by a
# dense tensor divides each row by the divisor's row, and the variable updates scatter the rows.


def _k_mul(gradient: Any, factor: Any) -> Any:
    return _map_values(gradient, lambda t: math_ops.multiply(t, factor))


def _k_rmul(factor: Any, gradient: Any) -> Any:
    return _map_values(gradient, lambda t: math_ops.multiply(factor, t))


def _k_dense(value: Any) -> Any:
    return value.to_dense() if isinstance(value, IndexedSlices) else value


def _k_divide(dividend: Any, divisor: Any) -> Any:
    if isinstance(dividend, IndexedSlices):
        from modtensor.api import array_ops

        rows = array_ops.gather(divisor, dividend.indices)
        return IndexedSlices(math_ops.truediv(dividend.values, rows), dividend.indices, dividend.dense_shape)
    return math_ops.truediv(dividend, divisor)


def _k_assign_add(variable: Variable, value: Any) -> None:
    if isinstance(value, IndexedSlices) and _has_fused_kernel("ResourceScatterAdd", variable):
        variable.scatter_add(value)
    else:  # dense, or a device without scatter kernels: the rows densified (equal up to float rounding)
        variable.assign_add(_k_dense(value), read_value=False)


def _k_assign_sub(variable: Variable, value: Any) -> None:
    if isinstance(value, IndexedSlices) and _has_fused_kernel("ResourceScatterSub", variable):
        variable.scatter_sub(value)
    else:
        variable.assign_sub(_k_dense(value), read_value=False)


# ---------------------------------------------------------------------------------------------- fused kernels

def _has_fused_kernel(op_type: str, variable: Variable) -> bool:
    """Whether ``op_type`` has a kernel for the variable's dtype on its device (its type's or a DEFAULT one)."""
    return device_kernels.has_kernel(op_type, variable.device, variable.dtype)


# ---------------------------------------------------------------------------------------------- optimizers


class SGD(Optimizer):
    """Keras's SGD: ``w -= lr * g``; with momentum ``v = momentum * v - lr * g; w += v`` (nesterov:
    ``w += momentum * v - lr * g``); ``ResourceApplyGradientDescent`` / ``ResourceApplyKerasMomentum``.
    A sparse gradient without momentum is subtracted from its rows (``ResourceScatterSub``)."""

    def __init__(
        self, learning_rate: Any = 0.01, momentum: float = 0.0, nesterov: bool = False, name: str = "SGD", **kwargs: Any
    ):
        super().__init__(learning_rate, name=name, **kwargs)
        if not isinstance(momentum, float) or momentum < 0 or momentum > 1:
            raise ValueError("`momentum` must be a float between [0, 1].")
        self.momentum = momentum
        self.nesterov = nesterov
        self._densify_sparse = momentum != 0

    def build(self, variables: Sequence[Variable]) -> None:
        """A ``momentum`` slot per variable when momentum is used."""
        super().build(variables)
        if self.momentum != 0:
            for v in variables:
                self.add_variable_from_reference(v, "momentum")

    def _needs_slots(self) -> bool:
        return self.momentum != 0

    def _fused_op(self) -> str:
        return "ResourceApplyGradientDescent" if self.momentum == 0 else "ResourceApplyKerasMomentum"

    def _fused_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        if self.momentum == 0:
            apply_op("ResourceApplyGradientDescent", var=variable.handle, alpha=learning_rate, delta=gradient)
            return
        apply_op(
            "ResourceApplyKerasMomentum",
            var=variable.handle,
            accum=self.get_slot(variable, "momentum").handle,
            lr=learning_rate,
            grad=gradient,
            momentum=self._scalar(self.momentum, variable),
            use_nesterov=bool(self.nesterov),
        )

    def _keras_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        if self.momentum == 0:
            _k_assign_sub(variable, _k_mul(gradient, learning_rate))
            return
        m = self.get_slot(variable, "momentum")
        momentum = self._scalar(self.momentum, variable)
        m.assign(math_ops.subtract(math_ops.multiply(m, momentum), math_ops.multiply(gradient, learning_rate)),
                 read_value=False)  # fmt: skip
        if self.nesterov:
            variable.assign_add(
                math_ops.subtract(math_ops.multiply(m, momentum), math_ops.multiply(gradient, learning_rate)),
                read_value=False,
            )
        else:
            variable.assign_add(m, read_value=False)


class Adam(Optimizer):
    """Keras's Adam (``beta_1``, ``beta_2``, ``epsilon``, ``amsgrad``): ``ResourceApplyAdam`` with the bias
    corrections ``beta ** (iterations + 1)``, or ``ResourceApplyAdamWithAmsgrad``. A sparse gradient follows
    Keras 3's rule: ``m`` takes the densified gradient, ``v`` the densified squared rows (repeated rows
    are squared before they are summed), the whole variable is updated."""

    _densify_sparse = False

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        amsgrad: bool = False,
        name: str = "adam",
        **kwargs: Any,
    ):
        super().__init__(learning_rate, name=name, **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.amsgrad = amsgrad

    def build(self, variables: Sequence[Variable]) -> None:
        """``momentum`` and ``velocity`` slots (and ``velocity_hat`` with amsgrad)."""
        super().build(variables)
        for v in variables:
            self.add_variable_from_reference(v, "momentum")
            self.add_variable_from_reference(v, "velocity")
            if self.amsgrad:
                self.add_variable_from_reference(v, "velocity_hat")

    def _fused_op(self) -> str:
        return "ResourceApplyAdamWithAmsgrad" if self.amsgrad else "ResourceApplyAdam"

    def _powers(self, variable: Variable) -> tuple[Any, Any]:
        """``beta_1 ** (iterations + 1)``, ``beta_2 ** (iterations + 1)`` in the variable's dtype."""

        def make() -> tuple[Any, Any]:
            step = math_ops.cast(math_ops.add(self._iterations, 1), variable.dtype)
            return (math_ops.pow(self._scalar(self.beta_1, variable), step),
                    math_ops.pow(self._scalar(self.beta_2, variable), step))  # fmt: skip

        return self._cached(("powers", variable.dtype), make)

    def _fused_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        beta_1_power, beta_2_power = self._powers(variable)
        common = {
            "var": variable.handle,
            "m": self.get_slot(variable, "momentum").handle,
            "v": self.get_slot(variable, "velocity").handle,
            "beta1_power": beta_1_power,
            "beta2_power": beta_2_power,
            "lr": learning_rate,
            "beta1": self._scalar(self.beta_1, variable),
            "beta2": self._scalar(self.beta_2, variable),
            "epsilon": self._scalar(self.epsilon, variable),
            "grad": gradient,
        }
        if self.amsgrad:
            apply_op("ResourceApplyAdamWithAmsgrad", vhat=self.get_slot(variable, "velocity_hat").handle, **common)
        else:
            apply_op("ResourceApplyAdam", **common)

    def _keras_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        beta_1_power, beta_2_power = self._powers(variable)
        m = self.get_slot(variable, "momentum")
        v = self.get_slot(variable, "velocity")
        alpha = math_ops.truediv(
            math_ops.multiply(learning_rate, math_ops.sqrt(math_ops.subtract(1.0, beta_2_power))),
            math_ops.subtract(1.0, beta_1_power),
        )
        m.assign_add(math_ops.multiply(math_ops.subtract(_k_dense(gradient), m), 1 - self.beta_1), read_value=False)
        square = _k_dense(_map_values(gradient, math_ops.square))  # sparse: the rows squared, then summed
        v.assign_add(math_ops.multiply(math_ops.subtract(square, v), 1 - self.beta_2), read_value=False)
        if self.amsgrad:
            v_hat = self.get_slot(variable, "velocity_hat")
            v_hat.assign(math_ops.maximum(v_hat, v), read_value=False)
            v = v_hat
        variable.assign_sub(
            math_ops.truediv(math_ops.multiply(m, alpha), math_ops.add(math_ops.sqrt(v), self.epsilon)),
            read_value=False,
        )


class AdamW(Adam):
    """Keras's AdamW: Adam after decoupled weight decay ``w -= w * weight_decay * lr``."""

    def __init__(
        self,
        learning_rate: Any = 0.001,
        weight_decay: float = 0.004,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        amsgrad: bool = False,
        name: str = "adamw",
        **kwargs: Any,
    ):
        super().__init__(
            learning_rate, beta_1=beta_1, beta_2=beta_2, epsilon=epsilon, amsgrad=amsgrad, name=name,
            weight_decay=weight_decay, **kwargs,
        )  # fmt: skip
        if self.weight_decay is None:
            raise ValueError("Argument `weight_decay` must be a float. Received: weight_decay=None")


class Adagrad(Optimizer):
    """Keras's Adagrad (``initial_accumulator_value``, ``epsilon``) through ``ResourceApplyAdagradV2``; a sparse
    gradient adds its squared rows to the accumulator and is subtracted from its rows (Keras 3's rule)."""

    _densify_sparse = False

    def __init__(
        self,
        learning_rate: Any = 0.001,
        initial_accumulator_value: float = 0.1,
        epsilon: float = 1e-7,
        name: str = "adagrad",
        **kwargs: Any,
    ):
        super().__init__(learning_rate, name=name, **kwargs)
        self.initial_accumulator_value = initial_accumulator_value
        self.epsilon = epsilon

    def build(self, variables: Sequence[Variable]) -> None:
        """An ``accumulator`` slot per variable, starting at ``initial_accumulator_value``."""
        super().build(variables)
        for v in variables:
            self.add_variable_from_reference(v, "accumulator", self.initial_accumulator_value)

    def _fused_op(self) -> str:
        return "ResourceApplyAdagradV2"

    def _fused_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        apply_op(
            "ResourceApplyAdagradV2",
            var=variable.handle,
            accum=self.get_slot(variable, "accumulator").handle,
            lr=learning_rate,
            epsilon=self._scalar(self.epsilon, variable),
            grad=gradient,
        )

    def _keras_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        accumulator = self.get_slot(variable, "accumulator")
        _k_assign_add(accumulator, _map_values(gradient, math_ops.square))
        denominator = math_ops.sqrt(math_ops.add(accumulator, self.epsilon))
        _k_assign_sub(variable, _k_divide(_k_rmul(learning_rate, gradient), denominator))


class RMSprop(Optimizer):
    """Keras's RMSprop (``rho``, ``momentum``, ``epsilon``, ``centered``): ``ResourceApplyRMSProp`` /
    ``ResourceApplyCenteredRMSProp`` (slots ``velocity``, ``momentum``, ``average_gradient``, from zeros).
    A sparse gradient follows Keras 3's rule: dense moving averages, the increment on the gradient's rows."""

    _densify_sparse = False

    def __init__(
        self,
        learning_rate: Any = 0.001,
        rho: float = 0.9,
        momentum: float = 0.0,
        epsilon: float = 1e-7,
        centered: bool = False,
        name: str = "rmsprop",
        **kwargs: Any,
    ):
        super().__init__(learning_rate, name=name, **kwargs)
        self.rho = rho
        self.momentum = momentum
        self.epsilon = epsilon
        self.centered = centered

    def build(self, variables: Sequence[Variable]) -> None:
        """Slots: velocity, momentum (the kernels always keep one), average_gradient when centered."""
        super().build(variables)
        for v in variables:
            self.add_variable_from_reference(v, "velocity")
            self.add_variable_from_reference(v, "momentum")
            if self.centered:
                self.add_variable_from_reference(v, "average_gradient")

    def _fused_op(self) -> str:
        return "ResourceApplyCenteredRMSProp" if self.centered else "ResourceApplyRMSProp"

    def _fused_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        common = {
            "var": variable.handle,
            "ms": self.get_slot(variable, "velocity").handle,
            "mom": self.get_slot(variable, "momentum").handle,
            "lr": learning_rate,
            "rho": self._scalar(self.rho, variable),
            "momentum": self._scalar(self.momentum, variable),
            "epsilon": self._scalar(self.epsilon, variable),
            "grad": gradient,
        }
        if self.centered:
            apply_op("ResourceApplyCenteredRMSProp", mg=self.get_slot(variable, "average_gradient").handle, **common)
        else:
            apply_op("ResourceApplyRMSProp", **common)

    def _keras_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        velocity = self.get_slot(variable, "velocity")
        rho = self.rho
        velocity.assign(
            math_ops.add(math_ops.multiply(rho, velocity),
                         _k_dense(_k_rmul(1 - rho, _map_values(gradient, math_ops.square)))),
            read_value=False,
        )  # fmt: skip
        if self.centered:
            average_grad = self.get_slot(variable, "average_gradient")
            average_grad.assign(
                math_ops.add(math_ops.multiply(rho, average_grad), _k_dense(_k_rmul(1 - rho, gradient))),
                read_value=False,
            )
            denominator = math_ops.add(math_ops.subtract(velocity, math_ops.square(average_grad)), self.epsilon)
        else:
            denominator = math_ops.add(velocity, self.epsilon)
        increment = _k_divide(_k_rmul(learning_rate, gradient), math_ops.sqrt(denominator))
        if self.momentum > 0:
            momentum = self.get_slot(variable, "momentum")
            momentum.assign(math_ops.add(math_ops.multiply(self.momentum, momentum), _k_dense(increment)),
                            read_value=False)  # fmt: skip
            variable.assign_sub(momentum, read_value=False)
        else:
            _k_assign_sub(variable, increment)
