"""``tf.train.Checkpoint``: object-based checkpoints in TensorFlow's format, written and restored.

Saving walks the object graph from the root breadth-first (``api.trackable.TrackableGraph``),
asks each object for its tensors (``_serialize_to_tensors``) and writes them to a tensor bundle
under TF's keys (``model/layer/kernel/.ATTRIBUTES/VARIABLE_VALUE``: the escaped path of names,
then the attribute), in node order, then the ``TrackableObjectGraph`` proto under
``_CHECKPOINTABLE_OBJECT_GRAPH``: the files are the ones TF writes for the same objects.

Restoring matches the checkpoint's object graph against the Python objects from the root by
child names. All values of the matched objects are read (sizes and CRCs checked) and checked
against the objects (dtype, shape) before the first one is assigned: a restore that fails leaves
every object as it was. A checkpointed child the Python object does not have yet is restored
when it is added (deferred restoration, as TF). A checkpoint without an object graph (written by
``compat.v1.train.Saver``) is restored by variable names.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

from modtensor.api import trackable as trackable_lib
from modtensor.framework import errors, tensor_bundle
from modtensor.framework.protos import trackable_object_graph_pb2

__all__ = [
    "OBJECT_GRAPH_KEY",
    "Checkpoint",
    "CheckpointLoadStatus",
    "CheckpointOptions",
    "InitializationOnlyStatus",
    "NameBasedSaverStatus",
    "restore_object_graph",
    "write_object_graph",
]

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
_ATTRIBUTES = ".ATTRIBUTES"


class CheckpointOptions:
    """``tf.train.CheckpointOptions``: accepted for compatibility (one local device, no async writes)."""

    def __init__(
        self,
        experimental_io_device: str | None = None,
        experimental_enable_async_checkpoint: bool = False,
        experimental_write_callbacks: Any = None,
        enable_async: bool = False,
        experimental_sharding_callback: Any = None,
        experimental_skip_slot_variables: bool = False,
    ):
        self.experimental_io_device = experimental_io_device
        self.experimental_enable_async_checkpoint = experimental_enable_async_checkpoint
        self.experimental_write_callbacks = experimental_write_callbacks
        self.enable_async = enable_async
        self.experimental_sharding_callback = experimental_sharding_callback
        self.experimental_skip_slot_variables = experimental_skip_slot_variables


# ============================================================================ saving


def _object_prefix(path: tuple[str, ...]) -> str:
    return "/".join(trackable_lib.escape_local_name(name) for name in path)


def checkpoint_key(path: tuple[str, ...], attribute: str) -> str:
    """TF's key of an object's attribute: the escaped path of names, ``.ATTRIBUTES``, the escaped attribute."""
    return f"{_object_prefix(path)}/{_ATTRIBUTES}/{trackable_lib.escape_local_name(attribute)}"


def _full_name(obj: Any) -> str:
    name = getattr(obj, "name", None)
    if isinstance(name, str) and hasattr(obj, "_serialize_to_tensors") and hasattr(obj, "handle"):
        return name[:-2] if name.endswith(":0") else name
    return ""


def serialize_object_graph(
    graph: trackable_lib.TrackableGraph,
) -> tuple[list[tuple[str, Any]], trackable_object_graph_pb2.TrackableObjectGraph]:
    """The tensors to save (key, value) in node order, and the object graph proto describing them."""
    proto = trackable_object_graph_pb2.TrackableObjectGraph()
    tensors: list[tuple[str, Any]] = []
    has_values = [False] * len(graph.nodes)
    for node_id, obj in enumerate(graph.nodes):
        node = proto.nodes.add()
        for name, child_id in graph.children[node_id]:
            node.children.add(node_id=child_id, local_name=name)
        values = obj._serialize_to_tensors() if hasattr(obj, "_serialize_to_tensors") else {}
        path = graph.paths[id(obj)]
        legacy = getattr(obj, "_legacy_saveable_name", None)
        if legacy is not None and values:  # one attribute, its tensors under the key plus their suffixes (TF's)
            key = checkpoint_key(path, legacy)
            node.attributes.add(name=legacy, full_name=_full_name(obj), checkpoint_key=key)
            tensors += [(key + attribute.removeprefix(legacy), value) for attribute, value in values.items()]
        for attribute, value in values.items() if legacy is None else ():
            key = checkpoint_key(path, attribute)
            node.attributes.add(name=attribute, full_name=_full_name(obj), checkpoint_key=key)
            tensors.append((key, value))
        has_values[node_id] = bool(values)
    changed = True
    while changed:  # a node has values when it or anything below it has (the graph may have cycles)
        changed = False
        for node_id, refs in enumerate(graph.children):
            if not has_values[node_id] and any(has_values[child] for _, child in refs):
                has_values[node_id] = changed = True
    for node, value in zip(proto.nodes, has_values, strict=True):
        node.has_checkpoint_values.value = value
    return tensors, proto


def write_object_graph(graph: trackable_lib.TrackableGraph, file_prefix: str) -> str:
    """Write the checkpoint of ``graph``'s objects at ``file_prefix`` (atomically); returns the prefix."""
    tensors, proto = serialize_object_graph(graph)
    writer = tensor_bundle.BundleWriter(file_prefix)
    try:
        for key, value in tensors:
            writer.add(key, value)
        writer.add(OBJECT_GRAPH_KEY, np.array(proto.SerializeToString(), dtype=object))
    except BaseException:
        writer.abort()
        raise
    writer.finish()
    return os.fspath(file_prefix)


# ============================================================================ restoring


def _open_reader(save_path: str) -> tensor_bundle.BundleReader:
    save_path = os.fspath(save_path)
    if os.path.isdir(save_path):
        raise errors.DataLossError(
            None,
            None,
            f"Unable to open table file {save_path}: FAILED_PRECONDITION: {save_path}; Is a directory: give a "
            "checkpoint prefix (tf.train.latest_checkpoint(directory) finds the latest one in a directory)",
        )
    return tensor_bundle.BundleReader(save_path)


class _Restoration:
    """One restore of a checkpoint: the reader, which checkpoint nodes matched which objects, what was used."""

    def __init__(self, reader: tensor_bundle.BundleReader, proto: trackable_object_graph_pb2.TrackableObjectGraph):
        self.reader = reader
        self.proto = proto
        self.matched: dict[int, Any] = {}  # checkpoint node id -> object
        self.restored_keys: set[str] = set()
        self.names = self._node_names()
        self._all_keys: list[str] | None = None

    def _node_names(self) -> dict[int, str]:
        names = {0: "(root)"}
        queue = [0]
        while queue:
            node_id = queue.pop(0)
            for child in self.proto.nodes[node_id].children:
                if child.node_id not in names:
                    names[child.node_id] = f"{names[node_id]}.{child.local_name}"
                    queue.append(child.node_id)
        return names

    def match(self, node_id: int, obj: Any, lookup: Callable[[Any, str], Any] | None = None) -> list[tuple[int, Any]]:
        """Pair checkpoint nodes with objects below (node_id, obj); defer the children the objects lack yet."""
        pairs = []
        queue = [(node_id, obj)]
        while queue:
            node_id, obj = queue.pop(0)
            if node_id in self.matched:
                continue
            self.matched[node_id] = obj
            pairs.append((node_id, obj))
            for ref in self.proto.nodes[node_id].children:
                if ref.node_id in self.matched:
                    continue
                child = lookup(obj, ref.local_name) if lookup is not None else None
                if child is None:
                    child = trackable_lib.children_of(obj).get(ref.local_name)
                if child is not None:
                    queue.append((ref.node_id, child))
                elif isinstance(obj, trackable_lib.Trackable):
                    obj._defer_restoration(ref.local_name, self._deferred(ref.node_id))
            lookup = None  # the custom lookup only applies to the root
        return pairs

    def _deferred(self, node_id: int) -> Callable[[Any], None]:
        def restore(child: Any) -> None:
            if node_id not in self.matched:
                self.restore_pairs(self.match(node_id, child))

        return restore

    def _attribute_keys(self, attributes: Any) -> dict[str, str]:
        """Attribute name -> checkpoint key. A legacy saveable's attribute (a mutable lookup table's ``table``)
        names the prefix of its tensors' keys (``.../table-keys``, ``.../table-values``): one entry per tensor."""
        keys = {}
        for attribute in attributes:
            key = attribute.checkpoint_key
            if key not in self.reader:
                if self._all_keys is None:
                    self._all_keys = self.reader.key_list()
                parts = [k for k in self._all_keys if k.startswith(key + "-")]
                if parts:
                    keys.update({attribute.name + k.removeprefix(key): k for k in parts})
                    continue
            keys[attribute.name] = key
        return keys

    def restore_pairs(self, pairs: list[tuple[int, Any]]) -> None:
        """Read every value of the matched objects, check them all, then assign them all."""
        wanted = [(node_id, obj) for node_id, obj in pairs if self.proto.nodes[node_id].attributes]
        keys_of = {
            node_id: self._attribute_keys(self.proto.nodes[node_id].attributes) for node_id, _ in wanted
        }
        for node_id, keys in keys_of.items():
            for key in keys.values():
                if key not in self.reader:
                    raise errors.NotFoundError(
                        None,
                        None,
                        f"Key {key} not found in checkpoint {self.reader.prefix} (its object graph lists it for "
                        f"{self.names.get(node_id, node_id)})",
                    )
        read = self.reader.lookup_many([key for keys in keys_of.values() for key in keys.values()])
        plan = []
        for node_id, obj in wanted:
            keys = keys_of[node_id]
            values = {name: read[key] for name, key in keys.items()}
            check = getattr(obj, "_check_restore", None)
            if check is not None:
                check(values, keys.__getitem__)
            plan.append((obj, values, keys))
        for obj, values, keys in plan:
            obj._restore_from_tensors(values)
            self.restored_keys.update(keys.values())


def _objects_with_attributes(objects: list[Any]) -> list[Any]:
    out = []
    for obj in objects:
        method = getattr(obj, "_serialize_to_tensors", None)
        if method is None:
            continue
        try:
            if method():
                out.append(obj)
        except NotImplementedError:
            out.append(obj)
    return out


class _Status:
    """Shared by the load statuses: ``expect_partial`` and the session methods (no-ops eagerly)."""

    def expect_partial(self) -> _Status:
        """Silence the checks of a partial restore (kept for TF compatibility; returns self)."""
        return self

    def run_restore_ops(self, session: Any = None) -> None:
        """Nothing to run: values are assigned eagerly."""
        del session

    def initialize_or_restore(self, session: Any = None) -> None:
        """Nothing to run: values are assigned eagerly."""
        del session


class CheckpointLoadStatus(_Status):
    """What ``Checkpoint.restore`` returns: assertions about how the checkpoint matched the objects."""

    def __init__(self, restoration: _Restoration, graph_root: Callable[[], trackable_lib.TrackableGraph]):
        self._restoration = restoration
        self._graph_root = graph_root

    def _python_objects(self) -> list[Any]:
        return self._graph_root().nodes

    def assert_consumed(self) -> CheckpointLoadStatus:
        """Every checkpointed value was restored and every Python object with values got one (AssertionError)."""
        restoration = self._restoration
        for node_id, node in enumerate(restoration.proto.nodes):
            if not node.attributes:
                continue
            if node_id not in restoration.matched:
                name = restoration.names.get(node_id, node_id)
                raise AssertionError(f"Unresolved object in checkpoint {name}: {node}")
        unused = [
            restoration.names.get(node_id, node_id)
            for node_id, node in enumerate(restoration.proto.nodes)
            if node.attributes and any(a.checkpoint_key not in restoration.restored_keys for a in node.attributes)
        ]
        if unused:
            raise AssertionError(
                "Unused attributes in these objects (the attributes exist in the checkpoint but were not restored):"
                f"\n{unused}"
            )
        self._assert_python_objects_bound()
        return self

    def _assert_python_objects_bound(self) -> None:
        matched = {id(obj) for obj in self._restoration.matched.values()}
        unbound = [obj for obj in _objects_with_attributes(self._python_objects()) if id(obj) not in matched]
        if unbound:
            raise AssertionError(
                f"Found {len(unbound)} Python objects that were not bound to checkpointed values, likely due to "
                f"changes in the Python program. Showing {min(len(unbound), 10)} of {len(unbound)} unmatched "
                f"objects: {unbound[:10]}"
            )

    def assert_existing_objects_matched(self) -> CheckpointLoadStatus:
        """Every Python object with values that exists now was matched (AssertionError otherwise)."""
        self._assert_python_objects_bound()
        return self

    def assert_nontrivial_match(self) -> CheckpointLoadStatus:
        """Something beyond the root matched a checkpointed value (AssertionError otherwise)."""
        restoration = self._restoration
        if not any(restoration.proto.nodes[n].attributes for n in restoration.matched if n != 0):
            unbound = _objects_with_attributes(self._python_objects())
            raise AssertionError(
                "Nothing except the root object matched a checkpointed value. Typically this means that the "
                "checkpoint does not match the Python program. The following objects have no matching checkpointed "
                f"value: {unbound}"
            )
        return self


class InitializationOnlyStatus(_Status):
    """``restore(None)``: nothing is restored; the assertions fail."""

    def _fail(self) -> None:
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being restored.")

    def assert_consumed(self) -> None:
        """Always fails: nothing was restored."""
        self._fail()

    def assert_existing_objects_matched(self) -> None:
        """Always fails: nothing was restored."""
        self._fail()

    def assert_nontrivial_match(self) -> None:
        """Always fails: nothing was restored."""
        self._fail()


class NameBasedSaverStatus(_Status):
    """A name-based (``compat.v1.train.Saver``) checkpoint restored into objects by variable names."""

    def __init__(self, unmatched: list[Any], unused: list[str]):
        self._unmatched = unmatched
        self._unused = unused

    def assert_consumed(self) -> NameBasedSaverStatus:
        """Every variable found its value and every checkpointed value was used (AssertionError otherwise)."""
        if self._unmatched:
            raise AssertionError(f"Some objects had no value in the name-based checkpoint: {self._unmatched}")
        if self._unused:
            raise AssertionError(f"Values in the name-based checkpoint were not restored: {self._unused}")
        return self

    def assert_existing_objects_matched(self) -> NameBasedSaverStatus:
        """Every variable found its value (AssertionError otherwise)."""
        if self._unmatched:
            raise AssertionError(f"Some objects had no value in the name-based checkpoint: {self._unmatched}")
        return self

    def assert_nontrivial_match(self) -> NameBasedSaverStatus:
        """Always true for a name-based restore that returned."""
        return self


def _restore_by_name(reader: tensor_bundle.BundleReader, graph: trackable_lib.TrackableGraph) -> NameBasedSaverStatus:
    plan = []
    unmatched = []
    used = set()
    for obj in _objects_with_attributes(graph.nodes):
        name = _full_name(obj)
        if name and name in reader:
            values = {"VARIABLE_VALUE": reader.lookup(name)}
            obj._check_restore(values, lambda _attr, name=name: name)
            plan.append((obj, values))
            used.add(name)
        else:
            unmatched.append(obj)
    for obj, values in plan:
        obj._restore_from_tensors(values)
    unused = [key for key in reader.key_list() if key not in used]
    return NameBasedSaverStatus(unmatched, unused)


def restore_object_graph(
    save_path: str,
    root: Any,
    graph_of: Callable[[], trackable_lib.TrackableGraph],
    lookup: Callable[[Any, str], Any] | None = None,
) -> _Status:
    """Restore the checkpoint at ``save_path`` into the objects reachable from ``root`` (see the module doc)."""
    reader = _open_reader(save_path)
    if OBJECT_GRAPH_KEY not in reader:
        return _restore_by_name(reader, graph_of())
    try:
        proto = trackable_object_graph_pb2.TrackableObjectGraph.FromString(reader.lookup(OBJECT_GRAPH_KEY).item())
    except errors.OpError:
        raise
    except Exception:  # noqa: BLE001 - protobuf's DecodeError
        raise errors.DataLossError(
            None, None, f"The object graph in checkpoint {save_path} ({OBJECT_GRAPH_KEY}) cannot be parsed"
        ) from None
    restoration = _Restoration(reader, proto)
    restoration.restore_pairs(restoration.match(0, root, lookup))
    return CheckpointLoadStatus(restoration, graph_of)


# ============================================================================ tf.train.Checkpoint


class Checkpoint(trackable_lib.AutoTrackable):
    """``tf.train.Checkpoint(root=None, **kwargs)``: saves and restores the objects given (and what they track)."""

    def __init__(self, root: Any = None, **kwargs: Any):
        object.__setattr__(self, "_self_root", root)
        object.__setattr__(self, "_self_save_counter", None)
        if root is not None and not trackable_lib.is_trackable(root):
            raise ValueError(
                f"`Checkpoint` was expecting root to be a trackable object (an object derived from `Trackable`), got "
                f"{root}. If you believe this object should be trackable (i.e. it is part of the TensorFlow Python API "
                "and manages state), please open an issue."
            )
        for key, value in sorted(kwargs.items()):
            if not trackable_lib.is_trackable(value):
                raise ValueError(
                    f"`Checkpoint` was expecting {key} to be a trackable object (an object derived from `Trackable`), "
                    f"got {value}. If you believe this object should be trackable (i.e. it is part of the TensorFlow "
                    "Python API and manages state), please open an issue."
                )
            if root is not None and key in trackable_lib.children_of(root):
                raise ValueError(
                    f"Cannot create a Checkpoint with keyword argument {key} if root.{key} already exists."
                )
            setattr(self, key, value)

    # ----------------------------------------------------------------- the object graph

    def _trackable_children(self, save_type: str = "checkpoint") -> dict[str, Any]:
        own = super()._trackable_children(save_type)
        root = self._self_root
        if root is None:
            return own
        children = trackable_lib.children_of(root, save_type)
        children.update(own)
        return children

    def _graph(self) -> trackable_lib.TrackableGraph:
        return trackable_lib.TrackableGraph(self)

    def _lookup_child(self, obj: Any, name: str) -> Any:
        if obj is self:
            return self._trackable_children().get(name)
        return None

    def _defer_restoration(self, name: str, restore: Callable[[Any], None]) -> None:
        root = self._self_root
        if root is not None and name != "save_counter" and isinstance(root, trackable_lib.Trackable):
            root._defer_restoration(name, restore)
        else:
            super()._defer_restoration(name, restore)

    # ----------------------------------------------------------------- save counter

    @property
    def save_counter(self) -> Any:
        """How many times ``save`` ran (an int64 variable, saved with the checkpoint; made on first use)."""
        self._maybe_create_save_counter()
        return self._self_save_counter

    def _maybe_create_save_counter(self) -> None:
        if self._self_save_counter is not None:
            return
        from modtensor.api import variables
        from modtensor.framework import dtypes

        with variables.init_scope():
            counter = variables.Variable(0, name="save_counter", dtype=dtypes.int64, trainable=False)
        object.__setattr__(self, "_self_save_counter", counter)
        self._track_trackable(counter, "save_counter")

    # ----------------------------------------------------------------- saving

    def write(self, file_prefix: str, options: CheckpointOptions | None = None) -> str:
        """Write a checkpoint at exactly ``file_prefix`` (no counter, no ``checkpoint`` state file); returns it."""
        del options
        return write_object_graph(self._graph(), os.fspath(file_prefix))

    def save(self, file_prefix: str, options: CheckpointOptions | None = None) -> str:
        """Write ``{file_prefix}-{save_counter}`` after counting this save, and record it in the ``checkpoint`` file."""
        from modtensor.api import checkpoint_management

        counter = self.save_counter
        counter.assign_add(1, read_value=False)
        file_path = self.write(f"{os.fspath(file_prefix)}-{int(counter.numpy())}", options)
        checkpoint_management.update_checkpoint_state_internal(
            save_dir=os.path.dirname(file_path),
            model_checkpoint_path=file_path,
            all_model_checkpoint_paths=[file_path],
            save_relative_paths=True,
        )
        return file_path

    # ----------------------------------------------------------------- restoring

    def read(self, save_path: str, options: CheckpointOptions | None = None) -> _Status:
        """Restore the checkpoint at ``save_path`` (the counterpart of ``write``); returns a load status."""
        del options
        return restore_object_graph(os.fspath(save_path), self, self._graph, self._lookup_child)

    def restore(self, save_path: str | None, options: CheckpointOptions | None = None) -> _Status:
        """Restore the checkpoint at ``save_path`` (``None``: nothing, an ``InitializationOnlyStatus``)."""
        if save_path is None:
            return InitializationOnlyStatus()
        status = self.read(save_path, options)
        self._maybe_create_save_counter()  # restored from the checkpoint through the deferred restoration
        return status
