"""A production binary plugin, unchanged: Intel Extension for TensorFlow (CPU) from PyPI.

scripts/install_itex.sh puts the wheel (cached) into the test venv; this test runs it when the
wheel is not installed yet, and skips, saying why, only when it cannot be had (no wheel for this
platform, or PyPI unreachable). ITEX is discovered in ``site-packages/tensorflow-plugins/``,
resolves its ``_pywrap_tensorflow_internal.so`` and ``TF_*`` symbols against modtensor, registers
its ops, kernels and CPU graph optimizer, and runs the golden models with its own kernels.
tests/golden/itex/tf215_itex_partitions.json is what TensorFlow 2.15 with ITEX does with them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from .support import REPO

GOLDEN = json.loads((REPO / "tests/golden/itex/tf215_itex_partitions.json").read_text())["models"]
MODELS = REPO / "examples" / "models"
ALL_MODELS = sorted(json.loads((MODELS / "manifest.json").read_text())["models"])


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("MODTENSOR_NO_TF_PLUGINS", None)  # the suite's default: this test is about that folder
    env.pop("MODTENSOR_NO_PLUGINS", None)
    return env


@pytest.fixture(scope="module")
def itex() -> None:
    cpuinfo = Path("/proc/cpuinfo")
    if not cpuinfo.exists() or "avx2" not in cpuinfo.read_text():
        pytest.skip("ITEX's CPU backend needs Linux on a CPU with AVX2")
    env = dict(os.environ, MODTENSOR_VENV=str(Path(sys.executable).parent.parent))
    done = subprocess.run(
        ["bash", str(REPO / "scripts/install_itex.sh")], capture_output=True, text=True, env=env, timeout=900
    )
    if done.returncode == 2:
        pytest.skip(f"no ITEX wheel for this platform: {done.stderr.strip()}")
    if done.returncode != 0:
        pytest.skip(f"ITEX could not be installed (scripts/install_itex.sh): {done.stderr.strip()[-500:]}")


@pytest.fixture(scope="module")
def models(itex) -> dict:
    done = subprocess.run(
        # Every golden model: the ones TF 2.15 with ITEX was recorded on and the Keras RNN loops.
        [sys.executable, str(REPO / "tests/plugin/itex_models.py"), *ALL_MODELS],
        capture_output=True,
        text=True,
        env=_child_env(),
        timeout=600,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr[-6000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _itex_ops(ops: dict[str, int]) -> dict[str, int]:
    return {op: n for op, n in ops.items() if op.startswith("_ITEX")}


def test_itex_is_discovered_in_tensorflow_plugins_and_registers_everything(models):
    (record,) = [p for p in models["plugins"] if p["name"] == "libitex_cpu.so"]
    assert record["error"] is None, record["error"]
    assert record["origin"].startswith("tensorflow-plugins in ")
    assert record["entry_points"] == {"TF_InitKernel": "called", "TF_InitGraph": "called"}
    assert len(record["ops"]) == 311 and len(record["kernels"]["CPU"]) > 1200
    assert record["optimizers"] == ["CPU"]


@pytest.mark.parametrize("name", ALL_MODELS)
def test_golden_models_run_with_itex_and_give_tensorflows_outputs(models, name):
    result = models["models"][name]
    assert result["max_abs_error_vs_tf221"] < 1e-5, result
    plugin_rows = [status for pass_name, status in result["passes"] if pass_name.endswith("libitex_cpu.so")]
    assert plugin_rows and plugin_rows[0] in ("ran", "no change"), result["passes"]


def test_variables_and_a_loop_in_a_function_run_with_itex_loaded(models):
    run = models["variables_and_loop"]
    w, x = np.asarray(run["w0"], np.float32), np.asarray(run["x"], np.float32)
    for output in run["outputs"]:
        y = np.maximum(x @ w + 0.5, 0)
        for _ in range(3):
            y = np.maximum(y @ np.ones((4, 4), np.float32) * 0.1, 0)
        np.testing.assert_allclose(output, y, rtol=1e-5, atol=1e-6)
        w = w + 0.01
    np.testing.assert_allclose(run["w"], w, rtol=1e-6)


def test_itex_loop_and_noop_kernels_serve_cpu_as_under_tensorflow(models):
    """ITEX registers CPU Enter/Exit/NextIteration/NoOp kernels; TF's are DEFAULT ones, so ITEX's serve CPU
    (the RNN models' loops above ran through them) instead of meeting a same-priority duplicate."""
    sources = models["cpu_kernel_sources"]
    assert all(source.endswith("libitex_cpu.so") for source in sources.values()), sources
    lowered = models["models"]["lstm_lowered"]["ops"]
    assert lowered["Enter"] and lowered["NextIteration"] and lowered["Exit"]


# Every model TF 2.15 with ITEX ran. ITEX's optimizer sees what the built-in passes leave (with its config:
# remapping and the layout optimizer off), so this holds only when they leave what TF's Grappler leaves:
# mobilenet_block's batch norm Mul folded into the Conv2D filters by constant folding (MulConvPushDown), then
# ITEX's Conv2D + bias-like AddV2 fusion, which needs the symbolic shapes TF's grappler reports to plugins.
TF_COMPARABLE = sorted(name for name, record in GOLDEN.items() if "failed" not in record)


@pytest.mark.parametrize("name", TF_COMPARABLE)
def test_itex_rewrites_as_under_tensorflow(models, name):
    assert _itex_ops(models["models"][name]["ops"]) == _itex_ops(GOLDEN[name]["ops"])


def test_itex_kernels_run_the_convolutions_and_attention(models):
    mobilenet = models["models"]["mobilenet_block"]["ops"]
    assert "Conv2D" not in mobilenet and "DepthwiseConv2dNative" not in mobilenet
    for op in ("_ITEXDepthwiseConv2dNative", "_ITEXFusedMatMul", "_ITEXSoftmax"):
        assert mobilenet[op] == GOLDEN["mobilenet_block"]["ops"][op]
    # TF 2.15 cannot run this TF 2.21 graph with ITEX (ITEX's layout pass aborts on BatchMatMulV2's
    # grad_x attr, unknown to TF 2.15); on modtensor, whose OpDefs are TF 2.21's, ITEX runs it.
    assert "failed" in GOLDEN["transformer_encoder"]
    transformer = models["models"]["transformer_encoder"]["ops"]
    assert transformer["_ITEXFusedMatMul"] >= 1 and transformer["_ITEXSoftmax"] == 1
    assert "BatchMatMulV2" not in transformer and "MatMul" not in transformer


def test_modtensor_run_logs_itex_kernels_and_modtensor_plugins_says_where_itex_came_from(itex):
    run = subprocess.run(
        [sys.executable, "-m", "modtensor.cli.main", "run", str(MODELS / "small_cnn.pb"), "--log-placement",
         "--input", f"image={MODELS / 'small_cnn.input.npy'}"],
        capture_output=True, text=True, env=_child_env(), timeout=300, cwd=REPO,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-4000:]
    assert "conv1/Relu: (_ITEXFusedConv2D): /job:localhost/replica:0/task:0/device:CPU:0" in run.stdout
    assert "probs: (_ITEXSoftmax): /job:localhost/replica:0/task:0/device:CPU:0" in run.stdout
    plugins = subprocess.run(
        [sys.executable, "-m", "modtensor.cli.main", "plugins"],
        capture_output=True, text=True, env=_child_env(), timeout=300, cwd=REPO,
    )  # fmt: skip
    block = plugins.stdout[plugins.stdout.index("libitex_cpu.so  (native, loaded)") :]
    assert "  from: tensorflow-plugins in " in block and "graph optimizers: CPU" in block


def test_modtensor_check_reports_on_itex_with_a_fast_numerics_subset(itex):
    """`modtensor check` on ITEX: symbols, load, structs, its graph optimizer on the golden models, and the numerics
    of a fast subset (ITEX's float32 kernels of its _ITEX* ops and its own standard-named ops; ITEX has 1,262)."""
    from modtensor.plugin.discovery import TF_PLUGIN_FOLDER, site_packages_folders

    (library,) = [f / TF_PLUGIN_FOLDER / "libitex_cpu.so" for f in site_packages_folders()
                  if (f / TF_PLUGIN_FOLDER / "libitex_cpu.so").is_file()][:1]  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "modtensor.cli.main", "check", str(library), "--json",
         "--ops", "_ITEX*,Gelu,LayerNorm", "--dtypes", "float32"],
        capture_output=True, text=True, env=_child_env(), timeout=900, cwd=REPO,
    )  # fmt: skip
    report = json.loads(done.stdout)
    symbols = report["symbols"]
    assert symbols["ok"] and symbols["entry_points"] == ["TF_InitKernel", "TF_InitGraph"]
    assert {"name": "_pywrap_tensorflow_internal.so", "requested_by": symbols["libraries"][1]["path"],
            "found": "modtensor"} in symbols["needed"]  # fmt: skip
    load = report["load"]
    assert load["ok"] and len(load["ops"]) == 311 and len(load["kernels"]["CPU"]) == 1262
    assert all(s["struct_size"] == s["expected"] for s in load["structs"].values())
    assert report["verdict"]["numerics_subset"]
    results = {k["kernel"]: k["results"][0] for k in report["numerics"]}
    for op in ("AddN", "BatchMatMulV2", "Conv2D", "DepthwiseConv2dNative", "AvgPool", "Elu", "LeakyRelu", "Slice",
               "Softmax"):  # fmt: skip
        result = results[f"_ITEX{op} on CPU [T in (DT_FLOAT)]"]
        assert result["status"] == "pass" and result["reference"].endswith(f"(op {op})"), result
    for crash in report["crashes"]:  # ITEX aborts on some generated nodes (as under TensorFlow 2.15): reported
        assert f"plugin:  {library}" in crash["report"]
    models = {e["model"]: e for e in report["optimizer"]}
    assert sorted(models) == sorted(json.loads((MODELS / "manifest.json").read_text())["models"])
    assert all(models[name]["status"] == "pass" and models[name]["plugin_status"] == "ran" for name in GOLDEN)
    assert all(models[name]["status"] == "pass" for name in set(models) - set(GOLDEN)), models
