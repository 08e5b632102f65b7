"""Unchanged TensorFlow 2 programs run with ``modtensor exec`` print what TensorFlow 2.21 printed.

Each program in tests/tf_programs/ is plain TF code (``import tensorflow as tf``) that branches,
loops, trains, reads data, saves and restores; tools/make_golden_tf_programs.py recorded TF's
``RESULT`` line in tests/golden/tf_programs/. Numbers compare within float32 round-off
(TF's kernels sum in another order), everything else exactly.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent
PROGRAMS = ROOT / "tf_programs"
GOLDEN = ROOT / "golden" / "tf_programs"
NAMES = sorted(p.stem for p in GOLDEN.glob("*.json"))


def _compare(ours: object, theirs: object, where: str) -> list[str]:
    if isinstance(theirs, float) and isinstance(ours, (int, float)) and not isinstance(ours, bool):
        if math.isinf(theirs) or math.isinf(ours):
            return [] if ours == theirs else [f"{where}: {ours} != {theirs}"]
        close = math.isclose(ours, theirs, rel_tol=1e-5, abs_tol=1e-6)
        return [] if close else [f"{where}: {ours!r} != TF's {theirs!r}"]
    if isinstance(theirs, list) and isinstance(ours, list):
        if len(ours) != len(theirs):
            return [f"{where}: {len(ours)} items, TF has {len(theirs)}: {ours!r} vs {theirs!r}"]
        return [d for i, (a, b) in enumerate(zip(ours, theirs, strict=True)) for d in _compare(a, b, f"{where}[{i}]")]
    if isinstance(theirs, dict) and isinstance(ours, dict):
        if sorted(ours) != sorted(theirs):
            return [f"{where}: keys {sorted(ours)} != TF's {sorted(theirs)}"]
        return [d for k in theirs for d in _compare(ours[k], theirs[k], f"{where}.{k}")]
    return [] if ours == theirs and type(ours) is type(theirs) else [f"{where}: {ours!r} != TF's {theirs!r}"]


def test_every_program_has_a_golden_record() -> None:
    assert sorted(p.stem for p in PROGRAMS.glob("*.py")) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_program_prints_what_tensorflow_printed(name: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "modtensor.cli.main", "exec", str(PROGRAMS / f"{name}.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONHASHSEED="0"),
        timeout=600,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert done.returncode == 0 and len(lines) == 1, done.stderr[-4000:]
    ours = json.loads(lines[0][len("RESULT ") :])
    theirs = json.loads((GOLDEN / f"{name}.json").read_text())["result"]
    differences = _compare(ours, theirs, name)
    assert not differences, "\n".join(differences[:20])
