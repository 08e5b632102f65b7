"""``tf.compat.v1.train``: TensorFlow 1's optimizers (``GradientDescentOptimizer``, ``MomentumOptimizer``,
``AdamOptimizer``) with TF 1's slots, names and update kernels, for Session programs and eager code.

``apply_gradients(grads_and_vars, global_step=None, name=None)`` returns the grouped update
op in a graph (named after the optimizer, as TF's) and runs it eagerly. Slots are TF 1's:
``<var>/Momentum``; Adam's ``<var>/Adam`` and ``<var>/Adam_1`` plus the non-slot
``beta1_power``/``beta2_power`` variables that Adam multiplies by ``beta1``/``beta2`` after
each step. ``minimize`` needs gradients, which modtensor does not have yet.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from modtensor.api import context, math_ops
from modtensor.api.dispatch import apply_op
from modtensor.api.op_scope import convert_to_tensor
from modtensor.api.variables import Variable, init_scope
from modtensor.framework import graph as graph_lib
from modtensor.framework import op_def_library

__all__ = ["AdamOptimizer", "GradientDescentOptimizer", "MomentumOptimizer", "Optimizer", "get_global_step"]

_MINIMIZE = (
    "{name}.minimize needs gradients, and modtensor has no tf.gradients / GradientTape yet (issue 11, "
    "'Gradients'). Compute the gradients yourself and call apply_gradients(zip(grads, variables))."
)


def get_global_step(graph: Any = None) -> Any:
    """The ``global_step`` variable of the graph's collection, or None."""
    graph = graph or graph_lib.get_default_graph()
    found = graph.get_collection("global_step")
    return found[0] if found else None


class Optimizer:
    """TF 1's optimizer base: slots per variable, ``apply_gradients`` grouping one update op per variable."""

    def __init__(self, use_locking: bool, name: str):
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = use_locking
        self._name = name
        self._slots: dict[str, dict[Any, Variable]] = {}
        self._non_slots: dict[str, Variable] = {}

    def get_name(self) -> str:
        """The optimizer's name (the name of its update op)."""
        return self._name

    def get_slot_names(self) -> list[str]:
        """Names of the slots this optimizer keeps (``m``, ``v``, ``momentum``)."""
        return sorted(self._slots)

    def get_slot(self, var: Variable, name: str) -> Variable | None:
        """The slot ``name`` of ``var``, or None."""
        return self._slots.get(name, {}).get(var.ref())

    def variables(self) -> list[Variable]:
        """The optimizer's variables: non-slot ones, then every slot."""
        slots = [v for table in self._slots.values() for v in table.values()]
        return [*self._non_slots.values(), *slots]

    def minimize(self, loss: Any, global_step: Any = None, var_list: Any = None, **kwargs: Any) -> Any:
        """TF 1's ``minimize``: needs gradients, which modtensor does not have yet."""
        raise NotImplementedError(_MINIMIZE.format(name=type(self).__name__))

    def compute_gradients(self, loss: Any, var_list: Any = None, **kwargs: Any) -> Any:
        """TF 1's ``compute_gradients``: needs gradients, which modtensor does not have yet."""
        raise NotImplementedError(_MINIMIZE.format(name=type(self).__name__).replace(".minimize", ".compute_gradients"))

    # ------------------------------------------------------------------ slots

    def _zeros_slot(self, var: Variable, slot_name: str, op_name: str) -> Variable:
        table = self._slots.setdefault(slot_name, {})
        found = table.get(var.ref())
        if found is None:
            found = _make_variable(var, f"{_var_name(var)}/{op_name}", np.zeros(var.shape.as_list(),
                                                                                var.dtype.as_numpy_dtype))  # fmt: skip
            table[var.ref()] = found
        return found

    def _non_slot(self, name: str, initial: float, colocate_with: Variable) -> Variable:
        found = self._non_slots.get(name)
        if found is None:
            found = _make_variable(colocate_with, name, np.asarray(initial, colocate_with.dtype.as_numpy_dtype))
            self._non_slots[name] = found
        return found

    # ------------------------------------------------------------------ applying

    def apply_gradients(self, grads_and_vars: Iterable[tuple[Any, Variable]], global_step: Any = None,
                        name: str | None = None) -> Any:  # fmt: skip
        """Apply one update per (gradient, variable) pair (None gradients skipped); returns the grouped op."""
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        if not pairs:
            raise ValueError("No gradients provided for any variable")
        variables = [v for _, v in pairs]
        self._create_slots(variables)
        name = name or self._name
        graph_mode = not context.executing_eagerly()
        scope = graph_lib.get_default_graph().name_scope(name) if graph_mode else _NullScope(name)
        with scope as scope_name:
            self._prepare()
            updates = []
            for grad, var in pairs:
                with _UpdateScope(var, graph_mode):
                    grad = math_ops.cast(convert_to_tensor(grad), var.dtype)
                    updates.append(self._apply_dense(grad, var))
            finish = self._finish(updates, scope_name or name)  # "Adam/": the group op takes the scope's name
        if global_step is not None:
            if graph_mode:
                with graph_lib.get_default_graph().control_dependencies([finish]):
                    return global_step.assign_add(1, read_value=False)
            global_step.assign_add(1)
        return finish

    def _create_slots(self, var_list: list[Variable]) -> None:
        """Make the slots of ``var_list`` (subclasses)."""

    def _prepare(self) -> None:
        """Convert the hyperparameters to tensors (subclasses)."""

    def _apply_dense(self, grad: Any, var: Variable) -> Any:
        raise NotImplementedError

    def _finish(self, update_ops: list[Any], name: str) -> Any:
        return _group(update_ops, name)


class _NullScope:
    def __init__(self, name: str):
        self.name = name

    def __enter__(self) -> str:
        return ""

    def __exit__(self, *exc: object) -> None:
        return None


class _UpdateScope:
    """TF 1's per-variable scope ``update_<var>`` in graphs."""

    def __init__(self, var: Variable, graph_mode: bool):
        self._scope = graph_lib.get_default_graph().name_scope(f"update_{_var_name(var)}") if graph_mode else None

    def __enter__(self) -> None:
        if self._scope is not None:
            self._scope.__enter__()

    def __exit__(self, *exc: object) -> None:
        if self._scope is not None:
            self._scope.__exit__(*exc)


def _var_name(var: Variable) -> str:
    return var.name.split(":")[0]


def _make_variable(primary: Variable, name: str, value: np.ndarray) -> Variable:
    """A non-trainable variable beside ``primary``: in its graph (v1) or eagerly, on its device."""
    from modtensor.api.context import device

    if context.executing_eagerly() or graph_lib.get_default_graph().building_function:
        with init_scope(), device(primary.device):
            return Variable(value, name=name, trainable=False)
    graph = graph_lib.get_default_graph()
    with graph.name_scope(None), graph.colocate_with(primary.op):
        return Variable(value, name=name, trainable=False)


def _group(updates: list[Any], name: str) -> Any:
    """TF's ``group``: a NoOp after every update (eagerly the updates already ran: None)."""
    if context.executing_eagerly():
        return None
    graph = graph_lib.get_default_graph()
    with graph.name_scope(None), graph.control_dependencies([u for u in updates if u is not None]):
        return op_def_library.apply_op("NoOp", name=name)


def _apply(op_type: str, **kwargs: Any) -> Any:
    """Run a training op; in a graph return its Operation (the update op to group)."""
    if context.executing_eagerly():
        return apply_op(op_type, **kwargs)
    return op_def_library.apply_op(op_type, **kwargs)


class GradientDescentOptimizer(Optimizer):
    """TF 1's gradient descent: ``ResourceApplyGradientDescent(var, learning_rate, grad)``."""

    def __init__(self, learning_rate: Any, use_locking: bool = False, name: str = "GradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate

    def _prepare(self) -> None:
        self._lr_t = convert_to_tensor(self._learning_rate, name="learning_rate")

    def _apply_dense(self, grad: Any, var: Variable) -> Any:
        return _apply(
            "ResourceApplyGradientDescent",
            var=var.handle,
            alpha=math_ops.cast(self._lr_t, var.dtype),
            delta=grad,
            use_locking=self._use_locking,
        )


class MomentumOptimizer(Optimizer):
    """TF 1's momentum: ``accum = accum * momentum + grad; var -= lr * accum`` (``ResourceApplyMomentum``)."""

    def __init__(self, learning_rate: Any, momentum: Any, use_locking: bool = False, name: str = "Momentum",
                 use_nesterov: bool = False):  # fmt: skip
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = use_nesterov

    def _create_slots(self, var_list: list[Variable]) -> None:
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self) -> None:
        self._lr_t = convert_to_tensor(self._learning_rate, name="learning_rate")
        self._momentum_t = convert_to_tensor(self._momentum, name="momentum")

    def _apply_dense(self, grad: Any, var: Variable) -> Any:
        return _apply(
            "ResourceApplyMomentum",
            var=var.handle,
            accum=self.get_slot(var, "momentum").handle,  # type: ignore[union-attr]
            lr=math_ops.cast(self._lr_t, var.dtype),
            grad=grad,
            momentum=math_ops.cast(self._momentum_t, var.dtype),
            use_locking=self._use_locking,
            use_nesterov=self._use_nesterov,
        )


class AdamOptimizer(Optimizer):
    """TF 1's Adam: ``ResourceApplyAdam`` with ``beta1_power``/``beta2_power`` variables updated after each step."""

    def __init__(self, learning_rate: Any = 0.001, beta1: Any = 0.9, beta2: Any = 0.999, epsilon: Any = 1e-8,
                 use_locking: bool = False, name: str = "Adam"):  # fmt: skip
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._beta1 = beta1
        self._beta2 = beta2
        self._epsilon = epsilon

    def _create_slots(self, var_list: list[Variable]) -> None:
        first = min(var_list, key=lambda v: v.name)  # TF colocates the powers with the first variable by name
        self._non_slot("beta1_power", self._beta1, first)
        self._non_slot("beta2_power", self._beta2, first)
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name)

    def _prepare(self) -> None:
        self._lr_t = convert_to_tensor(self._lr, name="learning_rate")
        self._beta1_t = convert_to_tensor(self._beta1, name="beta1")
        self._beta2_t = convert_to_tensor(self._beta2, name="beta2")
        self._epsilon_t = convert_to_tensor(self._epsilon, name="epsilon")

    def _apply_dense(self, grad: Any, var: Variable) -> Any:
        beta1_power = self._non_slots["beta1_power"]
        beta2_power = self._non_slots["beta2_power"]
        dtype = var.dtype
        return _apply(
            "ResourceApplyAdam",
            var=var.handle,
            m=self.get_slot(var, "m").handle,  # type: ignore[union-attr]
            v=self.get_slot(var, "v").handle,  # type: ignore[union-attr]
            beta1_power=math_ops.cast(beta1_power, dtype),
            beta2_power=math_ops.cast(beta2_power, dtype),
            lr=math_ops.cast(self._lr_t, dtype),
            beta1=math_ops.cast(self._beta1_t, dtype),
            beta2=math_ops.cast(self._beta2_t, dtype),
            epsilon=math_ops.cast(self._epsilon_t, dtype),
            grad=grad,
            use_locking=self._use_locking,
        )

    def _finish(self, update_ops: list[Any], name: str) -> Any:
        beta1_power = self._non_slots["beta1_power"]
        beta2_power = self._non_slots["beta2_power"]
        graph_mode = not context.executing_eagerly()
        deps = graph_lib.get_default_graph().control_dependencies(update_ops) if graph_mode else _NullScope("")
        with deps:
            update1 = beta1_power.assign(math_ops.multiply(beta1_power, self._beta1_t), read_value=False)
            update2 = beta2_power.assign(math_ops.multiply(beta2_power, self._beta2_t), read_value=False)
        return _group([*update_ops, update1, update2], name)


# Name-based checkpoints (compat/v1_saver.py) and the checkpoint helpers TF 1 has under tf.train.
from modtensor.compat.v1_saver import Saver, get_checkpoint_state, latest_checkpoint  # noqa: E402

__all__ += ["Saver", "get_checkpoint_state", "latest_checkpoint"]
