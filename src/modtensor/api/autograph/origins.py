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

__all__ = ["conversion_of", "generated_names", "register", "user_function_name"]

_user_names: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
_generated: weakref.WeakKeyDictionary[Any, frozenset[str]] = weakref.WeakKeyDictionary()
_conversions: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def register(code: Any, user_name: str, generated: frozenset[str], converted: Any) -> None:
    """Record ``code`` as converted code of the user's function ``user_name``, with its generated names.

    ``converted`` is the code object of the converted function ``code`` belongs to (itself, for that function).
    """
    _user_names[code] = user_name
    _generated[code] = generated
    _conversions[code] = weakref.ref(converted)


def conversion_of(code: Any) -> Any:
    """The code object of the converted function ``code`` is part of, or None."""
    ref = _conversions.get(code)
    return ref() if ref is not None else None


def user_function_name(code: Any) -> str | None:
    """The user's function ``code`` was converted from, or None when it is not converted code (or not code)."""
    if code is None:
        return None
    try:
        return _user_names.get(code)
    except TypeError:  # not a code object (cannot be weakly referenced)
        return None


def generated_names(code: Any) -> frozenset[str]:
    """The names conversion introduced in ``code`` (empty for code that is not converted)."""
    return _generated.get(code, frozenset())
