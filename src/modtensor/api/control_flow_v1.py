"""TF 1's control flow in v1 graphs: ``cond`` from Switch/Merge, ``while_loop`` from Enter/Merge/Switch/LoopCond/
NextIteration/Exit, built as TensorFlow 2.21 builds them once ``disable_control_flow_v2()`` is in effect.

While a branch or a loop body is built, the graph's control-flow context (TF's
``CondContext``/``WhileContext``) sees every new op (``Graph._control_flow_context``):
an input from outside a cond branch is replaced by ``Switch(input, pred)[branch]``, one
from outside a loop by ``Enter(input, is_constant=True)`` (a loop invariant), and an op
without inputs gets a control edge from the context's pivot so that it runs in the
branch / in each iteration. The loop's Merge nodes are built with their Enter twice and
the second input is rewired to the NextIteration afterwards (``Operation._update_input``),
which closes the loop's back edge. Running these graphs needs the dataflow executor's
frames and dead tensors.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import Any

from modtensor.api import dispatch
from modtensor.framework import graph as graph_lib
from modtensor.framework import op_def_library, tensor_shape
from modtensor.framework.func_graph import flatten_structure, pack_structure
from modtensor.framework.graph import Graph, Operation, SymbolicTensor
from modtensor.framework.tensor import TensorSpec

__all__ = ["CondContext", "WhileContext", "cond", "while_loop"]


# ============================================================================ op helpers


def _graph() -> Graph:
    return graph_lib.get_default_graph()


def _switch(data: SymbolicTensor, pred: SymbolicTensor, name: str = "Switch") -> tuple[Any, Any]:
    """TF's ``_SwitchRefOrTensor``: a Switch colocated with its data; (output_false, output_true)."""
    graph = _graph()
    with graph.colocate_with(data.op, ignore_existing=True):
        false, true = dispatch.apply_op("Switch", name=name, data=data, pred=pred)
    return false, true


def _merge(inputs: Sequence[Any], name: str = "Merge") -> Any:
    return dispatch.apply_op("Merge", name=name, inputs=list(inputs))[0]


def _enter(data: SymbolicTensor, frame: str, is_constant: bool, parallel_iterations: int, use_input_shape: bool) -> Any:
    out = dispatch.apply_op(
        "Enter", data=data, frame_name=frame, is_constant=is_constant, parallel_iterations=parallel_iterations
    )
    if use_input_shape:
        out.set_shape(data.shape)
    return out


def _to_tensor(value: Any) -> SymbolicTensor:
    return value if isinstance(value, SymbolicTensor) else op_def_library.convert_to_tensor(value)


@contextlib.contextmanager
def _no_context(graph: Graph) -> Any:
    """Build ops outside every control-flow context (for the context's own plumbing ops)."""
    saved = graph._get_control_flow_context()
    graph._set_control_flow_context(None)
    try:
        yield
    finally:
        graph._set_control_flow_context(saved)


def _is_loop_constant_enter(op: Operation) -> bool:
    return op.type == "Enter" and bool(op.get_attr("is_constant"))


# ============================================================================ contexts


class _Context:
    """What both contexts share: the values known inside, the enclosing context, entering and leaving."""

    def __init__(self) -> None:
        self.graph = _graph()
        self.outer_context: _Context | None = self.graph._get_control_flow_context()
        self.values: set[str] = set()
        self.external_values: dict[str, SymbolicTensor] = {}
        self._saved: list[Any] = []

    def enter(self) -> None:
        self._saved.append(self.graph._get_control_flow_context())
        self.graph._set_control_flow_context(self)

    def exit(self) -> None:
        self.graph._set_control_flow_context(self._saved.pop())

    def while_context(self) -> WhileContext | None:
        """The innermost enclosing loop (this context included)."""
        context: _Context | None = self
        while context is not None and not isinstance(context, WhileContext):
            context = context.outer_context
        return context

    def add_name(self, name: str) -> None:
        self.values.add(name)

    def exit_result(self, results: Sequence[SymbolicTensor]) -> None:
        """Make the results known to the enclosing context (TF's ExitResult)."""
        if self.outer_context is not None:
            for t in results:
                self.outer_context.add_name(t.name)

    def _mark(self, op: Operation) -> None:
        op._control_flow_context = self
        for t in op.outputs:
            self.values.add(t.name)

    def add_op(self, op: Operation) -> None:  # pragma: no cover - the subclasses define it
        raise NotImplementedError

    def add_value(self, value: SymbolicTensor) -> SymbolicTensor:  # pragma: no cover - the subclasses define it
        raise NotImplementedError

    def add_inner_op(self, op: Operation) -> None:
        """An op of a nested context: its outputs are known here and in the enclosing contexts."""
        for t in op.outputs:
            self.values.add(t.name)
        if self.outer_context is not None:
            self.outer_context.add_inner_op(op)

    def control_pivot(self) -> SymbolicTensor | None:
        return None


class CondContext(_Context):
    """A branch of a v1 ``cond``: outside inputs come through ``Switch(x, pred)[branch]``."""

    def __init__(self, pred: SymbolicTensor, pivot: SymbolicTensor, branch: int):
        super().__init__()
        self.pred = pred
        self.pivot = pivot
        self.branch = branch
        self.values.add(pred.name)
        self.external_values[pred.name] = pred
        self.values.add(pivot.name)
        pivot.op._control_flow_context = self

    def control_pivot(self) -> SymbolicTensor | None:
        return self.pivot

    def add_value(self, value: SymbolicTensor) -> SymbolicTensor:
        if value.name in self.values:
            return self.external_values.get(value.name, value)
        self.values.add(value.name)
        result = value
        if self.outer_context is not None:
            result = self.outer_context.add_value(value)
            self.values.add(result.name)
            self.external_values[result.name] = result
        with _no_context(self.graph), self.graph.control_dependencies(None):
            result = _switch(result, self.pred)[self.branch]
        if self.outer_context is not None:
            self.outer_context.add_inner_op(result.op)
        self._mark(result.op)
        self.external_values[value.name] = result
        return result

    def add_op(self, op: Operation) -> None:
        if not op.inputs:
            _remove_external_control_edges(self, op)
            if not any(_in_context(c, self) for c in op.control_inputs):
                op._add_control_input(self.pivot.op)
        else:
            for index, x in enumerate(op.inputs):
                real = self.add_value(x)
                if real is not x:
                    op._update_input(index, real)
            _remove_external_control_edges(self, op)
        self._mark(op)
        if self.outer_context is not None:
            self.outer_context.add_inner_op(op)

    def process_output(self, value: SymbolicTensor) -> SymbolicTensor:
        """A branch result: a tensor from outside the branch goes through the branch's Switch too."""
        if value.name not in self.values:
            self.values.add(value.name)
            real = value
            if self.outer_context is not None:
                real = self.outer_context.add_value(value)
                self.values.add(real.name)
                self.external_values[real.name] = real
            with _no_context(self.graph), self.graph.control_dependencies(None):
                switched = _switch(real, self.pred)[self.branch]
            self._mark(switched.op)
            self.external_values[value.name] = switched
            return switched
        return self.external_values.get(value.name, value)

    def build_branch(self, fn: Callable[[], Any]) -> tuple[Any, list[SymbolicTensor] | None]:
        """Call ``fn`` inside this branch; returns its result and the flat tensors the Merges read."""
        original = fn()
        if original is None:
            return None, None
        flat = []
        for leaf in flatten_structure(original):
            if isinstance(leaf, Operation):
                with self.graph.control_dependencies([leaf]):
                    flat.append(dispatch.apply_op("Identity", input=self.pivot))
            else:
                flat.append(self.process_output(_to_tensor(leaf)))
        return original, flat


class WhileContext(_Context):
    """A v1 while loop: outside values enter the frame as loop invariants (``Enter(is_constant=True)``)."""

    def __init__(self, parallel_iterations: int, name: str = "while_context"):
        super().__init__()
        self.name = self.graph.unique_name(name)
        self.parallel_iterations = parallel_iterations
        self.pivot_for_pred: SymbolicTensor | None = None
        self.pivot_for_body: SymbolicTensor | None = None
        self.pivot: SymbolicTensor | None = None
        self.loop_exits: list[SymbolicTensor] = []

    def control_pivot(self) -> SymbolicTensor | None:
        return self.pivot_for_body if self.pivot_for_body is not None else self.pivot_for_pred

    def add_value(self, value: SymbolicTensor) -> SymbolicTensor:
        if value.name in self.values or value.op._control_flow_context is self:
            return self.external_values.get(value.name, value)
        self.values.add(value.name)
        result = value
        if self.outer_context is not None:
            result = self.outer_context.add_value(value)
        with _no_context(self.graph), self.graph.control_dependencies(None):
            enter = _enter(result, self.name, True, self.parallel_iterations, use_input_shape=True)
        if self.outer_context is not None:
            self.outer_context.add_inner_op(enter.op)
        self._fix_control_inputs_and_context([enter])
        self.values.add(enter.name)
        self.external_values[value.name] = enter
        return enter

    def add_op(self, op: Operation) -> None:
        pivot = self.control_pivot()
        if not op.inputs:
            internal = _remove_external_control_edges(self, op)
            if not internal and pivot is not None:
                op._add_control_input(pivot.op)
        else:
            for index, x in enumerate(op.inputs):
                real = self.add_value(x)
                if real is not x:
                    op._update_input(index, real)
            _remove_external_control_edges(self, op)
            free = not op.control_inputs and all(_is_loop_constant_enter(x.op) for x in op.inputs)
            if free and pivot is not None:
                op._add_control_input(pivot.op)  # ops reading only loop invariants still run once per iteration
        self._mark(op)
        if self.outer_context is not None:
            self.outer_context.add_inner_op(op)

    def _fix_control_inputs_and_context(self, enters: Sequence[SymbolicTensor]) -> None:
        """Enter ops get the control dependencies in effect around the loop, and belong to this loop."""
        for enter in enters:
            controls = self.graph._control_dependencies_for_inputs([enter.op.inputs[0].op])
            keep = [op for op in controls if _in_enclosing(op._control_flow_context, self.outer_context)]
            enter.op._control_flow_context = self
            if keep:
                enter.op._add_control_inputs(keep)

    def build_loop(
        self,
        pred: Callable[..., Any],
        body: Callable[..., Any],
        loop_vars: Any,
        shape_invariants: Any,
        return_same_structure: bool,
    ) -> Any:
        """Build the loop over ``loop_vars`` (TF's WhileContext.BuildLoop); the Exit tensors in their structure."""
        flat_orig = flatten_structure(loop_vars)
        flat = [_to_tensor(v) for v in flat_orig]
        invariants = _flat_invariants(loop_vars, shape_invariants, flat)
        self.enter()
        try:
            original_body_result, exits = self._build(pred, body, loop_vars, flat, invariants)
        finally:
            self.exit()
        packed = pack_structure(original_body_result, exits)
        if return_same_structure:
            return packed
        return exits[0] if len(exits) == 1 else packed

    def _build(
        self,
        pred: Callable[..., Any],
        body: Callable[..., Any],
        loop_vars: Any,
        flat: list[SymbolicTensor],
        invariants: list[tensor_shape.TensorShape | None],
    ) -> tuple[Any, list[SymbolicTensor]]:
        graph = self.graph
        for t in flat:
            self.values.add(t.name)
        real = flat
        if self.outer_context is not None:
            real = [self.outer_context.add_value(t) for t in flat]
        with _no_context(graph), graph.control_dependencies(None):
            enters = [
                _enter(t, self.name, False, self.parallel_iterations, use_input_shape=invariants[i] is None)
                for i, t in enumerate(real)
            ]
            for enter in enters:
                if self.outer_context is not None:
                    self.outer_context.add_inner_op(enter.op)
        outer_pivot = None
        context = self.outer_context
        while context is not None and outer_pivot is None:
            outer_pivot = context.control_pivot()
            context = context.outer_context
        if outer_pivot is not None:
            for enter in enters:
                if _is_loop_constant_enter(enter.op.inputs[0].op):
                    enter.op._add_control_input(outer_pivot.op)
        for enter, shape in zip(enters, invariants, strict=True):
            if shape is not None:
                enter._shape = shape
        self._fix_control_inputs_and_context(enters)
        for enter in enters:
            self.values.add(enter.name)
        with _no_context(graph):
            merges = [_merge([e, e]) for e in enters]
        for m in merges:
            self._mark(m.op)
        self.pivot_for_pred = merges[0]
        packed = pack_structure(loop_vars, merges)
        c = _to_tensor(pred(*_as_args(loop_vars, packed)))
        self.pivot = dispatch.apply_op("LoopCond", name="LoopCond", input=c)
        switches = [_switch(m, self.pivot) for m in merges]
        for false, _true in switches:
            self._mark(false.op)
        body_vars = [dispatch.apply_op("Identity", input=true) for _false, true in switches]
        self.pivot_for_body = body_vars[0]
        packed_body = pack_structure(loop_vars, body_vars)
        body_result = body(*_as_args(loop_vars, packed_body))
        if not isinstance(body_result, (list, tuple)) or _is_namedtuple(body_result):
            body_result = [body_result]
        result = [_to_tensor(v) for v in flatten_structure(body_result)]
        if len(merges) != len(result):
            raise ValueError(
                f"Number of inputs and outputs of 'body' must match 'loop_vars'. Got {len(merges)} for the number of "
                f"inputs/outputs, and {len(result)} for 'loop_vars'."
            )
        for m, v in zip(merges, result, strict=True):
            next_value = dispatch.apply_op("NextIteration", data=v)
            _enforce_shape_invariant(m, next_value)
            m.op._update_input(1, next_value)
            m._shape = m.shape.most_specific_compatible_shape(next_value.shape)  # relaxed, as TF's UpdateEdge
        with _no_context(graph):
            exits = [dispatch.apply_op("Exit", data=false) for false, _true in switches]
        for e in exits:
            self._mark(e.op)
            e._shape = e.op.inputs[0].shape
        self.loop_exits = exits
        self.exit_result(exits)
        return body_result, exits


def _is_namedtuple(value: Any) -> bool:
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def _as_args(structure: Any, packed: Any) -> list[Any]:
    """The loop variables as positional arguments of ``cond``/``body``."""
    if isinstance(structure, (list, tuple)) and not _is_namedtuple(structure):
        return list(packed)
    return [packed]


def _in_enclosing(op_context: Any, outer: Any) -> bool:
    """Whether an op made in ``op_context`` is visible from ``outer`` without crossing a loop boundary."""
    context = outer
    outer_while = outer.while_context() if outer is not None else None
    while context is not op_context:
        if context is None or context is outer_while:
            return op_context is None and context is None
        context = context.outer_context
    return True


def _in_context(op: Operation, context: _Context) -> bool:
    """Whether ``op`` was made in ``context`` or a context nested in it."""
    c = op._control_flow_context
    while c is not None:
        if c is context:
            return True
        c = c.outer_context
    return False


def _remove_external_control_edges(context: _Context, op: Operation) -> list[Operation]:
    """Inside a loop, drop control inputs made outside it (TF pulls them in through an Identity in the loop).

    Returns the control inputs that stay.
    """
    loop = context.while_context()
    if loop is None:
        return op.control_inputs
    internal, external = [], []
    for control in op.control_inputs:
        c = control._control_flow_context
        (internal if c is not None and c.while_context() is loop else external).append(control)
    if not external:
        return internal
    op._remove_all_control_inputs()
    op._add_control_inputs(internal)
    if isinstance(context, WhileContext):
        pulled = []
        for control in external:
            if control.outputs:
                with context.graph.control_dependencies(None):
                    pulled.append(dispatch.apply_op("Identity", input=control.outputs[0]).op)
        op._add_control_inputs(pulled)
    return internal


def _enforce_shape_invariant(merge: SymbolicTensor, next_value: SymbolicTensor) -> None:
    if not _shape_less_than_or_equal(next_value.shape, merge.shape):
        enter = merge.op.inputs[0].op
        input_t = enter.inputs[0]
        raise ValueError(
            f"Input tensor '{input_t.name}' enters the loop with shape {input_t.shape}, but has shape "
            f"{next_value.shape} after one iteration. To allow the shape to vary across iterations, use the "
            "`shape_invariants` argument of tf.while_loop to specify a less-specific shape."
        )


def _shape_less_than_or_equal(shape1: tensor_shape.TensorShape, shape2: tensor_shape.TensorShape) -> bool:
    if shape2.rank is None:
        return True
    if shape1.rank != shape2.rank:
        return False
    return all(d2 is None or d1 == d2 for d1, d2 in zip(shape1.as_list(), shape2.as_list(), strict=True))


def _flat_invariants(loop_vars: Any, shape_invariants: Any, flat: list[SymbolicTensor]) -> list[Any]:
    if shape_invariants is None:
        return [None] * len(flat)
    from modtensor.api.while_loop import _map_invariants

    specs = _map_invariants(pack_structure(loop_vars, flat), shape_invariants)
    result = []
    for spec, t in zip(specs, flat, strict=True):
        if not _shape_less_than_or_equal(t.shape, spec.shape):
            raise ValueError(
                f"The shape invariant specified for {t.name} is not compatible with the initial shape of the loop "
                f"variable. It enters the loop with shape {t.shape}, but the specified shape invariant is "
                f"{spec.shape}."
            )
        result.append(spec.shape if isinstance(spec, TensorSpec) else spec)
    return result


# ============================================================================ cond and while_loop


def cond(pred: Any, true_fn: Callable[[], Any], false_fn: Callable[[], Any], strict: bool, name: str | None) -> Any:
    """TF 1's cond: Switch on the predicate, each branch in its CondContext, a Merge per result."""
    graph = _graph()
    with graph.name_scope(name or "cond"):
        if isinstance(pred, bool):
            raise TypeError("'pred' must not be a Python bool.")
        pred = _to_tensor(pred)
        p_2, p_1 = dispatch.apply_op("Switch", data=pred, pred=pred)
        pivot_1 = dispatch.apply_op("Identity", name="switch_t", input=p_1)
        pivot_2 = dispatch.apply_op("Identity", name="switch_f", input=p_2)
        pred = dispatch.apply_op("Identity", name="pred_id", input=pred)
        context_t = CondContext(pred, pivot_1, branch=1)
        context_t.enter()
        try:
            orig_t, res_t = context_t.build_branch(true_fn)
            if orig_t is None:
                raise ValueError("'true_fn' must have a return value.")
            context_t.exit_result(res_t)
        finally:
            context_t.exit()
        context_f = CondContext(pred, pivot_2, branch=0)
        context_f.enter()
        try:
            orig_f, res_f = context_f.build_branch(false_fn)
            if orig_f is None:
                raise ValueError("'false_fn' must have a return value.")
            context_f.exit_result(res_f)
        finally:
            context_f.exit()
        if not strict:
            orig_t = _unpack_if_singleton(orig_t)
            orig_f = _unpack_if_singleton(orig_f)
        from modtensor.api.cond import structure_error

        problem = structure_error(orig_t, orig_f)
        if problem is not None:
            kind = "types" if isinstance(problem, TypeError) else "values"
            raise type(problem)(f"Incompatible return {kind} of 'true_fn' and 'false_fn': {problem}")
        if not res_t:
            raise ValueError("'true_fn' and 'false_fn' must return at least one result.")
        for x, y in zip(res_t, res_f, strict=True):
            if x.dtype.base_dtype != y.dtype.base_dtype:
                raise ValueError(
                    "Outputs of 'true_fn' and 'false_fn' must have the same type(s). Received "
                    f"{x.dtype.name} from 'true_fn' and {y.dtype.name} from 'false_fn'."
                )
        merges = [_merge([f, t]) for f, t in zip(res_f, res_t, strict=True)]
        result = pack_structure(orig_t, merges)
        return result if strict else _unpack_if_singleton(result)


def _unpack_if_singleton(result: Any) -> Any:
    if isinstance(result, (list, tuple)) and len(result) == 1:
        return result[0]
    return result


def while_loop(
    cond_fn: Callable[..., Any],
    body: Callable[..., Any],
    loop_vars: Any,
    shape_invariants: Any,
    parallel_iterations: int,
    return_same_structure: bool,
) -> Any:
    """TF 1's while_loop in the current name scope: a WhileContext builds the loop."""
    context = WhileContext(parallel_iterations)
    return context.build_loop(cond_fn, body, loop_vars, shape_invariants, return_same_structure)
