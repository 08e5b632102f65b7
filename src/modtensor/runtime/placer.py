"""The placer: assigns every node of a GraphDef to one device of a DeviceSet, by TensorFlow's rules.

What decides a node's device, as in TensorFlow's Placer and ColocationGraph:

- The kernels: only device types with a kernel for the node (``KernelRegistry``) qualify.
- Colocation: nodes sharing a ``_class: "loc:@NAME"`` group (a node without one is in
  its own ``loc:@<its name>``) go to one device; their device specs are merged and
  their device types intersected.
- The requested device (the NodeDef's ``device``, possibly partial: ``/CPU:0``,
  ``/device:GPU:1``, ``GPU``) limits the candidates; none left is an error, or with
  ``allow_soft_placement`` the type and index are dropped and any device with a
  kernel is taken.
- Preference: higher kernel priority, then higher device-factory priority (a GPU or
  pluggable device over CPU), then the device set's order; a ``default_device`` goes
  first when it qualifies.
- Heuristics: nodes without data inputs and with one output (Const, Placeholder)
  are placed last, with their consumers when those all sit on one device; ``Shape``,
  ``Size``, ``Rank``, ``ShapeN`` and a lone ``Identity`` between two nodes asking
  for the same device follow their input.

``log_device_placement`` prints TensorFlow's line per node, in assignment order:
``name: (Op): /job:localhost/replica:0/task:0/device:CPU:0`` (to stdout, as TF's
``printf`` does).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TextIO

import modtensor.ops  # noqa: F401  (registers the standard ops the nodes refer to)
from modtensor.framework import errors, op_spec
from modtensor.framework import node_def as node_def_lib
from modtensor.framework.device_spec import DeviceSpec
from modtensor.framework.op_registry import OpRegistry, global_registry
from modtensor.framework.protos import graph_pb2, node_def_pb2, op_def_pb2, types_pb2
from modtensor.runtime.device import Device, DeviceSet
from modtensor.runtime.kernel_registry import KernelRegistry, global_kernel_registry

__all__ = ["METADATA_OPS", "Placement", "place"]

# Ops that read only their input's shape: placed with their input (TF's IsMetadata).
METADATA_OPS = frozenset({"Shape", "ShapeN", "Size", "Rank"})
_IDENTITY_OPS = frozenset({"Identity", "RefIdentity"})
_COLOCATION_ATTR = "_class"
_COLOCATION_PREFIX = b"loc:@"


@dataclass(frozen=True)
class Placement:
    """The placed graph: every node's ``device`` a full device name, the node -> Device map, the log lines."""

    graph_def: graph_pb2.GraphDef
    devices: dict[str, Device]
    log: tuple[str, ...]


def place(
    graph_def: graph_pb2.GraphDef,
    device_set: DeviceSet,
    *,
    allow_soft_placement: bool = False,
    log_device_placement: bool = False,
    log_stream: TextIO | None = None,
    default_device: Device | None = None,
    assigned: Mapping[str, Device] | None = None,
    registry: KernelRegistry | None = None,
    op_registry: OpRegistry | None = None,
) -> Placement:
    """Place every node of ``graph_def`` on a device of ``device_set``; returns a placed copy.

    ``assigned`` pins nodes the runtime added (feed and fetch transfers) to a device
    without a kernel check or a log line. Errors are InvalidArgumentError in
    TensorFlow's words ("Cannot assign a device for operation X: ..."), naming the node.
    """
    placer = _Placer(
        device_set,
        registry if registry is not None else global_kernel_registry(),
        op_registry if op_registry is not None else global_registry(),
        allow_soft_placement=allow_soft_placement,
        default_device=default_device,
        log_stream=(log_stream or sys.stdout) if log_device_placement else None,
    )
    devices, log = placer.run(graph_def, assigned or {})
    placed = graph_pb2.GraphDef()
    placed.CopyFrom(graph_def)
    for node in placed.node:
        node.device = devices[node.name].name
    return Placement(placed, devices, tuple(log))


class _Node:
    """A node as the placer sees it: requested spec, supported device types, edges, and its device once placed."""

    __slots__ = (
        "control_inputs",
        "data_inputs",
        "device",
        "is_generator",
        "name",
        "node_def",
        "op_def",
        "out_edges",
        "pinned",
        "requested",
        "supported",
    )

    def __init__(self, node_def: node_def_pb2.NodeDef, op_def: op_def_pb2.OpDef | None):
        self.name = node_def.name
        self.node_def = node_def
        self.op_def = op_def
        self.data_inputs: list[str] = []
        self.control_inputs: list[str] = []
        self.out_edges: list[str] = []  # one entry per consuming edge (data or control), TF's out_edges
        self.requested = DeviceSpec()
        self.supported: list[tuple[str, int]] = []  # (device type, kernel priority), preferred first
        self.is_generator = False
        self.pinned: Device | None = None
        self.device: Device | None = None


class _Member:
    """A colocation group (union-find root): merged device spec, common device types, candidate devices."""

    __slots__ = ("parent", "possible", "rank", "requested", "supported")

    def __init__(self, name: str, node: _Node):
        self.parent = name
        self.rank = 0
        self.requested = node.requested
        self.supported = list(node.supported)
        self.possible: list[Device] | None = None


class _Placer:
    def __init__(
        self,
        device_set: DeviceSet,
        registry: KernelRegistry,
        op_registry: OpRegistry,
        *,
        allow_soft_placement: bool,
        default_device: Device | None,
        log_stream: TextIO | None,
    ):
        if len(device_set) == 0:
            raise errors.FailedPreconditionError(None, None, "No devices are registered")
        self.device_set = device_set
        self.all_devices = device_set.devices
        self.order = {d.name: i for i, d in enumerate(self.all_devices)}
        self.types = device_set.prioritized_device_types()
        self.registry = registry
        self.op_registry = op_registry
        self.soft = allow_soft_placement
        self.default_device = default_device
        self.log_stream = log_stream
        self.log: list[str] = []
        self.nodes: dict[str, _Node] = {}
        self.members: dict[str, _Member] = {}

    # ------------------------------------------------------------------ driver

    def run(self, graph_def: graph_pb2.GraphDef, assigned: Mapping[str, Device]) -> tuple[dict[str, Device], list[str]]:
        self._build(graph_def, assigned)
        self._colocate_groups()
        second_pass: list[_Node] = []
        for node in self.nodes.values():
            if node.pinned is not None:
                self._assign(node, node.pinned, log=False)
            elif node.is_generator:
                second_pass.append(node)  # Heuristic A: placed after its consumers
            else:
                candidates = self._devices_for(node)
                self._assign(node, self._first_pass_choice(node, candidates) or candidates[0])
        for node in second_pass:
            candidates = self._devices_for(node)
            self._assign(node, self._generator_choice(node, candidates) or candidates[0])
        return {name: node.device for name, node in self.nodes.items()}, self.log  # type: ignore[misc]

    def _assign(self, node: _Node, device: Device, log: bool = True) -> None:
        node.device = device
        self._root(node.name).possible = [device]  # the rest of the group follows (TF's LimitToAssignedDevice)
        if log and self.log_stream is not None:
            line = f"{node.name}: ({node.node_def.op}): {device.name}"
            self.log.append(line)
            print(line, file=self.log_stream, flush=True)

    # ------------------------------------------------------------------ nodes

    def _build(self, graph_def: graph_pb2.GraphDef, assigned: Mapping[str, Device]) -> None:
        for node_def in graph_def.node:
            if node_def.name in self.nodes:
                raise errors.InvalidArgumentError(node_def, None, f"Node '{node_def.name}' is not unique")
            pinned = assigned.get(node_def.name)
            op_def = None if pinned is not None else self.op_registry.get(node_def.op).op_def
            node = _Node(node_def, op_def)
            self.nodes[node.name] = node
            for text in node_def.input:
                src, index = node_def_lib.parse_tensor_name(text)
                if index == node_def_lib.CONTROL_SLOT:
                    node.control_inputs.append(src)
                else:
                    node.data_inputs.append(src)
            if pinned is not None:
                node.pinned = pinned
                node.requested = pinned.parsed_name
                node.supported = [(pinned.device_type, 0)]
                continue
            node.requested = self._requested_spec(node_def)
            node.supported = self._supported_types(node_def, op_def)  # type: ignore[arg-type]
            outputs = node_def_lib.output_types(node_def, op_def)  # type: ignore[arg-type]
            node.is_generator = not node.data_inputs and len(outputs) == 1 and outputs[0] < op_spec.REF_OFFSET
        for node in self.nodes.values():
            for src in node.data_inputs + node.control_inputs:
                producer = self.nodes.get(src)
                if producer is None:
                    raise errors.InvalidArgumentError(
                        node.node_def, None, f"Node '{node.name}': Unknown input node '{src}'"
                    )
                producer.out_edges.append(node.name)
            self.members[node.name] = _Member(node.name, node)

    @staticmethod
    def _requested_spec(node_def: node_def_pb2.NodeDef) -> DeviceSpec:
        if not node_def.device:
            return DeviceSpec()
        try:
            return DeviceSpec.from_string(node_def.device)
        except (TypeError, ValueError) as exc:
            raise errors.InvalidArgumentError(
                node_def,
                None,
                f"Malformed device specification '{node_def.device}' in node: "
                f"{node_def_lib.summarize_node_def(node_def)} ({exc})",
            ) from None

    def _supported_types(self, node_def: node_def_pb2.NodeDef, op_def: op_def_pb2.OpDef) -> list[tuple[str, int]]:
        """Device types with a kernel for the node, by kernel priority then device-type priority."""
        found: list[tuple[str, int]] = []
        try:
            for device_type in self.types:
                if self.registry.has_kernel(node_def, op_def, device_type):
                    priority = self.registry.find_kernel(node_def, op_def, device_type).kernel_def.priority
                    found.append((device_type, priority))
        except errors.OpError as exc:
            raise _with_node(exc, node_def) from exc
        found.sort(key=lambda t: -t[1])  # stable: equal kernel priorities keep the device-type order
        if not found:
            attrs = node_def_lib.summarize_attrs(_without_device(node_def, op_def))
            raise errors.InvalidArgumentError(
                node_def,
                None,
                f"No OpKernel was registered to support Op '{node_def.op}' used by "
                f"{node_def_lib.format_node_for_error(node_def)} with these attrs: [{attrs}]\n"
                f"Registered devices: [{', '.join(sorted(self.types))}]\n"
                f"Registered kernels:\n{self.registry.registered_kernels_string(node_def.op)}"
                f"\n\t [[{node_def_lib.format_node_for_error(node_def)}]]",
            )
        return found

    # ------------------------------------------------------------------ colocation groups

    def _root(self, name: str) -> _Member:
        member = self.members[name]
        while member.parent != name:
            parent = self.members[member.parent]
            member.parent = parent.parent  # path halving
            name = member.parent
            member = self.members[name]
        return member

    def _root_name(self, name: str) -> str:
        while self.members[name].parent != name:
            name = self.members[name].parent
        return name

    def _colocate_groups(self) -> None:
        first_of_group: dict[bytes, str] = {}
        for node in self.nodes.values():
            groups: Sequence[bytes] = ()
            if _COLOCATION_ATTR in node.node_def.attr:
                groups = [g for g in node.node_def.attr[_COLOCATION_ATTR].list.s if g.startswith(_COLOCATION_PREFIX)]
            for group in groups or [_COLOCATION_PREFIX + node.name.encode()]:
                first = first_of_group.setdefault(group, node.name)
                if first == node.name:
                    continue
                try:
                    self._colocate(node.name, first)
                except errors.InvalidArgumentError as exc:
                    if not self.soft:
                        raise _with_node(exc, node.node_def) from None
        self._colocate_resource_edges()

    def _colocate_resource_edges(self) -> None:
        """TF's ColocateResourceAndRefEdges: a node using a resource goes where the resource's producer goes.

        Producers pinned by the runtime (the client's feed of a function's captured handle) are
        skipped: the handle is a host value, and the consumers' own device requests decide.
        """
        for node in self.nodes.values():
            if node.op_def is None or node.pinned is not None:
                continue
            types = node_def_lib.input_types(node.node_def, node.op_def)
            position = 0
            for text in node.node_def.input:
                src, index = node_def_lib.parse_tensor_name(text)
                if index == node_def_lib.CONTROL_SLOT:
                    continue
                is_resource = position < len(types) and types[position] == types_pb2.DT_RESOURCE
                position += 1
                if not is_resource or self.nodes[src].pinned is not None:
                    continue
                try:
                    self._colocate(node.name, src)
                except errors.InvalidArgumentError as exc:
                    if not self.soft:
                        raise _with_node(exc, node.node_def) from None

    def _colocate(self, x: str, y: str) -> None:
        x_root, y_root = self._root_name(x), self._root_name(y)
        if x_root == y_root:
            return
        a, b = self.members[x_root], self.members[y_root]
        try:
            requested = _merge_specs(a.requested, b.requested, self.soft)
        except errors.InvalidArgumentError as exc:
            raise errors.InvalidArgumentError(
                None, None, f"Cannot colocate nodes {_coloc(x)} and {_coloc(y)}: {exc.message}"
            ) from None
        b_types = {t for t, _ in b.supported}
        supported = [(t, p) for t, p in a.supported if t in b_types]
        if not supported:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Cannot colocate nodes {_coloc(x)} and {_coloc(y)} because no device type supports both of those "
                f"nodes and the other nodes colocated with them.{self._debug_info(x_root)}{self._debug_info(y_root)}",
            )
        if a.rank < b.rank:
            a, b, x_root, y_root = b, a, y_root, x_root
        elif a.rank == b.rank:
            a.rank += 1
        b.parent = x_root
        a.requested, a.supported, a.possible = requested, supported, None

    # ------------------------------------------------------------------ candidate devices

    def _devices_for(self, node: _Node) -> list[Device]:
        """The devices the node's group may go to, preferred first (TF's GetDevicesForNode)."""
        root = self._root(node.name)
        if root.possible is not None:
            return root.possible
        spec = root.requested
        if spec.to_string():
            devices = self._filter(self.device_set.find(spec), root.supported)
            if not devices and self.soft:
                soft = spec.replace(device_type=None, device_index=None)
                devices = self._filter(self.device_set.find(soft), root.supported)
            if not devices:
                raise self._explicit_device_error(node, root)
        else:
            devices = self._filter(self.all_devices, root.supported)
            if not devices:
                types = ", ".join(
                    _dtype_name(t)
                    for t in node_def_lib.input_types(node.node_def, node.op_def)  # type: ignore[arg-type]
                )
                raise _cannot_assign(
                    node,
                    f"Node had no OpKernel registered to support this operation: Operation was {node.node_def.op} "
                    f"and inputs were [{types}].\n{self._debug_info(self._root_name(node.name))}",
                )
        root.possible = devices
        return devices

    def _filter(self, devices: Sequence[Device], supported: Sequence[tuple[str, int]]) -> list[Device]:
        priority = dict(supported)
        kept = [d for d in devices if d.device_type in priority]
        kept.sort(key=lambda d: (-priority[d.device_type], self.order[d.name]))
        if self.default_device is not None and self.default_device in kept:
            kept.remove(self.default_device)
            kept.insert(0, self.default_device)
        return kept

    def _first_pass_choice(self, node: _Node, candidates: list[Device]) -> Device | None:
        """Heuristic B: metadata ops and pass-through Identities go where their input went."""
        op = node.node_def.op
        if not node.data_inputs:
            return None
        if op not in METADATA_OPS and not self._is_passthrough_identity(node):
            return None
        source = self.nodes[node.data_inputs[0]].device
        return source if source is not None and source in candidates else None

    def _is_passthrough_identity(self, node: _Node) -> bool:
        """TF's MatchIdentityOperation: an Identity with one edge in and one out, both ends asking the same."""
        if node.node_def.op not in _IDENTITY_OPS or node.node_def.device:
            return False
        if len(node.data_inputs) + len(node.control_inputs) != 1 or len(node.out_edges) > 1:
            return False
        source = self.nodes[(node.data_inputs or node.control_inputs)[0]].node_def.device
        sink = self.nodes[node.out_edges[0]].node_def.device if node.out_edges else ""  # TF's _SINK edge
        return source == sink

    def _generator_choice(self, node: _Node, candidates: list[Device]) -> Device | None:
        """Heuristic A: a node without inputs joins its consumers when they all sit on one device."""
        if not node.out_edges:
            return None
        consumers = {self.nodes[name].device for name in node.out_edges}
        if len(consumers) != 1:
            return None
        device = consumers.pop()
        return device if device is not None and device in candidates else None

    # ------------------------------------------------------------------ error texts

    def _explicit_device_error(self, node: _Node, root: _Member) -> errors.InvalidArgumentError:
        requested = node.node_def.device
        debug = self._debug_info(self._root_name(node.name))
        if requested and node.requested == root.requested:
            if not self.device_set.find(node.requested):
                names = ", ".join(sorted(d.name for d in self.all_devices))
                hint = ""
                if (node.requested.device_type or "").lower() == "gpu" and "GPU" not in self.types:
                    hint = " The requested device appears to be a GPU, but no GPU device is registered."
                text = (
                    f"{node_def_lib.format_node_for_error(node.name)} was explicitly assigned to {requested} but "
                    f"available devices are [ {names} ]. Make sure the device specification refers to a valid "
                    f"device.{hint}"
                )
            elif node.requested.device_type is not None:
                attrs = node_def_lib.summarize_attrs(_without_device(node.node_def, node.op_def))
                text = (
                    f"Could not satisfy explicit device specification '{requested}' because no supported kernel for "
                    f"{node.requested.device_type} devices is available.{debug}\nOp: {node.node_def.op}\n"
                    f"Node attrs: {attrs}\nRegistered kernels:\n"
                    f"{self.registry.registered_kernels_string(node.node_def.op)}"
                )
            else:
                text = f"Could not satisfy explicit device specification '{requested}'{debug}"
        else:
            names = ", ".join(d.name for d in self.all_devices)
            text = (
                f"Could not satisfy explicit device specification '{requested}' because the node "
                f"{_coloc(node.name)} was colocated with a group of nodes that required incompatible device "
                f"'{root.requested}'. All available devices [{names}]. {debug}"
            )
        return _cannot_assign(node, text)

    def _debug_info(self, root_name: str) -> str:
        """TF's ColocationGraph::DebugInfo: the group's members, their requests and supported device types."""
        root = self.members[root_name]
        members = [n for n in self.nodes.values() if self._root_name(n.name) == root_name]
        by_op: dict[str, str] = {}
        for n in members:
            by_op[n.node_def.op] = "".join(f"{t} " for t, _ in n.supported)
        lines = [
            "",
            "Colocation Debug Info:",
            "Colocation group had the following types and supported devices: ",
            f"Root Member(requested_device_name_='{root.requested}' "
            f"supported_device_types_=[{', '.join(t for t, _ in root.supported)}] "
            f"possible_devices_=[{', '.join(d.name for d in root.possible or ())}]",
        ]
        lines += [f"{op}: {types}" for op, types in by_op.items()]
        lines += ["", "Colocation members, user-requested devices, and framework assigned devices, if any:"]
        for n in members:
            line = f"  {n.name} ({n.node_def.op}) {n.node_def.device}"
            if n.device is not None:
                line += f" framework assigned device={n.device.name}"
            lines.append(line)
        return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------- helpers


def _merge_specs(a: DeviceSpec, b: DeviceSpec, allow_soft_placement: bool) -> DeviceSpec:
    """TF's DeviceNameUtils::MergeDevNames: fields of both; a conflict is an error (type/index: soft drops them)."""
    for field, plural in (("job", "jobs"), ("replica", "replicas"), ("task", "tasks")):
        x, y = getattr(a, field), getattr(b, field)
        if x is not None and y is not None and x != y:
            raise errors.InvalidArgumentError(
                None, None, f"Cannot merge devices with incompatible {plural}: '{a}' and '{b}'"
            )
    merged = a.make_merged_spec(b)
    if a.device_type is not None and b.device_type is not None and a.device_type != b.device_type:
        if not allow_soft_placement:
            raise errors.InvalidArgumentError(
                None, None, f"Cannot merge devices with incompatible types: '{a}' and '{b}'"
            )
        return merged.replace(device_type=None, device_index=None)
    if a.device_index is not None and b.device_index is not None and a.device_index != b.device_index:
        if not allow_soft_placement:
            raise errors.InvalidArgumentError(
                None, None, f"Cannot merge devices with incompatible ids: '{a}' and '{b}'"
            )
        return merged.replace(device_index=None)
    return merged


def _coloc(name: str) -> str:
    return f"{{{{colocation_node {name}}}}}"


def _dtype_name(enum: int) -> str:
    return types_pb2.DataType.Name(enum)


def _without_device(node_def: node_def_pb2.NodeDef, op_def: op_def_pb2.OpDef | None) -> node_def_pb2.NodeDef:
    """A copy with the OpDef's defaults and no device (TF lists a node's attrs that way)."""
    copy = node_def_pb2.NodeDef()
    copy.CopyFrom(node_def)
    copy.ClearField("device")
    if op_def is not None:
        node_def_lib.add_default_attrs(copy, op_def)
    return copy


def _with_node(error: errors.OpError, node_def: node_def_pb2.NodeDef) -> errors.OpError:
    tag = f"[[{node_def_lib.format_node_for_error(node_def)}]]"
    message = error.message if tag in error.message else f"{error.message}\n\t {tag}"
    return type(error)(node_def, None, message)


def _cannot_assign(node: _Node, text: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(
        node.node_def,
        None,
        f"Cannot assign a device for operation {node.name}: {text}\n\t "
        f"[[{node_def_lib.format_node_for_error(node.node_def)}]]",
    )
