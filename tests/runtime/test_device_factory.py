"""Device factories with priorities, physical/logical listing, visible devices, device lookup."""

from __future__ import annotations

import pytest

from modtensor.framework import errors
from modtensor.runtime import device_factory as df
from modtensor.runtime.allocator import CPUAllocator
from modtensor.runtime.device import Device, DeviceAttributes

pytestmark = pytest.mark.usefixtures("fresh_devices")


class FakeFactory(df.DeviceFactory):
    """A factory of `count` host-memory devices of `device_type`, recording what it was asked to create."""

    def __init__(self, device_type: str, count: int, tag: str = ""):
        self.device_type, self.count, self.tag = device_type, count, tag
        self.created_from: list[int] | None = None

    def list_physical_devices(self) -> list[str]:
        return [f"/physical_device:{self.device_type}:{i}" for i in range(self.count)]

    def get_device_details(self, index: int) -> dict[str, str]:
        return {"device_name": f"{self.tag or 'fake'} #{index}"}

    def create_devices(self, physical_indices, name_prefix):
        self.created_from = list(physical_indices)
        return [
            Device(
                DeviceAttributes(f"{name_prefix}/device:{self.device_type}:{i}", self.device_type, 1 << 20),
                CPUAllocator(),
            )
            for i in range(len(physical_indices))
        ]


class BrokenFactory(FakeFactory):
    def list_physical_devices(self) -> list[str]:
        raise OSError("driver not loaded")


def test_cpu_is_listed_and_prints_like_tensorflow() -> None:
    assert repr(df.list_physical_devices()) == "[PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]"
    assert df.list_physical_devices("GPU") == []
    assert repr(df.list_logical_devices()) == "[LogicalDevice(name='/device:CPU:0', device_type='CPU')]"
    cpu = df.get_device("/CPU:0")
    assert cpu.name == "/job:localhost/replica:0/task:0/device:CPU:0"
    assert (cpu.device_type, cpu.ordinal, cpu.attributes.memory_limit) == ("CPU", 0, 268435456)
    assert cpu.compute_stream is None and cpu.is_host


SPELLINGS = ["/CPU:0", "cpu:0", "CPU", "/device:CPU:0", "/cpu:0", "", None, "/job:localhost/device:CPU:0"]


@pytest.mark.parametrize("spec", [*SPELLINGS, "/job:localhost/replica:0/task:0/device:CPU:0"])
def test_get_device_accepts_tensorflow_spellings(spec) -> None:
    assert df.get_device(spec) is df.device_set().client_device


def test_get_device_error_lists_available_devices() -> None:
    with pytest.raises(errors.InvalidArgumentError) as info:
        df.get_device("/device:GPU:1")
    assert str(info.value) == (
        "Unknown device '/device:GPU:1' (parsed as '/device:GPU:1'). "
        "Available devices: [/job:localhost/replica:0/task:0/device:CPU:0]"
    )
    with pytest.raises(errors.InvalidArgumentError, match="Invalid device specification '/bogus:1'"):
        df.get_device("/bogus:1")


def test_higher_priority_factory_takes_over_a_device_type() -> None:
    builtin = FakeFactory("GPU", 2, "builtin")
    plugin = FakeFactory("GPU", 1, "plugin")
    df.register_device_factory("GPU", builtin, priority=210, source="builtin-gpu")
    df.register_device_factory("GPU", plugin, priority=220, source="plugin.so")
    assert df.device_factory("GPU") is plugin
    assert df.device_types() == ["GPU", "CPU"]  # GPU outranks CPU (70) for placement
    assert df.list_physical_devices("GPU") == [df.PhysicalDevice("/physical_device:GPU:0", "GPU")]
    assert df.get_device_details(df.list_physical_devices("GPU")[0]) == {"device_name": "plugin #0"}
    assert [d.name for d in df.device_set()] == [
        "/job:localhost/replica:0/task:0/device:GPU:0",
        "/job:localhost/replica:0/task:0/device:CPU:0",
    ]
    assert df.device_set().prioritized_device_types() == ["GPU", "CPU"]


def test_same_priority_twice_is_rejected_naming_both_sources() -> None:
    df.register_device_factory("GPU", FakeFactory("GPU", 1), priority=210, source="a.so")
    with pytest.raises(errors.AlreadyExistsError, match="priority 210: b.so and a.so"):
        df.register_device_factory("GPU", FakeFactory("GPU", 1), priority=210, source="b.so")


def test_unregister_restores_the_lower_priority_factory() -> None:
    low, high = FakeFactory("GPU", 2), FakeFactory("GPU", 1)
    df.register_device_factory("GPU", low, priority=210)
    df.register_device_factory("GPU", high, priority=220)
    df.unregister_device_factory("GPU", high)
    assert df.device_factory("GPU") is low and len(df.list_physical_devices("GPU")) == 2


def test_failing_factory_is_reported_and_skipped() -> None:
    fallback = FakeFactory("GPU", 1)
    df.register_device_factory("GPU", fallback, priority=210, source="fallback")
    df.register_device_factory("GPU", BrokenFactory("GPU", 1), priority=230, source="broken.so")
    with pytest.warns(RuntimeWarning, match=r"'GPU' from broken.so failed to list physical devices: OSError"):
        physical = df.list_physical_devices()
    assert [d.device_type for d in physical] == ["CPU", "GPU"]  # CPU first, as TF; the next factory serves GPU
    assert len(df.device_set()) == 2


def test_factory_failing_to_create_devices_leaves_the_others() -> None:
    class NoCreate(FakeFactory):
        def create_devices(self, physical_indices, name_prefix):
            raise RuntimeError("out of handles")

    df.register_device_factory("XPU", NoCreate("XPU", 1), priority=220, source="xpu.so")
    with pytest.warns(RuntimeWarning, match="'XPU' from xpu.so failed to create devices"):
        devices = df.device_set()
    assert [d.device_type for d in devices] == ["CPU"]


def test_visible_devices_choose_and_renumber() -> None:
    gpu = FakeFactory("GPU", 3)
    df.register_device_factory("GPU", gpu, priority=210)
    gpus = df.list_physical_devices("GPU")
    assert df.get_visible_devices("GPU") == gpus
    df.set_visible_devices([gpus[1], gpus[2]], "GPU")
    assert df.get_visible_devices() == [*df.list_physical_devices("CPU"), gpus[1], gpus[2]]
    assert df.get_visible_devices("GPU") == [gpus[1], gpus[2]]
    assert [d.name for d in df.device_set().devices_of_type("GPU")] == [
        "/job:localhost/replica:0/task:0/device:GPU:0",
        "/job:localhost/replica:0/task:0/device:GPU:1",
    ]
    assert gpu.created_from == [1, 2]
    assert repr(df.list_logical_devices("GPU")) == (
        "[LogicalDevice(name='/device:GPU:0', device_type='GPU'), "
        "LogicalDevice(name='/device:GPU:1', device_type='GPU')]"
    )


def test_set_visible_devices_errors_match_tensorflow() -> None:
    cpus = df.list_physical_devices("CPU")
    with pytest.raises(ValueError) as info:
        df.set_visible_devices(cpus, "GPU")
    assert str(info.value) == "Unrecognized device: PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')"
    with pytest.raises(ValueError) as info:
        df.set_visible_devices(["x"])
    assert str(info.value) == "Unrecognized device: 'x'"
    df.set_visible_devices(cpus[0])  # a single device is accepted
    df.device_set()
    df.set_visible_devices(cpus)  # unchanged after initialization: allowed, as in TF
    with pytest.raises(RuntimeError) as info:
        df.set_visible_devices([], "CPU")
    assert str(info.value) == "Visible devices cannot be modified after being initialized"


def test_factories_cannot_be_added_after_devices_exist() -> None:
    df.device_set()
    assert df.devices_initialized()
    with pytest.raises(RuntimeError, match="device type 'GPU' from late.so: devices were already created"):
        df.register_device_factory("GPU", FakeFactory("GPU", 1), priority=210, source="late.so")


def test_device_copy_interface_defaults_through_host() -> None:
    import numpy as np

    df.register_device_factory("GPU", FakeFactory("GPU", 1), priority=210)
    cpu, gpu = df.get_device("/CPU:0"), df.get_device("/GPU:0")
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = cpu.copy_to(x, gpu)
    np.testing.assert_array_equal(gpu.to_host(y), x)
    assert cpu.copy_to(x, cpu) is x
    gpu.synchronize()
    assert gpu.zeros((2,), "int64").dtype == np.int64
