"""tf.cond, tf.case, tf.switch_case and tf.while_loop against TensorFlow 2.21, eagerly, in functions and v1 graphs.

The golden half runs the programs of ``control_flow_programs.py`` with ``import modtensor as tf``
and compares with what TensorFlow 2.21 recorded (``tools/make_golden_control_flow.py``):
values, tracing counts, op types of the traced graphs and their library functions, the
attrs of the functional ops, error classes and messages.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import pytest

import modtensor as tf

from .test_function import _assert_same

HERE = Path(__file__).resolve().parent
GOLDEN = json.loads((HERE.parent / "golden" / "control_flow" / "programs.json").read_text())["programs"]


def _load_programs() -> Any:
    spec = importlib.util.spec_from_file_location("control_flow_programs", HERE / "control_flow_programs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PROGRAMS = _load_programs()

# Parts of TF's texts that name things modtensor names differently: the function of the call, the generated
# node name of a lowered If's predicate Switch.
_NORMALIZE = [
    (re.compile(r" \[Op:__inference_\w+\]"), ""),
    (re.compile(r"while building NodeDef '[^']*'"), "while building NodeDef '...'"),
]


def _normalized(value: Any) -> Any:
    if isinstance(value, str):
        for pattern, replacement in _NORMALIZE:
            value = pattern.sub(replacement, value)
        return value
    if isinstance(value, dict):
        return {k: _normalized(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalized(v) for v in value]
    return value


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_program_matches_tensorflow(name: str) -> None:
    actual = json.loads(json.dumps(PROGRAMS.PROGRAMS[name](tf)))
    _assert_same(_normalized(actual), _normalized(GOLDEN[name]), name)
