"""Compiled while loops: a v1 loop frame run as a straight-line plan per iteration (the loop's fast path).

The dataflow machine runs any loop, but for the common shape - loop variables through
``Enter -> Merge -> Switch(LoopCond) -> Identity -> body -> NextIteration -> Merge``,
results through ``Switch:0 -> Exit``, loop invariants through ``Enter(is_constant)`` - its
per-node bookkeeping (pending counts, frames, iterations) costs far more than the kernels
of a small body. A loop of that shape, with only synchronous kernels in its frame, no
nested conditional and no transfer, is compiled instead: the executor replaces its nodes
by one node (inputs: the Enters' inputs; outputs: the Exits') whose run is

    loop variables <- Enter values
    repeat: run the *head* (nodes fed only by loop variables and invariants, LoopCond among
            them); stop when the predicate is false; run the *body* (nodes fed by a Switch's
            true output, directly or not); loop variables <- NextIteration inputs
    outputs <- the loop variables each Exit's Switch forwards

Plumbing (Merge, Switch, Identity, LoopCond, Enter, Exit, NextIteration) becomes slot
aliasing: a loop iteration costs its compute kernels and little more. The iterations run as a
``LoopPlan`` (``runtime/loop_plan.py``): in C with the C extension, which calls the direct-call
kernels (numpy prepared calls, native CPU kernels, host scalar ops) itself and hands the others
back to the executor. The results equal
the dataflow machine's: iterations run one after another (``parallel_iterations`` only
changes timing), a dead Enter makes every output dead (the loop sat in an untaken
branch), and a failing kernel names its node, the frame and the iteration. Loops nested
in a loop are compiled first; their compiled node is then one step of the outer loop.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from modtensor.framework import errors, graph_walk
from modtensor.framework import node_def as node_def_lib
from modtensor.framework.protos import node_def_pb2
from modtensor.runtime import control_flow_info, loop_plan

__all__ = ["COMPILED_LOOP_OP", "PLUMBING_OPS", "CompiledLoop", "LoopStructure", "NotCompilable", "find_loops",
           "replace_loops", "LoopStepError"]  # fmt: skip

COMPILED_LOOP_OP = "_CompiledLoop"
# Members a compiled loop turns into slot aliasing (no kernel runs for them).
PLUMBING_OPS = frozenset({"Merge", "Switch", "Exit", "NextIteration", "LoopCond", "Identity", "StopGradient",
                          "NoOp"})  # fmt: skip
_NOT_COMPILABLE = frozenset({"_Send", "_Recv", "_HostSend", "_HostRecv", "_Arg", "_Retval", "_DeviceArg",
                             "_DeviceRetval", "ControlTrigger", "RefSwitch", "RefMerge"})  # fmt: skip


@dataclass
class LoopStructure:
    """The nodes of one compilable loop frame, as found in a partition graph."""

    frame: str
    node: node_def_pb2.NodeDef  # the compiled node that replaces the loop: inputs = the Enters' inputs
    enters: list[node_def_pb2.NodeDef]
    exits: list[node_def_pb2.NodeDef]
    members: list[node_def_pb2.NodeDef]  # the frame's nodes (Exits included), in topological order
    input_types: list[int] = field(default_factory=list)
    output_types: list[int] = field(default_factory=list)


def find_loops(nodes: Sequence[node_def_pb2.NodeDef], compilable: Callable[[node_def_pb2.NodeDef], bool]) -> list:
    """The loop frames of ``nodes`` that can be compiled (innermost ones; see ``replace_loops`` for nesting).

    ``compilable(node)`` says whether a node's kernel is synchronous (the executor knows).
    """
    info = control_flow_info.build_control_flow_info(nodes)
    frames: dict[str, list[int]] = {}
    enters: dict[str, list[int]] = {}
    has_child: set[str] = set()
    for i, node in enumerate(nodes):
        frame = info.frame_of[i]
        if node.op == "Enter":
            child = node.attr["frame_name"].s.decode()
            enters.setdefault(child, []).append(i)
            if frame:
                has_child.add(frame)
        if frame:
            frames.setdefault(frame, []).append(i)
    found = []
    for frame, members in frames.items():
        if frame in has_child:
            continue
        structure = _structure(nodes, frame, [nodes[i] for i in members], [nodes[i] for i in enters[frame]], compilable)
        if structure is not None:
            found.append(structure)
    return found


def _structure(
    nodes: Sequence[node_def_pb2.NodeDef],
    frame: str,
    members: list[node_def_pb2.NodeDef],
    enters: list[node_def_pb2.NodeDef],
    compilable: Callable[[node_def_pb2.NodeDef], bool],
) -> LoopStructure | None:
    """The loop's structure if it has the compilable shape, else None."""
    if any(n.op in _NOT_COMPILABLE or not compilable(n) for n in (*members, *enters)):
        return None
    if sum(1 for n in members if n.op == "LoopCond") != 1:
        return None
    walked = graph_walk.node_order(members)
    ordered = [members[i] for i in walked.order]
    exits = [n for n in ordered if n.op == "Exit"]
    readers_of_false = [
        n for n in ordered for t in n.input if not t.startswith("^") and _is_switch_false(t, ordered) and n.op != "Exit"
    ]
    if readers_of_false:
        return None  # a Switch's false output feeds something other than an Exit: not a plain loop
    name = f"{frame}/_compiled_loop"
    node = node_def_pb2.NodeDef(name=name, op=COMPILED_LOOP_OP, device=enters[0].device)
    for enter in enters:
        node.input.append(enter.input[0])
    controls = {text for enter in enters for text in enter.input[1:] if text.startswith("^")}
    node.input.extend(sorted(controls))
    return LoopStructure(
        frame,
        node,
        enters,
        exits,
        ordered,
        [enter.attr["T"].type for enter in enters],
        [exit_node.attr["T"].type for exit_node in exits],
    )


def _is_switch_false(text: str, members: list[node_def_pb2.NodeDef]) -> bool:
    source, index = node_def_lib.parse_tensor_name(text)
    return index == 0 and any(m.name == source and m.op == "Switch" for m in members)


def replace_loops(nodes: list[node_def_pb2.NodeDef], loops: list[LoopStructure]) -> list[node_def_pb2.NodeDef]:
    """``nodes`` with each loop's frame replaced by its compiled node, Exit readers reading that node's outputs."""
    renamed: dict[str, str] = {}
    removed: set[str] = set()
    for loop in loops:
        for index, exit_node in enumerate(loop.exits):
            renamed[exit_node.name] = f"{loop.node.name}:{index}" if index else loop.node.name
        removed.update(n.name for n in loop.members)
        removed.update(n.name for n in loop.enters)
    out: list[node_def_pb2.NodeDef] = []
    # A compiled node's inputs (its Enters' inputs) may read another loop's Exit: loops in a row.
    for node in [*(n for n in nodes if n.name not in removed), *(loop.node for loop in loops)]:
        if any(node_def_lib.parse_tensor_name(t)[0] in renamed for t in node.input):
            copy = node_def_pb2.NodeDef()
            copy.CopyFrom(node)
            del copy.input[:]
            for text in node.input:
                source, index = node_def_lib.parse_tensor_name(text)
                target = renamed.get(source)
                if target is None:
                    copy.input.append(text)
                elif index == node_def_lib.CONTROL_SLOT:
                    copy.input.append("^" + target.split(":")[0])
                else:
                    assert index == 0, text
                    copy.input.append(target)
            node = copy
        out.append(node)
    return out


# ============================================================================ running


class CompiledLoop:
    """The plan of one compiled loop; ``run`` executes the whole loop for one set of Enter values."""

    def __init__(self, structure: LoopStructure, steps: dict[str, tuple[Any, int]]):
        """``steps`` maps each compute member's name to (its executor item, its number of outputs); raises
        NotCompilable when the frame does not have the shape this plan runs."""
        self.structure = structure
        self.frame = structure.frame
        # Value ids: loop variables (one per non-constant Enter / Merge), invariants, then step outputs.
        members = {n.name: n for n in structure.members}
        enter_index = {e.name: i for i, e in enumerate(structure.enters)}
        ref: dict[tuple[str, int], int] = {}  # (node, output) -> value id
        body: set[str] = set()  # nodes (and Switch outputs) that only run when the loop goes on
        self._num_values = 0

        def new_value() -> int:
            self._num_values += 1
            return self._num_values - 1

        self._initial: list[tuple[int, int]] = []  # (value id, Enter input index): set before iteration 0
        merges: list[tuple[int, str]] = []  # (variable value id, NextIteration name feeding the merge)
        for enter in structure.enters:
            ref[(enter.name, 0)] = new_value()
            self._initial.append((ref[(enter.name, 0)], enter_index[enter.name]))
        constant = {e.name for e in structure.enters if e.attr["is_constant"].b}
        head: list[loop_plan.LoopStep] = []
        body_steps: list[loop_plan.LoopStep] = []
        pred_source: tuple[str, int] | None = None
        exits: list[tuple[str, int]] = []
        for node in structure.members:
            data = [node_def_lib.parse_tensor_name(t) for t in node.input if not t.startswith("^")]
            controls = [t[1:] for t in node.input if t.startswith("^")]
            if node.op == "Merge":
                entering = [(s, i) for s, i in data if s in enter_index and s not in constant]
                nexts = [(s, i) for s, i in data if members.get(s) is not None and members[s].op == "NextIteration"]
                if len(entering) != 1 or len(nexts) != 1 or controls or len(data) != 2:
                    raise NotCompilable(f"Merge {node.name} is not a loop variable's merge")
                variable = new_value()  # one per Merge: an Enter may feed several loop variables
                self._initial.append((variable, enter_index[entering[0][0]]))
                ref[(node.name, 0)] = variable
                merges.append((variable, nexts[0][0]))
                continue
            if node.op == "Switch":
                source = ref.get(data[0])
                pred = data[1]
                if source is None or members.get(pred[0]) is None or members[pred[0]].op != "LoopCond":
                    raise NotCompilable(f"Switch {node.name} is not the loop's")
                ref[(node.name, 1)] = source
                body.add(f"{node.name}:1")
                ref[(node.name, 0)] = source
                continue
            if node.op == "Exit":
                if data[0][1] != 0 or members.get(data[0][0]) is None or members[data[0][0]].op != "Switch":
                    raise NotCompilable(f"Exit {node.name} does not read a Switch's false output")
                exits.append(data[0])
                continue
            if node.op == "NextIteration":
                ref[(node.name, 0)] = ref[data[0]]
                continue
            inputs = []
            in_body = any(f"{s}:{i}" in body or s in body for s, i in data) or any(c in body for c in controls)
            for source, index in data:
                if (source, index) not in ref:
                    raise NotCompilable(f"{node.name} reads {source}:{index}, which the plan does not produce")
                inputs.append(ref[(source, index)])
            if node.op == "LoopCond":
                if in_body:
                    raise NotCompilable("the loop's predicate depends on its body")
                ref[(node.name, 0)] = inputs[0]
                pred_source = (node.name, 0)
                continue
            if node.op == "NoOp":  # only orders its control outputs: the plan's order already does
                if in_body:
                    body.add(node.name)
                continue
            if node.op in ("Identity", "StopGradient") and len(inputs) == 1:
                ref[(node.name, 0)] = inputs[0]
                if in_body:
                    body.add(node.name)
                continue
            item, num_outputs = steps[node.name]
            outputs = [new_value() for _ in range(num_outputs)]
            for index, value in enumerate(outputs):
                ref[(node.name, index)] = value
            (body_steps if in_body else head).append(loop_plan.LoopStep(item, tuple(inputs), tuple(outputs)))
            if in_body:
                body.add(node.name)
        if pred_source is None:
            raise NotCompilable("no LoopCond")
        # The loop's run: head, predicate, body, loop variables <- NextIteration inputs (runtime/loop_plan.py).
        self._plan = loop_plan.LoopPlan(
            self._num_values,
            head,
            body_steps,
            ref[pred_source],
            [(variable, ref[(name, 0)]) for variable, name in merges],
            results=[ref[source] for source in exits],
        )

    def run(
        self,
        inputs: list[Any],
        frame_id: int,
        cancellation: Any,
        run_step: Callable[[Any, list[Any], tuple[int, int]], list[Any]],
    ) -> list[Any]:
        """Run the loop on the Enter values ``inputs``; returns the Exit values.

        ``run_step(item, inputs, (frame_id, iteration))`` runs one node (the executor's) that the
        loop cannot call directly. A failing node's error names it, the frame and the iteration.
        """
        values: list[Any] = [None] * self._num_values
        for value_id, index in self._initial:
            values[value_id] = inputs[index]
        plan = self._plan

        def step(loop_step: loop_plan.LoopStep, step_inputs: list[Any], iteration: int) -> list[Any]:
            return run_step(loop_step.item, step_inputs, (frame_id, iteration))

        try:
            plan.run(values, cancellation, step, _predicate)
        except loop_plan.LoopCancelled:
            raise errors.CancelledError(None, None, "The step was cancelled") from None
        except loop_plan.LoopFailure as failure:
            error = failure.error
            if isinstance(error, (errors.CancelledError, LoopStepError)):
                raise error from error.__cause__  # a nested loop's error names its own node
            item = failure.step.item if failure.step is not None else None
            raise LoopStepError(item, error, f", in frame '{self.frame}' iteration {failure.iteration}") from error
        return [values[i] for i in plan.results]


def _predicate(pred: Any) -> bool:
    """LoopCond's check of a predicate the C loop did not read (not a 0-d bool array)."""
    if np.ndim(pred) != 0:
        raise errors.InvalidArgumentError(
            None, None, f"The second input must be a scalar, but it has shape {list(np.shape(pred))}"
        )
    return bool(pred)


class LoopStepError(Exception):
    """A node inside a compiled loop failed: the executor names it (``item``), the frame and iteration (``where``)."""

    def __init__(self, item: Any, error: BaseException, where: str):
        super().__init__(str(error))
        self.item = item
        self.error = error
        self.where = where


class NotCompilable(Exception):
    """The frame does not have the compilable shape (the dataflow machine runs it)."""
