"""Kernels of the functional control-flow ops (If, Case, While, the function-call ops) and ``_SwitchN``, on DEFAULT.

Each kernel runs library functions through the function library runtime of its graph
(``OpKernelConstruction.function_library``, see ``runtime/function_library.py``),
instantiated for the kernel's own device on first use and reused on every call:

- ``If``/``StatelessIf``: the predicate (host memory on non-CPU devices, TF's ``ToBool``
  rules: a non-zero number, a non-empty string, a non-empty non-scalar tensor is true)
  picks ``then_branch`` or ``else_branch``, which gets the other inputs.
- ``Case``/``StatelessCase``: ``branch_index`` picks one of ``branches``; out of range
  picks the last one (TF's default branch).
- ``While``/``StatelessWhile``: ``cond`` on the loop values, then ``body`` makes the next
  values, until ``cond`` is false; outputs are the last values.
- ``PartitionedCall``/``StatefulPartitionedCall``: ``f`` on the inputs.

Values pass between the caller and the functions without leaving their device. An
error inside a function names the function (``{{function_node NAME}}``), its node and
op, and, for a loop, the iteration. ``_SwitchN`` (the lowered form of ``Case``) forwards
its data to output ``output_index`` (the last one when out of range); the other outputs
stay unset, which the executor treats as dead values, as for ``Switch``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modtensor.framework import dtypes, errors
from modtensor.framework.protos import types_pb2
from modtensor.runtime import loop_plan
from modtensor.runtime.function_library import FunctionLibraryRuntime, InstantiatedFunction, in_function
from modtensor.runtime.kernel_registry import DEFAULT_DEVICE_TYPE, KernelRegistration, KernelRegistry
from modtensor.runtime.op_kernel import OpKernel, OpKernelConstruction, OpKernelContext
from modtensor.runtime.rendezvous import SentTensor, copy_tensor

__all__ = ["register", "to_bool"]

SOURCE = "modtensor.runtime.kernels.functional"
_UNSET = object()


def _cancellation(ctx: OpKernelContext) -> Any:
    """The calling step's CancellationManager (None outside a graph step)."""
    step = ctx.step
    return step.cancellation if step is not None else None


def to_bool(value: Any, what: str = "") -> bool:
    """TensorFlow's ToBool: a scalar is true when non-zero (non-empty for strings); other tensors when non-empty."""
    array = np.asarray(value)
    if array.ndim != 0:
        return array.size > 0
    if array.dtype == np.bool_:
        return bool(array)
    if array.dtype.kind in "iuf":
        return bool(array != 0)
    if array.dtype.kind in "SUO":
        item = array.item()
        return len(item) > 0 if isinstance(item, (bytes, str)) else bool(item)
    try:
        name = dtypes.as_dtype(array.dtype).name
    except TypeError:
        name = str(array.dtype)
    raise errors.InvalidArgumentError(None, None, f"{what}{name} cannot be converted to a boolean")


class _FunctionCallingKernel(OpKernel):
    """Base: the function library of the graph, and the functions of this node instantiated on first use."""

    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        library = ctx.function_library
        if library is None:
            raise errors.FailedPreconditionError(
                ctx.node_def,
                None,
                f"Op {ctx.type} (node '{ctx.name}') calls library functions, but its graph was compiled without a "
                "function library",
            )
        self._library: FunctionLibraryRuntime = library
        self._functions: dict[str, InstantiatedFunction] = {}

    def _function(self, func: Any) -> InstantiatedFunction:
        """The instantiation of a ``func`` attr value (NameAttrList) on this kernel's device."""
        found = self._functions.get(func.name)
        if found is None:
            found = self._library.instantiate(func.name, dict(func.attr), self.device)
            self._functions[func.name] = found
        return found

    def _args(self, ctx: OpKernelContext, start: int) -> list[SentTensor]:
        device = self.device
        host = self.input_host_memory
        return [SentTensor(ctx.inputs[i], device, host[i]) for i in range(start, len(ctx.inputs))]

    def _set_outputs(self, ctx: OpKernelContext, results: list[SentTensor], fname: str) -> None:
        if len(results) != ctx.num_outputs:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Function '{fname}' returned {len(results)} values; op {self.type_string} expects {ctx.num_outputs}",
            )
        host = self.output_host_memory
        device = self.device
        for i, sent in enumerate(results):
            ctx.set_output(i, copy_tensor(sent, device, host[i]))

    def _host_scalar(self, sent: SentTensor) -> Any:
        return sent.value if sent.on_host else sent.device.to_host(sent.value)


class IfKernel(_FunctionCallingKernel):
    """``If``/``StatelessIf``: run ``then_branch`` or ``else_branch`` on the inputs after the predicate."""

    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        self._then = ctx.get_attr_proto("then_branch").func
        self._else = ctx.get_attr_proto("else_branch").func

    def compute(self, ctx: OpKernelContext) -> None:
        """Pick the branch and run it."""
        cond = ctx.inputs[0]
        if not self.input_host_memory[0]:
            cond = self.device.to_host(cond)
        taken = to_bool(cond)
        branch = self._then if taken else self._else
        function = self._function(branch)
        context = f"{'then' if taken else 'else'} branch of '{self.name}'"
        results = function.run(self._args(ctx, 1), cancellation=_cancellation(ctx), context=context)
        self._set_outputs(ctx, results, branch.name)


class CaseKernel(_FunctionCallingKernel):
    """``Case``/``StatelessCase``: run ``branches[branch_index]`` (the last branch when out of range)."""

    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        self._branches = list(ctx.get_attr_proto("branches").list.func)

    def compute(self, ctx: OpKernelContext) -> None:
        """Pick the branch and run it."""
        index_value = ctx.inputs[0]
        if not self.input_host_memory[0]:
            index_value = self.device.to_host(index_value)
        index = np.asarray(index_value)
        if index.ndim != 0:
            raise errors.InvalidArgumentError(
                None, None, f"branch_index must be scalar, but received shape {list(index.shape)}"
            )
        branch_index = int(index)
        if branch_index < 0 or branch_index >= len(self._branches):
            branch_index = len(self._branches) - 1
        branch = self._branches[branch_index]
        function = self._function(branch)
        context = f"branch {branch_index} of '{self.name}'"
        results = function.run(self._args(ctx, 1), cancellation=_cancellation(ctx), context=context)
        self._set_outputs(ctx, results, branch.name)


class WhileKernel(_FunctionCallingKernel):
    """``While``/``StatelessWhile``: ``cond`` then ``body`` on the loop values until ``cond`` is false.

    On the host, when cond and body are each one straight-line plan (``InstantiatedFunction.call_frame``),
    the loop runs as one ``LoopPlan`` (runtime/loop_plan.py) over the loop variables and both functions'
    value slots: cond's steps are the head, its result the predicate, body's steps the body, its results
    the next loop values. Arguments and results then pass through slots, not through a rendezvous and a
    step per call; the functions are instantiated once, as before. Otherwise every iteration calls the
    functions through ``InstantiatedFunction.run``. Errors are the same either way.
    """

    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        self._cond = ctx.get_attr_proto("cond").func
        self._body = ctx.get_attr_proto("body").func
        self._loop: Any = _UNSET  # the LoopPlan of cond and body (None: they run through ``run``)

    def compute(self, ctx: OpKernelContext) -> None:
        """Run the loop."""
        cond = self._function(self._cond)
        body = self._function(self._body)
        loop = self._loop
        if loop is _UNSET:
            loop = self._loop = self._frame_loop(cond, body, ctx.num_outputs)
        if loop is not None:
            self._run_frames(ctx, loop, cond, body)
            return
        values = self._args(ctx, 0)
        cancellation = _cancellation(ctx)
        iteration = 0
        while True:
            where = f"iteration {iteration} of the loop '{self.name}'"
            if cancellation is not None and cancellation.cancelled:
                raise errors.CancelledError(None, None, f"The step was cancelled in {where}")
            pred = cond.run(values, cancellation=cancellation, context=where)
            if len(pred) != 1:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Expected a single scalar which can be converted to a boolean, got {len(pred)} tensors.",
                )
            if not to_bool(self._host_scalar(pred[0])):
                break
            values = body.run(values, cancellation=cancellation, context=where)
            if len(values) != ctx.num_outputs:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Function '{self._body.name}' returned {len(values)} values; the loop has "
                    f"{ctx.num_outputs} loop variables",
                )
            iteration += 1
        self._set_outputs(ctx, values, self._body.name)

    def _frame_loop(self, cond: InstantiatedFunction, body: InstantiatedFunction, num_vars: int) -> Any:
        """The LoopPlan of cond and body over one slot list (loop variables first), or None when they are not
        both single host call frames of the right arity."""
        if not self.device.is_host or cond.num_args != num_vars or body.num_args != num_vars:
            return None
        types = tuple(t.as_datatype_enum for t in self.input_types)
        if not (types == tuple(cond.arg_types) == tuple(body.arg_types) == tuple(body.ret_types)):
            return None  # ``run`` checks every value it feeds: let it report the mismatch
        cond_frame, body_frame = cond.call_frame(), body.call_frame()
        if cond_frame is None or body_frame is None:
            return None
        if len(cond_frame.results) != 1 or len(body_frame.results) != num_vars:
            return None  # ``run`` raises the arity errors
        next_slot = num_vars

        def place(function: Any, name: str) -> tuple[list[loop_plan.LoopStep], Any]:
            nonlocal next_slot
            frame = function.frame
            offset = next_slot
            next_slot += frame.num_slots
            where = {slot: index for index, slots in enumerate(function.args) for slot in slots}

            def slot_of(slot: int) -> int:
                index = where.get(slot)
                return index if index is not None else offset + slot

            owner = (frame.executor, name)
            steps = [
                loop_plan.LoopStep(item, tuple(slot_of(s) for s in inputs), tuple(slot_of(s) for s in outputs), owner)
                for item, inputs, outputs in frame.steps
            ]
            results = [slot_of(slot) if in_slot else slot for in_slot, slot in function.results]
            return steps, results

        head, (pred,) = place(cond_frame, cond.name)
        body_steps, nexts = place(body_frame, body.name)
        return loop_plan.LoopPlan(next_slot, head, body_steps, pred, list(enumerate(nexts)), results=range(num_vars))

    def _run_frames(self, ctx: OpKernelContext, loop: Any, cond: InstantiatedFunction, body: Any) -> None:
        """The loop through its LoopPlan (see the class docstring)."""
        from modtensor.runtime.executor import StepContext
        from modtensor.runtime.graph_execution import _STEP_IDS
        from modtensor.runtime.rendezvous import LocalRendezvous

        num_vars = ctx.num_outputs
        values: list[Any] = [None] * loop.num_slots
        values[:num_vars] = ctx.inputs
        cancellation = _cancellation(ctx)
        steps: list[Any] = []  # the functions' StepContext, made when a step needs a kernel context

        def run_step(step: loop_plan.LoopStep, inputs: list[Any], iteration: int) -> list[Any]:
            if not steps:
                steps.append(StepContext(LocalRendezvous(), step_id=next(_STEP_IDS), cancellation=cancellation))
            return step.owner[0].run_item(steps[0], step.item, inputs, (0, 0))

        try:
            loop.run(values, cancellation, run_step, to_bool)
        except loop_plan.LoopCancelled as cancelled:
            where = f"iteration {cancelled.iteration} of the loop '{self.name}'"
            raise errors.CancelledError(None, None, f"The step was cancelled in {where}") from None
        except loop_plan.LoopFailure as failure:
            if failure.step is None:  # the predicate (to_bool)
                raise failure.error from failure.error.__cause__
            executor, name = failure.step.owner
            error = executor._error(failure.step.item, failure.error)
            where = f"iteration {failure.iteration} of the loop '{self.name}'"
            raise in_function(error, name, where) from failure.error
        for index in range(num_vars):
            ctx.set_output(index, values[index])


class CallKernel(_FunctionCallingKernel):
    """``PartitionedCall``/``StatefulPartitionedCall``: run ``f`` on the inputs."""

    def __init__(self, ctx: OpKernelConstruction):
        super().__init__(ctx)
        self._f = ctx.get_attr_proto("f").func

    def compute(self, ctx: OpKernelContext) -> None:
        """Run the function."""
        function = self._function(self._f)
        self._set_outputs(ctx, function.run(self._args(ctx, 0), cancellation=_cancellation(ctx)), self._f.name)


class SwitchNKernel(OpKernel):
    """``_SwitchN``: the data to output ``output_index`` (the last one when out of range); the others are dead."""

    allow_unset_outputs = True

    def compute(self, ctx: OpKernelContext) -> None:
        """Forward the data to the chosen output."""
        index = np.asarray(ctx.inputs[1])
        if index.ndim != 0:
            raise errors.InvalidArgumentError(
                self.node_def, None, f"output_index must be a scalar, but it has shape {list(index.shape)}"
            )
        chosen = int(index)
        if chosen < 0 or chosen >= ctx.num_outputs:
            chosen = ctx.num_outputs - 1
        ctx.outputs[chosen] = ctx.inputs[0]


_KERNELS: dict[str, tuple[type[OpKernel], tuple[str, ...]]] = {
    "If": (IfKernel, ("cond",)),
    "StatelessIf": (IfKernel, ("cond",)),
    "Case": (CaseKernel, ("branch_index",)),
    "StatelessCase": (CaseKernel, ("branch_index",)),
    "While": (WhileKernel, ()),
    "StatelessWhile": (WhileKernel, ()),
    "PartitionedCall": (CallKernel, ()),
    "StatefulPartitionedCall": (CallKernel, ()),
}


def register(registry: KernelRegistry) -> list[KernelRegistration]:
    """Register the functional kernels and ``_SwitchN`` for DEFAULT (predicates and indices in host memory)."""
    regs = [
        registry.register(op, DEFAULT_DEVICE_TYPE, cls, host_memory=host, source=SOURCE)
        for op, (cls, host) in _KERNELS.items()
    ]
    host_types = [types_pb2.DT_INT32, types_pb2.DT_STRING, types_pb2.DT_RESOURCE, types_pb2.DT_VARIANT]
    device_types = [
        t for t in types_pb2.DataType.values() if t not in host_types and t != types_pb2.DT_INVALID and t < 100
    ]
    for types, host in ((device_types, ("output_index",)), (host_types, ("data", "output_index", "outputs"))):
        regs.append(
            registry.register(
                "_SwitchN",
                DEFAULT_DEVICE_TYPE,
                SwitchNKernel,
                constraints={"T": types},
                host_memory=host,
                source=SOURCE,
            )
        )
    return regs
