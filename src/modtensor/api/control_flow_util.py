"""What ``tf.cond``, ``tf.switch_case`` and ``tf.while_loop`` share: the v1/v2 toggle, function and op building.

Control flow v2 (functional ``If``/``Case``/``While`` ops whose branches and bodies are
library functions) is TensorFlow 2's default everywhere: inside ``tf.function`` always,
and in ``compat.v1`` graphs unless ``tf.compat.v1.disable_control_flow_v2()`` (or
``disable_v2_behavior()``, or ``TF_ENABLE_CONTROL_FLOW_V2=0`` in the environment) turned
it off; then v1 graphs get TF 1's ``Switch``/``Merge``/``Enter``/``Exit``/... form.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from typing import Any

from modtensor.framework import graph as graph_lib
from modtensor.framework import op_def_library
from modtensor.framework.func_graph import FuncGraph
from modtensor.framework.graph import Graph, Operation, SymbolicTensor
from modtensor.framework.protos import attr_value_pb2
from modtensor.framework.tensor import Tensor

__all__ = [
    "LOWER_USING_SWITCH_MERGE",
    "control_flow_v2_enabled",
    "create_function",
    "disable_control_flow_v2",
    "enable_control_flow_v2",
    "func_attr",
    "inputs_in_graph",
    "unique_fn_name",
    "use_control_flow_v2",
]

LOWER_USING_SWITCH_MERGE = "_lower_using_switch_merge"

_ENABLE_V2 = os.environ.get("TF_ENABLE_CONTROL_FLOW_V2") != "0"
_UIDS = itertools.count(1)


def enable_control_flow_v2() -> None:
    """Use control flow v2 (functional If/While) in v1 graphs too: TensorFlow 2's default."""
    global _ENABLE_V2
    _ENABLE_V2 = True


def disable_control_flow_v2() -> None:
    """v1 graphs get TF 1's Switch/Merge/Enter/Exit control flow (functions always use v2)."""
    global _ENABLE_V2
    _ENABLE_V2 = False


def control_flow_v2_enabled() -> bool:
    """True when v1 graphs use control flow v2."""
    return _ENABLE_V2


def use_control_flow_v2(graph: Graph) -> bool:
    """Whether control flow built into ``graph`` is v2: always inside a function, else per the toggle."""
    return _ENABLE_V2 or graph.building_function


def uid() -> int:
    """A process-wide counter making function names unique (TF's ``ops.uid()``)."""
    return next(_UIDS)


def unique_fn_name(scope: str, name: str) -> str:
    """TF's name of a control-flow function: ``cond/`` + ``true`` -> ``cond_true_12``."""
    return f"{scope}{name}_{uid()}".replace("/", "_")


def create_function(func_graph: FuncGraph, outer: Graph) -> str:
    """Put ``func_graph`` (as a FunctionDef named after it) and the functions it calls into ``outer``'s library."""
    function_def = func_graph.to_function_def()
    func_graph.add_to_graph(outer, function_def)
    return func_graph.name


def func_attr(name: str) -> attr_value_pb2.AttrValue:
    """A ``func`` attr naming library function ``name``."""
    value = attr_value_pb2.AttrValue()
    value.func.name = name
    return value


def as_tensor(value: Any) -> Any:
    """``value`` as a tensor without capturing: a graph tensor (of any graph) as it is, others converted.

    Eager tensors and Python values become tensors of the default graph (a function graph
    captures an eager tensor now, as TF does when it converts one).
    """
    if isinstance(value, SymbolicTensor):
        return value
    return inputs_in_graph(default_graph(), [value])[0]


def inputs_in_graph(graph: Graph, tensors: Sequence[Any]) -> list[SymbolicTensor]:
    """``tensors`` as tensors of ``graph``: a function graph captures outside ones; a v1 graph refuses eager ones.

    Eager tensors are captured first, then tensors of enclosing graphs, each in order: the
    order TF captures the inputs of a new op in (eager ones when converted, graph ones when
    the op is made), which fixes the order of a function's captured arguments.
    """
    result: list[Any] = list(tensors)
    for eager_pass in (True, False):
        for i, tensor in enumerate(tensors):
            if isinstance(tensor, Tensor) and getattr(tensor, "graph", None) is graph:
                continue
            is_graph_tensor = isinstance(tensor, SymbolicTensor)
            if eager_pass == is_graph_tensor:
                continue
            if not graph.building_function and isinstance(tensor, Tensor) and not is_graph_tensor:
                raise RuntimeError("Attempting to capture an EagerTensor without building a function.")
            result[i] = op_def_library.convert_to_tensor(tensor, graph=graph)
    return result


def stateful_ops(graphs: Sequence[FuncGraph]) -> list[Operation]:
    """The stateful ops of ``graphs`` (which make a control-flow op the stateful If/Case/While)."""
    return [op for g in graphs for op in g.get_operations() if op.op_def.is_stateful]


def default_graph() -> Graph:
    """The graph ops are added to now."""
    return graph_lib.get_default_graph()
