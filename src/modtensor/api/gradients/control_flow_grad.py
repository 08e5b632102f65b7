"""Gradients of the functional control-flow ops: ``If``/``StatelessIf``, ``Case``/``StatelessCase``, ``While``/
``StatelessWhile`` (control flow v2, what ``tf.cond``, ``tf.switch_case`` and ``tf.while_loop`` build in graphs).

TensorFlow's scheme (cond_v2 / while_v2), in modtensor's own code:

**Conditionals.** For each branch FuncGraph a gradient FuncGraph is built by running the
gradient engine over the branch's ops (from its outputs, seeded with the op's output
gradients, to its inputs). The gradient graph reads forward values by capturing them; a
capture of a branch *intermediate* is resolved by making the forward op return it: the
branch wraps it in an ``OptionalFromValue`` and the other branches return ``OptionalNone`` in
that slot, so one extra variant output serves every branch (the forward op is rewritten in
place: new branch functions, ``Tout``, ``output_shapes``, extra outputs). Captured branch
inputs and outputs are the op's own inputs and outputs; constants are copied. The gradient
is one ``If``/``Case`` on the same predicate running the gradient graphs; a branch without a
gradient for an input where another branch has one returns zeros.

**Loops.** The gradient loop runs the body's gradient once per forward iteration, in
reverse: its loop variables are a counter, ``maximum_iterations``, the forward iteration
count (the forward loop counter's final value), the gradients of the loop variables, and
whatever the body gradient captures. A forward body value it reads is *accumulated*: the
forward body pushes it on a TensorList each iteration (a new loop variable starting as an
``EmptyTensorList`` with room for ``maximum_iterations``), and the gradient body pops one per
iteration, so the cost is linear in the iteration count. Loop invariants (inputs returned
unchanged: captured tensors and variables) are read from the forward op directly, constants
are copied, resource handles are traced back to the loop input they come from. The gradients
of invariants accumulate in their loop variables (seeded with zeros; a resource's with zeros of
the variable's shape). The forward op is rewritten to carry the accumulators (new cond/body
functions, ``T``, ``output_shapes``, extra inputs and outputs).

Nesting composes: the gradient graphs of an inner op are built inside the gradient graph of the
outer one, and whatever they capture from the outer forward graph is resolved by the outer
gradient's own capture rules (an inner loop's accumulators become outer accumulators).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from modtensor.api import gradient_engine
from modtensor.api.gradients.function_grad import record_added_outputs
from modtensor.framework import dtypes, tensor_shape
from modtensor.framework import tape as tape_lib
from modtensor.framework.func_graph import CondBranchFuncGraph, FuncGraph, WhileBodyFuncGraph, WhileCondFuncGraph
from modtensor.framework.gradient_registry import RegisterGradient
from modtensor.framework.graph import Graph, Operation, SymbolicTensor
from modtensor.framework.protos import attr_value_pb2
from modtensor.framework.tensor import TensorSpec

__all__ = ["branch_graphs", "function_graph", "library_func_graph", "while_graphs"]

_IDS = itertools.count(1)


# ============================================================================ FuncGraphs of control-flow ops


def _library_function(graph: Graph, name: str) -> Any:
    """The FunctionDef ``name`` of ``graph``'s library or of an enclosing graph's."""
    current: Any = graph
    while current is not None:
        found = current._get_function(name)
        if found is not None:
            return found
        current = getattr(current, "outer_graph", None)
    raise LookupError(f"Function '{name}' is not in the library of graph {graph!r}")


def _visible_library(graph: Graph) -> dict[str, Any]:
    """Every FunctionDef ``graph`` and its enclosing graphs hold (inner definitions win)."""
    chain = []
    current: Any = graph
    while current is not None:
        chain.append(current)
        current = getattr(current, "outer_graph", None)
    library: dict[str, Any] = {}
    for g in reversed(chain):
        library.update(g._functions)
    return library


def function_graph(graph: Graph, name: str, input_shapes: Sequence[Any] | None = None) -> FuncGraph:
    """A FuncGraph holding the body of library function ``name`` (of ``graph`` or an enclosing graph).

    How gradients see functions that were not traced in this process (a GraphDef's or a
    SavedModel's): the body is instantiated (``function_def_lib.instantiate``) and imported into
    a new FuncGraph whose inputs are the arguments (of ``input_shapes`` when given) and whose
    outputs are the results. Calls and control flow in the body find their functions in the
    library the FuncGraph receives.
    """
    return _import_function(_library_function(graph, name), _visible_library(graph), graph, input_shapes)


def library_func_graph(library: Any, name: str) -> FuncGraph:
    """A FuncGraph holding the body of function ``name`` of a FunctionDefLibrary (a SavedModel's functions)."""
    functions = {f.signature.name: f for f in library.function}
    return _import_function(functions[name], functions, None, None)


def _import_function(function: Any, library: dict[str, Any], outer: Graph | None,
                     input_shapes: Sequence[Any] | None) -> FuncGraph:  # fmt: skip
    from modtensor.framework import function_def_lib, importer

    name = function.signature.name
    body = function_def_lib.instantiate(function, {}, library)
    graph_def = body.graph_def
    if input_shapes is not None:
        by_name = {node.name: node for node in graph_def.node}
        for arg, shape in zip(body.arg_nodes, input_shapes, strict=False):
            by_name[arg].attr["shape"].shape.CopyFrom(tensor_shape.as_shape(shape).as_proto())
    func_graph = FuncGraph(name, outer_graph=outer)
    arg_names = [f"{a}:0" for a in body.arg_nodes]
    with tape_lib.stop_recording(), func_graph.as_default():
        returned = importer.import_graph_def(
            graph_def,
            return_elements=[
                *arg_names,
                *[r if ":" in r else f"{r}:0" for r in body.ret_tensors],
                *body.control_ret_nodes,
            ],
            name="",
        )
    returned = list(returned or [])
    n_args, n_rets = len(arg_names), len(body.ret_tensors)
    func_graph.inputs = returned[:n_args]
    func_graph.outputs = returned[n_args : n_args + n_rets]
    func_graph.structured_outputs = list(func_graph.outputs)
    func_graph.control_outputs = returned[n_args + n_rets :]
    func_graph.structured_input_signature = (
        tuple(TensorSpec(t.shape, t.dtype, t.op.name) for t in func_graph.inputs),
        {},
    )
    return func_graph


def branch_graphs(op: Any) -> list[FuncGraph]:
    """The branch FuncGraphs of an If/Case op, their inputs standing for ``op.inputs[1:]``."""
    graphs = getattr(op, "_modtensor_branch_graphs", None)
    if graphs is not None:
        return graphs
    if op.type in ("If", "StatelessIf"):
        names = [op.get_attr("then_branch").name, op.get_attr("else_branch").name]
    else:
        names = [f.name for f in op.get_attr("branches")]
    inputs = list(op.inputs[1:])
    graphs = []
    for name in names:
        graph = function_graph(op.graph, name, [t.shape for t in inputs])
        graph.reset_captures(inputs, graph.inputs)
        graphs.append(graph)
    op._modtensor_branch_graphs = graphs
    return graphs


def while_graphs(op: Any) -> tuple[FuncGraph, FuncGraph]:
    """The (cond, body) FuncGraphs of a While op."""
    graphs = getattr(op, "_modtensor_while_graphs", None)
    if graphs is not None:
        return graphs
    shapes = [tensor_shape.TensorShape(s) for s in op.get_attr("output_shapes")]
    if len(shapes) != len(op.inputs):
        shapes = [t.shape for t in op.inputs]
    cond = function_graph(op.graph, op.get_attr("cond").name, shapes)
    body = function_graph(op.graph, op.get_attr("body").name, shapes)
    graphs = (cond, body)
    op._modtensor_while_graphs = graphs
    return graphs


# ============================================================================ shared helpers


def _graph_gradients(graph: FuncGraph, ys: Sequence[Any], seeds: Sequence[Any], xs: Sequence[Any]) -> list[Any]:
    """Gradients of ``graph``'s ``ys`` (seeded with ``seeds``) with respect to ``xs``, built in the default graph."""
    grads = gradient_engine.graph_gradients(graph, ys, seeds, xs, graph.name)
    return [None if g is None else _densify(g) for g in grads]


_densify = gradient_engine.densify


def _is_constant(t: Any) -> bool:
    return isinstance(t, SymbolicTensor) and t.op.type == "Const"


def _copy_constant(t: SymbolicTensor) -> Any:
    """A Const of ``t``'s value in the default graph (gradient graphs copy constants rather than capture them)."""
    from modtensor.api.op_scope import constant_value
    from modtensor.framework import op_def_library

    return op_def_library.constant(constant_value(t), dtype=t.dtype)


def _zeros_like(t: Any) -> Any:
    """Zeros of ``t``'s shape and dtype (a list of zero elements for a TensorList); a fully known shape does not
    read ``t``, so a gradient graph does not capture it for that."""
    from modtensor.api import array_ops
    from modtensor.api.dispatch import apply_op

    if t.dtype == dtypes.variant:
        return apply_op("ZerosLike", x=t)
    if t.shape.is_fully_defined():
        return array_ops.zeros(t.shape, dtype=t.dtype)
    return array_ops.zeros_like(t)


def _resource_zeros(handle: Any, dtype: Any) -> Any:
    """Zeros of the variable ``handle`` points to (TF's zeros for a resource's gradient)."""
    from modtensor.api import array_ops
    from modtensor.api.dispatch import apply_op

    return array_ops.zeros(apply_op("VariableShape", input=handle), dtype=dtype)


def _resource_dtype(handle: Any) -> Any:
    """The dtype of the variable behind ``handle``: its handle data, else what the reads of it say (looking
    through identities, branches, loop bodies and calls)."""
    data = getattr(handle, "_handle_data", None)
    if data:
        return data[0][1]
    stack = [handle]
    seen: set[int] = set()
    while stack:
        t = stack.pop()
        if id(t) in seen or not isinstance(t, SymbolicTensor):
            continue
        seen.add(id(t))
        for consumer in t.consumers():
            kind = consumer.type
            if kind in ("ReadVariableOp", "ResourceGather"):
                return consumer.get_attr("dtype")
            indices = [i for i, inp in enumerate(consumer.inputs) if inp is t]
            if kind in ("Identity", "IdentityN", "Snapshot"):
                stack.extend(consumer.outputs[i] for i in indices)
            elif kind in ("If", "StatelessIf", "Case", "StatelessCase"):
                for graph in branch_graphs(consumer):
                    stack.extend(graph.inputs[i - 1] for i in indices if i > 0)
            elif kind in ("While", "StatelessWhile"):
                stack.extend(while_graphs(consumer)[1].inputs[i] for i in indices)
            elif kind in ("PartitionedCall", "StatefulPartitionedCall"):
                from modtensor.api.gradients.function_grad import _forward_graph_of

                try:
                    graph = _forward_graph_of(consumer)
                except LookupError:
                    continue
                stack.extend(graph.inputs[i] for i in indices)
    return None


def _resource_input_index(graph: FuncGraph, tensor: SymbolicTensor) -> int:
    """The index of the input of ``graph`` a resource tensor of it comes from (through identities and loops)."""
    inputs = {id(t): i for i, t in enumerate(graph.inputs)}
    t = tensor
    while id(t) not in inputs:
        op = t.op
        if op.type in ("Identity", "Snapshot"):
            t = op.inputs[0]
        elif op.type == "IdentityN" or op.type in ("While", "StatelessWhile"):
            t = op.inputs[t.value_index]
        else:
            raise NotImplementedError(
                f"Gradients of control flow reading the resource {tensor.name} made by '{op.name}' ({op.type}) "
                "inside the branch or loop body are not supported: read variables captured from outside."
            )
    return inputs[id(t)]


def _func_attr(name: str) -> attr_value_pb2.AttrValue:
    value = attr_value_pb2.AttrValue()
    value.func.name = name
    return value


def _type_list(types: Sequence[Any]) -> attr_value_pb2.AttrValue:
    value = attr_value_pb2.AttrValue()
    value.list.type.extend(dtypes.as_dtype(t).as_datatype_enum for t in types)
    value.list.SetInParent()
    return value


def _shape_list(shapes: Sequence[Any]) -> attr_value_pb2.AttrValue:
    value = attr_value_pb2.AttrValue()
    value.list.shape.extend(tensor_shape.as_shape(s).as_proto() for s in shapes)
    value.list.SetInParent()
    return value


def _rename(graph: FuncGraph) -> None:
    """A new function name for a forward FuncGraph about to be written again with more outputs."""
    base = graph.name.split("_rewritten")[0]
    graph.name = f"{base}_rewritten_{next(_IDS)}"


def _append_inputs(op: Operation, tensors: Sequence[SymbolicTensor]) -> None:
    """Add data inputs to ``op`` (a While gaining loop variables: TF's ``_add_while_inputs``)."""
    for t in tensors:
        if t.graph is not op.graph:
            raise ValueError(f"Cannot add input {t.name} of another graph to op '{op.name}'")
        op._inputs.append(t)
        t._consumers.append(op)
    op._sync_node_def_inputs()
    op.graph._invalidate_constants()


# ============================================================================ If / Case


class _CondGradFuncGraph(CondBranchFuncGraph):
    """The gradient graph of one branch: it captures the branch's intermediates through optionals."""

    def __init__(self, name: str, forward: FuncGraph, outer: Graph):
        super().__init__(name, outer)
        self.forward = forward
        self._forward_io = {id(t) for t in forward.inputs} | {id(t) for t in forward.outputs}
        self._indirect: dict[int, Any] = {}
        self.new_optionals: list[SymbolicTensor] = []  # made in the forward branch; it must now return them

    def capture(self, tensor: Any, name: str | None = None) -> SymbolicTensor:
        if not isinstance(tensor, SymbolicTensor) or tensor.graph is not self.forward or id(tensor) in self._forward_io:
            return super().capture(tensor, name)
        found = self._indirect.get(id(tensor))
        if found is not None:
            return found
        with self.as_default(), self.control_dependencies(None):
            if _is_constant(tensor):
                value = _copy_constant(tensor)
            elif tensor.dtype == dtypes.resource:
                value = super().capture(self.forward.inputs[_resource_input_index(self.forward, tensor)], name)
            else:
                optional = self._wrapped(tensor)
                captured = super().capture(optional, name)
                from modtensor.api.dispatch import apply_op

                value = apply_op(
                    "OptionalGetValue", optional=captured, output_types=[tensor.dtype], output_shapes=[tensor.shape]
                )[0]
                value._handle_data = getattr(tensor, "_handle_data", None)
        self._indirect[id(tensor)] = value
        return value

    def _wrapped(self, tensor: SymbolicTensor) -> SymbolicTensor:
        """The forward branch's optional holding ``tensor``: one it already returns, else a new one."""
        outputs = {id(t) for t in self.forward.outputs}
        for consumer in tensor.consumers():
            if consumer.type == "OptionalFromValue" and id(consumer.outputs[0]) in outputs:
                return consumer.outputs[0]
        from modtensor.api.dispatch import apply_op

        with self.forward.as_default(), self.forward.control_dependencies(None):
            optional = apply_op("OptionalFromValue", components=[tensor])
        self.new_optionals.append(optional)
        return optional


def _branch_grads(branch: FuncGraph, grads: Sequence[Any]) -> list[Any]:
    """The gradients of ``branch``'s inputs given its output gradients (None where none flows)."""
    ys, seeds = [], []
    for y, g in zip(branch.outputs, grads, strict=False):
        if g is None or not tape_lib.is_trainable_dtype(y.dtype):
            continue
        ys.append(y)
        seeds.append(g)
    if not ys:
        return [None] * len(branch.inputs)
    return _graph_gradients(branch, ys, seeds, branch.inputs)


def _rewrite_cond(op: Operation, branches: list[FuncGraph], new_optionals: list[list[SymbolicTensor]]) -> None:
    """Make the forward If/Case return the optionals its gradient branches read (``OptionalNone`` where another
    branch's optional sits)."""
    from modtensor.api import control_flow_util as util
    from modtensor.api.dispatch import apply_op

    count = max(len(o) for o in new_optionals)
    for branch, optionals in zip(branches, new_optionals, strict=True):
        with branch.as_default(), branch.control_dependencies(None):
            padding = [apply_op("OptionalNone") for _ in range(count - len(optionals))]
        branch.outputs.extend([*optionals, *padding])
        _rename(branch)
    names = [util.create_function(b, op.graph) for b in branches]
    if op.type in ("If", "StatelessIf"):
        op._set_attr("then_branch", _func_attr(names[0]))
        op._set_attr("else_branch", _func_attr(names[1]))
    else:
        value = attr_value_pb2.AttrValue()
        for name in names:
            value.list.func.add(name=name)
        op._set_attr("branches", value)
    old_shapes = [tensor_shape.TensorShape(s) for s in op.get_attr("output_shapes")]
    new_outputs = branches[0].outputs[len(op.outputs) :]
    op._set_attr("Tout", _type_list([t.dtype for t in branches[0].outputs]))
    op._set_attr("output_shapes", _shape_list([*old_shapes, *[t.shape for t in new_outputs]]))
    added = op._add_outputs([t.dtype for t in new_outputs], [t.shape for t in new_outputs])
    record_added_outputs(op, added)


def _resolve_branch_capture(t: Any, branch: FuncGraph, op: Operation) -> Any:
    """A tensor a gradient branch captured, as a tensor of the forward op's graph (or an outer one)."""
    if not isinstance(t, SymbolicTensor) or t.graph is not branch:
        return t
    for i, out in enumerate(branch.outputs):
        if out is t:
            return op.outputs[i]
    for i, inp in enumerate(branch.inputs):
        if inp is t:
            return op.inputs[i + 1]
    raise ValueError(f"Could not find the external tensor of {t.name} captured from branch {branch.name}")


def _cond_grad(op: Any, grads: Sequence[Any]) -> list[Any]:
    from modtensor.api import cond as cond_lib
    from modtensor.api import control_flow_util as util
    from modtensor.framework import op_def_library
    from modtensor.framework.graph import get_default_graph

    is_if = op.type in ("If", "StatelessIf")
    branches = branch_graphs(op)
    num_inputs = len(op.inputs)
    grads = [None if g is None else _densify(g) for g in grads]
    outer = get_default_graph()
    grad_graphs: list[_CondGradFuncGraph] = []
    per_branch: list[list[Any]] = []
    with tape_lib.stop_recording():
        for branch in branches:
            grad_graph = _CondGradFuncGraph(f"{branch.name.split('_rewritten')[0]}_grad_{next(_IDS)}", branch, outer)
            with grad_graph.as_default():
                per_branch.append(_branch_grads(branch, grads))
            grad_graphs.append(grad_graph)
        num_branch_inputs = len(branches[0].inputs)
        kept = [i for i in range(num_branch_inputs) if any(r[i] is not None for r in per_branch)]
        for i in kept:
            template = next(r[i] for r in per_branch if r[i] is not None)
            for b, results in enumerate(per_branch):
                if results[i] is not None:
                    continue
                inp = branches[b].inputs[i]
                with grad_graphs[b].as_default():
                    if inp.dtype == dtypes.resource:
                        results[i] = _resource_zeros(inp, template.dtype)
                    else:
                        results[i] = _zeros_like(inp)
        for grad_graph, results in zip(grad_graphs, per_branch, strict=True):
            with grad_graph.as_default(), grad_graph.control_dependencies(None):
                outputs = []
                for i in kept:
                    value = op_def_library.convert_to_tensor(results[i], graph=grad_graph)
                    outputs.append(grad_graph.create_op("Identity", [value], name="Identity").outputs[0])
            grad_graph.outputs = outputs
            grad_graph.structured_outputs = list(outputs)
        if any(g.new_optionals for g in grad_graphs):
            _rewrite_cond(op, branches, [g.new_optionals for g in grad_graphs])
        for grad_graph, branch in zip(grad_graphs, branches, strict=True):
            externals = [_resolve_branch_capture(t, branch, op) for t in grad_graph.external_captures]
            grad_graph.reset_captures(externals, grad_graph.internal_captures)
    result: list[Any] = [None] * num_inputs
    if not kept:
        return result
    graph = util.default_graph()
    with graph.name_scope("cond_grad" if is_if else "case_grad") as scope:
        outputs = cond_lib._build(cond_lib._COND if is_if else cond_lib._CASE, op.inputs[0], list(grad_graphs),
                                  scope, prevent_lowering=False)  # fmt: skip
    outputs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
    for i, value in zip(kept, outputs, strict=True):
        result[i + 1] = value
    return result


@RegisterGradient("OptionalFromValue")
def _optional_from_value_grad(op: Any, grad: Any) -> list[Any]:
    from modtensor.api.dispatch import apply_op

    values = apply_op(
        "OptionalGetValue",
        optional=grad,
        output_types=[t.dtype for t in op.inputs],
        output_shapes=[t.shape for t in op.inputs],
    )
    return list(values)


@RegisterGradient("OptionalGetValue")
def _optional_get_value_grad(op: Any, *grads: Any) -> Any:
    from modtensor.api.dispatch import apply_op

    return apply_op("OptionalFromValue", components=[_densify(g) for g in grads])


@RegisterGradient("If")
@RegisterGradient("StatelessIf")
def _if_grad(op: Any, *grads: Any) -> list[Any]:
    return _cond_grad(op, grads)


@RegisterGradient("Case")
@RegisterGradient("StatelessCase")
def _case_grad(op: Any, *grads: Any) -> list[Any]:
    return _cond_grad(op, grads)


# ============================================================================ While


def _accumulator_of(tensor: SymbolicTensor, body: FuncGraph) -> SymbolicTensor | None:
    """The body output that already accumulates ``tensor`` (a ``TensorListPushBack`` of it onto a loop variable
    returned at the same position), if any."""
    inputs = {id(t): i for i, t in enumerate(body.inputs)}
    outputs = {id(t): i for i, t in enumerate(body.outputs)}
    for consumer in tensor.consumers():
        if consumer.type != "TensorListPushBack" or consumer.inputs[1] is not tensor:
            continue
        index = inputs.get(id(consumer.inputs[0]))
        pushed = consumer.outputs[0]
        if index is not None and outputs.get(id(pushed)) == index:
            return pushed
    return None


class _WhileBodyGradFuncGraph(WhileBodyFuncGraph):
    """The gradient loop's body: it reads forward body values through accumulators (see the module doc)."""

    def __init__(self, name: str, forward_cond: FuncGraph, forward_body: FuncGraph, while_op: Operation,
                 outer: Graph):  # fmt: skip
        super().__init__(name, outer)
        self.forward = forward_body
        self.forward_cond = forward_cond
        self.while_op = while_op
        self.maximum_iterations = while_op.inputs[1]
        self.extra_inputs: list[SymbolicTensor] = []  # EmptyTensorLists: the forward loop's new loop variables
        self.capture_outputs: dict[int, Any] = {}  # id(internal capture) -> the body output for it
        self._indirect: dict[int, Any] = {}
        self._forward_inputs = {id(t) for t in forward_body.inputs}
        self._forward_outputs = {id(t) for t in forward_body.outputs}

    def capture(self, tensor: Any, name: str | None = None) -> SymbolicTensor:
        found = self._indirect.get(id(tensor))
        if found is not None:
            return found
        if not isinstance(tensor, SymbolicTensor) or tensor.graph is not self.forward:
            known = id(tensor) in self._captures
            captured = super().capture(tensor, name)
            if not known:
                self.capture_outputs[id(captured)] = captured
                self._indirect[id(tensor)] = captured
            return captured
        original = tensor
        while tensor.op.type == "Identity":
            tensor = tensor.op.inputs[0]
        found = self._indirect.get(id(tensor))
        if found is None:
            with self.as_default(), self.control_dependencies(None):
                found = self._capture_forward(tensor, name)
            self._indirect[id(tensor)] = found
        self._indirect[id(original)] = found
        return found

    def _capture_forward(self, tensor: SymbolicTensor, name: str | None) -> Any:
        if id(tensor) in self._forward_inputs and id(tensor) in self._forward_outputs:
            # A loop invariant: the forward op's output at its position holds the same value.
            captured = super().capture(tensor, name)
            self.capture_outputs[id(captured)] = captured
            return captured
        if _is_constant(tensor):
            return _copy_constant(tensor)
        if tensor.dtype == dtypes.resource:
            index = _resource_input_index(self.forward, tensor)
            if _resource_input_index(self.forward, self.forward.outputs[index]) != index:
                raise AssertionError(f"Resource tensors must be loop invariants {self.while_op.inputs[index]}")
            return self.capture(self.while_op.inputs[index])
        accumulator = _accumulator_of(tensor, self.forward)
        if accumulator is None:
            accumulator = self._accumulate(tensor)
        captured = super().capture(accumulator, name)
        from modtensor.api.dispatch import apply_op

        popped_list, value = apply_op(
            "TensorListPopBack", input_handle=captured, element_shape=-1, element_dtype=tensor.dtype
        )
        value._handle_data = getattr(tensor, "_handle_data", None)
        self.capture_outputs[id(captured)] = popped_list
        return value

    def _accumulate(self, tensor: SymbolicTensor) -> SymbolicTensor:
        """Make the forward body push ``tensor`` onto a new loop variable each iteration; the pushed list."""
        from modtensor.api import list_ops

        outer = self.while_op.graph
        with outer.as_default(), outer.control_dependencies(None):
            empty = list_ops.empty_tensor_list(
                element_shape=tensor.shape,
                element_dtype=tensor.dtype,
                max_num_elements=self.maximum_iterations,
                name=f"{tensor.op.name.replace('/', '_')}_{tensor.value_index}_accumulator",
            )
        self.extra_inputs.append(empty)
        with self.forward.as_default(), self.forward.control_dependencies(None):
            pushed = list_ops.tensor_list_push_back(empty, tensor)
        self.forward.outputs.append(pushed)
        with self.forward_cond.as_default():
            self.forward_cond.capture(empty)
        self._forward_outputs.add(id(pushed))
        return pushed


def _is_trainable_output(t: SymbolicTensor) -> bool:
    if not tape_lib.is_trainable_dtype(t.dtype):
        return False
    if t.op.type == "TensorListPopBack" and t.value_index == 0:
        return tape_lib.is_trainable_dtype(t.op.get_attr("element_dtype"))
    return True


def _initial_grad(grad: Any, body_output: Any, op_input: Any, op_output: Any, body_input: Any) -> Any:
    """The gradient a loop variable starts the gradient loop with (TF's _preprocess_grad)."""
    if not _is_trainable_output(body_output):
        return None
    if grad is None and op_output.dtype == dtypes.variant:
        return _zeros_like(op_output)
    if grad is None and op_output.dtype == dtypes.resource:
        dtype = _resource_dtype(op_input) or _resource_dtype(body_input)
        if dtype is None:
            return None
        return _resource_zeros(op_output, dtype)
    return None if grad is None else _densify(grad)


def _while_grad(op: Any, *grads: Any) -> list[Any]:
    from modtensor.api import array_ops, math_ops
    from modtensor.api import control_flow_util as util
    from modtensor.api.while_loop import make_while_op
    from modtensor.framework import op_def_library
    from modtensor.framework.graph import get_default_graph

    cond_graph, body_graph = while_graphs(op)
    num_inputs = len(op.inputs)
    num_params = len(body_graph.outputs)
    attr = op._get_attr_value("_num_original_outputs")
    num_original = attr.i if attr is not None else len(op.outputs)
    grads = list(grads) + [None] * (len(op.outputs) - len(grads))
    initial = [
        _initial_grad(g, body_graph.outputs[i], op.inputs[i], op.outputs[i], body_graph.inputs[i])
        if i < num_original
        else None
        for i, g in enumerate(grads[:num_params])
    ]
    positions = [i for i, g in enumerate(initial) if g is not None]
    if not positions:
        return [None] * num_inputs
    outer = get_default_graph()
    total_iters = op.outputs[0]
    maximum_iterations = op.inputs[1]
    counter = op_def_library.constant(0, dtype=total_iters.dtype, name="grad_counter")
    args = [counter, maximum_iterations, total_iters, *[initial[i] for i in positions]]
    name = f"{body_graph.name.split('_rewritten')[0]}_grad_{next(_IDS)}"
    grad_body = _WhileBodyGradFuncGraph(name, cond_graph, body_graph, op, outer)
    with tape_lib.stop_recording():
        with grad_body.as_default():
            names = ["counter", "maximum_iterations", "total_iters", *[f"grad_{k}" for k in range(len(positions))]]
            placeholders = []
            for k, (arg, arg_name) in enumerate(zip(args, names, strict=True)):
                shape = arg.shape
                if k >= 3:  # a gradient has the shape of its loop variable, which may change between iterations
                    shape = shape.most_specific_compatible_shape(body_graph.inputs[positions[k - 3]].shape)
                placeholders.append(grad_body.make_placeholder(arg.dtype, shape, arg_name))
            grad_body.inputs = list(placeholders)
            ys = [body_graph.outputs[i] for i in positions]
            xs = [body_graph.inputs[i] for i in positions]
            results = _graph_gradients(body_graph, ys, placeholders[3:], xs)
            with grad_body.control_dependencies(None):
                filled = []
                for k, (g, x) in enumerate(zip(results, xs, strict=True)):
                    if g is None:
                        g = _resource_zeros(x, args[3 + k].dtype) if x.dtype == dtypes.resource else _zeros_like(x)
                    filled.append(op_def_library.convert_to_tensor(g, graph=grad_body))
                step = math_ops.add(placeholders[0], op_def_library.constant(1, dtype=total_iters.dtype))
                outputs = [step, placeholders[1], placeholders[2], *filled]
                outputs = [array_ops.identity(t) for t in outputs]
        for _external, internal in grad_body.captures:
            outputs.append(grad_body.capture_outputs[id(internal)])
        grad_body.outputs = outputs
        grad_body.structured_outputs = list(outputs)
        if grad_body.extra_inputs:
            _rewrite_while(op, cond_graph, body_graph, grad_body.extra_inputs, num_params)
        op._set_attr("_num_original_outputs", attr_value_pb2.AttrValue(i=len(op.outputs)))
        captured_inputs = []
        for t in grad_body.external_captures:
            if isinstance(t, SymbolicTensor) and t.graph is body_graph:
                index = next(i for i, out in enumerate(body_graph.outputs) if out is t)
                t = op.outputs[index]
            captured_inputs.append(t)
        loop_vars = [*args, *captured_inputs]
        cond_name = f"{cond_graph.name.split('_rewritten')[0]}_grad_{next(_IDS)}"
        grad_cond = WhileCondFuncGraph(cond_name, outer)
        with grad_cond.as_default():
            cond_inputs = [grad_cond.make_placeholder(t.dtype, t.shape, "Placeholder") for t in grad_body.inputs]
            grad_cond.inputs = cond_inputs
            less = math_ops.less(cond_inputs[0], cond_inputs[2])
            grad_cond.outputs = [array_ops.identity(less)]
            grad_cond.structured_outputs = list(grad_cond.outputs)
    graph = util.default_graph()
    with graph.name_scope(f"{op.name.rsplit('/', 1)[-1]}_grad") as scope:
        grad_op = make_while_op(
            loop_vars,
            grad_cond,
            grad_body,
            [t.shape for t in grad_body.outputs],
            op.get_attr("parallel_iterations"),
            scope,
        )
        values = [array_ops.identity(grad_op.outputs[3 + k]) for k in range(len(positions))]
    result: list[Any] = [None] * num_inputs
    for i, value in zip(positions, values, strict=True):
        result[i] = value
    return result


def _rewrite_while(op: Operation, cond_graph: FuncGraph, body_graph: FuncGraph,
                   new_inputs: Sequence[SymbolicTensor], num_params: int) -> None:  # fmt: skip
    """Make the forward While carry the accumulators its gradient reads (TF's rewrite of the forward op)."""
    from modtensor.api import control_flow_util as util

    new_outputs = body_graph.outputs[num_params:]
    if len(body_graph.outputs) != len(op.inputs) + len(new_inputs):
        raise AssertionError(
            f"The forward While '{op.name}' rewritten for its gradient has {len(body_graph.outputs)} body outputs for "
            f"{len(op.inputs)} inputs and {len(new_inputs)} new ones."
        )
    _rename(cond_graph)
    _rename(body_graph)
    op._set_attr("cond", _func_attr(util.create_function(cond_graph, op.graph)))
    op._set_attr("body", _func_attr(util.create_function(body_graph, op.graph)))
    old_shapes = [tensor_shape.TensorShape(s) for s in op.get_attr("output_shapes")]
    op._set_attr("T", _type_list([t.dtype for t in body_graph.outputs]))
    op._set_attr("output_shapes", _shape_list([*old_shapes, *[t.shape for t in new_outputs]]))
    _append_inputs(op, new_inputs)
    added = op._add_outputs([t.dtype for t in new_outputs], [t.shape for t in new_outputs])
    for t, out in zip(new_outputs, added, strict=True):
        out._handle_data = getattr(t, "_handle_data", None)
    record_added_outputs(op, added)


@RegisterGradient("While")
@RegisterGradient("StatelessWhile")
def _while_grad_fn(op: Any, *grads: Any) -> list[Any]:
    return _while_grad(op, *grads)
