"""The ``checkpoint`` state file and ``tf.train.CheckpointManager``: which checkpoints exist, which is the latest.

The state file is a text-format ``CheckpointState`` next to the checkpoints (paths relative to
its directory, as TF writes them), replaced atomically. ``CheckpointManager`` numbers its saves,
keeps the newest ``max_to_keep`` (and one every ``keep_checkpoint_every_n_hours``), deletes the
others' files and records timestamps, with TF's rules.
"""

from __future__ import annotations

import collections
import glob
import logging
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import Any

from google.protobuf import text_format

from modtensor.framework.protos import checkpoint_state_pb2

__all__ = [
    "CheckpointManager",
    "get_checkpoint_state",
    "latest_checkpoint",
    "update_checkpoint_state",
    "update_checkpoint_state_internal",
]

_logger = logging.getLogger("modtensor.checkpoint")
CheckpointState = checkpoint_state_pb2.CheckpointState


def _state_path(save_dir: str, latest_filename: str | None) -> str:
    return os.path.join(save_dir, latest_filename or "checkpoint")


def generate_checkpoint_state_proto(
    save_dir: str,
    model_checkpoint_path: str,
    all_model_checkpoint_paths: Sequence[str] | None = None,
    all_model_checkpoint_timestamps: Sequence[float] | None = None,
    last_preserved_timestamp: float | None = None,
) -> CheckpointState:
    """The CheckpointState TF writes: the latest path last in the list, relative paths relative to ``save_dir``."""
    paths = list(all_model_checkpoint_paths or [])
    if not paths or paths[-1] != model_checkpoint_path:
        paths.append(model_checkpoint_path)
    if all_model_checkpoint_timestamps and len(all_model_checkpoint_timestamps) != len(paths):
        raise ValueError(
            f"Checkpoint timestamps, if provided, must match checkpoint paths (got paths {paths} and timestamps "
            f"{all_model_checkpoint_timestamps})"
        )
    if not os.path.isabs(save_dir):
        if not os.path.isabs(model_checkpoint_path):
            model_checkpoint_path = os.path.relpath(model_checkpoint_path, save_dir)
        paths = [p if os.path.isabs(p) else os.path.relpath(p, save_dir) for p in paths]
    return CheckpointState(
        model_checkpoint_path=model_checkpoint_path,
        all_model_checkpoint_paths=paths,
        all_model_checkpoint_timestamps=list(all_model_checkpoint_timestamps or []),
        last_preserved_timestamp=last_preserved_timestamp or 0.0,
    )


def _atomic_write(path: str, text: str) -> None:
    directory = os.path.dirname(path) or "."
    os.makedirs(directory, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=os.path.basename(path) + ".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.remove(temp)
        raise


def update_checkpoint_state_internal(
    save_dir: str,
    model_checkpoint_path: str,
    all_model_checkpoint_paths: Sequence[str] | None = None,
    latest_filename: str | None = None,
    save_relative_paths: bool = False,
    all_model_checkpoint_timestamps: Sequence[float] | None = None,
    last_preserved_timestamp: float | None = None,
) -> None:
    """Write the state file of ``save_dir`` (TF's ``update_checkpoint_state_internal``)."""
    state_file = _state_path(save_dir, latest_filename)
    if save_relative_paths:
        model = model_checkpoint_path
        if os.path.isabs(model):
            model = os.path.relpath(model, save_dir)
        paths = [os.path.relpath(p, save_dir) if os.path.isabs(p) else p for p in all_model_checkpoint_paths or []]
        state = generate_checkpoint_state_proto(
            save_dir, model, paths, all_model_checkpoint_timestamps, last_preserved_timestamp
        )
    else:
        state = generate_checkpoint_state_proto(
            save_dir,
            model_checkpoint_path,
            all_model_checkpoint_paths,
            all_model_checkpoint_timestamps,
            last_preserved_timestamp,
        )
    if state_file == state.model_checkpoint_path:
        raise RuntimeError(
            f"Save path '{model_checkpoint_path}' conflicts with path used for checkpoint state.  Please use a "
            "different save path."
        )
    _atomic_write(state_file, text_format.MessageToString(state))


def update_checkpoint_state(
    save_dir: str,
    model_checkpoint_path: str,
    all_model_checkpoint_paths: Sequence[str] | None = None,
    latest_filename: str | None = None,
    all_model_checkpoint_timestamps: Sequence[float] | None = None,
    last_preserved_timestamp: float | None = None,
) -> None:
    """``tf.train.update_checkpoint_state``: record the latest checkpoint (and the kept ones) of ``save_dir``."""
    update_checkpoint_state_internal(
        save_dir,
        model_checkpoint_path,
        all_model_checkpoint_paths,
        latest_filename,
        all_model_checkpoint_timestamps=all_model_checkpoint_timestamps,
        last_preserved_timestamp=last_preserved_timestamp,
    )


def get_checkpoint_state(checkpoint_dir: str, latest_filename: str | None = None) -> CheckpointState | None:
    """``tf.train.get_checkpoint_state``: the parsed state file (paths made absolute), or None without one."""
    checkpoint_dir = os.fspath(checkpoint_dir)
    path = _state_path(checkpoint_dir, latest_filename)
    try:
        with open(path) as f:
            text = f.read()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as e:
        _logger.warning("%s: %s; checkpoint ignored", path, e)
        return None
    try:
        state = text_format.Parse(text, CheckpointState())
    except text_format.ParseError as e:
        _logger.warning("%s: %s; checkpoint ignored", path, e)
        return None
    if not state.model_checkpoint_path:
        raise ValueError(f"Invalid checkpoint state loaded from {checkpoint_dir}")
    if not os.path.isabs(state.model_checkpoint_path):
        state.model_checkpoint_path = os.path.join(checkpoint_dir, state.model_checkpoint_path)
    for i, p in enumerate(state.all_model_checkpoint_paths):
        if not os.path.isabs(p):
            state.all_model_checkpoint_paths[i] = os.path.join(checkpoint_dir, p)
    return state


def latest_checkpoint(checkpoint_dir: str, latest_filename: str | None = None) -> str | None:
    """``tf.train.latest_checkpoint``: the prefix of the newest checkpoint recorded in the directory, or None."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state and state.model_checkpoint_path:
        path = state.model_checkpoint_path
        if os.path.exists(path + ".index") or os.path.exists(path):
            return path
        _logger.error("Couldn't match files for checkpoint %s", path)
    return None


def _delete_checkpoint_files(prefix: str) -> None:
    for path in [prefix + ".index", *glob.glob(glob.escape(prefix) + ".data-?????-of-?????")]:
        try:
            os.remove(path)
        except FileNotFoundError:
            _logger.info("Checkpoint file %s was already gone", path)


class CheckpointManager:
    """``tf.train.CheckpointManager``: numbered saves in a directory, keeping the newest ``max_to_keep``."""

    def __init__(
        self,
        checkpoint: Any,
        directory: str,
        max_to_keep: int | None,
        keep_checkpoint_every_n_hours: float | None = None,
        checkpoint_name: str = "ckpt",
        step_counter: Any = None,
        checkpoint_interval: int | None = None,
        init_fn: Callable[[], Any] | None = None,
    ):
        self._checkpoint = checkpoint
        self._save_counter_assign = None
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got {max_to_keep}.")
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        if os.fspath(directory).startswith("gs://") is False:
            os.makedirs(directory, exist_ok=True)
        self._directory = os.fspath(directory)
        self._checkpoint_prefix = os.path.join(self._directory, checkpoint_name)
        self._init_fn = init_fn
        if checkpoint_interval is not None:
            if step_counter is None:
                raise ValueError(
                    "`step_counter` should be passed if `checkpoint_interval` is not None."
                )
            self._last_checkpoint_step = None
        self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        recovered = get_checkpoint_state(self._directory)
        current_clock = time.time()
        self._maybe_delete: collections.OrderedDict[str, float] = collections.OrderedDict()
        if recovered is None:
            self._latest_checkpoint: str | None = None
            self._last_preserved_timestamp = current_clock - 1.0  # TF's guard against quick re-creation
        else:
            self._latest_checkpoint = recovered.model_checkpoint_path
            self._last_preserved_timestamp = recovered.last_preserved_timestamp
            if current_clock < self._last_preserved_timestamp:
                self._last_preserved_timestamp = current_clock
            paths = list(recovered.all_model_checkpoint_paths)
            stamps = list(recovered.all_model_checkpoint_timestamps) or [self._last_preserved_timestamp] * len(paths)
            for filename, stamp in zip(paths, stamps, strict=False):
                stamp = min(stamp, current_clock)
                if stamp > self._last_preserved_timestamp:
                    self._maybe_delete[filename] = stamp

    @property
    def directory(self) -> str:
        """The directory of the checkpoints."""
        return self._directory

    @property
    def checkpoint_interval(self) -> int | None:
        """Steps between saves when ``save`` is called with ``check_interval``."""
        return self._checkpoint_interval

    @property
    def latest_checkpoint(self) -> str | None:
        """The newest checkpoint's prefix, or None."""
        return self._latest_checkpoint

    @property
    def checkpoints(self) -> list[str]:
        """The checkpoints kept (oldest first) that may still be deleted."""
        return list(self._maybe_delete)

    def _record_state(self) -> None:
        if self._latest_checkpoint is None:
            return
        paths = list(self._maybe_delete)
        stamps = list(self._maybe_delete.values())
        update_checkpoint_state_internal(
            save_dir=self._directory,
            model_checkpoint_path=self._latest_checkpoint,
            all_model_checkpoint_paths=paths,
            all_model_checkpoint_timestamps=stamps,
            last_preserved_timestamp=self._last_preserved_timestamp,
            save_relative_paths=True,
        )

    def _sweep(self) -> None:
        if not self._max_to_keep:
            return
        while len(self._maybe_delete) > self._max_to_keep:
            filename, stamp = self._maybe_delete.popitem(last=False)
            hours = self._keep_checkpoint_every_n_hours
            if hours and stamp - hours * 3600.0 >= self._last_preserved_timestamp:
                self._last_preserved_timestamp = stamp
                continue
            _delete_checkpoint_files(filename)

    def save(self, checkpoint_number: Any = None, check_interval: bool = True, options: Any = None) -> str | None:
        """Save ``{directory}/{checkpoint_name}-{number}`` (the number: ``checkpoint_number`` or the save counter)."""
        if self._checkpoint_interval is not None:
            current_step = int(self._step_counter.numpy()) if hasattr(self._step_counter, "numpy") else int(
                self._step_counter
            )
            last = self._last_checkpoint_step
            if check_interval and last is not None and current_step < last + self._checkpoint_interval:
                return None
            if checkpoint_number is None:
                checkpoint_number = current_step
            self._last_checkpoint_step = current_step
        counter = self._checkpoint.save_counter
        counter.assign_add(1, read_value=False)
        if checkpoint_number is None:
            checkpoint_number = counter.numpy()
        elif hasattr(checkpoint_number, "numpy"):
            checkpoint_number = checkpoint_number.numpy()
        prefix = f"{self._checkpoint_prefix}-{int(checkpoint_number)}"
        save_path = self._checkpoint.write(prefix, options)
        stamp = time.time()
        self._maybe_delete.pop(save_path, None)
        self._maybe_delete[save_path] = stamp
        self._latest_checkpoint = save_path
        self._record_state()
        self._sweep()
        self._record_state()
        return save_path

    def restore_or_initialize(self) -> str | None:
        """Restore the latest checkpoint (returning its path), or run ``init_fn`` and return None."""
        if self._latest_checkpoint is not None:
            self._checkpoint.restore(self._latest_checkpoint)
            if self._checkpoint_interval is not None:
                self._last_checkpoint_step = int(self._step_counter.numpy())
            return self._latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
        return None
