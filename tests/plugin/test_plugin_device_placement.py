"""Placement with a plugin device present, as TensorFlow places with a GPU (or a PluggableDevice).

An un-scoped eager op with a kernel on the plugin device runs there (TF prefers the non-CPU device);
small integer shape arithmetic on host tensors stays on the CPU; a ``tf.function`` called under
``with tf.device("/TYPE:0")`` places its ops there. The device plugin (tests/plugin/csrc/se_host.c
with AddV2/Relu kernels) runs in a fresh interpreter so no other test sees its device.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from .support import CSRC

SCRIPT = """
import json, sys
import modtensor as tf
from modtensor.plugin import load_library
load_library(sys.argv[1])
x = tf.constant([-1.0, 2.0])
out = {"relu": tf.nn.relu(x).device, "relu_value": tf.nn.relu(x).numpy().tolist(),
       "int_shape_math": (tf.constant([2, 3]) + tf.constant([1])).device}

@tf.function
def f(a):
    return tf.nn.relu(a + a)

with tf.device("/PLACEDEV:0"):
    value = f(x)
plan = f.get_concrete_function(x)._compiled_plan
with tf.device("/PLACEDEV:0"):
    scoped = plan()
out["function_devices"] = scoped.devices
out["function_value"] = value.numpy().tolist()
out["unscoped_function_devices"] = plan().devices
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def seen(build_plugin) -> dict:
    flags = ["-DSE_KERNELS", '-DSE_TYPE="PLACEDEV"', '-DSE_NAME="PLACEDEV_PLATFORM"']
    plugin = build_plugin("se_placedev", sources=[CSRC / "se_host.c"], flags=flags)
    env = {k: v for k, v in os.environ.items() if k != "MODTENSOR_PLUGIN_PATH"}
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(plugin)], capture_output=True, text=True, env=env,
                          timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_an_unscoped_eager_op_runs_on_the_plugin_device(seen):
    assert seen["relu"].endswith("device:PLACEDEV:0") and seen["relu_value"] == [0.0, 2.0]
    assert seen["int_shape_math"].endswith("device:CPU:0")


def test_a_function_called_under_a_device_scope_places_its_ops_there(seen):
    assert any(d.endswith("device:PLACEDEV:0") for d in seen["function_devices"]), seen
    assert seen["function_value"] == [0.0, 4.0]
