"""``tf.compat.v1.train``: TensorFlow 1's optimizers (``GradientDescentOptimizer``, ``MomentumOptimizer``,
``AdamOptimizer``) with TF 1's slots, names and update kernels, for Session programs and eager code.

``apply_gradients(grads_and_vars, global_step=None, name=None)`` returns the grouped update
op in a graph (named after the optimizer, as TF's) and runs it eagerly. Slots are TF 1's:
``<var>/Momentum``; Adam's ``<var>/Adam`` and ``<var>/Adam_1`` plus the non-slot
``beta1_power``/``beta2_power`` variables that Adam multiplies by ``beta1``/``beta2`` after
each step.

``compute_gradients(loss, var_list=None, ...)`` is TF 1's: in a graph, ``tf.gradients`` of a
loss tensor with respect to ``var_list`` (default: the graph's trainable variables
collection); a callable loss is recorded on a ``GradientTape`` (eagerly, or inside
``tf.function``), its ``var_list`` defaulting to the variables the tape watched.
``minimize`` is ``compute_gradients`` then ``apply_gradients``, with TF 1's errors when there
are no variables or no gradients.

An ``IndexedSlices`` gradient (of a gather) is applied as TF 1 applies it to a resource
variable: gradient descent adds ``-learning_rate * values`` to the rows
(``ResourceScatterAdd``, repeated rows as they come); momentum sums repeated rows first
(``Unique`` + ``UnsortedSegmentSum``) and runs ``ResourceSparseApplyMomentum``; Adam sums them
too, decays ``m``/``v`` densely, scatters the new rows in and updates the whole variable.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from modtensor.api import context, math_ops
from modtensor.api.dispatch import apply_op
from modtensor.api.indexed_slices import IndexedSlices
from modtensor.api.op_scope import convert_to_tensor
from modtensor.api.variables import Variable, init_scope
from modtensor.framework import dtypes, op_def_library
from modtensor.framework import graph as graph_lib

__all__ = ["AdamOptimizer", "GradientDescentOptimizer", "MomentumOptimizer", "Optimizer", "get_global_step"]


def get_global_step(graph: Any = None) -> Any:
    """The ``global_step`` variable of the graph's collection, or None."""
    graph = graph or graph_lib.get_default_graph()
    found = graph.get_collection("global_step")
    return found[0] if found else None


class Optimizer:
    """TF 1's optimizer base: slots per variable, ``apply_gradients`` grouping one update op per variable."""

    GATE_NONE = 0
    GATE_OP = 1
    GATE_GRAPH = 2

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

    def minimize(
        self,
        loss: Any,
        global_step: Any = None,
        var_list: Any = None,
        gate_gradients: int = GATE_OP,
        aggregation_method: Any = None,
        colocate_gradients_with_ops: bool = False,
        name: str | None = None,
        grad_loss: Any = None,
    ) -> Any:
        """Add the ops minimizing ``loss`` (``compute_gradients`` then ``apply_gradients``); returns the update op
        (eagerly: runs the update, ``loss`` a callable)."""
        grads_and_vars = self.compute_gradients(
            loss,
            var_list=var_list,
            gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops,
            grad_loss=grad_loss,
        )
        vars_with_grad = [v for g, v in grads_and_vars if g is not None]
        if not vars_with_grad:
            raise ValueError(
                "No gradients provided for any variable, check your graph for ops that do not support gradients, "
                f"between variables {[str(v) for _, v in grads_and_vars]} and loss {loss}."
            )
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def compute_gradients(
        self,
        loss: Any,
        var_list: Any = None,
        gate_gradients: int = GATE_OP,
        aggregation_method: Any = None,
        colocate_gradients_with_ops: bool = False,
        grad_loss: Any = None,
    ) -> list[tuple[Any, Variable]]:
        """``(gradient, variable)`` pairs of ``loss`` for ``var_list`` (a gradient is None where ``loss`` does
        not depend on the variable; an ``IndexedSlices`` for a gathered variable).

        ``loss`` is a tensor of a graph (``var_list`` defaults to the trainable variables
        collection) or a callable (recorded on a tape; ``var_list`` defaults to the variables
        it read). Eagerly ``loss`` must be callable; ``gate_gradients``,
        ``aggregation_method`` and ``colocate_gradients_with_ops`` then do nothing, as in TF.
        """
        from modtensor.api.backprop import GradientTape
        from modtensor.framework.func_graph import flatten_structure

        if callable(loss):
            with GradientTape() as tape:
                if var_list is not None:
                    tape.watch(var_list)
                loss_value = loss()
            if var_list is None:
                var_list = tape.watched_variables()
            variables = flatten_structure(var_list)
            grads = tape.gradient(loss_value, variables, grad_loss)
            return list(zip(grads, variables, strict=True))
        if context.executing_eagerly():
            raise RuntimeError(
                "`loss` passed to Optimizer.compute_gradients should be a function when eager execution is enabled."
            )
        if gate_gradients not in (Optimizer.GATE_NONE, Optimizer.GATE_OP, Optimizer.GATE_GRAPH):
            raise ValueError(
                "gate_gradients must be one of: Optimizer.GATE_NONE, Optimizer.GATE_OP, Optimizer.GATE_GRAPH.  "
                f"Not {gate_gradients}"
            )
        _assert_valid_dtypes([loss])
        if grad_loss is not None:
            _assert_valid_dtypes([grad_loss])
        if var_list is None:
            graph = graph_lib.get_default_graph()
            var_list = graph.get_collection("trainable_variables") + graph.get_collection(
                "trainable_resource_variables"
            )
        else:
            var_list = flatten_structure(var_list)
        if not var_list:
            raise ValueError("No variables to optimize.")
        from modtensor.api.gradients_impl import gradients

        grads = gradients(
            loss,
            var_list,
            grad_ys=grad_loss,
            gate_gradients=gate_gradients == Optimizer.GATE_OP,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops,
        )
        if gate_gradients == Optimizer.GATE_GRAPH:
            grads = _tuple(grads)
        grads_and_vars = list(zip(grads, var_list, strict=True))
        _assert_valid_dtypes([v for g, v in grads_and_vars if g is not None])
        return grads_and_vars

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
        """Apply one update per (gradient, variable) pair (None gradients skipped); returns the grouped op, or with
        ``global_step`` the op incrementing it after the updates (named after the optimizer, as TF's)."""
        grads_and_vars = tuple(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("No variables provided.")
        converted = [(_as_gradient(g), v) for g, v in grads_and_vars]
        pairs = [(g, v) for g, v in converted if g is not None]
        if not pairs:
            raise ValueError(f"No gradients provided for any variable: {[str(v) for _, v in converted]}.")
        variables = [v for _, v in pairs]
        with init_scope():
            self._create_slots(variables)
        name = name or self._name
        graph_mode = not context.executing_eagerly()
        scope = graph_lib.get_default_graph().name_scope(name) if graph_mode else _NullScope(name)
        with scope as scope_name:
            self._prepare()
            updates = []
            for grad, var in pairs:
                with _UpdateScope(var, graph_mode):
                    if isinstance(grad, IndexedSlices):
                        values = math_ops.cast(grad.values, var.dtype)
                        updates.append(self._resource_apply_sparse_duplicate_indices(values, var, grad.indices))
                    else:
                        updates.append(self._apply_dense(math_ops.cast(grad, var.dtype), var))
            if global_step is None:
                apply_updates = self._finish(updates, scope_name or name)  # "Adam/": the group takes the scope's name
            else:
                finish = self._finish(updates, "update")
                with _control_dependencies([finish]):
                    one = convert_to_tensor(1, dtype=global_step.dtype)
                    apply_updates = _apply("AssignAddVariableOp", resource=global_step.handle, value=one,
                                           name=scope_name or None)  # fmt: skip
        if graph_mode:
            train_ops = graph_lib.get_default_graph().get_collection_ref("train_op")
            if apply_updates not in train_ops:
                train_ops.append(apply_updates)
        return apply_updates

    def _create_slots(self, var_list: list[Variable]) -> None:
        """Make the slots of ``var_list`` (subclasses)."""

    def _prepare(self) -> None:
        """Convert the hyperparameters to tensors (subclasses)."""

    def _apply_dense(self, grad: Any, var: Variable) -> Any:
        raise NotImplementedError

    def _resource_apply_sparse_duplicate_indices(self, grad: Any, var: Variable, indices: Any) -> Any:
        """Apply the rows ``grad`` at ``indices`` (which may repeat): TF sums repeated rows, then the sparse rule."""
        summed, unique_indices = _deduplicate_indexed_slices(grad, indices)
        return self._resource_apply_sparse(summed, var, unique_indices)

    def _resource_apply_sparse(self, grad: Any, var: Variable, indices: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} does not apply sparse gradients")

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
    """TF's ``group``: a NoOp after every update, named ``name`` (a scope ``X/`` names it ``X``; eagerly the
    updates already ran: None)."""
    if context.executing_eagerly():
        return None
    graph = graph_lib.get_default_graph()
    deps = [u.op if hasattr(u, "op") and not isinstance(u, graph_lib.Operation) else u for u in updates]
    with graph.name_scope(name) as scope, graph.control_dependencies([u for u in deps if u is not None]):
        return op_def_library.apply_op("NoOp", name=scope)


def _control_dependencies(deps: list[Any]) -> Any:
    """The graph's ``control_dependencies(deps)``; eagerly nothing (ops run in order)."""
    if context.executing_eagerly():
        return _NullScope("")
    return graph_lib.get_default_graph().control_dependencies([d for d in deps if d is not None])


def _as_gradient(value: Any) -> Any:
    """None, an IndexedSlices, or a tensor (TF's ``convert_to_tensor_or_indexed_slices``)."""
    if value is None or isinstance(value, IndexedSlices):
        return value
    try:
        return convert_to_tensor(value)
    except (TypeError, ValueError):
        raise TypeError(f"Gradient must be convertible to a Tensor or IndexedSlices, or None: {value}") from None


def _deduplicate_indexed_slices(values: Any, indices: Any) -> tuple[Any, Any]:
    """The rows of repeated ``indices`` summed: ``(summed values, unique indices)`` (``Unique``,
    ``UnsortedSegmentSum``)."""
    from modtensor.api import array_ops, indexing_ops, segment_ops

    unique_indices, positions = indexing_ops.unique(indices)
    summed = segment_ops.unsorted_segment_sum(values, positions, array_ops.shape(unique_indices)[0])
    return summed, unique_indices


_VALID_DTYPES = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)


def _assert_valid_dtypes(tensors: list[Any]) -> None:
    """TF 1's check: losses and variables are floating point."""
    for t in tensors:
        dtype = t.dtype.base_dtype
        if dtype not in _VALID_DTYPES:
            raise ValueError(f"Invalid type {dtype!r} for {t.name}, expected: {list(_VALID_DTYPES)}.")


def _tuple(grads: list[Any]) -> list[Any]:
    """TF's ``tuple`` (``GATE_GRAPH``): each gradient available only once all of them are computed."""
    from modtensor.api import array_ops

    graph = graph_lib.get_default_graph()
    parts = [t for g in grads if g is not None
             for t in ((g.values, g.indices) if isinstance(g, IndexedSlices) else (g,))]  # fmt: skip
    with graph.name_scope("tuple") as scope:
        with graph.control_dependencies([t.op for t in parts]):
            gate = op_def_library.apply_op("NoOp", name=scope)
        out = []
        for g in grads:
            if g is None:
                out.append(None)
                continue
            with graph.control_dependencies([gate]):
                if isinstance(g, IndexedSlices):
                    out.append(IndexedSlices(array_ops.identity(g.values), array_ops.identity(g.indices),
                                             g.dense_shape))  # fmt: skip
                else:
                    out.append(array_ops.identity(g))
    return out


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

    def _resource_apply_sparse_duplicate_indices(self, grad: Any, var: Variable, indices: Any) -> Any:
        """``var[indices] += -grad * learning_rate`` (repeated rows add up as they come)."""
        delta = math_ops.multiply(math_ops.negative(grad), math_ops.cast(self._lr_t, grad.dtype))
        return _apply("ResourceScatterAdd", resource=var.handle, indices=indices, updates=delta)


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

    def _resource_apply_sparse(self, grad: Any, var: Variable, indices: Any) -> Any:
        return _apply(
            "ResourceSparseApplyMomentum",
            var=var.handle,
            accum=self.get_slot(var, "momentum").handle,  # type: ignore[union-attr]
            lr=math_ops.cast(self._lr_t, grad.dtype),
            grad=grad,
            indices=indices,
            momentum=math_ops.cast(self._momentum_t, grad.dtype),
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

    def _resource_apply_sparse(self, grad: Any, var: Variable, indices: Any) -> Any:
        """TF 1's sparse Adam: ``m``/``v`` decayed densely, the new rows scattered in, the whole variable updated."""
        dtype = var.dtype
        beta1_power = math_ops.cast(self._non_slots["beta1_power"], dtype)
        beta2_power = math_ops.cast(self._non_slots["beta2_power"], dtype)
        lr_t = math_ops.cast(self._lr_t, dtype)
        beta1_t = math_ops.cast(self._beta1_t, dtype)
        beta2_t = math_ops.cast(self._beta2_t, dtype)
        epsilon_t = math_ops.cast(self._epsilon_t, dtype)
        lr = math_ops.truediv(
            math_ops.multiply(lr_t, math_ops.sqrt(math_ops.subtract(1.0, beta2_power))),
            math_ops.subtract(1.0, beta1_power),
        )
        m = self.get_slot(var, "m")
        v = self.get_slot(var, "v")
        m_t = self._scatter_into_decayed(m, beta1_t, indices, math_ops.multiply(grad, math_ops.subtract(1.0, beta1_t)))
        v_t = self._scatter_into_decayed(
            v, beta2_t, indices, math_ops.multiply(math_ops.multiply(grad, grad), math_ops.subtract(1.0, beta2_t))
        )
        step = math_ops.truediv(math_ops.multiply(lr, m_t), math_ops.add(math_ops.sqrt(v_t), epsilon_t))
        var_update = var.assign_sub(step, use_locking=self._use_locking, read_value=False)
        return _group([var_update, m_t, v_t], "Adam_sparse") if not context.executing_eagerly() else None

    def _scatter_into_decayed(self, slot: Any, decay: Any, indices: Any, rows: Any) -> Any:
        """``slot = slot * decay`` then ``slot[indices] += rows``; the slot's value after both."""
        decayed = slot.assign(math_ops.multiply(slot, decay), use_locking=self._use_locking)
        with _control_dependencies([decayed]):
            scattered = _apply("ResourceScatterAdd", resource=slot.handle, indices=indices, updates=rows)
        with _control_dependencies([scattered]):
            return slot.read_value()

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
