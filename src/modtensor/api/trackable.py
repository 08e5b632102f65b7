"""Trackable objects (TensorFlow's ``Trackable``/``AutoTrackable``): the object graph that checkpoints and
SavedModels are made of.

An object is *trackable* when it names its dependencies (``_trackable_children``: local name ->
trackable) and, for those that hold state, says which tensors save it (``_serialize_to_tensors``:
attribute name -> value, e.g. ``{"VARIABLE_VALUE": ...}`` for a variable) and how to put them back
(``_restore_from_tensors``). :class:`AutoTrackable` tracks whatever trackable is assigned to one of
its attributes (in assignment order, as TF), and wraps assigned lists and dicts in
:class:`ListWrapper`/:class:`DictWrapper` so that what is appended later is tracked too.

A restore can meet a checkpointed dependency before the Python object has it (a layer built on
first call, an optimizer's slots): the pending restoration is kept on the parent
(``_deferred_restorations``) and applied when a child of that name is tracked.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterable
from typing import Any

__all__ = [
    "AutoTrackable",
    "DictWrapper",
    "ListWrapper",
    "Trackable",
    "TrackableGraph",
    "escape_local_name",
    "is_trackable",
    "list_objects",
]


class Trackable:
    """Base of objects in the checkpoint/SavedModel object graph (no state of its own until used)."""

    def _trackable_children(self, save_type: str = "checkpoint") -> dict[str, Any]:
        """The named dependencies, in the order they are serialized."""
        del save_type
        return dict(self.__dict__.get("_self_dependencies", {}))

    def _serialize_to_tensors(self) -> dict[str, Any]:
        """Attribute name -> tensor (numpy-convertible) of the state this object saves (none by default)."""
        return {}

    def _restore_from_tensors(self, tensors: dict[str, Any]) -> None:
        """Put back the state saved by ``_serialize_to_tensors`` (called with validated numpy values)."""
        del tensors

    def _check_restore(self, tensors: dict[str, Any], key_of: Callable[[str], str]) -> None:
        """Raise (ValueError) when ``tensors`` cannot be restored into this object; nothing changes here."""
        del tensors, key_of

    def _lookup_dependency(self, name: str) -> Any:
        """The dependency named ``name``, or None."""
        return self._trackable_children().get(name)

    # ----------------------------------------------------------------- tracking

    def _track_trackable(self, trackable: Any, name: str, overwrite: bool = True) -> Any:
        """Add ``trackable`` as the dependency ``name`` (replacing an older one when ``overwrite``)."""
        deps = self.__dict__.get("_self_dependencies")
        if deps is None:
            deps = collections.OrderedDict()
            object.__setattr__(self, "_self_dependencies", deps)
        if name in deps and not overwrite:
            return deps[name]
        deps[name] = trackable
        self._handle_deferred(name, trackable)
        return trackable

    def _untrack(self, name: str) -> None:
        deps = self.__dict__.get("_self_dependencies")
        if deps is not None:
            deps.pop(name, None)

    def _handle_deferred(self, name: str, trackable: Any) -> None:
        deferred = self.__dict__.get("_self_deferred_restorations")
        if not deferred:
            return
        pending = deferred.pop(name, None)
        for restore in pending or ():
            restore(trackable)

    def _defer_restoration(self, name: str, restore: Callable[[Any], None]) -> None:
        """Call ``restore(child)`` when a dependency named ``name`` is tracked (checkpoint restores use this)."""
        deferred = self.__dict__.get("_self_deferred_restorations")
        if deferred is None:
            deferred = {}
            object.__setattr__(self, "_self_deferred_restorations", deferred)
        deferred.setdefault(name, []).append(restore)


def is_trackable(value: Any) -> bool:
    """True for objects of the object graph (Trackable subclasses: modules, variables, wrappers, ...)."""
    return isinstance(value, Trackable)


def _wrap(value: Any, owner: Any) -> Any:
    """Lists and dicts assigned to an AutoTrackable become tracking wrappers (TF's ``wrap_or_unwrap``)."""
    if type(value) is list:
        return ListWrapper(value)
    if type(value) is dict:
        return DictWrapper(value)
    return value


class AutoTrackable(Trackable):
    """Tracks every trackable assigned to an attribute (lists and dicts of them too), in assignment order."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("_self_"):
            object.__setattr__(self, name, value)
            return
        value = _wrap(value, self)
        object.__setattr__(self, name, value)
        if is_trackable(value):
            self._track_trackable(value, name)
        elif isinstance(value, tuple) and any(is_trackable(v) for v in value):
            self._track_trackable(_TupleNode(value), name)
        else:
            self._untrack(name)

    def __delattr__(self, name: str) -> None:
        object.__delattr__(self, name)
        self._untrack(name)

    def _trackable_children(self, save_type: str = "checkpoint") -> dict[str, Any]:
        children = super()._trackable_children(save_type)
        if save_type == "savedmodel":
            children.update(self._function_children())
        return children

    def _function_children(self) -> dict[str, Any]:
        """The ``tf.function``s reachable as attributes (methods decorated on the class included), by name."""
        from modtensor.api import function as function_lib

        found: dict[str, Any] = {}
        for name in sorted(dir(type(self)) + list(self.__dict__)):
            if name in found or name.startswith("_self_"):
                continue
            raw = self.__dict__.get(name)
            if raw is None:
                raw = getattr(type(self), name, None)
            restored = getattr(raw, "_is_restored_saved_model_function", False)  # a loaded SavedModel's
            if restored or isinstance(raw, (function_lib.Function, function_lib.ConcreteFunction)):
                try:
                    found[name] = getattr(self, name)
                except AttributeError:
                    continue
        return found


class _TupleNode(Trackable):
    """A tuple of trackables, tracked like a list (children ``"0"``, ``"1"``, ...)."""

    def __init__(self, values: tuple[Any, ...]):
        self._self_values = values

    def _trackable_children(self, save_type: str = "checkpoint") -> dict[str, Any]:
        del save_type
        return {str(i): v for i, v in enumerate(self._self_values) if is_trackable(v)}


class ListWrapper(list, Trackable):
    """A list that tracks its trackable elements as children ``"0"``, ``"1"``, ... (TF's ``ListWrapper``)."""

    def _trackable_children(self, save_type: str = "checkpoint") -> dict[str, Any]:
        del save_type
        return {str(i): v for i, v in enumerate(self) if is_trackable(v)}

    def append(self, value: Any) -> None:
        super().append(value)
        if is_trackable(value):
            self._handle_deferred(str(len(self) - 1), value)

    def extend(self, values: Iterable[Any]) -> None:
        for value in values:
            self.append(value)

    def __iadd__(self, values: Iterable[Any]) -> ListWrapper:
        self.extend(values)
        return self

    def __setitem__(self, index: Any, value: Any) -> None:
        super().__setitem__(index, value)
        if isinstance(index, int) and is_trackable(value):
            self._handle_deferred(str(index % len(self)), value)

    def __hash__(self) -> int:  # trackables are identified by identity in the object graph
        return id(self)

    def __eq__(self, other: object) -> bool:
        return list.__eq__(self, other)

    def __repr__(self) -> str:
        return f"ListWrapper({list.__repr__(self)})"


class DictWrapper(dict, Trackable):
    """A dict that tracks its trackable values as children named by their (string) keys."""

    def _trackable_children(self, save_type: str = "checkpoint") -> dict[str, Any]:
        del save_type
        return {str(k): v for k, v in self.items() if is_trackable(v)}

    def __setitem__(self, key: Any, value: Any) -> None:
        super().__setitem__(key, value)
        if is_trackable(value):
            self._handle_deferred(str(key), value)

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other: object) -> bool:
        return dict.__eq__(self, other)

    def __repr__(self) -> str:
        return f"DictWrapper({dict.__repr__(self)})"


def escape_local_name(name: str) -> str:
    """A dependency name as it appears in checkpoint keys: ``.`` -> ``..``, ``/`` -> ``.S`` (TF's escaping)."""
    return name.replace(".", "..").replace("/", ".S")


class TrackableGraph:
    """The objects reachable from ``root`` in breadth-first order (node ids), with each one's path of names."""

    def __init__(self, root: Any, save_type: str = "checkpoint"):
        self.root = root
        self.save_type = save_type
        self.nodes: list[Any] = []
        self.node_ids: dict[int, int] = {}
        self.paths: dict[int, tuple[str, ...]] = {}
        self.children: list[list[tuple[str, int]]] = []
        queue = collections.deque([root])
        self._add(root, ())
        while queue:
            obj = queue.popleft()
            refs = []
            for name, child in children_of(obj, save_type).items():
                if id(child) not in self.node_ids:
                    self._add(child, (*self.paths[id(obj)], name))
                    queue.append(child)
                refs.append((name, self.node_ids[id(child)]))
            self.children.append(refs)

    def _add(self, obj: Any, path: tuple[str, ...]) -> None:
        self.node_ids[id(obj)] = len(self.nodes)
        self.paths[id(obj)] = path
        self.nodes.append(obj)

    def path_text(self, obj: Any) -> str:
        """TF's way of naming an object in messages: ``(root).model.layer.kernel``."""
        return ".".join(("(root)", *self.paths[id(obj)]))


def children_of(obj: Any, save_type: str = "checkpoint") -> dict[str, Any]:
    """``obj``'s trackable dependencies by name (nothing for non-trackables)."""
    method = getattr(obj, "_trackable_children", None)
    if method is None:
        return {}
    return {name: child for name, child in method(save_type).items() if is_trackable(child)}


def list_objects(root: Any) -> list[Any]:
    """Every trackable reachable from ``root`` (root first, breadth-first)."""
    return TrackableGraph(root).nodes
