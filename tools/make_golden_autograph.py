"""Record TensorFlow's results for the AutoGraph programs of ``tests/api/autograph_programs.py``.

Runs every ``program_*`` with TensorFlow as ``tf`` and writes
``tests/golden/autograph/programs.json``, which ``tests/api/test_autograph_golden.py``
holds modtensor to (the same program text runs with ``import modtensor as tf``).

    /work/tfvenv/bin/python tools/make_golden_autograph.py
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
PROGRAMS_FILE = ROOT / "tests" / "api" / "autograph_programs.py"
OUT = ROOT / "tests" / "golden" / "autograph" / "programs.json"


def _load_programs():
    spec = importlib.util.spec_from_file_location("autograph_programs", PROGRAMS_FILE)
    module = importlib.util.module_from_spec(spec)
    sys.modules["autograph_programs"] = module
    spec.loader.exec_module(module)
    return module


def main() -> int:
    tf.get_logger().setLevel("ERROR")  # AutoGraph's "could not transform" warning is expected
    programs = _load_programs()
    results = {"tensorflow_version": tf.__version__, "programs": {}}
    for name, program in programs.PROGRAMS.items():
        results["programs"][name] = program(tf)
        print(f"{name}: recorded")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
