"""The kernel API: OpKernel, its construction context, and the per-call OpKernelContext.

A kernel object is made once per (node, device) by ``create_kernel``: the
constructor reads attrs and precomputes. ``OpKernel.run(ctx)`` computes it for one
call and checks what it produced. The context hands out inputs, allocates outputs
and temporaries from the device's allocator, forwards an input buffer to an
output when nothing else can see it, and records failures. The C kernel bridge
(issue 4) implements TF_GetInput, TF_AllocateOutput, ... on exactly this context.
"""

from __future__ import annotations

import functools
import inspect
import math
import sys
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from modtensor.framework import attr_value, dtypes, errors
from modtensor.framework import node_def as node_def_lib
from modtensor.framework.protos import attr_value_pb2, node_def_pb2, op_def_pb2

if TYPE_CHECKING:
    from modtensor.runtime.device import Device
    from modtensor.runtime.kernel_registry import KernelDef, KernelRegistration, KernelRegistry

__all__ = [
    "AsyncOpKernel",
    "FunctionKernel",
    "OpKernel",
    "OpKernelConstruction",
    "OpKernelContext",
    "create_kernel",
    "with_node_context",
]


def with_node_context(error: errors.OpError, node_def: node_def_pb2.NodeDef) -> errors.OpError:
    """The same error class with TF's ``\\n\\t [[{{node NAME}}]]`` appended and ``node_def`` set."""
    tag = f"[[{node_def_lib.format_node_for_error(node_def)}]]"
    message = error.message if tag in error.message else f"{error.message}\n\t {tag}"
    wrapped = type(error)(node_def, error.op, message)
    wrapped.error_code = error.error_code
    return wrapped


def _np_dtype(dtype: dtypes.DType) -> np.dtype | None:
    base = dtype.base_dtype
    np_type = base.as_numpy_dtype if base.is_numpy_compatible else None
    return None if np_type is None else np.dtype(np_type)


class OpKernelConstruction:
    """What a kernel constructor sees: the node (defaults filled in), its OpDef, the device, the KernelDef."""

    __slots__ = (
        "device",
        "function_library",
        "input_types",
        "kernel_def",
        "name",
        "node_def",
        "op_def",
        "output_types",
        "registration",
        "status",
        "type",
    )

    def __init__(
        self,
        node_def: node_def_pb2.NodeDef,
        op_def: op_def_pb2.OpDef,
        device: Device,
        registration: KernelRegistration,
        function_library: Any = None,
    ):
        self.node_def = node_def
        self.op_def = op_def
        self.device = device
        # The FunctionLibraryRuntime (runtime/function_library.py) of the graph the node belongs to, or None:
        # what kernels that call library functions (If, While, PartitionedCall, ...) run them through.
        self.function_library = function_library
        self.registration = registration
        self.kernel_def: KernelDef = registration.kernel_def
        self.name = node_def.name
        self.type = node_def.op
        self.input_types = tuple(dtypes.as_dtype(t) for t in node_def_lib.input_types(node_def, op_def))
        self.output_types = tuple(dtypes.as_dtype(t) for t in node_def_lib.output_types(node_def, op_def))
        self.status: errors.OpError | None = None

    def has_attr(self, name: str) -> bool:
        """True when the node has attr ``name`` (after defaults)."""
        return name in self.node_def.attr

    def get_attr_proto(self, name: str) -> attr_value_pb2.AttrValue:
        """The raw AttrValue of ``name``; NotFoundError "No attr named ..." naming the node if absent."""
        if name not in self.node_def.attr:
            raise with_node_context(
                errors.NotFoundError(self.node_def, None, f"No attr named '{name}' in NodeDef:"), self.node_def
            )
        return self.node_def.attr[name]

    def get_attr(self, name: str) -> Any:
        """The attr as TF's Python ``get_attr`` gives it (bytes, int, float, bool, DType, protos, lists)."""
        return attr_value.from_attr_value(self.get_attr_proto(name))

    def fail(self, error: errors.OpError) -> None:
        """Record a construction failure (the first one wins); create_kernel raises it."""
        if self.status is None:
            self.status = error


class OpKernel:
    """Base of every kernel. Subclasses call ``super().__init__(ctx)`` and implement ``compute``.

    One object serves every call of its node on its device, possibly from several
    threads at once: keep per-call state in the OpKernelContext.
    """

    allow_unset_outputs: bool = False

    def __init__(self, ctx: OpKernelConstruction):
        self.name = ctx.name
        self.type_string = ctx.type
        self.node_def = ctx.node_def
        self.op_def = ctx.op_def
        self.device = ctx.device
        self.kernel_def = ctx.kernel_def
        self.input_types = ctx.input_types
        self.output_types = ctx.output_types
        self.num_inputs = len(ctx.input_types)
        self.num_outputs = len(ctx.output_types)
        self._expected_np = tuple(_np_dtype(t) for t in ctx.output_types)
        self.input_host_memory, self.output_host_memory = _host_memory_flags(ctx)

    def compute(self, ctx: OpKernelContext) -> None:
        """Compute the outputs of one call into ``ctx`` (raise an OpError or ``ctx.fail`` on error)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement compute")

    def run(self, ctx: OpKernelContext) -> list[Any]:
        """Compute, then check: no failure recorded, every output set, each of the expected dtype."""
        self.compute(ctx)
        return self.finish(ctx)

    def finish(self, ctx: OpKernelContext) -> list[Any]:
        """The checks ``run`` makes after ``compute`` (an asynchronous kernel's caller makes them after ``done``)."""
        if ctx.status is not None:
            raise ctx.status
        outputs = ctx.outputs
        for i, value in enumerate(outputs):
            if value is None:
                if self.allow_unset_outputs:
                    continue
                raise errors.InternalError(
                    self.node_def, None, f"Kernel '{self.name}' (op {self.type_string}) did not set output {i}"
                )
            expected = self._expected_np[i]
            if expected is not None and value.dtype is not expected and value.dtype != expected:
                raise errors.InternalError(
                    self.node_def,
                    None,
                    f"Kernel '{self.name}' (op {self.type_string}) on {self.device.device_type} produced output {i} "
                    f"of dtype {_dtype_name(value.dtype)}, expected {self.output_types[i].base_dtype.name} "
                    f"(node {node_def_lib.format_node_for_error(self.node_def)})",
                )
        return outputs

    def close(self) -> None:
        """Release resources the kernel holds (called by its owner when the graph or function is dropped)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} ({self.type_string}) on {self.device.name}>"


class AsyncOpKernel(OpKernel):
    """A kernel that finishes later: ``compute_async(ctx, done)`` returns at once and calls ``done()`` (from any
    thread) when the outputs are set or ``ctx.fail`` recorded an error. The dataflow executor runs other nodes
    meanwhile; ``run`` (eager, the plan) waits for ``done`` on the calling thread.
    """

    def compute_async(self, ctx: OpKernelContext, done: Callable[[], None]) -> None:
        """Start computing; call ``done()`` exactly once when finished (success or ``ctx.fail``)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement compute_async")

    def compute(self, ctx: OpKernelContext) -> None:
        """Run ``compute_async`` and wait for its ``done``."""
        finished = threading.Event()
        self.compute_async(ctx, finished.set)
        finished.wait()  # a kernel that can wait long registers with ctx.step.cancellation and finishes early


def _dtype_name(np_dtype: np.dtype) -> str:
    try:
        return dtypes.as_dtype(np_dtype).name
    except TypeError:
        return str(np_dtype)


def _host_memory_flags(ctx: OpKernelConstruction) -> tuple[tuple[bool, ...], tuple[bool, ...]]:
    n_in, n_out = len(ctx.input_types), len(ctx.output_types)
    if ctx.device.is_host:
        return (True,) * n_in, (True,) * n_out
    inputs = [False] * n_in
    outputs = [False] * n_out
    if ctx.kernel_def.host_memory:
        in_ranges = node_def_lib.arg_ranges(ctx.node_def, ctx.op_def, "input")
        out_ranges = node_def_lib.arg_ranges(ctx.node_def, ctx.op_def, "output")
        for arg in ctx.kernel_def.host_memory:
            if arg in in_ranges:
                start, stop = in_ranges[arg]
                inputs[start:stop] = [True] * (stop - start)
            elif arg in out_ranges:
                start, stop = out_ranges[arg]
                outputs[start:stop] = [True] * (stop - start)
            else:
                raise errors.InvalidArgumentError(
                    ctx.node_def,
                    None,
                    f"HostMemory arg '{arg}' of the {ctx.kernel_def.device_type} kernel for op '{ctx.type}' "
                    f"(from {ctx.registration.source}) is not an input or output of the op",
                )
    return tuple(inputs), tuple(outputs)


class OpKernelContext:
    """One call of a kernel: inputs, outputs, allocation, forwarding, status. Cheap to build.

    ``inputs`` is taken over, not copied: a value whose only reference is this list
    may be forwarded to an output (see docs/runtime.md, Ownership).
    """

    __slots__ = ("device", "frame_iter", "inputs", "op_kernel", "outputs", "status", "step", "step_id")

    def __init__(
        self,
        kernel: OpKernel,
        inputs: list[Any],
        *,
        step_id: int = 0,
        device: Device | None = None,
        step: Any = None,
        frame_iter: tuple[int, int] = (0, 0),
    ):
        self.op_kernel = kernel
        self.inputs = inputs
        self.outputs: list[Any] = [None] * kernel.num_outputs
        self.device = kernel.device if device is None else device
        self.step_id = step_id
        self.status: errors.OpError | None = None
        # The step's shared state (executor.StepContext: rendezvous, cancellation, function library, config),
        # None outside a graph step; and (frame id, iteration) inside a while loop, (0, 0) outside.
        self.step = step
        self.frame_iter = frame_iter

    # ------------------------------------------------------------------ inputs

    @property
    def num_inputs(self) -> int:
        """The number of data inputs."""
        return len(self.inputs)

    def input(self, index: int) -> Any:
        """Input ``index`` (a device value; numpy array on CPU)."""
        return self.inputs[index]

    def input_dtype(self, index: int) -> dtypes.DType:
        """The DType input ``index`` has per the node's signature."""
        return self.op_kernel.input_types[index]

    def is_input_host_memory(self, index: int) -> bool:
        """True when input ``index`` lives in host memory (always on a host device)."""
        return self.op_kernel.input_host_memory[index]

    # ------------------------------------------------------------------ outputs

    @property
    def num_outputs(self) -> int:
        """The number of outputs."""
        return len(self.outputs)

    def expected_output_dtype(self, index: int) -> dtypes.DType:
        """The DType output ``index`` must have."""
        return self.op_kernel.output_types[index]

    def is_output_host_memory(self, index: int) -> bool:
        """True when output ``index`` lives in host memory (always on a host device)."""
        return self.op_kernel.output_host_memory[index]

    def set_output(self, index: int, value: Any) -> None:
        """Set output ``index`` to a device value."""
        self.outputs[index] = value

    def output(self, index: int) -> Any:
        """Output ``index`` as set so far (None when unset)."""
        return self.outputs[index]

    def _allocator(self, host: bool) -> Any:
        return self.device.host_allocator if host else self.device.allocator

    def allocate_output(self, index: int, shape: Sequence[int], dtype: Any = None) -> Any:
        """A new buffer for output ``index`` (the expected dtype by default), set as that output."""
        kernel = self.op_kernel
        if dtype is None:
            dtype = kernel._expected_np[index]
            if dtype is None:
                raise errors.InvalidArgumentError(
                    kernel.node_def,
                    None,
                    f"Cannot allocate output {index} of '{kernel.name}': "
                    f"dtype {kernel.output_types[index].name} has no buffer representation",
                )
        value = self._allocator(kernel.output_host_memory[index]).allocate(tuple(shape), dtype)
        self.outputs[index] = value
        return value

    def allocate_temp(self, dtype: Any, shape: Sequence[int], *, host_memory: bool = False) -> Any:
        """A scratch buffer from the device allocator (or the host allocator) for this call only."""
        return self._allocator(host_memory).allocate(tuple(shape), dtype)

    def forward_input(self, input_index: int, output_index: int, shape: Sequence[int]) -> Any:
        """Reuse input ``input_index``'s buffer as output ``output_index`` with ``shape`` when safe, else None.

        Safe: same dtype as the output, same number of elements, same memory kind,
        nothing but this context references the value, and the device says no
        other value shares its buffer (numpy: owns its data and is writeable).
        """
        kernel = self.op_kernel
        value = self.inputs[input_index]
        if value is None:
            return None
        expected = kernel._expected_np[output_index]
        if expected is None or value.dtype != expected:
            return None
        if kernel.input_host_memory[input_index] != kernel.output_host_memory[output_index]:
            return None
        shape = tuple(int(d) for d in shape)
        if math.prod(value.shape) != math.prod(shape):
            return None
        # References: this list, the local `value`, getrefcount's argument.
        if sys.getrefcount(value) > 3 or not self.device.buffer_is_exclusive(value):
            return None
        if value.shape != shape:
            try:
                value.shape = shape  # in place: the buffer is exclusively ours
            except (AttributeError, ValueError):
                return None
        self.outputs[output_index] = value
        return value

    def forward_input_or_allocate_output(
        self, candidate_input_indices: Sequence[int], output_index: int, shape: Sequence[int], dtype: Any = None
    ) -> tuple[Any, int]:
        """(buffer, index of the forwarded input or -1): the first forwardable candidate, else a new buffer."""
        for index in candidate_input_indices:
            value = self.forward_input(index, output_index, shape)
            if value is not None:
                return value, index
        return self.allocate_output(output_index, shape, dtype), -1

    # ------------------------------------------------------------------ status and environment

    def fail(self, error: errors.OpError) -> None:
        """Record a failure (the first one wins); ``OpKernel.run`` raises it after compute returns."""
        if self.status is None:
            self.status = error

    set_status = fail

    @property
    def stream(self) -> Any:
        """The device's compute stream (None on synchronous devices such as CPU)."""
        return self.device.compute_stream


# ---------------------------------------------------------------------- creating kernels


def create_kernel(
    node_def: node_def_pb2.NodeDef,
    op_def: op_def_pb2.OpDef,
    device: Device,
    registry: KernelRegistry | None = None,
    *,
    function_library: Any = None,
) -> OpKernel:
    """Find and construct the kernel for ``node_def`` on ``device`` (defaults added on a copy of the node).

    ``function_library`` is what the kernel sees as ``OpKernelConstruction.function_library``.
    Lookup and construction errors are re-raised as the same class with the node named
    (``[[{{node NAME}}]]``) and the original as ``__cause__``.
    """
    from modtensor.runtime.kernel_registry import global_kernel_registry

    registry = registry if registry is not None else global_kernel_registry()
    node = node_def_pb2.NodeDef()
    node.CopyFrom(node_def)
    node_def_lib.add_default_attrs(node, op_def)
    registration = registry.find_kernel(node, op_def, device.device_type)
    return construct_kernel(node, op_def, device, registration, function_library=function_library)


def construct_kernel(
    node: node_def_pb2.NodeDef,
    op_def: op_def_pb2.OpDef,
    device: Device,
    registration: Any,
    *,
    function_library: Any = None,
) -> OpKernel:
    """Construct the kernel of ``registration`` for ``node`` (defaults already added) on ``device``."""
    try:
        ctx = OpKernelConstruction(node, op_def, device, registration, function_library)
        kernel = registration.factory(ctx)
        if ctx.status is not None:
            raise ctx.status
    except errors.OpError as exc:
        raise with_node_context(exc, node) from exc
    except Exception as exc:
        raise errors.InternalError(
            node,
            None,
            f"Constructing the {device.device_type} kernel for op '{node.op}' (from {registration.source}) failed: "
            f"{type(exc).__name__}: {exc}\n\t [[{node_def_lib.format_node_for_error(node)}]]",
        ) from exc
    if not isinstance(kernel, OpKernel) or not hasattr(kernel, "_expected_np"):
        raise errors.InternalError(
            node,
            None,
            f"The kernel factory for op '{node.op}' (from {registration.source}) returned "
            f"{type(kernel).__name__}, not an OpKernel initialized with OpKernel.__init__",
        )
    return kernel


# ---------------------------------------------------------------------- kernels from plain functions


def _function_attr(value: attr_value_pb2.AttrValue) -> Any:
    """An attr as the numpy kernel functions take it: str for strings, ndarray for tensors, dims for shapes."""
    from modtensor.framework import tensor_proto

    which = value.WhichOneof("value")
    if which == "s":
        return value.s.decode("utf-8")
    if which == "tensor":
        return tensor_proto.make_ndarray(value.tensor)
    if which == "shape":
        return _shape_dims(value.shape)
    if which == "list":
        lst = value.list
        if len(lst.s):
            return [s.decode("utf-8") for s in lst.s]
        if len(lst.tensor):
            return [tensor_proto.make_ndarray(t) for t in lst.tensor]
        if len(lst.shape):
            return [_shape_dims(s) for s in lst.shape]
    return attr_value.from_attr_value(value)


def _shape_dims(shape: Any) -> list[int] | None:
    return None if shape.unknown_rank else [d.size for d in shape.dim]


_SIGNATURES: dict[Any, tuple[frozenset[str], bool]] = {}


def _parameters(fn: Callable[..., Any]) -> tuple[frozenset[str], bool]:
    found = _SIGNATURES.get(fn)
    if found is None:
        params = inspect.signature(fn).parameters.values()
        names = frozenset(p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))
        found = (names, any(p.kind is p.VAR_KEYWORD for p in params))
        _SIGNATURES[fn] = found
    return found


_DEFAULTS: dict[Any, dict[str, Any]] = {}


def _defaults(fn: Callable[..., Any]) -> dict[str, Any]:
    """The keyword defaults of ``fn``'s parameters (cached per function)."""
    found = _DEFAULTS.get(fn)
    if found is None:
        try:
            params = inspect.signature(fn).parameters.values()
        except (TypeError, ValueError):
            params = ()  # type: ignore[assignment]
        found = {p.name: p.default for p in params if p.default is not p.empty}
        _DEFAULTS[fn] = found
    return found


class FunctionKernel(OpKernel):
    """A stateless kernel from a function with the OP_FUNCTIONS calling convention (see kernels/cpu)."""

    def __init__(self, ctx: OpKernelConstruction, fn: Callable[..., Any]):
        super().__init__(ctx)
        self.fn = fn
        names, var_kw = _parameters(fn)
        op_def = ctx.op_def
        input_names = {arg.name for arg in op_def.input_arg}
        self._kwargs = {
            name: _function_attr(value)
            for name, value in ctx.node_def.attr.items()
            if not name.startswith("_") and name not in input_names and (name in names or var_kw)
        }
        ranges = node_def_lib.arg_ranges(ctx.node_def, op_def, "input")
        groups: list[tuple[int, int | None]] = []
        for arg in op_def.input_arg:
            start, stop = ranges[arg.name]
            groups.append((start, stop) if (arg.number_attr or arg.type_list_attr) else (start, None))
        self._groups = None if all(stop is None for _, stop in groups) else tuple(groups)
        outs = op_def.output_arg
        self._single = len(outs) == 1 and not outs[0].number_attr and not outs[0].type_list_attr

    @classmethod
    def factory_for(cls, fn: Callable[..., Any]) -> Callable[[OpKernelConstruction], FunctionKernel]:
        """A kernel factory (for KernelRegistry.register) building FunctionKernels of ``fn``."""

        def factory(ctx: OpKernelConstruction) -> FunctionKernel:
            return cls(ctx, fn)

        factory.__name__ = f"FunctionKernel[{getattr(fn, '__name__', 'fn')}]"
        factory.__qualname__ = factory.__name__
        factory.builds_function_kernel = True  # type: ignore[attr-defined]
        return factory

    def prepared_call(self) -> Callable[..., Any] | None:
        """The function bound to its attrs, ``call(*inputs) -> output``, when the op has no list inputs and one
        non-list output; else None. Eager execution calls it directly (skipping the context) and checks the
        output dtype itself; the result may be a numpy scalar (wrap it with ``np.asarray``)."""
        if self._groups is not None or not self._single:
            return None
        return self._bound()

    def prepared_multi_call(self) -> Callable[..., Any] | None:
        """Like ``prepared_call`` for an op of several outputs (or a list output) and no list inputs:
        ``call(*inputs) -> sequence of outputs``, one per output of this node; else None."""
        if self._groups is not None or self._single:
            return None
        return self._bound()

    def _bound(self) -> Callable[..., Any]:
        # Attrs equal to the function's own defaults need not be passed: keyword binding costs per call.
        defaults = _defaults(self.fn)
        kwargs = {
            k: v
            for k, v in self._kwargs.items()
            if k not in defaults or type(defaults[k]) is not type(v) or defaults[k] != v
        }
        return functools.partial(self.fn, **kwargs) if kwargs else self.fn

    def compute(self, ctx: OpKernelContext) -> None:
        """Call the function with the inputs (list args grouped) and set its result(s) as outputs."""
        inputs = ctx.inputs
        if self._groups is None:
            result = self.fn(*inputs, **self._kwargs)
        else:
            args = [inputs[a] if b is None else inputs[a:b] for a, b in self._groups]
            result = self.fn(*args, **self._kwargs)
        if self._single:
            ctx.outputs[0] = result if type(result) is np.ndarray else np.asarray(result)
            return
        outputs = ctx.outputs
        if len(result) != len(outputs):
            raise errors.InternalError(
                self.node_def,
                None,
                f"Kernel function {getattr(self.fn, '__name__', self.fn)!r} for '{self.name}' (op {self.type_string}) "
                f"returned {len(result)} outputs, expected {len(outputs)}",
            )
        for i, value in enumerate(result):
            outputs[i] = value if type(value) is np.ndarray else np.asarray(value)
