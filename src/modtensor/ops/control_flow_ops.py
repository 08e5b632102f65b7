"""TensorFlow's v1 control-flow ops: Switch, Merge, Enter, Exit, NextIteration, LoopCond, ControlTrigger.

Their OpDefs equal TensorFlow 2.21's. The dataflow executor gives them their meaning
(docs/architecture.md, "Executor"): ``Switch`` forwards its data to one of two outputs
and leaves the other *dead*; ``Merge`` forwards whichever input is live; ``Enter``
moves a value into a child frame (a while loop), ``Exit`` back to the parent frame,
``NextIteration`` to the next iteration of the same frame, and ``LoopCond`` marks the
predicate that decides whether a loop goes on. ``ControlTrigger`` fires even when
its inputs are dead. The ``Ref*`` variants of TF 1's reference variables are not
provided.
"""

from __future__ import annotations

from modtensor.framework import common_shapes
from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import InferenceContext


def _switch_shape(ctx: InferenceContext) -> None:
    """Both outputs have the data's shape; the predicate must be a scalar."""
    ctx.with_rank(ctx.input(1), 0)
    ctx.set_output(0, ctx.input(0))
    ctx.set_output(1, ctx.input(0))
    handle_data = ctx.input_handle_shapes_and_types(0)
    if handle_data is not None:  # a resource's or TensorList's handle data passes both ways
        ctx.set_output_handle_shapes_and_types(0, handle_data)
        ctx.set_output_handle_shapes_and_types(1, handle_data)


def _merge_shape(ctx: InferenceContext) -> None:
    """The inputs' common shape: dimensions that differ become unknown, different ranks an unknown rank."""
    out = ctx.input(0)
    if ctx.rank_known(out):
        rank = ctx.rank(out)
        for i in range(1, ctx.num_inputs()):
            shape = ctx.input(i)
            if not ctx.rank_known(shape) or ctx.rank(shape) != rank:
                out = ctx.unknown_shape()
                break
            for d in range(rank):
                if ctx.value(ctx.dim(shape, d)) != ctx.value(ctx.dim(out, d)):
                    out = ctx.replace_dim(out, d, ctx.unknown_dim())
    else:
        out = ctx.unknown_shape()
    ctx.set_output(0, out)
    ctx.set_output(1, ctx.scalar())


def _enter_shape(ctx: InferenceContext) -> None:
    """Unknown (the loop may change it), except for a loop-invariant (``is_constant``) Enter; handle data passes."""
    handle_data = ctx.input_handle_shapes_and_types(0)
    if handle_data is not None:
        ctx.set_output_handle_shapes_and_types(0, handle_data)
    ctx.set_output(0, ctx.input(0) if ctx.get_attr("is_constant") else ctx.unknown_shape())


(
    register_op("Switch")
    .input("data: T")
    .input("pred: bool")
    .output("output_false: T")
    .output("output_true: T")
    .attr("T: type")
    .set_shape_fn(_switch_shape)
)
(
    register_op("Merge")
    .input("inputs: N * T")
    .output("output: T")
    .output("value_index: int32")
    .attr("T: type")
    .attr("N: int >= 1")
    .set_shape_fn(_merge_shape)
)
(
    register_op("Enter")
    .input("data: T")
    .output("output: T")
    .attr("T: type")
    .attr("frame_name: string")
    .attr("is_constant: bool = false")
    .attr("parallel_iterations: int = 10")
    .set_shape_fn(_enter_shape)
)
register_op("Exit").input("data: T").output("output: T").attr("T: type").set_shape_fn(common_shapes.unchanged_shape)
(
    register_op("NextIteration")
    .input("data: T")
    .output("output: T")
    .attr("T: type")
    .set_shape_fn(common_shapes.unchanged_shape)
)
(
    register_op("LoopCond")
    .input("input: bool")
    .output("output: bool")
    .set_shape_fn(common_shapes.unchanged_shape_with_rank(0))
)
register_op("ControlTrigger").set_shape_fn(common_shapes.no_outputs)


def _switch_n_shape(ctx: InferenceContext) -> None:
    """Every output has the data's shape; the output index must be a scalar."""
    ctx.with_rank(ctx.input(1), 0)
    for i in range(ctx.num_outputs()):
        ctx.set_output(i, ctx.input(0))


# ``_SwitchN``: the data to output ``output_index``, every other output dead (the lowered form of Case).
(
    register_op("_SwitchN")
    .input("data: T")
    .input("output_index: int32")
    .output("outputs: num_outs * T")
    .attr("num_outs: int >= 1")
    .attr("T: type")
    .set_shape_fn(_switch_n_shape)
)
