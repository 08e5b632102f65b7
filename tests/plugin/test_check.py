"""``modtensor check PLUGIN.so`` (the conformance kit) and ``modtensor plugins --check`` on the example plugins.

Each example plugin is built as its README says; the check runs its steps in child processes
(this process loads nothing), so a plugin that crashes (tests/plugin/csrc/crash_plugin.c) is
reported with the kernel it crashed in, and the check goes on with the next kernel.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from modtensor import sysconfig
from modtensor.cli.main import main
from modtensor.plugin.conformance.elf import read_elf
from modtensor.plugin.conformance.report import CheckOptions, check_plugin
from modtensor.plugin.conformance.symbols import check_symbols
from modtensor.plugin.native import shim_path

from .support import REPO

EXAMPLES = REPO / "examples" / "plugins"
MODELS = REPO / "examples" / "models"


def _need(*tools: str) -> None:
    for tool in tools:
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")


@pytest.fixture(scope="module")
def examples(tmp_path_factory) -> dict[str, Path]:
    """The example plugins, built with the commands of their READMEs."""
    _need("gcc", "g++", "make")
    out = tmp_path_factory.mktemp("examples")
    flags = sysconfig.get_compile_flags()
    built = {
        "custom_op": out / "custom_op.so",
        "fused_optimizer": out / "fused_optimizer.so",
        "demo_device": out / "libdemo_device.so",
        "demo_fused": out / "libdemo_fused.so",
    }
    commands = [
        (["g++", "-std=c++17", "-shared", "-fPIC", "-O2", "custom_op.cc", "-o", str(built["custom_op"]), *flags],
         EXAMPLES / "custom_op"),
        (["gcc", "-shared", "-fPIC", "-O2", "fused_optimizer.c", "fused_rewrite.c", "-o",
          str(built["fused_optimizer"]), *flags], EXAMPLES / "fused_optimizer"),
        (["make", "-s", f"OUT={built['demo_device']}", f"PYTHON={sys.executable}"], EXAMPLES / "demo_device"),
        (["make", "-s", "WITH_FUSED_OPTIMIZER=1", f"OUT={built['demo_fused']}", f"PYTHON={sys.executable}"],
         EXAMPLES / "demo_device"),
    ]  # fmt: skip
    for cmd, cwd in commands:
        done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
        assert done.returncode == 0, f"{' '.join(cmd)}\n{done.stderr}"
    return built


@pytest.fixture(scope="module")
def demo_report(examples) -> dict:
    return check_plugin(examples["demo_device"])


def _results(report: dict) -> dict[str, list[dict]]:
    return {k["kernel"]: k["results"] for k in report["numerics"]}


def test_elf_reader_agrees_with_nm():
    _need("nm")
    info = read_elf(shim_path())
    done = subprocess.run(["nm", "-D", "--defined-only", str(shim_path())], capture_output=True, text=True, check=True)
    exported = {line.split()[-1].split("@")[0] for line in done.stdout.splitlines() if line.split()[1] in "TDBRVWiu"}
    assert {name for name in exported if name.startswith("TF_")} == {n for n in info.defined if n.startswith("TF_")}
    assert "libc.so.6" in info.needed and info.soname == "libmodtensor_framework.so"


def test_symbols_of_a_plugin_resolve_against_modtensor_before_loading(examples):
    report = check_symbols(examples["demo_device"])
    assert report.ok, report.problems
    assert report.entry_points == ["SE_InitPlugin", "TF_InitKernel"]
    plugin = report.libraries[0]
    assert plugin.path == str(examples["demo_device"]) and not plugin.unresolved
    assert {"TF_NewStatus", "TF_AllocateOutput", "TF_RegisterKernelBuilder"} <= set(plugin.from_modtensor)


def test_symbols_name_the_c_api_function_modtensor_does_not_export(build_plugin):
    report = check_symbols(build_plugin("unresolved"))
    assert not report.ok
    assert report.libraries[0].unresolved == ["TF_NoSuchFunction"]
    assert any("calls 1 C API function(s) modtensor does not export: TF_NoSuchFunction" in p for p in report.problems)
    full = check_plugin(build_plugin("unresolved"), CheckOptions(sections=("load",)))
    assert not full["verdict"]["ok"] and "undefined symbol: TF_NoSuchFunction" in full["load"]["error"]


def test_demo_device_loads_and_reports_structs_devices_and_streams(demo_report):
    assert demo_report["verdict"]["ok"], demo_report["verdict"]["problems"]
    load = demo_report["load"]
    assert load["entry_points"] == {"SE_InitPlugin": "called", "TF_InitKernel": "called"}
    # the plugin's own kernels (its Identity, NoOp, Const, ... are the runtime's DEFAULT ones)
    assert load["device_types"] == ["MY_DEVICE"] and len(load["kernels"]["MY_DEVICE"]) == 11
    structs = load["structs"]
    assert structs["SE_PlatformRegistrationParams"]["version"] == "0.0.1"
    for name in ("SP_Platform", "SP_PlatformFns", "SP_StreamExecutor", "SP_Device", "SP_DeviceFns"):
        assert structs[name]["struct_size"] == structs[name]["expected"], name
    devices = demo_report["devices"]
    assert devices["platform"]["type"] == "MY_DEVICE" and len(devices["devices"]) == 2
    first = devices["devices"][0]
    assert first["hardware_name"] == "Demo Device 0 (host arena)" and first["gflops"] == 10.0
    assert first["memory"]["total"] == 256 << 20
    checks = demo_report["streams"]["checks"]
    assert len(checks) == 10 and all(c["ok"] for c in checks), checks


def test_demo_device_kernels_match_the_cpu_kernels_and_memory_comes_back(demo_report):
    results = _results(demo_report)
    for kernel in ("MatMul on MY_DEVICE [T in (DT_FLOAT)]", "Conv2D on MY_DEVICE [T in (DT_FLOAT)]",
                   "Softmax on MY_DEVICE [T in (DT_FLOAT)]", "BiasAdd on MY_DEVICE [T in (DT_FLOAT)]"):  # fmt: skip
        (result,) = results[kernel]
        assert result["status"] == "pass" and result["reference"].startswith("modtensor.kernels.cpu"), result
    counts = demo_report["verdict"]["numerics"]
    assert counts["pass"] >= 8 and "fail" not in counts and "error" not in counts  # every kernel of the plugin
    skipped = [r for rs in results.values() for r in rs if r["status"] == "skip"]
    assert all(r["detail"] for r in skipped)  # every skip says why
    assert any(r["detail"] == "resource arguments cannot be generated" for r in skipped)
    memory = demo_report["memory"]
    assert memory["before"]["bytes_in_use"] == memory["after"]["bytes_in_use"] == 0
    assert memory["after"]["plugin_bytes_in_use"] == 0


def test_optimizer_output_is_valid_on_the_golden_models(examples):
    for name, device_type in (("fused_optimizer", "CPU"), ("demo_fused", "MY_DEVICE")):
        report = check_plugin(examples[name], CheckOptions(sections=("optimizer",)))
        assert report["verdict"]["ok"], report["verdict"]["problems"]
        models = {e["model"]: e for e in report["optimizer"]}
        assert sorted(models) == sorted(json.loads((MODELS / "manifest.json").read_text())["models"])
        assert all(e["device_type"] == device_type and e["status"] == "pass" for e in models.values())
        assert models["mlp"]["plugin_status"] == "ran"  # the MatMul+BiasAdd+Relu chain is fused
        assert models["mlp"]["max_relative_error"] < 1e-5


def test_custom_op_kernels_run_without_a_reference(examples):
    report = check_plugin(examples["custom_op"])
    assert report["verdict"]["ok"], report["verdict"]["problems"]
    statuses = {(r["kernel"], r["status"]) for rs in _results(report).values() for r in rs}
    assert ("Polyval on CPU [T in (DT_FLOAT)]", "ran") in statuses
    assert ("RowNorm on CPU [T in (DT_DOUBLE)]", "ran") in statuses


def test_a_crashing_kernel_is_reported_and_the_check_goes_on(build_plugin):
    plugin = build_plugin("crash_plugin")
    report = check_plugin(plugin, CheckOptions(sections=("numerics",), ops="MtCrash,MtCrashCopy,MtCrashAlways"))
    assert not report["verdict"]["ok"]
    (crash,) = report["crashes"]
    assert crash["during"] == "numerics" and crash["item"] == "MtCrashAlways on CPU" and crash["how"] == "SIGSEGV"
    assert f"plugin:  {plugin}" in crash["report"]
    assert "call:    compute of the kernel for op 'MtCrashAlways'" in crash["report"]
    results = _results(report)
    assert results["MtCrashAlways on CPU"][0]["status"] == "crashed"
    assert results["MtCrashCopy on CPU"][0]["status"] == "ran"  # checked by the restarted child
    assert results["MtCrash on CPU"][0]["status"] == "ran"


def test_a_kernel_that_never_returns_times_out_and_is_reported(build_plugin):
    options = CheckOptions(sections=("numerics",), ops="MtCrashHang", timeout=20)
    report = check_plugin(build_plugin("crash_plugin"), options)
    (crash,) = report["crashes"]
    assert (crash["during"], crash["item"], crash["how"]) == ("numerics", "MtCrashHang on CPU", "timed out after 20 s")
    assert _results(report)["MtCrashHang on CPU"][0]["status"] == "crashed"


def test_a_crash_while_loading_is_a_failed_load(build_plugin, monkeypatch):
    monkeypatch.setenv("MT_CRASH_AT_LOAD", "init")
    report = check_plugin(build_plugin("crash_plugin"))
    assert report["load"]["ok"] is False and "crashed while loading (SIGSEGV)" in report["load"]["error"]
    assert report["crashes"][0]["during"] == "load"
    assert "call:    TF_InitKernel" in report["crashes"][0]["report"]


def test_cli_text_and_json(examples, capsys):
    assert main(["check", str(examples["demo_device"])]) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"modtensor check {examples['demo_device']}")
    for line in ("symbols      ok", "load         ok", "devices      ok   platform DEMO_DEVICE", "streams      ok",
                 "numerics     ok", "memory       ok", "result: PASS"):  # fmt: skip
        assert line in text, text
    assert main(["check", str(examples["custom_op"]), "--json", "--no-numerics"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["load"]["ops"] == ["Polyval", "RowNorm"] and report["numerics"] == []


def test_cli_check_of_a_missing_file_fails(tmp_path, capsys):
    assert main(["check", str(tmp_path / "nothing.so")]) == 1
    assert "no such file" in capsys.readouterr().out


def test_plugins_check_loads_each_plugin_in_a_child(examples, build_plugin, capsys, monkeypatch):
    crash = build_plugin("crash_plugin")
    monkeypatch.setenv("MODTENSOR_PLUGIN_PATH", os.pathsep.join([str(examples["demo_device"]), str(crash)]))
    monkeypatch.setenv("MT_CRASH_AT_LOAD", "init")
    assert main(["plugins", "--check", "--json", "--load", str(examples["custom_op"])]) == 1
    listed = {Path(entry["path"]).name: entry for entry in json.loads(capsys.readouterr().out)}
    assert listed["libdemo_device.so"]["origin"] == "MODTENSOR_PLUGIN_PATH"
    assert listed["libdemo_device.so"]["check"]["verdict"]["ok"]
    assert listed["custom_op.so"]["check"]["load"]["ops"] == ["Polyval", "RowNorm"]
    bad = listed["crash_plugin.so"]["check"]
    assert not bad["verdict"]["ok"] and "call:    TF_InitKernel" in bad["crashes"][0]["report"]


def test_run_and_optimize_load_the_plugins_given_with_plugin(examples, tmp_path):
    import numpy as np

    models = REPO / "examples" / "models"
    np.save(tmp_path / "x.npy", np.load(models / "mlp.io.npz")["b1/in/x:0"])
    env = dict(os.environ, MODTENSOR_NO_PLUGINS="1")  # only what --plugin names
    run = subprocess.run(
        [sys.executable, "-m", "modtensor.cli.main", "run", str(models / "mlp.pb"),
         "--input", f"x={tmp_path / 'x.npy'}", "--plugin", str(examples["fused_optimizer"]), "--log-placement"],
        capture_output=True, text=True, env=env, timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "(MyFusedMatMulBiasRelu): /job:localhost/replica:0/task:0/device:CPU:0" in run.stdout  # its optimizer ran
    optimize = subprocess.run(
        [sys.executable, "-m", "modtensor.cli.main", "optimize", str(models / "mlp.pb"), "--device", "MY_DEVICE",
         "--plugin", str(examples["demo_fused"])],
        capture_output=True, text=True, env=env, timeout=600,
    )  # fmt: skip
    assert optimize.returncode == 0, optimize.stderr
    assert f"plugin:{examples['demo_fused']}" in optimize.stdout
