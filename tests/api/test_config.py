"""``modtensor.config``: device listing as TF prints it, visible devices, device details, with a plugged device.

TF's own listing of a CPU-only machine is in the golden cases (config_*); here a second
device type (the ``fake_device`` fixture, priority above CPU) shows ordering and hiding.
"""

from __future__ import annotations

import pytest

import modtensor as tf
from modtensor.runtime import device_factory


def test_listing_includes_plugged_types_after_the_cpu(fake_device: None) -> None:
    physical = tf.config.list_physical_devices()
    assert [repr(d) for d in physical] == [  # CPU first, as TF lists [CPU:0, GPU:0]
        "PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')",
        "PhysicalDevice(name='/physical_device:FAKE:0', device_type='FAKE')",
    ]
    assert not device_factory.devices_initialized()  # listing physical devices creates none
    assert tf.config.list_physical_devices("FAKE") == physical[1:]
    assert tf.config.list_logical_devices("FAKE") == [tf.config.LogicalDevice("/device:FAKE:0", "FAKE")]
    assert device_factory.devices_initialized()
    assert tf.config.experimental.get_device_details(physical[0]) == {}
    assert tf.config.experimental.list_physical_devices is tf.config.list_physical_devices


def test_hiding_a_device_type_before_first_use(fake_device: None) -> None:
    fake = tf.config.list_physical_devices("FAKE")
    tf.config.set_visible_devices([], "FAKE")
    assert tf.config.get_visible_devices() == tf.config.list_physical_devices("CPU")
    assert tf.config.get_visible_devices("FAKE") == []
    assert [d.name for d in tf.config.list_logical_devices()] == ["/device:CPU:0"]
    assert apply_add().device.endswith("device:CPU:0")  # FAKE would win if it were visible
    with pytest.raises(RuntimeError, match="^Visible devices cannot be modified after being initialized$"):
        tf.config.set_visible_devices(fake, "FAKE")
    tf.config.set_visible_devices([], "FAKE")  # the same choice again is no change


def test_unrecognized_devices(fake_device: None) -> None:
    cpu = tf.config.list_physical_devices("CPU")[0]
    with pytest.raises(ValueError, match=r"^Unrecognized device: PhysicalDevice\(name='/physical_device:CPU:0'"):
        tf.config.set_visible_devices([cpu], "FAKE")
    with pytest.raises(ValueError, match="^Unrecognized device: "):
        tf.config.experimental.get_device_details(tf.config.PhysicalDevice("/physical_device:CPU:7", "CPU"))


def apply_add() -> tf.Tensor:
    """An op with python inputs only: placed on the highest-priority visible type with a kernel."""
    from modtensor.api.dispatch import apply_op

    return apply_op("AddV2", x=1.0, y=2.0)
