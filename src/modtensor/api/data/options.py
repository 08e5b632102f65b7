"""``tf.data.Options``: deterministic order, threading, autotune and optimization settings of a dataset.

Options merge along the pipeline (an option set downstream wins); ``with_options`` records
them in an ``OptionsDataset`` (``serialized_options``, TF's proto field numbers). modtensor's
kernels read ``deterministic`` through the transformations' own ``deterministic`` argument; the
other settings are kept and reported (TF's static optimizations change no element).
"""

from __future__ import annotations

from typing import Any

from modtensor.framework.protos import dataset_options_pb2

__all__ = ["AutotuneOptions", "OptimizationOptions", "Options", "ThreadingOptions"]


class _OptionsBase:
    """Options objects: attributes default to None (unset); setting an unknown one fails as in TF."""

    _FIELDS: tuple[str, ...] = ()
    _NESTED: dict[str, type] = {}

    def __init__(self) -> None:
        for name in self._FIELDS:
            object.__setattr__(self, name, None)
        for name, cls in self._NESTED.items():
            object.__setattr__(self, name, cls())

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in self._FIELDS and name not in self._NESTED:
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        object.__setattr__(self, name, value)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in (*self._FIELDS, *self._NESTED))

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, n) for n in self._FIELDS))

    def merge(self, other: Any) -> Any:
        """A copy with every option ``other`` sets taking ``other``'s value."""
        result = type(self)()
        for name in self._FIELDS:
            mine, theirs = getattr(self, name), getattr(other, name)
            object.__setattr__(result, name, theirs if theirs is not None else mine)
        for name in self._NESTED:
            object.__setattr__(result, name, getattr(self, name).merge(getattr(other, name)))
        return result

    def __repr__(self) -> str:
        parts = [f"{n}={getattr(self, n)!r}" for n in (*self._FIELDS, *self._NESTED)]
        return f"{type(self).__name__}({', '.join(parts)})"


class ThreadingOptions(_OptionsBase):
    """``max_intra_op_parallelism``, ``private_threadpool_size``."""

    _FIELDS = ("max_intra_op_parallelism", "private_threadpool_size")


class AutotuneOptions(_OptionsBase):
    """``enabled``, ``cpu_budget``, ``ram_budget``."""

    _FIELDS = ("enabled", "cpu_budget", "ram_budget")


class OptimizationOptions(_OptionsBase):
    """TF's static optimization switches (recorded; modtensor's pipelines produce the same elements)."""

    _FIELDS = (
        "apply_default_optimizations",
        "map_and_batch_fusion",
        "map_parallelization",
        "noop_elimination",
        "parallel_batch",
        "shuffle_and_repeat_fusion",
    )


class Options(_OptionsBase):
    """``tf.data.Options``: ``deterministic``, ``slack``, ``dataset_name``, ``threading``, ``autotune``,
    ``experimental_optimization``."""

    _FIELDS = ("deterministic", "slack", "dataset_name")
    _NESTED = {
        "threading": ThreadingOptions,
        "autotune": AutotuneOptions,
        "experimental_optimization": OptimizationOptions,
    }

    def _to_proto(self) -> dataset_options_pb2.Options:
        proto = dataset_options_pb2.Options()
        if self.deterministic is not None:
            proto.deterministic = bool(self.deterministic)
        if self.slack is not None:
            proto.slack = bool(self.slack)
        if self.dataset_name is not None:
            proto.dataset_name = str(self.dataset_name)
        for name in ThreadingOptions._FIELDS:
            value = getattr(self.threading, name)
            if value is not None:
                setattr(proto.threading_options, name, int(value))
        for name in AutotuneOptions._FIELDS:
            value = getattr(self.autotune, name)
            if value is not None:
                setattr(proto.autotune_options, name, value)
        for name in OptimizationOptions._FIELDS:
            value = getattr(self.experimental_optimization, name)
            if value is not None:
                setattr(proto.optimization_options, name, bool(value))
        return proto
