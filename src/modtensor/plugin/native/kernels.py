"""Kernels written in C (TF_RegisterKernelBuilder), adapted onto the runtime's kernel API.

A registered TF_KernelBuilder becomes an ordinary ``KernelRegistration`` in the
one ``KernelRegistry``; its factory builds a ``NativeKernel``, an ``OpKernel``
whose ``compute`` is the bridge's C function: executor and eager run C kernels
exactly like Python ones (``OpKernel.run``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Any

from modtensor.framework import errors
from modtensor.framework import node_def as node_def_lib
from modtensor.framework.graph import GRAPH_DEF_VERSION
from modtensor.framework.op_registry import global_registry
from modtensor.framework.protos import types_pb2
from modtensor.plugin.registry import active_session
from modtensor.runtime.kernel_registry import KernelRegistration, global_kernel_registry
from modtensor.runtime.op_kernel import (
    AsyncOpKernel,
    OpKernel,
    OpKernelConstruction,
    OpKernelContext,
    with_node_context,
)

__all__ = ["NativeAsyncKernel", "NativeKernel", "NativeKernelSpec", "register_native_kernel"]

NATIVE_SOURCE = "<native code outside a plugin load>"
_LOG = logging.getLogger("modtensor.plugin")


class NativeKernelSpec:
    """A registered C kernel: its builder (kept alive here), what it declared, and where it came from.

    Calling it with an ``OpKernelConstruction`` builds a ``NativeKernel`` (it is the
    registration's factory).
    """

    def __init__(self, capsule: Any, kernel_name: str, info: dict[str, Any], source: str):
        self.capsule = capsule
        self.kernel_name = kernel_name
        self.info = info
        self.source = source
        self.__name__ = f"NativeKernel[{info['op']}]"
        # modtensor's own native CPU kernels report errors as the built-in (numpy) kernels do: TF's text alone.
        self.builtin = _is_builtin_library(source)

    def __call__(self, ctx: OpKernelConstruction) -> NativeKernel:
        if self.info.get("is_async"):
            return NativeAsyncKernel(ctx, self)
        return NativeKernel(ctx, self)

    def __repr__(self) -> str:
        return f"<C kernel '{self.kernel_name}' for {self.info['op']} on {self.info['device_type']} from {self.source}>"


class NativeKernel(OpKernel):
    """One C kernel instance (a node on a device): the plugin's create ran in the constructor."""

    def __init__(self, ctx: OpKernelConstruction, spec: NativeKernelSpec):
        from modtensor.plugin.native import bridge

        super().__init__(ctx)
        self.spec = spec
        device = ctx.device
        ranges = node_def_lib.arg_ranges(ctx.node_def, ctx.op_def, "input")
        info = (
            ctx.name,
            device.name,
            int(getattr(device, "ordinal", 0)),
            device.device_type == "CPU" and getattr(device, "compute_stream", None) is None,
            [t.base_dtype.as_datatype_enum for t in ctx.input_types],
            [t.base_dtype.as_datatype_enum for t in ctx.output_types],
            [bool(h) for h in self.input_host_memory],
            [bool(h) for h in self.output_host_memory],
            list(ctx.node_def.input),
            [(name, start, stop) for name, (start, stop) in ranges.items()],
            GRAPH_DEF_VERSION,
            int(getattr(device, "compute_stream", None) or 0),  # TF_GetStream's SP_Stream (pluggable devices)
            spec.source,  # named by the crash report of a fatal signal inside the kernel
        )
        self._native = bridge().Kernel(spec.capsule, ctx, info)
        if self._native.failure is not None:
            code, message = self._native.failure
            ctx.fail(self.plugin_error(code, message, during="construction"))
        # On the host CPU the bridge allocates outputs and forwards inputs in C (no Python call per allocation).
        self._host_fast_path = _host_fast_path(device)
        if self._host_fast_path:
            # The built-in library loads its inputs with unaligned SIMD loads: numpy-made values need no copy.
            self._native.enable_host_fast_path(device, unaligned_ok=spec.builtin)
        # The C function itself: OpKernel.run calls it with no Python frame in between.
        self.compute = self._native.compute  # type: ignore[method-assign]

    def plan_call(self) -> tuple[Callable[..., Any], tuple[Any, Any]] | None:
        """How the executor's plan and eager execution may call this kernel without an OpKernelContext, or None.

        ``(call, (capsule, target))`` when the kernel is the built-in native CPU library's, has one output and
        runs on the host CPU: ``call(*inputs) -> output`` is the bridge's ``direct_call`` (for Python callers:
        it never writes an input), and the capsule's C function called on ``target`` is the same call for the C
        plan loop, which gives up the values a node reads last so the kernel may reuse their buffers
        (csrc/bridge/bridge.h, ``MT_DirectCallFunction``). The built-in kernels use nothing a context would add
        (step, function library, resources).
        """
        if not (self.spec.builtin and self._host_fast_path and self.num_outputs == 1):
            return None
        if isinstance(self, AsyncOpKernel):
            return None
        from modtensor.plugin.native import bridge

        return self._native.direct_call, (bridge().DIRECT_CALL, self._native)

    def prepared_multi_call(self) -> Callable[..., Any] | None:
        """``call(*inputs) -> (output 0, output 1, ...)`` for the executor's plan when the kernel is the built-in
        native CPU library's, has 2 to 8 outputs and runs on the host CPU (as a numpy kernel of several outputs is
        called: no OpKernelContext); else None."""
        if not (self.spec.builtin and self._host_fast_path and 1 < self.num_outputs <= 8):
            return None
        if isinstance(self, AsyncOpKernel):
            return None
        return self._native.direct_call_all

    def plugin_error(self, code: int, message: str, *, during: str = "compute") -> errors.OpError:
        """The OpError for a TF_Status the plugin reported, naming the plugin, the op and the node.

        The built-in native CPU kernels are part of modtensor: their errors carry TF's text
        only, like the numpy kernels' (the executor and eager add the node as for any kernel).
        """
        cls = errors.exception_type_from_error_code(code)
        if self.spec.builtin and during == "compute":
            return cls(None, None, message)
        text = (
            f"{message}\n\t [{during} of the {self.device.device_type} kernel for op '{self.type_string}' "
            f"from plugin {self.spec.source}]"
        )
        return with_node_context(cls(self.node_def, None, text), self.node_def)


def _host_fast_path(device: Any) -> bool:
    """Whether the bridge may allocate and forward in C for ``device``: the host CPU (numpy values, no stream)
    with the default buffer-exclusivity rule."""
    from modtensor.runtime.device import Device

    return (
        device.device_type == "CPU"
        and device.is_host
        and getattr(device, "compute_stream", None) is None
        and type(device).buffer_is_exclusive is Device.buffer_is_exclusive
    )


def _is_builtin_library(source: str) -> bool:
    from modtensor.plugin.discovery import native_cpu_kernels_library

    builtin = native_cpu_kernels_library()
    try:
        return builtin is not None and os.path.samefile(source, builtin)
    except OSError:
        return False


class NativeAsyncKernel(NativeKernel, AsyncOpKernel):
    """A C kernel built with TF_NewAsyncKernelBuilder: the dataflow executor starts it and goes on; the plugin's
    TF_RunAsyncOpKernelDoneCallback finishes the node (on the plugin's thread). Called synchronously (eager),
    the bridge waits for the callback in C."""

    def compute_async(self, ctx: OpKernelContext, done: Callable[[], None]) -> None:
        """Start the plugin's compute_async; ``done()`` runs once the plugin called its done callback."""

        def finished(error: BaseException | None) -> None:
            if error is not None:
                ctx.fail(
                    error
                    if isinstance(error, errors.OpError)
                    else errors.InternalError(self.node_def, None, f"{type(error).__name__}: {error}")
                )
            done()

        self._native.compute_async(ctx, finished)


def _check_against_op(op: str, info: dict[str, Any], where: str) -> None:
    """Warn about declarations that can never match the op (TensorFlow accepts them silently).

    A kernel for an op that is not registered (yet) is accepted as TensorFlow accepts it: the
    op may come from a library loaded later. A type constraint on an attr that is not a type
    attr fails at lookup (as in TensorFlow); a HostMemory name that is no argument is ignored.
    """
    registration = global_registry().lookup(op)
    if registration is None:
        return
    op_def = registration.op_def
    attrs = {a.name: a.type for a in op_def.attr}
    for attr, _ in info["constraints"]:
        if attrs.get(attr) not in ("type", "list(type)"):
            have = ", ".join(sorted(n for n, t in attrs.items() if t in ("type", "list(type)"))) or "none"
            _LOG.warning(
                "%s: type constraint on attr '%s', which is not a type attr of op '%s' (its type attrs: %s); "
                "looking this kernel up will fail",
                where, attr, op, have,
            )  # fmt: skip
    args = {a.name for a in (*op_def.input_arg, *op_def.output_arg)}
    for arg in info["host_memory"]:
        if arg not in args:
            _LOG.warning("%s: HostMemory('%s') names no input or output of op '%s'; ignored", where, arg, op)


def register_native_kernel(kernel_name: str, kernel_def: bytes | None, capsule: Any) -> KernelRegistration:
    """TF_RegisterKernelBuilder(WithKernelDef): file the builder in the global KernelRegistry.

    As in TensorFlow, a kernel for an op not registered (yet) and a second kernel for an op
    and device type are accepted (the choice happens at lookup). Errors (no compute
    function, an unknown DataType) are recorded on the plugin being loaded, so it is rolled
    back, and raised so the plugin's TF_Status sees them too.
    """
    from modtensor.plugin.native import bridge
    from modtensor.plugin.native.kernel_def import parse_kernel_def

    session = active_session()
    source = session.record.path if session is not None else NATIVE_SOURCE
    info = bridge().kernel_builder_info(capsule)
    try:
        if kernel_def is not None:
            parsed = parse_kernel_def(kernel_def)
            info.update(
                op=parsed.op or info["op"],
                device_type=parsed.device_type or info["device_type"],
                constraints=[(name, t) for name, types in parsed.constraints.items() for t in types],
                host_memory=list(parsed.host_memory),
                label=parsed.label,
                priority=parsed.priority,
            )
        op, device = info["op"], info["device_type"]
        where = f"Kernel '{kernel_name}' for op '{op}' on {device}"
        if not info["has_compute"]:
            raise errors.InvalidArgumentError(None, None, f"{where}: the builder has no compute function")
        _check_against_op(op, info, where)
        constraints: dict[str, list[int]] = {}
        for attr, dtype in info["constraints"]:
            if dtype not in types_pb2.DataType.values():
                raise errors.InvalidArgumentError(None, None, f"{where}: unknown DataType {dtype} for attr '{attr}'")
            constraints.setdefault(attr, []).append(dtype)
        spec = NativeKernelSpec(capsule, kernel_name, info, source)
        registration = global_kernel_registry().register(
            op,
            device,
            spec,
            constraints=constraints,
            host_memory=info["host_memory"],
            priority=info["priority"],
            label=info["label"],
            source=source,
        )
    except errors.OpError as e:
        error = type(e)(None, None, f"TF_RegisterKernelBuilder('{kernel_name}') failed: {e.message}")
        if session is not None:
            session.errors.append(error)
        raise error from None
    if session is not None:
        session.kernels.append(registration)
    return registration
