"""Helpers for runtime tests: TF 2.21's OpDefs (golden) and NodeDef building."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from google.protobuf import text_format

from modtensor.framework import attr_value
from modtensor.framework.node_def import add_default_attrs
from modtensor.framework.op_registry import global_registry
from modtensor.framework.protos import node_def_pb2, op_def_pb2

GOLDEN = Path(__file__).resolve().parent.parent / "golden"


@functools.cache
def _tf_op_defs() -> dict[str, op_def_pb2.OpDef]:
    ops = op_def_pb2.OpList()
    text_format.Parse((GOLDEN / "tf_op_defs.pbtxt").read_text(), ops)
    return {op.name: op for op in ops.op}


def op_def(name: str) -> op_def_pb2.OpDef:
    """The registered OpDef when the standard ops are loaded, else TF 2.21's (the same by the framework tests)."""
    reg = global_registry().lookup(name)
    return reg.op_def if reg is not None else _tf_op_defs()[name]


def make_node(op: str, name: str | None = None, inputs: tuple[str, ...] = (), **attrs: Any) -> node_def_pb2.NodeDef:
    """A NodeDef of ``op`` with attrs converted by the OpDef's attr types and defaults added."""
    od = op_def(op)
    types = {a.name: a.type for a in od.attr}
    node = node_def_pb2.NodeDef(name=name or op.lower(), op=op, input=list(inputs))
    for key, value in attrs.items():
        node.attr[key].CopyFrom(attr_value.to_attr_value(value, types.get(key), name=key))
    add_default_attrs(node, od)
    return node
