"""``FuncGraph``: the graph a Python function is traced into, and the tracing itself.

``modtensor.function`` traces a Python function once per input signature: every
tensor argument becomes a ``Placeholder``, the function runs with those symbolic
tensors (its Python side effects happen now, and only now), and its results
become the graph's outputs (each through an ``Identity``, as TensorFlow names
them). Tensors from outside the trace (eager tensors, tensors of an enclosing
graph) are *captured*: the graph gets a placeholder for each, fed with the
outside value whenever the function runs, as TensorFlow does.

Nested structures (lists, tuples, namedtuples, dicts) of arguments and results
follow TensorFlow's ``nest``: dicts flatten in sorted key order, ``None`` is a
leaf that stays ``None``. This module knows nothing of execution.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from modtensor.framework import dtypes, op_def_library, tensor_shape
from modtensor.framework import tape as _tape
from modtensor.framework.auto_control_deps import add_automatic_control_dependencies
from modtensor.framework.graph import Graph, Operation, SymbolicTensor
from modtensor.framework.protos import attr_value_pb2
from modtensor.framework.tensor import Tensor, TensorSpec

__all__ = [
    "CondBranchFuncGraph",
    "ControlFlowFuncGraph",
    "FuncGraph",
    "WhileBodyFuncGraph",
    "WhileCondFuncGraph",
    "flatten_structure",
    "func_graph_from_py_func",
    "is_namedtuple",
    "pack_structure",
]


# ============================================================================ structures


def is_namedtuple(value: Any) -> bool:
    """True for instances of ``collections.namedtuple`` classes (tuples with ``_fields``)."""
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def _sorted_keys(mapping: Mapping[Any, Any]) -> list[Any]:
    try:
        return sorted(mapping)
    except TypeError:
        raise TypeError(
            f"Dictionary keys of a tf.function argument or result must be sortable, got {list(mapping)!r}"
        ) from None


def flatten_structure(structure: Any) -> list[Any]:
    """The leaves of a nest of lists, tuples, namedtuples and dicts (dicts in sorted key order), as TF's nest."""
    leaves: list[Any] = []
    _flatten_into(structure, leaves)
    return leaves


def _flatten_into(value: Any, leaves: list[Any]) -> None:
    if isinstance(value, (list, tuple)):
        for item in value:
            _flatten_into(item, leaves)
    elif isinstance(value, Mapping):
        for key in _sorted_keys(value):
            _flatten_into(value[key], leaves)
    else:
        leaves.append(value)


def pack_structure(structure: Any, flat: Sequence[Any]) -> Any:
    """``structure`` rebuilt with its leaves replaced, in order, by ``flat`` (the inverse of flatten_structure)."""
    it = iter(flat)
    packed = _pack(structure, it)
    if next(it, _END) is not _END:
        raise ValueError("pack_structure: more values than the structure has leaves")
    return packed


_END = object()


def _pack(structure: Any, it: Any) -> Any:
    if is_namedtuple(structure):
        return type(structure)(*(_pack(item, it) for item in structure))
    if isinstance(structure, (list, tuple)):
        return type(structure)(_pack(item, it) for item in structure)
    if isinstance(structure, Mapping):
        values = {key: _pack(structure[key], it) for key in _sorted_keys(structure)}
        return type(structure)((key, values[key]) for key in structure)
    value = next(it, _END)
    if value is _END:
        raise ValueError("pack_structure: fewer values than the structure has leaves")
    return value


# ============================================================================ the graph


def _pass_through(grads: list[Any]) -> list[Any]:
    """The backward function of a capture: the placeholder's gradient is the outside tensor's."""
    return grads



class FuncGraph(Graph):
    """A Graph holding a traced function body: its inputs (arguments, then captures) and outputs.

    ``inputs`` lists the argument placeholders followed by one placeholder per captured
    outside tensor; ``outputs`` the flat result tensors; ``structured_outputs`` the result
    in the function's own structure; ``captures`` pairs each outside tensor with its
    placeholder.
    """

    def __init__(self, name: str, outer_graph: Graph | None = None, seed: int | None = None):
        super().__init__()
        self.name = name
        self.outer_graph = outer_graph
        self.inputs: list[SymbolicTensor] = []
        self.outputs: list[SymbolicTensor] = []
        self.structured_input_signature: tuple[tuple[Any, ...], dict[str, Any]] | None = None
        self.structured_outputs: Any = None
        self.control_outputs: list[Any] = []  # stateful ops that must run (automatic control dependencies)
        self._captures: dict[int, tuple[Tensor, SymbolicTensor]] = {}
        # The graph-level random seed: the enclosing graph's, else (traced eagerly) the eager global seed.
        self.seed = outer_graph.seed if outer_graph is not None else seed

    @property
    def building_function(self) -> bool:
        """True: ops created here belong to a function body, and outside tensors are captured."""
        return True

    @property
    def captures(self) -> list[tuple[Tensor, SymbolicTensor]]:
        """``(outside tensor, placeholder)`` pairs, in capture order."""
        return list(self._captures.values())

    @property
    def external_captures(self) -> list[Tensor]:
        """The captured outside tensors, in capture order (the values fed at call time)."""
        return [external for external, _ in self._captures.values()]

    @property
    def internal_captures(self) -> list[SymbolicTensor]:
        """The placeholders standing for captured tensors, in capture order."""
        return [internal for _, internal in self._captures.values()]

    def capture(self, tensor: Tensor, name: str | None = None) -> SymbolicTensor:
        """The placeholder standing for ``tensor`` (eager, or of another graph) in this graph; made once per tensor.

        A tensor of this graph is returned as it is. The placeholder has the tensor's dtype
        and static shape and is named ``name`` (made unique in the current name scope).
        """
        if isinstance(tensor, SymbolicTensor) and tensor.graph is self:
            return tensor
        found = self._captures.get(id(tensor))
        if found is not None:
            # Recorded on every use, as TF does: a tape that starts tracking the outside tensor after its first
            # capture (a variable first read under stop_recording, or before the tape watched it) still follows it.
            _tape.record_operation("captured_value", [tensor], [found[1]], _pass_through)
            return found[1]
        if name is None:
            name = tensor.op.name if isinstance(tensor, SymbolicTensor) else "captured_input"
        with self.control_dependencies(None):
            placeholder = self.make_placeholder(tensor.dtype, tensor.shape, name)
        # A captured resource or TensorList keeps its handle data (element shapes and dtypes), as in TF.
        placeholder._handle_data = getattr(tensor, "_handle_data", None)
        self._captures[id(tensor)] = (tensor, placeholder)
        self.inputs.append(placeholder)
        # A tape watching the outside tensor follows it into the function (TF's "captured_value" record).
        _tape.record_operation("captured_value", [tensor], [placeholder], _pass_through)
        return placeholder

    def make_placeholder(self, dtype: Any, shape: Any, name: str) -> SymbolicTensor:
        """A new ``Placeholder`` of ``dtype`` and (possibly partial) ``shape`` named ``name`` in this graph."""
        dtype = dtypes.as_dtype(dtype).base_dtype
        shape = tensor_shape.as_shape(shape)
        op = self.create_op(
            "Placeholder",
            [],
            name=name,
            attrs={
                "dtype": attr_value_pb2.AttrValue(type=dtype.as_datatype_enum),
                "shape": attr_value_pb2.AttrValue(shape=shape.as_proto()),
            },
        )
        return op.outputs[0]

    def reset_captures(self, externals: Sequence[Tensor], internals: Sequence[SymbolicTensor]) -> None:
        """Make ``externals[i]`` the outside tensor fed to placeholder ``internals[i]`` (TF's reset_captures)."""
        self._captures = {id(e): (e, i) for e, i in zip(externals, internals, strict=True)}

    def to_function_def(self, name: str | None = None, output_names: Sequence[str] | None = None) -> Any:
        """This graph as the FunctionDef ``name`` (default: the graph's name): inputs as args, outputs as rets."""
        from modtensor.framework import function_def_lib

        return function_def_lib.graph_to_function_def(
            self,
            name or self.name,
            self.inputs,
            self.outputs,
            output_names=output_names,
            control_outputs=self.control_outputs,
        )

    def add_to_graph(self, graph: Graph, function_def: Any) -> None:
        """Put ``function_def`` (made from this graph) and every function this graph's ops call into ``graph``."""
        for nested in self._functions.values():
            graph._add_function(nested)
        for function_name, gradient in self._gradients.items():
            graph._add_gradient(function_name, gradient)
        graph._add_function(function_def)

    def __repr__(self) -> str:
        return f"FuncGraph(name={self.name}, id={id(self)})"


class ControlFlowFuncGraph(FuncGraph):
    """A FuncGraph for a branch, loop condition or loop body: it keeps the enclosing graph's device scopes.

    As in TensorFlow, one is made per control-flow op, so the device scope around the op
    applies to the ops of its functions; inside ``tf.function`` it also continues the
    enclosing name scope (branch ops are named ``cond/...``).
    """

    def __init__(self, name: str, outer_graph: Graph):
        super().__init__(name, outer_graph=outer_graph)
        self._thread.device_stack = list(outer_graph._thread.device_stack)
        outermost = outer_graph
        while isinstance(outermost, FuncGraph) and outermost.outer_graph is not None:
            outermost = outermost.outer_graph
        if isinstance(outermost, FuncGraph):
            self._thread.name_stack = outer_graph.get_name_scope()


class CondBranchFuncGraph(ControlFlowFuncGraph):
    """A branch of ``tf.cond``/``tf.switch_case``."""


class WhileCondFuncGraph(ControlFlowFuncGraph):
    """The condition of ``tf.while_loop``."""


class WhileBodyFuncGraph(ControlFlowFuncGraph):
    """The body of ``tf.while_loop``."""


# ============================================================================ tracing


# TensorFlow's rule for node names; an argument whose name breaks it gets a "Placeholder" (with TF's warning).
_VALID_NODE_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")


def _placeholder_name(name: str) -> str:
    if _VALID_NODE_NAME.match(name):
        return name
    warnings.warn(
        f"`{name}` is not a valid node name. Accepted names conform to Regex /{_VALID_NODE_NAME.pattern}/",
        stacklevel=4,
    )
    return "Placeholder"


def _placeholders_for(graph: FuncGraph, structure: Any, default_name: str) -> Any:
    """``structure`` with every TensorSpec leaf replaced by a new placeholder (named by the spec or the argument)."""
    leaves = flatten_structure(structure)
    replaced = [
        graph.make_placeholder(leaf.dtype, leaf.shape, _placeholder_name(leaf.name or default_name))
        if isinstance(leaf, TensorSpec)
        else leaf
        for leaf in leaves
    ]
    return pack_structure(structure, replaced)


def _spec_of(value: Any) -> Any:
    return TensorSpec(value.shape, value.dtype, value.op.name) if isinstance(value, SymbolicTensor) else value


def func_graph_from_py_func(
    name: str,
    python_func: Callable[..., Any],
    args: Sequence[Any],
    kwargs: Mapping[str, Any],
    arg_names: Sequence[str],
    outer_graph: Graph | None = None,
    seed: int | None = None,
    *,
    func_graph: FuncGraph | None = None,
    op_return_value: Any = None,
) -> FuncGraph:
    """Trace ``python_func(*args, **kwargs)`` into a new FuncGraph and return it.

    Every ``TensorSpec`` leaf of ``args``/``kwargs`` becomes a placeholder named after
    its spec's name, else its argument (``arg_names[i]`` for positional argument i, the
    keyword for keyword arguments); other leaves are passed as they are. The results are
    flattened; each leaf that is not None is converted to a tensor of the graph (python
    values become constants, outside tensors are captured) and passed through an
    ``Identity``. Errors raised while tracing (shape inference's ValueError, TypeError)
    propagate unchanged. ``seed`` is the graph-level random seed when there is no ``outer_graph``.
    ``func_graph`` is the graph to trace into (default: a new FuncGraph); a result that is an
    Operation becomes ``op_return_value`` run after it (how a ``cond`` branch may return an op).
    """
    graph = func_graph if func_graph is not None else FuncGraph(name, outer_graph=outer_graph, seed=seed)
    with graph.as_default():
        traced_args = tuple(
            _placeholders_for(graph, arg, arg_names[i] if i < len(arg_names) else "args") for i, arg in enumerate(args)
        )
        traced_kwargs = {key: _placeholders_for(graph, value, key) for key, value in kwargs.items()}
        graph.structured_input_signature = (
            tuple(pack_structure(a, [_spec_of(v) for v in flatten_structure(a)]) for a in traced_args),
            {k: pack_structure(v, [_spec_of(x) for x in flatten_structure(v)]) for k, v in traced_kwargs.items()},
        )
        graph.inputs = [
            leaf
            for leaf in flatten_structure((traced_args, traced_kwargs))
            if isinstance(leaf, SymbolicTensor) and leaf.graph is graph
        ]
        first_body_op = len(graph.get_operations())
        result = python_func(*traced_args, **traced_kwargs)
        flat = flatten_structure(result)
        outputs: list[Any] = []
        with graph.control_dependencies(None):
            for leaf in flat:
                if leaf is None:
                    outputs.append(None)
                    continue
                if isinstance(leaf, Operation) and op_return_value is not None:
                    with graph.control_dependencies([leaf]):
                        value = op_def_library.convert_to_tensor(op_return_value, graph=graph)
                        tensor = graph.create_op("Identity", [value], name="Identity").outputs[0]
                else:
                    tensor = op_def_library.convert_to_tensor(leaf, graph=graph)
                outputs.append(graph.create_op("Identity", [tensor], name="Identity").outputs[0])
        # Stateful ops run in program order and before the results are returned (TF's tf.function does this).
        graph.control_outputs = add_automatic_control_dependencies(
            graph, graph.get_operations()[first_body_op:], outputs
        )
    graph.outputs = [t for t in outputs if t is not None]
    graph.structured_outputs = pack_structure(result, outputs)
    return graph
