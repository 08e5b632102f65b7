"""Loading StreamExecutor plugins (SE_InitPlugin): versions, struct sizes, required functions, teardown, duplicates."""

from __future__ import annotations

import ctypes
import logging
import os
import shutil
import subprocess
import sys
import warnings

import numpy as np
import pytest

from modtensor.framework import errors
from modtensor.plugin import load_library, loaded_plugins
from modtensor.plugin.loader import load_native_library, unload_native_library
from modtensor.plugin.native.stream_executor import loaded_platforms
from modtensor.runtime import device_factory
from modtensor.runtime.kernel_registry import global_kernel_registry

from .support import CSRC

SOURCE = [CSRC / "se_host.c"]


def build(build_plugin, name: str, *defines: str):
    return build_plugin(name, sources=SOURCE, flags=[f"-D{d}" for d in defines])


def record_of(path):
    real = os.path.realpath(path)
    return next(r for r in loaded_plugins() if r.real_path == real)


@pytest.fixture
def fresh_devices():
    """Device factories can only be registered before devices exist: start and end without a device set."""
    device_factory.reset_devices_for_testing()
    loaded: list = []
    yield loaded
    for path in loaded:
        unload_native_library(path)
    device_factory.reset_devices_for_testing()


@pytest.mark.parametrize(
    ("name", "defines", "error", "message"),
    [
        ("se_missing", ["SE_MISSING_MEMCPY", 'SE_TYPE="SEMISS"', 'SE_NAME="SE_MISS"'], errors.FailedPreconditionError,
         "required function 'SP_StreamExecutor.memcpy_htod' is not set"),
        ("se_small", ["SE_SMALL_PLATFORM", 'SE_TYPE="SESMALL"', 'SE_NAME="SE_SMALL"'], errors.FailedPreconditionError,
         "SP_Platform.struct_size is 24, too small for its required field 'type' (needs at least 32"),
        ("se_fail", ["SE_FAIL_INIT", 'SE_TYPE="SEFAIL"', 'SE_NAME="SE_FAIL"'], errors.InternalError,
         "failed: the plugin reported: no HostDev hardware found"),
        # TensorFlow's ValidateDeviceType: platform name and type must match [A-Z][A-Z_]*
        ("se_lower_name", ['SE_NAME="DemoDevice"', 'SE_TYPE="SELOWER"'], errors.FailedPreconditionError,
         "Device name/type 'DemoDevice' must match [A-Z][A-Z_]*."),
        ("se_bad_type", ['SE_NAME="SE_BAD_TYPE"', 'SE_TYPE="MY:DEV"'], errors.FailedPreconditionError,
         "Device name/type 'MY:DEV' must match [A-Z][A-Z_]*."),
    ],
)  # fmt: skip
def test_a_bad_device_plugin_is_rejected_naming_file_and_cause(
    build_plugin, fresh_devices, name, defines, error, message
):
    path = build(build_plugin, name, *defines)
    with pytest.raises(error) as info:
        load_library(path)
    assert message in info.value.message
    assert str(path) in info.value.message
    record = record_of(path)
    assert not record.loaded and record.device_types == []
    device_type = defines[1].split('"')[1]
    assert device_factory.device_factory(device_type) is None
    assert [d.device_type for d in device_factory.list_physical_devices()] == ["CPU"]  # the rest goes on
    assert all(p.path != str(path) for p in loaded_platforms().values())


def test_a_failing_plugin_found_by_discovery_is_a_warning(build_plugin, fresh_devices):
    path = build(build_plugin, "se_fail_warn", "SE_FAIL_INIT", 'SE_TYPE="SEFAILW"', 'SE_NAME="SE_FAIL_W"')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        record = load_native_library(path, origin="MODTENSOR_PLUGIN_PATH", raise_errors=False)
    assert not record.loaded
    assert any(str(path) in str(w.message) and "no HostDev hardware found" in str(w.message) for w in caught)


def test_platform_loads_devices_and_tears_down_in_reverse(build_plugin, fresh_devices):
    path = build(build_plugin, "se_plain", 'SE_TYPE="SEPLAIN"', 'SE_NAME="SE_PLAIN"')
    load_library(path)
    fresh_devices.append(path)
    record = record_of(path)
    assert record.entry_points == {"SE_InitPlugin": "called"} and record.device_types == ["SEPLAIN"]
    platform = loaded_platforms()["SE_PLAIN"]
    assert (platform.type, len(platform.devices), platform.use_bfc_allocator) == ("SEPLAIN", 2, True)
    assert device_factory.device_type_priority("SEPLAIN") == 220
    names = [d.name for d in device_factory.list_physical_devices("SEPLAIN")]
    assert names == ["/physical_device:SEPLAIN:0", "/physical_device:SEPLAIN:1"]
    device_factory.list_logical_devices()  # creates the devices: 4 streams each

    live = ctypes.CDLL(str(path)).se_host_live_objects
    live.restype = ctypes.c_char_p
    devices, streams, _ = map(int, live().split())
    assert (devices, streams) == (2, 8)
    first, second = (device_factory.get_device(f"/device:SEPLAIN:{i}") for i in (0, 1))
    there = first.copy_to(first.from_host(np.arange(4, dtype=np.float32)), second)  # memcpy_dtod, both ways
    back = second.copy_to(there, first)
    assert (there.device, back.device, back.numpy().tolist()) == (second, first, [0.0, 1.0, 2.0, 3.0])
    del there, back
    platform.teardown()
    assert live() == b"0 0 0"  # streams, events and devices destroyed
    assert "SE_PLAIN" not in loaded_platforms()


def test_an_older_executor_without_fills_loads_and_fills_are_emulated(build_plugin, fresh_devices, caplog):
    path = build(build_plugin, "se_old", "SE_OLD_EXECUTOR", 'SE_TYPE="SEOLD"', 'SE_NAME="SE_OLD"')
    with caplog.at_level(logging.INFO, logger="modtensor.plugin"):
        load_library(path)
    fresh_devices.append(path)
    assert "does not provide mem_zero, memset, memset32; modtensor emulates them" in caplog.text
    device = device_factory.get_device("/device:SEOLD:0")
    filled = device.from_host(np.full(5, 7.0, "float32"))
    del filled
    zeros = device.zeros([5], "float32")
    assert device.to_host(zeros).tolist() == [0.0] * 5


def test_timer_functions_are_optional_as_in_tensorflow(build_plugin, fresh_devices):
    path = build(build_plugin, "se_no_timers", "SE_NO_TIMER_FNS", 'SE_TYPE="SENOTIMER"', 'SE_NAME="SE_NO_TIMER"')
    load_library(path)  # TensorFlow 2.21 neither requires nor calls create_timer_fns
    fresh_devices.append(path)
    assert not loaded_platforms()["SE_NO_TIMER"].has_timer_fns
    device = device_factory.get_device("/device:SENOTIMER:1")
    assert device.to_host(device.from_host(np.arange(3, dtype=np.float32))).tolist() == [0.0, 1.0, 2.0]


def test_a_second_platform_with_the_same_name_or_type_is_rejected(build_plugin, fresh_devices):
    first = build(build_plugin, "se_dup_a", 'SE_TYPE="SEDUP"', 'SE_NAME="SE_DUP"')
    same_name = build(build_plugin, "se_dup_b", 'SE_TYPE="SEDUPB"', 'SE_NAME="SE_DUP"')
    same_type = build(build_plugin, "se_dup_c", 'SE_TYPE="SEDUP"', 'SE_NAME="SE_DUP_C"')
    load_library(first)
    fresh_devices.append(first)
    for second, what in ((same_name, "name 'SE_DUP'"), (same_type, "device type 'SEDUP'")):
        with pytest.raises(errors.AlreadyExistsError) as info:
            load_library(second)
        assert what in info.value.message
        assert str(second) in info.value.message and str(first) in info.value.message
    assert device_factory.device_factory("SEDUPB") is None
    assert loaded_platforms()["SE_DUP"].path == str(first)
    assert len(device_factory.list_physical_devices("SEDUP")) == 2
    assert global_kernel_registry().kernels_for_op("Identity")  # nothing else disturbed


def test_memory_growth_setting_decides_reserving_up_front(build_plugin, fresh_devices):
    from modtensor.config import experimental

    path = build(build_plugin, "se_grow", 'SE_TYPE="SEGROW"', 'SE_NAME="SE_GROW"')
    load_library(path)
    fresh_devices.append(path)
    physical = device_factory.list_physical_devices("SEGROW")
    experimental.set_memory_growth(physical[1], True)
    try:
        first, second = (device_factory.get_device(f"/device:SEGROW:{i}") for i in (0, 1))
        assert first.allocator.get_stats().bytes_reserved == 1 << 20  # default: the whole device up front
        assert second.allocator.get_stats().bytes_reserved == 0  # growth: nothing until needed
        second.from_host(np.ones(4, np.float32))
        assert 0 < second.allocator.get_stats().bytes_reserved <= 1 << 20
    finally:
        experimental.reset_memory_growth_for_testing()


DISCOVERED = """
import numpy as np
import modtensor as tf
from modtensor.plugin import loaded_plugins

names = [d.name for d in tf.config.list_physical_devices()]
expected = ["/physical_device:CPU:0"] + [f"/physical_device:{t}:{i}" for t in ("SESITE", "SEENV") for i in (0, 1)]
assert sorted(names) == sorted(expected), names
origins = {r.path.rsplit("/", 1)[-1]: r.origin for r in loaded_plugins()}
assert origins["se_site.so"].startswith("modtensor-plugins in "), origins
assert origins["se_env.so"] == "MODTENSOR_PLUGIN_PATH", origins
with tf.device("/SESITE:1"):
    y = tf.nn.relu(tf.constant([-1.0, 2.0]) + tf.constant([0.5, 0.5]))
assert y.device.endswith("device:SESITE:1") and y.numpy().tolist() == [0.0, 2.5]
print("ok")
"""


def test_plugins_in_site_packages_and_the_plugin_path_are_discovered_without_load_library(build_plugin, tmp_path):
    site = tmp_path / "site-packages"  # a folder named site-packages on sys.path counts as one
    (site / "modtensor-plugins").mkdir(parents=True)
    env_folder = tmp_path / "more-plugins"
    env_folder.mkdir()
    site_plugin = build(build_plugin, "se_site", "SE_KERNELS", 'SE_TYPE="SESITE"', 'SE_NAME="SE_SITE"')
    shutil.copy(site_plugin, site / "modtensor-plugins")
    shutil.copy(build(build_plugin, "se_env", 'SE_TYPE="SEENV"', 'SE_NAME="SE_ENV"'), env_folder)
    env = {k: v for k, v in os.environ.items() if k != "MODTENSOR_NO_PLUGINS"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), env.get("PYTHONPATH", "")]))
    env["MODTENSOR_PLUGIN_PATH"] = str(env_folder)
    result = subprocess.run([sys.executable, "-c", DISCOVERED], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr
