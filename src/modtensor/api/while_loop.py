"""``tf.while_loop`` with TensorFlow 2.21's semantics and error texts: eager, functional (v2) and v1 loops.

Eagerly the loop runs in Python (``cond`` and ``body`` called until ``cond`` is false).
While a graph is built with control flow v2 (always in ``tf.function``), ``cond`` and
``body`` are traced once into FuncGraphs whose arguments are a loop counter, the
iteration limit (``maximum_iterations``, -1 for none) and the flattened loop variables;
tensors the body captures become extra loop variables passed through unchanged
(loop invariants); one ``While`` (``StatelessWhile`` without stateful ops) node runs
them, as TF's while_v2 builds it (attrs ``output_shapes`` from the shape invariants,
``parallel_iterations``, ``_num_original_outputs``, ``_lower_using_switch_merge``).
With control flow v2 disabled, v1 graphs get Enter/Merge/Switch/LoopCond/NextIteration/
Exit (``api/control_flow_v1.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from modtensor.api import control_flow_util as util
from modtensor.api import dispatch
from modtensor.api.cond import structure_error
from modtensor.framework import dtypes, op_def_library, tensor_shape
from modtensor.framework.func_graph import (
    WhileBodyFuncGraph,
    WhileCondFuncGraph,
    flatten_structure,
    func_graph_from_py_func,
    pack_structure,
)
from modtensor.framework.graph import SymbolicTensor
from modtensor.framework.protos import attr_value_pb2
from modtensor.framework.tensor import Tensor, TensorSpec

__all__ = ["while_loop", "while_loop_v1"]


def while_loop(
    cond: Callable[..., Any],
    body: Callable[..., Any],
    loop_vars: Any,
    shape_invariants: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    maximum_iterations: Any = None,
    name: str | None = None,
) -> Any:
    """Repeat ``body`` while ``cond`` is true (TF 2's ``tf.while_loop``: results keep the loop_vars' structure)."""
    return while_loop_v1(
        cond,
        body,
        loop_vars,
        shape_invariants=shape_invariants,
        parallel_iterations=parallel_iterations,
        back_prop=back_prop,
        swap_memory=swap_memory,
        name=name,
        maximum_iterations=maximum_iterations,
        return_same_structure=True,
    )


def while_loop_v1(
    cond: Callable[..., Any],
    body: Callable[..., Any],
    loop_vars: Any,
    shape_invariants: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    name: str | None = None,
    maximum_iterations: Any = None,
    return_same_structure: bool = False,
) -> Any:
    """TF 1's ``tf.compat.v1.while_loop`` (a single loop variable comes back unpacked unless return_same_structure).

    ``swap_memory`` is accepted and ignored; with ``back_prop=False`` a v2 loop's results stop gradients
    (TF 2: the loop is differentiated otherwise, ``api/gradients/control_flow_grad.py``).
    """
    del swap_memory
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    if parallel_iterations < 1:
        raise TypeError("'parallel_iterations' must be a positive integer.")
    from modtensor.api.context import executing_eagerly, name_scope

    eager = executing_eagerly()
    if not eager and util.use_control_flow_v2(util.default_graph()):
        return while_v2(
            cond,
            body,
            loop_vars,
            shape_invariants=shape_invariants,
            parallel_iterations=parallel_iterations,
            maximum_iterations=maximum_iterations,
            name=name,
            return_same_structure=return_same_structure,
            back_prop=back_prop,
        )
    with name_scope(name or "while"):
        if not loop_vars:
            raise ValueError("'loop_vars' must be provided.")
        try_to_pack = len(loop_vars) == 1 and not return_same_structure
        limited = maximum_iterations is not None
        if limited:
            from modtensor.api.constant_op import convert_to_tensor

            limit = convert_to_tensor(maximum_iterations, name="maximum_iterations")
            if limit.shape.rank != 0:
                raise ValueError(f"'maximum_iterations' must be a scalar. Received shape: {limit.shape}")
            if eager:
                counter: Any = 0
                limit = int(limit.numpy())
            else:
                counter = op_def_library.convert_to_tensor(
                    np.zeros((), limit.dtype.as_numpy_dtype), name="iteration_counter"
                )
            orig_cond, orig_body = cond, body
            if try_to_pack:
                loop_vars = (counter, loop_vars[0])

                def cond(i: Any, lv: Any) -> Any:
                    return _logical_and(i < limit, orig_cond(lv))

                def body(i: Any, lv: Any) -> Any:
                    return i + 1, orig_body(lv)

            else:
                loop_vars = (counter, loop_vars)

                def cond(i: Any, lv: Any) -> Any:
                    return _logical_and(i < limit, orig_cond(*lv))

                def body(i: Any, lv: Any) -> Any:
                    return i + 1, orig_body(*lv)

            try_to_pack = False
        if eager:
            return _eager_loop(cond, body, loop_vars, try_to_pack, limited)
        if shape_invariants is not None and limited:
            shape_invariants = (tensor_shape.TensorShape([]), shape_invariants)
        from modtensor.api import control_flow_v1

        result = control_flow_v1.while_loop(
            cond, body, loop_vars, shape_invariants, parallel_iterations, return_same_structure
        )
        return result[1] if limited else result


def _logical_and(x: Any, y: Any) -> Any:
    """``x and y`` for Python bools, ``tf.logical_and`` for tensors (what TF's wrapped cond computes)."""
    if isinstance(x, Tensor) or isinstance(y, Tensor):
        return dispatch.apply_op("LogicalAnd", x=x, y=y)
    return x and y


def _eager_loop(cond: Callable[..., Any], body: Callable[..., Any], loop_vars: Any, try_to_pack: bool,
                limited: bool) -> Any:  # fmt: skip
    """TF's eager while_loop: Python iteration, the structure checked after every body call."""
    from modtensor.api.constant_op import convert_to_tensor

    structure = list(loop_vars)
    packed = False
    while cond(*loop_vars):
        loop_vars = body(*loop_vars)
        if try_to_pack and not isinstance(loop_vars, (list, tuple)):
            packed = True
            loop_vars = (loop_vars,)
        problem = structure_error(structure, list(loop_vars))
        if problem is not None:
            raise problem
    flat = [x if _is_tensor_array(x) else convert_to_tensor(x) for x in flatten_structure(loop_vars)]
    loop_vars = pack_structure(loop_vars, flat)
    if limited:
        return loop_vars[1]
    return loop_vars[0] if packed else loop_vars


# ============================================================================ while_v2


def _is_tensor_array(value: Any) -> bool:
    from modtensor.api.tensor_array_ops import TensorArray

    return isinstance(value, TensorArray)


def _to_flow(value: Any) -> Any:
    """A loop variable as the tensor the loop carries: a TensorArray's flow (TF's _tensor_array_to_flow)."""
    return value.flow if _is_tensor_array(value) else value


def _from_flows(originals: Sequence[Any], values: Sequence[Any]) -> list[Any]:
    """``values`` with each TensorArray of ``originals`` rebuilt around its flow in ``values``."""
    if not any(_is_tensor_array(o) for o in originals):
        return list(values)
    from modtensor.api.tensor_array_ops import build_ta_with_new_flow

    return [build_ta_with_new_flow(o, v) if _is_tensor_array(o) else v for o, v in zip(originals, values, strict=True)]


def _invariant_spec(var: Any, shape: Any) -> TensorSpec:
    """TF's _shape_invariant_to_type_spec for tensors."""
    if shape is None:
        return TensorSpec(var.shape, var.dtype)
    if isinstance(shape, TensorSpec):
        if shape.dtype != var.dtype or not shape.shape.is_compatible_with(var.shape):
            raise TypeError(f"TypeSpec {shape!r} is not compatible with {var!r}")
        return shape
    if not isinstance(shape, tensor_shape.TensorShape):
        raise TypeError(f"'shape' must be one of TypeSpec, TensorShape or None. Received: {type(shape)}")
    return TensorSpec(shape, var.dtype)


def _shape_less_than_or_equal(shape1: tensor_shape.TensorShape, shape2: tensor_shape.TensorShape) -> bool:
    if shape2.rank is None:
        return True
    if shape1.rank != shape2.rank:
        return False
    return all(d2 is None or d1 == d2 for d1, d2 in zip(shape1.as_list(), shape2.as_list(), strict=True))


def _map_invariants(loop_vars: Any, shape_invariants: Any) -> list[TensorSpec]:
    """The flat specs of the loop variables, from ``shape_invariants`` where given (same structure required)."""
    flat_vars = flatten_structure(loop_vars)
    if shape_invariants is None:
        return [_invariant_spec(v, None) for v in flat_vars]
    if isinstance(shape_invariants, (tensor_shape.TensorShape, TensorSpec)):
        shape_invariants = [shape_invariants]
        flat_shapes = shape_invariants
        if not isinstance(loop_vars, (list, tuple)) or len(flat_vars) != 1:
            raise structure_error(loop_vars, shape_invariants) or ValueError(
                "The two structures don't have the same nested structure."
            )
    else:
        invariants = _as_lists(shape_invariants, leaf_shapes=True)
        problem = structure_error(_as_lists(loop_vars), invariants, check_types=False)
        if problem is not None:
            raise problem
        flat_shapes = _flat_shapes(shape_invariants)
    return [_invariant_spec(v, s) for v, s in zip(flat_vars, flat_shapes, strict=True)]


def _as_lists(structure: Any, leaf_shapes: bool = False) -> Any:
    """``structure`` with TensorShapes as leaves (they are not nested lists)."""
    if leaf_shapes and isinstance(structure, (tensor_shape.TensorShape, TensorSpec)):
        return "leaf"
    if isinstance(structure, (list, tuple)):
        return [_as_lists(s, leaf_shapes) for s in structure]
    if isinstance(structure, dict):
        return {k: _as_lists(v, leaf_shapes) for k, v in structure.items()}
    return "leaf"


def _flat_shapes(structure: Any) -> list[Any]:
    if isinstance(structure, (tensor_shape.TensorShape, TensorSpec)) or structure is None:
        return [structure]
    if isinstance(structure, (list, tuple)):
        return [s for item in structure for s in _flat_shapes(item)]
    if isinstance(structure, dict):
        return [s for key in sorted(structure) for s in _flat_shapes(structure[key])]
    return [structure]


def while_v2(
    cond: Callable[..., Any],
    body: Callable[..., Any],
    loop_vars: Any,
    shape_invariants: Any = None,
    parallel_iterations: int = 10,
    maximum_iterations: Any = None,
    name: str | None = None,
    return_same_structure: bool = True,
    back_prop: bool = True,
) -> Any:
    """One ``While``/``StatelessWhile`` node running the traced cond and body (TF's while_v2)."""
    graph = util.default_graph()
    orig_loop_vars = loop_vars
    flat_orig = flatten_structure(orig_loop_vars)
    flat_vars = util.inputs_in_graph(graph, [_to_tensor(_to_flow(v)) for v in flat_orig])
    structure = pack_structure(orig_loop_vars, flat_vars)
    specs = _map_invariants(structure, shape_invariants)
    with graph.name_scope(name or "while") as scope:
        with graph.name_scope(None):
            cond_name = util.unique_fn_name(scope, "cond")
            body_name = util.unique_fn_name(scope, "body")
        limit = op_def_library.convert_to_tensor(
            -1 if maximum_iterations is None else maximum_iterations, dtype=dtypes.int32, name="maximum_iterations"
        )
        limit = util.inputs_in_graph(graph, [limit])[0]
        counter = op_def_library.convert_to_tensor(np.int32(0), name="loop_counter")
        signature = [
            TensorSpec(counter.shape, counter.dtype, counter.op.name),
            TensorSpec(limit.shape, limit.dtype, limit.op.name),
            *specs,
        ]
        arg_names = ["loop_counter", "maximum_iterations"] + ["Placeholder"] * len(specs)

        def wrapped_cond(loop_counter: Any, limit_arg: Any, *args: Any) -> Any:
            pred = cond(*_pack_args(orig_loop_vars, _from_flows(flat_orig, args)))
            if isinstance(pred, Tensor) and (pred.shape.rank is None or pred.shape.rank):
                pred = dispatch.apply_op("Squeeze", input=pred, squeeze_dims=[])
            if maximum_iterations is None:
                return pred
            less = dispatch.apply_op("Less", x=loop_counter, y=limit_arg)
            return dispatch.apply_op("LogicalAnd", x=less, y=pred)

        cond_graph = func_graph_from_py_func(
            cond_name, wrapped_cond, signature, {}, arg_names, func_graph=WhileCondFuncGraph(cond_name, graph)
        )

        def wrapped_body(loop_counter: Any, limit_arg: Any, *args: Any) -> Any:
            body_graph = util.default_graph()
            for t in cond_graph.external_captures:  # the cond's captures first, in the cond's order
                body_graph.capture(t)
            outputs = body(*_pack_args(orig_loop_vars, _from_flows(flat_orig, args)))
            if not isinstance(outputs, (list, tuple)) or _is_namedtuple(outputs):
                outputs = [outputs]
            problem = structure_error(outputs, orig_loop_vars, check_types=False)
            if problem is not None:
                raise problem
            return [loop_counter + 1, limit_arg, *(_to_flow(v) for v in flatten_structure(outputs))]

        body_graph = func_graph_from_py_func(
            body_name, wrapped_body, signature, {}, arg_names, func_graph=WhileBodyFuncGraph(body_name, graph)
        )
        # Tensors the body captured are loop invariants: extra loop variables passed through unchanged.
        num_cond_captures = len(cond_graph.external_captures)
        extra = body_graph.external_captures[num_cond_captures:]
        loop_inputs = [counter, limit, *flat_vars, *body_graph.external_captures]
        body_graph.outputs.extend(body_graph.internal_captures)
        _duplicate_body_captures_in_cond(cond_graph, extra)
        num_flat = len(flat_vars)
        _check_shapes_compat(body_graph.outputs[2 : 2 + num_flat], [s.shape for s in specs], flat_vars)
        output_shapes = [t.shape for t in body_graph.outputs]
        output_shapes[2 : 2 + num_flat] = [s.shape for s in specs]
        op = make_while_op(loop_inputs, cond_graph, body_graph, output_shapes, parallel_iterations, scope)
        outputs = list(op.outputs)
        if not graph.building_function:
            with graph.name_scope(scope):
                outputs = [graph.create_op("Identity", [t], name="Identity").outputs[0] for t in outputs]
    results = outputs[2 : 2 + num_flat]
    if not back_prop:
        results = [dispatch.apply_op("StopGradient", input=t) for t in results]
    results = _from_flows(flat_orig, results)
    packed = pack_structure(orig_loop_vars, results)
    if return_same_structure:
        return packed
    return results[0] if len(results) == 1 else packed


def make_while_op(
    loop_inputs: Sequence[Any],
    cond_graph: Any,
    body_graph: Any,
    output_shapes: Sequence[tensor_shape.TensorShape],
    parallel_iterations: int,
    name: str,
) -> Any:
    """The ``While``/``StatelessWhile`` node of the default graph running ``cond_graph`` and ``body_graph`` on
    ``loop_inputs`` (captured when they belong to an enclosing graph). The op keeps its FuncGraphs
    (``_modtensor_while_graphs``), which its gradient reads and extends."""
    graph = util.default_graph()
    loop_inputs = util.inputs_in_graph(graph, loop_inputs)
    for inp, out, var in zip(body_graph.inputs, body_graph.outputs, loop_inputs, strict=False):
        if inp.dtype != out.dtype:
            raise TypeError(
                f"Loop var {var.name} enters the loop with type {inp.dtype} but has type {out.dtype} after "
                f"1 iteration. {var.name} type should remain constant."
            )
    stateful = bool(util.stateful_ops([cond_graph, body_graph]))
    cond_fn = util.create_function(cond_graph, graph)
    body_fn = util.create_function(body_graph, graph)
    shapes = attr_value_pb2.AttrValue()
    shapes.list.shape.extend(tensor_shape.as_shape(s).as_proto() for s in output_shapes)
    shapes.list.SetInParent()
    types = attr_value_pb2.AttrValue()
    types.list.type.extend(t.dtype.as_datatype_enum for t in loop_inputs)
    op = graph.create_op(
        "While" if stateful else "StatelessWhile",
        loop_inputs,
        name=name,
        attrs={
            "T": types,
            "cond": util.func_attr(cond_fn),
            "body": util.func_attr(body_fn),
            "output_shapes": shapes,
            "parallel_iterations": attr_value_pb2.AttrValue(i=parallel_iterations),
        },
    )
    op._set_attr(util.LOWER_USING_SWITCH_MERGE, attr_value_pb2.AttrValue(b=True))
    op._set_attr("_read_only_resource_inputs", attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue()))
    op._set_attr("_num_original_outputs", attr_value_pb2.AttrValue(i=len(body_graph.outputs)))
    cond_graph.outer_graph = body_graph.outer_graph = graph
    op._modtensor_while_graphs = (cond_graph, body_graph)
    return op


def _is_namedtuple(value: Any) -> bool:
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def _to_tensor(value: Any) -> Any:
    if isinstance(value, Tensor):
        return value
    return op_def_library.convert_to_tensor(value)


def _pack_args(structure: Any, args: Sequence[Any]) -> list[Any]:
    """The flat placeholder args packed as the loop variables (one positional argument per loop variable)."""
    packed = pack_structure(structure, list(args))
    return list(packed) if isinstance(packed, (list, tuple)) and not _is_namedtuple(packed) else [packed]


def _check_shapes_compat(outputs: Sequence[SymbolicTensor], invariants: Sequence[Any], inputs: Sequence[Any]) -> None:
    for t, shape, input_t in zip(outputs, invariants, inputs, strict=True):
        if not _shape_less_than_or_equal(t.shape, shape):
            raise ValueError(
                f"Input tensor `{input_t.name}` enters the loop with shape {shape}, but has shape {t.shape} after one "
                "iteration. To allow the shape to vary across iterations, use the `shape_invariants` argument of "
                "tf.while_loop to specify a less-specific shape."
            )


def _duplicate_body_captures_in_cond(cond_graph: Any, captures: Sequence[Any]) -> None:
    """Placeholders in the cond for the tensors only the body captured, so both take the same arguments."""
    if not captures:
        return
    prefix = f"{cond_graph.name}___redundant_placeholder"
    with cond_graph.as_default():
        placeholders = [cond_graph.make_placeholder(t.dtype, t.shape, f"{prefix}{i}") for i, t in enumerate(captures)]
    externals = cond_graph.external_captures + list(captures)
    internals = cond_graph.internal_captures + placeholders
    cond_graph.reset_captures(externals, internals)
    cond_graph.inputs.extend(placeholders)
