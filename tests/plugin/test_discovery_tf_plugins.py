"""TensorFlow's plugin folder and discovery timing: plugins are there when the program names them.

A device plugin in ``<site-packages>/tensorflow-plugins/`` (where binary TF plugin wheels install) or
on ``MODTENSOR_PLUGIN_PATH`` is found, ``with tf.device("/TYPE:0")`` works right after
``import modtensor`` (as TF, which loads plugins at import), ``import modtensor`` itself loads
nothing, ``modtensor plugins`` says where each came from, and ``MODTENSOR_NO_TF_PLUGINS=1``
leaves TF's folder alone. Each scenario runs in a fresh interpreter (discovery is once per process).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .support import CSRC

SCRIPT = """
import json, sys
import modtensor as tf
import modtensor.plugin as plugin
at_import = len(plugin.loaded_plugins())
out = {"at_import": at_import}
try:
    with tf.device("/DISCODEV:0"):
        y = tf.nn.relu(tf.constant([-1.0, 2.0]))
    out["device"] = y.device
    out["value"] = y.numpy().tolist()
except Exception as e:
    out["error"] = f"{type(e).__name__}: {e}"
out["records"] = [r.summary() for r in plugin.loaded_plugins()]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def device_plugin(build_plugin) -> Path:
    flags = ["-DSE_KERNELS", '-DSE_TYPE="DISCODEV"', '-DSE_NAME="DISCODEV_PLATFORM"']
    return build_plugin("se_discodev", sources=[CSRC / "se_host.c"], flags=flags)


def run(site: Path | None, **env: str) -> dict:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("MODTENSOR_")}
    if site is not None:
        environment["PYTHONPATH"] = os.pathsep.join([str(site), environment.get("PYTHONPATH", "")])
    environment.update(env)
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=environment, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def tf_plugins_site(tmp_path: Path, library: Path) -> Path:
    site = tmp_path / "lib" / "site-packages"
    (site / "tensorflow-plugins").mkdir(parents=True)
    (site / "tensorflow-plugins" / "libdisco.so").write_bytes(library.read_bytes())
    return site


def test_a_device_plugin_in_tensorflow_plugins_is_usable_right_after_import(device_plugin, tmp_path):
    out = run(tf_plugins_site(tmp_path, device_plugin))
    assert out["at_import"] == 0  # import modtensor loads no plugin; naming the device does
    assert out.get("error") is None, out
    assert out["device"].endswith("device:DISCODEV:0") and out["value"] == [0.0, 2.0]
    (record,) = [r for r in out["records"] if r["name"] == "libdisco.so"]  # (the venv may hold ITEX too)
    assert record["origin"] == f"tensorflow-plugins in {tmp_path / 'lib' / 'site-packages'}"
    assert record["device_types"] == ["DISCODEV"] and record["error"] is None


def test_modtensor_no_tf_plugins_leaves_tensorflows_folder_alone(device_plugin, tmp_path):
    out = run(tf_plugins_site(tmp_path, device_plugin), MODTENSOR_NO_TF_PLUGINS="1")
    assert not [r for r in out["records"] if "tensorflow-plugins" in r["origin"]]
    assert out["error"].startswith("ValueError: Unknown attribute 'DISCODEV' is encountered while parsing")


def test_a_device_plugin_on_modtensor_plugin_path_is_usable_right_after_import(device_plugin):
    out = run(None, MODTENSOR_PLUGIN_PATH=str(device_plugin))
    assert out.get("error") is None and out["device"].endswith("device:DISCODEV:0"), out
    assert [r["origin"] for r in out["records"] if r["path"] == str(device_plugin)] == ["MODTENSOR_PLUGIN_PATH"]
