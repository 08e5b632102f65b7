"""Reading the serialized KernelDef of TF_RegisterKernelBuilderWithKernelDef.

TensorFlow's KernelDef (kernel_def.proto) is not one of modtensor's framework
protos, since only this entry point needs it; the message is declared here at
runtime with TensorFlow's field numbers and parsed with protobuf.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from modtensor.framework import errors
from modtensor.framework.protos import attr_value_pb2

__all__ = ["ParsedKernelDef", "parse_kernel_def", "serialize_kernel_list"]


@dataclass(frozen=True)
class ParsedKernelDef:
    """The parts of a KernelDef a kernel registration uses."""

    op: str
    device_type: str
    constraints: dict[str, list[int]]
    host_memory: tuple[str, ...]
    label: str
    priority: int


@cache
def _kernel_def_class() -> Any:
    file = descriptor_pb2.FileDescriptorProto(
        name="modtensor/plugin/native/kernel_def.proto",
        package="modtensor",
        syntax="proto3",
        dependency=[attr_value_pb2.DESCRIPTOR.name],
    )
    msg = file.message_type.add(name="KernelDef")
    F = descriptor_pb2.FieldDescriptorProto
    constraint = msg.nested_type.add(name="AttrConstraint")
    constraint.field.add(name="name", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    constraint.field.add(
        name="allowed_values", number=2, type=F.TYPE_MESSAGE, label=F.LABEL_OPTIONAL, type_name=".modtensor.AttrValue"
    )
    msg.field.add(name="op", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    msg.field.add(name="device_type", number=2, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    msg.field.add(
        name="constraint",
        number=3,
        type=F.TYPE_MESSAGE,
        label=F.LABEL_REPEATED,
        type_name=".modtensor.KernelDef.AttrConstraint",
    )
    msg.field.add(name="host_memory_arg", number=4, type=F.TYPE_STRING, label=F.LABEL_REPEATED)
    msg.field.add(name="label", number=5, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    msg.field.add(name="priority", number=6, type=F.TYPE_INT32, label=F.LABEL_OPTIONAL)
    kernel_list = file.message_type.add(name="KernelList")
    kernel_list.field.add(
        name="kernel", number=1, type=F.TYPE_MESSAGE, label=F.LABEL_REPEATED, type_name=".modtensor.KernelDef"
    )
    pool = descriptor_pool.Default()
    try:
        pool.FindMessageTypeByName("modtensor.KernelDef")
    except KeyError:
        pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("modtensor.KernelDef"))


def _kernel_list_class() -> Any:
    _kernel_def_class()
    return message_factory.GetMessageClass(descriptor_pool.Default().FindMessageTypeByName("modtensor.KernelList"))


def parse_kernel_def(data: bytes) -> ParsedKernelDef:
    """A serialized KernelDef's op, device, type constraints, host-memory args, label and priority."""
    message = _kernel_def_class()()
    try:
        message.ParseFromString(data)
    except Exception as e:  # protobuf's DecodeError
        raise errors.InvalidArgumentError(None, None, "Error parsing serialized KernelDef.") from e
    constraints = {c.name: list(c.allowed_values.list.type) for c in message.constraint}
    return ParsedKernelDef(
        op=message.op,
        device_type=message.device_type,
        constraints=constraints,
        host_memory=tuple(message.host_memory_arg),
        label=message.label,
        priority=message.priority,
    )


def serialize_kernel_list(kernel_defs: list[Any]) -> bytes:
    """A serialized KernelList (TensorFlow's TF_GetRegisteredKernelsForOp result) of runtime KernelDefs."""
    message = _kernel_list_class()()
    for kd in kernel_defs:
        out = message.kernel.add(op=kd.op, device_type=kd.device_type, label=kd.label, priority=kd.priority)
        for name, types in kd.constraints:
            constraint = out.constraint.add(name=name)
            constraint.allowed_values.list.type.extend(types)
        out.host_memory_arg.extend(kd.host_memory)
    return message.SerializeToString()
