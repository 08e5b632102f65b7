"""Graph execution: compile a GraphDef for given feeds, fetches and targets once, then run it many times.

``compile_graph`` does what TensorFlow's DirectSession does per signature:

1. prune the graph to what the fetches and targets need, with fed tensors cutting
   their edges (a fed Placeholder never runs; its control edges move to the feed);
2. add a client-terminated ``_Recv`` per feed (``_recv_NAME_I``) and ``_Send`` per
   fetch (``_send_NAME_I``) on the client device (CPU:0), as TF's subgraph rewrite does;
3. lower functional control flow (``grappler/passes/lower_functional_ops.py``, TF's
   LowerFunctionalOpsPass) where it is marked for it and the executor runs v1 control
   flow, then optimize (grappler);
4. place (``placer.place``), partition per device (``partitioner.partition``, which adds
   the control loops of while loops spanning devices) and build one ``Executor`` per
   partition (all in dataflow mode when any partition has control flow: dead values can
   cross partitions); kernels that call library functions get a ``FunctionLibraryRuntime``
   (``runtime/function_library.py``) of the graph's library.

With the graph optimizer on, TensorFlow's order comes first: the nodes the fetches need are
placed, the meta-optimizer (built-in passes, then plugin optimizers) runs on that placed
graph with the user's fetches and feeds (plugins see assigned devices and ``z:0``, not
``_send_z_0``), and steps 1-3 then run on its result (nodes it added get placed there).

``CompiledGraph.run`` puts the feeds into a fresh rendezvous, runs every partition and
takes the fetches out. One partition in plan mode runs straight on the calling thread.
Otherwise the partitions start together (``Executor.run_async``) and the calling thread
runs the work handed back to it (a receive's tensor arriving, a plan resuming) until
every partition is done; with more than one inter-op thread, expensive independent
nodes also run on the inter-op pool. A step can be cancelled from another thread
(``cancel``, or ``timeout`` seconds): it then fails with CancelledError /
DeadlineExceededError promptly.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

import numpy as np

import modtensor.ops  # noqa: F401  (registers the standard ops and the transfer ops)
from modtensor.framework import dtypes, errors
from modtensor.framework import node_def as node_def_lib
from modtensor.framework.device_spec import DeviceSpec
from modtensor.framework.op_registry import global_registry
from modtensor.framework.protos import graph_pb2, node_def_pb2, step_stats_pb2
from modtensor.runtime import device_factory, inter_op
from modtensor.runtime.cancellation import CancellationManager
from modtensor.runtime.device import Device, DeviceSet
from modtensor.runtime.executor import Executor, ExecutorRun, KernelCache, StepContext
from modtensor.runtime.kernel_registry import KernelRegistry
from modtensor.runtime.partitioner import memory_types, partition, set_transfer_attrs, transfer_key
from modtensor.runtime.placer import place
from modtensor.runtime.rendezvous import LocalRendezvous, copy_tensor

__all__ = ["CompiledGraph", "ExecutionOptions", "compile_graph", "host_evaluator", "normalize_tensor_name"]

_STEP_IDS = itertools.count(1)
# Steps timed each way before a straight-line partition picks the inter-op pool or inline (CompiledGraph._use_pool).
_POOL_TRIALS = 3


@dataclass
class ExecutionOptions:
    """How a graph is placed and run (the parts of TF's ConfigProto/RunOptions that apply)."""

    allow_soft_placement: bool = False
    log_device_placement: bool = False
    collect_step_stats: bool = False  # every run records StepStats into CompiledGraph.last_step_stats
    log_stream: TextIO | None = None  # where placement lines go (stdout when None, as TF's printf)
    default_device: str | None = None  # preferred where allowed (TF's default_local_device), e.g. "/device:CPU:0"
    rewrite_options: Any = None  # a RewriterConfig for the graph optimizer; None: config.optimizer's options
    optimize_graph: bool = True  # False skips the graph optimizer (its own constant-folding evaluations)
    inter_op_threads: int = 0  # nodes of a step that may run at once (0: the process setting, then the cores)
    compile_loops: bool = True  # simple while loops run as compiled plans (False: all on the dataflow machine)
    fetches_on_device: bool = False  # fetches stay on the device that produced them (functions); else host arrays
    # Functional control flow (If/Case/While with `_lower_using_switch_merge`) lowered to v1 control flow before
    # placement (TF's LowerFunctionalOpsPass): None = when the executor runs v1 control flow (kernels for Merge,
    # Switch, ...); False = never (ConfigProto.experimental.disable_functional_ops_lowering). The pass always
    # checks what it would build, so its errors (a non-bool predicate) are TF's either way.
    lower_control_flow: bool | None = None
    lower_function_calls: bool = False  # also inline every function call (TF's do_function_inlining)


def normalize_tensor_name(name: str) -> str:
    """``"x"`` -> ``"x:0"``; ``"x:1"`` unchanged. ValueError for a control name ``"^x"``."""
    if name.startswith("^"):
        raise ValueError(f"'{name}' names a control dependency, not a tensor")
    node, index = node_def_lib.parse_tensor_name(name)
    return f"{node}:{index}"


def compile_graph(
    graph_def: graph_pb2.GraphDef,
    feeds: Sequence[str],
    fetches: Sequence[str],
    targets: Sequence[str] = (),
    options: ExecutionOptions | None = None,
    device_set: DeviceSet | None = None,
    *,
    kernel_cache: KernelCache | None = None,
    registry: KernelRegistry | None = None,
    feed_devices: Sequence[Device | None] | None = None,
    function_library: Any = None,
) -> CompiledGraph:
    """Prune, place, partition and build executors for one (feeds, fetches, targets) signature.

    ``feeds``/``fetches`` are tensor names (``":0"`` optional), ``targets`` node names.
    ``kernel_cache`` lets stateful kernels (random ops) live across compiles, as in a
    TF session. ``feed_devices`` (one per feed, None: the host) says where each fed value
    lives: its receive is placed there, so a device value is not copied through the host
    (TF's function argument devices). Unknown names raise NotFoundError; placement and
    kernel errors raise here, naming the node. ``function_library`` is the FunctionLibraryRuntime
    the kernels call library functions through; by default the compiled graph makes (and owns)
    one for the graph's library.
    """
    options = options or ExecutionOptions()
    devices = device_set if device_set is not None else device_factory.device_set()
    client = devices.client_device
    feed_names = tuple(normalize_tensor_name(f) for f in feeds)
    fetch_names = tuple(normalize_tensor_name(f) for f in fetches)
    target_names = tuple(t.lstrip("^") for t in targets)
    if len(set(feed_names)) != len(feed_names):
        raise errors.InvalidArgumentError(None, None, f"A tensor is fed more than once: {list(feed_names)}")
    # TF's PRE_PLACEMENT LowerFunctionalOpsPass: functional control flow marked for it becomes v1 control flow.
    graph_def = _lower_functional_ops(graph_def, options, registry)
    default = _resolve_device(devices, options.default_device) if options.default_device else None
    optimization = None
    if options.optimize_graph and (fetch_names or target_names):
        # TensorFlow's order: place the graph, run the meta-optimizer (built-in passes, then plugin
        # optimizers) on the whole placed graph with the user's fetches and feeds, then rewrite the
        # result for execution (feeds and fetches become client transfers) and place what was added.
        needed = _Pruner(graph_def, feed_names, fetch_names, target_names, client).needed_graph()
        # When some node has no kernel before optimization (a call op the function inliner removes),
        # the unplaced graph is optimized; the placement after it reports what is still wrong.
        with contextlib.suppress(errors.OpError):
            needed = place(
                needed,
                devices,
                allow_soft_placement=options.allow_soft_placement,
                default_device=default,
                registry=registry,
            ).graph_def
        optimization = _optimize(needed, feed_names, fetch_names, target_names, options, devices)
        graph_def = _in_original_order(optimization.graph_def, needed)
    pruned = _Pruner(graph_def, feed_names, fetch_names, target_names, client, feed_devices).run()
    placement = place(
        pruned.graph_def,
        devices,
        allow_soft_placement=options.allow_soft_placement,
        log_device_placement=options.log_device_placement,
        log_stream=options.log_stream,
        default_device=default,
        assigned=pruned.assigned,
        registry=registry,
    )
    placed = placement.graph_def
    if options.fetches_on_device:
        placed = _fetches_next_to_producers(placed, pruned, devices, registry)
    partitioning = partition(placed, devices, registry=registry)
    owned_library = None
    if function_library is None and placed.library.function:
        from modtensor.runtime.function_library import FunctionLibraryRuntime

        function_library = owned_library = FunctionLibraryRuntime(placed.library, devices, options, registry=registry)
    executors = []
    try:
        for name, partition_graph in partitioning.graphs.items():
            device = devices.lookup(name)
            assert device is not None
            executors.append(
                Executor(
                    partition_graph,
                    device,
                    registry=registry,
                    kernel_cache=kernel_cache,
                    compile_loops=options.compile_loops,
                    function_library=function_library,
                )
            )
        # Dead values may reach any partition through its receives once one partition has control flow left
        # after its simple loops were compiled (a compiled loop only ever sends live values).
        if any(executor.has_control_flow for executor in executors):
            for executor in executors:
                executor.require_dataflow()
    except BaseException:
        for executor in executors:
            executor.close()
        if owned_library is not None:
            owned_library.close()
        raise
    compiled = CompiledGraph(
        feed_names,
        fetch_names,
        target_names,
        pruned,
        executors,
        list(partitioning.graphs.values()),
        client,
        options,
        placement.log,
    )
    compiled.optimization = optimization
    compiled._function_library = owned_library
    return compiled


class CompiledGraph:
    """A graph compiled for one (feeds, fetches, targets) signature; ``run`` it any number of times."""

    def __init__(
        self,
        feed_names: tuple[str, ...],
        fetch_names: tuple[str, ...],
        target_names: tuple[str, ...],
        pruned: _Pruned,
        executors: list[Executor],
        partition_graphs: list[graph_pb2.GraphDef],
        client: Device,
        options: ExecutionOptions,
        placement_log: tuple[str, ...],
    ):
        self.feed_names = feed_names
        self.fetch_names = fetch_names
        self.target_names = target_names
        self.partition_graphs = partition_graphs
        self.placement_log = placement_log
        self.options = options
        self.last_step_stats: step_stats_pb2.StepStats | None = None
        self.optimization: Any = None  # the graph optimizer's OptimizationResult (per-pass statistics), if it ran
        self._executors = executors
        self._client = client
        # Step wall times (seconds) of a straight-line partition with independent expensive nodes, run on the
        # inter-op pool and inline, until one way is chosen (``_pool_choice``): see ``_use_pool``.
        self._pool_trials: dict[bool, list[float]] = {True: [], False: []}
        self._pool_choice: bool | None = None
        # (feed index, rendezvous key, numpy dtype or None, device the value is on) of each feed this signature reads.
        self._feeds = [
            (i, key, dtype if pruned.feed_devices[i].is_host else None, pruned.feed_devices[i])
            for i, (key, dtype) in enumerate(zip(pruned.feed_keys, pruned.feed_types, strict=True))
            if key is not None
        ]
        self._fetch_sources = pruned.fetch_sources
        self._function_library: Any = None  # the FunctionLibraryRuntime this graph made (closed with it)

    @property
    def devices(self) -> list[str]:
        """The full names of the devices the partitions run on."""
        return [e.device.name for e in self._executors]

    def run_placed(
        self,
        feed_values: Sequence[Any],
        *,
        cancellation: CancellationManager | None = None,
        timeout: float | None = None,
    ) -> list[tuple[Any, Device]]:
        """``run``, but each fetch as (value, device): with ``options.fetches_on_device`` a value stays in the
        memory of the device that produced it (what a function returns), else it is a host array on the client.
        Feeds are values of the devices given to ``compile_graph`` (``feed_devices``)."""
        return self.run(feed_values, cancellation=cancellation, timeout=timeout, placed=True)

    def run(
        self,
        feed_values: Sequence[Any],
        step_stats: step_stats_pb2.StepStats | None = None,
        *,
        cancellation: CancellationManager | None = None,
        timeout: float | None = None,
        placed: bool = False,
    ) -> list[Any]:
        """Run once: feeds in ``feed_names`` order; returns the fetches (host numpy arrays) in ``fetch_names`` order.

        With ``step_stats`` (or ``options.collect_step_stats``) every node's timing is
        recorded, one DeviceStepStats per partition. ``cancellation.cancel()`` from another
        thread stops the step with CancelledError; after ``timeout`` seconds it stops with
        DeadlineExceededError (TF's ``RunOptions.timeout_in_ms``).
        """
        if len(feed_values) != len(self.feed_names):
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Expected {len(self.feed_names)} feed values ({list(self.feed_names)}), got {len(feed_values)}",
            )
        if step_stats is None and self.options.collect_step_stats:
            step_stats = self.last_step_stats = step_stats_pb2.StepStats()
        rendezvous = LocalRendezvous()
        for index, key, expected, device in self._feeds:
            value = feed_values[index]
            if expected is not None and getattr(value, "dtype", expected) != expected:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Feed {self.feed_names[index]} has dtype {value.dtype}, expected {expected}; "
                    "convert the value before feeding it",
                )
            rendezvous.send(key, value, device, device.is_host)
        step_id = next(_STEP_IDS)
        executors = self._executors
        pool = inter_op.pool_for(inter_op.effective_threads(self.options.inter_op_threads))
        cancellation = cancellation if cancellation is not None else CancellationManager()
        deadline = _Deadline(cancellation, timeout) if timeout is not None else None
        try:
            single = executors[0] if len(executors) == 1 and not executors[0].dataflow else None
            trial = None
            if single is not None and pool is not None and single._has_parallel_work():
                trial = self._use_pool(single)
                if not trial:
                    pool = None
            started = time.perf_counter() if trial is not None else 0.0
            if single is not None and (pool is None or not single._has_parallel_work()):
                # The fast path: one straight-line partition, run on this thread.
                stats = None if step_stats is None else step_stats.dev_stats.add(device=executors[0].device.name)
                step = StepContext(rendezvous, step_id=step_id, cancellation=cancellation, stats=stats)
                run = ExecutorRun(executors[0], step)
                if not run.advance():
                    raise errors.InternalError(None, None, f"Fetch {run.waiting_on} was not produced")
            else:
                self._run_partitions(rendezvous, step_id, step_stats, pool, cancellation)
            if trial is not None and self._pool_choice is None:
                self._record_pool_trial(trial, time.perf_counter() - started)
        except errors.CancelledError as exc:
            if deadline is not None and deadline.expired:
                raise errors.DeadlineExceededError(
                    None, None, f"Timed out after {timeout}s: the step did not finish in time"
                ) from exc
            raise
        finally:
            if deadline is not None:
                deadline.stop()
        return self._take_fetches(rendezvous, feed_values, placed)

    def _use_pool(self, single: Executor) -> bool:
        """Whether this step of a straight-line partition with independent expensive nodes uses the inter-op pool.

        While the executor still learns its nodes' costs it does. Then steps alternate between the pool and
        inline, _POOL_TRIALS of each, and the faster way (median wall time; the pool must win by 10%) is kept:
        handing nodes to another thread costs GIL handoffs, and kernels that already use every core (the native
        library's intra-op threads) gain nothing from running side by side, so which is faster depends on the
        graph and the machine.
        """
        if self._pool_choice is not None:
            return self._pool_choice
        if single._parallel is None:
            return True  # still learning costs (measured on pool runs)
        trials = self._pool_trials
        return len(trials[True]) < len(trials[False])

    def _record_pool_trial(self, pooled: bool, seconds: float) -> None:
        trials = self._pool_trials
        trials[pooled].append(seconds)
        if len(trials[True]) >= _POOL_TRIALS and len(trials[False]) >= _POOL_TRIALS:
            pooled_time = sorted(trials[True])[_POOL_TRIALS // 2]
            inline_time = sorted(trials[False])[_POOL_TRIALS // 2]
            self._pool_choice = pooled_time < 0.9 * inline_time

    def _run_partitions(
        self,
        rendezvous: LocalRendezvous,
        step_id: int,
        step_stats: step_stats_pb2.StepStats | None,
        pool: inter_op.InterOpPool | None,
        cancellation: CancellationManager,
    ) -> None:
        """Start every partition and run the work they hand back on this thread until all are done."""
        step = _Step(len(self._executors))
        token = cancellation.register(
            lambda: rendezvous.abort(errors.CancelledError(None, None, f"Step {step_id} was cancelled"))
        )
        try:
            for executor in self._executors:
                stats = None if step_stats is None else step_stats.dev_stats.add(device=executor.device.name)
                context = StepContext(
                    rendezvous,
                    step_id=step_id,
                    cancellation=cancellation,
                    runner=step.schedule,
                    pool=pool,
                    stats=stats,
                )
                executor.run_async(context, step.partition_done)
            error = step.wait()
        finally:
            cancellation.deregister(token)
        if error is not None:
            rendezvous.abort(errors.CancelledError(None, None, f"Step {step_id} failed: {error.message}"))
            raise error

    def _take_fetches(self, rendezvous: LocalRendezvous, feed_values: Sequence[Any], placed: bool) -> list[Any]:
        results = []
        received: dict[str, Any] = {}
        client = self._client
        for source in self._fetch_sources:
            if isinstance(source, int):
                fed = feed_values[source]
                results.append((fed, self._feed_device(source)) if placed else fed)
                continue
            value = received.get(source)
            if value is None:
                sent = rendezvous.try_recv(source)
                if sent is None:
                    raise errors.InternalError(None, None, f"Fetch {source} was not produced")
                if sent.is_dead:  # TF's text; the tensor came from the untaken branch of a conditional
                    raise errors.InvalidArgumentError(None, None, f"Retval[{len(results)}] does not have value")
                if placed and not sent.on_host:
                    value = (sent.value, sent.device)
                else:
                    host = copy_tensor(sent, client, True)
                    value = (host, client) if placed else host
                received[source] = value
            results.append(value)
        return results

    def _feed_device(self, index: int) -> Device:
        return next((device for i, _key, _dtype, device in self._feeds if i == index), self._client)

    def close(self) -> None:
        """Release the kernels of every partition (and the function library this graph made)."""
        for executor in self._executors:
            executor.close()
        self._executors = []
        if self._function_library is not None:
            self._function_library.close()
            self._function_library = None


def _optimize(
    placed: graph_pb2.GraphDef,
    feeds: tuple[str, ...],
    fetches: tuple[str, ...],
    targets: tuple[str, ...],
    options: ExecutionOptions,
    devices: DeviceSet,
) -> Any:
    """The graph optimizer's result for the placed graph (grappler, imported on first use).

    As TensorFlow's GrapplerItem: the fetches are the user's tensors, the fed tensors and the
    targets are kept; nodes carry their assigned devices. Constant folding evaluates through
    ``host_evaluator`` (CPU, no optimization).
    """
    from modtensor.grappler import config as grappler_config
    from modtensor.grappler import meta_optimizer
    from modtensor.grappler.item import GrapplerItem

    rewrite = options.rewrite_options
    if rewrite is None:
        rewrite = grappler_config.experimental_rewriter_config()
    item = GrapplerItem(
        placed,
        feeds=feeds,
        fetches=fetches,
        nodes_to_preserve=frozenset(targets),
        device_types=tuple(sorted({d.device_type for d in devices})),
    )
    return meta_optimizer.optimize(item, rewrite, host_evaluator=host_evaluator(devices))


def _in_original_order(optimized: graph_pb2.GraphDef, original: graph_pb2.GraphDef) -> graph_pb2.GraphDef:
    """The optimized graph with the nodes that were in ``original`` back in its order (added nodes stay
    after the node the optimizer put them behind).

    Executors run nodes in GraphDef order where the dependencies allow, as TensorFlow's executor
    follows node ids. Keeping the user's order matters for plugins whose kernels write in place
    through aliases they assume are read first (ITEX marks a Softmax after a Reshape ``is_inplace``).
    """
    position = {node.name: i for i, node in enumerate(original.node)}
    keys = []
    last = -1.0
    for i, node in enumerate(optimized.node):
        if node.name in position:
            last = float(position[node.name])
        keys.append((last, node.name not in position, i))
    order = sorted(range(len(optimized.node)), key=keys.__getitem__)
    if order == list(range(len(optimized.node))):
        return optimized
    out = graph_pb2.GraphDef()
    out.CopyFrom(optimized)
    del out.node[:]
    out.node.extend(optimized.node[i] for i in order)
    return out


def _fetches_next_to_producers(
    graph_def: graph_pb2.GraphDef, pruned: _Pruned, devices: DeviceSet, registry: KernelRegistry | None
) -> graph_pb2.GraphDef:
    """Move each fetch's client ``_Send`` onto the device of the node it reads when that output is in the
    device's own memory: the fetched value then stays where it was produced (a function's outputs, as TF's
    ``_Retval`` nodes on their producers' devices); host-memory outputs are fetched on the client."""
    nodes = {n.name: n for n in graph_def.node}
    sends = {name for name in pruned.client_nodes if nodes[name].op == "_Send"}
    if not sends:
        return graph_def
    out = graph_pb2.GraphDef()
    out.CopyFrom(graph_def)
    for node in out.node:
        if node.name not in sends:
            continue
        source, index = node_def_lib.parse_tensor_name(node.input[0])
        producer = nodes[source]
        device = devices.lookup(producer.device)
        if device is None or device.is_host:
            continue
        if not memory_types(producer, device, registry)[1][index]:
            node.device = device.name
    return out


def _lower_functional_ops(
    graph_def: graph_pb2.GraphDef, options: ExecutionOptions, registry: KernelRegistry | None
) -> graph_pb2.GraphDef:
    """The graph with functional control flow lowered when options and executor allow (module docstring)."""
    if options.lower_control_flow is False and not options.lower_function_calls:
        return graph_def
    from modtensor.grappler.passes import lower_functional_ops as lowering

    if not lowering.needs_lowering(graph_def, options.lower_function_calls):
        return graph_def
    lowered = lowering.lower_functional_ops(
        graph_def,
        keep_lowered_nodes_fetchable=True,
        lower_function_calls=options.lower_function_calls,
        functional_control_flow=options.lower_control_flow is False,
    )
    if options.lower_control_flow is None and not executor_runs_v1_control_flow(registry):
        return graph_def  # checked; the functional kernels run it
    return lowered


def executor_runs_v1_control_flow(registry: KernelRegistry | None = None) -> bool:
    """Whether v1 control flow can run here: the executor's Switch/Merge/Enter/... have kernels (CPU or DEFAULT)."""
    from modtensor.runtime.kernel_registry import DEFAULT_DEVICE_TYPE, global_kernel_registry

    registry = registry if registry is not None else global_kernel_registry()
    return all(
        any(k.kernel_def.device_type in ("CPU", DEFAULT_DEVICE_TYPE) for k in registry.kernels_for_op(op))
        for op in ("Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond", "_SwitchN")
    )


def host_evaluator(devices: DeviceSet | None = None) -> Any:
    """Runs a small graph on the host CPU without optimization: the constant folder's evaluator."""
    devices = devices if devices is not None else device_factory.device_set()

    def evaluate(graph_def: graph_pb2.GraphDef, fetches: Sequence[str]) -> list[Any]:
        options = ExecutionOptions(allow_soft_placement=True, default_device="/device:CPU:0", optimize_graph=False)
        compiled = compile_graph(graph_def, (), fetches, options=options, device_set=devices)
        try:
            return compiled.run([])
        finally:
            compiled.close()

    return evaluate


def _resolve_device(devices: DeviceSet, spec: str) -> Device:
    """The first device of ``devices`` matching ``spec`` (index 0 when unset); InvalidArgumentError if none."""
    parsed = DeviceSpec.from_string(spec if spec.startswith("/") else "/" + spec)
    if parsed.device_index is None and parsed.device_type is not None:
        parsed = parsed.replace(device_index=0)
    found = devices.find(parsed)
    if not found:
        names = ", ".join(d.name for d in devices)
        raise errors.InvalidArgumentError(None, None, f"Unknown default device '{spec}'. Available devices: [{names}]")
    return found[0]


class _Deadline:
    """Cancels a step when ``timeout`` seconds pass (TF's RunOptions.timeout_in_ms)."""

    __slots__ = ("_timer", "expired")

    def __init__(self, cancellation: CancellationManager, timeout: float):
        self.expired = False

        def fire() -> None:
            self.expired = True
            cancellation.cancel()

        self._timer = threading.Timer(timeout, fire)
        self._timer.daemon = True
        self._timer.start()

    def stop(self) -> None:
        """The step finished: the timer is not needed any more."""
        self._timer.cancel()


class _Step:
    """The calling thread's side of a multi-partition step: closures handed back to it, and completion."""

    __slots__ = ("_cond", "_error", "_remaining", "_tasks")

    def __init__(self, num_partitions: int):
        self._tasks: deque[Callable[[], None]] = deque()
        self._cond = threading.Condition(threading.Lock())
        self._remaining = num_partitions
        self._error: errors.OpError | None = None

    def schedule(self, task: Callable[[], None]) -> None:
        """Run ``task`` on the calling thread (any thread may hand work back)."""
        with self._cond:
            self._tasks.append(task)
            self._cond.notify()

    def partition_done(self, error: errors.OpError | None) -> None:
        """A partition finished (with its error, if it failed)."""
        with self._cond:
            self._remaining -= 1
            if error is not None and self._error is None:
                self._error = error
            self._cond.notify()

    def wait(self) -> errors.OpError | None:
        """Run handed-back work until every partition is done; the first error, if any."""
        tasks = self._tasks
        cond = self._cond
        while True:
            with cond:
                while not tasks and self._remaining > 0:
                    cond.wait()
                if not tasks:
                    return self._error
                task = tasks.popleft()
            task()


# ---------------------------------------------------------------------- pruning and feed/fetch rewriting


@dataclass
class _Pruned:
    graph_def: graph_pb2.GraphDef
    client_nodes: list[str]  # the feed/fetch transfer nodes
    assigned: dict[str, Device]  # where each of them is placed (the client device, or a fed value's device)
    feed_devices: list[Device]  # per feed, the device its value lives on
    feed_keys: list[str | None]  # rendezvous key per feed (None: not needed)
    feed_types: list[np.dtype | None]
    fetch_sources: list[str | int]  # rendezvous key of the fetch, or the index of the feed it reads


class _Pruner:
    """Keeps the nodes fetches and targets need, cutting fed edges, and adds the client transfers."""

    def __init__(
        self,
        graph_def: graph_pb2.GraphDef,
        feeds: tuple[str, ...],
        fetches: tuple[str, ...],
        targets: tuple[str, ...],
        client: Device,
        feed_devices: Sequence[Device | None] | None = None,
    ):
        self.graph_def = graph_def
        self.feeds, self.fetches, self.targets = feeds, fetches, targets
        self.client = client
        self.feed_devices = [d or client for d in feed_devices] if feed_devices else [client] * len(feeds)
        self.assigned: dict[str, Device] = {}
        self.nodes = {n.name: n for n in graph_def.node}
        self.taken = set(self.nodes)
        self.op_registry = global_registry()

    def run(self) -> _Pruned:
        fed: dict[tuple[str, int], int] = {}
        for i, name in enumerate(self.feeds):
            node, index = node_def_lib.parse_tensor_name(name)
            self._output_type(node, index, "FeedInputs: unable to find feed output")
            fed[(node, index)] = i
        fed_placeholders = {node for (node, _), _i in fed.items() if self.nodes[node].op == "Placeholder"}
        for name in self.fetches:
            self._output_type(*node_def_lib.parse_tensor_name(name), "FetchOutputs node")
        missing = [t for t in self.targets if t not in self.nodes]
        if missing:
            raise errors.NotFoundError(
                None, None, f"PruneForTargets: Some target nodes not found: {', '.join(missing)}"
            )

        needed = self._needed(fed, fed_placeholders)
        out = graph_pb2.GraphDef()
        out.versions.CopyFrom(self.graph_def.versions)
        out.library.CopyFrom(self.graph_def.library)
        feed_node: dict[int, str] = {}
        feed_keys: list[str | None] = [None] * len(self.feeds)
        feed_types: list[np.dtype | None] = [None] * len(self.feeds)
        client_nodes: list[str] = []

        def feed_input(i: int) -> str:
            if i not in feed_node:
                node, index = node_def_lib.parse_tensor_name(self.feeds[i])
                recv = self._client_transfer("_recv", node, index, "_Recv", self.feeds[i], self.feed_devices[i])
                feed_node[i] = recv.name
                feed_keys[i] = transfer_key(recv)
                feed_types[i] = _numpy_dtype(recv.attr["tensor_type"].type)
                client_nodes.append(recv.name)
                out.node.append(recv)
            return feed_node[i]

        for node in self.graph_def.node:
            if node.name not in needed:
                continue
            copy = out.node.add()
            copy.CopyFrom(node)
            del copy.input[:]
            for text in node.input:
                src, index = node_def_lib.parse_tensor_name(text)
                if index == node_def_lib.CONTROL_SLOT:
                    copy.input.append("^" + feed_input(fed[(src, 0)]) if src in fed_placeholders else text)
                elif (src, index) in fed:
                    copy.input.append(feed_input(fed[(src, index)]))
                else:
                    copy.input.append(text)
        fetch_sources: list[str | int] = []
        sends: dict[str, str] = {}
        for name in self.fetches:
            node, index = node_def_lib.parse_tensor_name(name)
            if (node, index) in fed:
                fetch_sources.append(fed[(node, index)])
                continue
            if name not in sends:
                send = self._client_transfer("_send", node, index, "_Send", name)
                send.input.append(node if index == 0 else f"{node}:{index}")
                out.node.append(send)
                client_nodes.append(send.name)
                sends[name] = transfer_key(send)
            fetch_sources.append(sends[name])
        return _Pruned(
            out, client_nodes, dict(self.assigned), list(self.feed_devices), feed_keys, feed_types, fetch_sources
        )

    def needed_graph(self) -> graph_pb2.GraphDef:
        """The nodes the fetches and targets need, fed tensors still computed (no transfers): what the
        graph optimizer sees, as TensorFlow hands it the whole graph with the feeds named."""
        for name in self.feeds:
            self._output_type(*node_def_lib.parse_tensor_name(name), "FeedInputs: unable to find feed output")
        for name in self.fetches:
            self._output_type(*node_def_lib.parse_tensor_name(name), "FetchOutputs node")
        missing = [t for t in self.targets if t not in self.nodes]
        if missing:
            raise errors.NotFoundError(
                None, None, f"PruneForTargets: Some target nodes not found: {', '.join(missing)}"
            )
        fed_nodes = {node_def_lib.parse_tensor_name(name)[0] for name in self.feeds}
        needed = self._needed({}, set()) | fed_nodes
        out = graph_pb2.GraphDef()
        out.versions.CopyFrom(self.graph_def.versions)
        out.library.CopyFrom(self.graph_def.library)
        out.node.extend(node for node in self.graph_def.node if node.name in needed)
        return out

    def _output_type(self, node: str, index: int, what: str) -> int:
        found = self.nodes.get(node)
        if found is None:
            text = f"{what} {node}:{index}: not found" if what.startswith("Fetch") else f"{what} {node}:{index}"
            raise errors.NotFoundError(None, None, text)
        types = node_def_lib.output_types(found, self.op_registry.get(found.op).op_def)
        if index >= len(types):
            raise errors.InvalidArgumentError(
                found, None, f"Tensor {node}:{index} does not exist: node '{node}' has {len(types)} outputs"
            )
        return types[index]

    def _needed(self, fed: dict[tuple[str, int], int], fed_placeholders: set[str]) -> set[str]:
        stack = [node for node, index in map(node_def_lib.parse_tensor_name, self.fetches) if (node, index) not in fed]
        stack += self.targets
        needed: set[str] = set()
        while stack:
            name = stack.pop()
            if name in needed:
                continue
            needed.add(name)
            node = self.nodes.get(name)
            if node is None:
                raise errors.InvalidArgumentError(
                    None, None, f"Node '{name}' is referenced as an input but not in the graph"
                )
            for text in node.input:
                src, index = node_def_lib.parse_tensor_name(text)
                if index == node_def_lib.CONTROL_SLOT:
                    if src not in fed_placeholders:
                        stack.append(src)
                elif (src, index) not in fed:
                    stack.append(src)
        return needed

    def _client_transfer(
        self, prefix: str, node: str, index: int, op: str, tensor_name: str, device: Device | None = None
    ) -> node_def_pb2.NodeDef:
        """TF's ``_recv_NODE_I``/``_send_NODE_I``: a client-terminated transfer on the client device (a feed's
        receive on the device its value lives on). The key names the client at both ends either way."""
        name = f"{prefix}_{node}_{index}"
        suffix = 0
        while name in self.taken:
            suffix += 1
            name = f"{prefix}_{node}_{index}_{suffix}"
        self.taken.add(name)
        dtype = self._output_type(node, index, "")
        device = device or self.client
        transfer = node_def_pb2.NodeDef(name=name, op=op, device=device.name)
        transfer.attr["T" if op == "_Send" else "tensor_type"].type = dtype
        set_transfer_attrs(transfer, tensor_name, self.client, self.client, client_terminated=True)
        self.assigned[name] = device
        return transfer


def _numpy_dtype(enum: int) -> np.dtype | None:
    dtype = dtypes.as_dtype(enum)
    return np.dtype(dtype.as_numpy_dtype) if dtype.is_numpy_compatible else None
