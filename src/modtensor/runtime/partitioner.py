"""The partitioner: splits a placed GraphDef into one GraphDef per device, with transfers on the cut edges.

For every data edge whose ends sit on different devices, or on one device in
different memories (an output in host memory feeding an input in device memory on
a non-CPU device), the producer's partition gets a ``_Send`` and the consumer's a
``_Recv`` (``_HostSend`` / ``_HostRecv`` where that end is in host memory), with
TensorFlow's attrs. One transfer serves every consumer of a tensor in one
partition and memory. A control edge across devices becomes, as in TensorFlow, a
tiny float Const (``SRC/ctrl/_N``, run after the source) sent over, received into an
Identity, and the control input of the consumer.

Each partition lists its nodes in one global topological order of the whole graph,
so running every partition in its own order, switching whenever a ``_Recv`` has
nothing yet, always completes (see ``graph_execution``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import modtensor.ops  # noqa: F401  (registers the standard ops and the transfer ops)
from modtensor.framework import errors, graph_walk, tensor_proto
from modtensor.framework import node_def as node_def_lib
from modtensor.framework.op_registry import OpRegistry, global_registry
from modtensor.framework.protos import graph_pb2, node_def_pb2, types_pb2
from modtensor.runtime import control_flow_info
from modtensor.runtime.device import Device, DeviceSet
from modtensor.runtime.kernel_registry import KernelRegistry, global_kernel_registry
from modtensor.runtime.rendezvous import create_key, incarnation_attr

__all__ = [
    "RECV_OPS",
    "SEND_OPS",
    "Partitioning",
    "memory_types",
    "partition",
    "set_transfer_attrs",
    "topological_order",
    "transfer_key",
]

SEND_OPS = frozenset({"_Send", "_HostSend"})
RECV_OPS = frozenset({"_Recv", "_HostRecv"})


@dataclass(frozen=True)
class Partitioning:
    """The partitions of a placed graph: device name -> GraphDef, in the order the first node of each appears."""

    graphs: dict[str, graph_pb2.GraphDef]
    num_transfers: int


def topological_order(nodes: Sequence[node_def_pb2.NodeDef]) -> list[int]:
    """Indices of ``nodes`` in a topological order that keeps the given order wherever it is already valid.

    While loops' ``NextIteration -> Merge`` back edges are skipped (``framework.graph_walk``).
    Raises InvalidArgumentError (TF's text) when other edges form a cycle; an input naming
    no node in ``nodes`` is InvalidArgumentError too.
    """
    names = {n.name for n in nodes}
    for node in nodes:
        for text in node.input:
            if node_def_lib.parse_tensor_name(text)[0] not in names:
                raise errors.InvalidArgumentError(node, None, f"Node '{node.name}': Unknown input node '{text}'")
    result = graph_walk.node_order(nodes)
    if result.has_cycle:
        stuck = [nodes[i].name for i in result.stuck]
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Graph is invalid, contains a cycle with {len(stuck)} nodes, including: {', '.join(stuck[:3])}",
        )
    return result.order


def memory_types(
    node_def: node_def_pb2.NodeDef,
    device: Device,
    registry: KernelRegistry | None = None,
    op_registry: OpRegistry | None = None,
) -> tuple[tuple[bool, ...], tuple[bool, ...]]:
    """(inputs in host memory, outputs in host memory) of a node on ``device``.

    Everything is host memory on a host device (CPU); on others, the kernel's
    ``host_memory`` args are, and the transfer ops' host forms.
    """
    op_def = (op_registry or global_registry()).get(node_def.op).op_def
    n_in = len(node_def_lib.input_types(node_def, op_def))
    n_out = len(node_def_lib.output_types(node_def, op_def))
    if device.is_host:
        return (True,) * n_in, (True,) * n_out
    if node_def.op in SEND_OPS or node_def.op in RECV_OPS:
        host = node_def.op.startswith("_Host")
        return (host,) * n_in, (host,) * n_out
    kernel_def = (registry or global_kernel_registry()).find_kernel(node_def, op_def, device.device_type).kernel_def
    inputs, outputs = [False] * n_in, [False] * n_out
    if kernel_def.host_memory:
        in_ranges = node_def_lib.arg_ranges(node_def, op_def, "input")
        out_ranges = node_def_lib.arg_ranges(node_def, op_def, "output")
        for arg in kernel_def.host_memory:
            for ranges, flags in ((in_ranges, inputs), (out_ranges, outputs)):
                if arg in ranges:
                    start, stop = ranges[arg]
                    flags[start:stop] = [True] * (stop - start)
    return tuple(inputs), tuple(outputs)


def partition(
    graph_def: graph_pb2.GraphDef,
    device_set: DeviceSet,
    *,
    registry: KernelRegistry | None = None,
    op_registry: OpRegistry | None = None,
) -> Partitioning:
    """Split a placed graph (every node's ``device`` a full name in ``device_set``) into per-device GraphDefs."""
    return _Partitioner(graph_def, device_set, registry, op_registry).run()


class _Partitioner:
    def __init__(
        self,
        graph_def: graph_pb2.GraphDef,
        device_set: DeviceSet,
        registry: KernelRegistry | None,
        op_registry: OpRegistry | None,
    ):
        self.graph_def = graph_def
        self.device_set = device_set
        self.registry = registry if registry is not None else global_kernel_registry()
        self.op_registry = op_registry if op_registry is not None else global_registry()
        self.nodes = list(graph_def.node)
        self.by_name = {n.name: n for n in self.nodes}
        self.taken = set(self.by_name)
        self.counter = 0
        self.transfers = 0
        # Output nodes, sorted per partition by (position of the node it belongs next to, rank).
        self.placed: dict[str, list[tuple[tuple[int, int], node_def_pb2.NodeDef]]] = {}
        self.recv_for: dict[tuple[str, int, str, bool], str] = {}
        self.new_recvs: list[node_def_pb2.NodeDef] = []  # the receives made for the node being partitioned

    def run(self) -> Partitioning:
        topological_order(self.nodes)  # validates inputs and cycles before anything is rewritten
        if control_flow_info.has_control_flow(self.nodes) and len({n.device for n in self.nodes}) > 1:
            self.nodes = _ControlLoops(self.nodes, self.device_set, self._new_name).add()
            self.by_name = {n.name: n for n in self.nodes}
        order = topological_order(self.nodes)
        position = {self.nodes[i].name: p for p, i in enumerate(order)}
        devices = {n.name: self._device(n) for n in self.nodes}
        mem = {n.name: memory_types(n, devices[n.name], self.registry, self.op_registry) for n in self.nodes}
        out_types = {n.name: node_def_lib.output_types(n, self.op_registry.get(n.op).op_def) for n in self.nodes}
        for i in order:
            node = self.nodes[i]
            dst = devices[node.name]
            copy = node_def_pb2.NodeDef()
            copy.CopyFrom(node)
            del copy.input[:]
            # Control edges from a control loop's Merge move to the receives this node gets (TF's Partition()).
            loop_controls = [t for t in node.input if t.startswith("^_cloop") and self.by_name[t[1:]].op == "Merge"]
            self.new_recvs = []
            data_index = 0
            for text in node.input:
                src_name, slot = node_def_lib.parse_tensor_name(text)
                if text in loop_controls:
                    continue
                src = devices[src_name]
                if slot == node_def_lib.CONTROL_SLOT:
                    if src is dst:
                        copy.input.append(text)
                    else:
                        copy.input.append("^" + self._control_transfer(src_name, src, dst, node.name, position))
                    continue
                src_host = mem[src_name][1][slot]
                dst_host = mem[node.name][0][data_index]
                data_index += 1
                if src is dst and src_host == dst_host:
                    copy.input.append(text)
                    continue
                dtype = out_types[src_name][slot]
                copy.input.append(
                    self._data_transfer(text, src_name, slot, src, src_host, dst, dst_host, dtype, node.name, position)
                )
            for recv in self.new_recvs:
                if loop_controls and recv.attr["send_device"].s != recv.attr["recv_device"].s:
                    recv.input.append(loop_controls.pop())
            copy.input.extend(loop_controls)
            self._emit(dst, (position[node.name], 0), copy)
        graphs: dict[str, graph_pb2.GraphDef] = {}
        for device_name, entries in sorted(self.placed.items(), key=lambda kv: min(k for k, _ in kv[1])):
            graph = graphs[device_name] = graph_pb2.GraphDef()
            graph.versions.CopyFrom(self.graph_def.versions)
            graph.library.CopyFrom(self.graph_def.library)
            for _, node in sorted(entries, key=lambda e: e[0]):
                graph.node.append(node)
        return Partitioning(graphs, self.transfers)

    def _device(self, node: node_def_pb2.NodeDef) -> Device:
        device = self.device_set.lookup(node.device)
        if device is None:
            raise errors.InvalidArgumentError(
                node,
                None,
                f"Node '{node.name}' is not placed on a device of this process (device '{node.device}'); "
                "partition() takes a graph placed by runtime.placer.place",
            )
        return device

    def _emit(self, device: Device, key: tuple[int, int], node: node_def_pb2.NodeDef) -> None:
        node.device = device.name
        self.placed.setdefault(device.name, []).append((key, node))

    def _new_name(self, prefix: str) -> str:
        while True:
            name = f"{prefix}/_{self.counter}"
            self.counter += 1
            if name not in self.taken:
                self.taken.add(name)
                return name

    def _data_transfer(
        self,
        text: str,
        src_name: str,
        slot: int,
        src: Device,
        src_host: bool,
        dst: Device,
        dst_host: bool,
        dtype: int,
        dst_name: str,
        position: dict[str, int],
    ) -> str:
        key = (src_name, slot, dst.name, dst_host)
        recv = self.recv_for.get(key)
        if recv is None:
            send_op = "_HostSend" if src_host and not src.is_host else "_Send"
            recv_op = "_HostRecv" if dst_host and not dst.is_host else "_Recv"
            recv = self._transfer(text, src_name, src, send_op, dst, recv_op, dtype, dst_name, position)
            self.recv_for[key] = recv
        return recv

    def _control_transfer(
        self, src_name: str, src: Device, dst: Device, dst_name: str, position: dict[str, int]
    ) -> str:
        key = (src_name, node_def_lib.CONTROL_SLOT, dst.name, False)
        identity = self.recv_for.get(key)
        if identity is not None:
            return identity
        const = node_def_pb2.NodeDef(name=self._new_name(f"{src_name}/ctrl"), op="Const", input=["^" + src_name])
        const.attr["dtype"].type = types_pb2.DT_FLOAT
        const.attr["value"].tensor.CopyFrom(tensor_proto.make_tensor_proto(np.zeros([0], np.float32)))
        self._emit(src, (position[src_name], 1), const)
        float_type = types_pb2.DT_FLOAT
        recv = self._transfer(const.name, src_name, src, "_Send", dst, "_Recv", float_type, dst_name, position)
        identity_node = node_def_pb2.NodeDef(name=self._new_name(src_name), op="Identity", input=[recv])
        identity_node.attr["T"].type = float_type
        self._emit(dst, (position[dst_name], -1), identity_node)
        self.recv_for[key] = identity_node.name
        return identity_node.name

    def _transfer(
        self,
        send_input: str,
        src_name: str,
        src: Device,
        send_op: str,
        dst: Device,
        recv_op: str,
        dtype: int,
        dst_name: str,
        position: dict[str, int],
    ) -> str:
        """Add a send on ``src`` and its recv on ``dst``; returns the recv's name."""
        tensor_name = f"edge_{self.transfers}_{src_name}"
        self.transfers += 1
        send = node_def_pb2.NodeDef(name=self._new_name(src_name), op=send_op, input=[send_input])
        recv = node_def_pb2.NodeDef(name=self._new_name(src_name), op=recv_op)
        send.attr["T"].type = dtype
        recv.attr["tensor_type"].type = dtype
        for node in (send, recv):
            set_transfer_attrs(node, tensor_name, src, dst)
            node.attr["_src"].s = src_name.encode()
            node.attr["_dst"].s = dst_name.encode()
        if src is dst:  # a copy between memories of one device: the receive waits for its send (TF does so)
            recv.input.append("^" + send.name)
        self._emit(src, (position[src_name], 2 + self.transfers), send)
        self._emit(dst, (position[dst_name], -2), recv)
        self.new_recvs.append(recv)
        return recv.name


def set_transfer_attrs(
    node: node_def_pb2.NodeDef, tensor_name: str, src: Device, dst: Device, client_terminated: bool = False
) -> None:
    """Set the rendezvous address attrs a _Send/_Recv pair shares (TF's names and types)."""
    node.attr["tensor_name"].s = tensor_name.encode()
    node.attr["send_device"].s = src.name.encode()
    node.attr["send_device_incarnation"].i = incarnation_attr(src.attributes.incarnation)
    node.attr["recv_device"].s = dst.name.encode()
    node.attr["client_terminated"].b = client_terminated


def transfer_key(node_def: node_def_pb2.NodeDef) -> str:
    """The rendezvous key of a _Send/_Recv node, from its address attrs (both ends compute the same)."""
    attrs = node_def.attr
    return create_key(
        attrs["send_device"].s.decode(),
        attrs["send_device_incarnation"].i,
        attrs["recv_device"].s.decode(),
        attrs["tensor_name"].s.decode(),
    )


# ---------------------------------------------------------------------- while loops across devices


class _ControlLoops:
    """TF's AddControlFlow: give every device taking part in a while loop its own copy of the loop's control.

    A frame whose nodes sit on several devices needs, on each device that receives a
    tensor inside the frame, a *control loop*: ``Enter -> Merge -> Switch(pred) ->
    NextIteration -> Merge``, driven by the frame's ``LoopCond`` (received from its device).
    Its Merge fires once per iteration; a control edge from it to each receive of the
    frame makes that receive run once per iteration, with the iteration's key. Nested
    frames chain their control loops (the outer Merge feeds the inner Enter); the
    outermost Enter is fed by a constant in the root frame. Before that, control-flow
    nodes move next to their data (TF's OptimizeControlFlowColocation): a Switch to its
    data input's device, an Exit to its input's, an Enter or NextIteration to its first
    consumer's.
    """

    def __init__(self, nodes: list[node_def_pb2.NodeDef], device_set: DeviceSet, new_name: Any):
        self.nodes = [_copy(n) for n in nodes]
        self.device_set = device_set
        self.new_name = new_name

    def add(self) -> list[node_def_pb2.NodeDef]:
        nodes = self.nodes
        self._colocate()
        info = control_flow_info.build_control_flow_info(nodes)
        conditions = {info.frame_of[i]: n.name for i, n in enumerate(nodes) if n.op == "LoopCond"}
        loops: dict[tuple[str, str], tuple[node_def_pb2.NodeDef, node_def_pb2.NodeDef]] = {}
        for node, frame in _cross_device_edges(list(nodes), info):
            child = None
            while True:
                if not frame:
                    if child is not None:
                        child[0].input.append(self._const(node.device).name)
                    break
                found = loops.get((frame, node.device))
                if found is not None:
                    if child is not None:
                        child[0].input.append(found[1].name)
                    break
                condition = conditions.get(frame)
                if condition is None:
                    message = f"A cross-device loop must have a pivot predicate: {frame}"
                    raise errors.InvalidArgumentError(node, None, message)
                loop = self._loop(node, frame, info.parallel_iterations.get(frame, 10), condition)
                loops[(frame, node.device)] = loop
                if child is not None:
                    child[0].input.append(loop[1].name)
                child = loop
                frame = info.parent_of.get(frame, "")
        # Every cross-device edge inside a frame (the control loops' own LoopCond inputs included) makes its
        # consumer wait for its device's control loop; the partitioner moves that edge to the receive.
        for node, frame in _cross_device_edges(self.nodes, control_flow_info.build_control_flow_info(self.nodes)):
            node.input.append("^" + loops[(frame, node.device)][1].name)
        return self.nodes

    def _colocate(self) -> None:
        nodes = self.nodes
        index = {n.name: i for i, n in enumerate(nodes)}
        consumers: list[list[int]] = [[] for _ in nodes]
        for i, node in enumerate(nodes):
            for text in node.input:
                if not text.startswith("^"):
                    consumers[index[node_def_lib.parse_tensor_name(text)[0]]].append(i)
        for i in graph_walk.node_order(nodes).order:
            node = nodes[i]
            data = [t for t in node.input if not t.startswith("^")]
            if node.op in ("Switch", "Exit") and data:
                node.device = nodes[index[node_def_lib.parse_tensor_name(data[0])[0]]].device
            elif node.op in ("Enter", "NextIteration") and consumers[i]:
                node.device = nodes[consumers[i][0]].device

    def _const(self, device: str) -> node_def_pb2.NodeDef:
        const = node_def_pb2.NodeDef(name=self.new_name("_cloop_const"), op="Const", device=device)
        const.attr["dtype"].type = types_pb2.DT_FLOAT
        const.attr["value"].tensor.CopyFrom(tensor_proto.make_tensor_proto(np.zeros([0], np.float32)))
        self.nodes.append(const)
        return const

    def _loop(
        self, dst: node_def_pb2.NodeDef, frame: str, parallel_iterations: int, condition: str
    ) -> tuple[node_def_pb2.NodeDef, node_def_pb2.NodeDef]:
        """Enter, Merge, Switch, NextIteration on ``dst``'s device; returns (enter, merge)."""
        names = [self.new_name("_cloop" + dst.name) for _ in range(4)]
        enter = node_def_pb2.NodeDef(name=names[0], op="Enter", device=dst.device)
        enter.attr["frame_name"].s = frame.encode()
        enter.attr["parallel_iterations"].i = parallel_iterations
        enter.attr["is_constant"].b = False
        merge = node_def_pb2.NodeDef(name=names[1], op="Merge", device=dst.device, input=[names[0], names[3]])
        merge.attr["N"].i = 2
        switch = node_def_pb2.NodeDef(name=names[2], op="Switch", device=dst.device, input=[names[1], condition])
        nxt = node_def_pb2.NodeDef(name=names[3], op="NextIteration", device=dst.device, input=[names[2] + ":1"])
        for node in (enter, merge, switch, nxt):
            node.attr["T"].type = types_pb2.DT_FLOAT
            self.nodes.append(node)
        return enter, merge


def _cross_device_edges(
    nodes: list[node_def_pb2.NodeDef], info: control_flow_info.ControlFlowInfo
) -> list[tuple[node_def_pb2.NodeDef, str]]:
    """(consumer, frame) per edge between two devices whose ends are in the same frame (not the root frame)."""
    index = {n.name: i for i, n in enumerate(nodes)}
    edges = []
    for i, node in enumerate(nodes):
        for text in node.input:
            j = index[node_def_lib.parse_tensor_name(text)[0]]
            src = nodes[j]
            if src.device == node.device:
                continue
            frame = info.output_frame(j, src)
            if frame and frame == info.frame_of[i]:
                edges.append((node, frame))
    return edges


def _copy(node: node_def_pb2.NodeDef) -> node_def_pb2.NodeDef:
    copy = node_def_pb2.NodeDef()
    copy.CopyFrom(node)
    return copy
