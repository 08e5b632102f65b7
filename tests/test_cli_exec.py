"""``modtensor exec PROGRAM.py``: an unchanged TensorFlow program runs with ``import tensorflow`` as modtensor."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def _exec(tmp_path: Path, source: str, *args: str) -> subprocess.CompletedProcess:
    program = tmp_path / "program.py"
    program.write_text(source)
    return subprocess.run(
        [sys.executable, "-m", "modtensor.cli.main", "exec", str(program), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )


def test_tensorflow_and_its_submodules_resolve_to_modtensor_and_argv_is_the_programs(tmp_path: Path) -> None:
    (tmp_path / "helper.py").write_text("X = 7\n")  # the program's folder is on sys.path, as with `python`
    done = _exec(
        tmp_path,
        "import sys\nimport tensorflow as tf\nimport tensorflow.compat.v1 as v1\nfrom tensorflow import nn\n"
        "import helper\n"
        "print(tf.__name__, v1.__name__, nn.relu(tf.constant([-1.0, 2.0])).numpy().tolist(), sys.argv, helper.X)\n",
        "--flag",
        "value",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[0] == "modtensor modtensor.compat.v1 [0.0, 2.0] ['" + str(
        tmp_path / "program.py"
    ) + "', '--flag', 'value'] 7"


def test_exit_status_and_exceptions_are_the_programs(tmp_path: Path) -> None:
    assert _exec(tmp_path, "raise SystemExit(3)\n").returncode == 3
    failed = _exec(tmp_path, "import tensorflow as tf\ntf.reshape(tf.range(6), [4, -1])\n")
    assert failed.returncode == 1
    assert "Traceback" in failed.stderr and "InvalidArgumentError" in failed.stderr
    assert 'program.py", line 2' in failed.stderr


def test_keras_fails_at_the_import_saying_what_to_do(tmp_path: Path) -> None:
    for source in ("from tensorflow import keras\n", "import tensorflow.keras\n"):
        done = _exec(tmp_path, "import tensorflow as tf\n" + source)
        assert done.returncode == 1
        assert "No module named 'tensorflow.keras': modtensor does not provide Keras" in done.stderr


def test_a_missing_program_is_a_clear_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "modtensor.cli.main", "exec", str(tmp_path / "nope.py")], capture_output=True, text=True
    )
    assert done.returncode == 1 and "no such program file" in done.stderr
