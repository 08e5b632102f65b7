"""Whether an op has a kernel on a device: the front end's choice between a device's fused op and its parts.

A resource op runs on its resource's device (TF's placement rule), so the front end asks before
building one for a variable on a plugin device: the optimizers run Keras 3's rule op by op where
a device has no fused ``ResourceApply*`` kernel, and ``tf.gather`` of a variable reads the whole
value where the device has no ``ResourceGather``. Answers are cached per (op, device, dtype) and
forgotten whenever a kernel is registered or removed (a plugin loaded later).
"""

from __future__ import annotations

from typing import Any

__all__ = ["has_kernel"]

_CACHE: dict[tuple[str, str, Any, str], bool] = {}
_LISTENING: list[bool] = []


def has_kernel(op_type: str, device: str, dtype: Any, type_attr: str = "T") -> bool:
    """True when ``op_type`` has a kernel for ``dtype`` (its ``type_attr``) on ``device``'s type or a DEFAULT one.

    ``device`` is a device name (empty: the CPU). Only the dtype constraint is checked.
    """
    key = (op_type, device, dtype, type_attr)
    found = _CACHE.get(key)
    if found is None:
        from modtensor.framework.device_spec import DeviceSpec
        from modtensor.runtime import kernel_registry

        if not _LISTENING:
            _LISTENING.append(True)
            kernel_registry.add_kernel_change_listener(lambda op: _CACHE.clear())
        device_type = (DeviceSpec.from_string(device).device_type if device else None) or "CPU"
        dtype_enum = dtype.as_datatype_enum
        found = False
        for reg in kernel_registry.global_kernel_registry().kernels_for_op(op_type):
            kernel_def = reg.kernel_def
            if kernel_def.device_type not in (device_type, kernel_registry.DEFAULT_DEVICE_TYPE) or kernel_def.label:
                continue
            allowed = kernel_def.allowed(type_attr)
            if allowed is None or dtype_enum in allowed:
                found = True
                break
        _CACHE[key] = found
    return found
