"""Record TensorFlow's results for the IndexedSlices programs of ``tests/api/indexed_slices_programs.py``.

Runs every program with TensorFlow as ``tf`` and writes ``tests/golden/gradients/indexed_slices_programs.json``,
which ``tests/api/test_indexed_slices.py`` holds modtensor to (the same program text runs with
``import modtensor as tf``).

    /work/tfvenv/bin/python tools/make_golden_indexed_slices.py
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS_FILE = ROOT / "tests" / "api" / "indexed_slices_programs.py"
OUT = ROOT / "tests" / "golden" / "gradients" / "indexed_slices_programs.json"


def main() -> int:
    tf.get_logger().setLevel("ERROR")
    spec = importlib.util.spec_from_file_location("indexed_slices_programs", PROGRAMS_FILE)
    programs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(programs)
    results = {"tensorflow_version": tf.__version__, "programs": {}}
    for name, program in programs.PROGRAMS.items():
        results["programs"][name] = program(tf)
        print(f"{name}: recorded")
    OUT.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
