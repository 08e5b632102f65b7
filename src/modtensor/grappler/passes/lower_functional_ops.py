"""Lowering of functional control flow to v1 control flow: TensorFlow's LowerFunctionalOpsPass.

Not a meta-optimizer pass: graph execution runs it before placement (TF registers it as
a PRE_PLACEMENT optimization), on the graph of a session signature, of a function, and
of every function body the function library runtime instantiates
(docs/architecture.md, "Functional control flow"). TF's rules:

- A node is lowered only when its ``_lower_using_switch_merge`` attr is true (cond_v2
  and while_v2 set it) and it is not marked for XLA (``_xla_compile_id``,
  ``_XlaMustCompile``, ``_tpu_replicate``); ``functional_control_flow`` (TF's single
  threaded executor, ``disable_functional_ops_lowering``) turns the rewrite off.
- ``If``/``StatelessIf``: ``Switch(pred, pred)`` gives the pivots ``pivot_f``/``pivot_t``;
  each input goes through ``Switch(input, pred)``; a call of each branch function reads
  its side (control edge from its pivot); one ``Merge`` per output, and a
  ``branch_executed`` Merge of the pivots that waits for both calls.
- ``Case``/``StatelessCase``: the same with ``_SwitchN`` on the branch index.
- ``While``/``StatelessWhile``: per loop variable ``Enter`` (frame = the While's name,
  its ``parallel_iterations``) -> ``Merge`` -> cond call -> ``LoopCond`` -> ``Switch`` ->
  body call -> ``NextIteration`` (the Merge's back edge), ``Exit`` on the Switch's false
  side; resource loop variables only get an ``Enter(is_constant=True)``.
- The calls carry ``_lower_as_multi_device_function`` and are inlined by the same pass
  (their bodies, appended to the graph, are lowered in turn); other function calls are
  inlined only with ``lower_function_calls`` (TF's ``do_function_inlining``).
- The lowered node's name stays: an ``IdentityN`` of the results when
  ``keep_lowered_nodes_fetchable`` (the node may be fetched), else a ``NoOp`` that the
  node's control readers depend on; data readers read the Merge/Exit outputs directly.

A predicate that is not ``bool`` fails as in TensorFlow, when the ``Switch`` (or
``LoopCond``) is built.
"""

from __future__ import annotations

from collections.abc import Sequence

from modtensor.framework import dtypes, errors
from modtensor.framework.op_def_builder import summarize_op_def
from modtensor.framework.op_registry import global_registry
from modtensor.framework.protos import attr_value_pb2, function_pb2, graph_pb2, node_def_pb2
from modtensor.grappler.graph_view import GraphView, parse, tensor_ref
from modtensor.grappler.optimizer import copy_graph
from modtensor.grappler.passes.function_inliner import CALL_OPS, _inline, called_function

__all__ = [
    "LOWER_AS_MULTI_DEVICE_FUNCTION",
    "LOWER_USING_SWITCH_MERGE",
    "lower_functional_ops",
    "needs_lowering",
]

LOWER_USING_SWITCH_MERGE = "_lower_using_switch_merge"
LOWER_AS_MULTI_DEVICE_FUNCTION = "_lower_as_multi_device_function"
IF_OPS = ("If", "StatelessIf")
CASE_OPS = ("Case", "StatelessCase")
WHILE_OPS = ("While", "StatelessWhile")
_DT_BOOL = dtypes.bool.as_datatype_enum
_DT_RESOURCE = dtypes.resource.as_datatype_enum


def _bool_attr(node: node_def_pb2.NodeDef, name: str) -> bool:
    value = node.attr.get(name)
    return value is not None and value.WhichOneof("value") == "b" and value.b


def _used_by_xla(node: node_def_pb2.NodeDef) -> bool:
    for key in ("_tpu_replicate", "_xla_compile_id"):
        value = node.attr.get(key)
        if value is not None and value.s:
            return True
    return _bool_attr(node, "_XlaMustCompile")


def needs_lowering(graph_def: graph_pb2.GraphDef, lower_function_calls: bool = False) -> bool:
    """Whether the pass would change ``graph_def`` (cheap: looks at the nodes' ops and attrs only)."""
    if not graph_def.library.function:
        return False
    for node in graph_def.node:
        if _bool_attr(node, LOWER_USING_SWITCH_MERGE) or _bool_attr(node, LOWER_AS_MULTI_DEVICE_FUNCTION):
            return True
        if lower_function_calls and node.op in CALL_OPS:
            return True
    return False


def lower_functional_ops(
    graph_def: graph_pb2.GraphDef,
    *,
    keep_lowered_nodes_fetchable: bool | None = None,
    lower_function_calls: bool = False,
    functional_control_flow: bool = False,
) -> graph_pb2.GraphDef:
    """The graph with its functional control flow lowered (a new GraphDef; the input is not changed).

    ``keep_lowered_nodes_fetchable`` defaults to TF's choice: True unless the graph is a
    function instantiation (has ``_Arg``/``_Retval`` nodes). InvalidArgumentError for a
    lowered node that cannot be built (a non-bool predicate, a missing attr).
    """
    graph = copy_graph(graph_def)
    library = {f.signature.name: f for f in graph.library.function}
    view = GraphView(graph)
    if keep_lowered_nodes_fetchable is None:
        keep_lowered_nodes_fetchable = not any(n.op in ("_Arg", "_Retval") for n in graph.node)
    lowering = _Lowering(view, library, keep_lowered_nodes_fetchable)
    i = 0
    while i < len(graph.node):  # nodes appended while lowering are visited too (nested control flow)
        node = graph.node[i]
        i += 1
        if node.name in view.removed or _used_by_xla(node):
            continue
        if called_function(node, library) is not None and (
            lower_function_calls or _bool_attr(node, LOWER_AS_MULTI_DEVICE_FUNCTION)
        ):
            lowering.inline_call(node)
            continue
        if functional_control_flow or not _bool_attr(node, LOWER_USING_SWITCH_MERGE):
            continue
        if node.op in IF_OPS:
            lowering.lower_if(node)
        elif node.op in CASE_OPS:
            lowering.lower_case(node)
        elif node.op in WHILE_OPS:
            lowering.lower_while(node)
    return view.compact()


class _Lowering:
    """The rewrites of one graph (GraphView with its library)."""

    def __init__(self, view: GraphView, library: dict[str, function_pb2.FunctionDef], keep_fetchable: bool):
        self.view = view
        self.library = library
        self.keep_fetchable = keep_fetchable
        self.registry = global_registry()

    # ------------------------------------------------------------------ building blocks

    def add(
        self,
        name: str,
        op: str,
        inputs: Sequence[str],
        device: str,
        attrs: dict[str, attr_value_pb2.AttrValue] | None = None,
    ) -> node_def_pb2.NodeDef:
        node = node_def_pb2.NodeDef(name=self.view.unique_name(name), op=op, device=device)
        node.input.extend(inputs)
        for key, value in (attrs or {}).items():
            node.attr[key].CopyFrom(value)
        return self.view.add(node)

    def check_input(self, op: str, arg: str, expected: int, given: int, name: str) -> None:
        """TF's NodeBuilder error for an input of the wrong type."""
        if given == expected:
            return
        op_def = self.registry.get(op).op_def
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Input '{arg}' passed {_type_name(given)} expected {_type_name(expected)} while building NodeDef "
            f"'{name}' using {summarize_op_def(op_def)}",
        )

    def call(self, name: str, func: attr_value_pb2.NameAttrList, inputs: list[str], device: str) -> str:
        """A node calling library function ``func`` by name, marked to be inlined by this pass."""
        attrs = {key: value for key, value in func.attr.items()}
        attrs[LOWER_AS_MULTI_DEVICE_FUNCTION] = attr_value_pb2.AttrValue(b=True)
        return self.add(name, func.name, inputs, device, attrs).name

    def rewire_readers(self, old: str, outputs: Sequence[str], control_source: str) -> None:
        """Readers of ``old:i`` read ``outputs[i]``; its control readers depend on ``control_source``."""
        view = self.view
        for reader_name in list(view.consumers.get(old, ())):
            reader = view.nodes[reader_name]
            inputs = []
            for text in reader.input:
                src, slot = parse(text)
                if src != old:
                    inputs.append(text)
                elif text.startswith("^"):
                    inputs.append("^" + control_source)
                else:
                    inputs.append(outputs[slot])
            view.set_inputs(reader, inputs)

    def replace_node(
        self, node: node_def_pb2.NodeDef, outputs: list[str], types: list[int], control: str, gated: bool = True
    ) -> None:
        """Turn the lowered node (kept under its name) into TF's IdentityN of the results, or a NoOp.

        ``gated``: the IdentityN also waits for ``control`` (a lowered If/Case; a While's does not).
        """
        self.rewire_readers(node.name, outputs, control)
        node.attr.clear()
        if self.keep_fetchable and outputs:
            node.op = "IdentityN"
            node.attr["T"].list.type.extend(types)
            self.view.set_inputs(node, [*outputs, "^" + control] if gated else list(outputs))
        else:
            node.op = "NoOp"
            self.view.set_inputs(node, ["^" + control])

    def inline_call(self, node: node_def_pb2.NodeDef) -> None:
        """The call replaced by the function's body; its control readers wait on an ``output_control_node``.

        As TF's InlineFunctionBody: that NoOp depends on the function's control outputs (or,
        without any, on the call's input control node), not on every data output.
        """
        found = called_function(node, self.library)
        assert found is not None
        function, attrs = found
        view = self.view
        name = node.name
        control_readers = [r for r in view.consumers.get(name, ()) if "^" + name in view.nodes[r].input]
        try:
            _inline(view, node, function, attrs, self.library)
        except ValueError as e:
            raise errors.InvalidArgumentError(None, None, f"Inlining function call '{name}': {e}") from None
        # Readers of call:k read the k-th result itself (TF wires them to one Identity per output), so a result
        # nobody needs is pruned away with what computes it.
        kept = view.nodes[name]
        results = [t for t in kept.input if not t.startswith("^")]
        if kept.op == "IdentityN":
            for reader_name in list(view.consumers.get(name, ())):
                reader = view.nodes[reader_name]
                inputs = []
                for text in reader.input:
                    src, slot = parse(text)
                    inputs.append(results[slot] if src == name and not text.startswith("^") else text)
                if inputs != list(reader.input):
                    view.set_inputs(reader, inputs)
        if not control_readers:
            return
        prefix = name + "/"
        sources = [f"^{prefix}{ret}" for ret in function.control_ret.values()]
        if not sources and f"{prefix}input_control_node" in view.nodes:
            sources = [f"^{prefix}input_control_node"]
        output_control = self.add(f"{prefix}output_control_node", "NoOp", sources, view.nodes[name].device).name
        for reader_name in control_readers:
            reader = view.nodes[reader_name]
            view.set_inputs(reader, ["^" + output_control if t == "^" + name else t for t in reader.input])

    # ------------------------------------------------------------------ If

    def lower_if(self, node: node_def_pb2.NodeDef) -> None:
        view = self.view
        name, device = node.name, node.device
        for attr in ("then_branch", "else_branch"):
            if attr not in node.attr:
                raise errors.InvalidArgumentError(None, None, f"{attr.replace('_', ' ').capitalize()} function missing")
        data = view.data_inputs(node)
        controls = [t for t in node.input if t.startswith("^")]
        pred, inputs = data[0], data[1:]
        in_types = list(node.attr["Tin"].list.type)
        out_types = list(node.attr["Tout"].list.type)
        switch_name = view.unique_name(f"{name}/switch_pred")
        self.check_input("Switch", "pred", _DT_BOOL, node.attr["Tcond"].type, switch_name)
        switch_pred = self.add(switch_name, "Switch", [pred, pred, *controls], device, {"T": _type(_DT_BOOL)}).name
        pivot_f = self.add(f"{name}/pivot_f", "Identity", [f"{switch_pred}:0"], device, {"T": _type(_DT_BOOL)}).name
        pivot_t = self.add(f"{name}/pivot_t", "Identity", [f"{switch_pred}:1"], device, {"T": _type(_DT_BOOL)}).name
        then_inputs, else_inputs = [], []
        for source, dtype in zip(inputs, in_types, strict=True):
            switch = self.switch(name, source, pred, dtype)
            else_inputs.append(f"{switch}:0")
            then_inputs.append(f"{switch}:1")
        then_call = self.call(f"{name}/then", node.attr["then_branch"].func, [*then_inputs, "^" + pivot_t], device)
        else_call = self.call(f"{name}/else", node.attr["else_branch"].func, [*else_inputs, "^" + pivot_f], device)
        merges = [
            self.add(
                f"{name}/output",
                "Merge",
                [tensor_ref(then_call, i), tensor_ref(else_call, i)],
                device,
                {"T": _type(t), "N": attr_value_pb2.AttrValue(i=2)},
            ).name  # fmt: skip
            for i, t in enumerate(out_types)
        ]
        executed = self.add(
            f"{name}/branch_executed",
            "Merge",
            [pivot_t, pivot_f, "^" + then_call, "^" + else_call],
            device,
            {"T": _type(_DT_BOOL), "N": attr_value_pb2.AttrValue(i=2)},
        ).name
        self.replace_node(node, merges, out_types, executed)

    def switch(self, name: str, source: str, selector: str, dtype: int, num_outs: int | None = None) -> str:
        """A Switch (``_SwitchN`` with ``num_outs``) of ``source`` on the source's device, colocated as TF does."""
        src_name = parse(source)[0]
        src_node = self.view.nodes.get(src_name)
        attrs = {"T": _type(dtype), "_class": attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue(
            s=[src_name.encode()]))}  # fmt: skip
        op = "Switch"
        if num_outs is not None:
            op = "_SwitchN"
            attrs["num_outs"] = attr_value_pb2.AttrValue(i=num_outs)
        device = src_node.device if src_node is not None else ""
        return self.add(f"{name}/{src_name}", op, [source, selector], device, attrs).name

    # ------------------------------------------------------------------ Case

    def lower_case(self, node: node_def_pb2.NodeDef) -> None:
        view = self.view
        name, device = node.name, node.device
        if "branches" not in node.attr:
            raise errors.InvalidArgumentError(None, None, "branch functions missing")
        branches = list(node.attr["branches"].list.func)
        n = len(branches)
        data = view.data_inputs(node)
        controls = [t for t in node.input if t.startswith("^")]
        index, inputs = data[0], data[1:]
        in_types = list(node.attr["Tin"].list.type)
        out_types = list(node.attr["Tout"].list.type)
        int32 = dtypes.int32.as_datatype_enum
        selector = self.add(
            f"{name}/branch_index",
            "_SwitchN",
            [index, index, *controls],
            device,
            {"T": _type(int32), "num_outs": attr_value_pb2.AttrValue(i=n)},
        ).name
        pivots = [
            self.add(f"{name}/pivot_{b}", "Identity", [tensor_ref(selector, b)], device, {"T": _type(int32)}).name
            for b in range(n)
        ]
        branch_inputs: list[list[str]] = [[] for _ in range(n)]
        for source, dtype in zip(inputs, in_types, strict=True):
            switch = self.switch(name, source, index, dtype, num_outs=n)
            for b in range(n):
                branch_inputs[b].append(tensor_ref(switch, b))
        calls = [
            self.call(f"{name}/branch{b}", branches[b], [*branch_inputs[b], "^" + pivots[b]], device) for b in range(n)
        ]
        merges = [
            self.add(
                f"{name}/merge",
                "Merge",
                [tensor_ref(c, i) for c in calls],
                device,
                {"T": _type(t), "N": attr_value_pb2.AttrValue(i=n)},
            ).name  # fmt: skip
            for i, t in enumerate(out_types)
        ]
        executed = self.add(
            f"{name}/branch_executed",
            "Merge",
            [*pivots, *("^" + c for c in calls)],
            device,
            {"T": _type(int32), "N": attr_value_pb2.AttrValue(i=n)},
        ).name
        self.replace_node(node, merges, out_types, executed)

    # ------------------------------------------------------------------ While

    def lower_while(self, node: node_def_pb2.NodeDef) -> None:
        view = self.view
        name, device = node.name, node.device
        for attr, text in (("cond", "While cond function missing"), ("body", "While body function missing")):
            if attr not in node.attr:
                raise errors.InvalidArgumentError(None, None, text)
        if "parallel_iterations" not in node.attr:
            raise errors.InvalidArgumentError(None, None, "parallel_iterations attr missing")
        parallel = node.attr["parallel_iterations"].i
        if parallel < 1:
            raise errors.InvalidArgumentError(None, None, "parallel_iterations must be > 0")
        data = view.data_inputs(node)
        controls = [t for t in node.input if t.startswith("^")]
        types = list(node.attr["T"].list.type)
        resource = [t == _DT_RESOURCE for t in types]
        enters = []
        for source, dtype, is_resource in zip(data, types, resource, strict=True):
            src = view.nodes.get(parse(source)[0])
            attrs = {
                "T": _type(dtype),
                "frame_name": attr_value_pb2.AttrValue(s=name.encode()),
                "parallel_iterations": attr_value_pb2.AttrValue(i=parallel),
                "is_constant": attr_value_pb2.AttrValue(b=is_resource),
            }
            enters.append(self.add(f"{name}/enter", "Enter", [source], src.device if src is not None else "", attrs))
        if controls:
            gate = self.add(f"{name}/LoopControlInputs", "NoOp", controls, device).name
            for enter in enters:
                view.set_inputs(enter, [*enter.input, "^" + gate])
        merges: dict[int, node_def_pb2.NodeDef] = {}
        for i, enter in enumerate(enters):
            if not resource[i]:
                merges[i] = self.add(f"{name}/merge", "Merge", [enter.name, enter.name], enter.device,
                                     {"T": _type(types[i]), "N": attr_value_pb2.AttrValue(i=2)})  # fmt: skip
        first_merge = next(iter(merges.values())).name if merges else None
        cond_inputs = [enters[i].name if resource[i] else merges[i].name for i in range(len(enters))]
        if first_merge is not None:
            cond_inputs.append("^" + first_merge)
        cond_fn = node.attr["cond"].func
        cond_call = self.call(f"{name}/cond", cond_fn, cond_inputs, device)
        loop_cond_name = view.unique_name(f"{name}/LoopCond")
        cond_def = self.library.get(cond_fn.name)
        if cond_def is not None and cond_def.signature.output_arg:
            arg = cond_def.signature.output_arg[0]
            given = arg.type if arg.type else cond_fn.attr[arg.type_attr].type if arg.type_attr else _DT_BOOL
            self.check_input("LoopCond", "input", _DT_BOOL, given, loop_cond_name)
        loop_cond = self.add(loop_cond_name, "LoopCond", [tensor_ref(cond_call, 0)], device).name
        switches: dict[int, node_def_pb2.NodeDef] = {}
        for i, merge in merges.items():
            input_node = parse(data[i])[0]
            switches[i] = self.add(f"{name}/{input_node}_switch", "Switch", [merge.name, loop_cond], merge.device,
                                   {"T": _type(types[i])})  # fmt: skip
        body_inputs = [enters[i].name if resource[i] else f"{switches[i].name}:1" for i in range(len(enters))]
        body_call = self.call(f"{name}/body", node.attr["body"].func, body_inputs, device)
        if switches:
            first_switch = next(iter(switches.values()))
            control = self.add(f"{name}/loop_body_control", "Identity", [f"{first_switch.name}:1"], device,
                               {"T": first_switch.attr["T"]}).name  # fmt: skip
            view.set_inputs(view.nodes[body_call], [*view.nodes[body_call].input, "^" + control])
        exits: dict[int, str] = {}
        outputs = []
        for i in range(len(enters)):
            if resource[i]:
                outputs.append(data[i])
                continue
            switch = switches[i]
            exits[i] = self.add(f"{name}/exit", "Exit", [f"{switch.name}:0"], switch.device,
                                {"T": _type(types[i])}).name  # fmt: skip
            outputs.append(exits[i])
        executed = self.add(f"{name}/LoopExecuted", "NoOp", ["^" + e for e in exits.values()], device).name
        for i, merge in merges.items():
            next_iteration = self.add(
                f"{name}/next_iteration",
                "NextIteration",
                [tensor_ref(body_call, i), "^" + body_call],
                merge.device,
                {"T": _type(types[i])},
            ).name
            view.set_inputs(merge, [merge.input[0], next_iteration])  # the loop's back edge
        self.replace_node(node, outputs, types, executed, gated=False)


def _type(enum: int) -> attr_value_pb2.AttrValue:
    return attr_value_pb2.AttrValue(type=enum)


def _type_name(enum: int) -> str:
    """TF's DataTypeString: "float", "int32", "bool"."""
    try:
        return dtypes.as_dtype(enum).cpp_name
    except TypeError:
        return str(enum)
