"""tf.IndexedSlices behaves as TensorFlow 2.21's where a user meets it.

The programs of ``indexed_slices_programs.py`` (gradients of gathers, aggregation, conversion,
printing, operators, ``Session.run`` fetches and feeds) run with ``import modtensor as tf`` and
are compared with what TensorFlow recorded (``tools/make_golden_program_corpus.py indexed_slices``).
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
GOLDEN = json.loads((HERE.parent / "golden" / "gradients" / "indexed_slices_programs.json").read_text())["programs"]


def _load_programs() -> Any:
    spec = importlib.util.spec_from_file_location("indexed_slices_programs", HERE / "indexed_slices_programs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PROGRAMS = _load_programs()


def test_every_program_has_a_golden() -> None:
    assert sorted(PROGRAMS.PROGRAMS) == sorted(GOLDEN)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_program_matches_tensorflow(name: str) -> None:
    actual = json.loads(json.dumps(PROGRAMS.PROGRAMS[name](tf)))
    _assert_same(actual, GOLDEN[name], name)
