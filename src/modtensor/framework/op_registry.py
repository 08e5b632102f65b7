"""OpRegistry: the one registry of ops, for Python-defined ops and (through the native bridge) C plugin ops.

The standard library registers lazily: ``register_op("AddV2")`` queues a builder on
the global registry, and the queue is parsed and validated on the first query
(``lookup``, ``get``, ``names``, ``op_list``, ``in``), which keeps ``import modtensor``
fast. Direct ``register()`` calls finalize and validate at once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

from modtensor.framework import errors
from modtensor.framework.op_def_builder import (
    OpDefBuilder,
    OpRegistrationData,
    ShapeFn,
    caller_source,
    summarize_op_def,
    validate_op_def,
)
from modtensor.framework.protos import op_def_pb2

__all__ = ["OpRegistrationData", "OpRegistry", "add_missing_op_hook", "global_registry", "register_op"]


class OpRegistry:
    """A thread-safe map from op name to OpRegistrationData, with a queue of not-yet-finalized builders."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._ops: dict[str, OpRegistrationData] = {}
        self._pending: list[OpDefBuilder] = []

    # ------------------------------------------------------------------ registration

    def register(
        self,
        builder_or_op_def: OpDefBuilder | op_def_pb2.OpDef,
        shape_fn: ShapeFn | None = None,
        *,
        source: str | None = None,
    ) -> OpRegistrationData:
        """Finalize, validate and add an op now; returns its registration.

        ``source`` names the definition in error messages (default: the "file:line"
        where the builder was made, or of the caller for an OpDef; the native bridge
        passes the plugin's path). ``shape_fn``
        overrides a builder's own. Raises InvalidArgumentError for a bad definition and
        AlreadyExistsError (naming both sources) when the name is taken.
        """
        if source is None:
            is_builder = isinstance(builder_or_op_def, OpDefBuilder)
            source = builder_or_op_def.source if is_builder else caller_source()
        if isinstance(builder_or_op_def, OpDefBuilder):
            data = builder_or_op_def.finalize()
            fn = shape_fn if shape_fn is not None else data.shape_fn
            data = OpRegistrationData(op_def=data.op_def, shape_fn=fn, source=source)
        elif isinstance(builder_or_op_def, op_def_pb2.OpDef):
            op_def = op_def_pb2.OpDef()
            op_def.CopyFrom(builder_or_op_def)
            validate_op_def(op_def)
            data = OpRegistrationData(op_def=op_def, shape_fn=shape_fn, source=source)
        else:
            raise TypeError(f"register() takes an OpDefBuilder or an OpDef, not {type(builder_or_op_def).__name__}")
        with self._lock:
            self._check_free(data.op_def.name, source)
            self._ops[data.op_def.name] = data
        return data

    def register_deferred(self, builder: OpDefBuilder) -> OpDefBuilder:
        """Queue a builder; it is finalized at the first query. Duplicate names fail here, at once."""
        with self._lock:
            self._check_free(builder.name, builder.source)
            self._pending.append(builder)
        return builder

    def _check_free(self, name: str, source: str) -> None:
        existing = self._ops.get(name)
        first = existing.source if existing else next((b.source for b in self._pending if b.name == name), None)
        if first is not None:
            raise errors.AlreadyExistsError(
                None,
                None,
                f"Op '{name}' is already registered: first defined at {first}, defined again at {source}. "
                "Rename one of the ops or remove the duplicate definition (or plugin).",
            )

    def _finalize_pending(self) -> None:
        """Finalize queued builders; good ones are registered, then all failures are raised together."""
        with self._lock:
            if not self._pending:
                return
            pending, self._pending = self._pending, []
            failures = []
            for builder in pending:
                try:
                    data = builder.finalize()
                except errors.InvalidArgumentError as e:
                    failures.append(f"Invalid definition of op '{builder.name}' at {builder.source}:\n{e.message}")
                    continue
                self._ops[builder.name] = data
            if failures:
                raise errors.InvalidArgumentError(None, None, "\n".join(failures))

    # ------------------------------------------------------------------ queries

    def lookup(self, name: str) -> OpRegistrationData | None:
        """The registration of op `name`, or None if there is none."""
        with self._lock:
            self._finalize_pending()
            data = self._ops.get(name)
        if data is None and self is _GLOBAL and _MISSING_OP_HOOKS:
            hooks = list(_MISSING_OP_HOOKS)
            _MISSING_OP_HOOKS.clear()
            for hook in hooks:  # e.g. plugin discovery, which may register the op
                hook()
            with self._lock:
                self._finalize_pending()
                data = self._ops.get(name)
        return data

    def get(self, name: str) -> OpRegistrationData:
        """The registration of op `name`; NotFoundError (TF's "Op type not registered" message) if absent."""
        data = self.lookup(name)
        if data is None:
            import socket  # only for this message; keeps the import of the registry light

            raise errors.NotFoundError(
                None,
                None,
                f"Op type not registered '{name}' in binary running on {socket.gethostname()}. "
                "Make sure the Op and Kernel are registered in the binary running in this process. "
                "If the op comes from a plugin, load the plugin that defines it with "
                "modtensor.load_library(path) (or install it under modtensor-plugins/) before building "
                "or importing the graph.",
            )
        return data

    def remove(self, name: str) -> OpRegistrationData:
        """Unregister op `name` (rollback of a plugin that failed to load); returns what was removed."""
        with self._lock:
            self._finalize_pending()
            data = self._ops.pop(name, None)
        if data is None:
            raise errors.NotFoundError(None, None, f"Cannot remove op '{name}': it is not registered")
        return data

    def names(self) -> list[str]:
        """Registered op names, sorted."""
        with self._lock:
            self._finalize_pending()
            return sorted(self._ops)

    def registrations(self) -> list[OpRegistrationData]:
        """All registrations sorted by op name (for listing ops and their sources, e.g. in the CLI)."""
        with self._lock:
            self._finalize_pending()
            return [self._ops[n] for n in sorted(self._ops)]

    def describe(self, name: str) -> str:
        """One-line summary of op `name` in TF's Op<...> form, followed by where it was defined."""
        data = self.get(name)
        return f"{summarize_op_def(data.op_def)} (defined at {data.source})"

    def op_list(self) -> op_def_pb2.OpList:
        """All OpDefs as an OpList, sorted by name (copies; editing them does not change the registry)."""
        result = op_def_pb2.OpList()
        for data in self.registrations():
            result.op.add().CopyFrom(data.op_def)
        return result

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.lookup(name) is not None

    def __len__(self) -> int:
        with self._lock:
            self._finalize_pending()
            return len(self._ops)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())


_GLOBAL = OpRegistry()
_MISSING_OP_HOOKS: list[Callable[[], object]] = []


def add_missing_op_hook(hook: Callable[[], object]) -> None:
    """Run ``hook()`` once, the first time the global registry is asked for an op it does not have.

    Plugin discovery uses this, so a graph naming an op of an installed plugin
    resolves it without the framework knowing about plugins.
    """
    _MISSING_OP_HOOKS.append(hook)


def global_registry() -> OpRegistry:
    """The process-wide registry that graphs, importers and plugins use."""
    return _GLOBAL


def register_op(name: str) -> OpDefBuilder:
    """Start a deferred registration in the global registry; chain the spec calls on the result.

    The op is parsed and validated on the registry's first query; a bad spec then
    raises InvalidArgumentError naming the op and the "file:line" of this call.
    """
    return _GLOBAL.register_deferred(OpDefBuilder(name, source=caller_source()))
