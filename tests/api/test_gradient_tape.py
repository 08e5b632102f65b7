"""tf.GradientTape, tf.gradients, tf.hessians, tf.custom_gradient and tf.RegisterGradient behave as TensorFlow 2.21's.

The programs of ``gradient_tape_programs.py`` run with ``import modtensor as tf`` and are compared
with what TensorFlow recorded (``tools/make_golden_program_corpus.py gradient_tape``): gradient values and
structures, None for unconnected sources, watched variables, IndexedSlices, error classes and texts.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

import modtensor as tf

from .test_function import _assert_same

HERE = Path(__file__).resolve().parent
GOLDEN = json.loads((HERE.parent / "golden" / "gradients" / "tape_programs.json").read_text())["programs"]


def _load_programs() -> Any:
    spec = importlib.util.spec_from_file_location("gradient_tape_programs", HERE / "gradient_tape_programs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PROGRAMS = _load_programs()


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_program_matches_tensorflow(name: str) -> None:
    actual = json.loads(json.dumps(PROGRAMS.PROGRAMS[name](tf)))
    _assert_same(actual, GOLDEN[name], name)
