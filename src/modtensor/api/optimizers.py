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
elementwise ops; the results agree to float32 rounding (a few ulps), with one formula
difference: TF's Adagrad kernel divides by ``sqrt(accumulator) + epsilon``, Keras 3 by
``sqrt(accumulator + epsilon)`` (relative difference below 1e-6 with the default epsilon).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from typing import Any

from modtensor.api import math_ops
from modtensor.api.dispatch import apply_op
from modtensor.api.op_scope import convert_to_tensor
from modtensor.api.trackable import ListWrapper, Trackable
from modtensor.api.variables import Variable, init_scope
from modtensor.framework import dtypes

__all__ = ["SGD", "Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop"]

_MINIMIZE = (
    "Optimizer.minimize needs gradients, and modtensor has no tf.GradientTape yet (issue 11, 'Gradients'). "
    "Compute the gradients yourself and call optimizer.apply_gradients(zip(grads, variables))."
)
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
        grads = [convert_to_tensor(g) for g, _ in pairs]
        variables = [v for _, v in pairs]
        if self.loss_scale_factor is not None:
            grads = [math_ops.truediv(g, self.loss_scale_factor) for g in grads]
        grads = self._clip_gradients(grads)
        self._apply_weight_decay(variables)
        learning_rate = self.learning_rate
        for grad, variable in zip(grads, variables, strict=True):
            grad = math_ops.cast(grad, variable.dtype)
            lr = math_ops.cast(learning_rate, variable.dtype)
            self.update_step(grad, variable, lr)
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

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        """Update ``variable`` with ``gradient`` (subclasses)."""
        raise NotImplementedError

    def minimize(self, loss: Any, var_list: Any, tape: Any = None) -> Any:
        """Keras's ``minimize``: needs gradients, which modtensor does not have yet."""
        raise NotImplementedError(_MINIMIZE)

    def _clip_gradients(self, grads: list[Any]) -> list[Any]:
        if self.clipnorm and self.clipnorm > 0:
            return [_clip_by_norm(g, self.clipnorm) for g in grads]
        if self.global_clipnorm and self.global_clipnorm > 0:
            return _clip_by_global_norm(grads, self.global_clipnorm)
        if self.clipvalue and self.clipvalue > 0:
            return [math_ops.clip_by_value(g, -self.clipvalue, self.clipvalue) for g in grads]
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
        return convert_to_tensor(value, dtype=variable.dtype)

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
    total = math_ops.sqrt(math_ops.add_n([math_ops.reduce_sum(math_ops.square(g)) for g in grads]))
    scale = math_ops.truediv(clip_norm, math_ops.maximum(total, clip_norm))
    return [math_ops.multiply(g, math_ops.cast(scale, g.dtype)) for g in grads]


# ---------------------------------------------------------------------------------------------- optimizers


class SGD(Optimizer):
    """Keras's SGD: ``w -= lr * g``; with momentum ``v = momentum * v - lr * g; w += v`` (nesterov:
    ``w += momentum * v - lr * g``); ``ResourceApplyGradientDescent`` / ``ResourceApplyKerasMomentum``."""

    def __init__(
        self, learning_rate: Any = 0.01, momentum: float = 0.0, nesterov: bool = False, name: str = "SGD", **kwargs: Any
    ):
        super().__init__(learning_rate, name=name, **kwargs)
        if not isinstance(momentum, float) or momentum < 0 or momentum > 1:
            raise ValueError("`momentum` must be a float between [0, 1].")
        self.momentum = momentum
        self.nesterov = nesterov

    def build(self, variables: Sequence[Variable]) -> None:
        """A ``momentum`` slot per variable when momentum is used."""
        super().build(variables)
        if self.momentum != 0:
            for v in variables:
                self.add_variable_from_reference(v, "momentum")

    def _needs_slots(self) -> bool:
        return self.momentum != 0

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        """One SGD step on ``variable``."""
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


class Adam(Optimizer):
    """Keras's Adam (``beta_1``, ``beta_2``, ``epsilon``, ``amsgrad``): ``ResourceApplyAdam`` with the bias
    corrections ``beta ** (iterations + 1)``, or ``ResourceApplyAdamWithAmsgrad``."""

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

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        """One Adam step on ``variable``."""
        step = math_ops.cast(math_ops.add(self._iterations, 1), variable.dtype)
        beta_1 = self._scalar(self.beta_1, variable)
        beta_2 = self._scalar(self.beta_2, variable)
        common = {
            "var": variable.handle,
            "m": self.get_slot(variable, "momentum").handle,
            "v": self.get_slot(variable, "velocity").handle,
            "beta1_power": math_ops.pow(beta_1, step),
            "beta2_power": math_ops.pow(beta_2, step),
            "lr": learning_rate,
            "beta1": beta_1,
            "beta2": beta_2,
            "epsilon": self._scalar(self.epsilon, variable),
            "grad": gradient,
        }
        if self.amsgrad:
            apply_op("ResourceApplyAdamWithAmsgrad", vhat=self.get_slot(variable, "velocity_hat").handle, **common)
        else:
            apply_op("ResourceApplyAdam", **common)


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
    """Keras's Adagrad (``initial_accumulator_value``, ``epsilon``) through ``ResourceApplyAdagradV2``."""

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

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        """One Adagrad step on ``variable``."""
        apply_op(
            "ResourceApplyAdagradV2",
            var=variable.handle,
            accum=self.get_slot(variable, "accumulator").handle,
            lr=learning_rate,
            epsilon=self._scalar(self.epsilon, variable),
            grad=gradient,
        )


class RMSprop(Optimizer):
    """Keras's RMSprop (``rho``, ``momentum``, ``epsilon``, ``centered``): ``ResourceApplyRMSProp`` /
    ``ResourceApplyCenteredRMSProp`` (slots ``velocity``, ``momentum``, ``average_gradient``, from zeros)."""

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

    def update_step(self, gradient: Any, variable: Variable, learning_rate: Any) -> None:
        """One RMSprop step on ``variable``."""
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

