"""NodeDef semantics against its OpDef, as TensorFlow's node_def_util defines them.

Default attrs, validation (attrs present, of the right kind, allowed and above
their minimum; input counts after expanding `N * T` and `list(type)` args), the
flat input/output dtypes and per-arg index ranges, tensor-name parsing, and the
``{{node NAME}} = Op[attrs](inputs)`` summaries that error messages carry.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from modtensor.framework import errors, op_spec
from modtensor.framework.op_def_builder import summarize_attr_value, summarize_op_def, validate_attr_value
from modtensor.framework.protos import attr_value_pb2, node_def_pb2, op_def_pb2, types_pb2

CONTROL_SLOT = -1  # the index parse_tensor_name gives a control input "^x"


def parse_tensor_name(name: str) -> tuple[str, int]:
    """Split "x:1" -> ("x", 1); "x" means "x:0"; a control input "^x" -> ("x", CONTROL_SLOT).

    As in TF, a suffix counts as an index only if it is ":" followed by digits, so
    "scope/x" and "x:y" are plain node names with index 0.
    """
    if name.startswith("^"):
        return name[1:], CONTROL_SLOT
    node, sep, index = name.rpartition(":")
    if sep and index.isdigit() and index.isascii():
        return node, int(index)
    return name, 0


def is_control_input(name: str) -> bool:
    """True for an input string naming a control dependency ("^x")."""
    return name.startswith("^")


def format_node_for_error(node: str | node_def_pb2.NodeDef) -> str:
    """TF's node reference in messages: "{{node NAME}}" (tools such as TF's error interpolation parse it)."""
    name = node if isinstance(node, str) else node.name
    return f"{{{{node {name}}}}}"


def summarize_attrs(node_def: node_def_pb2.NodeDef) -> str:
    """`name=value` for every attr sorted by name, then `_device="..."` if the node has a device."""
    parts = [f"{key}={summarize_attr_value(node_def.attr[key])}" for key in sorted(node_def.attr)]
    if node_def.device:
        parts.append(f'_device="{node_def.device}"')
    return ", ".join(parts)


def summarize_node_def(node_def: node_def_pb2.NodeDef) -> str:
    """TF's SummarizeNodeDef: `{{node add}} = AddV2[T=DT_FLOAT](x, y)` (inputs verbatim, control ones too)."""
    return (
        f"{format_node_for_error(node_def)} = {node_def.op}[{summarize_attrs(node_def)}]({', '.join(node_def.input)})"
    )


def add_default_attrs(node_def: node_def_pb2.NodeDef, op_def: op_def_pb2.OpDef) -> None:
    """Fill in, in place, every attr the node lacks that the OpDef gives a default."""
    for attr in op_def.attr:
        if attr.HasField("default_value") and attr.name not in node_def.attr:
            node_def.attr[attr.name].CopyFrom(attr.default_value)


def _node_error(node_def: node_def_pb2.NodeDef, message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(node_def, None, message)


def _get_attr(node_def: node_def_pb2.NodeDef, op_def: op_def_pb2.OpDef, name: str) -> attr_value_pb2.AttrValue:
    """The node's value of attr `name`, else the OpDef's default; InvalidArgumentError if neither exists."""
    if name in node_def.attr:
        return node_def.attr[name]
    for attr in op_def.attr:
        if attr.name == name and attr.HasField("default_value"):
            return attr.default_value
    raise _node_error(
        node_def,
        f"NodeDef missing attr '{name}' from {summarize_op_def(op_def)}; NodeDef: {format_node_for_error(node_def)}",
    )


def _arg_types(node_def: node_def_pb2.NodeDef, op_def: op_def_pb2.OpDef, arg: op_def_pb2.OpDef.ArgDef) -> list[int]:
    """The flat dtypes of one arg on this node (N copies for `N * T`, the list for `list(type)`)."""

    def where() -> str:  # built only for an error: summarizing the OpDef costs more than the lookup
        return f"; NodeDef: {format_node_for_error(node_def)}; {summarize_op_def(op_def)}"

    if arg.type_list_attr:
        value = _get_attr(node_def, op_def, arg.type_list_attr)
        if value.WhichOneof("value") != "list":
            raise _node_error(
                node_def, f"Attr '{arg.type_list_attr}' of arg '{arg.name}' must be a list(type){where()}"
            )
        types = list(value.list.type)
    else:
        if arg.type != types_pb2.DT_INVALID:
            dtype = arg.type
        else:
            value = _get_attr(node_def, op_def, arg.type_attr)
            if value.WhichOneof("value") != "type":
                raise _node_error(node_def, f"Attr '{arg.type_attr}' of arg '{arg.name}' must be a type{where()}")
            dtype = value.type
        count = 1
        if arg.number_attr:
            value = _get_attr(node_def, op_def, arg.number_attr)
            if value.WhichOneof("value") != "i":
                raise _node_error(node_def, f"Attr '{arg.number_attr}' of arg '{arg.name}' must be an int{where()}")
            count = value.i
            if count < 0:
                raise _node_error(
                    node_def, f"Value for attr '{arg.number_attr}' of {count} must be at least minimum 0{where()}"
                )
        types = [dtype] * count
    if arg.is_ref:
        types = [t if t > op_spec.REF_OFFSET else t + op_spec.REF_OFFSET for t in types]
    return types


def _args(op_def: op_def_pb2.OpDef, which: str) -> Sequence[op_def_pb2.OpDef.ArgDef]:
    if which == "input":
        return op_def.input_arg
    if which == "output":
        return op_def.output_arg
    raise ValueError(f"which must be 'input' or 'output', not {which!r}")


def input_types(node_def: node_def_pb2.NodeDef, op_def: op_def_pb2.OpDef) -> list[int]:
    """The DataType of each data input of the node, in order (ref inputs as *_REF types, as in TF)."""
    return [t for arg in op_def.input_arg for t in _arg_types(node_def, op_def, arg)]


def output_types(node_def: node_def_pb2.NodeDef, op_def: op_def_pb2.OpDef) -> list[int]:
    """The DataType of each output of the node, in order (ref outputs as *_REF types, as in TF)."""
    return [t for arg in op_def.output_arg for t in _arg_types(node_def, op_def, arg)]


def arg_ranges(
    node_def: node_def_pb2.NodeDef, op_def: op_def_pb2.OpDef, which: Literal["input", "output"] = "input"
) -> dict[str, tuple[int, int]]:
    """{arg name: (start, stop)} of each input (or output) arg in the node's flat list of tensors."""
    ranges: dict[str, tuple[int, int]] = {}
    start = 0
    for arg in _args(op_def, which):
        stop = start + len(_arg_types(node_def, op_def, arg))
        ranges[arg.name] = (start, stop)
        start = stop
    return ranges


def validate_node_def(node_def: node_def_pb2.NodeDef, op_def: op_def_pb2.OpDef) -> None:
    """Check a node against its OpDef as TF's ValidateNodeDef does; raises InvalidArgumentError.

    Checks: the op name matches; control inputs ("^x") come after data inputs; no
    attr unknown to the op (names starting with "_" are free); each attr's value has
    the right kind, an allowed value and respects the minimum; every attr without a
    default is present; the number of data inputs matches the signature.
    """
    node_ref = format_node_for_error(node_def)
    if node_def.op != op_def.name:
        raise _node_error(
            node_def, f"NodeDef op '{node_def.op}' does not match {summarize_op_def(op_def)}; NodeDef: {node_ref}"
        )
    num_inputs = 0
    seen_control = False
    for name in node_def.input:
        if is_control_input(name):
            seen_control = True
            if ":" in name:
                raise _node_error(node_def, f"Control input '{name}' must not have ':' in NodeDef: {node_ref}")
        elif seen_control:
            raise _node_error(
                node_def,
                f"Non-control input '{name}' after control input in NodeDef: {node_ref} "
                "(control inputs '^x' must come after all data inputs)",
            )
        else:
            num_inputs += 1

    attr_defs = {attr.name: attr for attr in op_def.attr}
    for key in sorted(node_def.attr):
        if key.startswith("_"):
            continue
        attr_def = attr_defs.get(key)
        if attr_def is None:
            raise _node_error(
                node_def,
                f"NodeDef mentions attr '{key}' not in {summarize_op_def(op_def)}; NodeDef: {node_ref}. "
                "(Check whether your GraphDef-interpreting binary is up to date with your "
                "GraphDef-generating binary.).",
            )
        try:
            validate_attr_value(node_def.attr[key], attr_def)
        except errors.InvalidArgumentError as e:
            raise _node_error(node_def, f"{e.message}\n\t; NodeDef: {node_ref}; {summarize_op_def(op_def)}") from None
    for attr in op_def.attr:
        if attr.name not in node_def.attr and not attr.HasField("default_value"):
            raise _node_error(
                node_def,
                f"NodeDef missing attr '{attr.name}' from {summarize_op_def(op_def)}; NodeDef: {node_ref}",
            )

    expected = input_types(node_def, op_def)
    if len(expected) != num_inputs:
        listed = ", ".join(op_spec.data_type_string(t) for t in expected)
        raise _node_error(
            node_def,
            f"NodeDef expected inputs '{listed}' do not match {num_inputs} inputs specified; "
            f"{summarize_op_def(op_def)}; NodeDef: {node_ref}",
        )
