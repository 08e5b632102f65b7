"""Graphs <-> ``FunctionDef``: how a traced function enters a library, and how a library function is instantiated.

``graph_to_function_def`` is TensorFlow's GraphToFunctionDef (what ``tf.function``
and ``cond_v2``/``while_v2`` use to put a FuncGraph into a graph's library): output
args are named first, after their node (``Identity`` -> ``identity``, lower case,
other characters ``_``, made unique with ``_N``), then input args after their
placeholder (``x``, ``cond/sub/x`` -> ``cond_sub_x``); body nodes keep their names
(made unique against the arg names); inputs are written as the arg name or as
``node:out_arg:i``, control inputs sorted by name; placeholder attrs starting with
``_`` and the placeholder's ``shape`` (as ``_output_shapes``) become ``arg_attr``;
the signature is stateful when a body node is.

``instantiate`` is the other way (TF's FunctionDefToBodyHelper): the body of a
FunctionDef for a set of attrs as a GraphDef whose arguments are ``Placeholder`` nodes
named after the args, with every ``node:out_arg:i`` reference resolved to a flat
``node:k`` tensor name and every attr placeholder (``$T``) replaced by its value.
Nothing here knows devices or execution.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from modtensor.framework import errors
from modtensor.framework import node_def as node_def_lib
from modtensor.framework.op_registry import global_registry
from modtensor.framework.protos import attr_value_pb2, function_pb2, graph_pb2, node_def_pb2, op_def_pb2

if TYPE_CHECKING:
    from modtensor.framework.graph import Graph, Operation, SymbolicTensor

__all__ = [
    "FunctionBody",
    "function_op_def",
    "graph_to_function_def",
    "instantiate",
    "library_functions",
    "normalize_arg_name",
    "resolve_reference",
]


# ============================================================================ graph -> FunctionDef


def normalize_arg_name(name: str) -> str:
    """TF's NodeNameMapping::Normalize: lower case, non-alphanumerics to ``_``, from the first letter on."""
    if not name:
        return "unknown"
    chars = [c.lower() if c.isascii() and c.isalnum() else "_" for c in name]
    for i, c in enumerate(chars):
        if c.isascii() and c.isalpha():
            return "".join(chars[i:])
    return "unknown"


class _Names:
    """Used names of one function (args, rets, nodes) and how graph node names were renamed."""

    def __init__(self) -> None:
        self.used: dict[str, int] = {}
        self.mapping: dict[str, str] = {}

    def unique(self, name: str) -> str:
        if name not in self.used:
            self.used[name] = 0
            return name
        while True:
            candidate = f"{name}_{self.used[name]}"
            self.used[name] += 1
            if candidate not in self.used:
                self.used[candidate] = 0
                return candidate

    def node(self, name: str) -> str:
        self.mapping[name] = self.unique(name)
        return self.mapping[name]


def graph_to_function_def(
    graph: Graph,
    name: str,
    inputs: Sequence[SymbolicTensor],
    outputs: Sequence[SymbolicTensor],
    *,
    output_names: Sequence[str] | None = None,
    control_outputs: Sequence[Operation] = (),
    attrs: Mapping[str, attr_value_pb2.AttrValue] | None = None,
) -> function_pb2.FunctionDef:
    """The FunctionDef ``name`` of ``graph`` with ``inputs`` (placeholder outputs) as args and ``outputs`` as rets.

    Every op of the graph except the input placeholders is in the body. ``control_outputs``
    are ops that must run when the function runs (``control_ret``, named after the op).
    ValueError when a body node reads a tensor that is neither an input nor made in the body.
    """
    fdef = function_pb2.FunctionDef()
    signature = fdef.signature
    signature.name = name
    names = _Names()
    renamed: dict[str, str] = {}  # graph tensor "node:i" -> function reference
    if output_names is not None and len(output_names) != len(outputs):
        raise ValueError(f"{len(output_names)} output names for {len(outputs)} outputs of function '{name}'")
    for i, tensor in enumerate(outputs):
        arg = signature.output_arg.add(type=tensor.dtype.as_datatype_enum)
        if output_names is not None:
            if output_names[i] in names.used:
                raise ValueError(
                    f"Cannot have duplicate output names. Name '{output_names[i]}' appears more than once in "
                    "'output_names' array."
                )
            names.used[output_names[i]] = 0
            arg.name = output_names[i]
        else:
            arg.name = names.unique(normalize_arg_name(tensor.op.name))
    input_ops = set()
    for i, tensor in enumerate(inputs):
        op = tensor.op
        input_ops.add(op)
        arg_name = names.unique(normalize_arg_name(op.name))
        names.mapping[op.name] = arg_name
        signature.input_arg.add(name=arg_name, type=tensor.dtype.as_datatype_enum)
        arg_attrs = function_pb2.FunctionDef.ArgAttrs()
        node = op._node_def
        for key in sorted(node.attr):
            value = node.attr[key]
            if key.startswith("_"):
                arg_attrs.attr[key].CopyFrom(value)
            elif key == "shape" and tensor.dtype.as_datatype_enum != _DT_RESOURCE:
                arg_attrs.attr["_output_shapes"].list.shape.add().CopyFrom(value.shape)
        if arg_attrs.attr:
            fdef.arg_attr[i].CopyFrom(arg_attrs)
        renamed[f"{op.name}:{tensor.value_index}"] = arg_name
    body = [op for op in graph.get_operations() if op not in input_ops]
    for op in body:
        node_name = names.node(op.name)
        spans = node_def_lib.arg_ranges(op._node_def, op.op_def, "output")
        for out_name, (start, stop) in spans.items():
            for k in range(start, stop):
                renamed.setdefault(f"{op.name}:{k}", f"{node_name}:{out_name}:{k - start}")
    registry_stateful = False
    for op in body:
        node = fdef.node_def.add()
        node.CopyFrom(op._node_def)
        node.name = names.mapping[op.name]
        del node.input[:]
        for index, tensor in enumerate(op.inputs):
            key = f"{tensor.op.name}:{tensor.value_index}"
            if key not in renamed:
                raise ValueError(
                    f"Input {index}, '{key}', of node '{op.name}' in function '{name}' is not available. You might "
                    "need to include it in inputs or include its source node in the body"
                )
            node.input.append(renamed[key])
        for control in sorted(op.control_inputs, key=lambda c: c.name):
            if control.name not in names.mapping:
                raise ValueError(
                    f"The source of control edge {control.name} -> {op.name} is not in the body. Encountered while "
                    f"creating function '{name}'"
                )
            node.input.append("^" + names.mapping[control.name])
        registry_stateful = registry_stateful or op.op_def.is_stateful
    if registry_stateful:
        signature.is_stateful = True
    for arg, tensor in zip(signature.output_arg, outputs, strict=True):
        key = f"{tensor.op.name}:{tensor.value_index}"
        if key not in renamed:
            raise ValueError(
                f"TF_Output {key} is neither in the function body nor among function inputs. Encountered while "
                f"creating function '{name}'"
            )
        fdef.ret[arg.name] = renamed[key]
    control_names = []
    for op in control_outputs:
        if op.name in control_names:
            raise ValueError(f"Repeated control output name: {op.name}")
        control_names.append(op.name)
        fdef.control_ret[op.name] = names.mapping[op.name]
    signature.control_output.extend(sorted(control_names))
    for key, value in (attrs or {}).items():
        fdef.attr[key].CopyFrom(value)
    return fdef


_DT_RESOURCE = 20


# ============================================================================ FunctionDef -> graph


def library_functions(library: function_pb2.FunctionDefLibrary) -> dict[str, function_pb2.FunctionDef]:
    """The functions of a library by name."""
    return {f.signature.name: f for f in library.function}


def function_op_def(function: function_pb2.FunctionDef) -> op_def_pb2.OpDef:
    """The OpDef of a node that calls ``function`` directly by name: its signature, as TF's library uses."""
    op_def = op_def_pb2.OpDef()
    op_def.CopyFrom(function.signature)
    return op_def


@dataclass(frozen=True)
class FunctionBody:
    """An instantiated function: its body as a GraphDef, where its args enter and its results leave.

    ``arg_nodes[i]`` is the Placeholder standing for arg i; ``ret_tensors[i]`` the tensor
    (``node:k``) returned as output i; ``control_ret_nodes`` the nodes that must run.
    """

    name: str
    graph_def: graph_pb2.GraphDef
    arg_nodes: tuple[str, ...]
    arg_types: tuple[int, ...]
    ret_tensors: tuple[str, ...]
    ret_types: tuple[int, ...]
    control_ret_nodes: tuple[str, ...]
    is_stateful: bool


def _arg_type(function: function_pb2.FunctionDef, arg: op_def_pb2.OpDef.ArgDef, attrs: Mapping[str, Any]) -> int:
    if arg.number_attr or arg.type_list_attr:
        raise errors.UnimplementedError(
            None,
            None,
            f"Function '{function.signature.name}': argument '{arg.name}' is a list of tensors; instantiating "
            "functions with list arguments is not supported",
        )
    if arg.type_attr:
        value = attrs.get(arg.type_attr)
        if value is None:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Attr {arg.type_attr} is not found from {_attrs_text(attrs)} while instantiating function "
                f"'{function.signature.name}'",
            )
        return value.type
    return arg.type


def _attrs_text(attrs: Mapping[str, Any]) -> str:
    return "{" + ", ".join(sorted(attrs)) + "}"


def resolve_reference(text: str, ranges: Mapping[str, Mapping[str, int]], args: Mapping[str, str]) -> str:
    """A FunctionDef input (``arg``, ``node:out_arg:i``, ``node:i``, ``^node``) as a graph input string.

    ``ranges`` maps body node -> {output arg: first flat index}; ``args`` maps arg name -> the
    graph tensor standing for it. InvalidArgumentError for a reference to nothing.
    """
    if text.startswith("^"):
        node = text[1:]
        return "^" + node_def_lib.parse_tensor_name(args[node])[0] if node in args else text
    parts = text.split(":")
    if len(parts) == 1:
        if parts[0] in args:
            return args[parts[0]]
        raise errors.InvalidArgumentError(
            None, None, f"Input '{text}' is neither a function argument nor a node output"
        )
    if len(parts) == 3:
        node, out_arg, index = parts
        start = ranges.get(node, {}).get(out_arg)
        if start is None:
            raise errors.InvalidArgumentError(
                None, None, f"Cannot resolve '{text}' in a function body: unknown node or output arg"
            )
        flat = start + int(index)
        return node if flat == 0 else f"{node}:{flat}"
    return text


def _output_ranges(
    function: function_pb2.FunctionDef, library: Mapping[str, function_pb2.FunctionDef]
) -> dict[str, dict[str, int]]:
    """Body node -> {output arg name: first flat output index}."""
    registry = global_registry()
    ranges: dict[str, dict[str, int]] = {}
    for node in function.node_def:
        callee = library.get(node.op)
        if callee is not None:
            ranges[node.name] = {arg.name: i for i, arg in enumerate(callee.signature.output_arg)}
            continue
        registration = registry.lookup(node.op)
        if registration is None:
            continue
        spans = node_def_lib.arg_ranges(node, registration.op_def, "output")
        ranges[node.name] = {name: start for name, (start, _) in spans.items()}
    return ranges


def _substitute(node: node_def_pb2.NodeDef, attrs: Mapping[str, attr_value_pb2.AttrValue], fname: str) -> None:
    for key, value in list(node.attr.items()):
        if value.placeholder:
            found = attrs.get(value.placeholder)
            if found is None:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Attr {value.placeholder} is not found from {_attrs_text(attrs)} while instantiating function "
                    f"'{fname}' (node '{node.name}', attr '{key}')",
                )
            node.attr[key].CopyFrom(found)


def _as_call_op(node: node_def_pb2.NodeDef, callee: function_pb2.FunctionDef) -> None:
    """A node calling ``callee`` by name becomes the equivalent ``(Stateful)PartitionedCall``."""
    call_attrs = {k: v for k, v in node.attr.items() if not k.startswith("_")}
    internal = {k: v for k, v in node.attr.items() if k.startswith("_")}
    node.attr.clear()
    node.op = "StatefulPartitionedCall" if callee.signature.is_stateful else "PartitionedCall"
    node.attr["f"].func.name = callee.signature.name
    for key, value in call_attrs.items():
        node.attr["f"].func.attr[key].CopyFrom(value)
    node.attr["Tin"].list.type.extend(_arg_type(callee, a, call_attrs) for a in callee.signature.input_arg)
    node.attr["Tout"].list.type.extend(_arg_type(callee, a, call_attrs) for a in callee.signature.output_arg)
    for key, value in internal.items():
        node.attr[key].CopyFrom(value)


def instantiate(
    function: function_pb2.FunctionDef,
    attrs: Mapping[str, attr_value_pb2.AttrValue],
    library: function_pb2.FunctionDefLibrary | Mapping[str, function_pb2.FunctionDef],
) -> FunctionBody:
    """The body of ``function`` for ``attrs`` (its ``$placeholder`` attrs' values) as a GraphDef.

    The GraphDef carries ``library`` (the calls in the body need it). Args become
    ``Placeholder`` nodes (with the arg's ``_output_shapes`` as their shape when known).
    """
    functions = library_functions(library) if isinstance(library, function_pb2.FunctionDefLibrary) else library
    signature = function.signature
    fname = signature.name
    graph_def = graph_pb2.GraphDef()
    if isinstance(library, function_pb2.FunctionDefLibrary):
        graph_def.library.CopyFrom(library)
    else:
        graph_def.library.function.extend(functions.values())
    body_names = {n.name for n in function.node_def}
    args: dict[str, str] = {}
    arg_nodes, arg_types = [], []
    for i, arg in enumerate(signature.input_arg):
        dtype = _arg_type(function, arg, attrs)
        if arg.name in body_names:
            raise errors.InvalidArgumentError(
                None, None, f"Function '{fname}': argument '{arg.name}' has the name of a node of its body"
            )
        node = graph_def.node.add(name=arg.name, op="Placeholder")
        node.attr["dtype"].type = dtype
        shapes = function.arg_attr[i].attr.get("_output_shapes") if i in function.arg_attr else None
        if shapes is not None and len(shapes.list.shape) == 1:
            node.attr["shape"].shape.CopyFrom(shapes.list.shape[0])
        else:
            node.attr["shape"].shape.unknown_rank = True
        args[arg.name] = arg.name
        arg_nodes.append(arg.name)
        arg_types.append(dtype)
    ranges = _output_ranges(function, functions)
    registry = global_registry()
    for body in function.node_def:
        node = graph_def.node.add()
        node.CopyFrom(body)
        _substitute(node, attrs, fname)
        callee = functions.get(node.op)
        if callee is not None and registry.lookup(node.op) is None:
            _as_call_op(node, callee)
        del node.input[:]
        try:
            node.input.extend(resolve_reference(text, ranges, args) for text in body.input)
        except errors.InvalidArgumentError as e:
            raise errors.InvalidArgumentError(
                None, None, f"Function '{fname}', node '{body.name}': {e.message}"
            ) from None
    ret_tensors, ret_types = [], []
    for arg in signature.output_arg:
        if arg.name not in function.ret:
            raise errors.InvalidArgumentError(None, None, f"Function '{fname}': no ret for output '{arg.name}'")
        ret_tensors.append(resolve_reference(function.ret[arg.name], ranges, args))
        ret_types.append(_arg_type(function, arg, attrs))
    control = tuple(function.control_ret[name] for name in signature.control_output if name in function.control_ret)
    return FunctionBody(
        fname,
        graph_def,
        tuple(arg_nodes),
        tuple(arg_types),
        tuple(ret_tensors),
        tuple(ret_types),
        control,
        signature.is_stateful,
    )
