"""The one registry of kernels: built-in CPU kernels, Python plugins and (via the native bridge) C kernels.

A kernel is registered for an op and a device type with type constraints on the
op's attrs, host-memory args, a priority and a label; ``find_kernel`` chooses the
kernel for a node by TensorFlow's rules and, when none fits, raises NotFoundError
listing what is registered for the op, in TensorFlow's words.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from modtensor.framework import dtypes, errors
from modtensor.framework.node_def import format_node_for_error, summarize_attrs
from modtensor.framework.op_def_builder import caller_source
from modtensor.framework.protos import attr_value_pb2, node_def_pb2, op_def_pb2, types_pb2

if TYPE_CHECKING:
    from modtensor.runtime.op_kernel import OpKernel, OpKernelConstruction

__all__ = [
    "DEFAULT_DEVICE_TYPE",
    "KernelDef",
    "KernelFactory",
    "KernelRegistration",
    "KernelRegistry",
    "add_builtin_kernels",
    "add_first_use_hook",
    "add_kernel_change_listener",
    "global_kernel_registry",
    "kernel_label",
    "register_kernel",
    "register_kernel_function",
]

# Kernels registered for this device type serve every device type without a kernel of its own (TF's DEVICE_DEFAULT).
DEFAULT_DEVICE_TYPE = "DEFAULT"

KernelFactory = Callable[["OpKernelConstruction"], "OpKernel"]

KERNEL_LABEL_ATTR = "_kernel"  # the NodeDef attr that selects a labelled kernel, as in TF


def _type_name(enum: int) -> str:
    return types_pb2.DataType.Name(enum)


@dataclass(frozen=True)
class KernelDef:
    """TensorFlow's KernelDef: which nodes of an op a kernel serves on a device type."""

    op: str
    device_type: str
    constraints: tuple[tuple[str, tuple[int, ...]], ...] = ()
    host_memory: tuple[str, ...] = ()
    priority: int = 0
    label: str = ""
    _allowed: dict[str, frozenset[int]] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_allowed", {name: frozenset(types) for name, types in self.constraints})

    def allowed(self, attr: str) -> frozenset[int] | None:
        """The DataTypes allowed for ``attr``, or None when unconstrained."""
        return self._allowed.get(attr)

    def describe(self) -> str:
        """TF's line for this kernel in "Registered kernels" lists: ``device='CPU'; T in [DT_FLOAT]``."""
        parts = [f"device='{self.device_type}'"]
        if self.label:
            parts.append(f"label='{self.label}'")
        for name, types in self.constraints:
            parts.append(f"{name} in [{', '.join(_type_name(t) for t in types)}]")
        return "; ".join(parts)

    def short_debug_string(self) -> str:
        """The KernelDef as TF's ProtoShortDebugString prints it, for error messages."""
        out = [f'op: "{self.op}"', f'device_type: "{self.device_type}"']
        for name, types in self.constraints:
            listed = " ".join(f"type: {_type_name(t)}" for t in types)
            out.append(f'constraint {{ name: "{name}" allowed_values {{ list {{ {listed} }} }} }}')
        out.extend(f'host_memory_arg: "{a}"' for a in self.host_memory)
        if self.label:
            out.append(f'label: "{self.label}"')
        if self.priority:
            out.append(f"priority: {self.priority}")
        return " ".join(out)


@dataclass(frozen=True, eq=False)
class KernelRegistration:
    """A registered kernel: its KernelDef, the factory that builds it per node, and where it came from."""

    kernel_def: KernelDef
    factory: KernelFactory
    source: str

    def __repr__(self) -> str:
        return f"<KernelRegistration {self.kernel_def.op} {self.kernel_def.describe()} from {self.source}>"


def _as_type_enum(value: Any) -> int:
    if isinstance(value, str) and value.startswith("DT_"):
        return types_pb2.DataType.Value(value)
    return dtypes.as_dtype(value).as_datatype_enum


def _normalize_constraints(constraints: Mapping[str, Any] | None) -> tuple[tuple[str, tuple[int, ...]], ...]:
    out = []
    for name, allowed in (constraints or {}).items():
        items = [allowed] if isinstance(allowed, (str, int, dtypes.DType)) else list(allowed)
        enums: list[int] = []
        for item in items:
            enum = _as_type_enum(item)
            if enum not in enums:
                enums.append(enum)
        out.append((str(name), tuple(enums)))
    return tuple(out)


def kernel_label(node_def: node_def_pb2.NodeDef) -> str:
    """The kernel label a node asks for (its ``_kernel`` attr), "" when none."""
    attr = node_def.attr.get(KERNEL_LABEL_ATTR) if KERNEL_LABEL_ATTR in node_def.attr else None
    if attr is None:
        return ""
    return attr.s.decode("utf-8", "replace")


def _node_attr(node_def: node_def_pb2.NodeDef, op_def: op_def_pb2.OpDef, name: str) -> attr_value_pb2.AttrValue | None:
    if name in node_def.attr:
        return node_def.attr[name]
    for attr in op_def.attr:
        if attr.name == name and attr.HasField("default_value"):
            return attr.default_value
    return None


class KernelRegistry:
    """Kernels keyed by (op, device type); thread-safe; lookups by TensorFlow's matching rules."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._by_key: dict[tuple[str, str], list[KernelRegistration]] = {}
        self._by_op: dict[str, list[KernelRegistration]] = {}
        self._listeners: list[Callable[[str], Any]] = []

    # ------------------------------------------------------------------ registration

    def register(
        self,
        op: str,
        device_type: str,
        factory: KernelFactory,
        *,
        constraints: Mapping[str, Any] | None = None,
        host_memory: Iterable[str] = (),
        priority: int = 0,
        label: str = "",
        source: str | None = None,
    ) -> KernelRegistration:
        """Register ``factory`` (an OpKernel subclass or callable taking an OpKernelConstruction).

        ``constraints`` maps attr names to the allowed types (DType, enum, "float32"
        or "DT_FLOAT"). As in TensorFlow, registering never fails for an op that is not
        (yet) registered or for an op and device type that already have a kernel: the
        choice happens at lookup (priority; two matches at the same priority are an error then).
        """
        if not op or not device_type:
            raise ValueError(f"A kernel needs an op and a device type, got op={op!r} device_type={device_type!r}")
        kernel_def = KernelDef(
            op=op,
            device_type=device_type,
            constraints=_normalize_constraints(constraints),
            host_memory=tuple(host_memory),
            priority=int(priority),
            label=label,
        )
        registration = KernelRegistration(kernel_def, factory, source or caller_source())
        return self.register_registration(registration)

    def register_registration(self, registration: KernelRegistration) -> KernelRegistration:
        """Add an already built registration (the native bridge builds them from TF_KernelBuilder).

        TensorFlow keeps every registration (a multimap keyed by op, device type and label) and
        decides at lookup; so does this registry. Listeners (``add_change_listener``) hear of it.
        """
        kd = registration.kernel_def
        with self._lock:
            self._by_key.setdefault((kd.op, kd.device_type), []).append(registration)
            self._by_op.setdefault(kd.op, []).append(registration)
        self._changed(kd.op)
        return registration

    def same_priority_duplicates(self, registration: KernelRegistration) -> list[KernelRegistration]:
        """The other registrations with the same KernelDef (op, device, constraints, label, priority).

        Accepted as TensorFlow accepts them; a node they both match fails at lookup with
        "Multiple OpKernel registrations match NodeDef at the same priority".
        """
        kd = registration.kernel_def
        with self._lock:
            bucket = self._by_key.get((kd.op, kd.device_type), ())
            return [r for r in bucket if r is not registration and r.kernel_def == kd]

    def add_change_listener(self, listener: Callable[[str], Any]) -> None:
        """Call ``listener(op)`` after a kernel of ``op`` is registered or removed (caches of chosen kernels)."""
        self._listeners.append(listener)

    def _changed(self, op: str) -> None:
        for listener in list(self._listeners):
            listener(op)

    def remove(self, registration: KernelRegistration) -> None:
        """Remove exactly this registration (plugin rollback); KeyError if it is not registered."""
        kd = registration.kernel_def
        with self._lock:
            bucket = self._by_key.get((kd.op, kd.device_type), [])
            if registration not in bucket:
                raise KeyError(f"{registration!r} is not registered")
            bucket.remove(registration)
            if not bucket:
                del self._by_key[(kd.op, kd.device_type)]
            self._by_op[kd.op].remove(registration)
            if not self._by_op[kd.op]:
                del self._by_op[kd.op]
        self._changed(kd.op)

    # ------------------------------------------------------------------ queries

    def kernels_for_op(self, op: str) -> list[KernelRegistration]:
        """Every kernel registered for ``op``, in registration order."""
        with self._lock:
            return list(self._by_op.get(op, ()))

    def ops(self) -> list[str]:
        """The ops with at least one kernel, sorted."""
        with self._lock:
            return sorted(self._by_op)

    def registered_kernels_string(self, op: str) -> str:
        """TF's KernelsRegisteredForOp text: one ``  device='CPU'; T in [...]`` line per kernel."""
        kernels = self.kernels_for_op(op)
        if not kernels:
            return "  <no registered kernels>\n"
        return "".join(f"  {k.kernel_def.describe()}\n" for k in kernels)

    def _matches(self, reg: KernelRegistration, node_def: node_def_pb2.NodeDef, op_def: op_def_pb2.OpDef) -> bool:
        for name, _types in reg.kernel_def.constraints:
            allowed = reg.kernel_def.allowed(name)
            value = _node_attr(node_def, op_def, name)
            if value is None:
                raise errors.InvalidArgumentError(
                    node_def,
                    None,
                    f"OpKernel '{reg.kernel_def.op}' has constraint on attr '{name}' not in NodeDef "
                    f"'{format_node_for_error(node_def)} = {node_def.op}[{summarize_attrs(node_def)}]', "
                    f"KernelDef: '{reg.kernel_def.short_debug_string()}'",
                )
            which = value.WhichOneof("value")
            if which == "type":
                if value.type not in allowed:
                    return False
            elif which == "list":
                if not all(t in allowed for t in value.list.type):
                    return False
            else:
                raise errors.InvalidArgumentError(
                    node_def,
                    None,
                    f"OpKernel '{reg.kernel_def.op}' has a type constraint on attr '{name}', which is not a type "
                    f"in {format_node_for_error(node_def)}; KernelDef: '{reg.kernel_def.short_debug_string()}'",
                )
        return True

    def _find(
        self, node_def: node_def_pb2.NodeDef, op_def: op_def_pb2.OpDef, device_type: str
    ) -> tuple[KernelRegistration | None, bool]:
        """The best match (or None) and whether some kernel of this op/device/label exists.

        A device type without a matching kernel of its own gets the op's ``DEFAULT`` kernel, if one
        matches (TF's DEVICE_DEFAULT: device-agnostic kernels serve every device, pluggable ones included).
        """
        best, seen = self._find_for(node_def, op_def, device_type)
        if best is None and device_type != DEFAULT_DEVICE_TYPE:
            fallback, fallback_seen = self._find_for(node_def, op_def, DEFAULT_DEVICE_TYPE)
            return fallback, seen or fallback_seen
        return best, seen

    def _find_for(
        self, node_def: node_def_pb2.NodeDef, op_def: op_def_pb2.OpDef, device_type: str
    ) -> tuple[KernelRegistration | None, bool]:
        label = kernel_label(node_def)
        with self._lock:
            bucket = list(self._by_key.get((node_def.op, device_type), ()))
        best: KernelRegistration | None = None
        seen = False
        for reg in bucket:
            if reg.kernel_def.label != label:
                continue
            seen = True
            if not self._matches(reg, node_def, op_def):
                continue
            if best is None or reg.kernel_def.priority > best.kernel_def.priority:
                best = reg
            elif reg.kernel_def.priority == best.kernel_def.priority:
                raise errors.InvalidArgumentError(
                    node_def,
                    None,
                    f"Multiple OpKernel registrations match NodeDef at the same priority "
                    f"'{format_node_for_error(node_def)}': "
                    f"'{best.kernel_def.short_debug_string()}' and '{reg.kernel_def.short_debug_string()}'",
                )
        return best, seen

    def find_kernel(
        self, node_def: node_def_pb2.NodeDef, op_def: op_def_pb2.OpDef, device_type: str
    ) -> KernelRegistration:
        """The kernel serving ``node_def`` on ``device_type``; NotFoundError in TF's form when none does."""
        best, seen = self._find(node_def, op_def, device_type)
        if best is not None:
            return best
        message = (
            f"No registered '{node_def.op}' OpKernel for '{device_type}' devices compatible with node "
            f"{format_node_for_error(node_def)}"
        )
        if seen:
            message += (
                "\n\t (OpKernel was found, but attributes didn't match) Requested Attributes: "
                f"{summarize_attrs(node_def)}"
            )
        message += f"\n\t.  Registered:{self.registered_kernels_string(node_def.op)}"
        raise errors.NotFoundError(node_def, None, message)

    def has_kernel(self, node_def: node_def_pb2.NodeDef, op_def: op_def_pb2.OpDef, device_type: str) -> bool:
        """True when find_kernel would succeed (ambiguity and bad constraints still raise)."""
        return self._find(node_def, op_def, device_type)[0] is not None

    def supported_device_types(
        self, node_def: node_def_pb2.NodeDef, op_def: op_def_pb2.OpDef, device_types: Sequence[str] | None = None
    ) -> list[str]:
        """The device types (default: the registered ones, in priority order) that have a kernel for the node."""
        if device_types is None:
            from modtensor.runtime.device_factory import device_types as registered_types

            device_types = registered_types()
        return [t for t in device_types if self.has_kernel(node_def, op_def, t)]


# ---------------------------------------------------------------------- the global registry

_GLOBAL = KernelRegistry()
_BUILTINS_LOCK = threading.Lock()
_builtins_loaded = False
_BUILTIN_PROVIDERS: list[Callable[[KernelRegistry], Any]] = []
_FIRST_USE_HOOKS: list[Callable[[], Any]] = []


def add_builtin_kernels(provider: Callable[[KernelRegistry], Any]) -> None:
    """Have ``provider(registry)`` register built-in kernels into the global registry at its first use.

    The built-in CPU kernels (``modtensor.kernels``, a layer above this one) arm themselves
    through this, so ``runtime`` never imports them; registering stays lazy, so importing
    modtensor does not load every kernel module. Armed after the first use, it runs now.
    """
    with _BUILTINS_LOCK:
        _BUILTIN_PROVIDERS.append(provider)
        if not _builtins_loaded:
            return
    provider(_GLOBAL)


def add_first_use_hook(hook: Callable[[], Any]) -> None:
    """Run ``hook()`` once, right after the built-in kernels are registered on the registry's first use.

    Plugin discovery (``modtensor.plugin``) uses this so plugins load at the runtime's
    first use without ``runtime`` importing the plugin layer above it.
    """
    _FIRST_USE_HOOKS.append(hook)


def _ensure_builtin_kernels() -> None:
    global _builtins_loaded
    if _builtins_loaded:
        return
    with _BUILTINS_LOCK:
        if _builtins_loaded:
            return
        _builtins_loaded = True
        from modtensor.runtime.kernels import register_default_kernels

        register_default_kernels(_GLOBAL)
        for provider in list(_BUILTIN_PROVIDERS):
            provider(_GLOBAL)
    for hook in list(_FIRST_USE_HOOKS):
        hook()


def add_kernel_change_listener(listener: Callable[[str], Any]) -> None:
    """Call ``listener(op)`` whenever a kernel of ``op`` is registered in or removed from the global registry.

    Does not load the built-in kernels (safe at import time); the eager kernel cache uses it.
    """
    _GLOBAL.add_change_listener(listener)


def global_kernel_registry() -> KernelRegistry:
    """The process-wide kernel registry, with the built-in CPU kernels registered on first use."""
    _ensure_builtin_kernels()
    return _GLOBAL


def register_kernel(
    op: str,
    device_type: str = "CPU",
    *,
    constraints: Mapping[str, Any] | None = None,
    host_memory: Iterable[str] = (),
    priority: int = 0,
    label: str = "",
    registry: KernelRegistry | None = None,
    source: str | None = None,
) -> Callable[[type[OpKernel]], type[OpKernel]]:
    """Class decorator registering an OpKernel subclass for ``op`` on ``device_type``.

    ``@register_kernel("Foo", "CPU", constraints={"T": [float32]})``. The class gets its
    registrations as ``kernel_registrations`` (a plugin keeps them to roll back).
    """
    target = registry if registry is not None else global_kernel_registry()
    where = source or caller_source()

    def decorate(cls: type[OpKernel]) -> type[OpKernel]:
        reg = target.register(
            op,
            device_type,
            cls,
            constraints=constraints,
            host_memory=host_memory,
            priority=priority,
            label=label,
            source=where,
        )
        registrations = list(getattr(cls, "kernel_registrations", ()))
        cls.kernel_registrations = (*registrations, reg)  # type: ignore[attr-defined]
        return cls

    return decorate


def register_kernel_function(
    op: str,
    fn: Callable[..., Any],
    device_type: str = "CPU",
    *,
    constraints: Mapping[str, Any] | None = None,
    host_memory: Iterable[str] = (),
    priority: int = 0,
    label: str = "",
    registry: KernelRegistry | None = None,
    source: str | None = None,
) -> KernelRegistration:
    """Register a plain function with the OP_FUNCTIONS calling convention as a stateless kernel.

    ``fn`` takes the op's inputs positionally (list args as lists) and the attrs it
    names as keyword arguments, and returns the output (a sequence for several).
    """
    from modtensor.runtime.op_kernel import FunctionKernel

    target = registry if registry is not None else global_kernel_registry()
    return target.register(
        op,
        device_type,
        FunctionKernel.factory_for(fn),
        constraints=constraints,
        host_memory=host_memory,
        priority=priority,
        label=label,
        source=source or caller_source(),
    )
