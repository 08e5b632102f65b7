"""The function library runtime: library functions instantiated once per (name, attrs, device), run many times.

TensorFlow's FunctionLibraryRuntime. Kernels that call library functions (``If``,
``Case``, ``While``, ``PartitionedCall``, ... in ``runtime/functional_kernels.py``) get
the runtime of the graph they belong to (``OpKernelConstruction.function_library``)
and ask it for an :class:`InstantiatedFunction`.

Instantiating a function does, once, what ``graph_execution.compile_graph`` does for
a graph: the FunctionDef's body (``framework.function_def_lib.instantiate``, attrs
substituted) is pruned to what its results, control results and stateful nodes need,
lowered and optimized like any graph, placed (nodes without a device go to the device
the function is instantiated for, the caller's), partitioned, and each partition gets
its executor. Arguments enter on the function's device and results stay where the body
made them (``compile_graph``'s ``feed_devices`` and ``fetches_on_device``); calls pass
``SentTensor`` values (value, device, in host memory?): a body on ``MY_DEVICE`` runs
there and returns device values.

``InstantiatedFunction.run`` is reentrant: concurrent calls (two steps, two loop
iterations of different loops) share only the kernels. A ``While`` with 10,000
iterations runs its cond and body functions 10,000 times each from one instantiation.
Nested calls inside a function body use the same runtime (one library per graph).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from modtensor.framework import errors, function_def_lib
from modtensor.framework.protos import attr_value_pb2, function_pb2
from modtensor.runtime.rendezvous import SentTensor, copy_tensor

if TYPE_CHECKING:
    from modtensor.runtime.device import Device, DeviceSet
    from modtensor.runtime.graph_execution import CompiledGraph, ExecutionOptions
    from modtensor.runtime.kernel_registry import KernelRegistry

__all__ = ["FunctionFrame", "FunctionLibraryRuntime", "InstantiatedFunction", "SentTensor", "in_function"]


def _attrs_key(attrs: Mapping[str, attr_value_pb2.AttrValue]) -> tuple[tuple[str, bytes], ...]:
    return tuple(sorted((k, v.SerializeToString(deterministic=True)) for k, v in attrs.items()))


class InstantiatedFunction:
    """One library function compiled for one device and one set of attrs; ``run`` it any number of times."""

    def __init__(self, body: function_def_lib.FunctionBody, device: Device, compiled: CompiledGraph):
        self.name = body.name
        self.device = device
        self.arg_types = body.arg_types
        self.ret_types = body.ret_types
        self.is_stateful = body.is_stateful
        self._compiled = compiled
        self._frame: Any = _UNSET  # call_frame(), computed on first use

    @property
    def num_args(self) -> int:
        """How many arguments the function takes."""
        return len(self.arg_types)

    @property
    def partition_graphs(self) -> list[Any]:
        """The placed partitions of the body (GraphDefs), for inspection."""
        return self._compiled.partition_graphs

    def run(
        self, args: Sequence[SentTensor], *, cancellation: Any = None, context: str = ""
    ) -> list[SentTensor]:
        """Run the body on ``args`` (device values with their devices); returns the results where they were made.

        Errors keep their class and get a ``[[{{function_node NAME}}]]`` line (TF's mark of the
        function) followed by ``context`` (what the caller was doing, e.g. the loop iteration).
        ``cancellation`` is the calling step's CancellationManager: cancelling it stops the call.
        """
        if len(args) != len(self.arg_types):
            raise errors.InvalidArgumentError(
                None, None, f"Function '{self.name}' takes {len(self.arg_types)} arguments, got {len(args)}"
            )
        device = self.device
        values = []
        for arg in args:  # arguments enter on this device (its memory; a host value of a device is copied there)
            if arg.device is device and arg.on_host == device.is_host:
                values.append(arg.value)
            else:
                values.append(copy_tensor(arg, device, device.is_host))
        try:
            results = self._compiled.run_placed(values, cancellation=cancellation)
        except errors.OpError as exc:
            raise in_function(exc, self.name, context) from exc
        return [SentTensor(value, where, where.is_host) for value, where in results]

    def call_frame(self) -> FunctionFrame | None:
        """The body as one call frame on this function's device (a single straight-line partition whose
        arguments and results are all there), or None: then only ``run`` calls it. Computed once."""
        frame = self._frame
        if frame is _UNSET:
            frame = self._frame = self._make_frame()
        return frame  # type: ignore[return-value]

    def _make_frame(self) -> FunctionFrame | None:
        compiled = self._compiled
        executors = compiled._executors
        if len(executors) != 1 or executors[0].device is not self.device:
            return None
        frame = executors[0].call_frame()
        if frame is None:
            return None
        args: list[tuple[int, ...]] = [() for _ in self.arg_types]
        fed = set()
        for index, key, _dtype, device in compiled._feeds:
            if device is not self.device or key not in frame.received:
                return None
            args[index] = (frame.received[key],)
            fed.add(key)
        if set(frame.received) - fed:
            return None  # a receive of something else (not an argument)
        results: list[tuple[bool, int]] = []
        for source in compiled._fetch_sources:
            if isinstance(source, int):
                results.append((False, source))  # an argument returned as is
            elif source in frame.sent:
                results.append((True, frame.sent[source]))
            else:
                return None
        if len(frame.sent) != len({s for s in compiled._fetch_sources if not isinstance(s, int)}):
            return None
        return FunctionFrame(frame, tuple(args), tuple(results))

    def close(self) -> None:
        """Release the kernels of the body."""
        self._compiled.close()


class FunctionFrame:
    """A function body as a call frame (``InstantiatedFunction.call_frame``): the executor's ``CallFrame``, the
    slots each argument goes into (``args``, empty for an argument nothing reads) and where each result is:
    ``(True, slot)``, or ``(False, argument index)`` for an argument returned as is."""

    __slots__ = ("args", "frame", "results")

    def __init__(self, frame: Any, args: tuple[tuple[int, ...], ...], results: tuple[tuple[bool, int], ...]):
        self.frame = frame
        self.args = args
        self.results = results


_UNSET = object()


def in_function(exc: errors.OpError, name: str, context: str = "") -> errors.OpError:
    """``exc`` (same class) with a line naming the function it happened in, and ``context``."""
    suffix = f" ({context})" if context else ""
    wrapped = type(exc)(exc.node_def, exc.op, f"{exc.message}\n\t [[{{{{function_node {name}}}}}]]{suffix}")
    wrapped.error_code = exc.error_code
    return wrapped


class FunctionLibraryRuntime:
    """The functions of one FunctionDefLibrary, instantiated on demand for the devices of ``device_set``.

    ``options`` are the caller's execution options (placement, graph optimizer); each
    instantiation gets them with its device as the default device and soft placement on.
    """

    def __init__(
        self,
        library: function_pb2.FunctionDefLibrary,
        device_set: DeviceSet,
        options: ExecutionOptions | None = None,
        *,
        registry: KernelRegistry | None = None,
    ):
        self._library = function_pb2.FunctionDefLibrary()
        self._library.CopyFrom(library)
        self._functions = function_def_lib.library_functions(self._library)
        self._device_set = device_set
        self._options = options
        self._registry = registry
        self._instances: dict[Any, InstantiatedFunction] = {}
        self._lock = threading.RLock()
        self._closed = False

    @property
    def library(self) -> function_pb2.FunctionDefLibrary:
        """The library (a copy held by this runtime)."""
        return self._library

    @property
    def device_set(self) -> DeviceSet:
        """The devices functions may be placed on."""
        return self._device_set

    def find(self, name: str) -> function_pb2.FunctionDef | None:
        """The FunctionDef called ``name``, or None."""
        return self._functions.get(name)

    def instantiate(
        self, name: str, attrs: Mapping[str, attr_value_pb2.AttrValue], device: Device
    ) -> InstantiatedFunction:
        """The function ``name`` with ``attrs`` compiled for ``device`` (compiled on the first request only).

        NotFoundError (TF's text) for a name the library lacks; compile errors (placement,
        kernels) raise here with the function named.
        """
        key = (name, _attrs_key(attrs), device.name)
        found = self._instances.get(key)
        if found is not None:
            return found
        with self._lock:
            found = self._instances.get(key)
            if found is not None:
                return found
            if self._closed:
                raise errors.CancelledError(None, None, f"Function library closed; cannot instantiate '{name}'")
            function = self._functions.get(name)
            if function is None:
                raise errors.NotFoundError(None, None, f"Function {name} is not defined.")
            try:
                instance = self._compile(function, attrs, device)
            except errors.OpError as exc:
                raise in_function(exc, name, f"instantiating it for {device.name}") from exc
            self._instances[key] = instance
            return instance

    def _compile(
        self, function: function_pb2.FunctionDef, attrs: Mapping[str, attr_value_pb2.AttrValue], device: Device
    ) -> InstantiatedFunction:
        from modtensor.framework.op_registry import global_registry
        from modtensor.runtime.graph_execution import ExecutionOptions, compile_graph

        body = function_def_lib.instantiate(function, attrs, self._functions)
        registry = global_registry()
        targets = list(body.control_ret_nodes)
        for node in body.graph_def.node:
            registration = registry.lookup(node.op)
            if registration is not None and registration.op_def.is_stateful and node.name not in targets:
                targets.append(node.name)
        base = self._options if self._options is not None else ExecutionOptions()
        options = replace(
            base,
            allow_soft_placement=True,
            default_device=device.name,
            collect_step_stats=False,
            fetches_on_device=True,  # results stay where the body made them
            inter_op_threads=1,  # a call runs on the calling kernel's thread (which may be an inter-op thread)
        )
        compiled = compile_graph(
            body.graph_def,
            [f"{name}:0" for name in body.arg_nodes],
            list(body.ret_tensors),
            targets,
            options,
            self._device_set,
            registry=self._registry,
            feed_devices=[device] * len(body.arg_nodes),
            function_library=self,
        )
        return InstantiatedFunction(body, device, compiled)

    def close(self) -> None:
        """Release every instantiation's kernels; later instantiations fail."""
        with self._lock:
            self._closed = True
            instances = list(self._instances.values())
            self._instances.clear()
        for instance in instances:
            instance.close()
