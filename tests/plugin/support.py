"""Helpers of the plugin tests: paths, building nodes, and running a kernel once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from modtensor.framework import attr_value
from modtensor.framework.op_registry import global_registry
from modtensor.framework.protos import node_def_pb2
from modtensor.runtime import OpKernel, OpKernelContext, create_kernel, get_device

REPO = Path(__file__).resolve().parent.parent.parent
INCLUDE = REPO / "include"
CSRC = Path(__file__).resolve().parent / "csrc"


def node(op: str, inputs: list[str], name: str = "n1", **attrs: Any) -> node_def_pb2.NodeDef:
    """A NodeDef; attrs are AttrValues or (value, attr_type) pairs."""
    nd = node_def_pb2.NodeDef(name=name, op=op, input=inputs)
    for key, value in attrs.items():
        if isinstance(value, tuple):
            value = attr_value.to_attr_value(value[0], value[1])
        nd.attr[key].CopyFrom(value)
    return nd


def kernel(nd: node_def_pb2.NodeDef) -> OpKernel:
    """The kernel of ``nd`` on CPU:0, made as the executor makes it."""
    return create_kernel(nd, global_registry().get(nd.op).op_def, get_device("CPU:0"))


def run(nd: node_def_pb2.NodeDef, inputs: list[Any], step_id: int = 0) -> list[Any]:
    """Create the node's kernel and run it once."""
    k = kernel(nd)
    return k.run(OpKernelContext(k, inputs, step_id=step_id))


def report(value: Any) -> dict[str, str]:
    """A test kernel's ``key=value;`` report (a scalar string output) as a dict."""
    text = value.item().decode() if hasattr(value, "item") else value.decode()
    out = {}
    for part in text.split(";"):
        if "=" in part:
            key, _, val = part.partition("=")
            out[key.strip()] = val
    return out
