"""``tf.nest``: flatten, pack and map nested structures as TF 2.21's ``nest`` does.

Nested are lists, tuples, namedtuples, mappings (iterated in sorted key order, rebuilt in their own
order), ``attrs`` classes and other ``collections.abc.Sequence`` values but strings; everything else
(tensors, numpy arrays, None) is an atom. Composite tensors are atoms (``expand_composites`` is
accepted and not used: modtensor's composites do not expose components to ``nest``).
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterator, Mapping, MappingView, Sequence
from typing import Any

__all__ = ["assert_same_structure", "flatten", "is_nested", "map_structure", "pack_sequence_as"]


def _is_attrs(value: Any) -> bool:
    return hasattr(type(value), "__attrs_attrs__")


def _is_namedtuple(value: Any) -> bool:
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def is_nested(seq: Any) -> bool:
    """True for what ``nest`` descends into: sequences other than strings, mappings, mapping views and attrs."""
    if isinstance(seq, (Mapping, MappingView)) or _is_attrs(seq):
        return True
    return isinstance(seq, Sequence) and not isinstance(seq, (str, bytes, bytearray))


def _sorted_keys(mapping: Mapping[Any, Any]) -> list[Any]:
    try:
        return sorted(mapping.keys())
    except TypeError:
        raise TypeError("nest only supports dicts with sortable keys.") from None


def _children(value: Any, native: bool = False) -> Iterator[Any]:
    """The direct members of a nested value, in ``nest``'s order (``native``: unsortable keys raise Python's own
    TypeError, as TF's C++ ``flatten`` and structure check do)."""
    if isinstance(value, Mapping):
        for key in sorted(value) if native else _sorted_keys(value):
            yield value[key]
    elif _is_attrs(value):
        for a in type(value).__attrs_attrs__:
            yield getattr(value, a.name)
    else:
        yield from value


def flatten(structure: Any, expand_composites: bool = False) -> list[Any]:
    """The atoms of ``structure`` in order (a non-nested value gives ``[value]``)."""
    if not is_nested(structure):
        return [structure]
    leaves: list[Any] = []
    for child in _children(structure, native=True):
        leaves.extend(flatten(child, expand_composites))
    return leaves


def _sequence_like(instance: Any, args: list[Any]) -> Any:
    """A value of ``instance``'s kind holding ``args`` (TF's ``nest_util.sequence_like``)."""
    if isinstance(instance, Mapping):
        result = dict(zip(_sorted_keys(instance), args, strict=True))
        if isinstance(instance, collections.defaultdict):
            rebuilt: Any = collections.defaultdict(instance.default_factory)
            for key in instance:
                rebuilt[key] = result[key]
            return rebuilt
        return type(instance)((key, result[key]) for key in instance)
    if isinstance(instance, MappingView):
        return list(args)
    if _is_namedtuple(instance) or _is_attrs(instance):
        return type(instance)(*args)
    if isinstance(instance, range):
        return list(args)
    return type(instance)(args)


def _pack(structure: Any, flat: Sequence[Any], index: int) -> tuple[int, list[Any]]:
    packed: list[Any] = []
    for s in _children(structure):
        if is_nested(s):
            index, child = _pack(s, flat, index)
            packed.append(_sequence_like(s, child))
        else:
            packed.append(flat[index])
            index += 1
    return index, packed


def _truncate(value: Any, length: int) -> str:
    text = str(value)
    return text[:length] + (text[length:] and "...")


def pack_sequence_as(structure: Any, flat_sequence: Any, expand_composites: bool = False) -> Any:
    """``flat_sequence``'s items packed into the shape of ``structure`` (the inverse of :func:`flatten`)."""
    if not is_nested(flat_sequence):
        raise TypeError(
            f"Attempted to pack value:\n  {_truncate(flat_sequence, 100)}\ninto a structure, but found "
            f"incompatible type `{type(flat_sequence)}` instead."
        )
    if not is_nested(structure):
        if len(flat_sequence) != 1:
            raise ValueError(
                f"The target structure is of type `{type(structure)}`\n  {_truncate(structure, 100)}\nHowever the "
                f"input is a sequence ({type(flat_sequence)}) of length {len(flat_sequence)}.\n  "
                f"{_truncate(flat_sequence, 100)}\nnest cannot guarantee that it is safe to map one to the other."
            )
        return flat_sequence[0]
    try:
        final_index, packed = _pack(structure, flat_sequence, 0)
        if final_index < len(flat_sequence):
            raise IndexError
    except IndexError:
        flat_structure = flatten(structure)
        if len(flat_structure) != len(flat_sequence):
            raise ValueError(
                f"Could not pack sequence. Structure had {len(flat_structure)} atoms, but flat_sequence had "
                f"{len(flat_sequence)} items.  Structure: {structure}, flat_sequence: {flat_sequence}."
            ) from None
    return _sequence_like(structure, packed)


def _describe(value: Any) -> str:
    return f"type={type(value).__name__} str={value}"


def _same_type(a: Any, b: Any) -> bool:
    """TF's type check: equal types, two namedtuples of one name and fields, or two mappings."""
    if type(a) is type(b):
        return True
    if _is_namedtuple(a) and _is_namedtuple(b):
        return type(a).__name__ == type(b).__name__ and a._fields == b._fields
    return isinstance(a, Mapping) and isinstance(b, Mapping)


def _structure_mismatch(a: Any, b: Any, check_types: bool) -> tuple[type[Exception], str] | None:
    """The error class and "More specifically" text of the first difference of ``a`` and ``b``, or None."""
    nested_a, nested_b = is_nested(a), is_nested(b)
    if nested_a != nested_b:
        seq, other = (a, b) if nested_a else (b, a)
        detail = f'Substructure "{_describe(seq)}" is a sequence, while substructure "{_describe(other)}" is not'
        return ValueError, detail
    if not nested_a:
        return None
    if check_types and not _same_type(a, b):
        return TypeError, (
            f"The two namedtuples don't have the same sequence type. First structure {_describe(a)} has type "
            f"{type(a).__name__}, while second structure {_describe(b)} has type {type(b).__name__}"
        )
    children_a, children_b = list(_children(a, native=True)), list(_children(b, native=True))
    if len(children_a) != len(children_b):
        return ValueError, (
            f"The two structures don't have the same number of elements. First structure: {_describe(a)}. "
            f"Second structure: {_describe(b)}"
        )
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        keys_a, keys_b = _sorted_keys(a), _sorted_keys(b)
        if set(keys_a) != set(keys_b):
            return ValueError, (
                f"The two dictionaries don't have the same set of keys. First structure has keys "
                f"{_describe(keys_a)}, while second structure has keys {_describe(keys_b)}"
            )
    for x, y in zip(children_a, children_b, strict=True):
        found = _structure_mismatch(x, y, check_types)
        if found is not None:
            return found
    return None


class _Dot:
    """The ``.`` TF prints for each atom of a structure in its mismatch messages."""

    def __str__(self) -> str:
        return "."

    def __repr__(self) -> str:
        return "."


def assert_same_structure(nest1: Any, nest2: Any, check_types: bool = True, expand_composites: bool = False) -> None:
    """Raise TF's ValueError (or TypeError for differing sequence types) unless the nests have one structure."""
    found = _structure_mismatch(nest1, nest2, bool(check_types))
    if found is None:
        return
    error, detail = found
    message = (
        f"The two structures don't have the same nested structure.\n\nFirst structure: {_describe(nest1)}\n\n"
        f"Second structure: {_describe(nest2)}\n\nMore specifically: {detail}"
    )
    dots1 = map_structure(lambda _: _Dot(), nest1)
    dots2 = map_structure(lambda _: _Dot(), nest2)
    raise error(f"{message}\nEntire first structure:\n{dots1}\nEntire second structure:\n{dots2}")


def map_structure(func: Callable[..., Any], *structure: Any, **kwargs: Any) -> Any:
    """``func`` applied to the atoms at each position of ``structure`` (all of one structure), packed like the
    first one."""
    if not callable(func):
        raise TypeError(f"func must be callable, got: {func}")
    if not structure:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.pop("check_types", True)
    expand_composites = kwargs.pop("expand_composites", False)
    if kwargs:
        raise ValueError(
            "Only valid keyword arguments are `check_types` and `expand_composites`, not: `"
            + "`, `".join(kwargs.keys())
            + "`"
        )
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types, expand_composites=expand_composites)
    entries = zip(*(flatten(s) for s in structure), strict=True)
    return pack_sequence_as(structure[0], [func(*x) for x in entries])
