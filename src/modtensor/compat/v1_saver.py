"""``tf.compat.v1.train.Saver``: name-based checkpoints (keys are variable names) for Session programs and eagerly.

The files are TF's V2 checkpoint (tensor bundle, ``checkpoint`` state file with the kept
checkpoints, ``max_to_keep`` deletion as TF 1's Saver). In a graph, the Saver adds at
construction what it will run: one read per variable (``save/...``) and, for restoring, a
placeholder and an ``AssignVariableOp`` per variable grouped under ``save/restore_all``;
``save`` runs the reads and writes the bundle, ``restore`` reads and checks every value (key,
dtype, shape) before it runs the assignments, so a failed restore changes nothing.
``write_meta_graph`` writes the graph (``.meta``) without a ``saver_def``: the save and restore
run in Python, not as ``SaveV2``/``RestoreV2`` ops.
"""

from __future__ import annotations

import collections
import os
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from modtensor.api import checkpoint_management
from modtensor.framework import dtypes, errors, tensor_bundle, tensor_shape

__all__ = ["Saver", "latest_checkpoint", "get_checkpoint_state"]

latest_checkpoint = checkpoint_management.latest_checkpoint
get_checkpoint_state = checkpoint_management.get_checkpoint_state


def _key(variable: Any) -> str:
    name = variable.name
    return name[:-2] if name.endswith(":0") else name


class Saver:
    """TF 1's Saver over resource variables (``var_list``: a list or a dict name -> variable; default: all)."""

    def __init__(
        self,
        var_list: Any = None,
        reshape: bool = False,
        sharded: bool = False,
        max_to_keep: int = 5,
        keep_checkpoint_every_n_hours: float = 10000.0,
        name: str | None = None,
        restore_sequentially: bool = False,
        saver_def: Any = None,
        builder: Any = None,
        defer_build: bool = False,
        allow_empty: bool = False,
        write_version: int = 2,
        pad_step_number: bool = False,
        save_relative_paths: bool = False,
        filename: str | None = None,
    ):
        del reshape, sharded, restore_sequentially, saver_def, builder, defer_build, write_version
        from modtensor.api import context

        self._eager = context.executing_eagerly()
        if var_list is None:
            if self._eager:
                raise RuntimeError(
                    "When eager execution is enabled, `var_list` must specify a list or dict of variables to save"
                )
            from modtensor.framework import graph as graph_lib

            var_list = graph_lib.get_default_graph().get_collection("variables")
        if isinstance(var_list, dict):
            items = sorted(var_list.items())
        else:
            items = sorted(((_key(v), v) for v in var_list), key=lambda kv: kv[0])
        names = [name for name, _ in items]
        if len(set(names)) != len(names):
            duplicate = next(n for n in names if names.count(n) > 1)
            raise ValueError(f"At least two variables have the same name: {duplicate}")
        if not items and not allow_empty:
            raise ValueError("No variables to save")
        self._items: list[tuple[str, Any]] = items
        self._max_to_keep = max_to_keep
        self._keep_every = keep_checkpoint_every_n_hours
        self._pad_step_number = pad_step_number
        self._save_relative_paths = save_relative_paths
        self._filename = filename
        self._last_checkpoints: collections.OrderedDict[str, float] = collections.OrderedDict()
        self._next_keep_time = time.time() + keep_checkpoint_every_n_hours * 3600
        self._reads: list[Any] = []
        self._feeds: list[Any] = []
        self._restore_op: Any = None
        if not self._eager:
            self._build_graph(name or "save")

    def _build_graph(self, scope: str) -> None:
        from modtensor.api.dispatch import apply_op
        from modtensor.framework import graph as graph_lib
        from modtensor.framework import op_def_library

        graph = graph_lib.get_default_graph()
        assigns = []
        with graph.name_scope(scope):
            for _, variable in self._items:
                self._reads.append(variable.value())
                placeholder = apply_op("Placeholder", dtype=variable.dtype, shape=variable.shape)
                self._feeds.append(placeholder)
                assigns.append(
                    op_def_library.apply_op("AssignVariableOp", resource=variable.handle, value=placeholder)
                )
            with graph.control_dependencies(assigns):
                self._restore_op = op_def_library.apply_op("NoOp", name="restore_all")

    # ----------------------------------------------------------------- state

    @property
    def last_checkpoints(self) -> list[str]:
        """The checkpoints kept (oldest first)."""
        return list(self._last_checkpoints)

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time: Sequence[tuple[str, float]]) -> None:
        """Replace the kept checkpoints (``(path, timestamp)`` pairs)."""
        self._last_checkpoints = collections.OrderedDict(last_checkpoints_with_time)

    def recover_last_checkpoints(self, checkpoint_paths: Sequence[str]) -> None:
        """Take existing checkpoints as kept ones (their files' times as timestamps)."""
        found = []
        for path in checkpoint_paths:
            index = path + ".index"
            if os.path.exists(index):
                found.append((path, os.path.getmtime(index)))
        self.set_last_checkpoints_with_time(found)

    # ----------------------------------------------------------------- saving

    def _values(self, sess: Any) -> list[np.ndarray]:
        if self._eager:
            return [np.asarray(variable.value()) for _, variable in self._items]
        if sess is None:
            raise ValueError("Saver.save and Saver.restore need a session in graph mode")
        return [np.asarray(v) for v in sess.run(self._reads)]

    def save(
        self,
        sess: Any,
        save_path: str,
        global_step: Any = None,
        latest_filename: str | None = None,
        meta_graph_suffix: str = "meta",
        write_meta_graph: bool = True,
        write_state: bool = True,
        strip_default_attrs: bool = False,
        save_debug_info: bool = False,
    ) -> str:
        """Write the variables to ``save_path[-global_step]``; returns the checkpoint's prefix."""
        del strip_default_attrs, save_debug_info
        save_path = os.fspath(save_path)
        if global_step is not None:
            if not isinstance(global_step, (int, np.integer)):
                step = sess.run(global_step) if not self._eager and sess is not None else np.asarray(global_step)
                global_step = int(np.asarray(step))
            prefix = f"{save_path}-{global_step:08d}" if self._pad_step_number else f"{save_path}-{global_step}"
        else:
            prefix = save_path
        if latest_filename is not None and os.path.basename(latest_filename) != latest_filename:
            raise ValueError("'latest_filename' collides with 'save_path': the state file must be a bare name")
        directory = os.path.dirname(prefix)
        if directory and not os.path.isdir(directory):
            raise ValueError(f"Parent directory of {save_path} doesn't exist, can't save.")
        values = self._values(sess)
        pairs = zip(self._items, values, strict=True)
        tensor_bundle.write_bundle(prefix, [(name, value) for (name, _), value in pairs])
        if write_state:
            self._record(prefix, directory, latest_filename)
        if write_meta_graph and not self._eager:
            self._write_meta_graph(f"{prefix}.{meta_graph_suffix}")
        return prefix

    def _record(self, prefix: str, directory: str, latest_filename: str | None) -> None:
        self._last_checkpoints.pop(prefix, None)
        self._last_checkpoints[prefix] = time.time()
        while self._max_to_keep and len(self._last_checkpoints) > self._max_to_keep:
            oldest, stamp = self._last_checkpoints.popitem(last=False)
            if stamp > self._next_keep_time:
                self._next_keep_time += self._keep_every * 3600
                continue
            for path in (oldest + ".index", oldest + ".meta", tensor_bundle.data_filename(oldest)):
                if os.path.exists(path):
                    os.remove(path)
        checkpoint_management.update_checkpoint_state_internal(
            save_dir=directory,
            model_checkpoint_path=prefix,
            all_model_checkpoint_paths=list(self._last_checkpoints),
            latest_filename=latest_filename,
            save_relative_paths=self._save_relative_paths,
        )

    def _write_meta_graph(self, path: str) -> None:
        from modtensor.framework import graph as graph_lib
        from modtensor.framework.protos import meta_graph_pb2

        meta = meta_graph_pb2.MetaGraphDef()
        meta.graph_def.CopyFrom(graph_lib.get_default_graph().as_graph_def())
        meta.meta_info_def.meta_graph_version = "modtensor"
        with open(path, "wb") as f:
            f.write(meta.SerializeToString(deterministic=True))

    # ----------------------------------------------------------------- restoring

    def restore(self, sess: Any, save_path: str) -> None:
        """Assign every variable its value from the checkpoint (all checked first: all or nothing)."""
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        save_path = os.fspath(save_path)
        if not os.path.exists(save_path + ".index"):
            raise ValueError(f"The passed save_path is not a valid checkpoint: {save_path}")
        reader = tensor_bundle.BundleReader(save_path)
        missing = [name for name, _ in self._items if name not in reader]
        if missing:
            raise errors.NotFoundError(
                None,
                None,
                f"Key {missing[0]} not found in checkpoint {save_path} (restoring {len(missing)} missing variable(s): "
                f"{missing}). This most likely means the variables of the program changed since the checkpoint "
                "was written.",
            )
        values = reader.lookup_many([name for name, _ in self._items])
        for name, variable in self._items:
            value = values[name]
            saved = dtypes.string if value.dtype == np.object_ else dtypes.as_dtype(value.dtype)
            if saved != variable.dtype.base_dtype:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"tensor_name = {name}; expected dtype {variable.dtype.name} does not equal original dtype "
                    f"{saved.name} (checkpoint {save_path})",
                )
            if not variable.shape.is_compatible_with(tensor_shape.TensorShape(value.shape)):
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Assign requires shapes of both tensors to match. lhs shape= {variable.shape.as_list()} rhs "
                    f"shape= {list(value.shape)} (variable {name}, checkpoint {save_path})",
                )
        if self._eager:
            for name, variable in self._items:
                variable.assign(values[name], read_value=False)
            return
        feeds = {feed: values[name] for feed, (name, _) in zip(self._feeds, self._items, strict=True)}
        sess.run(self._restore_op, feed_dict=feeds)
