"""Discovery at the runtime's first use: modtensor-plugins/ folders, MODTENSOR_PLUGIN_PATH, entry points.

Discovery happens once per process, so each scenario runs in a fresh interpreter.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from .support import CSRC

PY_PLUGIN = '''
"""A Python plugin: one good registration function and one that fails half-way."""
import numpy as np
from modtensor.framework.op_registry import register_op
from modtensor.runtime.kernel_registry import register_kernel_function


def register():
    register_op("MtPyPluginOp").input("x: float").output("y: float")
    register_kernel_function("MtPyPluginOp", lambda x: np.asarray(x * 3, np.float32))


def broken():
    register_op("MtPyBroken").output("y: float")
    register_kernel_function("MtPyBroken", lambda: np.float32(0))
    raise RuntimeError("broken plugin")
'''

SCRIPT = """
import json, sys, warnings
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    import modtensor.plugin as plugin
    at_import = len(plugin.loaded_plugins())
    from modtensor.framework.op_registry import global_registry
    if sys.argv[1] == "kernels":
        from modtensor.runtime.kernel_registry import global_kernel_registry
        global_kernel_registry()
    else:
        global_registry().lookup("MtDisco")
    result = {
        "at_import": at_import,
        "records": [r.summary() for r in plugin.loaded_plugins()],
        "warnings": [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)],
        "ops": [op for op in ("MtDisco", "MtOther", "MtPyPluginOp", "MtPyBroken", "MtBadSpecGood")
                if op in global_registry()],
    }
print(json.dumps(result))
"""


@pytest.fixture(scope="module")
def plugin_tree(build_plugin, tmp_path_factory) -> dict[str, Path]:
    """A site-packages folder with modtensor-plugins/ and a Python plugin, plus a MODTENSOR_PLUGIN_PATH folder."""
    root = tmp_path_factory.mktemp("discovery")
    site = root / "lib" / "site-packages"
    folder = site / "modtensor-plugins"
    folder.mkdir(parents=True)
    (folder / "disco.so").write_bytes(build_plugin("disco").read_bytes())
    (folder / "bad_spec.so").write_bytes(build_plugin("bad_spec").read_bytes())
    (folder / "README.txt").write_text("not a library")
    extra = root / "extra"
    extra.mkdir()
    other = build_plugin("other", sources=[CSRC / "disco.c"], flags=['-DDISCO_OP="MtOther"'])
    (extra / "other.so").write_bytes(other.read_bytes())
    (extra / "same_as_disco.so").symlink_to(folder / "disco.so")  # one library, two paths: loaded once
    dist = site / "mtfake-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: mtfake\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(
        "[modtensor.plugins]\ngood = mtfake_plugin:register\nbroken = mtfake_plugin:broken\n"
    )
    (site / "mtfake_plugin.py").write_text(textwrap.dedent(PY_PLUGIN))
    return {"site": site, "extra": extra}


def discover(tree: dict[str, Path], trigger: str, **env: str) -> dict:
    environment = dict(os.environ)
    environment.pop("MODTENSOR_NO_PLUGINS", None)
    environment["PYTHONPATH"] = os.pathsep.join([str(tree["site"]), environment.get("PYTHONPATH", "")])
    environment["MODTENSOR_PLUGIN_PATH"] = str(tree["extra"])
    environment["MODTENSOR_NATIVE_CPU_KERNELS"] = "0"  # the built-in library has its own test below
    environment.update(env)
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, trigger], capture_output=True, text=True, env=environment, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_first_kernel_registry_use_loads_every_installed_plugin(plugin_tree):
    result = discover(plugin_tree, "kernels")
    assert result["at_import"] == 0  # importing modtensor.plugin loads nothing
    by_name = {r["name"]: r for r in result["records"]}
    assert [r["name"] for r in result["records"]] == ["bad_spec.so", "disco.so", "other.so", "broken", "good"]
    assert by_name["disco.so"]["origin"].startswith("modtensor-plugins in ")
    assert by_name["disco.so"]["kernels"] == {"CPU": ["MtDisco"]}
    assert by_name["other.so"]["origin"] == "MODTENSOR_PLUGIN_PATH" and by_name["other.so"]["ops"] == ["MtOther"]
    assert by_name["good"]["kind"] == "python" and by_name["good"]["ops"] == ["MtPyPluginOp"]
    assert by_name["good"]["origin"] == "entry point of mtfake 0.1"
    assert (
        by_name["broken"]["error"] == "UnknownError: Loading of plugin mtfake_plugin:broken failed: "
        "RuntimeError: broken plugin"
    )
    assert by_name["bad_spec.so"]["error"].startswith("InvalidArgumentError: TF_InitKernel of plugin ")
    assert sorted(result["ops"]) == ["MtDisco", "MtOther", "MtPyPluginOp"]  # the failures were rolled back
    warnings = result["warnings"]
    assert len(warnings) == 2
    assert any("bad_spec.so was not loaded (InvalidArgumentError" in w for w in warnings)
    assert any("plugin mtfake_plugin:broken was not loaded (UnknownError" in w for w in warnings)


def test_an_unknown_op_lookup_triggers_discovery(plugin_tree):
    result = discover(plugin_tree, "ops")
    assert "MtDisco" in result["ops"] and len(result["records"]) == 5


def test_modtensor_no_plugins_turns_discovery_off(plugin_tree):
    result = discover(plugin_tree, "kernels", MODTENSOR_NO_PLUGINS="1")
    assert result["records"] == [] and result["ops"] == [] and result["warnings"] == []


def test_the_built_in_native_cpu_kernels_load_first_even_without_plugins(plugin_tree):
    result = discover(plugin_tree, "kernels", MODTENSOR_NO_PLUGINS="1", MODTENSOR_NATIVE_CPU_KERNELS="1")
    (record,) = result["records"]
    assert record["name"] == "libmodtensor_cpu_kernels.so" and record["origin"] == "built-in"
    assert record["error"] is None and "Conv2D (T in [DT_FLOAT])" in record["kernels"]["CPU"]
    assert result["ops"] == [] and result["warnings"] == []  # it defines no ops, only kernels
    result = discover(plugin_tree, "kernels")
    assert [r["name"] for r in result["records"]][0] != "libmodtensor_cpu_kernels.so"  # turned off by the variable
