"""Reified undefined variables and the loads that check them.

Converted code binds a variable that a control-flow statement may leave unassigned to
``Undefined(name)`` before the statement, so the statement's functional form can pass
it around; reading it through ``ld`` raises ``UnboundLocalError`` as Python would.
``UndefinedReturnValue`` is the return value of a function that has not returned yet.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["Undefined", "UndefinedReturnValue", "ld", "ldu"]


class Undefined:
    """A variable that has no value yet; attributes and items of it are undefined too."""

    __slots__ = ("symbol_name",)

    def __init__(self, symbol_name: str):
        self.symbol_name = symbol_name

    def read(self) -> Any:
        """Reading an undefined variable: Python's UnboundLocalError."""
        raise UnboundLocalError(f"'{self.symbol_name}' is used before assignment")

    def __repr__(self) -> str:
        return self.symbol_name

    def __getattribute__(self, name: str) -> Any:
        try:
            return object.__getattribute__(self, name)
        except AttributeError:
            return self

    def __getitem__(self, key: Any) -> Any:
        return self


class UndefinedReturnValue:
    """The return value of a converted function before any ``return`` ran."""

    __slots__ = ()


def ld(value: Any) -> Any:
    """Load a variable: its value, or UnboundLocalError when it is undefined."""
    if isinstance(value, Undefined):
        return value.read()
    return value


def ldu(load: Callable[[], Any], name: str) -> Any:
    """Load a composite symbol (``a.b``, ``d['k']``) that may not exist: its value, else ``Undefined(name)``."""
    try:
        return load()
    except (KeyError, AttributeError, NameError):
        return Undefined(name)
