"""Functional control flow and function calls, with TensorFlow 2.21's OpDefs.

``If``/``StatelessIf`` run one of two library functions (attrs ``then_branch``,
``else_branch``) on their inputs, ``Case``/``StatelessCase`` one of a list (``branches``,
picked by ``branch_index``; an index out of range picks the last), ``While``/``StatelessWhile``
run ``body`` while ``cond`` holds. ``PartitionedCall``/``StatefulPartitionedCall`` call one
function (attr ``f``); ``tf.function`` graphs use them for nested functions.

The ``Stateless`` variants promise that no function they call has side effects (the graph
optimizer may prune or fold them). Kernels run the functions through the function library
runtime (``runtime/function_library.py``); before placement the lowering pass
(``grappler/passes/lower_functional_ops.py``) may turn them into v1 control flow instead.
Shape functions are TensorFlow's: the ``output_shapes`` attr when it is set, else unknown
shapes (``If``/``Case``) or the input shapes (``While``).
"""

from __future__ import annotations

from modtensor.framework import common_shapes, errors
from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import InferenceContext

__all__ = ["CALL_OPS", "FUNCTIONAL_OPS"]

CALL_OPS = frozenset({"PartitionedCall", "StatefulPartitionedCall"})
# Every op whose kernel runs library functions (named by its func attrs).
FUNCTIONAL_OPS = CALL_OPS | {"If", "StatelessIf", "Case", "StatelessCase", "While", "StatelessWhile"}


def _output_shapes_or(ctx: InferenceContext, fallback: str) -> None:
    """The ``output_shapes`` attr as the outputs' shapes; without it ``fallback`` ("unknown" or "inputs")."""
    shapes = ctx.get_attr("output_shapes")
    if not shapes:
        for i in range(ctx.num_outputs()):
            ctx.set_output(i, ctx.input(i) if fallback == "inputs" else ctx.unknown_shape())
        return
    if len(shapes) != ctx.num_outputs():
        raise errors.InvalidArgumentError(
            None,
            None,
            f"`output_shapes` must be the same length as num outputs ({len(shapes)} vs. {ctx.num_outputs()}",
        )
    for i, shape in enumerate(shapes):
        ctx.set_output(i, ctx.make_shape_from_shape_proto(shape))


def _if_shape(ctx: InferenceContext) -> None:
    _output_shapes_or(ctx, "unknown")


def _while_shape(ctx: InferenceContext) -> None:
    _output_shapes_or(ctx, "inputs")


def _if_op(name: str, stateful: bool) -> None:
    builder = (
        register_op(name)
        .input("cond: Tcond")
        .input("input: Tin")
        .output("output: Tout")
        .attr("Tcond: type")
        .attr("Tin: list(type) >= 0")
        .attr("Tout: list(type) >= 0")
        .attr("then_branch: func")
        .attr("else_branch: func")
        .attr("output_shapes: list(shape) = []")
    )
    if stateful:
        builder.set_is_stateful()
    builder.set_shape_fn(_if_shape)


def _case_op(name: str, stateful: bool) -> None:
    builder = (
        register_op(name)
        .input("branch_index: int32")
        .input("input: Tin")
        .output("output: Tout")
        .attr("Tin: list(type) >= 0")
        .attr("Tout: list(type) >= 0")
        .attr("branches: list(func) >= 1")
        .attr("output_shapes: list(shape) = []")
    )
    if stateful:
        builder.set_is_stateful()
    builder.set_shape_fn(_if_shape)


def _while_op(name: str, stateful: bool) -> None:
    builder = (
        register_op(name)
        .input("input: T")
        .output("output: T")
        .attr("T: list(type) >= 0")
        .attr("cond: func")
        .attr("body: func")
        .attr("output_shapes: list(shape) = []")
        .attr("parallel_iterations: int = 10")
    )
    if stateful:
        builder.set_is_stateful()
    builder.set_shape_fn(_while_shape)


def _call_op(name: str, stateful: bool) -> None:
    builder = (
        register_op(name)
        .input("args: Tin")
        .output("output: Tout")
        .attr("Tin: list(type) >= 0")
        .attr("Tout: list(type) >= 0")
        .attr("f: func")
        .attr("config: string = ''")
        .attr("config_proto: string = ''")
        .attr("executor_type: string = ''")
    )
    if stateful:
        builder.set_is_stateful().set_is_distributed_communication()
    builder.set_shape_fn(common_shapes.unknown_shape)


_if_op("StatelessIf", stateful=False)
_if_op("If", stateful=True)
_case_op("StatelessCase", stateful=False)
_case_op("Case", stateful=True)
_while_op("While", stateful=True)
_while_op("StatelessWhile", stateful=False)
_call_op("PartitionedCall", stateful=False)
_call_op("StatefulPartitionedCall", stateful=True)
