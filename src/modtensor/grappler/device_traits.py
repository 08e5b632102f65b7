"""What the graph optimizer knows about a device type: its preferred data layout and low-precision dtype.

The layout optimizer converts NHWC convolutions to NCHW for device types that prefer
NCHW; auto mixed precision casts its allow-list to ``float16``/``bfloat16`` for device
types that declare one. Device factories and plugins declare these with
``register_device_traits``; a device type nobody registered has no preference (no
rewrite). CPU prefers NHWC and has no mixed-precision dtype, as in TensorFlow.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

__all__ = [
    "DeviceTraits",
    "declared_device_types",
    "device_traits",
    "register_device_traits",
    "target_device_type",
    "unregister_device_traits",
]

_LAYOUTS = ("NHWC", "NCHW")
_DTYPES = ("float16", "bfloat16")


@dataclass(frozen=True)
class DeviceTraits:
    """``preferred_layout``: "NHWC", "NCHW" or None; ``mixed_precision_dtype``: "float16", "bfloat16" or None."""

    preferred_layout: str | None = None
    mixed_precision_dtype: str | None = None


_lock = threading.Lock()
_traits: dict[str, DeviceTraits] = {}


def register_device_traits(
    device_type: str, *, preferred_layout: str | None = None, mixed_precision_dtype: str | None = None
) -> None:
    """Declare ``device_type``'s preferred layout and mixed-precision dtype (replacing an earlier declaration)."""
    if preferred_layout not in (None, *_LAYOUTS):
        raise ValueError(
            f"preferred_layout of device type '{device_type}' must be one of {_LAYOUTS} or None, "
            f"got {preferred_layout!r}"
        )
    if mixed_precision_dtype not in (None, *_DTYPES):
        raise ValueError(
            f"mixed_precision_dtype of device type '{device_type}' must be one of {_DTYPES} or None, "
            f"got {mixed_precision_dtype!r}"
        )
    with _lock:
        _traits[device_type] = DeviceTraits(preferred_layout, mixed_precision_dtype)


def unregister_device_traits(device_type: str) -> None:
    """Forget ``device_type``'s declaration (for plugins being unloaded and tests)."""
    with _lock:
        _traits.pop(device_type, None)


def device_traits(device_type: str | None) -> DeviceTraits:
    """The declared traits of ``device_type`` (no preference when undeclared or None)."""
    if device_type is None:
        return DeviceTraits()
    with _lock:
        return _traits.get(device_type, DeviceTraits())


def declared_device_types(*, preferred_layout: str | None = None, mixed_precision: bool = False) -> set[str]:
    """Device types declaring ``preferred_layout`` (when given) and, with ``mixed_precision``, a low-precision dtype.

    Lets a pass skip a graph at once when no device type could need its rewrite.
    """
    with _lock:
        return {
            name
            for name, traits in _traits.items()
            if (preferred_layout is None or traits.preferred_layout == preferred_layout)
            and (not mixed_precision or traits.mixed_precision_dtype is not None)
        }


def target_device_type(device: str, device_types: tuple[str, ...]) -> str | None:
    """The device type a node with device string ``device`` runs on, as far as is known before placement.

    A placed (or pinned) node names its type. An unassigned node is taken to target the
    one accelerator type of ``device_types`` when there is exactly one (the placer prefers
    it over CPU), CPU when CPU is the only type, and nothing otherwise.
    """
    if device:
        from modtensor.framework.device_spec import DeviceSpec

        try:
            spec = DeviceSpec.from_string(device if device.startswith("/") else "/" + device)
        except (ValueError, TypeError):
            return None
        if spec.device_type is not None:
            return spec.device_type
    others = [t for t in device_types if t != "CPU"]
    if len(others) == 1:
        return others[0]
    return "CPU" if not others and "CPU" in device_types else None


register_device_traits("CPU", preferred_layout="NHWC")
