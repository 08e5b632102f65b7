"""TensorFlow-compatible error classes and status codes.

Every error a runtime operation raises is an ``OpError`` subclass carrying the
canonical status code, so code written against ``tf.errors`` catches the same
classes here; ``node_def`` and ``op`` name the node that failed when known.
"""

from __future__ import annotations

from typing import Any

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """Base class of runtime errors: a status code, a message, and the failing node if any."""

    error_code: int = UNKNOWN

    def __init__(self, node_def: Any = None, op: Any = None, message: str = "", error_code: int | None = None):
        super().__init__(message)
        self._node_def = node_def
        self._op = op
        self._message = message
        if error_code is not None:
            self.error_code = error_code

    @property
    def message(self) -> str:
        """The error message, without the class name."""
        return self._message

    @property
    def node_def(self) -> Any:
        """The NodeDef of the failing node, or None."""
        return self._node_def

    @property
    def op(self) -> Any:
        """The Operation that failed, or None."""
        return self._op

    def __str__(self) -> str:
        return self._message

    def __reduce__(self):
        return (type(self), (self._node_def, self._op, self._message))


def _subclass(name: str, code: int, doc: str) -> type[OpError]:
    def __init__(self, node_def: Any = None, op: Any = None, message: str = "", *args: Any):
        OpError.__init__(self, node_def, op, message, code)

    return type(name, (OpError,), {"__init__": __init__, "error_code": code, "__doc__": doc})


CancelledError = _subclass("CancelledError", CANCELLED, "The operation was cancelled.")
UnknownError = _subclass("UnknownError", UNKNOWN, "An error of no more specific kind.")
InvalidArgumentError = _subclass("InvalidArgumentError", INVALID_ARGUMENT, "An argument was invalid.")
DeadlineExceededError = _subclass("DeadlineExceededError", DEADLINE_EXCEEDED, "A deadline passed.")
NotFoundError = _subclass("NotFoundError", NOT_FOUND, "A requested entity (op, file, device) was not found.")
AlreadyExistsError = _subclass("AlreadyExistsError", ALREADY_EXISTS, "An entity being created already exists.")
PermissionDeniedError = _subclass("PermissionDeniedError", PERMISSION_DENIED, "The caller may not do this.")
ResourceExhaustedError = _subclass("ResourceExhaustedError", RESOURCE_EXHAUSTED, "A resource (memory) ran out.")
FailedPreconditionError = _subclass(
    "FailedPreconditionError", FAILED_PRECONDITION, "The system is not in a state that allows this."
)
AbortedError = _subclass("AbortedError", ABORTED, "The operation was aborted.")
OutOfRangeError = _subclass("OutOfRangeError", OUT_OF_RANGE, "An index or iteration went past the valid range.")
UnimplementedError = _subclass("UnimplementedError", UNIMPLEMENTED, "The operation is not implemented.")
InternalError = _subclass("InternalError", INTERNAL, "An internal invariant was broken.")
UnavailableError = _subclass("UnavailableError", UNAVAILABLE, "The service is unavailable.")
DataLossError = _subclass("DataLossError", DATA_LOSS, "Unrecoverable data loss or corruption.")
UnauthenticatedError = _subclass("UnauthenticatedError", UNAUTHENTICATED, "The request lacks credentials.")

_CODE_TO_CLASS: dict[int, type[OpError]] = {
    cls.error_code: cls
    for cls in (
        CancelledError,
        UnknownError,
        InvalidArgumentError,
        DeadlineExceededError,
        NotFoundError,
        AlreadyExistsError,
        PermissionDeniedError,
        ResourceExhaustedError,
        FailedPreconditionError,
        AbortedError,
        OutOfRangeError,
        UnimplementedError,
        InternalError,
        UnavailableError,
        DataLossError,
        UnauthenticatedError,
    )
}


def exception_type_from_error_code(code: int) -> type[OpError]:
    """Return the OpError subclass for a canonical status code (as ``tf.errors`` does)."""
    return _CODE_TO_CLASS.get(code, UnknownError)


def error_code_from_exception_type(cls: type[OpError]) -> int:
    """Return the canonical status code of an OpError subclass."""
    return cls.error_code
