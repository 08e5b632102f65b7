"""Function inlining (TensorFlow's ``function_optimization``): call nodes become the called function's body.

A node calls a function of the graph's ``FunctionDefLibrary`` through
``PartitionedCall``/``StatefulPartitionedCall`` (attr ``f``) or by using the function's
name as its op. Following TensorFlow's inlining rules, the call ``c`` becomes:

- ``c/<arg>``: an ``Identity`` per input arg reading the call's data input;
- ``c/<node>``: each body node, inputs rewritten (``n:out_arg:i`` to flat indices), placeholder
  attrs resolved from the call's attrs, the call's device where the body node has none;
- ``c/input_control_node``: a ``NoOp`` carrying the call's control inputs (when it has any), on
  which the arg Identities and the body's input-less nodes depend;
- ``c``: an ``IdentityN`` (``NoOp`` for a function without outputs) of the function's outputs, with
  control edges from its ``control_ret`` nodes, so readers of ``c:0``, ``c:1`` and ``^c`` are unchanged.

Calls inside inlined bodies are inlined in turn; a recursive function is left as it is.
Functions no longer called are dropped from the library. There are no kernels for the
call ops, so this pass is what makes a graph exported from ``tf.function`` runnable.
"""

from __future__ import annotations

from modtensor.framework import node_def as node_def_lib
from modtensor.framework.op_registry import global_registry
from modtensor.framework.protos import attr_value_pb2, function_pb2, graph_pb2, node_def_pb2
from modtensor.grappler.graph_view import GraphView, parse, tensor_ref
from modtensor.grappler.item import GrapplerItem
from modtensor.grappler.optimizer import GraphOptimizer, OptimizerContext, copy_graph

__all__ = ["CALL_OPS", "FunctionInliner", "called_function"]

CALL_OPS = ("PartitionedCall", "StatefulPartitionedCall")
_MAX_DEPTH = 64  # nested calls deeper than this are taken for recursion and left alone


def called_function(
    node: node_def_pb2.NodeDef, library: dict[str, function_pb2.FunctionDef]
) -> tuple[function_pb2.FunctionDef, dict[str, attr_value_pb2.AttrValue]] | None:
    """The library function ``node`` calls and the attrs it is instantiated with, or None."""
    if node.op in CALL_OPS:
        func = node.attr["f"].func
        found = library.get(func.name)
        return (found, dict(func.attr)) if found is not None else None
    found = library.get(node.op)
    return (found, dict(node.attr)) if found is not None else None


class FunctionInliner(GraphOptimizer):
    """Inlines every call of a library function (nested calls too), keeping the call's name and outputs."""

    name = "function_optimizer"

    def optimize(self, item: GrapplerItem, context: OptimizerContext) -> graph_pb2.GraphDef:
        if not item.graph_def.library.function:
            return item.graph_def  # nothing to inline: unchanged
        graph = copy_graph(item.graph_def)
        library = {f.signature.name: f for f in graph.library.function}
        view = GraphView(graph, context.index(item.graph_def))
        pending = [(node, ()) for node in list(graph.node)]
        while pending:
            node, stack = pending.pop()
            if node.name in view.removed or ("_noinline" in node.attr and node.attr["_noinline"].b):
                continue
            found = called_function(node, library)
            if found is None:
                continue
            function, attrs = found
            if function.signature.name in stack or len(stack) >= _MAX_DEPTH:
                continue
            inner = (*stack, function.signature.name)
            pending += [(n, inner) for n in _inline(view, node, function, attrs, library)]
        out = view.compact()
        _drop_unused_functions(out)
        return out


def _inline(
    view: GraphView,
    call: node_def_pb2.NodeDef,
    function: function_pb2.FunctionDef,
    attrs: dict[str, attr_value_pb2.AttrValue],
    library: dict[str, function_pb2.FunctionDef],
) -> list[node_def_pb2.NodeDef]:
    """Replace ``call`` by the body of ``function``; returns the new body nodes (which may be calls themselves)."""
    signature = function.signature
    prefix = call.name + "/"
    data = view.data_inputs(call)
    controls = [t for t in call.input if t.startswith("^")]
    if len(data) != len(signature.input_arg):
        raise ValueError(
            f"Node '{call.name}' passes {len(data)} inputs to function '{signature.name}', "
            f"which takes {len(signature.input_arg)}."
        )
    gate: list[str] = []
    if controls:
        gate = [
            "^"
            + view.add(
                node_def_pb2.NodeDef(name=prefix + "input_control_node", op="NoOp", input=controls, device=call.device)
            ).name
        ]
    for arg, source in zip(signature.input_arg, data, strict=True):
        identity = node_def_pb2.NodeDef(
            name=prefix + arg.name, op="Identity", input=[source, *gate], device=call.device
        )
        identity.attr["T"].type = _arg_type(arg, attrs)
        view.add(identity)
    if not gate and data and any(not any(not t.startswith("^") for t in body.input) for body in function.node_def):
        # Body nodes without inputs (constants) wait for the arguments instead: in a while loop they then
        # run in the caller's frame and iteration, as the rest of the body does.
        args = ["^" + prefix + arg.name for arg in signature.input_arg]
        gate = ["^" + view.add(
            node_def_pb2.NodeDef(name=prefix + "input_control_node", op="NoOp", input=args, device=call.device)
        ).name]  # fmt: skip
    outputs = _output_ranges(function, library)
    added = []
    for body in function.node_def:
        node = node_def_pb2.NodeDef()
        node.CopyFrom(body)
        node.name = prefix + body.name
        if not node.device:
            node.device = call.device
        for key, value in body.attr.items():
            if value.placeholder:
                if value.placeholder not in attrs:
                    raise ValueError(
                        f"Function '{signature.name}' needs attr '{value.placeholder}', which node "
                        f"'{call.name}' does not set."
                    )
                node.attr[key].CopyFrom(attrs[value.placeholder])
        inputs = [_body_ref(text, prefix, outputs) for text in body.input]
        if not any(not t.startswith("^") for t in inputs):
            inputs += gate
        del node.input[:]
        node.input.extend(inputs)
        added.append(view.add(node))
    results = [_body_ref(function.ret[arg.name], prefix, outputs) for arg in signature.output_arg]
    results += ["^" + prefix + name for name in function.control_ret.values()]
    view.remove(call.name)
    view.removed.discard(call.name)
    kept = view.nodes[call.name]
    types = [_arg_type(arg, attrs) for arg in signature.output_arg]
    kept.op = "IdentityN" if types else "NoOp"
    kept.attr.clear()
    if types:
        kept.attr["T"].list.type.extend(types)
    view.set_inputs(kept, results if results else gate)
    return added


def _arg_type(arg, attrs: dict[str, attr_value_pb2.AttrValue]) -> int:  # noqa: ANN001 - an OpDef.ArgDef
    if arg.type_attr:
        return attrs[arg.type_attr].type
    if arg.number_attr or arg.type_list_attr:
        raise ValueError(f"Function argument '{arg.name}' is a list; inlining supports single-tensor arguments only.")
    return arg.type


def _output_ranges(
    function: function_pb2.FunctionDef, library: dict[str, function_pb2.FunctionDef]
) -> dict[str, dict[str, int]]:
    """Body node -> {output arg name: first flat output index}, to read ``node:arg:i`` references."""
    registry = global_registry()
    ranges: dict[str, dict[str, int]] = {}
    for body in function.node_def:
        callee = called_function(body, library) if body.op not in CALL_OPS else None
        if callee is not None:
            ranges[body.name] = {arg.name: i for i, arg in enumerate(callee[0].signature.output_arg)}
            continue
        registration = registry.lookup(body.op)
        if registration is None:
            continue
        spans = node_def_lib.arg_ranges(body, registration.op_def, "output")
        ranges[body.name] = {name: start for name, (start, _) in spans.items()}
    return ranges


def _body_ref(text: str, prefix: str, outputs: dict[str, dict[str, int]]) -> str:
    """A FunctionDef input string (``arg``, ``node:out_arg:i``, ``^node``) as a graph input string."""
    if text.startswith("^"):
        return "^" + prefix + text[1:]
    parts = text.split(":")
    if len(parts) == 1:
        return prefix + parts[0]  # a function argument: its Identity
    if len(parts) == 3:
        node, arg, index = parts
        if node not in outputs or arg not in outputs[node]:
            raise ValueError(f"Cannot resolve '{text}' in a function body: unknown node or output arg.")
        return tensor_ref(prefix + node, outputs[node][arg] + int(index))
    node, index = parse(text)
    return tensor_ref(prefix + node, index)


def _drop_unused_functions(graph: graph_pb2.GraphDef) -> None:
    """Remove library functions (and their gradients) no node calls any more, directly or through another one."""
    library = {f.signature.name: f for f in graph.library.function}
    used: set[str] = set()
    pending = [n for n in graph.node]
    while pending:
        node = pending.pop()
        names = [node.op] + [v.func.name for v in node.attr.values() if v.HasField("func")]
        names += [f.name for v in node.attr.values() for f in v.list.func]
        for name in names:
            if name in library and name not in used:
                used.add(name)
                pending += list(library[name].node_def)
    if len(used) == len(library):
        return
    kept = [f for f in graph.library.function if f.signature.name in used]
    gradients = [g for g in graph.library.gradient if g.function_name in used]
    del graph.library.function[:]
    graph.library.function.extend(kept)
    del graph.library.gradient[:]
    graph.library.gradient.extend(gradients)
    if not kept and not gradients:
        graph.ClearField("library")
