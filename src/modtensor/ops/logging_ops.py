"""TensorFlow's logging ops: ``Assert``, ``PrintV2`` and ``StringFormat`` (the tensor formatting ``tf.print`` uses).

OpDefs equal TensorFlow 2.21's. ``Assert`` and ``PrintV2`` are stateful, so graphs keep
and run them even when nothing consumes them. ``StringFormat`` lives with TF's string
ops; it is here because ``tf.print`` builds on it.
"""

from __future__ import annotations

from modtensor.framework import common_shapes, errors
from modtensor.framework.op_registry import register_op
from modtensor.framework.shape_inference import InferenceContext


def _string_format_shape(ctx: InferenceContext) -> None:
    """A scalar string; the template must hold one placeholder per input."""
    template = ctx.get_attr("template")
    placeholder = ctx.get_attr("placeholder")
    template = template.decode("utf-8", "replace") if isinstance(template, bytes) else template
    placeholder = placeholder.decode("utf-8", "replace") if isinstance(placeholder, bytes) else placeholder
    count = count_placeholders(template, placeholder)
    if ctx.num_inputs() != count:
        raise errors.InvalidArgumentError(
            None, None, f"num placeholders in template and num inputs must match: {count} vs. {ctx.num_inputs()}"
        )
    ctx.set_output(0, ctx.scalar())


def _print_v2_shape(ctx: InferenceContext) -> None:
    """No outputs; the input must be a scalar string when its rank is known."""
    rank = ctx.rank(ctx.input(0))
    if rank is not None and rank != 0:
        raise errors.InvalidArgumentError(None, None, f"input must be a scalar, but has rank: {rank}")


def count_placeholders(template: str, placeholder: str) -> int:
    """How many times ``placeholder`` occurs in ``template``, counted left to right without overlaps (as TF)."""
    if not placeholder:
        return len(template) + 1
    count, position = 0, template.find(placeholder)
    while position != -1:
        count += 1
        position = template.find(placeholder, position + len(placeholder))
    return count


(
    register_op("Assert")
    .input("condition: bool")
    .input("data: T")
    .attr("T: list(type)")
    .attr("summarize: int = 3")
    .set_is_stateful()
    .set_shape_fn(common_shapes.no_outputs)
)
(
    register_op("PrintV2")
    .input("input: string")
    .attr("output_stream: string = 'stderr'")
    .attr("end: string = '\\n'")
    .set_is_stateful()
    .set_shape_fn(_print_v2_shape)
)
(
    register_op("StringFormat")
    .input("inputs: T")
    .output("output: string")
    .attr("T: list(type) >= 0")
    .attr("template: string = '%s'")
    .attr("placeholder: string = '%s'")
    .attr("summarize: int = 3")
    .set_shape_fn(_string_format_shape)
)
