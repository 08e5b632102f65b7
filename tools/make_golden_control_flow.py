"""Record TensorFlow's results for the control-flow programs of ``tests/api/control_flow_programs.py``.

Runs every ``program_*`` with TensorFlow as ``tf`` and writes
``tests/golden/control_flow/programs.json``, which ``tests/api/test_control_flow.py`` holds
modtensor to (the same program text runs with ``import modtensor as tf``).

    /work/tfvenv/bin/python tools/make_golden_control_flow.py
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
PROGRAMS_FILE = ROOT / "tests" / "api" / "control_flow_programs.py"
OUT = ROOT / "tests" / "golden" / "control_flow" / "programs.json"


def _load_programs():
    spec = importlib.util.spec_from_file_location("control_flow_programs", PROGRAMS_FILE)
    module = importlib.util.module_from_spec(spec)
    sys.modules["control_flow_programs"] = module
    spec.loader.exec_module(module)
    return module


def main() -> int:
    tf.get_logger().setLevel("ERROR")  # the retracing warnings are expected
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
