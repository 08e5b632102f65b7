"""The executor: runs the nodes of one partition (one device) from a plan compiled once.

Compiling makes the kernels (``create_kernel``, once per node; stateful kernels
such as random ops may come from a session-wide cache so their state survives
recompiles, as TensorFlow's OpSegment keeps them), checks that every edge carries
the dtype its consumer expects, fixes an order (a topological order that keeps the
GraphDef's own order where valid; the partitioner writes partitions in one global
order), and gives every node output a slot in a flat list of values.

A run walks the plan: gather the inputs from their slots, *move* each value whose
last consumer this is out of its slot (so the kernel's input list holds the only
reference and the kernel may forward the buffer, see docs/runtime.md "Ownership"),
run the kernel (``kernel.run`` with a context; a one-output FunctionKernel's prepared
function directly, with the same dtype check), store the outputs that have consumers.
``_Send``/``_Recv`` nodes
are transfers through the step's Rendezvous. A ``_Recv`` whose tensor has not
arrived pauses the run (``ExecutorRun.advance`` returns False) so a scheduler can
run the producing partition first; nothing here blocks a thread.

Errors keep their class, name the node with TensorFlow's ``[[{{node NAME}}]]`` tag
followed by the op and device, and keep the original exception as ``__cause__``.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import MutableMapping
from typing import Any

import numpy as np

import modtensor.ops  # noqa: F401  (registers the standard ops)
from modtensor.framework import dtypes, errors, op_spec
from modtensor.framework import node_def as node_def_lib
from modtensor.framework.op_registry import OpRegistry, global_registry
from modtensor.framework.protos import graph_pb2, node_def_pb2, step_stats_pb2, types_pb2
from modtensor.runtime.device import Device
from modtensor.runtime.kernel_registry import KernelRegistry
from modtensor.runtime.op_kernel import FunctionKernel, OpKernel, OpKernelContext, create_kernel
from modtensor.runtime.partitioner import RECV_OPS, SEND_OPS, topological_order, transfer_key
from modtensor.runtime.rendezvous import Rendezvous, copy_tensor

__all__ = ["Executor", "ExecutorRun", "KernelCache"]

# (device name, node name) -> (the NodeDef it was made for, kernel): TF's OpSegment for stateful kernels.
KernelCache = MutableMapping[tuple[str, str], tuple[node_def_pb2.NodeDef, OpKernel]]


# Plan entry kinds: a prepared function with 1, 2 or n inputs, a kernel run with a context, a transfer.
_CALL1, _CALL2, _CALLN, _CONTEXT, _TRANSFER = 0, 1, 2, 3, 4


class _SendStep:
    """A ``_Send``/``_HostSend``: hands its input to the rendezvous."""

    __slots__ = ("device", "key", "on_host", "slot", "take")

    def __init__(self, key: str, device: Device, on_host: bool):
        self.key, self.device, self.on_host = key, device, on_host
        self.slot = -1
        self.take = False

    def run(self, values: list[Any], rendezvous: Rendezvous) -> bool:
        value = values[self.slot]
        if self.take:
            values[self.slot] = None
        rendezvous.send(self.key, value, self.device, self.on_host)
        return True


class _RecvStep:
    """A ``_Recv``/``_HostRecv``: takes its tensor from the rendezvous into this device's memory, if it arrived."""

    __slots__ = ("device", "key", "on_host", "slot")

    def __init__(self, key: str, device: Device, on_host: bool):
        self.key, self.device, self.on_host = key, device, on_host
        self.slot = -1

    def run(self, values: list[Any], rendezvous: Rendezvous) -> bool:
        sent = rendezvous.try_recv(self.key)
        if sent is None:
            return False
        values[self.slot] = copy_tensor(sent, self.device, self.on_host)
        return True


class Executor:
    """The compiled plan of one partition; ``start``/``run`` execute it, any number of times."""

    def __init__(
        self,
        graph_def: graph_pb2.GraphDef,
        device: Device,
        *,
        registry: KernelRegistry | None = None,
        op_registry: OpRegistry | None = None,
        kernel_cache: KernelCache | None = None,
    ):
        self.device = device
        self.graph_def = graph_def
        op_registry = op_registry if op_registry is not None else global_registry()
        nodes = list(graph_def.node)
        order = topological_order(nodes)
        self.nodes: list[node_def_pb2.NodeDef] = [nodes[i] for i in order]
        self._positions = {n.name: i for i, n in enumerate(self.nodes)}
        self._owned: list[OpKernel] = []
        steps: list[Any] = []
        in_types: list[list[int]] = []
        out_types: list[list[int]] = []
        for node in self.nodes:
            if node.op in SEND_OPS:
                steps.append(_SendStep(transfer_key(node), device, device.is_host or node.op == "_HostSend"))
                in_types.append([node.attr["T"].type])
                out_types.append([])
            elif node.op in RECV_OPS:
                steps.append(_RecvStep(transfer_key(node), device, device.is_host or node.op == "_HostRecv"))
                in_types.append([])
                out_types.append([node.attr["tensor_type"].type])
            else:
                kernel = self._kernel(node, op_registry, registry, kernel_cache)
                steps.append(kernel)
                in_types.append([t.as_datatype_enum for t in kernel.input_types])
                out_types.append([t.as_datatype_enum for t in kernel.output_types])
        self._plan = self._compile(steps, in_types, out_types)
        self._num_slots = sum(len(t) for t in out_types)
        self._labels = [_timeline_label(n) for n in self.nodes]

    # ------------------------------------------------------------------ compiling

    def _kernel(
        self,
        node: node_def_pb2.NodeDef,
        op_registry: OpRegistry,
        registry: KernelRegistry | None,
        cache: KernelCache | None,
    ) -> OpKernel:
        op_def = op_registry.get(node.op).op_def
        key = (self.device.name, node.name)
        if cache is not None and op_def.is_stateful:
            found = cache.get(key)
            if found is not None and found[0] == node:
                return found[1]
        kernel = create_kernel(node, op_def, self.device, registry)
        if cache is not None and op_def.is_stateful:
            cache[key] = (node, kernel)
        else:
            self._owned.append(kernel)
        return kernel

    def _compile(self, steps: list[Any], in_types: list[list[int]], out_types: list[list[int]]) -> list[tuple]:
        """Per node: (kind, kernel, call, first_slot, second_slot, in_slots, take, out_start, out_stop, drop,
        expected_np_dtype, transfer); ``kind`` picks the run loop's branch without further tests.

        ``call`` is a kernel's prepared function (a FunctionKernel with one non-list
        output and no list inputs; on the host also Const and Identity): the run calls
        it directly and checks the output dtype itself, which skips the kernel context
        (such kernels never forward buffers; Identity passes its input's through).
        """
        base: dict[str, int] = {}
        total = 0
        for node, types in zip(self.nodes, out_types, strict=True):
            base[node.name] = total
            total += len(types)
        inputs: list[list[int]] = []
        last_use: dict[int, int] = {}
        for position, node in enumerate(self.nodes):
            slots = []
            for text in node.input:
                src, index = node_def_lib.parse_tensor_name(text)
                if index == node_def_lib.CONTROL_SLOT:
                    continue
                produced = out_types[self._positions[src]]
                if index >= len(produced):
                    raise errors.InvalidArgumentError(
                        node,
                        None,
                        f"Node '{node.name}': Connecting to invalid output {index} of source node {src} "
                        f"which has {len(produced)} outputs.",
                    )
                self._check_edge(node, len(slots), text, produced[index], in_types[position])
                slot = base[src] + index
                slots.append(slot)
                last_use[slot] = position
            if len(slots) != len(in_types[position]):
                raise errors.InvalidArgumentError(
                    node,
                    None,
                    f"Node '{node.name}' has {len(slots)} data inputs, its op expects {len(in_types[position])}",
                )
            inputs.append(slots)
        plan = []
        for position, (node, step) in enumerate(zip(self.nodes, steps, strict=True)):
            slots = inputs[position]
            take = tuple(sorted({s for s in slots if last_use[s] == position}))
            start = base[node.name]
            stop = start + len(out_types[position])
            drop = tuple(s for s in range(start, stop) if s not in last_use)
            if isinstance(step, OpKernel):
                # FunctionKernels everywhere; other kernels offering a direct call (Const, Identity) on the host only.
                if isinstance(step, FunctionKernel) or self.device.is_host:
                    prepare = getattr(step, "prepared_call", None)
                else:
                    prepare = None
                call = prepare() if prepare is not None else None
                if call is None:
                    kind = _CONTEXT
                else:
                    kind = _CALL1 if len(slots) == 1 else _CALL2 if len(slots) == 2 else _CALLN
                first = slots[0] if slots else -1
                second = slots[1] if len(slots) > 1 else -1
                expected = step._expected_np[0] if step._expected_np else None
                plan.append((kind, step, call, first, second, tuple(slots), take, start, stop, drop, expected, None))
                continue
            if isinstance(step, _SendStep):
                step.slot, step.take = slots[0], bool(take)
            else:
                step.slot = start
            plan.append((_TRANSFER, None, None, -1, -1, (), (), start, stop, drop, None, step))
        return plan

    @staticmethod
    def _check_edge(node: node_def_pb2.NodeDef, index: int, source: str, produced: int, expected: list[int]) -> None:
        if index >= len(expected):
            return  # counted (and reported) by the caller
        if _base_type(produced) != _base_type(expected[index]):
            raise errors.InvalidArgumentError(
                node,
                None,
                f"Input {index} of node {node.name} was passed {_type_name(produced)} from {source} incompatible "
                f"with expected {_type_name(expected[index])}.",
            )

    # ------------------------------------------------------------------ running

    def start(
        self,
        rendezvous: Rendezvous,
        *,
        step_id: int = 0,
        stats: step_stats_pb2.DeviceStepStats | None = None,
    ) -> ExecutorRun:
        """A run of the plan over ``rendezvous``; call ``advance()`` until it returns True."""
        return ExecutorRun(self, rendezvous, step_id, stats)

    def run(
        self,
        rendezvous: Rendezvous,
        *,
        step_id: int = 0,
        stats: step_stats_pb2.DeviceStepStats | None = None,
    ) -> None:
        """Run the whole plan now; every tensor its ``_Recv`` nodes need must already be in ``rendezvous``."""
        run = self.start(rendezvous, step_id=step_id, stats=stats)
        if not run.advance():
            raise errors.InternalError(
                None,
                None,
                f"Partition on {self.device.name} is waiting for a tensor that was never sent: {run.waiting_on}",
            )

    def close(self) -> None:
        """Release the kernels this executor owns (cached stateful kernels belong to the cache's owner)."""
        for kernel in self._owned:
            kernel.close()
        self._owned.clear()

    @property
    def num_nodes(self) -> int:
        """The number of nodes in the plan (transfers included)."""
        return len(self._plan)

    def _error(self, position: int, exc: BaseException) -> errors.OpError:
        """``exc`` as an OpError of the same class naming the node, its op and device (TF's tag)."""
        node = self.nodes[position]
        if isinstance(exc, errors.OpError):
            cls: type[errors.OpError] = type(exc)
            message = exc.message
        else:
            cls = errors.UnknownError
            message = f"{type(exc).__name__}: {exc}"
        tag = f"[[{node_def_lib.format_node_for_error(node)}]]"
        if tag not in message:
            message = f"{message}\n\t {tag} (op {node.op} on {self.device.name})"
        wrapped = cls(node, None, message)
        wrapped.error_code = getattr(exc, "error_code", wrapped.error_code)
        return wrapped


class ExecutorRun:
    """One run of an Executor's plan: the value slots and how far the run got."""

    __slots__ = ("_executor", "_position", "_rendezvous", "_stats", "_step_id", "_values", "waiting_on")

    def __init__(
        self,
        executor: Executor,
        rendezvous: Rendezvous,
        step_id: int,
        stats: step_stats_pb2.DeviceStepStats | None,
    ):
        self._executor = executor
        self._rendezvous = rendezvous
        self._step_id = step_id
        self._stats = stats
        self._values: list[Any] = [None] * executor._num_slots
        self._position = 0
        self.waiting_on: str | None = None

    @property
    def done(self) -> bool:
        """True once every node ran."""
        return self._position >= len(self._executor._plan)

    @property
    def position(self) -> int:
        """How many nodes of the plan have run."""
        return self._position

    def advance(self) -> bool:
        """Run nodes until the plan is done (True) or a ``_Recv`` has nothing yet (False, ``waiting_on`` its key)."""
        if self._stats is not None:
            return self._advance_traced()
        plan = self._executor._plan
        values = self._values
        rendezvous = self._rendezvous
        step_id = self._step_id
        i = self._position
        n = len(plan)
        try:
            while i < n:
                kind, kernel, call, first, second, in_slots, take, start, stop, drop, expected, transfer = plan[i]
                if kind <= _CALLN:
                    if kind == _CALL2:
                        out = call(values[first], values[second])
                    elif kind == _CALL1:
                        out = call(values[first])
                    else:
                        out = call(*[values[s] for s in in_slots])
                    for s in take:
                        values[s] = None
                    if type(out) is not np.ndarray:
                        out = np.asarray(out)
                    if out.dtype is not expected and expected is not None and out.dtype != expected:
                        _raise_dtype_error(kernel, out)
                    values[start] = out
                    out = None
                elif kind == _CONTEXT:
                    inputs = [values[first]] if len(in_slots) == 1 else [values[s] for s in in_slots]
                    for s in take:
                        values[s] = None
                    ctx = OpKernelContext(kernel, inputs, step_id=step_id)
                    # No local may keep the outputs list: the next kernel could not forward them.
                    if stop - start == 1:
                        values[start] = kernel.run(ctx)[0]
                    else:
                        values[start:stop] = kernel.run(ctx)
                elif not transfer.run(values, rendezvous):
                    self._position = i
                    self.waiting_on = transfer.key
                    return False
                if drop:
                    for s in drop:
                        values[s] = None
                i += 1
        except Exception as exc:
            self._position = n
            raise self._executor._error(i, exc) from exc
        self._position = n
        self.waiting_on = None
        return True

    def _advance_traced(self) -> bool:
        """``advance`` that records TF's NodeExecStats for every node it runs."""
        executor = self._executor
        plan = executor._plan
        values = self._values
        stats = self._stats
        thread_id = threading.get_native_id()
        i = self._position
        try:
            while i < len(plan):
                _kind, kernel, _call, _a, _b, in_slots, take, start, stop, drop, _expected, transfer = plan[i]
                wall = time.time_ns()
                t0 = time.perf_counter_ns()
                if transfer is None:
                    inputs = [values[s] for s in in_slots]
                    for s in take:
                        values[s] = None
                    ctx = OpKernelContext(kernel, inputs)
                    ctx.step_id = self._step_id
                    del inputs
                    outputs = kernel.run(ctx)
                    del ctx
                    t1 = time.perf_counter_ns()
                    values[start:stop] = outputs
                elif not transfer.run(values, self._rendezvous):
                    self._position = i
                    self.waiting_on = transfer.key
                    return False
                else:
                    t1 = time.perf_counter_ns()
                    outputs = values[start:stop]
                node_stats = stats.node_stats.add()  # type: ignore[union-attr]
                _describe_outputs(node_stats, outputs)
                for s in drop:
                    values[s] = None
                t2 = time.perf_counter_ns()
                node_stats.node_name = executor.nodes[i].name
                node_stats.timeline_label = executor._labels[i]
                node_stats.thread_id = thread_id
                node_stats.all_start_micros, node_stats.all_start_nanos = wall // 1000, wall
                node_stats.op_start_rel_micros, node_stats.op_start_rel_nanos = 0, 0
                node_stats.op_end_rel_micros, node_stats.op_end_rel_nanos = (t1 - t0) // 1000, t1 - t0
                node_stats.all_end_rel_micros, node_stats.all_end_rel_nanos = (t2 - t0) // 1000, t2 - t0
                del outputs  # the next kernel may forward these buffers
                i += 1
        except Exception as exc:
            self._position = len(plan)
            raise executor._error(i, exc) from exc
        self._position = len(plan)
        self.waiting_on = None
        return True


def _raise_dtype_error(kernel: OpKernel, out: np.ndarray) -> None:
    """The check ``OpKernel.run`` makes, for kernels the executor calls directly."""
    try:
        got = dtypes.as_dtype(out.dtype).name
    except TypeError:
        got = str(out.dtype)
    raise errors.InternalError(
        kernel.node_def,
        None,
        f"Kernel '{kernel.name}' (op {kernel.type_string}) on {kernel.device.device_type} produced output 0 of dtype "
        f"{got}, expected {kernel.output_types[0].base_dtype.name} "
        f"(node {node_def_lib.format_node_for_error(kernel.node_def)})",
    )


def _describe_outputs(node_stats: step_stats_pb2.NodeExecStats, outputs: list[Any]) -> None:
    for slot, value in enumerate(outputs):
        if value is None:
            continue
        out = node_stats.output.add(slot=slot)
        description = out.tensor_description
        with contextlib.suppress(TypeError):  # a dtype TF has no enum for: leave it unset
            description.dtype = dtypes.as_dtype(value.dtype).as_datatype_enum
        for size in value.shape:
            description.shape.dim.add(size=int(size))


def _timeline_label(node: node_def_pb2.NodeDef) -> str:
    """TF's timeline label: ``name = Op(inputs)``; transfers show the tensor and the peer device."""
    if node.op in SEND_OPS:
        return f"{node.name} = {node.op}({node.attr['tensor_name'].s.decode()} @{node.attr['recv_device'].s.decode()})"
    if node.op in RECV_OPS:
        return f"{node.name} = {node.op}({node.attr['tensor_name'].s.decode()} @{node.attr['send_device'].s.decode()})"
    return f"{node.name} = {node.op}({', '.join(node.input)})"


def _base_type(enum: int) -> int:
    return enum - op_spec.REF_OFFSET if enum > op_spec.REF_OFFSET else enum


def _type_name(enum: int) -> str:
    """TF's DataTypeString: "float", "int32", ..."""
    try:
        return dtypes.as_dtype(_base_type(enum)).cpp_name
    except TypeError:
        return types_pb2.DataType.Name(enum)
