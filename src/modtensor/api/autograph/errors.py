"""AutoGraph's error classes and the "in user code:" rewriting of errors raised in converted code.

When an exception leaves a converted function, ``attach_error_metadata`` records the
frames of the user's code it came through (converted frames marked ``*``, frames of
functions called unconverted marked ``**``, modtensor's own frames left out); the
``modtensor.function`` trace then raises ``rewrite(e)``: an exception of the same type
whose message starts with TensorFlow's "in user code:" listing.
"""

from __future__ import annotations

import linecache
import os
import sys
from typing import Any

from modtensor.api.autograph import origins

__all__ = [
    "AutoGraphError",
    "ConversionError",
    "ErrorMetadata",
    "InaccessibleSourceCodeError",
    "PyCTError",
    "StagingError",
    "UnsupportedLanguageElementError",
    "attach_error_metadata",
    "rewrite",
]


class AutoGraphError(Exception):
    """Base class of AutoGraph's own errors."""


class ConversionError(AutoGraphError):
    """A function could not be converted."""


class StagingError(AutoGraphError):
    """An error of a type that cannot carry the rewritten message was raised while staging converted code."""


class PyCTError(Exception):
    """Base class of errors about the Python source being converted."""


class UnsupportedLanguageElementError(PyCTError, NotImplementedError):
    """The function uses a Python feature that AutoGraph does not convert."""


class InaccessibleSourceCodeError(PyCTError, ValueError):
    """The function's source code cannot be found."""


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _is_modtensor_file(filename: str) -> bool:
    return os.path.abspath(filename).startswith(_PACKAGE_DIR + os.sep)


class _Frame:
    __slots__ = ("filename", "function_name", "is_allowlisted", "is_converted", "lineno")

    def __init__(self, filename: str, lineno: int, function_name: str, is_converted: bool, is_allowlisted: bool):
        self.filename = filename
        self.lineno = lineno
        self.function_name = function_name
        self.is_converted = is_converted
        self.is_allowlisted = is_allowlisted

    def as_allowlisted(self) -> _Frame:
        return _Frame(self.filename, self.lineno, self.function_name, False, True)


def _translated_frames(tb: Any, converted: Any, converter_filename: str) -> tuple[_Frame, ...]:
    """The frames of ``tb`` from the innermost outwards, up to the innermost one of the converted function
    whose code object is ``converted``."""
    raw = []
    while tb is not None:
        raw.append((tb.tb_frame.f_code, tb.tb_lineno))
        tb = tb.tb_next
    frames: list[_Frame] = []
    for code, lineno in reversed(raw):
        user_name = origins.user_function_name(code)
        if user_name is not None and origins.conversion_of(code) is converted:
            frames.append(_Frame(code.co_filename, lineno, user_name, True, False))
            break
        if code.co_filename == converter_filename:
            if frames:
                frames[-1] = frames[-1].as_allowlisted()
            continue
        frames.append(_Frame(code.co_filename, lineno, user_name or code.co_name, False, False))
    return tuple(frames)


class ErrorMetadata:
    """The user-code frames an error came through, and the original error's ``Type: message``."""

    __slots__ = ("cause_message", "translated_stack")

    def __init__(
        self,
        tb: Any,
        converted: Any,
        cause_metadata: ErrorMetadata | None,
        cause_message: str | None,
        converter_file: str,
    ):
        translated = _translated_frames(tb, converted, converter_file)
        if cause_metadata is None:
            self.translated_stack = translated
            self.cause_message = cause_message or ""
        else:
            self.translated_stack = cause_metadata.translated_stack + translated[-1:]
            self.cause_message = cause_metadata.cause_message

    def get_message(self) -> str:
        """TensorFlow's text: "in user code:", the frames outermost first, then the original message."""
        lines = ["in user code:", ""]
        for frame in reversed(self.translated_stack):
            if _is_modtensor_file(frame.filename):
                continue
            line = f'    File "{frame.filename}", line {frame.lineno}, in {frame.function_name}'
            if frame.is_converted:
                line += "  *"
            elif frame.is_allowlisted:
                line += "  **"
            lines.append(line)
            code = linecache.getline(frame.filename, frame.lineno).strip()
            lines.append(f"        {code or '<source unavailable>'}")
        lines.append("")
        lines.extend("    " + line for line in self.cause_message.split("\n"))
        lines.append("")
        return "\n".join(lines)

    def create_exception(self, source_error: BaseException) -> BaseException:
        """An exception of ``source_error``'s type (when it can take a message) with the rewritten message."""
        from modtensor.framework import errors as framework_errors
        from modtensor.framework.graph import OperatorNotAllowedInGraphError

        kind = type(source_error)
        message = self.get_message()
        if isinstance(source_error, framework_errors.OpError):
            return kind(source_error.node_def, source_error.op, message)
        if kind in (PyCTError, AutoGraphError, ConversionError, StagingError, OperatorNotAllowedInGraphError):
            return kind(message)
        if kind in _STRING_CONSTRUCTOR_ERRORS or kind.__init__ is Exception.__init__:
            return kind(message)
        if kind is KeyError:
            return MultilineMessageKeyError(message, self.cause_message)
        return StagingError(message)

    def to_exception(self, source_error: BaseException) -> BaseException:
        """The rewritten exception, with the original traceback and this metadata attached."""
        exc = self.create_exception(source_error).with_traceback(source_error.__traceback__)
        exc.__suppress_context__ = True
        exc.ag_error_metadata = self  # type: ignore[attr-defined]
        return exc


_STRING_CONSTRUCTOR_ERRORS = (
    AssertionError,
    AttributeError,
    NameError,
    NotImplementedError,
    RuntimeError,
    StopIteration,
    TypeError,
    UnboundLocalError,
    ValueError,
)


class MultilineMessageKeyError(KeyError):
    """A KeyError whose str() is the whole rewritten message (KeyError's own str() quotes its argument)."""

    def __init__(self, message: str, original_key: Any):
        super().__init__(original_key)
        self._message = message

    def __str__(self) -> str:
        return self._message


MultilineMessageKeyError.__name__ = KeyError.__name__


def attach_error_metadata(error: BaseException, converted: Any, converter_file: str) -> None:
    """Record on ``error`` (being handled now) the user frames from the call of the converted function
    (whose code object is ``converted``) inwards."""
    if hasattr(error, "ag_pass_through"):
        return
    metadata = getattr(error, "ag_error_metadata", None)
    message = None if metadata is not None else f"{type(error).__name__}: {error}"
    tb = sys.exc_info()[2]
    tb = tb.tb_next if tb is not None else None  # the converted_call frame itself
    error.ag_error_metadata = ErrorMetadata(tb, converted, metadata, message, converter_file)  # type: ignore


def rewrite(error: BaseException) -> BaseException:
    """The exception to raise for ``error``: rewritten when converted code recorded its frames, else itself."""
    metadata = getattr(error, "ag_error_metadata", None)
    if metadata is None:
        return error
    return metadata.to_exception(error)
