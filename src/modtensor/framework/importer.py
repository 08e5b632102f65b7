"""``import_graph_def``: add the nodes of a GraphDef to the default graph, with TensorFlow's semantics.

Nodes may come in any order (they are added in topological order of data and
control inputs); names get a prefix (``import/`` by default, made unique like a
name scope; ``name=""`` adds none and renames clashing nodes ``x_1``); ``input_map``
rewires inputs to existing tensors (``"x:0"``/``"x"``) or ops (``"^x"``); defaults
are added, nodes are validated and shapes inferred, and a node's ``_output_shapes``
refines its static shapes (the attr itself is dropped, as TensorFlow does). The
function library is copied into the graph; a node whose op is a library function (a direct call) is
checked against the function's signature, as TensorFlow does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from modtensor.framework import errors, graph_walk
from modtensor.framework import node_def as node_def_lib
from modtensor.framework.graph import Graph, Operation, SymbolicTensor, get_default_graph
from modtensor.framework.op_registry import OpRegistry, global_registry
from modtensor.framework.protos import function_pb2, graph_pb2, node_def_pb2, op_def_pb2

__all__ = ["import_graph_def"]

_OUTPUT_SHAPES = "_output_shapes"


def _parse_input_map_key(key: str) -> tuple[str, int]:
    name, index = node_def_lib.parse_tensor_name(key)
    if not key.startswith("^") and ":" in key and key.rsplit(":", 1)[1] != str(index):
        raise ValueError(
            f"Cannot convert '{key}' to a tensor name. Second component of the name following the `:` "
            f"should be an int. Got {key.rsplit(':', 1)[1]}."
        )
    return name, index


def _normalize_input_map(graph: Graph, input_map: Mapping[str, Any] | None) -> dict[tuple[str, int], Any]:
    if input_map is None:
        return {}
    if not isinstance(input_map, Mapping):
        raise TypeError(f"input_map must be a dictionary mapping strings to Tensor objects, not {type(input_map)}")
    bad = [k for k in input_map if not isinstance(k, str)]
    if bad:
        raise TypeError(f"All keys for argument `input_map` must be strings. Obtained keys: {bad}")
    result: dict[tuple[str, int], Any] = {}
    for key, value in input_map.items():
        name, index = _parse_input_map_key(key)
        if index == node_def_lib.CONTROL_SLOT:
            element = graph.as_graph_element(value)
            op = element.op if isinstance(element, SymbolicTensor) else element
            result[(name, index)] = op
        else:
            if isinstance(value, Operation):
                raise TypeError(
                    f"input_map['{key}'] is the Operation '{value.name}'; a data input must be mapped to a Tensor "
                    f"(use '^{name}' to map a control input to an Operation)"
                )
            if not isinstance(value, SymbolicTensor):
                raise TypeError(
                    f"input_map['{key}'] must be a Tensor of the graph being imported into, not {type(value).__name__}"
                )
            result[(name, index)] = graph.as_graph_element(value, allow_tensor=True, allow_operation=False)
    return result


def _topological_order(nodes: Sequence[node_def_pb2.NodeDef]) -> list[int]:
    """Node indices so that every node comes after its inputs (ties keep GraphDef order).

    Back edges into Merge nodes are ignored, as TF does for while loops; any other cycle
    is an error naming the nodes on it.
    """
    result = graph_walk.node_order(nodes)
    if result.has_cycle:
        stuck = [nodes[i].name for i in result.stuck]
        shown = ", ".join(f"'{n}'" for n in stuck[:10]) + (", ..." if len(stuck) > 10 else "")
        raise ValueError(
            f"{len(stuck)} nodes in a cycle: the GraphDef's inputs form a cycle among {shown}. "
            "Only while loops (NextIteration -> Merge back edges) may form cycles."
        )
    return result.order


def _validate_return_elements(return_elements: Sequence[str] | None) -> list[str] | None:
    if return_elements is None:
        return None
    if isinstance(return_elements, str) or not all(isinstance(x, str) for x in return_elements):
        raise TypeError("return_elements must be a list of strings.")
    return list(return_elements)


def import_graph_def(
    graph_def: graph_pb2.GraphDef,
    input_map: Mapping[str, Any] | None = None,
    return_elements: Sequence[str] | None = None,
    name: str | None = None,
    op_dict: Any = None,
    producer_op_list: op_def_pb2.OpList | None = None,
    graph: Graph | None = None,
    registry: OpRegistry | None = None,
) -> list[Any] | None:
    """Import ``graph_def`` into ``graph`` (default: the default graph).

    Returns the Operations/Tensors named in ``return_elements`` (op names or "op:i"
    tensor names of the GraphDef), or None when it is None. Raises ValueError for an
    invalid GraphDef (missing inputs, cycles, type errors, shape errors, unused
    input_map keys, bad return elements), NotFoundError for an op type that is not
    registered. ``op_dict`` is ignored as in TF 2; ``producer_op_list`` lets attrs that
    the producer's OpDefs defaulted be removed before defaults are filled (TF's rule).
    """
    del op_dict
    if not isinstance(graph_def, graph_pb2.GraphDef):
        if hasattr(graph_def, "SerializeToString") and type(graph_def).__name__ == "GraphDef":
            converted = graph_pb2.GraphDef()
            converted.ParseFromString(graph_def.SerializeToString())
            graph_def = converted
        else:
            raise TypeError("Argument `graph_def` must be a GraphDef proto.")
    graph = graph or get_default_graph()
    registry = registry or global_registry()
    returns = _validate_return_elements(return_elements)
    mapping = _normalize_input_map(graph, input_map)
    graph._check_not_finalized()

    nodes = list(graph_def.node)
    by_name: dict[str, int] = {}
    for i, node in enumerate(nodes):
        if node.name in by_name:
            raise ValueError(f"Node '{node.name}' is not unique")
        by_name[node.name] = i

    op_defs: list[op_def_pb2.OpDef] = []
    for node in nodes:
        registration = registry.lookup(node.op)
        if registration is None:
            function = None
            for f in graph_def.library.function:
                if f.signature.name == node.op:
                    function = f
                    break
            if function is None:
                function = graph._get_function(node.op)
            if function is not None:
                op_defs.append(_function_op_def(function))
                continue
            try:
                registry.get(node.op)
            except errors.NotFoundError as e:
                raise errors.NotFoundError(
                    None, None, f"{e.message} (while importing node '{node.name}' of the GraphDef)"
                ) from None
        op_defs.append(registration.op_def)  # type: ignore[union-attr]

    producer_defaults = _producer_defaults(producer_op_list)
    order = _topological_order(nodes)

    # The prefix: "" keeps the names; otherwise a unique scope under the current one.
    if name == "":
        prefix = ""
    else:
        with graph.name_scope(name or "import") as scope:
            prefix = scope

    num_ops = len(graph.get_operations())
    new_functions = [f.signature.name for f in graph_def.library.function if not graph._is_function(f.signature.name)]
    try:
        created, used_keys = _add_nodes(
            graph, graph_def, nodes, op_defs, order, by_name, mapping, prefix, producer_defaults
        )
    except BaseException:
        graph._rollback(num_ops, new_functions)
        raise

    unused = [k for k in mapping if k not in used_keys]
    if unused:
        names = ", ".join(f"^{n}" if i == node_def_lib.CONTROL_SLOT else f"{n}:{i}" for n, i in unused)
        raise ValueError(f"Attempted to map inputs that were not found in graph_def: [{names}]")

    if returns is None:
        return None
    results: list[Any] = []
    for element in returns:
        if ":" in element:
            op_name, index = node_def_lib.parse_tensor_name(element)
            if op_name not in created:
                raise ValueError(f"Requested return tensor '{element}' not found in graph def")
            op = created[op_name]
            if index >= len(op.outputs):
                raise ValueError(
                    f"Invalid return output {index} of node '{op_name}', which has {len(op.outputs)} output(s)"
                )
            results.append(op.outputs[index])
        else:
            if element not in created:
                raise ValueError(f"Requested return node '{element}' not found in graph def")
            results.append(created[element])
    return results


def _add_nodes(
    graph: Graph,
    graph_def: graph_pb2.GraphDef,
    nodes: list[node_def_pb2.NodeDef],
    op_defs: list[op_def_pb2.OpDef],
    order: list[int],
    by_name: dict[str, int],
    mapping: dict[tuple[str, int], Any],
    prefix: str,
    producer_defaults: dict[str, dict[str, bytes]],
) -> tuple[dict[str, Operation], set[tuple[str, int]]]:
    """Add the GraphDef's functions and nodes (in ``order``) to ``graph``; returns the ops and the used map keys."""
    for function in graph_def.library.function:
        graph._add_function(function)
    for gradient in graph_def.library.gradient:
        graph._add_gradient(gradient.function_name, gradient.gradient_func)

    used_keys: set[tuple[str, int]] = set()
    created: dict[str, Operation] = {}
    # While loops: a Merge's input from its NextIteration (created later) is wired up after every node exists.
    back_edges: list[tuple[Operation, int, str, int]] = []
    outer_control = graph._control_dependencies_for_inputs([])
    for i in order:
        node = nodes[i]
        op_def = op_defs[i]
        new_node = node_def_pb2.NodeDef()
        new_node.CopyFrom(node)
        del new_node.input[:]
        if prefix:
            new_node.name = prefix + node.name
        elif graph._get_operation_by_name(node.name) is not None:
            new_node.name = graph._unique_full_name(node.name)
        if not prefix and new_node.name == node.name:
            graph._unique_full_name(node.name)  # mark as used, as TF does for imported names
        elif prefix:
            graph._unique_full_name(new_node.name)
        _strip_producer_defaults(new_node, producer_defaults)
        _prefix_colocation(new_node, prefix)
        hints = None
        if _OUTPUT_SHAPES in new_node.attr:
            hints = list(new_node.attr[_OUTPUT_SHAPES].list.shape)
            del new_node.attr[_OUTPUT_SHAPES]

        inputs: list[SymbolicTensor | None] = []
        control: list[Operation] = []
        pending_back_edges: list[tuple[int, str, int]] = []
        for inp in node.input:
            src_name, index = node_def_lib.parse_tensor_name(inp)
            key = (src_name, index)
            if key in mapping:
                used_keys.add(key)
                target = mapping[key]
                if index == node_def_lib.CONTROL_SLOT:
                    control.append(target)
                else:
                    inputs.append(target)
                continue
            if src_name not in by_name:
                raise ValueError(f"Node '{node.name}': Unknown input node '{inp}'")
            if src_name not in created and graph_walk.is_back_edge(nodes[by_name[src_name]].op, node.op):
                pending_back_edges.append((len(inputs), src_name, index))
                inputs.append(None)
                continue
            src_op = created[src_name]
            if index == node_def_lib.CONTROL_SLOT:
                control.append(src_op)
                continue
            if index >= len(src_op.outputs):
                raise ValueError(
                    f"Node '{node.name}': Connecting to invalid output {index} of source node {src_name} "
                    f"which has {len(src_op.outputs)} outputs."
                )
            inputs.append(src_op.outputs[index])
        for op in outer_control:
            if op not in control:
                control.append(op)
        node_def_lib.add_default_attrs(new_node, op_def)
        unknown_inputs = frozenset(position for position, _, _ in pending_back_edges)
        if unknown_inputs:
            # The back edge's tensor does not exist yet: a forward input stands in, its shape taken as unknown.
            stand_in = next((t for t in inputs if t is not None), None)
            if stand_in is None:
                raise ValueError(f"Node '{node.name}': a Merge needs an input that is not a NextIteration back edge")
            inputs = [stand_in if t is None else t for t in inputs]
        try:
            op = graph._add_node(
                new_node,
                op_def,
                inputs,  # type: ignore[arg-type]
                control,
                compute_shapes=True,
                compute_device=True,
                output_shape_hints=hints,
                unknown_input_shapes=unknown_inputs,
            )
        except ValueError as e:
            raise ValueError(str(e)) from None
        created[node.name] = op
        back_edges.extend((op, position, src, slot) for position, src, slot in pending_back_edges)
    for op, position, src, slot in back_edges:
        src_op = created[src]
        if slot >= len(src_op.outputs):
            raise ValueError(
                f"Node '{op.name}': Connecting to invalid output {slot} of source node {src} "
                f"which has {len(src_op.outputs)} outputs."
            )
        try:
            op._update_input(position, src_op.outputs[slot])
        except TypeError as e:
            raise ValueError(f"Node '{op.name}': {e}") from None

    return created, used_keys


def _function_op_def(function: function_pb2.FunctionDef) -> op_def_pb2.OpDef:
    """The OpDef of a node that calls ``function`` directly by name: its signature, as TF's function library uses."""
    op_def = op_def_pb2.OpDef()
    op_def.CopyFrom(function.signature)
    return op_def


def _producer_defaults(producer_op_list: op_def_pb2.OpList | None) -> dict[str, dict[str, bytes]]:
    if producer_op_list is None:
        return {}
    result: dict[str, dict[str, bytes]] = {}
    for op_def in producer_op_list.op:
        result[op_def.name] = {
            a.name: a.default_value.SerializeToString(deterministic=True)
            for a in op_def.attr
            if a.HasField("default_value")
        }
    return result


def _strip_producer_defaults(node: node_def_pb2.NodeDef, defaults: dict[str, dict[str, bytes]]) -> None:
    """Drop attrs equal to the producer's default that this binary's OpDef does not know (TF's rule)."""
    op_defaults = defaults.get(node.op)
    if not op_defaults:
        return
    registration = global_registry().lookup(node.op)
    known = {a.name for a in registration.op_def.attr} if registration else set()
    for key in list(node.attr):
        same = key in op_defaults and node.attr[key].SerializeToString(deterministic=True) == op_defaults[key]
        if key not in known and same:
            del node.attr[key]


def _prefix_colocation(node: node_def_pb2.NodeDef, prefix: str) -> None:
    """Rename ``loc:@x`` colocation groups the way the node names were renamed."""
    if "_class" not in node.attr or not prefix:
        return
    values = node.attr["_class"].list.s
    for i, value in enumerate(values):
        if value.startswith(b"loc:@"):
            values[i] = b"loc:@" + (prefix + value[5:].decode()).encode()
