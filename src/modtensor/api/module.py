"""``tf.Module``: a named container of variables, submodules and functions, tracked for checkpoints and SavedModels.

``variables``, ``trainable_variables``, ``non_trainable_variables`` and ``submodules`` walk the
module's attributes as TF does (attribute names sorted, nested lists/tuples/dicts searched,
submodules after the module's own values, each object once).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import Any

from modtensor.api.trackable import AutoTrackable

__all__ = ["Module"]

_VALID_IDENTIFIER = re.compile(r"^[a-zA-Z_]([a-zA-Z0-9_])*$")


def _camel_to_snake(name: str) -> str:
    return re.sub(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))", r"_\1", name).lower()


def _is_variable(value: Any) -> bool:
    from modtensor.api.variables import Variable

    return isinstance(value, Variable)


def _leaves(value: Any, seen: set[int]) -> Iterator[Any]:
    """The leaves of nested lists, tuples and dicts (dicts by sorted key), each container visited once."""
    if isinstance(value, (list, tuple)):
        if id(value) in seen:
            return
        seen.add(id(value))
        for item in value:
            yield from _leaves(item, seen)
    elif isinstance(value, dict):
        if id(value) in seen:
            return
        seen.add(id(value))
        try:
            keys = sorted(value)
        except TypeError:
            keys = list(value)
        for key in keys:
            yield from _leaves(value[key], seen)
    else:
        yield value


class Module(AutoTrackable):
    """A named container of variables and submodules (``tf.Module``)."""

    def __init__(self, name: str | None = None):
        if name is None:
            name = _camel_to_snake(type(self).__name__)
        elif not _VALID_IDENTIFIER.match(name):
            raise ValueError(
                f"'{name}' is not a valid module name. Module names must be valid Python identifiers (e.g. a "
                "valid class name)."
            )
        self._name = name
        self._scope_name = name + "/"

    @property
    def name(self) -> str:
        """The module's name (given, or the class name in snake case)."""
        return self._name

    @property
    def name_scope(self) -> Any:
        """A name scope (``with module.name_scope:``) for ops created on the module's behalf."""
        from modtensor.api import context

        return context.name_scope(self._name)

    @property
    def variables(self) -> tuple[Any, ...]:
        """Every variable of this module and its submodules (each once)."""
        return tuple(self._flatten(_is_variable))

    @property
    def trainable_variables(self) -> tuple[Any, ...]:
        """The variables with ``trainable=True``."""
        return tuple(self._flatten(lambda v: _is_variable(v) and v.trainable))

    @property
    def non_trainable_variables(self) -> tuple[Any, ...]:
        """The variables with ``trainable=False``."""
        return tuple(self._flatten(lambda v: _is_variable(v) and not v.trainable))

    @property
    def submodules(self) -> tuple[Module, ...]:
        """Every module reachable from this one (not itself), breadth-first."""
        return tuple(self._flatten(lambda v: isinstance(v, Module)))

    def _flatten(self, predicate: Callable[[Any], bool], seen: set[int] | None = None) -> Iterator[Any]:
        """TF's ``_flatten_module``: this module's matching leaves (attributes sorted), then each submodule's."""
        seen = {id(self)} if seen is None else seen
        submodules: list[Module] = []
        containers: set[int] = set()
        for key in sorted(vars(self)):
            if key.startswith("_self_"):
                continue
            for leaf in _leaves(vars(self)[key], containers):
                if id(leaf) in seen:
                    continue
                seen.add(id(leaf))
                if predicate(leaf):
                    yield leaf
                if isinstance(leaf, Module):
                    submodules.append(leaf)
        for module in submodules:
            yield from module._flatten(predicate, seen)

    @classmethod
    def with_name_scope(cls, method: Callable[..., Any]) -> Callable[..., Any]:
        """Decorate a method so that it runs inside the module's name scope."""

        @functools.wraps(method)
        def wrapped(self: Module, *args: Any, **kwargs: Any) -> Any:
            with self.name_scope:
                return method(self, *args, **kwargs)

        return wrapped

    def __repr__(self) -> str:
        return f"<{type(self).__module__}.{type(self).__name__} object at 0x{id(self):x}>"
