"""Resources and their handles: TensorFlow's ResourceMgr, ResourceBase and ResourceHandle.

A *resource* is state that outlives one kernel call (a variable; later TensorLists,
iterators, queues). It lives in the resource manager of a device, under a
container and a name, or is owned by its handle (TF's ref-counting handles: the
anonymous variables of eager code, which die with the last copy of the handle).

A *handle* is what flows through graphs as a tensor of dtype ``resource``: its device
value is a numpy array of dtype ``object`` whose elements are :class:`ResourceHandle`
objects, always in host memory (kernels on other devices declare their resource
arguments HostMemory, as TF's do). A kernel gets the resource of input ``i`` with
:func:`lookup_resource` (TF's ``LookupResource``: device and type checked, the
handle's own resource or the manager's) and makes one with :func:`lookup_or_create`.

Sessions have their own resources (TF's DirectSession has its own devices): a
Session compiles its graphs inside :func:`session_resources`, and the handles its
kernels create point at the session's managers; eager code and functions use the
device's own manager (``Device.resource_manager``).
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import zlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, ClassVar, TypeVar

import numpy as np

from modtensor.framework import dtypes, errors, tensor_shape
from modtensor.framework.protos import resource_handle_pb2

if TYPE_CHECKING:
    from modtensor.runtime.device import Device
    from modtensor.runtime.op_kernel import OpKernelContext

__all__ = [
    "ANONYMOUS_CONTAINER",
    "ANONYMOUS_NAME",
    "DEFAULT_CONTAINER",
    "ResourceBase",
    "ResourceHandle",
    "ResourceMgr",
    "current_session_managers",
    "delete_resource",
    "demangle",
    "handle_from_input",
    "handle_tensor",
    "lookup_or_create",
    "lookup_resource",
    "make_handle",
    "session_resources",
    "type_hash",
]

# TF's ResourceHandle::ANONYMOUS_NAME: a shared_name asking for a resource owned by its handle.
ANONYMOUS_NAME = "cd2c89b7-88b7-44c8-ad83-06c2a9158347"
ANONYMOUS_CONTAINER = "Anonymous"  # the container TF's ref-counting handles print
DEFAULT_CONTAINER = "localhost"  # a ResourceMgr's default container (TF's value for local devices)

_unique_ids = itertools.count()  # TF's ResourceHandle::GenerateUniqueId


def type_hash(type_name: str) -> int:
    """A stable 64-bit code of a resource type name (TF's TypeIndex hash is implementation-defined too)."""
    data = type_name.encode("utf-8")
    return (zlib.crc32(data) << 32) | zlib.adler32(data)


def demangle(type_name: str) -> str:
    """``N10tensorflow3VarE`` -> ``tensorflow::Var`` (Itanium nested names, as TF's MaybeAbiDemangle shows them)."""
    if not (type_name.startswith("N") and type_name.endswith("E")):
        return type_name
    parts, body = [], type_name[1:-1]
    while body:
        digits = len(body) - len(body.lstrip("0123456789"))
        if digits == 0:
            return type_name
        size = int(body[:digits])
        parts.append(body[digits : digits + size])
        body = body[digits + size :]
    return "::".join(parts)


class ResourceBase:
    """Base of everything a resource manager holds (TF's ResourceBase).

    Subclasses set ``type_name`` to TF's type id name (the mangled C++ name TF stores in
    handles and prints in lookup errors, e.g. ``N10tensorflow3VarE``) and may override
    :meth:`debug_string` and :meth:`memory_used`.
    """

    type_name: ClassVar[str] = "N10tensorflow12ResourceBaseE"

    def debug_string(self) -> str:
        """A one-line description for error messages and ``ResourceMgr.debug_string``."""
        return type(self).__name__

    def memory_used(self) -> int:
        """Bytes of device memory this resource holds (0 when unknown)."""
        return 0


R = TypeVar("R", bound=ResourceBase)


class ResourceHandle:
    """TF's ResourceHandle: device, container, name, type hash and name, and the dtypes/shapes held.

    A handle made for an anonymous resource owns it (``resource``); any other handle
    names a resource in a manager (``manager``: the one its kernel used, None for a
    handle rebuilt from a proto, which is looked up in the consuming kernel's device).
    """

    __slots__ = (
        "container",
        "device",
        "dtypes_and_shapes",
        "hash_code",
        "manager",
        "maybe_type_name",
        "name",
        "resource",
        "__weakref__",
    )

    def __init__(
        self,
        device: str,
        container: str,
        name: str,
        type_name: str,
        dtypes_and_shapes: tuple[tuple[dtypes.DType, tensor_shape.TensorShape], ...] = (),
        *,
        resource: ResourceBase | None = None,
        manager: ResourceMgr | None = None,
    ):
        self.device = device
        self.container = container
        self.name = name
        self.maybe_type_name = type_name
        self.hash_code = type_hash(type_name)
        self.dtypes_and_shapes = tuple(dtypes_and_shapes)
        self.resource = resource
        self.manager = manager

    @property
    def is_ref_counting(self) -> bool:
        """True when the handle owns its resource (TF's IsRefCounting)."""
        return self.resource is not None

    def to_proto(self) -> resource_handle_pb2.ResourceHandleProto:
        """The handle as TF's ResourceHandleProto (what a TensorProto's resource_handle_val holds)."""
        proto = resource_handle_pb2.ResourceHandleProto(
            device=self.device,
            container=self.container,
            name=self.name,
            hash_code=self.hash_code,
            maybe_type_name=self.maybe_type_name,
        )
        for dtype, shape in self.dtypes_and_shapes:
            entry = proto.dtypes_and_shapes.add(dtype=dtype.as_datatype_enum)
            entry.shape.CopyFrom(shape.as_proto())
        return proto

    @classmethod
    def from_proto(cls, proto: resource_handle_pb2.ResourceHandleProto) -> ResourceHandle:
        """A (named) handle from its proto; it finds its resource in the consuming kernel's device."""
        handle = cls(
            proto.device,
            proto.container,
            proto.name,
            proto.maybe_type_name,
            tuple(
                (dtypes.as_dtype(e.dtype), tensor_shape.TensorShape(e.shape)) for e in proto.dtypes_and_shapes
            ),
        )
        handle.hash_code = proto.hash_code
        return handle

    def _dtypes_and_shapes_text(self) -> str:
        parts = [f"DType enum: {d.as_datatype_enum}, Shape: {_shape_text(s)}" for d, s in self.dtypes_and_shapes]
        return "[ " + ", ".join(parts) + " ]"

    def debug_string(self) -> str:
        """TF's ResourceHandle::DebugString (also how an eager resource tensor prints its value)."""
        return (
            f'ResourceHandle(name="{self.name}", device="{self.device}", container="{self.container}", '
            f'type="{demangle(self.maybe_type_name)}", dtype and shapes : "{self._dtypes_and_shapes_text()}")'
        )

    def summarize_value(self) -> str:
        """TF's SummarizeValue: the debug string in angle brackets."""
        return f"<{self.debug_string()}>"

    def __repr__(self) -> str:
        return self.summarize_value()


def _shape_text(shape: tensor_shape.TensorShape) -> str:
    if shape.rank is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


def handle_tensor(handle: ResourceHandle) -> np.ndarray:
    """The device value of a scalar resource tensor holding ``handle`` (a 0-d object array, read-only)."""
    value = np.empty((), dtype=object)
    value[()] = handle
    value.flags.writeable = False
    return value


def make_handle(
    device: Device,
    container: str,
    name: str,
    resource_type: type[ResourceBase],
    dtypes_and_shapes: tuple[tuple[dtypes.DType, tensor_shape.TensorShape], ...] = (),
    *,
    manager: ResourceMgr | None = None,
    debug_name: str = "",
    resource: ResourceBase | None = None,
) -> ResourceHandle:
    """TF's MakeResourceHandle: a handle to ``container``/``name`` on ``device`` ("" container: the default).

    With ``name == ANONYMOUS_NAME`` the handle owns ``resource`` (TF's MakeRefCountingHandle):
    its name is ``debug_name`` followed by a process-unique number, its container ``Anonymous``.
    """
    if name == ANONYMOUS_NAME:
        if resource is None:
            raise ValueError("an anonymous handle needs the resource it owns")
        unique = f"{debug_name}{next(_unique_ids)}"
        return ResourceHandle(
            device.name, ANONYMOUS_CONTAINER, unique, resource_type.type_name, dtypes_and_shapes, resource=resource
        )
    manager = manager if manager is not None else device.resource_manager
    return ResourceHandle(
        device.name,
        container or manager.default_container,
        name,
        resource_type.type_name,
        dtypes_and_shapes,
        manager=manager,
    )


class ResourceMgr:
    """TF's ResourceMgr: resources by (container, type, name), one lock, TF's error texts."""

    def __init__(self, default_container: str = DEFAULT_CONTAINER):
        self.default_container = default_container
        self._lock = threading.RLock()
        self._containers: dict[str, dict[tuple[str, str], ResourceBase]] = {}

    def create(self, container: str, name: str, resource: ResourceBase) -> None:
        """Add ``resource``; AlreadyExistsError when one of its type has that name in the container."""
        key = (resource.type_name, name)
        with self._lock:
            items = self._containers.setdefault(container, {})
            if key in items:
                raise errors.AlreadyExistsError(
                    None, None, f"Resource {container}/{name}/{resource.type_name}"
                )
            items[key] = resource

    def lookup(self, container: str, name: str, resource_type: type[R]) -> R:
        """The resource; NotFoundError in TF's words when the container or the name is unknown."""
        with self._lock:
            items = self._containers.get(container)
            if items is None:
                raise errors.NotFoundError(
                    None,
                    None,
                    f"Container {container} does not exist. (Could not find resource: {container}/{name})",
                )
            found = items.get((resource_type.type_name, name))
        if found is None:
            raise errors.NotFoundError(
                None,
                None,
                f"Resource {container}/{name}/{resource_type.type_name} does not exist.",
            )
        return found  # type: ignore[return-value]

    def lookup_or_create(
        self, container: str, name: str, resource_type: type[R], creator: Callable[[], R]
    ) -> tuple[R, bool]:
        """(resource, created): the existing one, else ``creator()``'s result stored under the name."""
        with self._lock:
            items = self._containers.setdefault(container, {})
            key = (resource_type.type_name, name)
            found = items.get(key)
            if found is not None:
                return found, False  # type: ignore[return-value]
            made = creator()
            items[key] = made
            return made, True

    def delete(self, container: str, name: str, resource_type: type[ResourceBase] | str) -> None:
        """Remove a resource (it lives on while kernels still hold it); NotFoundError when absent."""
        type_name = resource_type if isinstance(resource_type, str) else resource_type.type_name
        with self._lock:
            items = self._containers.get(container)
            if items is None:
                raise errors.NotFoundError(None, None, f"Container {container} does not exist.")
            if (type_name, name) not in items:
                raise errors.NotFoundError(None, None, f"Resource {container}/{name}/{type_name} does not exist.")
            del items[(type_name, name)]

    def delete_any(self, container: str, name: str) -> None:
        """Remove whatever resource has this name in the container (TF's type-erased DeleteResource)."""
        with self._lock:
            items = self._containers.get(container)
            if items is None:
                raise errors.NotFoundError(None, None, f"Container {container} does not exist.")
            keys = [k for k in items if k[1] == name]
            if not keys:
                raise errors.NotFoundError(None, None, f"Resource {container}/{name} does not exist.")
            for key in keys:
                del items[key]

    def cleanup(self, container: str) -> None:
        """Drop a whole container (no error when it does not exist), as TF's Cleanup."""
        with self._lock:
            self._containers.pop(container, None)

    def clear(self) -> None:
        """Drop every resource (a session closing, a device going away)."""
        with self._lock:
            self._containers.clear()

    def names(self, container: str | None = None) -> list[tuple[str, str, str]]:
        """(container, type name, name) of every resource, sorted (for tests and debugging)."""
        with self._lock:
            return sorted(
                (c, t, n)
                for c, items in self._containers.items()
                if container is None or c == container
                for (t, n) in items
            )

    def debug_string(self) -> str:
        """One line per resource: container, name, type and the resource's own description."""
        with self._lock:
            lines = [
                f"{c:<20} | {t:<40} | {n:<40} | {r.debug_string()}"
                for c, items in sorted(self._containers.items())
                for (t, n), r in sorted(items.items())
            ]
        return "\n".join(lines)


# ---------------------------------------------------------------------------- session-scoped managers


class _SessionScope(threading.local):
    def __init__(self) -> None:
        self.managers: dict[str, ResourceMgr] | None = None


_SCOPE = _SessionScope()


@contextlib.contextmanager
def session_resources(managers: dict[str, ResourceMgr]) -> Iterator[None]:
    """Kernels constructed inside (a Session compiling its graphs) keep resources in ``managers``.

    ``managers`` maps device names to a manager; a device not in it gets one on first use.
    """
    previous = _SCOPE.managers
    _SCOPE.managers = managers
    try:
        yield
    finally:
        _SCOPE.managers = previous


def current_session_managers() -> dict[str, ResourceMgr] | None:
    """The managers of the session compiling on this thread (see :func:`session_resources`), or None."""
    return _SCOPE.managers


def manager_for(device: Device, managers: dict[str, ResourceMgr] | None) -> ResourceMgr:
    """The resource manager a kernel on ``device`` uses: its session's when it has one, else the device's."""
    if managers is None:
        return device.resource_manager
    found = managers.get(device.name)
    if found is None:
        found = managers.setdefault(device.name, ResourceMgr())
    return found


# ---------------------------------------------------------------------------- kernel helpers


def handle_from_input(ctx: OpKernelContext, index: int) -> ResourceHandle:
    """The ResourceHandle of scalar resource input ``index`` (TF's HandleFromInput)."""
    value = ctx.inputs[index]
    handle = value[()] if isinstance(value, np.ndarray) and value.shape == () else None
    if not isinstance(handle, ResourceHandle):
        shape = getattr(value, "shape", None)
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Expected input {index} of '{ctx.op_kernel.name}' to be a scalar resource handle, got "
            f"{type(value).__name__} of shape {shape}",
        )
    return handle


def _validate_device(ctx: OpKernelContext, handle: ResourceHandle) -> None:
    """TF's ValidateDevice: a resource is used only by kernels of the device that holds it."""
    device = ctx.device.name
    if handle.device != device:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Trying to access resource {handle.name} located in device {handle.device} from device {device}\n"
            " Cf. https://www.tensorflow.org/xla/known_issues#tfvariable_on_a_different_device",
        )


def _validate_type(handle: ResourceHandle, resource_type: type[ResourceBase]) -> None:
    if handle.maybe_type_name and handle.maybe_type_name != resource_type.type_name:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Trying to access a handle's resource using the wrong type. The handle points to a resource "
            f"(name '{handle.name}') of type '{handle.maybe_type_name}' but you are trying to access the "
            f"resource as type '{resource_type.type_name}'",
        )


def _manager(ctx: OpKernelContext, handle: ResourceHandle) -> ResourceMgr:
    return handle.manager if handle.manager is not None else ctx.device.resource_manager


def lookup_resource(ctx: OpKernelContext, handle: ResourceHandle, resource_type: type[R]) -> R:
    """TF's LookupResource: the handle's own resource, else its manager's; device and type are checked."""
    _validate_device(ctx, handle)
    _validate_type(handle, resource_type)
    if handle.resource is not None:
        return handle.resource  # type: ignore[return-value]
    return _manager(ctx, handle).lookup(handle.container, handle.name, resource_type)


def lookup_or_create(
    ctx: OpKernelContext, handle: ResourceHandle, resource_type: type[R], creator: Callable[[], R]
) -> R:
    """TF's LookupOrCreateResource (a ref-counting handle already owns its resource)."""
    _validate_device(ctx, handle)
    _validate_type(handle, resource_type)
    if handle.resource is not None:
        return handle.resource  # type: ignore[return-value]
    return _manager(ctx, handle).lookup_or_create(handle.container, handle.name, resource_type, creator)[0]


def delete_resource(ctx: OpKernelContext, handle: ResourceHandle) -> None:
    """TF's DeleteResource: a no-op for a handle owning its resource, else the manager's delete."""
    _validate_device(ctx, handle)
    if handle.resource is not None:
        return
    manager = _manager(ctx, handle)
    if handle.maybe_type_name:
        manager.delete(handle.container, handle.name, handle.maybe_type_name)
    else:
        manager.delete_any(handle.container, handle.name)

