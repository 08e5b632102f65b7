"""The ``modtensor`` command as a user meets it: --version, demo from any folder, optimize's argument checks,
a reader that stops early (``| head``), progress of long steps on a terminal (and none in pipes)."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from modtensor import __version__
from modtensor.cli.main import main
from modtensor.framework.protos import graph_pb2

REPO = Path(__file__).resolve().parents[1]
MODELS = REPO / "examples" / "models"


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ, **extra)
    env.pop("MODTENSOR_PROGRESS", None)
    env.update(extra)
    return env


def _cli(*args: str, cwd: Path, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "modtensor.cli.main", *args], capture_output=True, text=True, cwd=cwd, timeout=600,
        env=_env(), **kwargs,
    )  # fmt: skip


def test_version(capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out == f"modtensor {__version__}\n"


def test_demo_runs_from_any_directory_on_the_models_installed_with_the_package(tmp_path) -> None:
    from modtensor.golden_models import models_folder

    folder = models_folder()
    if "site-packages" in str(folder):  # an installed modtensor carries a copy of examples/models, file for file
        assert folder.parts[-2:] == ("modtensor", "golden_models")
        repo_files = sorted(p.name for p in MODELS.iterdir())
        installed = sorted(p.name for p in folder.iterdir() if p.name not in ("__init__.py", "__pycache__"))
        assert installed == repo_files  # beside the package module's own __init__.py
        assert (folder / "manifest.json").read_bytes() == (MODELS / "manifest.json").read_bytes()
    done = _cli("demo", "--device-plugin", "none", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for name in json.loads((MODELS / "manifest.json").read_text())["models"]:
        assert f"== {name}:" in done.stdout
    assert done.stdout.count("[ok]") == len(json.loads((MODELS / "manifest.json").read_text())["models"])


def test_optimize_rejects_a_fetch_or_device_that_names_nothing(capsys) -> None:
    assert main(["optimize", str(MODELS / "mlp.pb"), "--fetch", "logits_typo"]) == 1
    err = capsys.readouterr().err
    assert "--fetch 'logits_typo': no node 'logits_typo' in" in err and "nodes nothing consumes: probs" in err
    assert main(["optimize", str(MODELS / "mlp.pb"), "--fetch", "probs:3"]) == 1
    assert "--fetch 'probs:3': node 'probs' (Softmax) has 1 output(s)" in capsys.readouterr().err
    assert main(["optimize", str(MODELS / "mlp.pb"), "--device", "NO_SUCH_DEVICE"]) == 1
    err = capsys.readouterr().err
    assert "--device 'NO_SUCH_DEVICE': no such device type in this process (known: CPU" in err
    assert "load its plugin with --plugin PATH" in err
    assert main(["optimize", str(MODELS / "mlp.pb"), "--fetch", "probs", "--device", "CPU"]) == 0


def test_a_reader_that_stops_early_costs_neither_the_output_file_nor_a_traceback(tmp_path) -> None:
    out = tmp_path / "mlp_opt.pb"
    process = subprocess.Popen(
        [sys.executable, "-m", "modtensor.cli.main", "optimize", str(MODELS / "mlp.pb"), "-o", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path, env=_env(),
    )  # fmt: skip
    process.stdout.close()  # the reader is gone before the command prints anything (as `| head` after its lines)
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=600) == 0, stderr
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr
    assert out.is_file() and out.stat().st_size > 0
    shell = subprocess.run(
        f"{sys.executable} -m modtensor.cli.main inspect {MODELS / 'small_cnn.pb'} --nodes | head -n 1",
        shell=True, capture_output=True, text=True, env=_env(), timeout=600,
    )  # fmt: skip
    assert shell.stdout.count("\n") == 1 and "Traceback" not in shell.stderr


def _large_graph(path: Path, nodes: int = 10_000) -> None:
    graph = graph_pb2.GraphDef()
    x = graph.node.add(name="x", op="Placeholder")
    x.attr["dtype"].type = 1
    previous = "x"
    for i in range(nodes):
        node = graph.node.add(name=f"n{i}", op="Identity", input=[previous])
        node.attr["T"].type = 1
        previous = node.name
    path.write_bytes(graph.SerializeToString())


def test_long_steps_show_progress_on_a_terminal_and_nothing_in_pipes(tmp_path) -> None:
    model = tmp_path / "chain.pb"
    _large_graph(model)
    np.save(tmp_path / "x.npy", np.float32(2.0))
    args = [sys.executable, "-m", "modtensor.cli.main", "run", str(model), "--input", f"x={tmp_path / 'x.npy'}"]
    piped = subprocess.run(args, capture_output=True, text=True, env=_env(), timeout=600)
    assert piped.returncode == 0, piped.stderr
    assert "n9999:0: float32[] min=2" in piped.stdout
    assert "importing" not in piped.stderr and "\r" not in piped.stderr
    leader, follower = pty.openpty()  # stderr on a terminal
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=follower, env=_env(), cwd=tmp_path)
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    stdout = process.stdout.read().decode()
    process.stdout.close()
    assert process.wait(timeout=600) == 0
    text = seen.decode()
    assert f"importing {model} (10,001 nodes) ... done in" in text
    assert f"placing, optimizing and running {model} (10,001 nodes) ... done in" in text
    assert "n9999:0: float32[] min=2" in stdout  # results stay on stdout
