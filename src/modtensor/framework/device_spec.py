"""Device specifications: ``/job:localhost/replica:0/task:0/device:CPU:0`` and its partial forms.

``DeviceSpec`` parses the forms TensorFlow accepts (``/CPU:0``, ``/device:GPU:1``,
``GPU:0``, ``/gpu:0``, ``cpu``, ``/job:worker``, ``*`` as "any index"), prints
them in TensorFlow's canonical order, and merges partial specs the way device
scopes stack. Device types are free-form in ``/device:TYPE:N``; the short form
``/TYPE:N`` needs a known type (CPU, GPU, TPU, or one a plugin registered).
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = [
    "DeviceSpec",
    "add_unknown_device_type_hook",
    "canonical_device_name",
    "canonical_name",
    "register_short_device_type",
]

_SHORT_DEVICE_TYPES: set[str] = {"CPU", "GPU", "TPU", "CUSTOM", "EPU"}  # TF's _VALID_DEVICE_TYPES
_SHORT_LOCK = threading.Lock()


def register_short_device_type(device_type: str) -> None:
    """Let ``/TYPE:N`` (without ``device:``) name ``device_type``, as TF does for pluggable devices."""
    with _SHORT_LOCK:
        _SHORT_DEVICE_TYPES.add(device_type.upper())


_UNKNOWN_TYPE_HOOKS: list[Any] = []


def add_unknown_device_type_hook(hook: Any) -> None:
    """Run ``hook()`` once, the first time a spec names ``/TYPE:N`` with a TYPE not known yet.

    Plugin discovery uses this: ``with tf.device("/MY_DEVICE:0")`` right after ``import modtensor``
    loads the installed plugins (which register their device types) before the name is judged,
    so ``import modtensor`` itself stays free of plugin loading.
    """
    _UNKNOWN_TYPE_HOOKS.append(hook)


def _is_short_device_type(key: str) -> bool:
    if key.upper() in _SHORT_DEVICE_TYPES:
        return True
    if not _UNKNOWN_TYPE_HOOKS or key in ("job", "replica", "task", "device"):
        return False
    hooks = list(_UNKNOWN_TYPE_HOOKS)
    _UNKNOWN_TYPE_HOOKS.clear()
    for hook in hooks:
        hook()
    return key.upper() in _SHORT_DEVICE_TYPES


def _as_int_or_none(value: Any, field: str, spec: str | None = None) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValueError(f"Device {field} must be an integer, not {value!r}")
    try:
        result = int(value)
    except (TypeError, ValueError):
        where = f" in device spec '{spec}'" if spec is not None else ""
        raise ValueError(f"Invalid {field} {value!r}{where}: expected a non-negative integer") from None
    if result < 0:
        raise ValueError(f"Device {field} must be non-negative, got {result}")
    return result


def _as_device_type(value: Any) -> str | None:
    if value is None:
        return None
    value = str(value)
    # TensorFlow upper-cases the lower-case spellings of cpu and gpu only.
    return value.upper() if value in ("cpu", "gpu") else value


class DeviceSpec:
    """An immutable, possibly partial device specification (job, replica, task, device type, index)."""

    __slots__ = ("_device_index", "_device_type", "_hash", "_job", "_replica", "_string", "_task")

    def __init__(
        self,
        job: str | None = None,
        replica: int | None = None,
        task: int | None = None,
        device_type: str | None = None,
        device_index: int | None = None,
    ):
        self._job = None if job is None else str(job)
        self._replica = _as_int_or_none(replica, "replica")
        self._task = _as_int_or_none(task, "task")
        self._device_type = _as_device_type(device_type)
        self._device_index = _as_int_or_none(device_index, "device index")
        self._string = self._to_string()
        self._hash = hash(self._string)

    # ------------------------------------------------------------------ parsing

    @classmethod
    def from_string(cls, spec: str | None) -> DeviceSpec:
        """Parse a (partial) device string; "" or None is the empty spec. ValueError names a bad token."""
        return cls(*cls._parse(spec))

    @staticmethod
    def _parse(spec: str | None) -> tuple[Any, ...]:
        if spec is not None and not isinstance(spec, str):
            raise TypeError(f"A device spec must be a string, not {type(spec).__name__}: {spec!r}")
        job = replica = task = device_type = device_index = None
        text = spec or ""
        for part in text.split("/"):
            if not part:
                continue
            fields = part.split(":")
            key = fields[0]
            if len(fields) == 2 and key == "job":
                job = fields[1]
            elif len(fields) == 2 and key == "replica":
                replica = _as_int_or_none(fields[1], "replica", text)
            elif len(fields) == 2 and key == "task":
                task = _as_int_or_none(fields[1], "task", text)
            elif len(fields) in (1, 2) and _is_short_device_type(key):
                if device_type is not None:
                    raise ValueError(f"Multiple device types are not allowed while parsing the device spec: {text}.")
                device_type = key.upper()
                if len(fields) == 2 and fields[1] != "*":
                    device_index = _as_int_or_none(fields[1], "device index", text)
            elif len(fields) == 3 and key == "device":
                if device_type is not None:
                    raise ValueError(f"Multiple device types are not allowed while parsing the device spec: {text}.")
                if not fields[1]:
                    raise ValueError(f"Empty device type in device spec '{text}'")
                device_type = _as_device_type(fields[1])
                if fields[2] != "*":
                    device_index = _as_int_or_none(fields[2], "device index", text)
            else:
                raise ValueError(
                    f"Unknown attribute '{key}' is encountered while parsing the device spec: '{text}'. "
                    "Expected /job:NAME, /replica:N, /task:N, /device:TYPE:N or /TYPE:N "
                    f"(TYPE one of {', '.join(sorted(_SHORT_DEVICE_TYPES))})."
                )
        return job, replica, task, device_type, device_index

    def parse_from_string(self, spec: str | None) -> DeviceSpec:
        """A new spec parsed from ``spec`` (TF v2 semantics: the receiver is not changed)."""
        return self.from_string(spec)

    # ------------------------------------------------------------------ fields

    @property
    def job(self) -> str | None:
        """The job name, or None."""
        return self._job

    @property
    def replica(self) -> int | None:
        """The replica index, or None."""
        return self._replica

    @property
    def task(self) -> int | None:
        """The task index, or None."""
        return self._task

    @property
    def device_type(self) -> str | None:
        """The device type ("CPU", "GPU", a plugin's type), or None."""
        return self._device_type

    @property
    def device_index(self) -> int | None:
        """The device index, or None for "any" (``*``)."""
        return self._device_index

    # ------------------------------------------------------------------ combining

    def make_merged_spec(self, dev: DeviceSpec) -> DeviceSpec:
        """A spec with the fields of ``dev`` where it sets them and those of ``self`` elsewhere."""
        return DeviceSpec(
            dev.job if dev.job is not None else self._job,
            dev.replica if dev.replica is not None else self._replica,
            dev.task if dev.task is not None else self._task,
            dev.device_type if dev.device_type is not None else self._device_type,
            dev.device_index if dev.device_index is not None else self._device_index,
        )

    def replace(self, **kwargs: Any) -> DeviceSpec:
        """A copy with the given fields (job, replica, task, device_type, device_index) replaced."""
        fields = {
            "job": self._job,
            "replica": self._replica,
            "task": self._task,
            "device_type": self._device_type,
            "device_index": self._device_index,
        }
        unknown = set(kwargs) - set(fields)
        if unknown:
            raise TypeError(f"DeviceSpec.replace() got unexpected fields: {', '.join(sorted(unknown))}")
        fields.update(kwargs)
        return DeviceSpec(**fields)

    # ------------------------------------------------------------------ printing

    def _to_string(self) -> str:
        out = []
        if self._job is not None:
            out.append(f"/job:{self._job}")
        if self._replica is not None:
            out.append(f"/replica:{self._replica}")
        if self._task is not None:
            out.append(f"/task:{self._task}")
        if self._device_type is not None:
            index = "*" if self._device_index is None else str(self._device_index)
            out.append(f"/device:{self._device_type}:{index}")
        return "".join(out)

    def to_string(self) -> str:
        """TF's canonical text: ``/job:J/replica:R/task:T/device:TYPE:N``, unset parts left out."""
        return self._string

    def __str__(self) -> str:
        return self._string

    def __repr__(self) -> str:
        return (
            f"<DeviceSpec(job={self._job}, replica={self._replica}, task={self._task}, "
            f"device_type={self._device_type}, device_index={self._device_index})>"
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DeviceSpec) and self._string == other._string

    def __hash__(self) -> int:
        return self._hash


def canonical_name(device: str | DeviceSpec | None) -> str:
    """The canonical text of a (partial) device spec: ``/gpu:0`` -> ``/device:GPU:0``; None -> ""."""
    if device is None:
        return ""
    if isinstance(device, DeviceSpec):
        return device.to_string()
    return DeviceSpec.from_string(device).to_string()


def canonical_device_name(
    spec: str | DeviceSpec | None,
    default_job: str = "localhost",
    default_replica: int = 0,
    default_task: int = 0,
    default_device_type: str = "CPU",
    default_device_index: int = 0,
) -> str:
    """The fully specified name, unset fields taken from the defaults.

    ``"/GPU:1"`` -> ``/job:localhost/replica:0/task:0/device:GPU:1``; ``""`` -> ``.../device:CPU:0``.
    """
    if not isinstance(spec, DeviceSpec):
        spec = DeviceSpec.from_string(spec)
    defaults = DeviceSpec(default_job, default_replica, default_task, default_device_type, default_device_index)
    return defaults.make_merged_spec(spec).to_string()
