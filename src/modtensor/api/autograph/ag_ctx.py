"""Whether AutoGraph is on where code runs now: a per-thread stack of control statuses.

A converted function the user asked for runs with status ENABLED; a function marked
``do_not_convert`` runs with status DISABLED, and nothing it calls is converted (a
``modtensor.function`` traced under it included), as in TensorFlow.
"""

from __future__ import annotations

import enum
import threading
from typing import Any

__all__ = ["ControlStatusCtx", "Status", "control_status_ctx"]


class Status(enum.Enum):
    """AutoGraph's state for the code running now."""

    UNSPECIFIED = 0
    ENABLED = 1
    DISABLED = 2


class ControlStatusCtx:
    """A context in which AutoGraph's status is ``status`` (with ``options`` when ENABLED)."""

    __slots__ = ("options", "status")

    def __init__(self, status: Status, options: Any = None):
        self.status = status
        self.options = options

    def __enter__(self) -> ControlStatusCtx:
        _stack().append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        stack = _stack()
        if stack and stack[-1] is self:
            stack.pop()

    def __repr__(self) -> str:
        return f"ControlStatusCtx(status={self.status.name}, options={self.options!r})"


_local = threading.local()
_UNSPECIFIED = ControlStatusCtx(Status.UNSPECIFIED)


def _stack() -> list[ControlStatusCtx]:
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def control_status_ctx() -> ControlStatusCtx:
    """The innermost status context of this thread (UNSPECIFIED outside any)."""
    stack = _stack()
    return stack[-1] if stack else _UNSPECIFIED
