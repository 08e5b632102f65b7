"""Which code objects are converted code, and what of them the user wrote.

Conversion registers each code object it compiles (the converted function and the
helper functions generated in it) with the name of the user's function it comes from
and the names it generated (state functions, flags, ``ag__``). Error messages use the
first; ``locals()``/``eval`` in converted code use the second to show the user's
variables only. Weak keys: converted code is freed with its conversion.
"""

from __future__ import annotations

import weakref
from typing import Any

__all__ = ["generated_names", "register", "user_function_name"]

_user_names: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
_generated: weakref.WeakKeyDictionary[Any, frozenset[str]] = weakref.WeakKeyDictionary()


def register(code: Any, user_name: str, generated: frozenset[str]) -> None:
    """Record ``code`` as converted code of the user's function ``user_name``, with its generated names."""
    _user_names[code] = user_name
    _generated[code] = generated


def user_function_name(code: Any) -> str | None:
    """The user's function ``code`` was converted from, or None when it is not converted code."""
    return _user_names.get(code)


def generated_names(code: Any) -> frozenset[str]:
    """The names conversion introduced in ``code`` (empty for code that is not converted)."""
    return _generated.get(code, frozenset())
