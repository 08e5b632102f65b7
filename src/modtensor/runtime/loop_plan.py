"""A while loop over one list of value slots: head steps, a predicate, body steps, the loop variables' update.

Both loop fast paths of the runtime end here: a compiled v1 loop frame (``compiled_loop.py``:
the lowered loop of ``tf.function`` and of a v1 Session) and the ``While`` kernel whose cond and
body functions are straight-line plans (``kernels/functional.py``: cond's steps are the head,
body's the body). A ``LoopPlan`` is built once from the executor items of its steps; ``run``
executes the whole loop on a values list the caller filled (loop variables, invariants)::

    repeat: head steps; stop unless values[pred] is true; body steps;
            values[dst] <- values[src] for every (dst, src) of ``nexts`` (all read, then all written)

With the C extension (``runtime._plan_runner.Loop``) the loop runs in C: direct-call steps (the numpy
kernels' prepared calls, the native CPU kernels' C entry point, host scalar ops) are called from
there, and the loop returns to Python only for a step that needs a kernel context (or a nested loop),
a predicate that is not a 0-d bool, or cancellation. Without it the same loop runs in Python.

Before running, two kinds of steps are taken out of the loop: ``Identity`` (the runtime's
pass-through kernel) becomes slot aliasing, and ``Const`` (a read-only value) is evaluated once
before the first iteration. Each step *gives up* (``take``) the slots it reads last in an iteration
when they are rewritten before their next read (step outputs, loop variables): the kernel may then
reuse that buffer, by the executor's ownership rule. Slots read when the loop ends (its results)
and the predicate are read at the predicate's position; the update's sources at the end.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["LoopCancelled", "LoopFailure", "LoopPlan", "LoopStep"]


@dataclass(frozen=True)
class LoopStep:
    """One kernel of a loop: the executor's item, the slots it reads and writes, and whose it is (``owner``)."""

    item: Any  # the executor's _NodeItem (``direct_call()``: how the C loop may call it)
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    owner: Any = None  # what the caller needs to run or name it (e.g. the function's executor)


class LoopFailure(Exception):
    """A step (None: the predicate) failed in ``iteration``; ``error`` is its exception."""

    def __init__(self, step: LoopStep | None, iteration: int, error: BaseException):
        super().__init__(str(error))
        self.step = step
        self.iteration = iteration
        self.error = error


class LoopCancelled(Exception):
    """The cancellation manager was cancelled before ``iteration`` started."""

    def __init__(self, iteration: int):
        super().__init__(f"cancelled before iteration {iteration}")
        self.iteration = iteration


def _runner() -> Any:
    try:
        from modtensor.runtime import _plan_runner  # type: ignore[attr-defined]
    except ImportError:
        return None
    return _plan_runner if hasattr(_plan_runner, "Loop") else None


def _is_identity(item: Any) -> bool:
    """An Identity step: its output slot can alias its input's (any value type: arrays, lists, resources)."""
    from modtensor.runtime.kernels.plumbing import IdentityKernel, _pass_through

    if getattr(item, "num_inputs", None) != 1:
        return False
    return getattr(item, "call", None) is _pass_through or type(getattr(item, "kernel", None)) is IdentityKernel


def _is_no_op(item: Any) -> bool:
    """A NoOp step: it only orders its control outputs, which the steps' order already does."""
    from modtensor.runtime.kernels.plumbing import NoOpKernel

    return type(getattr(item, "kernel", None)) is NoOpKernel


def _constant(item: Any) -> Callable[[], Any] | None:
    """The prepared call of a Const step (a read-only value, the same on every call), else None."""
    from modtensor.runtime.kernels.plumbing import ConstKernel

    call = getattr(item, "call", None)
    if call is None or item.num_inputs != 0 or type(item.kernel) is not ConstKernel:
        return None
    return call


class LoopPlan:
    """A loop's steps over ``num_slots`` value slots, ready to run (see the module docstring).

    ``variables`` are the slots ``nexts`` writes; ``results`` the slots the caller reads once the
    predicate is false. Raises nothing at run time but ``LoopFailure`` and ``LoopCancelled``.
    """

    def __init__(
        self,
        num_slots: int,
        head: Sequence[LoopStep],
        body: Sequence[LoopStep],
        pred: int,
        nexts: Sequence[tuple[int, int]],
        *,
        results: Iterable[int] = (),
    ):
        alias: dict[int, int] = {}

        def resolve(slot: int) -> int:
            return alias.get(slot, slot)

        self._hoisted: list[tuple[int, Callable[[], Any]]] = []
        kept: list[list[LoopStep]] = [[], []]
        for phase, steps in enumerate((head, body)):
            for step in steps:
                inputs = tuple(resolve(s) for s in step.inputs)
                if _is_identity(step.item) and len(step.outputs) == 1:
                    alias[step.outputs[0]] = inputs[0]
                    continue
                if _is_no_op(step.item) and not step.outputs:
                    continue
                constant = _constant(step.item)
                if constant is not None and len(step.outputs) == 1:
                    self._hoisted.append((step.outputs[0], constant))
                    continue
                kept[phase].append(LoopStep(step.item, inputs, step.outputs, step.owner))
        self.num_slots = num_slots
        self.head_end = len(kept[0])
        self.steps: list[LoopStep] = kept[0] + kept[1]
        self.pred = resolve(pred)
        self.nexts = [(dst, resolve(src)) for dst, src in nexts]
        self.results = [resolve(s) for s in results]
        self.aliases = alias  # slot -> the slot holding its value (Identity outputs)
        # Positions: head step p at p, the predicate at head_end, body step p at p + 1, the update at n + 1.
        n = len(self.steps)
        head_end = self.head_end
        last_read: dict[int, int] = {}
        for index, step in enumerate(self.steps):
            position = index if index < head_end else index + 1
            for slot in step.inputs:
                last_read[slot] = position
        for slot in (self.pred, *self.results):
            last_read[slot] = max(last_read.get(slot, -1), head_end)
        for _dst, src in self.nexts:
            last_read[src] = n + 1
        hoisted = {slot for slot, _call in self._hoisted}
        # Slots rewritten before their next read: step outputs (each iteration) and loop variables (the update).
        takeable = {slot for step in self.steps for slot in step.outputs} | {dst for dst, _src in self.nexts}
        takeable -= hoisted
        self._takes: list[tuple[int, ...]] = []
        self._drops: list[tuple[int, ...]] = []
        for index, step in enumerate(self.steps):
            position = index if index < head_end else index + 1
            self._takes.append(tuple(sorted({s for s in step.inputs if s in takeable and last_read[s] == position})))
            self._drops.append(tuple(s for s in step.outputs if s not in last_read))
        self._fast = self._compile()

    def _compile(self) -> Any:
        runner = _runner()
        if runner is None:
            return None
        rows = []
        for step, take, drop in zip(self.steps, self._takes, self._drops, strict=True):
            multi = getattr(step.item, "multi", None)
            if multi is not None and len(multi[1]) == len(step.outputs):
                rows.append((multi[0], multi[1], step.inputs, take, tuple(step.outputs), drop, None))
                continue
            direct = step.item.direct_call() if len(step.outputs) == 1 else None
            if direct is None:
                rows.append((None, None, step.inputs, take, -1, drop, None))
            else:
                call, native = direct
                rows.append((call, step.item.expected, step.inputs, take, step.outputs[0], drop, native))
        plan = runner.Plan(rows)
        return runner.Loop(plan, self.head_end, self.pred, [d for d, _ in self.nexts], [s for _, s in self.nexts])

    def run(
        self,
        values: list[Any],
        cancellation: Any,
        run_step: Callable[[LoopStep, list[Any], int], Sequence[Any]],
        predicate: Callable[[Any], bool],
    ) -> int:
        """Run the loop on ``values`` (the caller's slots filled); returns the number of iterations.

        ``run_step(step, inputs, iteration)`` runs a step the C loop hands back (returns its outputs);
        ``predicate(value)`` decides a predicate that is not a 0-d bool array (may raise).
        ``cancellation`` (a CancellationManager or None) is checked before every iteration.
        """
        for slot, call in self._hoisted:
            values[slot] = call()
        fast = self._fast
        if fast is None:
            return self._run_python(values, cancellation, run_step, predicate)
        from modtensor.runtime._plan_runner import (  # type: ignore[attr-defined]
            LOOP_CANCELLED,
            LOOP_DONE,
            LOOP_PRED,
            LOOP_STEP,
        )

        head_end = self.head_end
        state = [0, 0]
        while True:
            try:
                status = fast.run(values, state, cancellation)
            except Exception as exc:
                position, iteration = state
                raise LoopFailure(self._step_at(position), iteration, exc) from exc
            position, iteration = state
            if status == LOOP_DONE:
                return iteration
            if status == LOOP_STEP:
                index = position if position < head_end else position - 1
                self._python_step(index, values, run_step, iteration)
                state[0] = position + 1
            elif status == LOOP_PRED:
                try:
                    go = predicate(values[self.pred])
                except Exception as exc:
                    raise LoopFailure(None, iteration, exc) from exc
                if not go:
                    return iteration
                state[0] = head_end + 1
            else:
                assert status == LOOP_CANCELLED, status
                raise LoopCancelled(iteration)

    def _step_at(self, position: int) -> LoopStep | None:
        if position == self.head_end or position > len(self.steps):
            return None
        return self.steps[position if position < self.head_end else position - 1]

    def _python_step(
        self, index: int, values: list[Any], run_step: Callable[[LoopStep, list[Any], int], Sequence[Any]], it: int
    ) -> None:
        step = self.steps[index]
        inputs = [values[s] for s in step.inputs]
        for s in self._takes[index]:
            values[s] = None
        try:
            outputs = run_step(step, inputs, it)
        except Exception as exc:
            raise LoopFailure(step, it, exc) from exc
        del inputs
        for slot, value in zip(step.outputs, outputs, strict=True):
            values[slot] = value
        for s in self._drops[index]:
            values[s] = None

    def _run_python(
        self,
        values: list[Any],
        cancellation: Any,
        run_step: Callable[[LoopStep, list[Any], int], Sequence[Any]],
        predicate: Callable[[Any], bool],
    ) -> int:
        """The loop without the C extension: every step through ``run_step``."""
        head_end, n = self.head_end, len(self.steps)
        nexts = self.nexts
        iteration = 0
        while True:
            if cancellation is not None and cancellation._cancelled:
                raise LoopCancelled(iteration)
            for index in range(head_end):
                self._python_step(index, values, run_step, iteration)
            try:
                go = predicate(values[self.pred])
            except Exception as exc:
                raise LoopFailure(None, iteration, exc) from exc
            if not go:
                return iteration
            for index in range(head_end, n):
                self._python_step(index, values, run_step, iteration)
            updated = [values[src] for _dst, src in nexts]
            for (dst, _src), value in zip(nexts, updated, strict=True):
                values[dst] = value
            del updated
            iteration += 1
