"""AutoGraph programs held to TensorFlow 2.21's results (``tests/golden/autograph/programs.json``).

The programs of ``autograph_programs.py`` run with ``import modtensor as tf``: results,
tracing counts, the staged control flow in the traced graph, printed text, and errors
(with their "in user code:" frames) must equal what TensorFlow recorded for the same text
(``tools/make_golden_autograph.py``). The programs that stage ``tf.cond``/``tf.while_loop``
need those functions, which come with the control-flow work of issue 10.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import math
import weakref
from pathlib import Path
from typing import Any

import pytest

import modtensor as tf
from modtensor.api.autograph import impl

HERE = Path(__file__).resolve().parent
GOLDEN = json.loads((HERE.parent / "golden" / "autograph" / "programs.json").read_text())["programs"]

# modtensor's text for a symbolic tensor used as a Python bool differs from TF's after this prefix
# (framework/graph.py names the tensor and gives graph-mode advice).
BOOL_ERROR_PREFIX = "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed"


def _load_programs() -> Any:
    spec = importlib.util.spec_from_file_location("autograph_programs", HERE / "autograph_programs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PROGRAMS = _load_programs()


def _assert_same(actual: Any, expected: Any, path: str = "") -> None:
    """JSON results equal, floats to float32 precision."""
    if isinstance(expected, float) and isinstance(actual, (int, float)):
        assert math.isclose(actual, expected, rel_tol=1e-6, abs_tol=1e-6), f"{path}: {actual} != {expected}"
        return
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{path}: {actual!r} is not a dict like {expected!r}"
        assert sorted(actual) == sorted(expected), f"{path}: keys {sorted(actual)} != {sorted(expected)}"
        for key in expected:
            _assert_same(actual[key], expected[key], f"{path}.{key}")
        return
    if isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), f"{path}: {actual!r} != {expected!r}"
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            _assert_same(a, e, f"{path}[{i}]")
        return
    assert actual == expected, f"{path}: {actual!r} != {expected!r}"


def _run(name: str) -> Any:
    return json.loads(json.dumps(PROGRAMS.PROGRAMS[name](tf)))


PROGRAMS_WITHOUT_COND_OR_WHILE = sorted(set(GOLDEN) - PROGRAMS.TENSOR_PROGRAMS - {"bool_of_tensor_unconverted"})


@pytest.mark.parametrize("name", PROGRAMS_WITHOUT_COND_OR_WHILE)
def test_program_without_cond_or_while_matches_tensorflow(name: str) -> None:
    _assert_same(_run(name), GOLDEN[name], name)


@pytest.mark.parametrize("name", sorted(PROGRAMS.TENSOR_PROGRAMS))
def test_tensor_program_matches_tensorflow(name: str) -> None:
    _assert_same(_run(name), GOLDEN[name], name)


def test_bool_of_tensor_without_autograph_is_an_error() -> None:
    actual = _run("bool_of_tensor_unconverted")
    for key, expected in GOLDEN["bool_of_tensor_unconverted"].items():
        assert actual[key]["type"] == expected["type"] == "OperatorNotAllowedInGraphError"
        assert expected["message"].startswith(BOOL_ERROR_PREFIX)
        assert actual[key]["message"].startswith(BOOL_ERROR_PREFIX), actual[key]["message"]


def test_unconvertible_function_warns_once_it_runs_unconverted(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(impl, "_failed", weakref.WeakKeyDictionary())  # it warns once per function and process
    with caplog.at_level(logging.WARNING, logger="modtensor.autograph"):
        _run("generator_runs_unconverted")
    messages = [r.getMessage() for r in caplog.records]
    assert any("could not transform" in m and "generators are not supported" in m for m in messages), messages
