"""``tf.print`` and ``tf.strings.format``: TensorFlow's printing of tensors inside nested Python structures.

``tf.print(*inputs)`` formats its inputs into one string with a ``StringFormat`` op (Python
values print as ``pprint`` prints them, tensors as TF summarizes them) and writes it with a
``PrintV2`` op: at once when executing eagerly, when the function runs inside
``tf.function`` (the op is stateful, so it always runs), or when a v1 Session runs the
returned op. ``output_stream`` is ``sys.stderr`` (default), ``sys.stdout``, a
``"file://path"`` to append to, or a Python ``logging`` level/function (``logging.INFO``,
``logging.warning``, ...), which logs on the ``modtensor`` logger.
"""

from __future__ import annotations

import collections
import logging
import os
import pprint
import random
import sys
from typing import Any

from modtensor.api import context
from modtensor.api.dispatch import apply_op, refuse_eager_tensor
from modtensor.api.op_scope import convert_to_tensor
from modtensor.framework import dtypes, op_def_library
from modtensor.framework.func_graph import flatten_structure, pack_structure
from modtensor.framework.graph import get_default_graph
from modtensor.framework.tensor import Tensor

__all__ = ["print_v2", "string_format"]


def apply_stateful_op(op_type: str, name: str | None, **kwargs: Any) -> Any:
    """Run a no-output op now when eager (None), else add it to the graph and return the Operation (as TF's
    generated wrappers do for ops without outputs)."""
    if context.executing_eagerly():
        return apply_op(op_type, name=name, **kwargs)
    if not get_default_graph().building_function:
        for arg_name, value in kwargs.items():
            refuse_eager_tensor(value, arg_name)
    return op_def_library.apply_op(op_type, name=name, **kwargs)


def _is_tensor(value: Any) -> bool:
    return isinstance(value, Tensor) or hasattr(value, "__tf_tensor__")


def _generate_placeholder(text: str, default: str = "{}") -> str:
    """A placeholder absent from ``text``: ``{}``, else ``{}`` followed by random digits (TF's seeded choice)."""
    placeholder = default
    rng = random.Random(5)
    while placeholder in text:
        placeholder += str(rng.randint(0, 9))
    return placeholder


def string_format(
    template: str, inputs: Any, placeholder: str = "{}", summarize: int = 3, name: str | None = None
) -> Tensor:
    """A scalar string: ``template`` with each ``placeholder`` replaced by the next input's summary."""
    if _is_tensor(inputs):
        inputs = [inputs]
    if template.count(placeholder) != len(inputs):
        raise ValueError(
            f"The template expects {template.count(placeholder)} tensors, but the inputs only has {len(inputs)}. "
            "Please ensure the number of placeholders in template matches inputs length."
        )
    return apply_op(
        "StringFormat",
        name=name,
        inputs=[convert_to_tensor(x) for x in inputs],
        template=template,
        placeholder=placeholder,
        summarize=summarize,
    )


def _output_stream_name(output_stream: Any) -> str:
    if isinstance(output_stream, str) and output_stream.startswith("file://"):
        return output_stream
    known = {
        sys.stdout: "stdout",
        sys.stderr: "stderr",
        logging.INFO: "log(info)",
        logging.info: "log(info)",
        logging.WARNING: "log(warning)",
        logging.warning: "log(warning)",
        logging.warn: "log(warning)",
        logging.ERROR: "log(error)",
        logging.error: "log(error)",
    }
    try:
        found = known.get(output_stream)
    except TypeError:  # unhashable
        found = None
    if not found:
        raise ValueError(
            "Unsupported output stream, logging level, or file."
            + str(output_stream)
            + ". Supported streams are sys.stdout, sys.stderr, tf.logging.info, tf.logging.warning, tf.logging.error. "
            "File needs to be in the form of 'file://<filepath>'."
        )
    return found


def print_v2(*inputs: Any, **kwargs: Any) -> Any:
    """Print ``inputs`` (tensors, Python values and nested structures of both) separated by ``sep``.

    Keyword arguments: ``output_stream`` (default ``sys.stderr``), ``summarize`` (entries kept
    at each end of every dimension, default 3, -1 for all), ``sep`` (default " "), ``end``
    (default ``os.linesep``), ``name``. Returns None eagerly, else the printing Operation.
    """
    output_stream = kwargs.pop("output_stream", sys.stderr)
    name = kwargs.pop("name", None)
    summarize = kwargs.pop("summarize", 3)
    sep = kwargs.pop("sep", " ")
    end = kwargs.pop("end", os.linesep)
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments for tf.print: {kwargs}")
    format_name = name + "_format" if name else None
    stream_name = _output_stream_name(output_stream)

    if (
        len(inputs) == 1
        and isinstance(inputs[0], Tensor)
        and inputs[0].shape.rank == 0
        and inputs[0].dtype == dtypes.string
    ):
        formatted = inputs[0]
    else:
        ordered = [
            collections.OrderedDict(sorted(x.items())) if isinstance(x, collections.OrderedDict) else x for x in inputs
        ]
        tensor_free = [pack_structure(x, ["" if _is_tensor(v) else v for v in flatten_structure(x)]) for x in ordered]
        placeholder = _generate_placeholder(" ".join(pprint.pformat(x) for x in tensor_free))
        templates, tensors = [], []
        for x in inputs:
            leaves = []
            for leaf in flatten_structure(x):
                if _is_tensor(leaf):
                    tensors.append(leaf)
                    leaves.append(placeholder)
                else:
                    leaves.append(leaf)
            if isinstance(x, str):
                templates.append(x)  # a plain string is its own template
            else:
                templates.append(pprint.pformat(pack_structure(x, leaves)))
        template = sep.join(templates).replace("'" + placeholder + "'", placeholder)
        formatted = string_format(
            template=template, inputs=tensors, placeholder=placeholder, summarize=summarize, name=format_name
        )
    return apply_stateful_op("PrintV2", name, input=formatted, output_stream=stream_name, end=end)
