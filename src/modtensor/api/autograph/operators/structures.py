"""Comparing nested structures of loop and branch variables, with TensorFlow ``nest``'s error texts."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["assert_same_structure", "flatten", "is_sequence", "map_structure", "pack_as"]


def is_sequence(value: Any) -> bool:
    """Whether nest treats ``value`` as a structure (list, tuple, namedtuple, dict), not a leaf."""
    return isinstance(value, (list, tuple, Mapping))


def _keys(mapping: Mapping[Any, Any]) -> list[Any]:
    try:
        return sorted(mapping)
    except TypeError:
        return list(mapping)


def flatten(value: Any) -> list[Any]:
    """The leaves of ``value`` (dicts in sorted key order)."""
    if isinstance(value, Mapping):
        return [leaf for key in _keys(value) for leaf in flatten(value[key])]
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in flatten(item)]
    return [value]


def _rebuild(structure: Any, items: list[Any]) -> Any:
    if isinstance(structure, Mapping):
        values = dict(zip(_keys(structure), items, strict=True))
        return type(structure)((key, values[key]) for key in structure)
    if isinstance(structure, tuple) and hasattr(type(structure), "_fields"):
        return type(structure)(*items)
    return type(structure)(items)


def pack_as(structure: Any, leaves: list[Any]) -> Any:
    """``structure`` with its leaves replaced, in order, by ``leaves``."""
    it = iter(leaves)

    def pack(node: Any) -> Any:
        if isinstance(node, Mapping):
            return _rebuild(node, [pack(node[key]) for key in _keys(node)])
        if isinstance(node, (list, tuple)):
            return _rebuild(node, [pack(item) for item in node])
        return next(it)

    return pack(structure)


def map_structure(fn: Callable[..., Any], *structures: Any) -> Any:
    """``fn`` applied to the corresponding leaves of structures of the same shape."""
    flat = [flatten(s) for s in structures]
    return pack_as(structures[0], [fn(*leaves) for leaves in zip(*flat, strict=True)])


class _Dot:
    def __repr__(self) -> str:
        return "."


def _description(value: Any) -> str:
    return f"type={type(value).__name__} str={value}"


def _check(a: Any, b: Any) -> None:
    a_seq, b_seq = is_sequence(a), is_sequence(b)
    if a_seq != b_seq:
        sequence, other = (a, b) if a_seq else (b, a)
        raise ValueError(
            f'Substructure "{_description(sequence)}" is a sequence, while substructure "{_description(other)}" is not'
        )
    if not a_seq:
        return
    both_mappings = isinstance(a, Mapping) and isinstance(b, Mapping)
    if type(a) is not type(b) and not both_mappings:
        raise TypeError(
            f"The two namedtuples don't have the same sequence type. First structure {_description(a)} has type "
            f"{type(a).__name__}, while second structure {_description(b)} has type {type(b).__name__}"
        )
    if len(a) != len(b):
        raise ValueError(
            "The two structures don't have the same number of elements. "
            f"First structure: {_description(a)}. Second structure: {_description(b)}"
        )
    if both_mappings:
        a_keys, b_keys = _keys(a), _keys(b)
        if a_keys != b_keys:
            raise ValueError(
                "The two dictionaries don't have the same set of keys. First structure has keys "
                f"{_description(a_keys)}, while second structure has keys {_description(b_keys)}"
            )
        for key in a_keys:
            _check(a[key], b[key])
        return
    for x, y in zip(a, b, strict=True):
        _check(x, y)


def _dots(value: Any) -> str:
    if not is_sequence(value):
        return "."
    return str(map_structure(lambda _: _Dot(), value))


def assert_same_structure(a: Any, b: Any) -> None:
    """ValueError/TypeError (nest's text) unless ``a`` and ``b`` nest the same way with the same sequence types."""
    try:
        _check(a, b)
    except (ValueError, TypeError) as detail:
        raise type(detail)(
            "The two structures don't have the same nested structure.\n\n"
            f"First structure: {_description(a)}\n\nSecond structure: {_description(b)}\n\n"
            f"More specifically: {detail}\nEntire first structure:\n{_dots(a)}\nEntire second structure:\n{_dots(b)}"
        ) from None
