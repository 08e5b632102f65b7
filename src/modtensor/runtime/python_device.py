"""Writing a device in Python: a Device base class, its factory, and kernel registration helpers.

A native plugin is the way to drive real hardware; this is the way to prototype a
device, or wrap a Python library's memory (for example numpy arrays kept behind a
buffer class), through the same registry a plugin uses. A Python device:

- subclasses ``PythonDevice`` and defines ``from_host`` (host array -> device buffer)
  and ``to_host`` (device buffer -> host array); buffers expose ``.shape`` and ``.dtype``;
- is registered with ``register_python_device(type, DeviceClass, count=N)``, which
  makes ``/physical_device:TYPE:0..N-1`` appear and lets ``/TYPE:N`` name them;
- gets kernels with ``registration.register_kernel(op, fn_or_kernel_class, ...)``:
  a function receives the device buffers of the inputs (plus the attrs it names, and
  the device when it has a ``device`` parameter) and returns device buffers.

``PythonDeviceAllocator`` counts the bytes of the buffers a device hands it to
``track``, so ``config.experimental.get_memory_info`` works for Python devices.
"""

from __future__ import annotations

import inspect
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from modtensor.framework import device_spec, errors
from modtensor.framework import node_def as node_def_lib
from modtensor.runtime import device_factory
from modtensor.runtime.allocator import Allocator, AllocatorStats, as_numpy_dtype
from modtensor.runtime.device import Device, DeviceAttributes
from modtensor.runtime.device_factory import DeviceFactory
from modtensor.runtime.kernel_registry import KernelRegistration, global_kernel_registry
from modtensor.runtime.op_kernel import OpKernel, OpKernelConstruction, OpKernelContext

__all__ = [
    "PLUGGABLE_PRIORITY",
    "PythonDevice",
    "PythonDeviceAllocator",
    "PythonDeviceFactory",
    "PythonDeviceRegistration",
    "PythonFunctionKernel",
    "register_python_device",
    "register_python_kernel",
]

PLUGGABLE_PRIORITY = 220  # TensorFlow's priority for pluggable devices (above GPU 210 and CPU 70)
DEFAULT_MEMORY_LIMIT = 1 << 30


class PythonDeviceAllocator(Allocator):
    """Memory accounting for a Python device: counts each tracked buffer until it is garbage collected.

    ``allocate`` makes a buffer with the device's ``from_host`` over uninitialised
    host memory; a device also calls ``track`` on buffers its kernels or copies make.
    """

    def __init__(self, name: str, make_buffer: Callable[[np.ndarray], Any], bytes_limit: int | None = None):
        self.name = name
        self._make_buffer = make_buffer
        self._lock = threading.Lock()
        self._stats = AllocatorStats(bytes_limit=bytes_limit)

    def allocate(self, shape: Sequence[int], dtype: Any) -> Any:
        """A tracked device buffer of ``shape`` and ``dtype`` with unspecified contents."""
        return self._make_buffer(np.empty(tuple(shape), dtype=as_numpy_dtype(dtype)))

    def track(self, buffer: Any, num_bytes: int | None = None) -> Any:
        """Count ``buffer`` (``num_bytes``, else ``buffer.nbytes``) as in use until it is collected; returns it."""
        size = int(buffer.nbytes if num_bytes is None else num_bytes)
        with self._lock:
            self._stats.record_alloc(size)
        weakref.finalize(buffer, self._release, size)
        return buffer

    def _release(self, size: int) -> None:
        with self._lock:
            self._stats.bytes_in_use -= size

    def get_stats(self) -> AllocatorStats:
        """A snapshot of the counters."""
        with self._lock:
            return self._stats.snapshot()

    def clear_stats(self) -> None:
        """Reset num_allocs, the peak (to the bytes in use) and the largest allocation."""
        with self._lock:
            self._stats.reset_peak()


class PythonDevice(Device):
    """Base class of a device written in Python; subclasses define ``from_host`` and ``to_host``.

    Values are whatever ``from_host`` returns (with ``.shape`` and ``.dtype``); the
    runtime copies through ``from_host``/``to_host``/``copy_to`` only. Buffers are
    never written in place by forwarding kernels (``buffer_is_exclusive`` is False)
    unless a subclass says otherwise. ``physical_index`` is the physical device this
    logical device runs on.
    """

    is_host = False

    def __init__(self, attributes: DeviceAttributes, physical_index: int = 0, allocator: Allocator | None = None):
        if allocator is None:
            allocator = PythonDeviceAllocator(
                f"{attributes.device_type}_{attributes.name.rsplit(':', 1)[-1]}_python",
                self.from_host,
                attributes.memory_limit,
            )
        super().__init__(attributes, allocator)
        self.physical_index = physical_index

    def from_host(self, array: np.ndarray) -> Any:
        """A device buffer holding a copy of ``array`` (call ``self.track`` on it to count its memory)."""
        raise NotImplementedError(f"{type(self).__name__} must define from_host(array) to be a device")

    def to_host(self, value: Any) -> np.ndarray:
        """The contents of device buffer ``value`` as a host numpy array."""
        raise NotImplementedError(f"{type(self).__name__} must define to_host(value) to be a device")

    def track(self, buffer: Any, num_bytes: int | None = None) -> Any:
        """Count ``buffer`` in this device's memory statistics (when its allocator keeps them); returns it."""
        allocator = self.allocator
        if isinstance(allocator, PythonDeviceAllocator):
            return allocator.track(buffer, num_bytes)
        return buffer

    def buffer_is_exclusive(self, value: Any) -> bool:
        """False: a Python device's buffers are not reused in place unless the subclass knows better."""
        del value
        return False


DeviceMaker = Callable[[DeviceAttributes, int], Device]


class PythonDeviceFactory(DeviceFactory):
    """``count`` physical devices of one type, each logical device made by ``make_device(attributes, index)``."""

    def __init__(
        self,
        device_type: str,
        make_device: DeviceMaker,
        count: int = 1,
        memory_limit: int = DEFAULT_MEMORY_LIMIT,
        details: Mapping[str, str] | None = None,
    ):
        self.device_type = device_type
        self.make_device = make_device
        self.count = count
        self.memory_limit = memory_limit
        self.details = dict(details or {})

    def list_physical_devices(self) -> list[str]:
        """``/physical_device:TYPE:0`` .. ``TYPE:count-1``."""
        return [f"/physical_device:{self.device_type}:{i}" for i in range(self.count)]

    def get_device_details(self, index: int) -> dict[str, str]:
        """The ``details`` given at registration (the same for every device)."""
        del index
        return dict(self.details)

    def create_devices(self, physical_indices: Sequence[int], name_prefix: str) -> list[Device]:
        """One device per visible physical index, numbered 0..k-1."""
        devices = []
        for ordinal, index in enumerate(physical_indices):
            attributes = DeviceAttributes(
                name=f"{name_prefix}/device:{self.device_type}:{ordinal}",
                device_type=self.device_type,
                memory_limit=self.memory_limit,
                physical_device_desc=f"device: {index}, name: {self.device_type} (Python device)",
            )
            device = self.make_device(attributes, index)
            if not isinstance(device, Device) or device.device_type != self.device_type:
                raise TypeError(
                    f"Python device factory for '{self.device_type}' made {device!r}; "
                    f"it must return a Device of type '{self.device_type}' named {attributes.name}"
                )
            devices.append(device)
        return devices


class PythonFunctionKernel(OpKernel):
    """A kernel from a function over device buffers: called with the inputs (list args as lists), the attrs
    it names (as TF's Python ``get_attr`` gives them) and ``device=`` when it has that parameter; its result
    (a sequence for several outputs) is set as the outputs unchanged."""

    def __init__(self, ctx: OpKernelConstruction, fn: Callable[..., Any]):
        super().__init__(ctx)
        self.fn = fn
        params = inspect.signature(fn).parameters.values()
        names = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
        any_keyword = any(p.kind is p.VAR_KEYWORD for p in params)
        inputs = {arg.name for arg in ctx.op_def.input_arg}
        self._wants_device = "device" in names
        self._kwargs = {
            name: ctx.get_attr(name)
            for name in ctx.node_def.attr
            if not name.startswith("_") and name not in inputs and name != "device" and (name in names or any_keyword)
        }
        ranges = node_def_lib.arg_ranges(ctx.node_def, ctx.op_def, "input")
        self._groups = [(ranges[arg.name], bool(arg.number_attr or arg.type_list_attr)) for arg in ctx.op_def.input_arg]
        self._grouped = any(is_list for _, is_list in self._groups)

    def compute(self, ctx: OpKernelContext) -> None:
        """Call the function and set its result(s) as the outputs."""
        inputs = ctx.inputs
        kwargs = dict(self._kwargs, device=ctx.device) if self._wants_device else self._kwargs
        if self._grouped:
            args = [inputs[a:b] if is_list else inputs[a] for (a, b), is_list in self._groups]
        else:
            args = list(inputs)
        result = self.fn(*args, **kwargs)
        outputs = ctx.outputs
        if len(outputs) == 1:
            outputs[0] = result
            return
        if len(result) != len(outputs):
            raise errors.InternalError(
                self.node_def,
                None,
                f"Kernel function {getattr(self.fn, '__name__', self.fn)!r} for '{self.name}' (op {self.type_string}) "
                f"returned {len(result)} outputs, expected {len(outputs)}",
            )
        outputs[:] = list(result)


def register_python_kernel(
    device_type: str,
    op: str,
    kernel: Callable[..., Any] | type[OpKernel],
    *,
    constraints: Mapping[str, Any] | None = None,
    host_memory: Sequence[str] = (),
    priority: int = 0,
    label: str = "",
    source: str | None = None,
) -> KernelRegistration:
    """Register ``kernel`` for ``op`` on ``device_type``: an OpKernel subclass, or a function over device buffers.

    Returns the registration (``global_kernel_registry().remove`` takes it back).
    """
    if isinstance(kernel, type) and issubclass(kernel, OpKernel):
        factory: Callable[[OpKernelConstruction], OpKernel] = kernel
    elif callable(kernel):
        fn = kernel

        def factory(ctx: OpKernelConstruction) -> OpKernel:
            return PythonFunctionKernel(ctx, fn)

        factory.__name__ = f"PythonFunctionKernel[{getattr(fn, '__name__', 'fn')}]"
    else:
        raise TypeError(
            f"Kernel for '{op}' on {device_type} must be an OpKernel subclass or a function, got {kernel!r}"
        )
    return global_kernel_registry().register(
        op,
        device_type,
        factory,
        constraints=constraints,
        host_memory=host_memory,
        priority=priority,
        label=label,
        source=source or f"python device {device_type}",
    )


@dataclass
class PythonDeviceRegistration:
    """What ``register_python_device`` did: the factory and kernels, so ``unregister`` undoes exactly that."""

    device_type: str
    factory: DeviceFactory
    kernels: list[KernelRegistration] = field(default_factory=list)

    def register_kernel(
        self,
        op: str,
        kernel: Callable[..., Any] | type[OpKernel],
        *,
        constraints: Mapping[str, Any] | None = None,
        host_memory: Sequence[str] = (),
        priority: int = 0,
        label: str = "",
    ) -> KernelRegistration:
        """``register_python_kernel`` for this device type, remembered for ``unregister``."""
        registration = register_python_kernel(
            self.device_type,
            op,
            kernel,
            constraints=constraints,
            host_memory=host_memory,
            priority=priority,
            label=label,
            source=self.factory_source,
        )
        self.kernels.append(registration)
        return registration

    @property
    def factory_source(self) -> str:
        """The name registrations of this device carry (shown in kernel and placement errors)."""
        return f"python device {self.device_type}"

    def unregister(self) -> None:
        """Remove the kernels and the factory (devices already created stay until devices are reset)."""
        from modtensor.runtime import eager

        registry = global_kernel_registry()
        for registration in self.kernels:
            registry.remove(registration)
        self.kernels.clear()
        device_factory.unregister_device_factory(self.device_type, self.factory)
        eager.clear_kernel_cache()


def register_python_device(
    device_type: str,
    device: type[Device] | DeviceMaker | DeviceFactory,
    *,
    count: int = 1,
    priority: int = PLUGGABLE_PRIORITY,
    memory_limit: int = DEFAULT_MEMORY_LIMIT,
    details: Mapping[str, str] | None = None,
) -> PythonDeviceRegistration:
    """Make ``device_type`` a device type served by Python code; call before devices are first used.

    ``device`` is a Device subclass (constructed as ``cls(attributes, physical_index)``),
    a function of the same arguments returning a Device, or a ready DeviceFactory.
    The pass-through and control-flow kernels (Identity, NoOp, Const, Switch, ...) are
    the runtime's DEFAULT ones, which serve every device type, as in TensorFlow.
    """
    if isinstance(device, DeviceFactory):
        factory = device
    elif callable(device):
        factory = PythonDeviceFactory(device_type, device, count, memory_limit, details)
    else:
        raise TypeError(f"device for '{device_type}' must be a Device subclass, a function or a DeviceFactory")
    device_spec.register_short_device_type(device_type)
    device_factory.register_device_factory(device_type, factory, priority, source=f"python device {device_type}")
    return PythonDeviceRegistration(device_type, factory)
