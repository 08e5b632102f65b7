"""Transfer ops: ``_Send``/``_Recv`` and their host-memory forms, as TensorFlow's partitioner inserts them.

A graph split over several devices gets a ``_Send`` on the producer's device and a
``_Recv`` on the consumer's for every edge that crosses devices (``_HostSend`` /
``_HostRecv`` when the tensor lives in host memory on a non-CPU device). The pair
meets in a rendezvous under a key built from ``send_device``,
``send_device_incarnation``, ``recv_device`` and ``tensor_name``. The OpDefs equal
TensorFlow 2.21's, so partition graphs load in TensorFlow and TensorBoard.
"""

from __future__ import annotations

from modtensor.framework import common_shapes
from modtensor.framework.op_registry import register_op

_ADDRESS_ATTRS = (
    "tensor_name: string",
    "send_device: string",
    "send_device_incarnation: int",
    "recv_device: string",
    "client_terminated: bool = false",
)


def _send(name: str) -> None:
    builder = register_op(name).input("tensor: T").attr("T: type")
    for spec in _ADDRESS_ATTRS:
        builder.attr(spec)
    builder.set_is_stateful().set_shape_fn(common_shapes.no_outputs)


def _recv(name: str) -> None:
    builder = register_op(name).output("tensor: tensor_type").attr("tensor_type: type")
    for spec in _ADDRESS_ATTRS:
        builder.attr(spec)
    builder.set_is_stateful().set_is_distributed_communication().set_shape_fn(common_shapes.unknown_shape)


_send("_Send")
_recv("_Recv")
_send("_HostSend")
_recv("_HostRecv")
