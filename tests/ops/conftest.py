"""Shared fixture for the op tests: run a registered op's shape function on given shapes and constants."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

import modtensor.ops  # noqa: F401  (registers the standard ops)
from modtensor.framework import dtypes
from modtensor.framework.attr_value import to_attr_value
from modtensor.framework.node_def import add_default_attrs
from modtensor.framework.op_registry import global_registry
from modtensor.framework.protos import node_def_pb2
from modtensor.framework.shape_inference import InferenceContext, ShapeHandle, run_shape_fn

Infer = Callable[..., list[ShapeHandle]]


def infer(op: str, inputs: Sequence[Any], **attrs: Any) -> list[ShapeHandle]:
    """Output shapes of `op` over `inputs` (a shape list, None for unknown rank, or an ndarray constant).

    Attrs are given by OpDef name; type attrs default to float32 (int32 for index types)
    unless given, and the other OpDef defaults are filled in as graph construction does.
    """
    registration = global_registry().get(op)
    op_def = registration.op_def
    node = node_def_pb2.NodeDef(name=op.lower(), op=op)
    for attr in op_def.attr:
        if attr.name in attrs:
            node.attr[attr.name].CopyFrom(to_attr_value(attrs[attr.name], attr.type, name=attr.name))
        elif attr.type == "type" and not attr.HasField("default_value"):
            allowed = list(attr.allowed_values.list.type)
            dtype = dtypes.float32 if not allowed or dtypes.float32.as_datatype_enum in allowed else dtypes.int32
            node.attr[attr.name].CopyFrom(to_attr_value(dtype, "type"))
    add_default_attrs(node, op_def)
    shapes = [list(x.shape) if isinstance(x, np.ndarray) else x for x in inputs]
    tensors = [x if isinstance(x, np.ndarray) else None for x in inputs]
    return run_shape_fn(registration, InferenceContext(node, op_def, shapes, tensors))


def as_lists(shapes: Sequence[ShapeHandle]) -> list[list[int | None] | None]:
    """Shapes as TF's static shapes print: lists with None for unknown dims, None for unknown rank."""
    return [None if s.dims is None else [d.value for d in s.dims] for s in shapes]


@pytest.fixture
def run() -> Callable[..., list[list[int | None] | None]]:
    """``run(op, inputs, **attrs)`` -> output shapes as lists (see ``infer``)."""
    return lambda op, inputs, **attrs: as_lists(infer(op, inputs, **attrs))


@pytest.fixture
def run_handles() -> Infer:
    """``run_handles(op, inputs, **attrs)`` -> output ShapeHandles (for dimension-identity checks)."""
    return infer
