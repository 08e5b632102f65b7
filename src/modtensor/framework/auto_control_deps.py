"""Automatic control dependencies for function bodies (TensorFlow's ``auto_control_deps``).

A traced function is a graph, and a graph has no program order: without help, two
assignments to one variable, or a read after a write, could run in either order,
and a stateful op whose result nobody uses might not run at all. After a trace,
:func:`add_automatic_control_dependencies` walks the ops created by the Python
function in creation (program) order and adds TF's control edges:

- ops using the same resource tensor are ordered: each waits for the last op that
  wrote the resource, and a write also waits for every read since that write
  (reads are ``ReadVariableOp``, ``VariableShape``, ``ResourceGather``,
  ``ResourceGatherNd``: TF's ``RESOURCE_READ_OPS``; every other resource use is a write);
- stateful ops without resource inputs run in program order among themselves
  (TF leaves out the legacy random ops, whose order it does not guarantee);
- every stateful op that must run (all but reads whose result is unused) becomes a
  control input of one ``NoOp``, and every function output waits for that NoOp, so
  a function's results are returned only after its side effects happened.

Ops inside v1 control flow (downstream of a ``Switch`` or ``Enter`` and before the
matching ``Merge``/``Exit``) are left alone, as TF leaves ops in while loops. Only
framework objects are used: the graph, its ops and their OpDefs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from modtensor.framework import dtypes
from modtensor.framework.graph import Graph, Operation

__all__ = [
    "LEGACY_RANDOM_OPS",
    "RESOURCE_READ_OPS",
    "add_automatic_control_dependencies",
    "op_is_stateful",
    "register_read_only_resource_op",
]

# TF's auto_control_deps_utils.RESOURCE_READ_OPS as registered by resource_variable_ops.py.
RESOURCE_READ_OPS: set[str] = {
    "ReadVariableOp",
    "VariableShape",
    "ResourceGather",
    "ResourceGatherNd",
    "_ReadVariablesOp",
}

# Stateful ops TF does not order (variable initializers use them outside program order).
LEGACY_RANDOM_OPS = frozenset(
    {
        "RandomUniform",
        "RandomUniformInt",
        "RandomStandardNormal",
        "ParameterizedTruncatedNormal",
        "TruncatedNormal",
        "RandomShuffle",
        "Multinomial",
        "RandomGamma",
        "RandomGammaGrad",
        "RandomPoisson",
        "RandomPoissonV2",
    }
)
_SKIPPED_STATEFUL_OPS = frozenset({"RestoreV2", "SaveV2"})  # TF's order-insensitive stateful ops we know of
_CONTROL_FLOW_ENTRIES = frozenset({"Switch", "RefSwitch", "Enter", "RefEnter"})
_CONTROL_FLOW_EXITS = frozenset({"Merge", "RefMerge", "Exit", "RefExit"})


def register_read_only_resource_op(op_type: str) -> None:
    """Declare that ``op_type`` only reads its resource inputs (reads of one resource may run in any order)."""
    RESOURCE_READ_OPS.add(op_type)


def op_is_stateful(op: Operation) -> bool:
    """TF's ``op_is_stateful``: the OpDef says stateful, and the op is not one TF leaves unordered."""
    return bool(op.op_def.is_stateful) and op.type not in LEGACY_RANDOM_OPS and op.type not in _SKIPPED_STATEFUL_OPS


def _inside_control_flow(ops: Sequence[Operation]) -> set[int]:
    """ids of the ops between a v1 Switch/Enter and its Merge/Exit (TF's ops with a control flow context)."""
    inside: set[int] = set()
    for op in ops:
        if op.type in _CONTROL_FLOW_EXITS:
            continue
        if op.type in _CONTROL_FLOW_ENTRIES or any(id(t.op) in inside for t in op.inputs):
            inside.add(id(op))
    return inside


def add_automatic_control_dependencies(
    graph: Graph, new_ops: Sequence[Operation], returned: Sequence[Any]
) -> list[Operation]:
    """Add TF's automatic control edges among ``new_ops`` (in program order) and from them to ``returned``.

    ``returned`` are the function's output tensors (its final Identities). Returns the
    ops that must run (TF's function control outputs).
    """
    resource = dtypes.resource
    inside = _inside_control_flow(new_ops)
    last_write: dict[Any, Operation] = {}  # resource tensor (or None for resource-less stateful ops) -> last writer
    reads_since_write: dict[Any, list[Operation]] = {}
    must_run: list[Operation] = []
    for op in new_ops:
        if id(op) in inside:
            continue
        stateful = op_is_stateful(op)
        is_read_op = op.type in RESOURCE_READ_OPS
        if stateful and (not is_read_op or any(t.consumers() for t in op.outputs)):
            must_run.append(op)
        if op.type in ("Switch", "RefSwitch"):
            continue
        control_inputs: list[Operation] = []
        seen: set[tuple[int, int]] = set()
        for tensor in op.inputs:
            key = (id(tensor.op), tensor.value_index)  # the resource tensor, by identity
            if tensor.dtype.base_dtype != resource or key in seen:
                continue
            seen.add(key)
            writer = last_write.get(key)
            if writer is not None and writer is not op:
                control_inputs.append(writer)
            if is_read_op:
                reads_since_write.setdefault(key, []).append(op)
            else:
                control_inputs.extend(r for r in reads_since_write.pop(key, []) if r is not op)
                last_write[key] = op
        if stateful and not seen:
            previous = last_write.get(None)
            if previous is not None:
                control_inputs.append(previous)
            last_write[None] = op
        if control_inputs:
            op._add_control_inputs(list(dict.fromkeys(control_inputs)))
    outputs = [t for t in returned if t is not None]
    if must_run and outputs:
        with graph.control_dependencies(None):
            control_output = graph.create_op("NoOp", [], name="NoOp")
        control_output._add_control_inputs(must_run)
        for tensor in outputs:
            tensor.op._add_control_input(control_output)
    return must_run
