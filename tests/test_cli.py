"""The ``modtensor`` command: ``demo`` over the bundled models, ``inspect`` of a GraphDef, and its error handling."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from modtensor.cli.main import main

MODELS = Path(__file__).resolve().parents[1] / "examples" / "models"


def test_demo_checks_every_bundled_model(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--models", str(MODELS), "--device-plugin", "none"]) == 0
    out = capsys.readouterr().out
    models = json.loads((MODELS / "manifest.json").read_text())["models"]
    for name in models:
        assert f"== {name}:" in out
    assert "FAILED" not in out
    assert out.count("GraphDef round trip: unchanged") == len(models)
    assert out.count("outputs vs TensorFlow's") == len(models) and out.count("[ok]") == len(models)


def test_demo_fails_when_a_shape_disagrees_with_tensorflow(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for f in ("manifest.json", "mlp.pb", "mlp.shapes.json", "mlp.io.npz"):
        shutil.copy(MODELS / f, tmp_path / f)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    manifest["models"] = {"mlp": manifest["models"]["mlp"]}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    shapes = json.loads((tmp_path / "mlp.shapes.json").read_text())
    first = next(iter(shapes))
    shapes[first]["shape"] = [12345]
    (tmp_path / "mlp.shapes.json").write_text(json.dumps(shapes))
    assert main(["demo", "--models", str(tmp_path), "--device-plugin", "none"]) == 1
    out = capsys.readouterr().out
    assert "[FAILED]" in out and f"{first}: got" in out and "TensorFlow float32[12345]" in out


def test_demo_without_models_folder_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--models", str(tmp_path), "--device-plugin", "none"]) == 1
    assert f"no manifest.json in {tmp_path}" in capsys.readouterr().err


def test_inspect_lists_nodes_with_shapes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", str(MODELS / "small_cnn.pb"), "--nodes"]) == 0
    out = capsys.readouterr().out
    assert "Conv2D" in out and "float32[" in out


def test_inspect_of_a_graph_with_an_unknown_op_names_op_and_node(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.pbtxt"
    path.write_text('node { name: "weird" op: "NoSuchOp" }\n')
    assert main(["inspect", str(path)]) == 1
    err = capsys.readouterr().err
    assert "NoSuchOp" in err and "weird" in err


def test_inspect_of_a_missing_file_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", str(tmp_path / "none.pb")]) == 1
    assert "none.pb" in capsys.readouterr().err


def test_demo_without_the_device_plugin_built_says_how_to_build_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "libdemo_device.so"
    assert main(["demo", "--models", str(MODELS), "--device-plugin", str(missing)]) == 0
    assert f"no device plugin at {missing}: build it with `make -C examples/plugins/demo_device`" in (
        capsys.readouterr().out
    )
