"""Record what TensorFlow 2.21 prints for the unchanged TF programs of tests/tf_programs/.

Run with the TensorFlow scratch venv (TensorFlow is never imported by modtensor or its tests):

    /work/tfvenv/bin/python tools/make_golden_tf_programs.py [NAME ...]

Each program prints one line ``RESULT <json>``; it is written to
``tests/golden/tf_programs/NAME.json``. ``tests/test_tf_programs.py`` runs the same programs
with ``modtensor exec`` and compares.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "tests" / "tf_programs"
OUT = ROOT / "tests" / "golden" / "tf_programs"


def main() -> None:
    import tensorflow as tf

    OUT.mkdir(parents=True, exist_ok=True)
    names = sys.argv[1:] or sorted(p.stem for p in PROGRAMS.glob("*.py"))
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONHASHSEED="0")
    for name in names:
        with tempfile.TemporaryDirectory() as workdir:
            done = subprocess.run(
                [sys.executable, str(PROGRAMS / f"{name}.py"), workdir], capture_output=True, text=True, env=env
            )
        lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
        if done.returncode != 0 or len(lines) != 1:
            raise SystemExit(f"{name}: TensorFlow run failed ({done.returncode}):\n{done.stderr[-3000:]}")
        record = {"tensorflow": tf.__version__, "result": json.loads(lines[0][len("RESULT ") :])}
        (OUT / f"{name}.json").write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
        print(f"{name}: {len(record['result'])} results")


if __name__ == "__main__":
    main()
