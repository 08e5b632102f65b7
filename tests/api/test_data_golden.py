"""tf.data programs give TensorFlow 2.21's results: elements, element_spec and dataset reprs, cardinalities,
error classes and texts (tests/golden/data/programs.json by tools/make_golden_data.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import modtensor as tf

from .data_golden import run
from .data_programs import PROGRAMS

GOLDEN = json.loads((Path(__file__).resolve().parent.parent / "golden" / "data" / "programs.json").read_text())

# Where TF's text names its own internals, modtensor's names its: compared after these rewrites.
_NORMALIZE = [
    (re.compile(r"\nTraceback \(most recent call last\):.*", re.S), ""),  # TF appends the py_func's traceback
    (re.compile(r"__inference_\w+?_\d+"), "__inference_FN"),
    (re.compile(r"\{\{function_node [^}]*\}\}"), "{{function_node}}"),
    (re.compile(r"\n\t \[\[.*", re.S), ""),
    (re.compile(r" \[Op:\w+\]( name: \S*)?"), ""),
    (re.compile(r"Graph execution error:\n\n(Detected at node .*?\n)?", re.S), ""),
    (re.compile(r'File ".*?", line \d+, in .*?\n\n'), ""),
]


def _normalize(record: dict) -> dict:
    if "message" not in record:
        return record
    message = record["message"]
    for pattern, replacement in _NORMALIZE:
        message = pattern.sub(replacement, message)
    return {**record, "message": message.strip()}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_program_matches_tensorflow(name: str) -> None:
    tf.random.set_seed(None)
    ours = run(PROGRAMS[name], tf)
    assert _normalize(ours) == _normalize(GOLDEN[name])


def test_every_program_has_a_golden() -> None:
    assert sorted(PROGRAMS) == sorted(GOLDEN)
