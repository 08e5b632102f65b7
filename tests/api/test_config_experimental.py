"""tf.config.experimental: memory info and stats reset (TF 2.21's error texts), memory growth, re-exports."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import modtensor as tf
from modtensor.config import experimental
from modtensor.runtime import device_factory

FAKE_PHYSICAL = tf.config.PhysicalDevice("/physical_device:FAKE:0", "FAKE")
CPU_PHYSICAL = tf.config.PhysicalDevice("/physical_device:CPU:0", "CPU")


@pytest.fixture(autouse=True)
def no_growth_settings() -> Iterator[None]:
    experimental.reset_memory_growth_for_testing()
    yield
    experimental.reset_memory_growth_for_testing()


def test_is_a_module_sharing_the_device_functions() -> None:
    assert tf.config.experimental is experimental
    assert experimental.list_physical_devices is tf.config.list_physical_devices
    assert experimental.get_device_details(CPU_PHYSICAL) == {}


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: experimental.get_memory_info("CPU:0"), "Allocator stats not available for device 'CPU:0'"),
        (lambda: experimental.reset_memory_stats("CPU:0"), "Cannot reset memory stats for device 'CPU:0'"),
        (lambda: experimental.get_memory_info("GPU:0"), "No matching devices found for 'GPU:0'"),
        (lambda: experimental.get_memory_info("/device:MY:1"), "No matching devices found for '/device:MY:1'"),
        (
            lambda: experimental.get_memory_info("xx"),
            "Failed parsing device name: 'xx'. Note a valid device string should at least contain a device type "
            'and a device index, like "GPU:0".',
        ),
    ],
)
def test_memory_info_errors_are_tensorflows(call, message: str) -> None:
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == message


def test_memory_info_of_a_device_without_stats_names_it(fake_device: None) -> None:
    with pytest.raises(ValueError, match="^Allocator stats not available for device '/device:FAKE:0'$"):
        experimental.get_memory_info("/device:FAKE:0")


def test_memory_growth_is_recorded_per_physical_device_before_initialization(fake_device: None) -> None:
    assert experimental.get_memory_growth(FAKE_PHYSICAL) is None
    assert experimental.memory_growth_enabled("/physical_device:FAKE:0") is None
    experimental.set_memory_growth(FAKE_PHYSICAL, True)
    assert experimental.get_memory_growth(FAKE_PHYSICAL) is True
    assert experimental.memory_growth_enabled("/physical_device:FAKE:0") is True
    tf.config.list_logical_devices()  # creates the devices
    experimental.set_memory_growth(FAKE_PHYSICAL, True)  # unchanged: fine
    with pytest.raises(RuntimeError, match="^Physical devices cannot be modified after being initialized$"):
        experimental.set_memory_growth(FAKE_PHYSICAL, False)
    assert device_factory.devices_initialized()


def test_memory_growth_rejects_cpu_and_unknown_devices() -> None:
    with pytest.raises(ValueError, match="^Cannot set memory growth on non-GPU and non-Pluggable devices$"):
        experimental.set_memory_growth(CPU_PHYSICAL, True)
    unknown = tf.config.PhysicalDevice("/physical_device:GPU:7", "GPU")
    with pytest.raises(ValueError, match=r"^Unrecognized device: PhysicalDevice\(name='/physical_device:GPU:7'"):
        experimental.set_memory_growth(unknown, True)
    with pytest.raises(ValueError, match="^Unrecognized device"):
        experimental.get_memory_growth(unknown)
