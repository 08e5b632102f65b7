"""``modtensor run``: the golden TensorFlow-exported models through the command line, output printing and
saving, --log-placement, and clear errors for bad arguments."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from modtensor.cli.main import main

MODELS = Path(__file__).resolve().parents[1] / "examples" / "models"
MANIFEST = json.loads((MODELS / "manifest.json").read_text())["models"]
CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"


def write_inputs(tmp_path: Path, name: str, batch: int) -> tuple[list[str], np.lib.npyio.NpzFile]:
    arrays = np.load(MODELS / f"{name}.io.npz")
    args = []
    for t in MANIFEST[name]["inputs"]:
        path = tmp_path / (t["name"].replace("/", "_").replace(":", "_") + ".npy")
        np.save(path, arrays[f"b{batch}/in/{t['name']}"])
        args += ["--input", f"{t['name'].split(':')[0]}={path}"]
    return args, arrays


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_golden_models_run_through_the_cli_and_match_tensorflow(name, tmp_path, capsys) -> None:
    inputs, arrays = write_inputs(tmp_path, name, batch=1)
    outputs = [t["name"] for t in MANIFEST[name]["outputs"]]
    out_dir = tmp_path / "out"
    args = ["run", str(MODELS / f"{name}.pb"), *inputs, "--save", str(out_dir)]
    for t in outputs:
        args += ["--output", t]
    assert main(args) == 0
    printed = capsys.readouterr().out
    for t in outputs:
        path = out_dir / (t.replace("/", "__").replace(":", "_") + ".npy")
        assert f"{t}: " in printed and str(path) in printed
        got, want = np.load(path), arrays[f"b1/out/{t}"]
        assert got.dtype == want.dtype and got.shape == want.shape
        scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
        assert float(np.max(np.abs(got.astype(np.float64) - want), initial=0.0)) <= 1e-4 * scale, t


def test_prints_outputs_and_placement(tmp_path, capsys) -> None:
    inputs, arrays = write_inputs(tmp_path, "mlp", batch=8)
    assert main(["run", str(MODELS / "mlp.pbtxt"), *inputs, "--log-placement"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert f"dense/Relu: (_FusedMatMul): {CPU0}" in lines  # placement logs the graph after the remapper
    assert f"dense/kernel: (Const): {CPU0}" in lines
    (result,) = [line for line in lines if line.startswith("probs:0: ")]  # the default output: nothing consumes it
    assert result.startswith("probs:0: float32[8, 5] min=")
    want = arrays["b8/out/probs:0"]
    assert f"mean={want.astype(np.float64).mean():.6g}" in result


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "missing --input for placeholder(s): x (float32, shape (None, 20))"),
        (["--input", "x"], "bad --input 'x': expected NAME=FILE.npy"),
        (["--input", "x=/no/such/file.npy"], "--input x: no such file '/no/such/file.npy'"),
        (["--input", "q=INPUT"], "unknown --input 'q:0': no tensor 'q:0' in the model (placeholders: x)"),
        (["--input", "x=INPUT", "--output", "nope"], "unknown --output 'nope': no tensor 'nope:0' in the model"),
        (["--input", "x=WRONG"], "Cannot feed value of shape (3,) for Tensor x:0, which has shape (None, 20)"),
    ],
)
def test_bad_arguments_are_clear_errors(extra, message, tmp_path, capsys) -> None:
    good, wrong = tmp_path / "x.npy", tmp_path / "wrong.npy"
    np.save(good, np.zeros((1, 20), np.float32))
    np.save(wrong, np.zeros(3, np.float32))
    extra = [e.replace("INPUT", str(good)).replace("WRONG", str(wrong)) for e in extra]
    assert main(["run", str(MODELS / "mlp.pb"), *extra]) == 1
    err = capsys.readouterr().err
    assert err.startswith("modtensor run: error: ") and message in err, err


def test_devices_the_process_lacks_fall_back_softly(tmp_path, capsys) -> None:
    from modtensor.framework.graph_io import read_graph_def, write_graph_def

    graph_def = read_graph_def(MODELS / "mlp.pb")
    for n in graph_def.node:
        n.device = "/job:localhost/replica:0/task:0/device:GPU:0"  # as exported on a GPU machine
    model = tmp_path / "mlp_gpu.pb"
    write_graph_def(graph_def, model)
    inputs, arrays = write_inputs(tmp_path, "mlp", batch=1)
    assert main(["run", str(model), *inputs, "--save", str(tmp_path), "--log-placement"]) == 0
    assert f"probs: (Softmax): {CPU0}" in capsys.readouterr().out.splitlines()
    np.testing.assert_allclose(np.load(tmp_path / "probs_0.npy"), arrays["b1/out/probs:0"], atol=1e-6)
