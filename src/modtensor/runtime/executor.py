"""The executor: runs the nodes of one partition (one device), in one of two modes chosen when it is compiled.

Compiling makes the kernels (``create_kernel``, once per node; stateful kernels such as
random ops may come from a session-wide cache so their state survives recompiles, as
TensorFlow's OpSegment keeps them), checks that every edge carries the dtype its
consumer expects, and prepares one of:

* **the plan** (straight-line graphs: no control flow anywhere in the step, no
  asynchronous kernels): a topological order in which every node output has a slot in
  a flat list. A run walks the plan on the calling thread: gather inputs, *move* each
  value whose last consumer this is out of its slot (the kernel may then forward the
  buffer, docs/runtime.md "Ownership"), run the kernel, store the outputs. A ``_Recv``
  whose tensor has not arrived pauses the run until the rendezvous calls back. This is
  the fast path: no per-node bookkeeping beyond the call.

* **the dataflow machine** (TensorFlow's executor model), for everything else: per-node
  pending counts and a ready queue; *frames* and *iterations* for while loops (``Enter``
  moves a value into a child frame, ``NextIteration`` into the next iteration, ``Exit``
  back to the parent frame; ``parallel_iterations`` bounds the iterations in flight);
  *dead* values from the untaken output of a ``Switch``, propagated to every consumer
  except ``Merge`` (which forwards its live input) and ``ControlTrigger``; asynchronous
  kernels (``AsyncOpKernel``, receives) that finish through a callback while other nodes
  run; and an inter-op thread pool for independent expensive nodes (``runtime.inter_op``).
  Straight-line graphs whose expensive nodes could overlap also use it when the step
  has more than one inter-op thread.

Errors keep their class, name the node with TensorFlow's ``[[{{node NAME}}]]`` tag
followed by the op, the device and (inside a loop) the frame and iteration, and keep the
original exception as ``__cause__``. The first error of a step aborts the step's
rendezvous and cancellation manager: nothing new starts, in-flight work drains, and the
step finishes with that error.
"""

from __future__ import annotations

import contextlib
import functools
import threading
import time
from collections import deque
from collections.abc import Callable, MutableMapping
from typing import Any

import numpy as np

import modtensor.ops  # noqa: F401  (registers the standard ops)
from modtensor.framework import dtypes, errors, graph_walk, op_spec
from modtensor.framework import node_def as node_def_lib
from modtensor.framework.op_registry import OpRegistry, global_registry
from modtensor.framework.protos import graph_pb2, node_def_pb2, step_stats_pb2, types_pb2
from modtensor.ops.functional_ops import FUNCTIONAL_OPS
from modtensor.runtime import compiled_loop, control_flow_info
from modtensor.runtime.cancellation import CancellationManager
from modtensor.runtime.device import Device
from modtensor.runtime.inter_op import InterOpPool
from modtensor.runtime.kernel_registry import KernelRegistry
from modtensor.runtime.kernels import control_flow as control_flow_kernels
from modtensor.runtime.op_kernel import AsyncOpKernel, FunctionKernel, OpKernel, OpKernelContext, create_kernel
from modtensor.runtime.partitioner import RECV_OPS, SEND_OPS, transfer_key
from modtensor.runtime.rendezvous import Rendezvous, SentTensor, copy_tensor, frame_id

__all__ = ["CallFrame", "Executor", "ExecutorRun", "KernelCache", "StepContext"]

# (device name, node name) -> (the NodeDef it was made for, kernel): TF's OpSegment for stateful kernels.
KernelCache = MutableMapping[tuple[str, str], tuple[node_def_pb2.NodeDef, OpKernel]]

# Node kinds: a prepared function with 1, 2 or n inputs, a kernel run with a context, a send, a receive, an
# asynchronous kernel. The plan and the dataflow machine dispatch on them without further tests.
_CALL1, _CALL2, _CALLN, _CONTEXT, _SEND, _RECV, _ASYNC = 0, 1, 2, 3, 4, 5, 6
# The runtime's own control-flow kernels, done by the dataflow machine without a kernel call: pass the value on
# (Enter, Exit, NextIteration, LoopCond, Identity), Switch, Merge.
_FORWARD, _SWITCH, _MERGE = 7, 8, 9
_LOOP = 10  # a compiled while loop (runtime/compiled_loop.py)
_UNMEASURED = frozenset([_RECV, _ASYNC, _FORWARD])  # kinds the cost model never times (no kernel call here)

_PLUMBING_KINDS: dict[type, int] = {
    control_flow_kernels.ForwardKernel: _FORWARD,
    control_flow_kernels.LoopCondKernel: _FORWARD,
    control_flow_kernels.SwitchKernel: _SWITCH,
    control_flow_kernels.MergeKernel: _MERGE,
}

# Op types cheap enough never to be worth another thread (the rest start as expensive; see _NodeItem.cost).
_CHEAP_OPS = frozenset(
    {"Const", "Identity", "IdentityN", "NoOp", "Placeholder", "PlaceholderWithDefault", "StopGradient", "Shape",
     "ShapeN", "Size", "Rank", "Reshape", "ExpandDims", "Squeeze", "Switch", "Merge", "Enter", "Exit",
     "NextIteration", "LoopCond", "ControlTrigger", "_Send", "_Recv", "_HostSend", "_HostRecv", "Pack", "Fill",
     "ZerosLike", "OnesLike", "Range", "StridedSlice", "Slice", "Cast", "Less", "Greater", "LessEqual",
     "GreaterEqual", "Equal", "NotEqual", "LogicalAnd", "LogicalOr", "LogicalNot"}
)  # fmt: skip
# Kernels measured faster than this run inline from then on (seconds; TF's cost-model threshold is similar).
_EXPENSIVE_SECONDS = 50e-6
# Runs whose kernel time teaches the cost model, the first one a warm-up (after them a step stops measuring, and a
# partition whose kernels all proved cheap stops using the pool: handing a node to another thread costs tens of
# microseconds).
_COST_SAMPLES = 4


class StepContext:
    """What the executors of one step share (TF's Executor::Args): rendezvous, cancellation, threads, stats.

    ``runner(task)`` runs a closure later on this step's threads (the pool or the calling
    thread's queue); ``pool`` is the inter-op pool for expensive nodes (None: one thread).
    ``function_library`` and ``config_proto`` are what kernels may ask for (the C API's
    ``TF_GetSerializedFunctionDefLibrary`` / ``ConfigProto``).
    """

    __slots__ = (
        "cancellation",
        "config_proto",
        "function_library",
        "pool",
        "rendezvous",
        "runner",
        "stats",
        "step_id",
    )

    def __init__(
        self,
        rendezvous: Rendezvous,
        *,
        step_id: int = 0,
        cancellation: CancellationManager | None = None,
        runner: Callable[[Callable[[], None]], None] | None = None,
        pool: InterOpPool | None = None,
        stats: step_stats_pb2.DeviceStepStats | None = None,
        function_library: Any = None,
        config_proto: Any = None,
    ):
        self.rendezvous = rendezvous
        self.step_id = step_id
        self.cancellation = cancellation if cancellation is not None else CancellationManager()
        self.runner = runner
        self.pool = pool
        self.stats = stats
        self.function_library = function_library
        self.config_proto = config_proto


# ============================================================================ transfers


class _Transfer:
    """A ``_Send``/``_HostSend`` or ``_Recv``/``_HostRecv``: its rendezvous key (root frame) and memory kind."""

    __slots__ = ("device", "key", "on_host", "prefix")

    def __init__(self, node: node_def_pb2.NodeDef, device: Device):
        self.device = device
        self.on_host = device.is_host or node.op.startswith("_Host")
        self.key = transfer_key(node)
        self.prefix = self.key[: self.key.rindex(";") + 1]  # the key without its frame part

    def key_for(self, frame: int, iteration: int) -> str:
        """The key in a frame instance and iteration (the root frame's is ``key``)."""
        return self.key if frame == 0 and iteration == 0 else f"{self.prefix}{frame}:{iteration}"


# ============================================================================ compiling


class _NodeItem:
    """One node of a compiled partition, as the plan and the dataflow machine see it."""

    __slots__ = (
        "call",
        "cost",
        "cost_samples",
        "control_out",
        "expected",
        "frame",
        "id",
        "input_start",
        "is_constant_enter",
        "is_control_trigger",
        "is_enter",
        "is_exit",
        "is_merge",
        "is_next_iteration",
        "kernel",
        "kind",
        "loop",
        "multi",
        "ctrl",
        "edges",
        "frame_plain",
        "merge_or_trigger_consumers",
        "name",
        "native",
        "node",
        "num_inputs",
        "out_edges",
        "plan_call",
        "transfer",
        "enter_frame",
    )

    def __init__(self, index: int, node: node_def_pb2.NodeDef):
        self.id = index
        self.node = node
        self.name = node.name
        self.kernel: OpKernel | None = None
        self.transfer: _Transfer | None = None
        self.loop: Any = None  # compiled_loop.CompiledLoop for a compiled loop's node
        self.call: Callable[..., Any] | None = None
        # The plan's own way to call a kernel without a context (OpKernel.plan_call: the built-in native CPU
        # kernels), (call, C entry point) or None; the dataflow machine runs it with a context.
        self.plan_call: tuple[Callable[..., Any], Any] | None = None
        # The C entry point (capsule, target) the C plan loops call for this node (see ``direct_call``), or None.
        self.native: tuple[Any, Any] | None = None
        # A host kernel of several outputs (or a list output) the C plan loops may call without a context:
        # (``call(*inputs) -> sequence of outputs``, their numpy dtypes), or None. The other paths use a context.
        self.multi: tuple[Callable[..., Any], tuple[np.dtype, ...]] | None = None
        self.kind = _CONTEXT
        self.expected: np.dtype | None = None
        self.num_inputs = 0
        self.input_start = 0
        self.out_edges: list[tuple[int, int, int]] = []  # (consumer id, its input index, our output index)
        self.control_out: list[int] = []
        op = node.op
        self.is_merge = op in graph_walk.MERGE_OPS
        self.is_enter = op in ("Enter", "RefEnter")
        self.is_exit = op in ("Exit", "RefExit")
        self.is_next_iteration = op in graph_walk.NEXT_ITERATION_OPS
        self.is_control_trigger = op == "ControlTrigger"
        self.is_constant_enter = self.is_enter and node.attr["is_constant"].b
        self.frame_plain = not (self.is_enter or self.is_exit or self.is_next_iteration)
        self.enter_frame = node.attr["frame_name"].s.decode() if self.is_enter else ""
        self.merge_or_trigger_consumers = False
        # Filled for the dataflow machine: (consumer, its pending position, input slot, our output) per data edge,
        # (consumer, pending position) per control edge; positions are in the consumers' frame.
        self.edges: tuple[tuple[_NodeItem, int, int, int], ...] = ()
        self.ctrl: tuple[tuple[_NodeItem, int], ...] = ()
        self.frame = ""
        # CPU seconds per call (the least of the first _COST_SAMPLES runs but the first); None until measured. Cheap op
        # types start cheap and are never measured.
        self.cost: float | None = 0.0 if op in _CHEAP_OPS else None
        self.cost_samples = _COST_SAMPLES if op in _CHEAP_OPS else 0

    def direct_call(self) -> tuple[Callable[..., Any], Any] | None:
        """How a plan may run this node without a kernel context: ``(call, C entry point or None)`` (the C entry
        point as ``(capsule, target)``: a native CPU kernel or a host scalar op), or None (a context is needed)."""
        if self.kind <= _CALLN:
            return self.call, self.native  # type: ignore[return-value]
        if self.kind == _CONTEXT and self.plan_call is not None:
            return self.plan_call[0], self.native
        return None


class CallFrame:
    """A straight-line partition seen as a call: ``steps`` (item, input slots, output slots) over ``num_slots``
    value slots in plan order, the slot each ``_Recv`` key fills (``received``) and each ``_Send`` key reads
    (``sent``). Transfers are not among the steps: a caller puts arguments into their slots and takes results
    from theirs (runtime/function_library.py, InstantiatedFunction.call_frame)."""

    __slots__ = ("executor", "num_slots", "received", "sent", "steps")

    def __init__(
        self,
        executor: Executor,
        num_slots: int,
        steps: list[tuple[_NodeItem, tuple[int, ...], tuple[int, ...]]],
        received: dict[str, int],
        sent: dict[str, int],
    ):
        self.executor = executor
        self.num_slots = num_slots
        self.steps = steps
        self.received = received
        self.sent = sent


class _FrameInfo:
    """Static facts of a frame (by name) in one partition: its nodes' pending counts and input slots."""

    __slots__ = ("input_count", "name", "num_slots", "parallel_iterations", "pending", "positions")

    def __init__(self, name: str, parallel_iterations: int):
        self.name = name
        self.parallel_iterations = max(1, parallel_iterations)
        self.input_count = 0  # Enter nodes whose outputs go into this frame
        self.num_slots = 0  # input slots of the frame's nodes (per iteration)
        self.pending: list[int] = []  # initial pending count per node position
        self.positions: dict[int, int] = {}  # node id -> position in ``pending``


class Executor:
    """One partition compiled for its device; ``run``/``run_async``/``start`` execute it, any number of times."""

    def __init__(
        self,
        graph_def: graph_pb2.GraphDef,
        device: Device,
        *,
        registry: KernelRegistry | None = None,
        op_registry: OpRegistry | None = None,
        kernel_cache: KernelCache | None = None,
        dataflow: bool = False,
        compile_loops: bool = True,
        function_library: Any = None,
    ):
        """Compile ``graph_def`` for ``device``; ``dataflow`` forces the dataflow machine (a step where some
        partition has control flow: dead values may arrive through any receive); ``compile_loops=False`` runs
        every while loop on the dataflow machine (runtime/compiled_loop.py is the default for simple loops)."""
        self.device = device
        self._function_library = function_library
        self.graph_def = graph_def
        op_registry = op_registry if op_registry is not None else global_registry()
        nodes = list(graph_def.node)
        walked = graph_walk.node_order(nodes)
        if walked.has_cycle:
            stuck = [nodes[i].name for i in walked.stuck]
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Graph is invalid, contains a cycle with {len(stuck)} nodes, including: {', '.join(stuck[:3])}",
            )
        self.nodes: list[node_def_pb2.NodeDef] = [nodes[i] for i in walked.order]
        self._owned: list[OpKernel] = []
        self._kernel_args = (op_registry, registry, kernel_cache)
        self._loops: dict[str, _NodeItem] = {}  # compiled loops by their node's name
        if compile_loops and control_flow_info.has_control_flow(self.nodes):
            self.nodes = self._compile_loops(self.nodes)
        items = [_NodeItem(i, node) for i, node in enumerate(self.nodes)]
        self._items = items
        self._by_name = {item.name: item for item in items}
        in_types: list[list[int]] = []
        out_types: list[list[int]] = []
        for item in items:
            types = self._fill_item(item)
            in_types.append(types[0])
            out_types.append(types[1])
        self._num_outputs = [len(t) for t in out_types]
        self._inputs = self._wire(in_types, out_types)
        for item, slots in zip(items, self._inputs, strict=True):
            item.num_inputs = len(slots)
            if item.kernel is not None:
                self._choose_call(item)
        self._labels = [_timeline_label(n) for n in self.nodes]
        # What is left of control flow once simple loops are compiled (dead values can come from it).
        self.has_control_flow = control_flow_info.has_control_flow(self.nodes)
        self.dataflow = dataflow or self.has_control_flow or any(item.kind == _ASYNC for item in items)
        self._plan: list[tuple] | None = None if self.dataflow else self._compile_plan(out_types)
        self._fast_plan = _fast_plan(self._plan) if self._plan is not None else None
        self._frames: dict[str, _FrameInfo] | None = None
        self._roots: list[int] = []
        self._parallel: bool | None = None  # whether independent expensive nodes exist (computed on demand)
        if self.dataflow:
            self._compile_dataflow()

    def require_dataflow(self) -> None:
        """Run on the dataflow machine from now on: another partition of the step has control flow, so dead
        values may arrive through this partition's receives (the straight-line plan cannot carry them)."""
        if self.dataflow:
            return
        self.dataflow = True
        self._plan = None
        self._fast_plan = None
        if self._frames is None:
            self._compile_dataflow()

    # ------------------------------------------------------------------ compiling

    def _fill_item(self, item: _NodeItem) -> tuple[list[int], list[int]]:
        """Give ``item`` its transfer, kernel or compiled loop; returns its input and output dtypes."""
        node = item.node
        if node.op in SEND_OPS:
            item.transfer, item.kind = _Transfer(node, self.device), _SEND
            return [node.attr["T"].type], []
        if node.op in RECV_OPS:
            item.transfer, item.kind = _Transfer(node, self.device), _RECV
            return [], [node.attr["tensor_type"].type]
        if node.op == compiled_loop.COMPILED_LOOP_OP:
            compiled = self._loops[node.name]
            item.loop, item.kind, item.cost = compiled.loop, _LOOP, None
            return list(compiled.loop.structure.input_types), list(compiled.loop.structure.output_types)
        kernel = self._kernel(node, *self._kernel_args)
        item.kernel = kernel
        item.expected = kernel._expected_np[0] if kernel._expected_np else None
        return [t.as_datatype_enum for t in kernel.input_types], [t.as_datatype_enum for t in kernel.output_types]

    def _compile_loops(self, nodes: list[node_def_pb2.NodeDef]) -> list[node_def_pb2.NodeDef]:
        """Replace every loop frame of the compilable shape (innermost first) by one compiled-loop node."""
        rejected: set[str] = set()

        def compilable(node: node_def_pb2.NodeDef) -> bool:
            if node.op == compiled_loop.COMPILED_LOOP_OP:
                return True
            # Internal ops (the optimizer's fused kernels) compile like any synchronous kernel; transfers and
            # function boundaries never do (compiled_loop._NOT_COMPILABLE).
            return self._kernel_args[0].lookup(node.op) is not None

        while True:
            loops = [loop for loop in compiled_loop.find_loops(nodes, compilable) if loop.frame not in rejected]
            accepted = []
            for loop in loops:
                steps: dict[str, tuple[_NodeItem, int]] = {}
                try:
                    for member in loop.members:
                        if member.op in compiled_loop.PLUMBING_OPS:
                            continue
                        item = self._loops.get(member.name) or _NodeItem(-1, member)
                        if item.id == -1 and member.op != compiled_loop.COMPILED_LOOP_OP:
                            in_types, out_types = self._fill_item(item)
                            item.num_inputs = len(in_types)
                            if item.kind == _ASYNC or isinstance(item.kernel, AsyncOpKernel):
                                raise compiled_loop.NotCompilable("an asynchronous kernel")
                            self._choose_call(item)
                            steps[member.name] = (item, len(out_types))
                        else:
                            steps[member.name] = (item, len(item.loop.structure.output_types))
                    compiled = compiled_loop.CompiledLoop(loop, steps)
                except compiled_loop.NotCompilable:
                    rejected.add(loop.frame)
                    continue
                loop_item = _NodeItem(-1, loop.node)
                loop_item.loop, loop_item.kind, loop_item.cost = compiled, _LOOP, None
                self._loops[loop.node.name] = loop_item
                accepted.append(loop)
            if not accepted:
                return nodes
            nodes = compiled_loop.replace_loops(nodes, accepted)
            nodes = [nodes[i] for i in graph_walk.node_order(nodes).order]

    def _run_item(self, step: StepContext, item: _NodeItem, inputs: list[Any], frame_iter: tuple[int, int]) -> list:
        """Run one synchronous node of a compiled loop (a kernel, or a loop nested in it)."""
        kind = item.kind
        if kind <= _CALLN:
            out = item.call(*inputs)  # type: ignore[misc]
            if type(out) is not np.ndarray:
                out = np.asarray(out)
            expected = item.expected
            if out.dtype is not expected and expected is not None and out.dtype != expected:
                _raise_dtype_error(item.kernel, out)
            return [out]
        if kind == _FORWARD:
            return [inputs[0]]
        if kind == _LOOP:
            loop = item.loop
            inner = frame_id(frame_iter[0], frame_iter[1], loop.frame)
            return loop.run(inputs, inner, step.cancellation, functools.partial(self._run_item, step))
        ctx = OpKernelContext(item.kernel, inputs, step_id=step.step_id, step=step, frame_iter=frame_iter)  # type: ignore[arg-type]
        return item.kernel.run(ctx)  # type: ignore[union-attr]

    def _kernel(
        self,
        node: node_def_pb2.NodeDef,
        op_registry: OpRegistry,
        registry: KernelRegistry | None,
        cache: KernelCache | None,
    ) -> OpKernel:
        op_def = op_registry.get(node.op).op_def
        key = (self.device.name, node.name)
        # Kernels that call library functions run them through this graph's function library: never shared.
        cached = cache is not None and op_def.is_stateful and node.op not in FUNCTIONAL_OPS
        if cached:
            found = cache.get(key)  # type: ignore[union-attr]
            if found is not None and found[0] == node:
                return found[1]
        kernel = create_kernel(node, op_def, self.device, registry, function_library=self._function_library)
        if cached:
            cache[key] = (node, kernel)
        else:
            self._owned.append(kernel)
        return kernel

    def _wire(self, in_types: list[list[int]], out_types: list[list[int]]) -> list[list[tuple[int, int]]]:
        """Per node, its data inputs as (producer id, output index); checks counts and dtypes; fills out edges."""
        items = self._items
        by_name = self._by_name
        inputs: list[list[tuple[int, int]]] = []
        for item in items:
            node = item.node
            slots: list[tuple[int, int]] = []
            for text in node.input:
                src_name, index = node_def_lib.parse_tensor_name(text)
                src = by_name.get(src_name)
                if src is None:
                    raise errors.InvalidArgumentError(node, None, f"Node '{node.name}': Unknown input node '{text}'")
                if index == node_def_lib.CONTROL_SLOT:
                    src.control_out.append(item.id)
                    continue
                produced = out_types[src.id]
                if index >= len(produced):
                    raise errors.InvalidArgumentError(
                        node,
                        None,
                        f"Node '{node.name}': Connecting to invalid output {index} of source node {src_name} "
                        f"which has {len(produced)} outputs.",
                    )
                _check_edge(node, len(slots), text, produced[index], in_types[item.id])
                src.out_edges.append((item.id, len(slots), index))
                slots.append((src.id, index))
            if len(slots) != len(in_types[item.id]):
                raise errors.InvalidArgumentError(
                    node,
                    None,
                    f"Node '{node.name}' has {len(slots)} data inputs, its op expects {len(in_types[item.id])}",
                )
            inputs.append(slots)
        return inputs

    def _choose_call(self, item: _NodeItem) -> None:
        """Pick how a kernel is called: its prepared function directly (a FunctionKernel with one non-list output
        and no list inputs; on the host also Const and Identity), through a context, or asynchronously."""
        kernel = item.kernel
        assert kernel is not None
        if isinstance(kernel, AsyncOpKernel):
            item.kind = _ASYNC
            return
        plumbing = _PLUMBING_KINDS.get(type(kernel))
        if plumbing is not None:
            item.kind = plumbing
            return
        direct = isinstance(kernel, FunctionKernel) or self.device.is_host
        prepare = getattr(kernel, "prepared_call", None) if direct else None
        call = prepare() if prepare is not None else None
        if call is None:
            item.kind = _CONTEXT
            multi = getattr(kernel, "prepared_multi_call", None) if self.device.is_host else None
            expected = kernel._expected_np
            if multi is not None and expected and all(e is not None for e in expected):
                found = multi()
                item.multi = (found, expected) if found is not None else None
            plan_call = getattr(kernel, "plan_call", None) if self.device.is_host else None
            item.plan_call = plan_call() if plan_call is not None else None
            if item.plan_call is not None:
                item.native = _scalar_native_call(item.node.op, item.expected, item.plan_call)
        else:
            item.call = call
            item.kind = _call_kind(item.num_inputs)
            # A numpy kernel of scalar arithmetic or comparisons also gets a C path for 0-d operands (the plan
            # loop in C calls it; Python callers keep ``call``).
            item.native = _scalar_native(call) if self.device.is_host else None

    def _compile_plan(self, out_types: list[list[int]]) -> list[tuple]:
        """Per node: (kind, item, call, first_slot, second_slot, in_slots, take, out_start, out_stop, drop)."""
        base: list[int] = []
        total = 0
        for types in out_types:
            base.append(total)
            total += len(types)
        self._num_slots = total
        last_use: dict[int, int] = {}
        slot_lists: list[list[int]] = []
        for position, inputs in enumerate(self._inputs):
            slots = [base[src] + index for src, index in inputs]
            for slot in slots:
                last_use[slot] = position
            slot_lists.append(slots)
        plan = []
        for position, item in enumerate(self._items):
            slots = slot_lists[position]
            take = tuple(sorted({s for s in slots if last_use[s] == position}))
            start = base[position]
            stop = start + len(out_types[position])
            drop = tuple(s for s in range(start, stop) if s not in last_use)
            first = slots[0] if slots else -1
            second = slots[1] if len(slots) > 1 else -1
            # The plan calls plumbing kernels like any other; a compiled loop runs its LoopPlan (``_run_loop``).
            kind = item.kind if item.kind < _ASYNC or item.kind == _LOOP else _CONTEXT
            call = item.call
            if kind == _CONTEXT and item.plan_call is not None:
                kind, call = _call_kind(item.num_inputs), item.plan_call[0]
            plan.append((kind, item, call, first, second, tuple(slots), take, start, stop, drop))
        return plan

    def _compile_dataflow(self) -> None:
        """Frames, per-frame input slots and initial pending counts, roots (TF's ImmutableExecutorState)."""
        items = self._items
        info = control_flow_info.build_control_flow_info(self.nodes)
        frames: dict[str, _FrameInfo] = {}

        def frame_named(name: str) -> _FrameInfo:
            found = frames.get(name)
            if found is None:
                found = frames[name] = _FrameInfo(name, info.parallel_iterations.get(name, 1))
            return found

        frame_named(control_flow_info.ROOT_FRAME)
        for item in items:
            item.frame = info.frame_of[item.id]
            frame = frame_named(item.frame)
            item.input_start = frame.num_slots
            frame.num_slots += item.num_inputs
            num_control = sum(1 for text in item.node.input if text.startswith("^"))
            # Merge: bit 0 = "no live data input yet", 2 per control input (TF's encoding); others count edges.
            pending = 2 * num_control + 1 if item.is_merge else num_control + item.num_inputs
            frame.positions[item.id] = len(frame.pending)
            frame.pending.append(pending)
            if item.is_enter:
                frame_named(item.enter_frame).input_count += 1
            if not item.node.input:
                self._roots.append(item.id)
        for item in items:
            item.merge_or_trigger_consumers = any(
                items[d].is_merge or items[d].is_control_trigger for d, _, _ in item.out_edges
            ) or any(items[d].is_merge or items[d].is_control_trigger for d in item.control_out)
            item.edges = tuple(
                (items[d], frames[items[d].frame].positions[d], items[d].input_start + slot, output)
                for d, slot, output in item.out_edges
            )
            item.ctrl = tuple((items[d], frames[items[d].frame].positions[d]) for d in item.control_out)
        self._frames = frames
        self._parent_frame = info.parent_of

    # ------------------------------------------------------------------ running

    def start(
        self,
        rendezvous: Rendezvous,
        *,
        step_id: int = 0,
        stats: step_stats_pb2.DeviceStepStats | None = None,
    ) -> ExecutorRun:
        """A run of the plan over ``rendezvous``; call ``advance()`` until it returns True (plan mode only)."""
        if self._plan is None:
            raise errors.InternalError(
                None, None, "Executor.start: this partition runs in dataflow mode; use run or run_async"
            )
        return ExecutorRun(self, StepContext(rendezvous, step_id=step_id, stats=stats))

    def run(
        self,
        rendezvous: Rendezvous | StepContext,
        *,
        step_id: int = 0,
        stats: step_stats_pb2.DeviceStepStats | None = None,
    ) -> None:
        """Run the partition to completion on the calling thread (every tensor its receives need must be sent by
        then, or be sent from other threads); raises the step's error."""
        if isinstance(rendezvous, StepContext):
            step = rendezvous
        else:
            step = StepContext(rendezvous, step_id=step_id, stats=stats)
        if self._plan is not None and step.pool is None:
            run = ExecutorRun(self, step)
            if run.advance():
                return
            raise errors.InternalError(
                None,
                None,
                f"Partition on {self.device.name} is waiting for a tensor that was never sent: {run.waiting_on}",
            )
        waiter = _Waiter()
        if step.runner is None:
            step.runner = waiter.schedule
        self.run_async(step, waiter.done)
        waiter.wait()

    def run_async(self, step: StepContext, done: Callable[[errors.OpError | None], None]) -> None:
        """Start a run; ``done(error or None)`` is called once, when every node finished or the step failed.

        ``step.runner`` must be set: work that becomes ready on another thread (a receive's
        callback, a pool thread) is handed to it.
        """
        if self._plan is not None and not (step.pool is not None and self._has_parallel_work()):
            ExecutorRun(self, step).run_async(done)
            return
        if self._frames is None:
            self._compile_dataflow()
        _DataflowRun(self, step, done).start()

    def call_frame(self) -> CallFrame | None:
        """The plan as a call frame (TF's function call without a rendezvous): its kernels in order, where each
        received tensor is stored and where each sent tensor is read; None in dataflow mode."""
        if self._plan is None:
            return None
        steps: list[tuple[_NodeItem, tuple[int, ...], tuple[int, ...]]] = []
        received: dict[str, int] = {}
        sent: dict[str, int] = {}
        for kind, item, _call, first, _second, in_slots, _take, start, stop, _drop in self._plan:
            if kind == _RECV:
                received[item.transfer.key] = start  # type: ignore[union-attr]
            elif kind == _SEND:
                sent[item.transfer.key] = first  # type: ignore[union-attr]
            else:
                steps.append((item, tuple(in_slots), tuple(range(start, stop))))
        return CallFrame(self, self._num_slots, steps, received, sent)

    def run_item(self, step: StepContext, item: _NodeItem, inputs: list[Any], frame_iter: tuple[int, int]) -> list:
        """Run one synchronous node on ``inputs`` (a call frame's step the C loop hands back); returns its outputs."""
        return self._run_item(step, item, inputs, frame_iter)

    def close(self) -> None:
        """Release the kernels this executor owns (cached stateful kernels belong to the cache's owner)."""
        for kernel in self._owned:
            kernel.close()
        self._owned.clear()

    @property
    def num_nodes(self) -> int:
        """The number of nodes (transfers included)."""
        return len(self._items)

    def _has_parallel_work(self) -> bool:
        """True when two expensive nodes could run at once (neither depends on the other): then a pool helps.

        Until every node's cost is learned (its first runs, measured in CPU time), unmeasured nodes count as
        expensive; then the answer is fixed from the measured costs.
        """
        if self._parallel is not None:
            return self._parallel
        candidates = [item for item in self._items if item.kind != _RECV and _is_expensive(item)]
        expensive = {item.id for item in candidates}
        parallel = len(expensive) >= 2 and _independent_pair(self._items, self._inputs, expensive)
        if not parallel or all(item.cost_samples >= _COST_SAMPLES or item.kind in _UNMEASURED for item in candidates):
            self._parallel = parallel  # learned (or no two candidates can overlap): decided for good
        return parallel

    def _error(self, item: _NodeItem, exc: BaseException, where: str = "") -> errors.OpError:
        """``exc`` as an OpError of the same class naming the node, its op, device and loop iteration (TF's tag).
        A compiled loop's failure names the node inside the loop (when known), its frame and iteration."""
        if isinstance(exc, compiled_loop.LoopStepError):
            item, where, exc = exc.item or item, exc.where, exc.error
        node = item.node
        if isinstance(exc, errors.OpError):
            cls: type[errors.OpError] = type(exc)
            message = exc.message
        else:
            cls = errors.UnknownError
            message = f"{type(exc).__name__}: {exc}"
        tag = f"[[{node_def_lib.format_node_for_error(node)}]]"
        if tag not in message:
            message = f"{message}\n\t {tag} (op {node.op} on {self.device.name}{where})"
        wrapped = cls(node, None, message)
        wrapped.error_code = getattr(exc, "error_code", wrapped.error_code)
        return wrapped


# ============================================================================ the plan


class ExecutorRun:
    """One run of an Executor's plan: the value slots and how far the run got."""

    __slots__ = ("_copying", "_done", "_executor", "_position", "_step", "_token", "_values", "waiting_on")

    def __init__(self, executor: Executor, step: StepContext):
        self._executor = executor
        self._step = step
        self._values: list[Any] = [None] * executor._num_slots
        self._position = 0
        self._done: Callable[[errors.OpError | None], None] | None = None
        self._token: int | None = None
        self._copying: SentTensor | None = None  # a received device tensor to bring to the host asynchronously
        self.waiting_on: str | None = None

    @property
    def done(self) -> bool:
        """True once every node ran."""
        return self._position >= len(self._executor._plan)  # type: ignore[arg-type]

    @property
    def position(self) -> int:
        """How many nodes of the plan have run."""
        return self._position

    def run_async(self, done: Callable[[errors.OpError | None], None]) -> None:
        """Advance now; when a receive has nothing yet, resume from the rendezvous's callback (via the runner)."""
        self._done = done
        self._resume()

    def _resume(self) -> None:
        try:
            finished = self.advance()
        except errors.OpError as exc:
            assert self._done is not None
            self._done(exc)
            return
        assert self._done is not None
        if finished:
            self._done(None)
            return
        if self._copying is not None:  # device to host: wait on the device's event off this thread
            self._resume_copy()
            return
        step = self._step
        runner = step.runner
        assert runner is not None
        key = self.waiting_on
        assert key is not None

        def arrived(sent: SentTensor | None, error: errors.OpError | None) -> None:
            if error is not None:
                runner(lambda: self._done(error))  # type: ignore[misc]
                return
            runner(lambda: self._deliver(sent))  # type: ignore[arg-type]

        step.rendezvous.recv_async(key, arrived)

    def _deliver(self, sent: SentTensor) -> None:
        """The receive the run waits on got its tensor: store it (or start its copy to the host) and go on."""
        transfer = self._executor._plan[self._position][1].transfer  # type: ignore[index]
        if not sent.on_host and transfer.on_host:
            self._copying = sent
            self._resume_copy()
            return
        try:
            value = copy_tensor(sent, transfer.device, transfer.on_host)
        except Exception as exc:  # noqa: BLE001 - a failing copy is the receive's error
            self._store(None, exc)
            return
        self._store(value, None)

    def _resume_copy(self) -> None:
        copying, self._copying = self._copying, None
        runner = self._step.runner
        assert copying is not None and runner is not None
        copying.device.to_host_async(copying.value, lambda value, error: runner(lambda: self._store(value, error)))

    def _store(self, value: Any, error: BaseException | None) -> None:
        """The receive's value arrived in this device's memory (or its copy failed): store it and go on."""
        item = self._executor._plan[self._position][1]  # type: ignore[index]
        if error is not None:
            self._position = len(self._executor._plan)  # type: ignore[arg-type]
            self._done(self._executor._error(item, error))  # type: ignore[misc]
            return
        self._values[self._executor._plan[self._position][7]] = value  # type: ignore[index]
        del value
        self._position += 1
        # Go on in a task of its own: the closure that brought the value would otherwise hold it while the
        # next kernels run, and they could not forward its buffer.
        self._step.runner(self._resume)  # type: ignore[misc]

    def advance(self) -> bool:
        """Run nodes until the plan is done (True) or a ``_Recv`` has nothing yet (False, ``waiting_on`` its key)."""
        if self._step.stats is not None:
            return self._advance_traced()
        executor = self._executor
        plan = executor._plan
        values = self._values
        step = self._step
        rendezvous = step.rendezvous
        cancellation = step.cancellation
        step_id = step.step_id
        fast = executor._fast_plan
        i = self._position
        n = len(plan)  # type: ignore[arg-type]
        try:
            while i < n:
                if fast is not None:  # the direct-call nodes run in C until one needs this loop
                    try:
                        i = fast.run(values, i)
                    except Exception:
                        i = fast.failed_at
                        raise
                    if i >= n:
                        break
                kind, item, call, first, second, in_slots, take, start, stop, drop = plan[i]  # type: ignore[index]
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
                    expected = item.expected
                    if out.dtype is not expected and expected is not None and out.dtype != expected:
                        _raise_dtype_error(item.kernel, out)
                    values[start] = out
                    out = None
                elif kind == _CONTEXT:
                    if cancellation._cancelled:
                        raise errors.CancelledError(None, None, "The step was cancelled")
                    inputs = [values[first]] if len(in_slots) == 1 else [values[s] for s in in_slots]
                    for s in take:
                        values[s] = None
                    ctx = OpKernelContext(item.kernel, inputs, step_id=step_id, step=step)
                    # No local may keep the outputs list: the next kernel could not forward them.
                    if stop - start == 1:
                        values[start] = item.kernel.run(ctx)[0]
                    else:
                        values[start:stop] = item.kernel.run(ctx)
                elif kind == _LOOP:
                    values[start:stop] = self._run_loop(item, in_slots, take)
                elif kind == _SEND:
                    value = values[first]
                    for s in take:
                        values[s] = None
                    transfer = item.transfer
                    rendezvous.send(transfer.key, value, transfer.device, transfer.on_host)
                else:  # _RECV
                    transfer = item.transfer
                    sent = rendezvous.try_recv(transfer.key)
                    if sent is None or (not sent.on_host and transfer.on_host and step.runner is not None):
                        # Not there yet, or a device tensor whose copy to the host is waited for off this thread.
                        self._position = i
                        self.waiting_on = transfer.key
                        self._copying = sent
                        return False
                    values[start] = copy_tensor(sent, transfer.device, transfer.on_host)
                if drop:
                    for s in drop:
                        values[s] = None
                i += 1
        except Exception as exc:
            self._position = n
            raise executor._error(plan[i][1], exc) from exc  # type: ignore[index]
        self._position = n
        self.waiting_on = None
        return True

    def _run_loop(self, item: _NodeItem, in_slots: tuple[int, ...], take: tuple[int, ...]) -> list[Any]:
        """A compiled while loop of the root frame: its Enter values from the slots, its Exit values back."""
        values = self._values
        inputs = [values[s] for s in in_slots]
        for s in take:
            values[s] = None
        step = self._step
        inner = frame_id(0, 0, item.loop.frame)  # type: ignore[union-attr]
        run_item = functools.partial(self._executor._run_item, step)
        return item.loop.run(inputs, inner, step.cancellation, run_item)  # type: ignore[union-attr]

    def _advance_traced(self) -> bool:
        """``advance`` that records TF's NodeExecStats for every node it runs."""
        executor = self._executor
        plan = executor._plan
        values = self._values
        step = self._step
        stats = step.stats
        thread_id = threading.get_native_id()
        i = self._position
        n = len(plan)  # type: ignore[arg-type]
        try:
            while i < n:
                kind, item, _call, first, _b, in_slots, take, start, stop, drop = plan[i]  # type: ignore[index]
                wall = time.time_ns()
                t0 = time.perf_counter_ns()
                transfer = item.transfer
                if kind == _SEND:
                    value = values[first]
                    for s in take:
                        values[s] = None
                    step.rendezvous.send(transfer.key, value, transfer.device, transfer.on_host)
                    del value
                    outputs: list[Any] = []
                elif kind == _RECV:
                    sent = step.rendezvous.try_recv(transfer.key)
                    if sent is None:
                        self._position = i
                        self.waiting_on = transfer.key
                        return False
                    values[start] = copy_tensor(sent, transfer.device, transfer.on_host)
                    outputs = values[start:stop]
                elif kind == _LOOP:
                    outputs = self._run_loop(item, in_slots, take)
                    values[start:stop] = outputs
                else:
                    inputs = [values[s] for s in in_slots]
                    for s in take:
                        values[s] = None
                    ctx = OpKernelContext(item.kernel, inputs, step_id=step.step_id, step=step)
                    del inputs
                    outputs = item.kernel.run(ctx)
                    del ctx
                    values[start:stop] = outputs
                t1 = time.perf_counter_ns()
                _describe_outputs(stats.node_stats.add(), outputs)  # type: ignore[union-attr]
                node_stats = stats.node_stats[-1]  # type: ignore[union-attr]
                for s in drop:
                    values[s] = None
                t2 = time.perf_counter_ns()
                _fill_stats(node_stats, item, executor._labels[item.id], thread_id, wall, t0, t1, t2)
                del outputs  # the next kernel may forward these buffers
                i += 1
        except Exception as exc:
            self._position = n
            raise executor._error(plan[i][1], exc) from exc  # type: ignore[index]
        self._position = n
        self.waiting_on = None
        return True


# ============================================================================ the dataflow machine


class _Iteration:
    """The state of one iteration of one frame instance: pending counts, dead counts, input slots, activity."""

    __slots__ = ("dead", "inputs", "iteration", "outstanding_frames", "outstanding_ops", "pending")

    def __init__(self, iteration: int, info: _FrameInfo):
        self.iteration = iteration
        self.pending = list(info.pending)
        self.dead = [0] * len(info.pending)
        self.inputs: list[Any] = [None] * info.num_slots
        self.outstanding_ops = 0
        self.outstanding_frames = 0


class _Frame:
    """A frame instance: the root frame, or one execution of a while loop inside a parent's iteration."""

    __slots__ = (
        "dead_exits",
        "frame_id",
        "info",
        "invariants",
        "iteration_count",
        "iterations",
        "next_iter_roots",
        "num_outstanding_iterations",
        "num_pending_inputs",
        "parent",
        "parent_iteration",
    )

    def __init__(self, info: _FrameInfo, frame_id: int, parent: _Frame | None, parent_iteration: _Iteration | None):
        self.info = info
        self.frame_id = frame_id
        self.parent = parent
        self.parent_iteration = parent_iteration
        self.iterations: dict[int, _Iteration] = {0: _Iteration(0, info)}
        self.iteration_count = 0
        self.num_outstanding_iterations = 1
        self.num_pending_inputs = info.input_count
        self.dead_exits: list[_NodeItem] = []
        self.next_iter_roots: list[tuple[_NodeItem, Any]] = []
        self.invariants: list[tuple[_NodeItem, Any, bool]] = []  # loop-invariant Enters: (item, value, dead)

    def describe(self, iteration: _Iteration) -> str:
        """`` in frame 'F' iteration N`` for error messages (empty for the root frame)."""
        return f", in frame '{self.info.name}' iteration {iteration.iteration}" if self.info.name else ""


_Tagged = tuple  # (item, frame, iteration, is_dead)


class _DataflowRun:
    """One run of a partition by the dataflow machine (TF's ExecutorState + PropagatorState, one lock).

    All bookkeeping (pending counts, frames, iterations, the outstanding-node count) happens
    under ``_lock``; kernels run outside it. ``_outstanding`` counts nodes that are ready or
    running; the run finishes when it drops to zero.
    """

    def __init__(self, executor: Executor, step: StepContext, done: Callable[[errors.OpError | None], None]):
        self.executor = executor
        self.items = executor._items
        self.step = step
        self.done = done
        self._lock = threading.Lock()
        self._frames: dict[tuple[int, int, str], _Frame] = {}
        self._outstanding = 0
        self._status: errors.OpError | None = None
        self._finished = False
        self._pool = step.pool
        self._token: int | None = None
        self.root = _Frame(executor._frames[control_flow_info.ROOT_FRAME], 0, None, None)  # type: ignore[index]

    # ------------------------------------------------------------------ start and finish

    def start(self) -> None:
        self._token = self.step.cancellation.register(self._cancelled)
        if self._token is None:
            self.done(errors.CancelledError(None, None, "The step was cancelled before it started"))
            return
        root_iteration = self.root.iterations[0]
        ready = [(self.items[i], self.root, root_iteration, False) for i in self.executor._roots]
        with self._lock:
            root_iteration.outstanding_ops = len(ready)
            self._outstanding = len(ready)
            if not ready:
                self._finished = True
        if not ready:
            self._finish()
            return
        inline: deque = deque()
        self._schedule(ready, inline)
        self._process_queue(inline)

    def _cancelled(self) -> None:
        self._fail(errors.CancelledError(None, None, "The step was cancelled"))

    def _fail(self, error: errors.OpError) -> None:
        """Record the step's first error and abort the rendezvous (waiting receives wake with it)."""
        with self._lock:
            if self._status is not None:
                return
            self._status = error
        self.step.rendezvous.abort(
            error if isinstance(error, errors.CancelledError) else errors.CancelledError(None, None, error.message)
        )

    def _finish(self) -> None:
        self.step.cancellation.deregister(self._token)
        self.done(self._status)

    # ------------------------------------------------------------------ scheduling

    def _schedule(self, ready: list[_Tagged], inline: deque | None) -> None:
        """TF's ScheduleReady: cheap and dead nodes inline; of several expensive ones, all but one to the pool."""
        pool = self._pool
        if inline is None:  # from a callback: never recurse into processing on the caller's stack
            submit = pool.submit if pool is not None else self.step.runner
            assert submit is not None
            for tagged in ready:
                submit(lambda t=tagged: self._process(t))
            return
        if pool is None:
            inline.extend(ready)
            return
        expensive = None
        for tagged in ready:
            item = tagged[0]
            if tagged[3] or not _is_expensive(item):
                inline.append(tagged)
            else:
                if expensive is not None:
                    pool.submit(lambda t=expensive: self._process(t))
                expensive = tagged
        if expensive is not None:
            if not inline:
                inline.append(expensive)
            else:
                pool.submit(lambda t=expensive: self._process(t))

    def _process(self, tagged: _Tagged) -> None:
        inline: deque = deque()
        inline.append(tagged)
        self._process_queue(inline)

    def _process_queue(self, inline: deque) -> None:
        """Run ready nodes until the queue is empty (TF's ExecutorState::Process)."""
        stats = self.step.stats
        pool = self._pool
        popleft = inline.popleft
        while inline:
            item, frame, iteration, is_dead = popleft()
            if self._status is not None:
                self._node_done_dropped()
                continue
            kind = item.kind
            if is_dead and kind != _SEND and kind != _RECV:
                outputs = [None] * self.executor._num_outputs[item.id]
            elif kind == _FORWARD:
                slots = iteration.inputs
                start = item.input_start
                outputs = [slots[start]]
                slots[start] = None
            elif kind == _RECV:
                # A tensor already in the rendezvous (a feed, an earlier send) is taken on this thread like a
                # synchronous node, so what it makes ready is scheduled from here (inline or to the pool), not
                # from a callback that would hand all of it to the pool and leave this thread idle.
                try:
                    received = self._recv_now(item, frame, iteration)
                except Exception as exc:  # noqa: BLE001 - an aborted rendezvous or a failing copy fails the node
                    self._fail(self.executor._error(item, exc, frame.describe(iteration)))
                    self._node_done_dropped()
                    continue
                if received is None:
                    continue  # it finishes through its callback
                outputs, is_dead = received
            elif kind == _ASYNC:
                self._start_async(item, frame, iteration, is_dead)
                continue
            else:
                n = item.num_inputs
                slots = iteration.inputs
                start = item.input_start
                inputs = slots[start : start + n]
                slots[start : start + n] = [None] * n
                learn = pool is not None and item.cost_samples < _COST_SAMPLES
                measure = stats is not None or learn
                if measure:
                    t0 = time.perf_counter_ns()
                    wall = time.time_ns()
                    cpu0 = time.thread_time_ns()
                try:
                    if kind <= _CALLN:
                        out = item.call(*inputs)  # type: ignore[misc]
                        inputs.clear()
                        if type(out) is not np.ndarray:
                            out = np.asarray(out)
                        expected = item.expected
                        if out.dtype is not expected and expected is not None and out.dtype != expected:
                            _raise_dtype_error(item.kernel, out)
                        outputs = [out]
                        del out
                    elif kind == _LOOP:
                        inner = frame_id(frame.frame_id, iteration.iteration, item.loop.frame)
                        run_item = functools.partial(self.executor._run_item, self.step)
                        outputs = item.loop.run(inputs, inner, self.step.cancellation, run_item)
                    elif kind == _SWITCH:
                        outputs = _switch(item, inputs)
                    elif kind == _MERGE:
                        outputs = _merge(inputs)
                    elif kind == _SEND:
                        self._send(item, frame, iteration, None if is_dead else inputs[0], is_dead)
                        outputs = []
                    else:  # a kernel with a context
                        outputs = self.executor._run_item(
                            self.step, item, inputs, (frame.frame_id, iteration.iteration)
                        )
                    del inputs
                except Exception as exc:  # noqa: BLE001 - any kernel failure fails the step, named
                    del inputs
                    self._fail(self.executor._error(item, exc, frame.describe(iteration)))
                    self._node_done_dropped()
                    continue
                if measure:
                    t1 = time.perf_counter_ns()
                    if learn:
                        # CPU time of this thread: a pool thread's wait for the GIL is not the kernel's cost.
                        _learn_cost(item, (time.thread_time_ns() - cpu0) * 1e-9)
                    if stats is not None:
                        self._record(item, outputs, wall, t0, t1)
            if item.frame_plain:
                # The common case (not Enter/Exit/NextIteration) inline: TF's fast path of PropagateOutputs.
                ready = []
                with self._lock:
                    if self._status is None:
                        self._activate(item, frame, iteration, outputs, is_dead, ready)
                        iteration.outstanding_ops -= 1
                        if iteration.outstanding_ops == 0:
                            self._cleanup_iterations(frame, iteration, ready)
                        self._outstanding += len(ready) - 1
                        finished = self._outstanding == 0 and not self._finished
                    else:
                        self._outstanding -= 1
                        finished = self._outstanding == 0 and not self._finished
                        ready = []
                    if finished:
                        self._finished = True
                        ready = []
                if finished:
                    self._finish()
            else:
                ready = self._propagate(item, frame, iteration, outputs, is_dead)
            del outputs
            if ready:
                if pool is None:
                    inline.extend(ready)
                else:
                    self._schedule(ready, inline)

    def _send(self, item: _NodeItem, frame: _Frame, iteration: _Iteration, value: Any, is_dead: bool) -> None:
        transfer = item.transfer
        key = transfer.key_for(frame.frame_id, iteration.iteration)  # type: ignore[union-attr]
        self.step.rendezvous.send(key, value, transfer.device, transfer.on_host, is_dead)  # type: ignore[union-attr]

    def _take_inputs(self, item: _NodeItem, iteration: _Iteration) -> list[Any]:
        """Move the node's inputs out of the iteration's slots (so the kernel may forward them)."""
        n = item.num_inputs
        if n == 0:
            return []
        slots = iteration.inputs
        start = item.input_start
        inputs = slots[start : start + n]
        slots[start : start + n] = [None] * n
        return inputs

    # ------------------------------------------------------------------ asynchronous nodes

    def _recv_now(self, item: _NodeItem, frame: _Frame, iteration: _Iteration) -> tuple[list[Any], bool] | None:
        """A receive: its (outputs, is_dead) when the tensor is already there and needs no device-to-host wait;
        else None, and the node finishes through a callback (the tensor's arrival or the device's event)."""
        transfer = item.transfer
        key = transfer.key_for(frame.frame_id, iteration.iteration)  # type: ignore[union-attr]
        sent = self.step.rendezvous.try_recv(key)
        if sent is None:
            self.step.rendezvous.recv_async(key, functools.partial(self._arrived, item, frame, iteration))
            return None
        if sent.is_dead:
            return [None], True
        if not sent.on_host and transfer.on_host:  # type: ignore[union-attr]
            self._arrived(item, frame, iteration, sent, None)
            return None
        return [copy_tensor(sent, transfer.device, transfer.on_host)], False  # type: ignore[union-attr]

    def _arrived(
        self,
        item: _NodeItem,
        frame: _Frame,
        iteration: _Iteration,
        sent: SentTensor | None,
        error: BaseException | None,
    ) -> None:
        """A receive's tensor arrived (or the rendezvous failed): finish the node on this thread."""
        transfer = item.transfer
        if error is not None:
            self._async_done(item, frame, iteration, None, error, False)
            return
        if sent.is_dead:  # type: ignore[union-attr]
            self._async_done(item, frame, iteration, [None], None, True)
            return
        if not sent.on_host and transfer.on_host:  # type: ignore[union-attr]
            # Device to host: wait on the device's event off this thread, not by blocking the step.
            sent.device.to_host_async(  # type: ignore[union-attr]
                sent.value,  # type: ignore[union-attr]
                lambda value, err: self._async_done(item, frame, iteration, [value], err, False),
            )
            return
        try:
            value = copy_tensor(sent, transfer.device, transfer.on_host)  # type: ignore[union-attr]
        except Exception as exc:  # noqa: BLE001 - a failing copy is the receive's error
            self._async_done(item, frame, iteration, None, exc, False)
            return
        self._async_done(item, frame, iteration, [value], None, False)

    def _start_async(self, item: _NodeItem, frame: _Frame, iteration: _Iteration, is_dead: bool) -> None:
        """Start an AsyncOpKernel; its callback finishes the node on whatever thread calls it."""
        inputs = self._take_inputs(item, iteration)
        kernel = item.kernel
        ctx = OpKernelContext(
            kernel,  # type: ignore[arg-type]
            inputs,
            step_id=self.step.step_id,
            step=self.step,
            frame_iter=(frame.frame_id, iteration.iteration),
        )
        del inputs

        def completed() -> None:
            try:
                outputs = kernel.finish(ctx)  # type: ignore[union-attr]
            except Exception as exc:  # noqa: BLE001
                self._async_done(item, frame, iteration, None, exc, False)
                return
            self._async_done(item, frame, iteration, outputs, None, False)

        try:
            kernel.compute_async(ctx, completed)  # type: ignore[union-attr]
        except Exception as exc:  # noqa: BLE001 - a kernel raising instead of calling done
            self._async_done(item, frame, iteration, None, exc, False)

    def _async_done(
        self,
        item: _NodeItem,
        frame: _Frame,
        iteration: _Iteration,
        outputs: list[Any] | None,
        error: BaseException | None,
        is_dead: bool,
    ) -> None:
        if error is not None:
            self._fail(self.executor._error(item, error, frame.describe(iteration)))
            self._node_done_dropped()
            return
        if self._status is not None:
            self._node_done_dropped()
            return
        ready = self._propagate(item, frame, iteration, outputs, is_dead)  # type: ignore[arg-type]
        if ready:
            self._schedule(ready, None)

    # ------------------------------------------------------------------ propagation (TF's PropagatorState)

    def _node_done_dropped(self) -> None:
        """A node finished without propagating (the step failed): count it out, maybe finish the run."""
        with self._lock:
            self._outstanding -= 1
            finished = self._outstanding == 0 and not self._finished
            if finished:
                self._finished = True
        if finished:
            self._finish()

    def _propagate(
        self, item: _NodeItem, frame: _Frame, iteration: _Iteration, outputs: list[Any], is_dead: bool
    ) -> list[_Tagged]:
        """Deliver a finished node's outputs; returns the nodes that became ready (and finishes the run)."""
        ready: list[_Tagged] = []
        with self._lock:
            if self._status is not None:
                self._outstanding -= 1
                finished = self._outstanding == 0 and not self._finished
                if finished:
                    self._finished = True
            else:
                if item.is_enter:
                    child = self._child_frame(frame, iteration, item)
                    child_iteration = child.iterations[0]
                    if item.is_constant_enter:
                        child.invariants.append((item, outputs[0], is_dead))
                        for it in list(child.iterations.values()):
                            self._activate(item, child, it, outputs, is_dead, ready)
                    else:
                        self._activate(item, child, child_iteration, outputs, is_dead, ready)
                    child.num_pending_inputs -= 1
                    self._frame_maybe_done(child, child_iteration, ready)
                    self._decrement(frame, iteration, ready)
                elif item.is_exit:
                    if is_dead or outputs[0] is None:
                        if iteration.iteration == frame.iteration_count:
                            frame.dead_exits.append(item)
                    else:
                        self._activate(item, frame.parent, frame.parent_iteration, outputs, False, ready)  # type: ignore[arg-type]
                    self._decrement(frame, iteration, ready)
                elif item.is_next_iteration:
                    if not (is_dead or outputs[0] is None):
                        self._next_iteration(item, frame, iteration, outputs[0], ready)
                    self._decrement(frame, iteration, ready)
                else:
                    self._activate(item, frame, iteration, outputs, is_dead, ready)
                    self._decrement(frame, iteration, ready)
                self._outstanding += len(ready) - 1
                finished = self._outstanding == 0 and not self._finished
                if finished:
                    self._finished = True
                    ready = []
        if finished:
            self._finish()
        return ready

    def _activate(
        self,
        item: _NodeItem,
        frame: _Frame,
        iteration: _Iteration,
        outputs: list[Any],
        is_dead: bool,
        ready: list[_Tagged],
    ) -> None:
        """Hand outputs to the consumers in ``iteration``; append the ones that became ready (TF's ActivateNodes)."""
        pending = iteration.pending
        slots = iteration.inputs
        before = len(ready)
        if not item.merge_or_trigger_consumers:
            if is_dead:
                dead = iteration.dead
                for dst, p, _slot, _output in item.edges:
                    dead[p] += 1
                    pending[p] -= 1
                    if pending[p] == 0:
                        ready.append((dst, frame, iteration, True))
                for dst, p in item.ctrl:
                    dead[p] += 1
                    pending[p] -= 1
                    if pending[p] == 0:
                        ready.append((dst, frame, iteration, True))
            else:
                dead = iteration.dead
                for dst, p, slot, output in item.edges:
                    value = outputs[output]
                    if value is None:  # an output the kernel left unset (a Switch's other branch): dead
                        dead[p] += 1
                    else:
                        slots[slot] = value
                    pending[p] -= 1
                    if pending[p] == 0:
                        ready.append((dst, frame, iteration, dead[p] > 0))
                for dst, p in item.ctrl:
                    pending[p] -= 1
                    if pending[p] == 0:
                        ready.append((dst, frame, iteration, dead[p] > 0))
            iteration.outstanding_ops += len(ready) - before
            return
        dead = iteration.dead
        for dst, p, slot, output in item.edges:
            value = outputs[output]
            value_dead = is_dead or value is None
            if dst.is_merge:
                if not value_dead:
                    slots[slot] = value
                    count = pending[p]
                    pending[p] = count & ~1
                    if count == 1:
                        ready.append((dst, frame, iteration, False))
                else:
                    dead[p] += 1
                    dst_dead = dead[p] == dst.num_inputs or item.is_enter
                    if pending[p] == 1 and dst_dead:
                        ready.append((dst, frame, iteration, True))
                continue
            if value_dead:
                dead[p] += 1
            else:
                slots[slot] = value
            pending[p] -= 1
            if pending[p] == 0:
                ready.append((dst, frame, iteration, dead[p] > 0 and not dst.is_control_trigger))
        for dst, p in item.ctrl:
            if dst.is_merge:
                pending[p] -= 2
                dst_dead = dead[p] == dst.num_inputs
                if pending[p] == 0 or (pending[p] == 1 and dst_dead):
                    ready.append((dst, frame, iteration, pending[p] == 1))
                continue
            if is_dead:
                dead[p] += 1
            pending[p] -= 1
            if pending[p] == 0:
                ready.append((dst, frame, iteration, dead[p] > 0 and not dst.is_control_trigger))
        iteration.outstanding_ops += len(ready) - before

    def _decrement(self, frame: _Frame, iteration: _Iteration, ready: list[_Tagged]) -> None:
        """One node of ``iteration`` finished: clean up finished iterations and frames."""
        iteration.outstanding_ops -= 1
        if iteration.outstanding_ops == 0:
            self._cleanup_iterations(frame, iteration, ready)

    def _child_frame(self, frame: _Frame, iteration: _Iteration, item: _NodeItem) -> _Frame:
        key = (frame.frame_id, iteration.iteration, item.enter_frame)
        child = self._frames.get(key)
        if child is None:
            info = self.executor._frames[item.enter_frame]  # type: ignore[index]
            child = _Frame(info, frame_id(frame.frame_id, iteration.iteration, item.enter_frame), frame, iteration)
            self._frames[key] = child
            iteration.outstanding_frames += 1
        return child

    def _next_iteration(self, item: _NodeItem, frame: _Frame, iteration: _Iteration, value: Any, ready: list) -> None:
        if iteration.iteration == frame.iteration_count:
            if frame.num_outstanding_iterations == frame.info.parallel_iterations:
                frame.next_iter_roots.append((item, value))  # past parallel_iterations: wait for the oldest
                return
            target = self._increment_iteration(frame, ready)
        else:
            target = frame.iterations[iteration.iteration + 1]
        self._activate(item, frame, target, [value], False, ready)

    def _increment_iteration(self, frame: _Frame, ready: list[_Tagged]) -> _Iteration:
        frame.iteration_count += 1
        target = _Iteration(frame.iteration_count, frame.info)
        frame.iterations[frame.iteration_count] = target
        frame.num_outstanding_iterations += 1
        frame.dead_exits.clear()
        roots, frame.next_iter_roots = frame.next_iter_roots, []
        for root, value in roots:
            self._activate(root, frame, target, [value], False, ready)
        for invariant, value, dead in frame.invariants:
            self._activate(invariant, frame, target, [value], dead, ready)
        return target

    def _iteration_done(self, frame: _Frame, iteration: _Iteration) -> bool:
        if iteration.outstanding_ops == 0 and iteration.outstanding_frames == 0:
            if iteration.iteration == 0:
                return frame.num_pending_inputs == 0
            return (iteration.iteration - 1) not in frame.iterations
        return False

    def _cleanup_iterations(self, frame: _Frame, iteration: _Iteration, ready: list[_Tagged]) -> None:
        """Retire finished iterations (oldest first), start deferred ones, and retire the frame when it is done."""
        current = iteration.iteration
        while current <= frame.iteration_count and self._iteration_done(frame, iteration):
            del frame.iterations[current]
            frame.num_outstanding_iterations -= 1
            current += 1
            if frame.next_iter_roots:
                self._increment_iteration(frame, ready)
            if current <= frame.iteration_count:
                iteration = frame.iterations[current]
        self._frame_maybe_done(frame, None, ready)

    def _frame_maybe_done(self, frame: _Frame, iteration: _Iteration | None, ready: list[_Tagged]) -> None:
        # An Enter that delivered nothing runnable (its consumers wait for more inputs) may still complete the
        # iteration, and the frame, now that the frame's last input arrived.
        if iteration is not None and iteration.outstanding_ops == 0 and self._iteration_done(frame, iteration):
            self._cleanup_iterations(frame, iteration, ready)
            return
        if frame.parent is None or frame.num_pending_inputs != 0 or frame.num_outstanding_iterations != 0:
            return
        parent, parent_iteration = frame.parent, frame.parent_iteration
        assert parent_iteration is not None
        del self._frames[(parent.frame_id, parent_iteration.iteration, frame.info.name)]
        self._propagate_dead_exits(frame, parent, parent_iteration, ready)
        parent_iteration.outstanding_frames -= 1
        if parent_iteration.outstanding_ops == 0:
            self._cleanup_iterations(parent, parent_iteration, ready)

    def _propagate_dead_exits(
        self, frame: _Frame, parent: _Frame, parent_iteration: _Iteration, ready: list[_Tagged]
    ) -> None:
        """A finished loop whose Exits never got a live value: their consumers in the parent get dead inputs."""
        for exit_item in frame.dead_exits:
            self._activate(exit_item, parent, parent_iteration, [None], True, ready)
        frame.dead_exits = []

    # ------------------------------------------------------------------ step stats

    def _record(self, item: _NodeItem, outputs: list[Any], wall: int, t0: int, t1: int) -> None:
        stats = self.step.stats
        with self._lock:
            node_stats = stats.node_stats.add()  # type: ignore[union-attr]
            _describe_outputs(node_stats, outputs)
        _fill_stats(
            node_stats,
            item,
            self.executor._labels[item.id],
            threading.get_native_id(),
            wall,
            t0,
            t1,
            time.perf_counter_ns(),
        )


class _Waiter:
    """The calling thread's side of a step: a queue of closures it runs until ``done`` was called."""

    __slots__ = ("_cond", "_error", "_finished", "_tasks")

    def __init__(self) -> None:
        self._tasks: deque[Callable[[], None]] = deque()
        self._cond = threading.Condition(threading.Lock())
        self._finished = False
        self._error: errors.OpError | None = None

    def schedule(self, task: Callable[[], None]) -> None:
        with self._cond:
            self._tasks.append(task)
            self._cond.notify()

    def done(self, error: errors.OpError | None) -> None:
        with self._cond:
            self._finished = True
            self._error = error
            self._cond.notify()

    def wait(self) -> None:
        """Run scheduled closures until ``done``; raise its error."""
        while True:
            with self._cond:
                while not self._tasks and not self._finished:
                    self._cond.wait()
                if not self._tasks:
                    break
                task = self._tasks.popleft()
            task()
        if self._error is not None:
            raise self._error


# ============================================================================ helpers


_INDEX_VALUES: list[np.ndarray] = []


def _index_value(index: int) -> np.ndarray:
    """A read-only int32 scalar array (Merge's value_index), shared."""
    while len(_INDEX_VALUES) <= index:
        value = np.asarray(len(_INDEX_VALUES), np.int32)
        value.flags.writeable = False
        _INDEX_VALUES.append(value)
    return _INDEX_VALUES[index]


def _switch(item: _NodeItem, inputs: list[Any]) -> list[Any]:
    """Switch: the data to ``output_true`` when the predicate holds, else to ``output_false``; the other is dead."""
    pred = inputs[1]
    if np.ndim(pred) != 0:
        raise errors.InvalidArgumentError(
            item.node, None, f"The second input must be a scalar, but it has shape {list(np.shape(pred))}"
        )
    return [None, inputs[0]] if pred else [inputs[0], None]


def _merge(inputs: list[Any]) -> list[Any]:
    """Merge: the live input and its index (the dataflow machine runs a Merge when its first one arrived)."""
    for index, value in enumerate(inputs):
        if value is not None:
            return [value, _index_value(index)]
    raise errors.InternalError(None, None, "Merge ran without a live input")


def _fast_plan(plan: list[tuple]) -> Any:
    """The plan's direct-call nodes for the C loop (``runtime._plan_runner``), or None without the extension."""
    try:
        from modtensor.runtime import _plan_runner  # type: ignore[attr-defined]
    except ImportError:
        return None
    steps = []
    for kind, item, call, _first, _second, in_slots, take, start, stop, drop in plan:
        if kind == _CONTEXT and item.multi is not None and len(item.multi[1]) == stop - start:
            steps.append((item.multi[0], item.multi[1], in_slots, take, tuple(range(start, stop)), drop, None))
            continue
        direct = call if kind <= _CALLN and stop - start == 1 else None
        native = item.native if direct is not None else None
        steps.append((direct, item.expected, in_slots, take, start, drop, native))
    return _plan_runner.Plan(steps)


_SCALAR_CALLS: dict[Any, tuple[Any, Any]] = {}  # kernel function -> (SCALAR_CALL, its ScalarOp)


def _scalar_native(call: Callable[..., Any]) -> tuple[Any, Any] | None:
    """``(SCALAR_CALL, ScalarOp)`` when ``call`` is a kernel function marked ``scalar_op`` (the numpy elementwise
    kernels of kernels/cpu that the C plan loop can compute on 0-d operands itself, csrc/plan/scalar_ops.c: the
    counters and predicates of while loops), else None."""
    name = getattr(call, "scalar_op", None)
    if name is None:
        return None
    found = _SCALAR_CALLS.get(call)
    if found is None:
        try:
            from modtensor.runtime import _plan_runner  # type: ignore[attr-defined]
        except ImportError:
            return None
        code = getattr(_plan_runner, "SCALAR_OPS", {}).get(name)
        if code is None:
            return None
        found = _SCALAR_CALLS[call] = (_plan_runner.SCALAR_CALL, _plan_runner.ScalarOp(code, call))
    return found


# The built-in native CPU kernels that are plain IEEE float32 arithmetic on 0-d operands (csrc/cpu_kernels/binary.c).
_NATIVE_SCALAR_OPS = {"AddV2": "add", "Add": "add", "Sub": "sub", "Mul": "mul"}


def _scalar_native_call(op: str, expected: Any, plan_call: tuple[Callable[..., Any], Any]) -> Any:
    """The C entry point of a native kernel's ``plan_call`` for the C plan loops, with 0-d float32 operands
    computed there (the same operation; the kernel C API's traffic costs ~1 us for 4 bytes); larger operands
    still go to the kernel's entry point, with the arguments the caller gives up."""
    name = _NATIVE_SCALAR_OPS.get(op)
    if name is None or expected != np.float32:
        return plan_call[1]
    try:
        from modtensor.runtime import _plan_runner  # type: ignore[attr-defined]
    except ImportError:
        return plan_call[1]
    call, native = plan_call
    if native is None or not hasattr(_plan_runner, "ScalarOp"):
        return native
    return _plan_runner.SCALAR_CALL, _plan_runner.ScalarOp(_plan_runner.SCALAR_OPS[name], call, native)


def _call_kind(num_inputs: int) -> int:
    return _CALL1 if num_inputs == 1 else _CALL2 if num_inputs == 2 else _CALLN


def _is_expensive(item: _NodeItem) -> bool:
    cost = item.cost
    return cost is None or cost > _EXPENSIVE_SECONDS


def _learn_cost(item: _NodeItem, seconds: float) -> None:
    """Keep the least CPU time of the kernel's first runs after its very first, so cheap kernels stop going to the
    pool. The very first run pays one-time work (numpy's lazy setup, packing constant weights, cold caches) and any
    run can be stretched by preemption, neither of which the next runs repeat: hence no average."""
    item.cost_samples += 1
    if item.cost_samples > 1:
        cost = item.cost
        item.cost = seconds if cost is None else min(cost, seconds)


def _independent_pair(items: list[_NodeItem], inputs: list[list[tuple[int, int]]], candidates: set[int]) -> bool:
    """True when two ``candidates`` are unordered (neither reaches the other).

    Ancestor sets (as bit masks over the candidates) in topological order; if every candidate
    is an ancestor of the next one, the candidates form a chain and no two can overlap.
    """
    ordered = [item.id for item in items if item.id in candidates]  # items are in topological order
    bit = {node_id: 1 << k for k, node_id in enumerate(ordered)}
    control_in: list[list[int]] = [[] for _ in items]
    for item in items:
        for dst in item.control_out:
            control_in[dst].append(item.id)
    ancestors = [0] * len(items)
    for item in items:
        mask = 0
        for src, _index in inputs[item.id]:
            mask |= ancestors[src] | bit.get(src, 0)
        for src in control_in[item.id]:
            mask |= ancestors[src] | bit.get(src, 0)
        ancestors[item.id] = mask
    return any(not ancestors[b] & bit[a] for a, b in zip(ordered, ordered[1:], strict=False))


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


def _raise_dtype_error(kernel: OpKernel | None, out: np.ndarray) -> None:
    """The check ``OpKernel.run`` makes, for kernels the executor calls directly."""
    assert kernel is not None
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


def _fill_stats(
    node_stats: step_stats_pb2.NodeExecStats,
    item: _NodeItem,
    label: str,
    thread_id: int,
    wall: int,
    t0: int,
    t1: int,
    t2: int,
) -> None:
    node_stats.node_name = item.name
    node_stats.timeline_label = label
    node_stats.thread_id = thread_id
    node_stats.all_start_micros, node_stats.all_start_nanos = wall // 1000, wall
    node_stats.op_start_rel_micros, node_stats.op_start_rel_nanos = 0, 0
    node_stats.op_end_rel_micros, node_stats.op_end_rel_nanos = (t1 - t0) // 1000, t1 - t0
    node_stats.all_end_rel_micros, node_stats.all_end_rel_nanos = (t2 - t0) // 1000, t2 - t0


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

