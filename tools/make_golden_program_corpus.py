"""Record TensorFlow's results for a corpus of programs that also run on modtensor (``PROGRAMS`` of a tests file).

A corpus module (``tests/api/*_programs.py``) defines ``PROGRAMS: dict[name, fn(tf) -> JSON-able]`` and
imports neither library; this runs every program with TensorFlow as ``tf`` and writes the results, which
the matching test holds modtensor to (the same program text runs with ``import modtensor as tf``).

    /work/tfvenv/bin/python tools/make_golden_program_corpus.py gradient_tape
    /work/tfvenv/bin/python tools/make_golden_program_corpus.py indexed_slices

Corpora: ``gradient_tape`` (tests/api/gradient_tape_programs.py -> tests/golden/gradients/tape_programs.json),
``indexed_slices`` (tests/api/indexed_slices_programs.py -> tests/golden/gradients/indexed_slices_programs.json).
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
CORPORA = {
    "gradient_tape": ("tests/api/gradient_tape_programs.py", "tests/golden/gradients/tape_programs.json"),
    "indexed_slices": ("tests/api/indexed_slices_programs.py", "tests/golden/gradients/indexed_slices_programs.json"),
}


def record(programs_file: Path, out: Path) -> None:
    """Run every program of ``programs_file`` with TensorFlow and write their results to ``out``."""
    spec = importlib.util.spec_from_file_location(programs_file.stem, programs_file)
    programs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(programs)  # type: ignore[union-attr]
    results = {"tensorflow_version": tf.__version__, "programs": {}}
    for name, program in programs.PROGRAMS.items():
        results["programs"][name] = program(tf)
        print(f"{name}: recorded")
    out.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")


def main(argv: list[str]) -> int:
    tf.get_logger().setLevel("ERROR")
    for corpus in argv or sorted(CORPORA):
        if corpus not in CORPORA:
            print(f"unknown corpus {corpus!r}; known: {', '.join(sorted(CORPORA))}", file=sys.stderr)
            return 2
        programs_file, out = CORPORA[corpus]
        record(ROOT / programs_file, ROOT / out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
