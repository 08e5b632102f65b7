"""``modtensor inspect DIR`` prints what ``saved_model_cli show --all`` prints; ``modtensor run DIR --signature``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from modtensor.cli.main import main

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "saved_model"
EXPECTED = json.loads((GOLDEN / "expected.json").read_text())
_OPS = re.compile(r"contains the following ops: \{(.*)\}")


def _ops_as_set(text: str) -> str:
    """The op set line with its elements sorted (TF prints a Python set, in no fixed order)."""
    return _OPS.sub(lambda m: "contains the following ops: " + ", ".join(sorted(m.group(1).split(", "))), text)


@pytest.mark.parametrize("name", ["module", "keras"])
def test_inspect_prints_saved_model_cli_show_all(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", str(GOLDEN / name)]) == 0
    assert _ops_as_set(capsys.readouterr().out) == _ops_as_set(EXPECTED[name]["cli_show"])


def test_run_calls_a_signature(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    features = np.array(EXPECTED["keras"]["features"], np.float32)
    np.save(tmp_path / "f.npy", features)
    out = tmp_path / "out"
    assert main(["run", str(GOLDEN / "keras"), "--input", f"features={tmp_path / 'f.npy'}", "--save", str(out)]) == 0
    assert "signature 'serving_default'" in capsys.readouterr().out
    np.testing.assert_allclose(np.load(out / "output_0.npy"), EXPECTED["keras"]["keras_predict"], rtol=1e-6)
    np.save(tmp_path / "a.npy", np.array([1.0, 2.0, 3.0], np.float32))
    np.save(tmp_path / "k.npy", np.array(0.5, np.float32))
    args = ["run", str(GOLDEN / "module"), "--signature", "multi", "--input", f"a={tmp_path / 'a.npy'}"]
    assert main([*args, "--input", f"k={tmp_path / 'k.npy'}"]) == 0
    printed = capsys.readouterr().out
    assert "scaled: float32[3]" in printed and "total: float32[] min=6.5" in printed


def test_run_errors_name_the_signature_and_inputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    np.save(tmp_path / "a.npy", np.array([1.0], np.float32))
    assert main(["run", str(GOLDEN / "module"), "--signature", "nope"]) != 0
    assert "has no signature 'nope' (signatures: bump, multi, serving_default)" in capsys.readouterr().err
    assert main(["run", str(GOLDEN / "module"), "--signature", "multi", "--input", f"a={tmp_path / 'a.npy'}"]) != 0
    assert "missing --input for signature 'multi': k (TensorSpec(shape=(), dtype=tf.float32, name='k'))" in (
        capsys.readouterr().err
    )
    assert main(["run", str(GOLDEN / "unsupported_op")]) != 0
    assert "Op type not registered 'Zeta'" in capsys.readouterr().err
